//! Elements and whole arrays read as Rust code reads them: `for_each` as
//! the loop it is, `let [a, b, c] = x;` as one `let` per element,
//! `(a, b) = (b, a);` as a `let` and one assignment per place, and
//! `x.first().unwrap()`, `x.last().unwrap()` as the elements.

use super::places::{is_stable_place, part_of, unparen};
use syn::{Expr, Pat, Stmt};

/// `chain.for_each(|p| body);` as `for p in chain { body }` (no `return`
/// in the closure: there it would leave the function).
pub(super) fn for_each_loop(stmt: &Stmt) -> Option<Stmt> {
    let Stmt::Expr(Expr::MethodCall(m), Some(_)) = stmt else {
        return None;
    };
    if m.method != "for_each" || m.args.len() != 1 {
        return None;
    }
    let Expr::Closure(c) = &m.args[0] else {
        return None;
    };
    if c.inputs.len() != 1 || crate::names::mentions_ident(&quote::quote!(#c), "return") {
        return None;
    }
    let pat = match &c.inputs[0] {
        Pat::Type(t) => (*t.pat).clone(),
        p => p.clone(),
    };
    let (chain, body) = (&m.receiver, &c.body);
    Some(Stmt::Expr(
        syn::parse_quote!(for #pat in #chain { #body; }),
        None,
    ))
}

/// `let [a, b, c] = x;` (or `*x`) of an array place: one `let` per
/// element (`let a = x[0];`), each a copy as the pattern's is.
pub(super) fn destructured(stmt: &Stmt) -> Option<Vec<Stmt>> {
    let Stmt::Local(local) = stmt else {
        return None;
    };
    let init = local.init.as_ref()?;
    if init.diverge.is_some() {
        return None;
    }
    let pat = match &local.pat {
        Pat::Type(t) => &*t.pat,
        p => p,
    };
    let Pat::Slice(slice) = pat else {
        return None;
    };
    let place = match unparen(&init.expr) {
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => &*u.expr,
        other => other,
    };
    if !matches!(unparen(place), Expr::Path(_) | Expr::Field(_)) || !is_stable_place(place) {
        return None;
    }
    let mut lines = Vec::new();
    for (k, p) in slice.elems.iter().enumerate() {
        match p {
            Pat::Wild(_) => {}
            Pat::Ident(i) if i.by_ref.is_none() && i.subpat.is_none() => {
                let k = syn::Index::from(k);
                lines.push(syn::parse_quote!(let #i = #place[#k];));
            }
            _ => return None,
        }
    }
    Some(lines)
}

/// `let (p, q) = (e1, e2);` of a tuple literal: each value bound to a
/// fresh name in order, then each name of the pattern to its own (`let
/// (a, b) = (b, a);` swaps). An array so bound is its own array, not
/// another name for the array it was moved from, which the code after
/// may assign.
pub(super) fn tuple_let(stmt: &Stmt, mut fresh: impl FnMut() -> syn::Ident) -> Option<Vec<Stmt>> {
    let Stmt::Local(local) = stmt else {
        return None;
    };
    let init = local.init.as_ref()?;
    if init.diverge.is_some() || !local.attrs.is_empty() {
        return None;
    }
    let (Pat::Tuple(pat), Expr::Tuple(values)) = (&local.pat, unparen(&init.expr)) else {
        return None;
    };
    if pat.elems.len() != values.elems.len() {
        return None;
    }
    let mut first = Vec::new();
    let mut then = Vec::new();
    for (p, value) in pat.elems.iter().zip(&values.elems) {
        match p {
            Pat::Wild(_) => first.push(syn::parse_quote!(let _ = #value;)),
            Pat::Ident(i) if i.by_ref.is_none() && i.subpat.is_none() => {
                let name = fresh();
                first.push(syn::parse_quote!(let #name = #value;));
                then.push(syn::parse_quote!(let #i = #name;));
            }
            _ => return None,
        }
    }
    first.extend(then);
    Some(first)
}

/// `(a, b) = value;` (a destructuring assignment, `(a, b) = (b, a)` the
/// swap users write): the value bound once to fresh names by a `let`,
/// then each place assigned its part (`_` skipped). `fresh` names them.
pub(super) fn tuple_assign(
    stmt: &Stmt,
    mut fresh: impl FnMut() -> syn::Ident,
) -> Option<Vec<Stmt>> {
    let Stmt::Expr(Expr::Assign(a), Some(_)) = stmt else {
        return None;
    };
    let Expr::Tuple(places) = unparen(&a.left) else {
        return None;
    };
    let mut names = Vec::new();
    let mut lines = Vec::new();
    for place in &places.elems {
        match unparen(place) {
            Expr::Infer(_) => names.push(quote::quote!(_)),
            Expr::Path(_) | Expr::Field(_) | Expr::Index(_) => {
                let name = fresh();
                names.push(quote::quote!(#name));
                lines.push(syn::parse_quote!(#place = #name;));
            }
            _ => return None,
        }
    }
    let value = &a.right;
    let mut out: Vec<Stmt> = vec![syn::parse_quote!(let (#(#names,)*) = #value;)];
    out.extend(lines);
    Some(out)
}

/// `a.clone_from(&b);` as the assignment it is, `a = b.clone();` (of a
/// place `a`).
pub(super) fn clone_from(stmt: &Stmt) -> Option<Stmt> {
    let Stmt::Expr(Expr::MethodCall(m), Some(_)) = stmt else {
        return None;
    };
    if m.method != "clone_from" || m.args.len() != 1 {
        return None;
    }
    if !matches!(
        unparen(&m.receiver),
        Expr::Path(_) | Expr::Field(_) | Expr::Index(_)
    ) {
        return None;
    }
    let Expr::Reference(source) = unparen(&m.args[0]) else {
        return None;
    };
    let source = &source.expr;
    if !matches!(
        unparen(source),
        Expr::Path(_) | Expr::Field(_) | Expr::Index(_)
    ) {
        return None;
    }
    let place = &m.receiver;
    Some(syn::parse_quote!(#place = #source.clone();))
}

/// `x.last().unwrap()` or `x.first().unwrap()` of an array place, or of
/// a part of one: its element, `x[x.len() - 1]` or `x[0]` (`x[b - 1]`,
/// `x[a]` of `x[a..b]`); the same of `x.iter().last()`, `.next()`, and
/// `x.iter().nth(k).unwrap()` of a whole array, `x[k]`.
pub(super) fn end_element(e: &Expr) -> Option<Expr> {
    let Expr::MethodCall(unwrap) = unparen(e) else {
        return None;
    };
    if unwrap.method != "unwrap" || !unwrap.args.is_empty() {
        return None;
    }
    let Expr::MethodCall(end) = unparen(&unwrap.receiver) else {
        return None;
    };
    // `x.iter().last()`, `.next()`, `.nth(k)`: the slice's own ends
    let name = end.method.to_string();
    let (receiver, method) = match (unparen(&end.receiver), name.as_str()) {
        (Expr::MethodCall(iter), m @ ("last" | "next" | "nth"))
            if iter.method == "iter" && iter.args.is_empty() =>
        {
            (&*iter.receiver, if m == "next" { "first" } else { m })
        }
        (_, m) => (&*end.receiver, m),
    };
    if end.args.len() != usize::from(method == "nth") {
        return None;
    }
    // the array, or a part of it (a view, a helper's slice given a part)
    let (place, lo, hi) = part_of(receiver)?;
    match (method, lo, hi) {
        ("first", None, _) => Some(syn::parse_quote!(#place[0])),
        ("first", Some(lo), _) => Some(syn::parse_quote!(#place[#lo])),
        ("last", _, None) => Some(syn::parse_quote!(#place[#place.len() - 1])),
        ("last", _, Some(hi)) => Some(syn::parse_quote!(#place[#hi - 1])),
        ("nth", None, _) => {
            let k = &end.args[0];
            Some(syn::parse_quote!(#place[#k]))
        }
        _ => None,
    }
}

/// `+`, `-`, `*`, `/` and their assignments.
pub(super) fn arithmetic(op: &syn::BinOp) -> bool {
    use syn::BinOp::*;
    matches!(
        op,
        Add(_)
            | Sub(_)
            | Mul(_)
            | Div(_)
            | AddAssign(_)
            | SubAssign(_)
            | MulAssign(_)
            | DivAssign(_)
    )
}
