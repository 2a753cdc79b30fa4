//! A closure's parameters over a chain's element: which place each name
//! stands for.

use quote::ToTokens;
use syn::{Expr, Pat};

/// An element of a chain at the loop's index: an expression (a place of
/// the source, `x[i]`, or a name a `map` bound), or a tuple of them.
#[derive(Clone)]
pub(super) enum Elem {
    One(Expr),
    Tuple(Vec<Elem>),
}

/// What to write instead, for every chain Mica cannot write as a loop.
const WRITE_THE_LOOP: &str =
    "write the loop: `let mut total = 0.0; for i in 0..xs.len() { total += …; }`";

pub(super) fn err(at: &impl ToTokens, what: &str) -> syn::Error {
    syn::Error::new_spanned(
        at,
        format!("{what} over recorded values is not supported yet; {WRITE_THE_LOOP}"),
    )
}

/// The element as one expression (a tuple of its parts).
pub(super) fn elem_expr(e: &Elem) -> Expr {
    match e {
        Elem::One(x) => x.clone(),
        Elem::Tuple(items) => {
            let items: Vec<Expr> = items.iter().map(elem_expr).collect();
            syn::parse_quote!((#(#items),*))
        }
    }
}

/// A closure parameter's names and what each stands for.
pub(super) fn bind(pat: &Pat, elem: Elem, out: &mut Vec<(String, Expr)>) -> syn::Result<()> {
    match (pat, elem) {
        (Pat::Ident(p), Elem::One(x)) if p.subpat.is_none() => {
            out.push((p.ident.to_string(), x));
            Ok(())
        }
        // `|p|` over a zip: `p` the pair of places, `p.0` the first
        (Pat::Ident(p), elem @ Elem::Tuple(_)) if p.subpat.is_none() => {
            out.push((p.ident.to_string(), elem_expr(&elem)));
            Ok(())
        }
        (Pat::Reference(r), elem) => bind(&r.pat, elem, out),
        (Pat::Type(t), elem) => bind(&t.pat, elem, out),
        (Pat::Paren(p), elem) => bind(&p.pat, elem, out),
        (Pat::Wild(_), _) => Ok(()),
        (Pat::Tuple(t), Elem::Tuple(items)) if t.elems.len() == items.len() => {
            for (p, e) in t.elems.iter().zip(items) {
                bind(p, e, out)?;
            }
            Ok(())
        }
        // `|(x, y)|` over a slice of pairs: each name its field's place
        (Pat::Tuple(t), Elem::One(x)) if !t.elems.iter().any(|p| matches!(p, Pat::Rest(_))) => {
            for (k, p) in t.elems.iter().enumerate() {
                let k = syn::Index::from(k);
                bind(p, Elem::One(syn::parse_quote!(#x.#k)), out)?;
            }
            Ok(())
        }
        _ => Err(err(pat, "this closure pattern")),
    }
}
