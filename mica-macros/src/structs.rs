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
//!
//! A method's tracked `self` (in a `#[tape] impl`, whose type
//! [`with_self_ty`] makes known) is one such struct, read untracked as a
//! hidden `&Self`; its `_grad` is written here, the function form's being
//! for parameters. A window's `#[tracked] let m: Mlp` is `structs/window.rs`.
//! `#[tape(custom)]` needs none of this: the user's `_backward` takes the
//! struct's slot as it is.

use crate::errors::Errors;
use crate::parse::{is_tracked, Args};
use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote, ToTokens};
use syn::{FnArg, ItemFn, Pat, Type};

mod called;
mod copies;
mod each;
pub mod higher;
mod leaf;
mod leaves;
mod rewrite;
mod tables;
mod window;

pub use called::lift;
use leaf::Tracked;
use leaves::{generic_names, tracked_struct};
pub use tables::{ask, contents, local, split_input, wanted, with_local, with_tables};
pub use window::knobs as window_knobs;

/// A `#[tape]` function whose tracked parameters include a struct, as
/// `dispatch.rs` expands it: the hidden function of its fields (expanded
/// as any `#[tape]` function), the function as written with its `_grad`
/// (`custom`: its `_backward` is [`Split::backward`]).
pub struct Split {
    pub fields: ItemFn,
    pub fields_args: Args,
    pub outer_args: Args,
    pub backward: TokenStream,
    /// a method whose `self` is tracked: the method as written (marks
    /// removed) and its `_grad`, which the function form does not write
    pub method: Option<TokenStream>,
}

thread_local! {
    /// The type of the `#[tape] impl` block being expanded, whose methods
    /// may track `self`.
    static SELF_TY: std::cell::RefCell<Option<Type>> = const { std::cell::RefCell::new(None) };
}

/// Runs `f` with `ty` the type of the `impl` block expanded.
pub fn with_self_ty<R>(ty: &Type, f: impl FnOnce() -> R) -> R {
    SELF_TY.with(|t| *t.borrow_mut() = Some(ty.clone()));
    let out = f();
    SELF_TY.with(|t| *t.borrow_mut() = None);
    out
}

/// The [`Split`] of `item`, or `None` when no tracked parameter is a struct
/// with a table.
pub fn split(
    args: &Args,
    item: &ItemFn,
    primal: Option<&syn::Block>,
    errors: &mut Errors,
) -> Option<Split> {
    // `#[tape(custom)]`: the user's `_backward` takes the struct's slot as
    // written; the function form writes `_grad` around it
    if args.custom {
        return None;
    }
    let outer: Vec<String> = args.outer.iter().map(|(t, _)| t.to_string()).collect();
    if let Some(r) = item.sig.receiver() {
        let tracked_self = r.attrs.iter().any(is_tracked) && SELF_TY.with(|t| t.borrow().is_some());
        if tracked_self && r.mutability.is_some() {
            errors.at(r, "a tracked `self` is read, not changed: take `&self`");
        }
    }
    let (me, tracked) = roots(item, &outer, errors);
    if me.is_none() && tracked.iter().all(Option::is_none) {
        return None;
    }
    let inner = fields_fn(item, me.as_ref(), &tracked, errors);
    // a free function (whose adapter is a hidden type of its name) is
    // called with the struct whole through `NAME::with_tracked_struct`
    let wrapped = match &item.sig.output {
        syn::ReturnType::Type(_, ty) => crate::wrapped::of(ty).is_some(),
        syn::ReturnType::Default => false,
    };
    let free = me.is_none() && item.sig.receiver().is_none() && !args.in_impl && !wrapped;
    // a method tracking `self` is called by `#[tape]` functions outside
    // its block through `Type::NAME_with_tracked_self()` (`structs/called.rs`)
    let method_host = me.is_some() && !wrapped;
    let inner_args = Args {
        custom: false,
        plain: args.plain,
        in_impl: args.in_impl,
        outer: args.outer.clone(),
        host: (free || method_host).then(|| (item.sig.ident.clone(), item.vis.clone())),
        higher: Default::default(),
        directional: false,
    };
    let outer_args = Args {
        custom: true,
        plain: None,
        in_impl: args.in_impl,
        outer: args.outer.clone(),
        host: None,
        higher: Default::default(),
        directional: false,
    };
    let backward = backward(args, item, me.as_ref(), &tracked, errors);
    let method = me.is_some().then(|| method(args, item, primal, errors));
    Some(Split {
        fields: inner,
        fields_args: inner_args,
        outer_args,
        backward,
        method,
    })
}

