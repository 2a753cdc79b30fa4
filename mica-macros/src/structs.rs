//! Struct knobs (`#[derive(mica::Knob)]`, SPEC 3.4): a tracked `&Mlp` is
//! the bundle of its fields.
//!
//! A proc macro sees only the item it is on, so the field table comes from
//! the struct's derive: `#[tape]` asks for it by writing `Mlp! { … }`
//! (the derive put a macro of the struct's name beside it), which hands
//! the table back through `tape_with!` (`expand.rs`). With the tables,
//!
//! ```text
//! #[tape] fn loss(#[tracked] m: &Mlp, x: f64) -> f64 { m.w[0] * x + m.b }
//! ```
//!
//! becomes a hidden function with one tracked parameter per field that
//! holds floats, and the struct's reads are its fields' (`m.w[0]` is
//! `w[0]` of the field parameter):
//!
//! ```text
//! fn __mica_loss_fields(#[tracked] m·w: &[f64; 2], #[tracked] m·b: f64, m: &Mlp, x: f64) -> f64 { … }
//! fn loss_backward(m: &Mlp, x: f64, seed: f64, d_m: &mut Mlp) -> f64 {
//!     __mica_loss_fields_backward(&m.w, m.b, m, x, seed, &mut d_m.w, &mut d_m.b)
//! }
//! ```
//!
//! so a struct-tracked function is exactly the same function written with
//! one tracked parameter per field. Fields of other `Knob` structs are
//! flattened the same way; skipped fields (and those that are no knob) are
//! read from `m` as constants.

use crate::errors::Errors;
use crate::parse::{is_tracked, Args};
use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote, ToTokens};
use std::collections::HashMap;
use syn::visit_mut::VisitMut;
use syn::{FnArg, ItemFn, Pat, Type};

mod rewrite;
mod tables;

use crate::knob_derive::struct_of;
use rewrite::{Leaf, Reach, Tracked};
pub use tables::{ask, contents, split_input, wanted, with_tables};
use tables::{is_skipped, table};

/// Replaces a struct's type parameters by the arguments its use gives.
struct Subst(HashMap<String, Type>);

impl VisitMut for Subst {
    fn visit_type_mut(&mut self, ty: &mut Type) {
        if let Type::Path(p) = ty {
            if let Some(t) = p.path.get_ident().and_then(|i| self.0.get(&i.to_string())) {
                *ty = t.clone();
                return;
            }
        }
        syn::visit_mut::visit_type_mut(self, ty);
    }
}

fn flatten(
    at: &syn::TypePath,
    floats: &[String],
    prefix: &[Ident],
    into: &mut Tracked,
    errors: &mut Errors,
) {
    let name = at
        .path
        .segments
        .last()
        .map(|s| s.ident.to_string())
        .unwrap_or_default();
    let Some(table) = table(&name) else {
        errors.at(
            at,
            format!("`{name}` is not a struct of knobs: add `#[derive(mica::Knob)]` to its definition, or mark the field `#[knob(skip)]`"),
        );
        return;
    };
    into.paths.insert(
        prefix.iter().map(|p| p.to_string()).collect(),
        Reach::Struct,
    );
    // the struct's type parameters, as this use fills them
    let mut subst = Subst(HashMap::new());
    if let Some(syn::PathArguments::AngleBracketed(a)) =
        at.path.segments.last().map(|s| &s.arguments)
    {
        let given = a.args.iter().filter_map(|g| match g {
            syn::GenericArgument::Type(t) => Some(t.clone()),
            _ => None,
        });
        for (param, ty) in table.generics.type_params().zip(given) {
            subst.0.insert(param.ident.to_string(), ty);
        }
    }
    for field in &table.fields {
        let Some(ident) = &field.ident else { continue };
        let mut path = prefix.to_vec();
        path.push(ident.clone());
        let key: Vec<String> = path.iter().map(|p| p.to_string()).collect();
        if is_skipped(field) {
            into.paths.insert(key, Reach::Skipped);
            continue;
        }
        let mut ty = field.ty.clone();
        subst.visit_type_mut(&mut ty);
        match floats_inside(&ty, floats) {
            Inside::Floats => {
                into.paths.insert(key, Reach::Leaf(into.leaves.len()));
                into.leaves.push(Leaf { path, ty });
            }
            Inside::Struct(p) => flatten(&p, floats, &path, into, errors),
            Inside::Structs => {
                into.paths.insert(key, Reach::Unknown);
                errors.at(
                    &field.ty,
                    "a tracked struct's field that holds structs (an array or `Vec` of them) is not supported yet; hold their floats in arrays or `Vec`s of floats, one field each, or track the inner struct in its own parameter",
                );
            }
        }
    }
}

