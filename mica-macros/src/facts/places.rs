//! Places and the names in them, read from syntax alone: the name at the
//! root of a place (`a` in `a[i].f`, `*a`), the names a pattern binds or an
//! expression mentions, array `let`s and their literals, and the methods
//! that change their receiver.
//!
//! "The name at the root of a place" is asked in several stages, each
//! looking through a different set of wrappers; [`Reach`] says which, so
//! every answer comes from [`root`].

use super::syntax::is_compound;
use proc_macro2::Ident;
use quote::{quote, ToTokens};
use std::collections::HashSet;
use syn::visit::Visit;
use syn::{Expr, Pat, Stmt};

/// How far [`root`] looks through a place for the name it starts from.
/// Each reach looks through parentheses and through all a narrower one
/// does; a path with a `Self` type (`<T>::x`) is never a name.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// the name itself: `a`, `(a)`
    Name,
    /// where a write lands: also through fields, indices and `*`, as in
    /// `a.b[i].c`, `*a`, `(a)[i]`
    Place,
    /// every name a place may touch: also through the other unary
    /// operators (`-a`, `!a`), which a cautious question counts too
    Touched,
    /// as [`Reach::Touched`], and through the invisible groups a
    /// `macro_rules!` fragment leaves (`Expr::Group`)
    Grouped,
}

/// The name at the root of `expr`, looked for as far as `reach` goes.
pub fn root(expr: &Expr, reach: Reach) -> Option<&Ident> {
    let projections = reach != Reach::Name;
    match expr {
        Expr::Path(p) if p.qself.is_none() => p.path.get_ident(),
        Expr::Paren(p) => root(&p.expr, reach),
        Expr::Group(g) if reach == Reach::Grouped => root(&g.expr, reach),
        Expr::Field(f) if projections => root(&f.base, reach),
        Expr::Index(i) if projections => root(&i.expr, reach),
        Expr::Unary(u)
            if matches!(reach, Reach::Touched | Reach::Grouped)
                || (reach == Reach::Place && matches!(u.op, syn::UnOp::Deref(_))) =>
        {
            root(&u.expr, reach)
        }
        _ => None,
    }
}

/// The array an element write goes to: `h` of `h[i]`, `h[i][j]`, `(h)[i]`.
/// At least one index, and nothing but indices down to the name (no
/// parentheses between them, no fields).
pub fn indexed_root(expr: &Expr) -> Option<&Ident> {
    match expr {
        Expr::Index(i) => root(index_chain(i).0, Reach::Name),
        _ => None,
    }
}

/// What `h[i][j]` indexes and with what: `h`, and `[i, j]` in the order
/// they are applied. Only directly nested indices count: the base of
/// `(h[i])[j]` is `(h[i])`.
pub fn index_chain(index: &syn::ExprIndex) -> (&Expr, Vec<&Expr>) {
    let mut indices = vec![&*index.index];
    let mut base = &*index.expr;
    while let Expr::Index(inner) = base {
        indices.push(&*inner.index);
        base = &*inner.expr;
    }
    indices.reverse();
    (base, indices)
}

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

/// The names `pat` binds, in order.
pub fn pattern_names(pat: &Pat) -> Vec<Ident> {
    let mut names = PatNames::default();
    names.visit_pat(pat);
    names.0
}

/// The names each statement of a block mentions (its tokens' identifiers,
/// macro arguments included), computed once for the block when an array
/// `let` first asks: which later line is the last to name the array.
pub struct LaterNames<'s> {
    stmts: &'s [Stmt],
    /// each name → the last statement that names it
    last: Option<std::collections::HashMap<String, usize>>,
}

impl<'s> LaterNames<'s> {
    pub fn new(stmts: &'s [Stmt]) -> Self {
        LaterNames { stmts, last: None }
    }

    /// The index of the last statement at or after `from` that names `name`.
    pub fn last_mention(&mut self, name: &str, from: usize) -> Option<usize> {
        let stmts = self.stmts;
        let last = self.last.get_or_insert_with(|| {
            let mut last = std::collections::HashMap::new();
            for (k, s) in stmts.iter().enumerate() {
                let mut names = HashSet::new();
                crate::names::idents_in(s.to_token_stream(), &mut names);
                for name in names {
                    last.insert(name, k);
                }
            }
            last
        });
        last.get(name).copied().filter(|&k| k >= from)
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
/// Whether a call of `method` with `args` arguments may change its
/// receiver: one of [`MUTATING`], but not an iterator's `take(n)`.
pub fn mutates(method: &str, args: usize) -> bool {
    MUTATING.contains(&method) && !(method == "take" && args == 1)
}

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
    "copy_from_slice",
    "clone_from_slice",
    "swap_with_slice",
    "rotate_left",
    "rotate_right",
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

#[cfg(test)]
mod tests {
    use super::{index_chain, indexed_root, root, Reach};
    use syn::Expr;

    /// The root of `code` at each reach, narrowest first.
    fn roots(code: &str) -> [Option<String>; 4] {
        let expr: Expr = syn::parse_str(code).expect("an expression");
        [Reach::Name, Reach::Place, Reach::Touched, Reach::Grouped]
            .map(|reach| root(&expr, reach).map(ToString::to_string))
    }

    #[test]
    fn each_reach_looks_through_what_it_says() {
        let a = || Some("a".to_string());
        assert_eq!(roots("a"), [a(), a(), a(), a()]);
        assert_eq!(roots("((a))"), [a(), a(), a(), a()]);
        assert_eq!(roots("a.b[i].c"), [None, a(), a(), a()]);
        assert_eq!(roots("(*a)[i]"), [None, a(), a(), a()]);
        assert_eq!(roots("-a"), [None, None, a(), a()]);
        assert_eq!(roots("a::b"), [None, None, None, None]);
        assert_eq!(roots("<T>::a"), [None, None, None, None]);
        assert_eq!(roots("f(a)[0]"), [None, None, None, None]);
        // an invisible group, as a `macro_rules!` fragment leaves it
        let grouped = Expr::Group(syn::ExprGroup {
            attrs: Vec::new(),
            group_token: Default::default(),
            expr: Box::new(syn::parse_str("a[i]").expect("an expression")),
        });
        let at = |reach| root(&grouped, reach).map(ToString::to_string);
        assert_eq!(at(Reach::Touched), None);
        assert_eq!(at(Reach::Grouped), a());
    }

    #[test]
    fn an_element_write_goes_to_the_array_under_its_indices() {
        let at = |code: &str| {
            let expr: Expr = syn::parse_str(code).expect("an expression");
            indexed_root(&expr).map(ToString::to_string)
        };
        assert_eq!(at("h[i][j]").as_deref(), Some("h"));
        assert_eq!(at("(h)[i]").as_deref(), Some("h"));
        assert_eq!(at("h"), None);
        assert_eq!(at("(h[i])[j]"), None);
        assert_eq!(at("h.f[i]"), None);
        let Ok(Expr::Index(index)) = syn::parse_str::<Expr>("h[i][j + 1]") else {
            panic!("an index");
        };
        let (base, indices) = index_chain(&index);
        let text = |e: &Expr| quote::ToTokens::to_token_stream(e).to_string();
        assert_eq!(text(base), "h");
        assert_eq!(
            indices.into_iter().map(text).collect::<Vec<_>>(),
            ["i", "j + 1"]
        );
    }
}