/// The tracked structs (and tuples) of `item`: its tracked `self` (in a
/// `#[tape] impl` of a struct of knobs, read untracked as `__mica_self`),
/// and one entry per typed parameter.
fn roots(
    item: &ItemFn,
    outer: &[String],
    errors: &mut Errors,
) -> (Option<Tracked>, Vec<Option<Tracked>>) {
    let generic = generic_names(&item.sig, outer);
    let receiver = item
        .sig
        .receiver()
        .filter(|r| r.attrs.iter().any(is_tracked));
    let me = match (receiver, SELF_TY.with(|t| t.borrow().clone())) {
        (Some(r), Some(ty)) => tracked_struct(
            Ident::new("self", r.self_token.span),
            Ident::new("__mica_self", Span::mixed_site()),
            &ty,
            &generic,
            errors,
        ),
        _ => None,
    };
    let tracked = item
        .sig
        .inputs
        .iter()
        .filter_map(|input| match input {
            FnArg::Typed(t) => Some(t),
            FnArg::Receiver(_) => None,
        })
        .map(|t| match &*t.pat {
            Pat::Ident(pi) if t.attrs.iter().any(is_tracked) => {
                tracked_struct(pi.ident.clone(), pi.ident.clone(), &t.ty, &generic, errors)
            }
            _ => None,
        })
        .collect();
    (me, tracked)
}

/// Rewrites `item`'s loops over the structs a tracked struct holds
/// (`for layer in &m.layers`) as loops by index, and its local copies of a
/// tracked struct (`let mut s = s0.clone();`) as copies of its fields,
/// whose reads the rest of the expansion follows; run before helpers are
/// inlined.
pub fn each_loops(item: &mut ItemFn, outer: &[String]) {
    // errors are the expansion's to report, later
    let mut quiet = Errors::default();
    let (me, tracked) = roots(item, outer, &mut quiet);
    let mut roots: Vec<Tracked> = me
        .into_iter()
        .chain(tracked.into_iter().flatten())
        .collect();
    let generic = generic_names(&item.sig, outer);
    roots.extend(window::struct_lets(item, &generic));
    if roots.is_empty() {
        return;
    }
    let refs: Vec<&Tracked> = roots.iter().collect();
    let body = each::each_loops(item.block.to_token_stream(), &refs);
    let body = copies::split_copies(body, &refs);
    if let Ok(block) = syn::parse2(body) {
        *item.block = block;
    }
}

fn fields_name(item: &ItemFn) -> Ident {
    crate::names::fields_fn(&item.sig.ident)
}