enum Inside {
    Floats,
    Struct(syn::TypePath),
    Structs,
}

/// What a knob field's type holds: floats (a float, arrays and `Vec`s of
/// them), one struct, or arrays / `Vec`s of structs.
fn floats_inside(ty: &Type, floats: &[String]) -> Inside {
    match ty {
        Type::Array(a) => match floats_inside(&a.elem, floats) {
            Inside::Floats => Inside::Floats,
            _ => Inside::Structs,
        },
        Type::Paren(p) => floats_inside(&p.elem, floats),
        Type::Group(g) => floats_inside(&g.elem, floats),
        Type::Path(p) => {
            let last = p.path.segments.last();
            if let Some(s) = last.filter(|s| s.ident == "Vec") {
                if let syn::PathArguments::AngleBracketed(a) = &s.arguments {
                    if let Some(syn::GenericArgument::Type(t)) = a.args.first() {
                        return match floats_inside(t, floats) {
                            Inside::Floats => Inside::Floats,
                            _ => Inside::Structs,
                        };
                    }
                }
                return Inside::Structs;
            }
            match struct_of(ty, floats) {
                Some(p) => Inside::Struct(p.clone()),
                None => Inside::Floats,
            }
        }
        _ => Inside::Floats,
    }
}

/// A `#[tape]` function whose tracked parameters include a struct, as
/// `dispatch.rs` expands it: the hidden function of its fields (expanded
/// as any `#[tape]` function), the function as written with its `_grad`
/// (`custom`: its `_backward` is [`Split::backward`]).
pub struct Split {
    pub fields: ItemFn,
    pub fields_args: Args,
    pub outer_args: Args,
    pub backward: TokenStream,
}

/// The [`Split`] of `item`, or `None` when no tracked parameter is a struct
/// with a table.
pub fn split(args: &Args, item: &ItemFn, errors: &mut Errors) -> Option<Split> {
    let mut generic: Vec<String> = item
        .sig
        .generics
        .type_params()
        .map(|p| p.ident.to_string())
        .collect();
    generic.extend(args.outer.iter().map(|(t, _)| t.to_string()));
    let mut tracked: Vec<Option<Tracked>> = Vec::new();
    for input in &item.sig.inputs {
        let mut found = None;
        if let FnArg::Typed(t) = input {
            if t.attrs.iter().any(is_tracked) {
                if let (Some(p), Pat::Ident(pi)) = (struct_of(&t.ty, &generic), &*t.pat) {
                    let name = p.path.segments.last().map(|s| s.ident.to_string());
                    if name.is_some_and(|n| table(&n).is_some()) {
                        let mut into = Tracked {
                            root: pi.ident.clone(),
                            leaves: Vec::new(),
                            paths: HashMap::new(),
                        };
                        flatten(p, &generic, &[], &mut into, errors);
                        found = Some(into);
                    }
                }
            }
        }
        tracked.push(found);
    }
    if tracked.iter().all(Option::is_none) {
        return None;
    }
    let inner = fields_fn(item, &tracked, errors);
    let inner_args = Args {
        custom: false,
        plain: args.plain,
        in_impl: args.in_impl,
        outer: args.outer.clone(),
    };
    let outer_args = Args {
        custom: true,
        plain: None,
        in_impl: args.in_impl,
        outer: args.outer.clone(),
    };
    let backward = backward(args, item, &tracked, errors);
    Some(Split {
        fields: inner,
        fields_args: inner_args,
        outer_args,
        backward,
    })
}

fn fields_name(item: &ItemFn) -> Ident {
    format_ident!("__mica_{}_fields", item.sig.ident)
}

