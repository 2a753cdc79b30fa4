//! Calls from a `#[tape]` block to functions outside it.
//!
//! A call with recorded arguments is differentiated through a type named
//! after the function, which `#[tape]` and `#[tape(custom)]` write beside
//! it (`function_form.rs`): `scale(x)` becomes `scale::adjoint(…)` in the
//! reverse. For a function that is not `#[tape]`, that name is missing and
//! rustc would only say that `scale` is not a module. Only rustc resolves
//! names, so whether a function elsewhere is `#[tape]` cannot be known
//! here; but a block whose imports are all named (no `use …::*`) can give
//! each such call a fallback of the name's own, through a glob import:
//!
//! ```text
//! mod __mica_outside {
//!     pub mod __mica_not_tape {
//!         #[diagnostic::on_unimplemented(message = "…`scale`…", …)]
//!         pub trait scale {}
//!     }
//!     pub struct scale {}
//!     impl scale { pub fn adjoint<T0: __mica_not_tape::scale, T1, …>(…) {} }
//! }
//! use self::__mica_outside::*;
//! ```
//!
//! Rust lets a named import or an item shadow a glob's name: where
//! `use super::outside::scale;` brings a `#[tape]` function's type, the
//! call reaches it; where it brings only a function, the call reaches the
//! fallback, whose bound no type meets, and rustc reports Mica's message
//! at the call. With a glob import of the user's own in the block, two
//! globs could offer one name, so no fallback is written there (and
//! rustc's own words stand, as in the function and `impl` forms).

use proc_macro2::{Delimiter, Ident, Span, TokenStream, TokenTree};
use quote::{format_ident, quote, quote_spanned};
use std::collections::BTreeMap;
use syn::{Item, UseTree};

/// The fallbacks of the calls in `expanded` (the block's expanded items) to
/// functions the block neither defines nor imports through a glob.
pub fn fallbacks(items: &[Item], expanded: &[TokenStream]) -> TokenStream {
    if items
        .iter()
        .any(|item| matches!(item, Item::Use(u) if has_glob(&u.tree)))
    {
        return TokenStream::new();
    }
    let defined: Vec<String> = items.iter().filter_map(defined_name).collect();
    let mut calls: BTreeMap<String, (Ident, usize)> = BTreeMap::new();
    for tokens in expanded {
        adapter_calls(tokens.clone(), &mut calls);
    }
    calls.retain(|name, _| {
        !defined.contains(name) && name.starts_with(|c: char| c.is_lowercase() || c == '_')
    });
    if calls.is_empty() {
        return TokenStream::new();
    }
    let mut traits = Vec::new();
    let mut types = Vec::new();
    for (name, (ident, arity)) in &calls {
        let span = ident.span();
        let message = format!(
            "a recorded value is passed to `{name}`, which is neither a function of this `#[tape]` block nor `#[tape]` itself"
        );
        let note = format!(
            "move `{name}` into the `#[tape]` block, where it is a helper; or mark it `#[tape]`, with `#[tracked]` on the parameters that take recorded values; or give it a rule with `#[tape(custom)]`"
        );
        // the name as met (a raw `r#name` stays one)
        let marker = ident.clone();
        traits.push(quote_spanned! {span=>
            #[diagnostic::on_unimplemented(
                message = #message,
                label = "Mica cannot differentiate this call",
                note = #note
            )]
            pub trait #marker {}
        });
        let generics: Vec<Ident> = (0..*arity)
            .map(|k| format_ident!("T{}", k, span = Span::mixed_site()))
            .collect();
        let first = &generics[0];
        let rest = &generics[1..];
        types.push(quote_spanned! {span=>
            pub struct #marker {}
            impl #marker {
                #[allow(clippy::too_many_arguments)]
                pub fn adjoint<#first: __mica_not_tape::#marker, #(#rest),*>(#(_: #generics),*) {}
            }
        });
    }
    quote! {
        #[doc(hidden)]
        #[allow(non_camel_case_types, dead_code, unreachable_pub)]
        mod __mica_outside {
            pub mod __mica_not_tape {
                #(#traits)*
            }
            #(#types)*
        }
        #[allow(unused_imports)]
        use self::__mica_outside::*;
    }
}

/// Whether a `use` tree imports with `*`.
fn has_glob(tree: &UseTree) -> bool {
    match tree {
        UseTree::Glob(_) => true,
        UseTree::Path(p) => has_glob(&p.tree),
        UseTree::Group(g) => g.items.iter().any(has_glob),
        UseTree::Name(_) | UseTree::Rename(_) => false,
    }
}

/// The name an item of the block defines (its `use`s aside: an import of a
/// function that is not `#[tape]` is what the fallback is for).
fn defined_name(item: &Item) -> Option<String> {
    let ident = match item {
        Item::Fn(f) => &f.sig.ident,
        Item::Struct(s) => &s.ident,
        Item::Enum(e) => &e.ident,
        Item::Mod(m) => &m.ident,
        Item::Const(c) => &c.ident,
        Item::Static(s) => &s.ident,
        Item::Type(t) => &t.ident,
        Item::Trait(t) => &t.ident,
        Item::Union(u) => &u.ident,
        _ => return None,
    };
    Some(ident.to_string())
}

/// Every `name::adjoint(…)` in `tokens` whose path is the one name: the
/// name, as first met, and the number of arguments.
fn adapter_calls(tokens: TokenStream, out: &mut BTreeMap<String, (Ident, usize)>) {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    for (k, tree) in trees.iter().enumerate() {
        if let TokenTree::Group(g) = tree {
            adapter_calls(g.stream(), out);
        }
        let TokenTree::Ident(name) = tree else {
            continue;
        };
        let after_path =
            k > 0 && matches!(&trees[k - 1], TokenTree::Punct(p) if p.as_char() == ':');
        let call = match trees.get(k + 1..k + 5) {
            Some(
                [TokenTree::Punct(a), TokenTree::Punct(b), TokenTree::Ident(adjoint), TokenTree::Group(args)],
            ) if a.as_char() == ':'
                && b.as_char() == ':'
                && adjoint == "adjoint"
                && args.delimiter() == Delimiter::Parenthesis =>
            {
                Some(args)
            }
            _ => None,
        };
        if let (false, Some(args)) = (after_path, call) {
            let arity = count_args(args.stream());
            if arity > 0 {
                out.entry(name.to_string())
                    .or_insert_with(|| (name.clone(), arity));
            }
        }
    }
}

/// The comma-separated arguments in `tokens` (a trailing comma aside).
fn count_args(tokens: TokenStream) -> usize {
    let mut count = 0;
    let mut open = false;
    for tree in tokens {
        match tree {
            TokenTree::Punct(p) if p.as_char() == ',' => {
                if open {
                    count += 1;
                }
                open = false;
            }
            _ => open = true,
        }
    }
    count + usize::from(open)
}
