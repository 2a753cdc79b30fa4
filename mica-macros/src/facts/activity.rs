//! Which names and expressions a body may record, read from syntax before
//! lowering: for array `let`s that later lines make recorded, and for the
//! bindings a loop carries from one iteration to the next.

use super::places::{array_literal, indexed_root, pattern_names, root, Reach};
use super::syntax::is_compound;
use proc_macro2::Ident;
use quote::ToTokens;
use std::collections::{HashMap, HashSet};
use syn::visit::Visit;
use syn::{Expr, Local, Stmt};

/// Assignments and `let`s in a body, for the activity fixed point. The
/// values are borrowed from the body, never copied: a body's nested blocks
/// are visited again by each enclosing block's analysis.
#[derive(Default)]
pub struct Assignments<'ast> {
    /// `(target, value, compound)`
    pub assigned: Vec<(Ident, &'ast Expr, bool)>,
    pub lets: Vec<(Ident, &'ast Expr)>,
    /// `(array, value)` of `array[…] = value` and `array[…] op= value`
    pub writes: Vec<(Ident, &'ast Expr)>,
    /// the patterns and iterated expressions of `for` loops
    pub loops: Vec<(&'ast syn::Pat, &'ast Expr)>,
    /// for each of `assigned`: whether its target is a name bound inside
    /// the visited lines (a `let` in a block, a pattern) where it stands
    shadowed: Vec<bool>,
    /// the names bound so far in each open block or pattern scope
    scopes: Vec<HashSet<String>>,
}

impl<'ast> Assignments<'ast> {
    fn assign(&mut self, name: &Ident, value: &'ast Expr, compound: bool) {
        let key = name.to_string();
        self.shadowed
            .push(self.scopes.iter().any(|s| s.contains(&key)));
        self.assigned.push((name.clone(), value, compound));
    }

    /// The assignments whose targets are bindings made before the visited
    /// lines (not a name a `let` among them shadows).
    pub fn outer(&self) -> impl Iterator<Item = &(Ident, &'ast Expr, bool)> {
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
    fn conditioned(&mut self, cond: &'ast Expr, body: &'ast syn::Block) {
        match cond {
            Expr::Let(l) => {
                self.visit_expr(&l.expr);
                // `if let Some(v) = x.get(i)`: `v` is an element of `x`
                let value: &Expr = match crate::facts::syntax::got(l) {
                    Some(m) => &m.receiver,
                    None => &l.expr,
                };
                for name in pattern_names(&l.pat) {
                    self.lets.push((name, value));
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
    fn scoped(&mut self, pat: Option<&'ast syn::Pat>, inner: impl FnOnce(&mut Self)) {
        self.scopes.push(HashSet::new());
        if let Some(pat) = pat {
            self.bind(pat);
        }
        inner(self);
        self.scopes.pop();
    }
}

impl<'ast> Visit<'ast> for Assignments<'ast> {
    fn visit_expr_assign(&mut self, e: &'ast syn::ExprAssign) {
        if let Some(name) = root(&e.left, Reach::Name) {
            self.assign(name, &e.right, false);
        } else if let Some(name) = indexed_root(&e.left) {
            self.writes.push((name.clone(), &e.right));
        }
        syn::visit::visit_expr_assign(self, e);
    }
    fn visit_expr_binary(&mut self, e: &'ast syn::ExprBinary) {
        if is_compound(&e.op) {
            if let Some(name) = root(&e.left, Reach::Name) {
                self.assign(name, &e.right, true);
            } else if let Some(name) = indexed_root(&e.left) {
                self.writes.push((name.clone(), &e.right));
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
                self.writes.push((name.clone(), value));
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
                self.assign(a, &e.args[1], false);
                self.assign(b, &e.args[0], false);
            }
        }
        syn::visit::visit_expr_call(self, e);
    }
    fn visit_local(&mut self, local: &'ast Local) {
        if let Some(init) = &local.init {
            for name in pattern_names(&local.pat) {
                self.lets.push((name, &init.expr));
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
        self.loops.push((&f.pat, &f.expr));
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
    judge(expr, active, &mut Memo::default())
}

/// The verdicts on blocks already judged in one analysis. A block's value
/// depends on which of the names it mentions are recorded, nothing else; a
/// block nested in values of blocks nested in values is asked again by each
/// enclosing block's fixed point, so without the memo the time grows
/// exponentially with the depth (inlined helpers nest that deep).
///
/// Blocks are known by address: a memo lives no longer than one call of
/// this module's public functions, and holds only blocks of the syntax
/// borrowed for that call.
#[derive(Default)]
struct Memo {
    blocks: HashMap<(usize, usize), Judged>,
}

/// One block's names and its verdict for each set of them found recorded.
struct Judged {
    names: Vec<String>,
    verdicts: Vec<(Vec<bool>, bool)>,
}

fn judge(expr: &Expr, active: &HashSet<String>, memo: &mut Memo) -> bool {
    // a copy of a recorded array is recorded (`h = w.clone();`)
    if let Some(w) = crate::facts::syntax::copied(expr) {
        return judge(w, active, memo);
    }
    match expr {
        Expr::Path(p) => p
            .path
            .get_ident()
            .is_some_and(|i| active.contains(&i.to_string())),
        Expr::Binary(b) => {
            crate::rules::binary(&b.op).is_some()
                && (judge(&b.left, active, memo) || judge(&b.right, active, memo))
        }
        Expr::Unary(u) => !matches!(u.op, syn::UnOp::Not(_)) && judge(&u.expr, active, memo),
        Expr::Paren(p) => judge(&p.expr, active, memo),
        Expr::Group(g) => judge(&g.expr, active, memo),
        Expr::Reference(r) => judge(&r.expr, active, memo),
        // `x.get(i).copied().unwrap_or(d)`: an element of `x`, or `d`
        Expr::MethodCall(m) if crate::facts::syntax::got_or(m).is_some() => {
            crate::facts::syntax::got_or(m).is_some_and(|get| judge(&get.receiver, active, memo))
                || any_in(&m.args, active, memo)
        }
        Expr::MethodCall(m) => match crate::rules::method(&m.method.to_string()) {
            Some(method) if method.slope == crate::rules::Slope::Zero => false,
            Some(_) => judge(&m.receiver, active, memo) || any_in(&m.args, active, memo),
            None => {
                !matches!(m.method.to_string().as_str(), "len" | "is_empty")
                    && any_in(&m.args, active, memo)
            }
        },
        Expr::Call(c) => {
            let detach = matches!(&*c.func, Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "detach"));
            !detach && any_in(&c.args, active, memo)
        }
        Expr::Index(i) => judge(&i.expr, active, memo),
        Expr::Field(f) => judge(&f.base, active, memo),
        Expr::Tuple(t) => any_in(&t.elems, active, memo),
        Expr::Array(a) => any_in(&a.elems, active, memo),
        Expr::Repeat(r) => judge(&r.expr, active, memo),
        // the literal is parsed anew, so its blocks get a memo of their own
        Expr::Macro(m) if m.mac.path.is_ident("vec") => {
            array_literal(expr).is_some_and(|literal| syntactically_active(&literal, active))
        }
        Expr::Block(b) => block_in(&b.block.stmts, active, memo),
        Expr::If(i) => {
            block_in(&i.then_branch.stmts, active, memo)
                || i.else_branch
                    .as_ref()
                    .is_some_and(|(_, e)| judge(e, active, memo))
        }
        Expr::Match(m) => m.arms.iter().any(|arm| judge(&arm.body, active, memo)),
        _ => false,
    }
}

/// Whether a block's value would be recorded: its tail, judged with the
/// block's own `let`s of recorded values (`{ let u = x; u.sin() }`).
fn block_in(stmts: &[Stmt], active: &HashSet<String>, memo: &mut Memo) -> bool {
    let Some(Stmt::Expr(tail, None)) = stmts.last() else {
        return false;
    };
    let key = (stmts.as_ptr() as usize, stmts.len());
    let judged = memo.blocks.entry(key).or_insert_with(|| {
        let mut names = HashSet::new();
        for stmt in stmts {
            crate::names::idents_in(stmt.to_token_stream(), &mut names);
        }
        let mut names: Vec<String> = names.into_iter().collect();
        names.sort();
        Judged {
            names,
            verdicts: Vec::new(),
        }
    });
    let seen: Vec<bool> = judged.names.iter().map(|n| active.contains(n)).collect();
    if let Some((_, verdict)) = judged.verdicts.iter().find(|(s, _)| *s == seen) {
        return *verdict;
    }
    #[cfg(test)]
    tests::JUDGED.with(|n| n.set(n.get() + 1));
    let mut inner = active.clone();
    for stmt in stmts {
        if let Stmt::Local(local) = stmt {
            if let Some(init) = &local.init {
                let recorded = judge(&init.expr, &inner, memo);
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
    settle_in(&finder, &mut inner, memo);
    let verdict = judge(tail, &inner, memo);
    if let Some(judged) = memo.blocks.get_mut(&key) {
        judged.verdicts.push((seen, verdict));
    }
    verdict
}

/// The fixed point of `active` over a body's assignments, element writes
/// and loops: a name becomes recorded when it is assigned a recorded value,
/// an array when a recorded value is written into it, a loop's element
/// when the loop iterates a recorded array.
pub fn settle(finder: &Assignments, active: &mut HashSet<String>) {
    settle_in(finder, active, &mut Memo::default());
}

fn settle_in(finder: &Assignments, active: &mut HashSet<String>, memo: &mut Memo) {
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
            if judge(value, active, memo) || (*compound && active.contains(&name.to_string())) {
                active.insert(name.to_string());
            }
        }
        for (name, value) in finder.lets.iter().chain(&finder.writes) {
            if judge(value, active, memo) {
                active.insert(name.to_string());
            }
        }
        if active.len() == before {
            break;
        }
    }
}

fn any_in<'e>(
    items: impl IntoIterator<Item = &'e Expr>,
    active: &HashSet<String>,
    memo: &mut Memo,
) -> bool {
    items.into_iter().any(|e| judge(e, active, memo))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    thread_local! {
        /// How many blocks were judged (not found in the memo).
        pub static JUDGED: Cell<usize> = const { Cell::new(0) };
    }

    /// `depth` blocks, each the value of a `let` in the one around it, each
    /// assigning its binding again: every enclosing block's fixed point
    /// judges every value nested in it, twice or more.
    fn nested(depth: usize) -> Expr {
        let mut expr = String::from("x");
        for k in 0..depth {
            expr = format!("{{ let mut a{k} = {expr}; a{k} = a{k} * 2.0 + w; a{k} += 1.0; a{k} }}");
        }
        syn::parse_str(&expr).unwrap()
    }

    fn judged(depth: usize, active: &[&str]) -> (bool, usize) {
        let active: HashSet<String> = active.iter().map(|s| s.to_string()).collect();
        JUDGED.with(|n| n.set(0));
        let verdict = syntactically_active(&nested(depth), &active);
        (verdict, JUDGED.with(Cell::get))
    }

    #[test]
    fn nested_blocks_are_judged_a_bounded_number_of_times() {
        // a name recorded at the bottom makes every level recorded; one in
        // every level's assignment too; none, none
        for (active, recorded) in [(&["x"][..], true), (&["w"][..], true), (&[][..], false)] {
            for depth in [1, 5, 10] {
                let (verdict, judged) = judged(depth, active);
                assert_eq!(verdict, recorded);
                // each block at most twice: before and after the fixed
                // point of the block around it records its own binding
                // (without the memo, 10 levels judge some 33,000)
                assert!(judged <= 2 * depth, "{judged} judged at depth {depth}");
            }
        }
    }

    #[test]
    fn a_block_is_judged_again_under_other_names() {
        // the fixed point judges `t`'s block first with `s` a constant, then
        // with `s` recorded (after `s = x`): a second verdict, not the first
        // remembered
        let expr: Expr = syn::parse_str(
            "{ let mut s = 0.0; let mut t = 0.0; \
               for _ in 0..3 { t = { let u = s; u * 2.0 }; s = x; } t }",
        )
        .unwrap();
        let x: HashSet<String> = ["x".to_string()].into();
        assert!(syntactically_active(&expr, &x));
        assert!(!syntactically_active(&expr, &HashSet::new()));
    }
}
