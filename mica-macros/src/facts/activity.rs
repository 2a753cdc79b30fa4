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
}

impl<'ast> Visit<'ast> for Assignments {
    fn visit_expr_assign(&mut self, e: &'ast syn::ExprAssign) {
        if let Some(name) = root(&e.left, Reach::Name) {
            self.assigned
                .push((name.clone(), (*e.right).clone(), false));
        } else if let Some(name) = indexed_root(&e.left) {
            self.writes.push((name.clone(), (*e.right).clone()));
        }
        syn::visit::visit_expr_assign(self, e);
    }
    fn visit_expr_binary(&mut self, e: &'ast syn::ExprBinary) {
        if is_compound(&e.op) {
            if let Some(name) = root(&e.left, Reach::Name) {
                self.assigned.push((name.clone(), (*e.right).clone(), true));
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
                self.assigned.push((a.clone(), e.args[1].clone(), false));
                self.assigned.push((b.clone(), e.args[0].clone(), false));
            }
        }
        syn::visit::visit_expr_call(self, e);
    }
    fn visit_local(&mut self, local: &'ast Local) {
        if let Some(init) = &local.init {
            for name in pattern_names(&local.pat) {
                self.lets.push((name, (*init.expr).clone()));
            }
        }
        syn::visit::visit_local(self, local);
    }
    fn visit_expr_for_loop(&mut self, f: &'ast syn::ExprForLoop) {
        self.loops.push(((*f.pat).clone(), (*f.expr).clone()));
        syn::visit::visit_expr_for_loop(self, f);
    }
    fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// Whether an expression would be recorded, judged from its syntax alone:
/// arithmetic and rule methods carry recorded values, comparisons, casts and
/// `detach` do not.
pub fn syntactically_active(expr: &Expr, active: &HashSet<String>) -> bool {
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
            if super::places::names_any(iterated, |i| active.contains(&i.to_string())) {
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
