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

use crate::dispatch::function;
use crate::errors::Errors;
use crate::helpers::Helpers;
use crate::parse::{self, has_tracked, Args};
use crate::windows::window_in;
use proc_macro2::TokenStream;
use quote::quote;
use syn::{ImplItem, Item, ItemFn, ItemImpl, ItemMod};

/// The block form's expansion, if `input` is a module or an `impl` block.
pub fn expand(args: &Args, input: &TokenStream, errors: &mut Errors) -> Option<TokenStream> {
    if args.custom {
        errors.at(
            first(input),
            "`#[tape(custom)]` goes on a function whose `_backward` is written by hand, not on a block",
        );
    }
    if let Ok(block) = syn::parse2::<ItemImpl>(input.clone()) {
        return Some(impl_block(args, block, errors));
    }
    let module: ItemMod = syn::parse2(input.clone()).ok()?;
    let Some((_, items)) = &module.content else {
        errors.at(
            &module.ident,
            "`#[tape]` on a module needs its items written inline: `mod name { … }`",
        );
        return Some(quote!(#module));
    };
    let fns: Vec<ItemFn> = items
        .iter()
        .filter_map(|i| match i {
            Item::Fn(f) => Some(f.clone()),
            _ => None,
        })
        .collect();
    let mut out_fns = functions(args, &fns, None, errors).into_iter();
    let mut out = Vec::new();
    for item in items {
        match item {
            Item::Fn(_) => out.extend(out_fns.next().map(|(_, all)| all)),
            other => out.push(quote!(#other)),
        }
    }
    // calls to functions outside the block: Mica's message where they are
    // not `#[tape]` (`outside.rs`)
    out.push(crate::outside::fallbacks(items, &out));
    let (vis, unsafety, ident) = (&module.vis, &module.unsafety, &module.ident);
    // `#![allow(…)]` written inside the module stays inside it
    let (inner, outer) = split_inner(&module.attrs);
    Some(quote! {
        #(#outer)* #vis #unsafety mod #ident { #(#inner)* #(#out)* }
    })
}

fn first(input: &TokenStream) -> TokenStream {
    input
        .clone()
        .into_iter()
        .next()
        .map(TokenStream::from)
        .unwrap_or_default()
}

/// Whether a function of a block is an entry point: tracked parameters, a
/// window, or a `#[tape(…)]` of its own.
/// Whether a function has a tracked parameter whose type names a struct.
fn tracks_struct(f: &ItemFn) -> bool {
    f.sig.inputs.iter().any(|i| match i {
        syn::FnArg::Typed(t) => {
            t.attrs.iter().any(parse::is_tracked)
                && crate::knob_derive::struct_of(&t.ty, &[]).is_some()
        }
        syn::FnArg::Receiver(_) => false,
    })
}

fn is_entry(f: &ItemFn) -> bool {
    has_tracked(f) || own_tape(f).is_some() || window_in(&f.block).is_some()
}

fn own_tape(f: &ItemFn) -> Option<usize> {
    f.attrs.iter().position(is_tape)
}

/// Each function of a block, expanded: `(the function as written, marks
/// removed, or its expansion's primal; everything it becomes)`. Helpers
/// are written where the entry points call them.
fn functions(
    args: &Args,
    fns: &[ItemFn],
    outer: Option<&syn::Generics>,
    errors: &mut Errors,
) -> Vec<(Option<syn::Ident>, TokenStream)> {
    let in_impl = outer.is_some();
    let outer = outer.map_or_else(Vec::new, crate::generics::params);
    // an entry point that tracks a struct is also a helper to the others:
    // a call passing the struct whole is written where it stands
    let mut helpers = Helpers::new(fns, |f| is_entry(f) && !tracks_struct(f))
        .in_impl(outer.iter().map(|(t, _)| t.to_string()));
    let mut out = Vec::new();
    for f in fns {
        if !is_entry(f) {
            out.push((None, quote!(#f)));
            continue;
        }
        let mut f = f.clone();
        let mut fn_args = Args {
            custom: false,
            plain: args.plain,
            in_impl,
            outer: outer.clone(),
            host: None,
            higher: Default::default(),
            directional: false,
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
                fn_args.higher = own.higher;
            }
        }
        let name = Some(f.sig.ident.clone());
        if fn_args.custom || helpers.is_empty() {
            out.push((name, function(&fn_args, f, None, errors)));
            continue;
        }
        let primal = has_tracked(&f).then(|| (*f.block).clone());
        // loops over a tracked struct's structs by index, so a helper
        // given `layer` is given `&m.layers[k]`
        let outer_names: Vec<String> = outer.iter().map(|(t, _)| t.to_string()).collect();
        crate::structs::each_loops(&mut f, &outer_names);
        // closures and chains first, so `.map(helper)` becomes a call to inline
        crate::views::rewrite(&mut f.block, errors);
        crate::closures::rewrite(&mut f.block, errors);
        let knobs = crate::iterators::knobs(&f);
        crate::iterators::rewrite(&mut f, knobs, &outer, errors);
        if helpers.inline(&f.sig, &mut f.block, errors) {
            f.attrs.push(crate::helpers::inlined_lints());
        }
        out.push((name, function(&fn_args, f, primal, errors)));
    }
    out
}

/// `#[tape] impl Type { … }` and `#[tape] impl Trait for Type { … }`: the
/// methods and associated functions as a block's functions. The
/// companions of a trait's methods go into an inherent `impl` beside it.
fn impl_block(args: &Args, block: ItemImpl, errors: &mut Errors) -> TokenStream {
    let fns: Vec<ItemFn> = block
        .items
        .iter()
        .filter_map(|i| match i {
            ImplItem::Fn(f) => Some(ItemFn {
                attrs: f.attrs.clone(),
                vis: f.vis.clone(),
                sig: f.sig.clone(),
                block: Box::new(f.block.clone()),
            }),
            _ => None,
        })
        .collect();
    let expanded = crate::structs::with_self_ty(&block.self_ty, || {
        functions(args, &fns, Some(&block.generics), errors)
    });
    let mut kept = Vec::new();
    let mut beside = Vec::new();
    // the hidden types through which other functions call a method that
    // tracks `self` (`structs/called.rs`)
    let mut hidden = Vec::new();
    let mut expanded = expanded.into_iter();
    for item in &block.items {
        let ImplItem::Fn(written) = item else {
            kept.push(quote!(#item));
            continue;
        };
        let Some((name, tokens)) = expanded.next() else {
            continue;
        };
        let Some(name) = name else {
            // a helper, as written (its `defaultness` kept)
            kept.push(quote!(#written));
            continue;
        };
        let vis = match &block.trait_ {
            Some(_) => syn::parse_quote!(pub),
            None => written.vis.clone(),
        };
        let lifted = crate::structs::lift(&tokens, &vis, &block.self_ty, &block.generics);
        let tokens = match lifted {
            Some((tokens, made)) => {
                hidden.push(made);
                tokens
            }
            None => tokens,
        };
        if block.trait_.is_none() {
            kept.push(tokens);
            continue;
        }
        // a trait's method stays in the trait's `impl`, its companions go
        let Ok(parsed) = syn::parse2::<ItemImpl>(quote!(impl __Mica { #tokens })) else {
            kept.push(tokens);
            continue;
        };
        for made in parsed.items {
            match &made {
                ImplItem::Fn(f) if f.sig.ident == name => {
                    let mut f = f.clone();
                    f.vis = written.vis.clone();
                    kept.push(quote!(#f));
                }
                ImplItem::Fn(f) => {
                    let mut f = f.clone();
                    // an inherent method is private unless marked: as
                    // visible as the type is the user's to say
                    if matches!(f.vis, syn::Visibility::Inherited) {
                        f.vis = syn::parse_quote!(pub);
                    }
                    beside.push(quote!(#f));
                }
                other => beside.push(quote!(#other)),
            }
        }
    }
    let ItemImpl {
        attrs,
        defaultness,
        unsafety,
        generics,
        trait_,
        self_ty,
        ..
    } = &block;
    let where_clause = &generics.where_clause;
    let trait_part = trait_
        .as_ref()
        .map(|(bang, path, for_)| quote!(#bang #path #for_));
    let (inner, outer) = split_inner(attrs);
    let mut out = quote! {
        #(#outer)* #defaultness #unsafety impl #generics #trait_part #self_ty #where_clause {
            #(#inner)*
            #(#kept)*
        }
    };
    if !beside.is_empty() {
        out.extend(quote! {
            impl #generics #self_ty #where_clause {
                #(#beside)*
            }
        });
    }
    out.extend(hidden);
    out
}

/// `#[tape]`, `#[tape(…)]` or `#[mica::tape]` on an item of the block.
fn is_tape(attr: &syn::Attribute) -> bool {
    attr.path()
        .segments
        .last()
        .is_some_and(|s| s.ident == "tape")
}

/// An item's attributes written inside it (`#![…]`), then those written
/// before it.
fn split_inner(attrs: &[syn::Attribute]) -> (Vec<&syn::Attribute>, Vec<&syn::Attribute>) {
    attrs
        .iter()
        .partition(|a| matches!(a.style, syn::AttrStyle::Inner(_)))
}