/// The hidden function of the fields: each tracked struct parameter is its
/// leaves (tracked) and itself (untracked, for its skipped fields).
fn fields_fn(
    item: &ItemFn,
    me: Option<&Tracked>,
    tracked: &[Option<Tracked>],
    errors: &mut Errors,
) -> ItemFn {
    let mut inner = item.clone();
    inner.sig.ident = fields_name(item);
    inner.vis = syn::Visibility::Inherited;
    // `cfg`s, and the lint levels of inlined helpers
    inner
        .attrs
        .retain(|a| a.path().is_ident("cfg") || a.path().is_ident("allow"));
    inner.attrs.push(syn::parse_quote!(#[doc(hidden)]));
    inner.attrs.push(syn::parse_quote!(
        #[allow(dead_code, unused_variables, unused_assignments, unused_mut, non_snake_case, clippy::all)]
    ));
    let mut inputs = syn::punctuated::Punctuated::new();
    let leaves = |t: &Tracked, inputs: &mut syn::punctuated::Punctuated<FnArg, syn::Token![,]>| {
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
    };
    // a tracked `self`: its leaves, then itself as `__mica_self: &Self`
    if let Some(me) = me {
        leaves(me, &mut inputs);
        let plain = &me.plain;
        inputs.push(syn::parse_quote!(#plain: &Self));
    }
    let mut typed = tracked.iter();
    for input in &item.sig.inputs {
        let t = match input {
            FnArg::Typed(_) => typed.next().and_then(Option::as_ref),
            FnArg::Receiver(_) if me.is_some() => continue,
            FnArg::Receiver(_) => None,
        };
        match (input, t) {
            (FnArg::Typed(typed), Some(t)) => {
                leaves(t, &mut inputs);
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
    let roots: Vec<&Tracked> = me.into_iter().chain(tracked.iter().flatten()).collect();
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

/// A tracked struct's leaves as the fields function's arguments, read
/// from `value`, and their slots in `slot`, the struct's gradient.
fn leaf_args(
    t: &Tracked,
    value: &impl ToTokens,
    slot: &Ident,
    call: &mut Vec<TokenStream>,
    slots: &mut Vec<TokenStream>,
    around: &mut (Vec<TokenStream>, Vec<TokenStream>),
) {
    for leaf in &t.leaves {
        let path = &leaf.path;
        if leaf.gathered() {
            // gathered before the call, its slopes added back after
            let k = around.0.len();
            let (g, d) = (
                format_ident!("__mica_gathered{}", k, span = Span::mixed_site()),
                format_ident!("__mica_d_gathered{}", k, span = Span::mixed_site()),
            );
            // the slot moved out of the gradient's fields and back: the
            // callee adds into it, as into any slot
            let read = leaf.gather(&quote!(#value));
            let taken = leaf.take(&quote!(#slot));
            let outer = &leaf.path[..leaf.each[0]];
            let label = leaf.container(&t.root, 0);
            around.0.push(quote! {
                let #g = #read;
                ::mica::__private::slot_len(#slot #(.#outer)*.len(), #g.len(), #label);
                let mut #d = #taken;
            });
            around.1.push(leaf.put_back(&quote!(#slot), &quote!(#d)));
            call.push(quote!(&#g));
            slots.push(quote!(&mut #d[..]));
            continue;
        }
        call.push(match leaf.by_ref() {
            true => quote!(&#value #(.#path)*),
            false => quote!(#value #(.#path)*),
        });
        slots.push(match leaf.is_vec() {
            true => quote!(&mut #slot #(.#path)* [..]),
            false => quote!(&mut #slot #(.#path)*),
        });
    }
}

/// `NAME_backward`: the fields' `_backward` with each struct's leaves and
/// their slots in the struct's gradient.
fn backward(
    args: &Args,
    item: &ItemFn,
    me: Option<&Tracked>,
    tracked: &[Option<Tracked>],
    errors: &mut Errors,
) -> TokenStream {
    let mut sig_item = item.clone();
    if let Some(FnArg::Receiver(r)) = sig_item.sig.inputs.first_mut() {
        if r.attrs.iter().any(is_tracked) && me.is_some() {
            // (`&mut self` has its error; the companions read `&self`)
            r.mutability = None;
            if let Type::Reference(t) = &mut *r.ty {
                t.mutability = None;
            }
        }
        r.attrs.retain(|a| !is_tracked(a));
    }
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
    let d_self = format_ident!("d_self", span = Span::mixed_site());
    let first = me.map(|_| quote!(#d_self: &mut Self));
    let signature =
        crate::function_form::backward_signature(&sig_item, &params, &ret, false, first);
    let (mut call, mut slots) = (Vec::new(), Vec::new());
    let mut around = (Vec::new(), Vec::new());
    if let Some(me) = me {
        // `self` as the user wrote it: a `self` of the macro's is another
        let this = item
            .sig
            .receiver()
            .map(|r| r.self_token)
            .unwrap_or_default();
        leaf_args(me, &this, &d_self, &mut call, &mut slots, &mut around);
        call.push(quote!(#this));
    }
    for (p, t) in params.iter().zip(tracked) {
        let name = &p.name;
        let slot = format_ident!("d_{}", p.name, span = Span::mixed_site());
        match t {
            Some(t) => {
                leaf_args(t, name, &slot, &mut call, &mut slots, &mut around);
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
    let fields = format_ident!("{}_backward", fields_name(item));
    let fields = match item.sig.receiver().is_some() || args.in_impl {
        true => quote!(Self::#fields),
        false => quote!(#fields),
    };
    let seed = crate::names::internal("seed");
    let (before, after) = around;
    let value = format_ident!("__mica_value", span = Span::mixed_site());
    quote! {
        #[allow(clippy::too_many_arguments)]
        #signature {
            #(#before)*
            let #value = #fields(#(#call,)* #seed, #(#slots),*);
            #(#after)*
            #value
        }
    }
}

/// A method whose `self` is tracked: the method as written (marks
/// removed) and `NAME_grad(&self, …) -> (value, (Self, …))`.
fn method(
    args: &Args,
    item: &ItemFn,
    primal: Option<&syn::Block>,
    errors: &mut Errors,
) -> TokenStream {
    let mut written = item.clone();
    if let Some(block) = primal {
        *written.block = block.clone();
        written
            .attrs
            .retain(|a| !crate::helpers::is_inlined_lints(a));
    }
    let params = crate::parse::params(&mut written.sig, &mut Errors::default());
    if let Some(FnArg::Receiver(r)) = written.sig.inputs.first_mut() {
        r.attrs.retain(|a| !is_tracked(a));
    }
    let ret = crate::function_form::ret_of(&written, errors);
    if ret.wrapped.is_some() {
        errors.at(
            &item.sig.output,
            "a method with a tracked `self` returns a float here; `Option` and `Result` returns are not supported with it yet",
        );
    }
    let mut floats = crate::generics::float_params(&item.sig.generics);
    floats.extend(
        args.outer
            .iter()
            .filter(|(_, f)| *f)
            .map(|(t, _)| t.clone()),
    );
    let generics = crate::generics::with_real(&item.sig.generics, &floats);
    let where_clause = &generics.where_clause;
    let (vis, name) = (&item.vis, &item.sig.ident);
    let grad_name = format_ident!("{}_grad", name);
    let backward = format_ident!("{}_backward", name);
    let inputs = params.iter().map(|p| {
        let (name, ty) = (&p.name, &p.ty);
        quote!(#name: #ty)
    });
    let names: Vec<&Ident> = params.iter().map(|p| &p.name).collect();
    let d_self = format_ident!("d_self", span = Span::mixed_site());
    let mut slots = vec![d_self.clone()];
    let mut grads = vec![quote!(Self)];
    let mut zeros = vec![quote!(let mut #d_self = ::mica::__private::zeros_like(self);)];
    for p in &params {
        if let Some((_, shape)) = &p.tracked {
            let (slot, pname) = (
                format_ident!("d_{}", p.name, span = Span::mixed_site()),
                &p.name,
            );
            zeros.push(quote!(let mut #slot = ::mica::__private::zeros_like(&#pname);));
            grads.push(shape.grad.clone());
            slots.push(slot);
        }
    }
    let value_ty = &ret.value;
    let (grad_ty, grad_val) = match grads.len() {
        1 => (quote!(Self), quote!(#d_self)),
        _ => (quote!((#(#grads),*)), quote!((#(#slots),*))),
    };
    let value = crate::names::internal("value");
    let doc = format!("The value of [`Self::{name}`] and the gradient of `self` and its tracked parameters, in order.");
    let receiver = match item.sig.receiver() {
        Some(r) if r.reference.is_some() => quote!(&self),
        _ => quote!(self),
    };
    quote! {
        #written
        #[doc = #doc]
        #[inline]
        #[allow(dead_code, clippy::too_many_arguments)]
        #vis fn #grad_name #generics (#receiver, #(#inputs),*) -> (#value_ty, #grad_ty) #where_clause {
            #(#zeros)*
            let #value = Self::#backward(self, #(#names,)* <#value_ty as ::mica::__private::One>::one(), #(&mut #slots),*);
            (#value, #grad_val)
        }
    }
}
