//! Placeholders in the forward sweep, filled once the reverse is known, and
//! the declarations of hoisted temporaries. Nothing here needs the sweep:
//! `lower.rs` and its files read these, and this file reads none of them.

use proc_macro2::{Ident, TokenStream, TokenTree};
use quote::quote;
use std::collections::HashMap;

/// Temporaries of one storage scope declared at its top, so the reverse
/// sweep (or the loop's tape) can read them after nested blocks end.
#[derive(Default)]
pub(super) struct Hoist {
    /// `(name, made in a branch arm)`: a branch's temporaries start from
    /// `Default::default()`, the other arm leaves them so
    pub(super) names: Vec<(Ident, bool)>,
    /// optional references for the reverse sweep, which start from `None`:
    /// a reference has no placeholder
    pub(super) options: Vec<Ident>,
    /// names among `names` changed after they are set (a local array's
    /// captured shape, which a whole new value grows)
    pub(super) mutable: Vec<Ident>,
    /// block depth of the scope's own statements
    pub(super) base: usize,
    /// branch arms entered within this scope
    pub(super) arms: usize,
    /// copies taken in a nested block of this scope (see
    /// `lower/snapshots.rs`): declared here only if the reverse reads them
    pub(super) copies: Vec<(Ident, crate::record::ValueId)>,
}

/// `let` lines for a storage scope's hoisted temporaries.
pub(super) fn hoisted_decls(hoist: &Hoist) -> TokenStream {
    let options = hoist.options.iter().map(
        |name| quote!(#[allow(unused_assignments)] let mut #name = ::core::option::Option::None;),
    );
    hoist
        .names
        .iter()
        .map(|(name, in_arm)| {
            if *in_arm {
                quote!(#[allow(unused_assignments)] let mut #name = ::mica::__private::placeholder();)
            } else if hoist.mutable.contains(name) {
                quote!(#[allow(unused_mut)] let mut #name;)
            } else {
                quote!(let #name;)
            }
        })
        .chain(options)
        .collect()
}

/// Replaces each loop's placeholder by the push its reverse needs (or by
/// nothing, when no reverse walks the loop).
pub fn fill_placeholders(tokens: TokenStream, fills: &HashMap<String, TokenStream>) -> TokenStream {
    filled(&tokens, fills).unwrap_or(tokens)
}

/// `tokens` with their placeholders filled, or `None` if they hold none. A
/// stream without placeholders is kept, not rebuilt: inside rustc each
/// token moved into a new stream crosses the proc-macro bridge, and most of
/// a sweep's groups hold none.
fn filled(tokens: &TokenStream, fills: &HashMap<String, TokenStream>) -> Option<TokenStream> {
    let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    // from the first change on, the new stream's trees
    let mut out: Option<Vec<TokenTree>> = None;
    for (k, tree) in trees.iter().enumerate() {
        let replacement: Option<Vec<TokenTree>> = match tree {
            TokenTree::Ident(ident) => {
                let name = ident.to_string();
                name.starts_with("__mica_fill").then(|| {
                    fills
                        .get(&name)
                        .cloned()
                        .unwrap_or_default()
                        .into_iter()
                        .collect()
                })
            }
            TokenTree::Group(g) => filled(&g.stream(), fills).map(|inner| {
                let mut group = proc_macro2::Group::new(g.delimiter(), inner);
                group.set_span(g.span());
                vec![TokenTree::Group(group)]
            }),
            _ => None,
        };
        match (replacement, &mut out) {
            (Some(new), Some(out)) => out.extend(new),
            (Some(new), None) => out = Some(trees[..k].iter().cloned().chain(new).collect()),
            (None, Some(out)) => out.push(tree.clone()),
            (None, None) => {}
        }
    }
    out.map(|trees| trees.into_iter().collect())
}

#[cfg(test)]
mod tests {
    use super::fill_placeholders;
    use proc_macro2::TokenStream;
    use quote::quote;
    use std::collections::HashMap;

    fn fills(pairs: &[(&str, TokenStream)]) -> HashMap<String, TokenStream> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect()
    }

    #[test]
    fn placeholders_are_filled_at_any_depth_or_dropped() {
        let code = quote! {
            let a = 1;
            __mica_fill1
            for i in 0..n { let b = (a, [i]); __mica_fill2 { __mica_fill3 } }
            __mica_fill4
        };
        let filled = fill_placeholders(
            code,
            &fills(&[
                ("__mica_fill1", quote!(let t = 0;)),
                ("__mica_fill3", quote!(t.push(b);)),
            ]),
        );
        let expected = quote! {
            let a = 1;
            let t = 0;
            for i in 0..n { let b = (a, [i]); { t.push(b); } }
        };
        assert_eq!(filled.to_string(), expected.to_string());
    }

    #[test]
    fn code_without_placeholders_is_kept_as_it_is() {
        let code = quote!(let a = (x + y) * z[i]; for j in 0..n { s += a; });
        let filled = fill_placeholders(code.clone(), &fills(&[("__mica_fill1", quote!(no))]));
        assert_eq!(filled.to_string(), code.to_string());
    }
}
