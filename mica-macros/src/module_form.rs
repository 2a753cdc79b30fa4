//! The block form: `#[tape]` on an inline `mod`. Its functions with
//! tracked parameters (or a `tape!` window, or a `#[tape(…)]` of their
//! own) are entry points and get their companions; every other function
//! whose signature holds a float is a helper, written where an entry point
//! calls it (`helpers.rs`) before the entry point is differentiated. Other
//! items pass through unchanged, and so do the helpers themselves, which
//! stay callable as plain Rust.
//!
//! Input:
//!
//! ```text
//! #[tape]
//! mod physics {
//!     fn sq(x: f64) -> f64 { x * x }
//!     pub fn energy(#[tracked] x: f64) -> f64 { sq(x) }
//! }
//! ```
//!
//! Output: the module with `energy`, `sq` as written, and `energy_grad`,
//! `energy_backward` and the call adapter of `energy`, whose sweeps read
//! `{ let x: f64 = x; x * x }` where the body calls `sq(x)`.

use crate::dispatch::{function, has_tracked};
use crate::errors::Errors;
use crate::helpers::Helpers;
use crate::parse::{self, Args};
use crate::windows::window_in;
use proc_macro2::TokenStream;
use quote::quote;
use syn::{Item, ItemFn, ItemMod};

/// The block form's expansion, if `input` is a module.
pub fn expand(args: &Args, input: &TokenStream, errors: &mut Errors) -> Option<TokenStream> {
    let module: ItemMod = syn::parse2(input.clone()).ok()?;
    if args.custom {
        errors.at(
            &module.ident,
            "`#[tape(custom)]` goes on a function whose `_backward` is written by hand, not on a module",
        );
    }
    let Some((_, items)) = &module.content else {
        errors.at(
            &module.ident,
            "`#[tape]` on a module needs its items written inline: `mod name { … }`",
        );
        return Some(quote!(#module));
    };
    let own_tape = |f: &ItemFn| f.attrs.iter().position(is_tape);
    let is_entry =
        |f: &ItemFn| has_tracked(f) || own_tape(f).is_some() || window_in(&f.block).is_some();
    let fns: Vec<&ItemFn> = items
        .iter()
        .filter_map(|i| match i {
            Item::Fn(f) => Some(f),
            _ => None,
        })
        .collect();
    let mut helpers = Helpers::new(fns.iter().copied(), is_entry);
    let mut out = Vec::new();
    for item in items {
        let Item::Fn(f) = item else {
            out.push(quote!(#item));
            continue;
        };
        if !is_entry(f) {
            out.push(quote!(#f));
            continue;
        }
        let mut f = f.clone();
        let mut fn_args = Args {
            custom: false,
            plain: args.plain,
        };
        if let Some(at) = own_tape(&f) {
            let attr = f.attrs.remove(at);
            let tokens = match &attr.meta {
                syn::Meta::List(list) => list.tokens.clone(),
                _ => TokenStream::new(),
            };
            if let Some(own) = errors.ok(parse::parse_args(tokens)) {
                fn_args.custom = own.custom;
                fn_args.plain = own.plain.or(fn_args.plain);
            }
        }
        if fn_args.custom || helpers.is_empty() {
            out.push(function(&fn_args, f, None, errors));
            continue;
        }
        let primal = has_tracked(&f).then(|| (*f.block).clone());
        helpers.inline(&mut f.block, errors);
        out.push(function(&fn_args, f, primal, errors));
    }
    let (attrs, vis, unsafety, ident) =
        (&module.attrs, &module.vis, &module.unsafety, &module.ident);
    Some(quote! {
        #(#attrs)* #vis #unsafety mod #ident { #(#out)* }
    })
}

/// `#[tape]`, `#[tape(…)]` or `#[mica::tape]` on an item of the block.
fn is_tape(attr: &syn::Attribute) -> bool {
    attr.path()
        .segments
        .last()
        .is_some_and(|s| s.ident == "tape")
}