/// The hidden function of the fields: each tracked struct parameter is its
/// leaves (tracked) and itself (untracked, for its skipped fields).
fn fields_fn(item: &ItemFn, tracked: &[Option<Tracked>], errors: &mut Errors) -> ItemFn {
    let mut inner = item.clone();
    inner.sig.ident = fields_name(item);
    inner.vis = syn::Visibility::Inherited;
    inner.attrs.retain(|a| a.path().is_ident("cfg"));
    inner.attrs.push(syn::parse_quote!(#[doc(hidden)]));
    inner.attrs.push(syn::parse_quote!(
        #[allow(dead_code, unused_variables, non_snake_case, clippy::too_many_arguments)]
    ));
    let mut inputs = syn::punctuated::Punctuated::new();
    for (input, t) in item.sig.inputs.iter().zip(tracked) {
        match (input, t) {
            (FnArg::Typed(typed), Some(t)) => {
                for leaf in &t.leaves {
                    let name = leaf.name(&t.root);
                    let ty = &leaf.ty;
                    let ty = if leaf.by_ref() {
                        quote!(&#ty)
                    } else {
                        quote!(#ty)
                    };
                    inputs.push(syn::parse_quote!(#[tracked] #name: #ty));
                }
                let mut plain = typed.clone();
                plain.attrs.retain(|a| !is_tracked(a));
                if !matches!(&*plain.ty, Type::Reference(_)) {
                    let ty = &plain.ty;
                    plain.ty = syn::parse_quote!(&#ty);
                }
                inputs.push(FnArg::Typed(plain));
            }
            (other, _) => inputs.push(other.clone()),
        }
    }
    inner.sig.inputs = inputs;
    let roots: Vec<&Tracked> = tracked.iter().flatten().collect();
    let rebound = rewrite::check_not_rebound(&item.block, &roots[..], errors);
    // a name bound again has its error; its reads are left as written
    let roots: Vec<&Tracked> = roots
        .into_iter()
        .filter(|t| !rebound.contains(&t.root))
        .collect();
    let body = rewrite::rewrite(item.block.to_token_stream(), &roots, errors);
    match syn::parse2(body) {
        Ok(block) => inner.block = Box::new(block),
        Err(e) => errors.push(e),
    }
    inner
}

/// `NAME_backward`: the fields' `_backward` with each struct's leaves and
/// their slots in the struct's gradient.
fn backward(
    args: &Args,
    item: &ItemFn,
    tracked: &[Option<Tracked>],
    errors: &mut Errors,
) -> TokenStream {
    let mut sig_item = item.clone();
    let params = crate::parse::params(&mut sig_item.sig, &mut Errors::default());
    let ret = crate::function_form::ret_of(&sig_item, errors);
    let mut floats = crate::generics::float_params(&item.sig.generics);
    floats.extend(
        args.outer
            .iter()
            .filter(|(_, f)| *f)
            .map(|(t, _)| t.clone()),
    );
    sig_item.sig.generics = crate::generics::with_real(&item.sig.generics, &floats);
    let signature = crate::function_form::backward_signature(&sig_item, &params, &ret, false);
    let (mut call, mut slots) = (Vec::new(), Vec::new());
    for (p, t) in params.iter().zip(tracked) {
        let name = &p.name;
        let slot = format_ident!("d_{}", p.name, span = Span::mixed_site());
        match t {
            Some(t) => {
                for leaf in &t.leaves {
                    let path = &leaf.path;
                    call.push(match leaf.by_ref() {
                        true => quote!(&#name #(.#path)*),
                        false => quote!(#name #(.#path)*),
                    });
                    slots.push(match leaf.is_vec() {
                        true => quote!(&mut #slot #(.#path)* [..]),
                        false => quote!(&mut #slot #(.#path)*),
                    });
                }
                call.push(match &p.ty {
                    Type::Reference(_) => quote!(#name),
                    _ => quote!(&#name),
                });
            }
            None => {
                call.push(quote!(#name));
                if p.tracked.is_some() {
                    slots.push(quote!(#slot));
                }
            }
        }
    }
    let fields =
        crate::function_form::sibling(item, &format_ident!("{}_backward", fields_name(item)));
    let seed = crate::names::internal("seed");
    quote! {
        #[allow(clippy::too_many_arguments)]
        #signature {
            #fields(#(#call,)* #seed, #(#slots),*)
        }
    }
}
