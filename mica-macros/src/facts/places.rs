//! Places and the names in them, read from syntax alone: the names a
//! pattern binds or an expression mentions, array `let`s and their
//! literals, and the methods that change their receiver.

use super::syntax::is_compound;
use proc_macro2::Ident;
use quote::{quote, ToTokens};
use std::collections::HashSet;
use syn::visit::Visit;
use syn::{Expr, Pat, Stmt};

/// Whether `expr` has an identifier for which `named` holds (paths,
/// fields, methods: every identifier syn visits).
pub fn names_any(expr: &Expr, named: impl FnMut(&Ident) -> bool) -> bool {
    struct Finder<F>(F, bool);
    impl<'ast, F: FnMut(&Ident) -> bool> Visit<'ast> for Finder<F> {
        fn visit_ident(&mut self, ident: &'ast Ident) {
            self.1 = self.1 || (self.0)(ident);
        }
    }
    let mut finder = Finder(named, false);
    finder.visit_expr(expr);
    finder.1
}

/// The names the patterns it visits bind, in order.
#[derive(Default)]
pub struct PatNames(pub Vec<Ident>);

impl<'ast> Visit<'ast> for PatNames {
    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        self.0.push(p.ident.clone());
        syn::visit::visit_pat_ident(self, p);
    }
}

/// The patterns and iterated expressions of `for` loops.
#[derive(Default)]
pub struct LoopPatterns(pub Vec<(Pat, Expr)>);

impl<'ast> Visit<'ast> for LoopPatterns {
    fn visit_expr_for_loop(&mut self, f: &'ast syn::ExprForLoop) {
        self.0.push(((*f.pat).clone(), (*f.expr).clone()));
        syn::visit::visit_expr_for_loop(self, f);
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// The names each statement of a block mentions (its tokens' identifiers,
/// macro arguments included), computed once for the block when an array
/// `let` first asks: which later line is the last to name the array.
pub struct LaterNames<'s> {
    stmts: &'s [Stmt],
    names: Option<Vec<HashSet<String>>>,
}

impl<'s> LaterNames<'s> {
    pub fn new(stmts: &'s [Stmt]) -> Self {
        LaterNames { stmts, names: None }
    }

    /// The index of the last statement at or after `from` that names `name`.
    pub fn last_mention(&mut self, name: &str, from: usize) -> Option<usize> {
        let stmts = self.stmts;
        let names = self.names.get_or_insert_with(|| {
            stmts
                .iter()
                .map(|s| {
                    let mut names = HashSet::new();
                    crate::names::idents_in(s.to_token_stream(), &mut names);
                    names
                })
                .collect()
        });
        (from..names.len()).rev().find(|&k| names[k].contains(name))
    }
}

/// The one name an array `let` binds: `h` or `h: T` (no `ref`, no `@`).
pub fn array_binding(pat: &Pat) -> Option<Ident> {
    match pat {
        Pat::Ident(p) if p.subpat.is_none() && p.by_ref.is_none() => Some(p.ident.clone()),
        Pat::Type(t) => array_binding(&t.pat),
        _ => None,
    }
}

/// The literal an array `let` starts from: `[…]`, `[x; n]` or `vec![…]`.
pub fn array_literal(expr: &Expr) -> Option<Expr> {
    match expr {
        Expr::Array(_) | Expr::Repeat(_) => Some(expr.clone()),
        Expr::Macro(m) if m.mac.path.is_ident("vec") => {
            let tokens = &m.mac.tokens;
            syn::parse2::<Expr>(quote!([#tokens]))
                .ok()
                .filter(|e| matches!(e, Expr::Array(_) | Expr::Repeat(_)))
        }
        _ => None,
    }
}

/// `x = …` or `x op= …`.
pub fn is_assignment(expr: &Expr) -> bool {
    match expr {
        Expr::Assign(_) => true,
        Expr::Binary(b) => is_compound(&b.op),
        _ => false,
    }
}

/// Standard collections' methods that change the receiver.
pub const MUTATING: &[&str] = &[
    "push",
    "push_str",
    "push_back",
    "push_front",
    "pop",
    "pop_back",
    "pop_front",
    "clear",
    "fill",
    "insert",
    "remove",
    "extend",
    "extend_from_slice",
    "truncate",
    "resize",
    "swap",
    "sort",
    "sort_by",
    "sort_unstable",
    "reverse",
    "append",
    "drain",
    "retain",
    "dedup",
    "iter_mut",
    "get_mut",
    "as_mut",
    "as_mut_slice",
    "set",
    "take",
    "replace",
    "swap_remove",
];
