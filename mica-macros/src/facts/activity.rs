//! Which names and expressions a body may record, read from syntax before
//! lowering: for array `let`s that later lines make recorded, and for the
//! bindings a loop carries from one iteration to the next.

use super::places::{array_literal, indexed_root, pattern_names, root, Reach};
use super::syntax::is_compound;
use proc_macro2::Ident;
use std::collections::HashSet;
use syn::visit::Visit;
use syn::{Expr, Local, Stmt};

/// Assignments and `let`s in a body, for the activity fixed point.
#[derive(Default)]
pub struct Assignments {
    /// `(target, value, compound)`
    pub assigned: Vec<(Ident, Expr, bool)>,
    pub lets: Vec<(Ident, Expr)>,
    /// `(array, value)` of `array[…] = value` and `array[…] op= value`
    pub writes: Vec<(Ident, Expr)>,
    /// the patterns and iterated expressions of `for` loops
    pub loops: Vec<(syn::Pat, Expr)>,
    /// for each of `assigned`: whether its target is a name bound inside
    /// the visited lines (a `let` in a block, a pattern) where it stands
    shadowed: Vec<bool>,
    /// the names bound so far in each open block or pattern scope
    scopes: Vec<HashSet<String>>,
}

impl Assignments {
    fn assign(&mut self, name: &Ident, value: Expr, compound: bool) {
        let key = name.to_string();
        self.shadowed
            .push(self.scopes.iter().any(|s| s.contains(&key)));
        self.assigned.push((name.clone(), value, compound));
    }

    /// The assignments whose targets are bindings made before the visited
    /// lines (not a name a `let` among them shadows).
    pub fn outer(&self) -> impl Iterator<Item = &(Ident, Expr, bool)> {
        self.assigned
            .iter()
            .zip(&self.shadowed)
            .filter(|(_, shadowed)| !**shadowed)
            .map(|(a, _)| a)
    }

    fn bind(&mut self, pat: &syn::Pat) {
        let names = pattern_names(pat);
        if self.scopes.is_empty() {
            // the visited lines' own scope
            self.scopes.push(HashSet::new());
        }
        if let Some(scope) = self.scopes.last_mut() {
            scope.extend(names.iter().map(Ident::to_string));
        }
    }

    /// An `if`'s or a `while`'s condition and body: an `if let` / `while
    /// let` pattern binds its names for the body alone.
    fn conditioned(&mut self, cond: &Expr, body: &syn::Block) {
        match cond {
            Expr::Let(l) => {
                self.visit_expr(&l.expr);
                // `if let Some(v) = x.get(i)`: `v` is an element of `x`
                let value = match crate::facts::syntax::got(l) {
                    Some(m) => (*m.receiver).clone(),
                    None => (*l.expr).clone(),
                };
                for name in pattern_names(&l.pat) {
                    self.lets.push((name, value.clone()));
                }
                self.scoped(Some(&l.pat), |v| v.visit_block(body));
            }
            cond => {
                self.visit_expr(cond);
                self.visit_block(body);
            }
        }
    }

    /// Visits `inner` in a scope of its own, where `pat` binds its names.
    fn scoped(&mut self, pat: Option<&syn::Pat>, inner: impl FnOnce(&mut Self)) {
        self.scopes.push(HashSet::new());
        if let Some(pat) = pat {
            self.bind(pat);
        }
        inner(self);
        self.scopes.pop();
    }
}

