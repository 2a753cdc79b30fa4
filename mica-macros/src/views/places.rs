//! What the views' rewrites ask of syntax: parentheses looked through, the
//! places a view may borrow, a place's root name, a name bound plainly.

use syn::{Expr, Pat};

/// `e` without the parentheses around it.
pub(super) fn unparen(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => unparen(&p.expr),
        Expr::Group(g) => unparen(&g.expr),
        other => other,
    }
}

/// A place a view may borrow: a name, a field of one, an element of one
/// (`m[i]`; its indices are computed once, where the view is made).
pub(crate) fn is_stable_place(e: &Expr) -> bool {
    match unparen(e) {
        Expr::Path(p) => p.qself.is_none() && p.path.get_ident().is_some(),
        Expr::Field(f) => is_stable_place(&f.base),
        Expr::Index(i) => is_stable_place(&i.expr) && !matches!(unparen(&i.index), Expr::Range(_)),
        _ => false,
    }
}

/// The name a place starts from (`m` of `m.w[0]`).
pub(super) fn root(e: &Expr) -> Option<String> {
    match unparen(e) {
        Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
        Expr::Field(f) => root(&f.base),
        Expr::Index(i) => root(&i.expr),
        _ => None,
    }
}

/// A name bound plainly (`row`, `row: &[f64]`): not `mut`, not `ref`.
pub(super) fn simple_name(pat: &Pat) -> Option<syn::Ident> {
    match pat {
        Pat::Ident(p) if p.by_ref.is_none() && p.mutability.is_none() && p.subpat.is_none() => {
            Some(p.ident.clone())
        }
        Pat::Type(t) if matches!(&*t.ty, syn::Type::Reference(_)) => simple_name(&t.pat),
        _ => None,
    }
}

/// A range's start and exclusive end, as written (`a..=b` ends at `b + 1`;
/// `None` where the range leaves it out).
pub(super) fn range_ends(r: &syn::ExprRange) -> (Option<Expr>, Option<Expr>) {
    let end = r.end.as_deref().map(|hi| match r.limits {
        syn::RangeLimits::HalfOpen(_) => hi.clone(),
        syn::RangeLimits::Closed(_) => syn::parse_quote!(#hi + 1),
    });
    (r.start.as_deref().cloned(), end)
}

/// An array or a part of one, as a method's receiver names it: `x`,
/// `x[a..b]` (a view written as its array's indices), `&x[a..]` (a
/// helper's slice parameter given a part): the array and the part's ends.
pub(super) fn part_of(e: &Expr) -> Option<(Expr, Option<Expr>, Option<Expr>)> {
    let e = match unparen(e) {
        Expr::Reference(r) => unparen(&r.expr),
        other => other,
    };
    let (place, lo, hi) = match e {
        Expr::Index(ix) => match unparen(&ix.index) {
            Expr::Range(r) => {
                let (lo, hi) = range_ends(r);
                ((*ix.expr).clone(), lo, hi)
            }
            _ => (e.clone(), None, None),
        },
        _ => (e.clone(), None, None),
    };
    is_stable_place(&place).then_some((place, lo, hi))
}
