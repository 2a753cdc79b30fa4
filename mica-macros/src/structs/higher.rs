//! `tangent`, `jacobian` and `hvp` of a function tracking a struct (a
//! parameter, or a method's `self`): the forward mode of the function of
//! its fields (the same hidden function the reverse differentiates), with
//! each struct's leaves read from the struct, its tangent or its direction,
//! and the slopes of `hvp` added into structs of the struct's type.
//!
//! ```text
//! fn loss_tangent(m: &Mlp, x: f64, d_m: &Mlp, d_x: f64) -> (f64, f64) {
//!     __mica_loss_fields_tangent(&m.w, m.b, m, x, &d_m.w, d_m.b, d_x)
//! }
//! ```
//!
//! `_jacobian` is written over the struct as it is: its floats numbered
//! field by field in declaration order (the `Flat` the derive writes).

use super::{fields_fn, fields_name, leaf_args, roots, Tracked};
use crate::errors::Errors;
use crate::parse::{Args, Flags, Param, Shape};
use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote, ToTokens};
use syn::{FnArg, ItemFn, Type};

/// The higher-order companions of `item` when it tracks a struct, and the
/// directional derivative for the caller to expand; `None` when it tracks
/// none (the companions are then `tangent.rs`'s alone).
pub fn companions(
    args: &Args,
    item: &ItemFn,
    errors: &mut Errors,
) -> Option<(TokenStream, Option<ItemFn>)> {
    let at = args.higher.any()?;
    if args.custom {
        return None;
    }
    let outer: Vec<String> = args.outer.iter().map(|(t, _)| t.to_string()).collect();
    let mut item = item.clone();
    super::each_loops(&mut item, &outer);
    // the reverse reports what is wrong with the struct's reads
    let mut quiet = Errors::default();
    let (me, tracked) = roots(&item, &outer, &mut quiet);
    if me.is_none() && tracked.iter().all(Option::is_none) {
        return None;
    }
    let fields = fields_fn(&item, me.as_ref(), &tracked, &mut quiet);
    if quiet.first_message().is_some() {
        return Some((TokenStream::new(), None));
    }
    // the fields' forward mode (no adapters: nothing calls it but this)
    let fields_args = Args {
        outer: args.outer.clone(),
        in_impl: args.in_impl,
        host: Some((item.sig.ident.clone(), item.vis.clone())),
        higher: Flags {
            tangent: (args.higher.tangent.is_some() || args.higher.jacobian.is_some())
                .then_some(at),
            jacobian: None,
            hvp: args.higher.hvp,
        },
        ..Default::default()
    };
    let (mut out, dir) = crate::tangent::companions(&fields_args, &fields, errors);
    crate::function_form::set_in_impl(args.in_impl);

    // the function as its companions are written: a tracked `self` is the
    // first parameter, `self: &Self`
    let mut outer_item = item.clone();
    if me.is_some() {
        outer_item.sig.inputs = outer_item
            .sig
            .inputs
            .into_iter()
            .filter(|i| matches!(i, FnArg::Typed(_)))
            .collect();
    }
    let mut params = crate::parse::params(&mut outer_item.sig, &mut Errors::default());
    let this = item
        .sig
        .receiver()
        .map(|r| r.self_token)
        .unwrap_or_default();
    if me.is_some() {
        params.insert(0, self_param(&this));
    }
    let tracked_types: Vec<&Type> = params
        .iter()
        .filter(|p| p.tracked.is_some())
        .map(|p| &p.ty)
        .collect();
    let mut scratch = Errors::default();
    let companion =
        crate::generics::companion(&outer_item, &args.outer, &tracked_types, &mut scratch);
    // the structs among the parameters, in order (`self` first)
    let roots: Vec<Option<&Tracked>> = me
        .iter()
        .map(Some)
        .chain(tracked.iter().map(Option::as_ref))
        .collect();
    let fields_fn = |suffix: &str| {
        let name = format_ident!("{}{}", fields_name(&item), suffix);
        crate::function_form::sibling(&outer_item, &name)
    };
    let (_, pass_self) = crate::tangent::higher::receiver(&outer_item);
    if args.higher.tangent.is_some() || args.higher.jacobian.is_some() {
        let mut before = Vec::new();
        let mut call = values(&params, &roots, &mut before, |p| {
            let name = &p.name;
            quote!(#name)
        });
        call.extend(tangents(&params, &roots, &mut before));
        let fields_tangent = fields_fn("_tangent");
        let body = quote! {
            #(#before)*
            #fields_tangent(#pass_self #(#call),*)
        };
        out.extend(crate::tangent::higher::tangent_fn(
            &companion, &params, body,
        ));
    }
    if args.higher.jacobian.is_some() {
        let float = crate::tangent::float_type(&item, &args.outer);
        out.extend(crate::tangent::higher::jacobian_fn(
            &companion, &params, &float, true,
        ));
    }
    if args.higher.hvp.is_some() && dir.is_some() {
        // the reverse of the fields' directional derivative
        let dir = crate::tangent::higher::dir_name(&fields_name(&item));
        let name = format_ident!("{}_backward", dir);
        let backward = crate::function_form::sibling(&outer_item, &name);
        out.extend(hvp_fn(&companion, &params, &roots, &pass_self, &backward));
    }
    Some((out, dir))
}

/// `self: &Self`, tracked, whose gradient is a `Self`.
fn self_param(this: &syn::token::SelfValue) -> Param {
    let name = Ident::new("self", this.span);
    Param {
        attrs: Vec::new(),
        pat: syn::parse_quote!(#name),
        ty: syn::parse_quote!(&Self),
        binding: Some(name.clone()),
        name,
        tracked: Some((
            syn::parse_quote!(#[tracked]),
            Shape {
                grad: quote!(Self),
                slot: quote!(Self),
                rank: 0,
                sized_at_run_time: false,
            },
        )),
    }
}

/// A struct's leaves read from `value` (a `Vec` of a gathered field built
/// before the call, in `before`).
fn leaf_values(
    t: &Tracked,
    value: &TokenStream,
    call: &mut Vec<TokenStream>,
    before: &mut Vec<TokenStream>,
) {
    for leaf in &t.leaves {
        let path = &leaf.path;
        if leaf.gathered() {
            let g = format_ident!("__mica_gathered{}", before.len(), span = Span::mixed_site());
            let read = leaf.gather(value);
            before.push(quote!(let #g = #read;));
            call.push(quote!(&#g));
            continue;
        }
        call.push(match leaf.by_ref() {
            true => quote!(&#value #(.#path)*),
            false => quote!(#value #(.#path)*),
        });
    }
}

/// The fields function's arguments for the parameters: each struct's
/// leaves then the struct itself, every other parameter as `arg` gives it.
fn values(
    params: &[Param],
    roots: &[Option<&Tracked>],
    before: &mut Vec<TokenStream>,
    arg: impl Fn(&Param) -> TokenStream,
) -> Vec<TokenStream> {
    let mut call = Vec::new();
    for (p, t) in params.iter().zip(roots) {
        let name = &p.name;
        match t {
            Some(t) => {
                leaf_values(t, &quote!(#name), &mut call, before);
                call.push(match &p.ty {
                    Type::Reference(_) => quote!(#name),
                    _ => quote!(&#name),
                });
            }
            None => call.push(arg(p)),
        }
    }
    call
}

/// The tangents of the tracked parameters, in order: a struct's leaves
/// read from its tangent.
fn tangents(
    params: &[Param],
    roots: &[Option<&Tracked>],
    before: &mut Vec<TokenStream>,
) -> Vec<TokenStream> {
    let mut call = Vec::new();
    for (p, t) in params.iter().zip(roots) {
        if p.tracked.is_none() {
            continue;
        }
        let d = format_ident!("d_{}", p.name, span = Span::mixed_site());
        match t {
            Some(t) => leaf_values(t, &quote!(#d), &mut call, before),
            None => call.push(quote!(#d)),
        }
    }
    call
}

/// `NAME_hvp(args…, v…) -> (T, G, G)`: the reverse of the fields'
/// directional derivative, its slopes added into structs of the
/// parameters' types (the slope to the directions is the gradient, to the
/// point the Hessian times `v`).
fn hvp_fn(
    item: &ItemFn,
    params: &[Param],
    roots: &[Option<&Tracked>],
    pass_self: &TokenStream,
    backward: &TokenStream,
) -> TokenStream {
    let ident = &item.sig.ident;
    let name = format_ident!("{}_hvp", ident);
    let vis = &item.vis;
    let (generics, where_clause) = (&item.sig.generics, &item.sig.generics.where_clause);
    let out = match &item.sig.output {
        syn::ReturnType::Type(_, ty) => ty.to_token_stream(),
        syn::ReturnType::Default => quote!(f64),
    };
    let (me, _) = crate::tangent::higher::receiver(item);
    let inputs = params.iter().map(|p| {
        let (attrs, name, ty) = (&p.attrs, &p.name, &p.ty);
        quote!(#(#attrs)* #name: #ty)
    });
    let tracked: Vec<(&Param, Option<&Tracked>)> = params
        .iter()
        .zip(roots.iter().copied())
        .filter(|(p, _)| p.tracked.is_some())
        .collect();
    let mixed =
        |what: &str, p: &Param| format_ident!("{}_{}", what, p.name, span = Span::mixed_site());
    let v_inputs = tracked.iter().map(|(p, _)| {
        let (v, ty) = (format_ident!("v_{}", p.name), &p.ty);
        quote!(#v: #ty)
    });
    let zeros = tracked.iter().map(|(p, _)| {
        let (g, h, name) = (mixed("g", p), mixed("h", p), &p.name);
        quote! {
            let mut #g = ::mica::__private::zeros_like(&#name);
            let mut #h = ::mica::__private::zeros_like(&#name);
        }
    });
    // the point's arguments with the Hessian's slots, then the directions'
    // with the gradient's
    let (mut call, mut h_slots, mut around) = (Vec::new(), Vec::new(), (Vec::new(), Vec::new()));
    for (p, t) in params.iter().zip(roots) {
        let name = &p.name;
        match t {
            Some(t) => {
                leaf_args(
                    t,
                    name,
                    &mixed("h", p),
                    &mut call,
                    &mut h_slots,
                    &mut around,
                );
                call.push(match &p.ty {
                    Type::Reference(_) => quote!(#name),
                    _ => quote!(&#name),
                });
            }
            None => {
                call.push(match &p.ty {
                    Type::Reference(_) => quote!(#name),
                    _ => quote!(::core::clone::Clone::clone(&#name)),
                });
                if p.tracked.is_some() {
                    let h = mixed("h", p);
                    h_slots.push(quote!(&mut #h));
                }
            }
        }
    }
    let mut g_slots = Vec::new();
    for (p, t) in &tracked {
        let v = format_ident!("v_{}", p.name);
        match t {
            Some(t) => leaf_args(t, &v, &mixed("g", p), &mut call, &mut g_slots, &mut around),
            None => {
                call.push(quote!(#v));
                let g = mixed("g", p);
                g_slots.push(quote!(&mut #g));
            }
        }
    }
    let grads: Vec<&TokenStream> = tracked
        .iter()
        .filter_map(|(p, _)| p.tracked.as_ref().map(|(_, s)| &s.grad))
        .collect();
    let g_names: Vec<Ident> = tracked.iter().map(|(p, _)| mixed("g", p)).collect();
    let h_names: Vec<Ident> = tracked.iter().map(|(p, _)| mixed("h", p)).collect();
    let (g_ty, g_val, h_val) = match grads.len() {
        1 => (
            quote!(#(#grads)*),
            quote!(#(#g_names)*),
            quote!(#(#h_names)*),
        ),
        _ => (
            quote!((#(#grads),*)),
            quote!((#(#g_names),*)),
            quote!((#(#h_names),*)),
        ),
    };
    let primal = crate::function_form::sibling(item, ident);
    let primal_args = params.iter().map(|p| {
        let name = &p.name;
        match &p.ty {
            Type::Reference(_) => quote!(#name),
            _ => quote!(::core::clone::Clone::clone(&#name)),
        }
    });
    let value = crate::names::internal("value");
    let (before, after) = around;
    let doc = format!(
        "The value of [`{ident}`], its gradient, and its Hessian times `v` (one `v_…` per tracked parameter, of its type), by the reverse of its forward mode."
    );
    quote! {
        #[doc = #doc]
        #[allow(dead_code, non_snake_case, unused_mut, clippy::all)]
        #vis fn #name #generics (#me #(#inputs,)* #(#v_inputs),*) -> (#out, #g_ty, #g_ty) #where_clause {
            #(#zeros)*
            let #value = #primal(#pass_self #(#primal_args),*);
            #(#before)*
            #backward(#pass_self #(#call,)* <#out as ::mica::__private::One>::one(), #(#h_slots,)* #(#g_slots),*);
            #(#after)*
            (#value, #g_val, #h_val)
        }
    }
}