impl<'ast> Visit<'ast> for Assignments {
    fn visit_expr_assign(&mut self, e: &'ast syn::ExprAssign) {
        if let Some(name) = root(&e.left, Reach::Name) {
            self.assign(name, (*e.right).clone(), false);
        } else if let Some(name) = indexed_root(&e.left) {
            self.writes.push((name.clone(), (*e.right).clone()));
        }
        syn::visit::visit_expr_assign(self, e);
    }
    fn visit_expr_binary(&mut self, e: &'ast syn::ExprBinary) {
        if is_compound(&e.op) {
            if let Some(name) = root(&e.left, Reach::Name) {
                self.assign(name, (*e.right).clone(), true);
            } else if let Some(name) = indexed_root(&e.left) {
                self.writes.push((name.clone(), (*e.right).clone()));
            }
        }
        syn::visit::visit_expr_binary(self, e);
    }
    /// `h.fill(x)`, `h.copy_from_slice(&v)`: writes of the whole array
    fn visit_expr_method_call(&mut self, e: &'ast syn::ExprMethodCall) {
        let method = e.method.to_string();
        if matches!(
            method.as_str(),
            "fill" | "copy_from_slice" | "clone_from_slice"
        ) {
            if let (Some(name), Some(value)) = (root(&e.receiver, Reach::Name), e.args.first()) {
                self.writes.push((name.clone(), value.clone()));
            }
        }
        syn::visit::visit_expr_method_call(self, e);
    }
    /// `std::mem::swap(&mut u, &mut v)`: each is assigned the other
    fn visit_expr_call(&mut self, e: &'ast syn::ExprCall) {
        let is_swap = matches!(&*e.func, Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "swap"));
        if is_swap && e.args.len() == 2 {
            let names: Vec<Option<&Ident>> = e
                .args
                .iter()
                .map(|a| match a {
                    Expr::Reference(r) if r.mutability.is_some() => root(&r.expr, Reach::Name),
                    _ => None,
                })
                .collect();
            if let [Some(a), Some(b)] = names[..] {
                self.assign(a, e.args[1].clone(), false);
                self.assign(b, e.args[0].clone(), false);
            }
        }
        syn::visit::visit_expr_call(self, e);
    }
    fn visit_local(&mut self, local: &'ast Local) {
        if let Some(init) = &local.init {
            for name in pattern_names(&local.pat) {
                self.lets.push((name, (*init.expr).clone()));
            }
            // the initialiser (and `else`) read the names before the `let`
            self.visit_expr(&init.expr);
            if let Some((_, diverge)) = &init.diverge {
                self.visit_expr(diverge);
            }
        }
        self.bind(&local.pat);
    }
    fn visit_block(&mut self, b: &'ast syn::Block) {
        self.scoped(None, |v| syn::visit::visit_block(v, b));
    }
    fn visit_expr_for_loop(&mut self, f: &'ast syn::ExprForLoop) {
        self.loops.push(((*f.pat).clone(), (*f.expr).clone()));
        self.visit_expr(&f.expr);
        self.scoped(Some(&f.pat), |v| v.visit_block(&f.body));
    }
    fn visit_arm(&mut self, arm: &'ast syn::Arm) {
        self.scoped(Some(&arm.pat), |v| {
            if let Some((_, guard)) = &arm.guard {
                v.visit_expr(guard);
            }
            v.visit_expr(&arm.body);
        });
    }
    fn visit_expr_if(&mut self, i: &'ast syn::ExprIf) {
        self.conditioned(&i.cond, &i.then_branch);
        if let Some((_, other)) = &i.else_branch {
            self.visit_expr(other);
        }
    }
    fn visit_expr_while(&mut self, w: &'ast syn::ExprWhile) {
        self.conditioned(&w.cond, &w.body);
    }
    fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// Whether an expression would be recorded, judged from its syntax alone:
