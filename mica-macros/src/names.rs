//! Hygienic names for everything the expansion introduces.
//!
//! Locals are made at `Span::mixed_site()`, so they resolve only against
//! other tokens of this expansion: a user's `seed`, `d_a` or `__mica_t0`
//! can never be captured or shadowed by them (a UI test proves it).

use proc_macro2::{Ident, Span};
use quote::format_ident;

/// Hands out fresh local names; one per expansion keeps them unique across
/// all the windows of a function.
#[derive(Default)]
pub struct Names {
    next: usize,
}

impl Names {
    pub fn fresh(&mut self, role: &str) -> Ident {
        self.next += 1;
        format_ident!("__mica_{}{}", role, self.next, span = Span::mixed_site())
    }
}

/// Every identifier in `tokens`, groups included, added to `out`.
pub fn idents_in(tokens: proc_macro2::TokenStream, out: &mut std::collections::HashSet<String>) {
    for tt in tokens {
        match tt {
            proc_macro2::TokenTree::Ident(i) => {
                out.insert(i.to_string());
            }
            proc_macro2::TokenTree::Group(g) => idents_in(g.stream(), out),
            _ => {}
        }
    }
}

/// Whether `tokens` (groups included) hold the identifier `name`. It stops
/// at the first one, and keeps no set of names: a reverse loop's body asks
/// it of its own variable, which it usually names in its first lines.
pub fn mentions_ident(tokens: &proc_macro2::TokenStream, name: &str) -> bool {
    tokens.clone().into_iter().any(|tt| match tt {
        proc_macro2::TokenTree::Ident(i) => i == name,
        proc_macro2::TokenTree::Group(g) => mentions_ident(&g.stream(), name),
        _ => false,
    })
}

/// `let name = value;` added to `out`, the value moved in rather than
/// copied (a generated expression can be long).
///
/// Like every piece of generated code, the parts are appended to `out` as
/// whole streams (`out.extend([tokens])`), never tree by tree
/// (`out.extend(tokens)`): inside rustc, walking a stream's trees crosses
/// the proc-macro bridge once per tree, and did so for a third of the time
/// spent expanding a long body.
pub fn push_let(out: &mut proc_macro2::TokenStream, name: &Ident, value: proc_macro2::TokenStream) {
    out.extend([quote::quote!(let #name =), value, quote::quote!(;)]);
}

/// The associated function through which `#[tape]` functions outside a
/// `#[tape] impl` reach the call of its method `method`, which tracks
/// `self` (`structs/called.rs`).
pub fn tracked_self_accessor(method: &Ident) -> Ident {
    format_ident!("{}_with_tracked_self", method, span = method.span())
}

/// The hidden scalar twin of `name`, a function with an array, tuple or
/// `Vec` out: its output's dot product with a seed (`outputs.rs`).
pub fn seeded_twin(name: &Ident) -> Ident {
    format_ident!("__mica_seeded_{}", name, span = name.span())
}

/// The function whose twin [`seeded_twin`] names `twin`, if it names one.
pub fn seeded_original(twin: &Ident) -> Option<Ident> {
    let text = twin.to_string();
    let original = text.strip_prefix("__mica_seeded_")?;
    Some(format_ident!("{}", original, span = twin.span()))
}

/// The hidden function of the fields of `name`, a function of tracked
/// structs (`structs.rs`).
pub fn fields_fn(name: &Ident) -> Ident {
    format_ident!("__mica_{}_fields", name)
}

/// Whether `name` is a seeded twin ([`seeded_twin`]) or the function of the
/// fields ([`fields_fn`]) of one.
pub fn is_seeded(name: &Ident) -> bool {
    let text = name.to_string();
    let of_fields = text
        .strip_prefix("__mica_")
        .and_then(|t| t.strip_suffix("_fields"));
    text.starts_with("__mica_seeded_") || of_fields.is_some_and(|t| t.starts_with("__mica_seeded_"))
}

/// A fixed internal name (a parameter of a generated function).
pub fn internal(name: &str) -> Ident {
    Ident::new(name, Span::mixed_site())
}

/// Statements as one line of tokens, for tests that read a rewrite.
#[cfg(test)]
pub fn text_of(stmts: &[syn::Stmt]) -> String {
    stmts
        .iter()
        .map(|s| quote::ToTokens::to_token_stream(s).to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::{fields_fn, is_seeded, mentions_ident, seeded_twin};

    #[test]
    fn twins_and_their_fields_are_seeded() {
        let f = quote::format_ident!("forward");
        assert!(is_seeded(&seeded_twin(&f)));
        assert!(is_seeded(&fields_fn(&seeded_twin(&f))));
        assert!(!is_seeded(&f));
        assert!(!is_seeded(&fields_fn(&f)));
    }
    use quote::quote;

    #[test]
    fn mentions_ident_finds_a_name_in_nested_groups_only_as_a_whole_identifier() {
        let body = quote!(let a = x[(j + 1) * n]; { y[k] += a; });
        for name in ["a", "x", "j", "n", "y", "k"] {
            assert!(mentions_ident(&body, name), "{name}");
        }
        // not part of a longer name, a literal or a punctuation
        for name in ["i", "jj", "1", "+", "xy"] {
            assert!(!mentions_ident(&body, name), "{name}");
        }
        assert!(!mentions_ident(&quote!(), "a"));
    }
}
