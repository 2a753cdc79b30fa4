//! The shapes of values out of branches and blocks, read from the
//! syntax: tuples written out, arrays written out, and arms that only bind
//! names (so a branch may be written twice).

use super::syntax::pattern_names;
use syn::{Block, Expr, Stmt};

/// Whether some value `e` can end with, through blocks, `if` and `match`,
/// is an array written out (`[a, b]`, `[x; n]`, `vec![…]`).
pub(crate) fn ends_in_array(e: &Expr) -> bool {
    let tail = |b: &Block| match b.stmts.last() {
        Some(Stmt::Expr(e, None)) => ends_in_array(e),
        _ => false,
    };
    match e {
        Expr::Array(_) | Expr::Repeat(_) => true,
        Expr::Macro(m) => m.mac.path.is_ident("vec"),
        Expr::Paren(p) => ends_in_array(&p.expr),
        Expr::Block(b) if b.label.is_none() => tail(&b.block),
        Expr::If(i) => {
            tail(&i.then_branch)
                || i.else_branch
                    .as_ref()
                    .is_some_and(|(_, e)| ends_in_array(e))
        }
        Expr::Match(m) => m.arms.iter().any(|a| ends_in_array(&a.body)),
        _ => false,
    }
}

/// Whether writing a branch twice changes nothing: its arms change no
/// binding made outside them (assignments and mutating methods reach only
/// names the arms bind), and leave only by their value (no `return`, no
/// `break` or `continue` out of them, no macro but `vec!`).
pub(crate) fn arms_only_bind(e: &Expr) -> bool {
    use std::collections::HashSet;
    use syn::BinOp::*;
    struct Pure {
        ok: bool,
        bound: HashSet<String>,
        loops: usize,
    }
    impl Pure {
        fn changes(&mut self, target: &Expr) {
            if !super::activity::root(target).is_some_and(|r| self.bound.contains(&r)) {
                self.ok = false;
            }
        }
    }
    impl<'a> syn::visit::Visit<'a> for Pure {
        fn visit_local(&mut self, l: &'a syn::Local) {
            if l.init.as_ref().is_some_and(|i| i.diverge.is_some()) {
                self.ok = false;
            }
            syn::visit::visit_local(self, l);
            self.bound.extend(pattern_names(&l.pat));
        }
        fn visit_macro(&mut self, m: &'a syn::Macro) {
            // values, and checks that change nothing (an iterator chain's
            // `.unwrap()` is written as an `assert!`)
            if !["vec", "assert", "debug_assert"]
                .iter()
                .any(|n| m.path.is_ident(n))
            {
                self.ok = false;
            }
        }
        fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
            self.bound.insert(p.ident.to_string());
        }
        fn visit_expr(&mut self, e: &'a Expr) {
            match e {
                Expr::Assign(a) => self.changes(&a.left),
                Expr::Binary(b)
                    if matches!(
                        b.op,
                        AddAssign(_)
                            | SubAssign(_)
                            | MulAssign(_)
                            | DivAssign(_)
                            | RemAssign(_)
                            | BitAndAssign(_)
                            | BitOrAssign(_)
                            | BitXorAssign(_)
                            | ShlAssign(_)
                            | ShrAssign(_)
                    ) =>
                {
                    self.changes(&b.left)
                }
                Expr::MethodCall(m) => {
                    let name = m.method.to_string();
                    if name.ends_with("_mut") || crate::facts::places::mutates(&name, m.args.len())
                    {
                        self.changes(&m.receiver);
                    }
                }
                Expr::Call(c) => {
                    // `std::mem::swap(&mut a, &mut b)`
                    for arg in &c.args {
                        if let Expr::Reference(r) = arg {
                            if r.mutability.is_some() {
                                self.changes(&r.expr);
                            }
                        }
                    }
                }
                Expr::Return(_) => self.ok = false,
                Expr::Break(b) if self.loops == 0 || b.label.is_some() => self.ok = false,
                Expr::Continue(c) if self.loops == 0 || c.label.is_some() => self.ok = false,
                _ => {}
            }
            let is_loop = matches!(e, Expr::Loop(_) | Expr::While(_) | Expr::ForLoop(_));
            // names a pattern binds here are seen only inside
            let scoped = matches!(
                e,
                Expr::ForLoop(_) | Expr::Closure(_) | Expr::Match(_) | Expr::If(_)
            );
            let outer = scoped.then(|| self.bound.clone());
            self.loops += usize::from(is_loop);
            syn::visit::visit_expr(self, e);
            self.loops -= usize::from(is_loop);
            if let Some(outer) = outer {
                self.bound = outer;
            }
        }
        fn visit_block(&mut self, b: &'a Block) {
            let outer = self.bound.clone();
            syn::visit::visit_block(self, b);
            self.bound = outer;
        }
        fn visit_arm(&mut self, a: &'a syn::Arm) {
            let outer = self.bound.clone();
            syn::visit::visit_arm(self, a);
            self.bound = outer;
        }
    }
    if !matches!(e, Expr::If(_) | Expr::Match(_) | Expr::Block(_)) {
        return false;
    }
    let mut pure = Pure {
        ok: true,
        bound: HashSet::new(),
        loops: 0,
    };
    syn::visit::Visit::visit_expr(&mut pure, e);
    pure.ok
}

/// The number of elements when every value `e` can end with is a tuple
/// written out (`(a, b)`), through blocks, `if` and `match`.
pub(crate) fn tuple_arity(e: &Expr) -> Option<usize> {
    match e {
        Expr::Tuple(t) if !t.elems.is_empty() => Some(t.elems.len()),
        Expr::Paren(p) => tuple_arity(&p.expr),
        Expr::Block(b) if b.label.is_none() => match b.block.stmts.last() {
            Some(Stmt::Expr(e, None)) => tuple_arity(e),
            _ => None,
        },
        Expr::If(i) => {
            let then = match i.then_branch.stmts.last() {
                Some(Stmt::Expr(e, None)) => tuple_arity(e)?,
                _ => return None,
            };
            let (_, els) = i.else_branch.as_ref()?;
            (tuple_arity(els)? == then).then_some(then)
        }
        Expr::Match(m) => {
            let first = tuple_arity(&m.arms.first()?.body)?;
            m.arms
                .iter()
                .all(|a| tuple_arity(&a.body) == Some(first))
                .then_some(first)
        }
        _ => None,
    }
}