/// arithmetic and rule methods carry recorded values, comparisons, casts and
/// `detach` do not.
pub fn syntactically_active(expr: &Expr, active: &HashSet<String>) -> bool {
    // a copy of a recorded array is recorded (`h = w.clone();`)
    if let Some(w) = crate::facts::syntax::copied(expr) {
        return syntactically_active(w, active);
    }
    match expr {
        Expr::Path(p) => p
            .path
            .get_ident()
            .is_some_and(|i| active.contains(&i.to_string())),
        Expr::Binary(b) => {
            crate::rules::binary(&b.op).is_some()
                && (syntactically_active(&b.left, active) || syntactically_active(&b.right, active))
        }
        Expr::Unary(u) => {
            !matches!(u.op, syn::UnOp::Not(_)) && syntactically_active(&u.expr, active)
        }
        Expr::Paren(p) => syntactically_active(&p.expr, active),
        Expr::Group(g) => syntactically_active(&g.expr, active),
        Expr::Reference(r) => syntactically_active(&r.expr, active),
        // `x.get(i).copied().unwrap_or(d)`: an element of `x`, or `d`
        Expr::MethodCall(m) if crate::facts::syntax::got_or(m).is_some() => {
            crate::facts::syntax::got_or(m)
                .is_some_and(|get| syntactically_active(&get.receiver, active))
                || any_active(&m.args, active)
        }
        Expr::MethodCall(m) => match crate::rules::method(&m.method.to_string()) {
            Some(method) if method.slope == crate::rules::Slope::Zero => false,
            Some(_) => syntactically_active(&m.receiver, active) || any_active(&m.args, active),
            None => {
                !matches!(m.method.to_string().as_str(), "len" | "is_empty")
                    && any_active(&m.args, active)
            }
        },
        Expr::Call(c) => {
            let detach = matches!(&*c.func, Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "detach"));
            !detach && any_active(&c.args, active)
        }
        Expr::Index(i) => syntactically_active(&i.expr, active),
        Expr::Field(f) => syntactically_active(&f.base, active),
        Expr::Tuple(t) => any_active(&t.elems, active),
        Expr::Array(a) => any_active(&a.elems, active),
        Expr::Repeat(r) => syntactically_active(&r.expr, active),
        Expr::Macro(m) if m.mac.path.is_ident("vec") => {
            array_literal(expr).is_some_and(|literal| syntactically_active(&literal, active))
        }
        Expr::Block(b) => block_active(&b.block.stmts, active),
        Expr::If(i) => {
            block_active(&i.then_branch.stmts, active)
                || i.else_branch
                    .as_ref()
                    .is_some_and(|(_, e)| syntactically_active(e, active))
        }
        Expr::Match(m) => m
            .arms
            .iter()
            .any(|arm| syntactically_active(&arm.body, active)),
        _ => false,
    }
}

/// Whether a block's value would be recorded: its tail, judged with the
/// block's own `let`s of recorded values (`{ let u = x; u.sin() }`).
pub fn block_active(stmts: &[Stmt], active: &HashSet<String>) -> bool {
    let Some(Stmt::Expr(tail, None)) = stmts.last() else {
        return false;
    };
    let mut inner = active.clone();
    for stmt in stmts {
        if let Stmt::Local(local) = stmt {
            if let Some(init) = &local.init {
                let recorded = syntactically_active(&init.expr, &inner);
                for name in pattern_names(&local.pat) {
                    if recorded {
                        inner.insert(name.to_string());
                    } else {
                        inner.remove(&name.to_string());
                    }
                }
            }
        }
    }
    // names the block's lines assign recorded values, in loops too (a
    // `loop` whose `break` leaves its value in a binding: `exits.rs`), and
    // arrays they write recorded elements into
    let mut finder = Assignments::default();
    for stmt in stmts {
        finder.visit_stmt(stmt);
    }
    settle(&finder, &mut inner);
    syntactically_active(tail, &inner)
}

/// The fixed point of `active` over a body's assignments, element writes
/// and loops: a name becomes recorded when it is assigned a recorded value,
/// an array when a recorded value is written into it, a loop's element
/// when the loop iterates a recorded array.
pub fn settle(finder: &Assignments, active: &mut HashSet<String>) {
    loop {
        let before = active.len();
        for (pat, iterated) in &finder.loops {
            // a range's numbers are integers, whatever its ends mention
            // (`for i in 0..h.len()` over a recorded `h`)
            let range = matches!(crate::facts::syntax::strip_parens(iterated), Expr::Range(_));
            if !range && super::places::names_any(iterated, |i| active.contains(&i.to_string())) {
                active.extend(pattern_names(pat).iter().map(Ident::to_string));
            }
        }
        for (name, value, compound) in &finder.assigned {
            if syntactically_active(value, active)
                || (*compound && active.contains(&name.to_string()))
            {
                active.insert(name.to_string());
            }
        }
        for (name, value) in finder.lets.iter().chain(&finder.writes) {
            if syntactically_active(value, active) {
                active.insert(name.to_string());
            }
        }
        if active.len() == before {
            break;
        }
    }
}

pub fn any_active<'e>(items: impl IntoIterator<Item = &'e Expr>, active: &HashSet<String>) -> bool {
    items.into_iter().any(|e| syntactically_active(e, active))
}
