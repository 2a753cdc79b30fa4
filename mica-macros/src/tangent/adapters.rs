//! How other functions' forward mode calls a `#[tape(tangent)]` or
//! `#[tape(hvp)]` function: `NAME::tangent(args…, tangents…)`,
//! `NAME::hvp(…)` and `NAME::hvp_adjoint(…)` on the function's hidden
//! type; for one tracking a struct, its fields function's, reached as a
//! caller passing the struct whole writes the call (`NAME::tangent(its
//! leaves…, m, x, tangents…)`, or for a method tracking `self`,
//! `Type::tangent_of_NAME().__mica_tangent(…)`, `structs/called.rs`).

use super::higher::{dir_name, out_type};
use crate::names::internal;
use crate::parse::Param;
use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};
use syn::ItemFn;

/// `NAME::tangent(args…, tangents…)` on the function's hidden type: how
/// another function's forward mode calls this one. Every argument comes
/// with a tangent, `Tangent(d)` or `NoSlot` for a constant; a tracked
/// parameter given `NoSlot` gets a zero tangent, an untracked one accepts
/// nothing else.
pub(crate) fn tangent_adapter(item: &ItemFn, params: &[Param], host: Host<'_>) -> TokenStream {
    let name = &item.sig.ident;
    let tangent = format_ident!("{}_tangent", name);
    let vis = &item.vis;
    let out = out_type(item);
    let generics = &item.sig.generics;
    let params_generics = generics.params.iter();
    let where_clause = &generics.where_clause;
    // the parameters' references get a named lifetime: a bound cannot
    // elide one
    let lifetime = syn::Lifetime::new("'__mica_tangent", Span::mixed_site());
    let mut bounds = Vec::new();
    let mut inputs = Vec::new();
    let mut prepare = Vec::new();
    let mut passed = Vec::new();
    let mut tangent_inputs = Vec::new();
    let named: Vec<syn::Type> = params
        .iter()
        .map(|p| {
            let mut ty = p.ty.clone();
            syn::visit_mut::VisitMut::visit_type_mut(&mut Lifetimes(&lifetime), &mut ty);
            ty
        })
        .collect();
    for ((i, p), ty) in params.iter().enumerate().zip(&named) {
        let pname = &p.name;
        inputs.push(quote!(#pname: #ty));
        let arg = format_ident!("tangent{}", i, span = Span::mixed_site());
        let ty_param = format_ident!("__MicaTangent{}", i);
        tangent_inputs.push(quote!(#arg: #ty_param));
        if p.tracked.is_none() {
            bounds.push(quote!(#ty_param: ::mica::__private::Untracked));
            prepare.push(quote!(let _ = #arg;));
            continue;
        }
        let given = quote!(::mica::__private::TangentOf<#ty>);
        bounds.push(quote!(#ty_param: #given));
        let d = format_ident!("d{}", i, span = Span::mixed_site());
        prepare.push(given_or_zero(p, i, &given, &arg, &d));
        passed.push(d);
    }
    let args = params.iter().map(|p| &p.name);
    let (f, this, call) = host.names("tangent", &tangent);
    host.wrap(
        name,
        "tangent",
        quote! {
            #[doc(hidden)]
            #[inline(always)]
            #[allow(clippy::too_many_arguments, unused_assignments)]
            #vis fn #f<#lifetime, #(#params_generics,)* #(#bounds),*>(#this #(#inputs,)* #(#tangent_inputs),*) -> (#out, #out) #where_clause {
                #(#prepare)*
                #call(#(#args,)* #(#passed),*)
            }
        },
    )
}

/// Where an adapter stands, and what it is called.
#[derive(Clone, Copy)]
pub(crate) enum Host<'a> {
    /// the function's own hidden type: `NAME::tangent`
    Own,
    /// the fields function of the free function `.0`, which tracks a
    /// struct: on the function's hidden type as its own would be,
    /// `NAME::tangent`, taking the struct's leaves and the struct
    Struct(&'a Ident),
    /// the fields function of the method `.0`, which tracks `self`: a
    /// method of the hidden type of `Type::tangent_of_NAME()`
    /// (`structs/called.rs`), `__mica_tangent`
    Method(&'a Ident),
}

impl Host<'_> {
    /// The adapter's name for `what` (`tangent`, `hvp`, `hvp_adjoint`), its
    /// receiver, and how it names `companion`.
    fn names(self, what: &str, companion: &Ident) -> (Ident, TokenStream, TokenStream) {
        match self {
            Host::Own => (format_ident!("{}", what), quote!(), quote!(#companion)),
            Host::Struct(_) => (format_ident!("{}", what), quote!(), quote!(#companion)),
            Host::Method(_) => (
                format_ident!("__mica_{}", what),
                quote!(&self,),
                quote!(Self::#companion),
            ),
        }
    }

    /// The adapters `fns` of `name`'s `kind` (`tangent`, `hvp`), where they
    /// stand.
    fn wrap(self, name: &Ident, kind: &str, fns: TokenStream) -> TokenStream {
        match self {
            Host::Own => quote!(#[allow(dead_code)] impl #name { #fns }),
            Host::Struct(host) => quote!(#[allow(dead_code)] impl #host { #fns }),
            // each marked for the `impl` to move beside it, behind the
            // accessor `tangent_of_NAME` (`hvp_of_NAME`)
            Host::Method(method) => {
                let marked = format_ident!("{}_of_{}", kind, method);
                let parsed = syn::parse2::<syn::ItemImpl>(quote!(impl __Mica { #fns }));
                let Ok(parsed) = parsed else { return fns };
                parsed
                    .items
                    .into_iter()
                    .map(|item| quote!(#[__mica_beside(#marked)] #item))
                    .collect()
            }
        }
    }
}

/// `NAME::hvp(args…, tangents…)` and `NAME::hvp_adjoint(…)` on the
/// function's hidden type: how another function's `hvp` calls this one.
/// The caller's directional derivative calls `NAME::hvp` for the tangent
/// of the call (this function's own directional derivative), and its
/// reverse calls `NAME::hvp_adjoint`. Every argument comes with a tangent,
/// bare or `NoSlot` for a constant (a zero tangent for a tracked
/// parameter; an untracked one accepts nothing else); the adjoint takes a
/// slot for every argument and every tangent.
pub(crate) fn directional_adapter(item: &ItemFn, params: &[Param], host: Host<'_>) -> TokenStream {
    let name = &item.sig.ident;
    let dir = dir_name(name);
    let dir_backward = format_ident!("{}_backward", dir);
    let vis = &item.vis;
    let out = out_type(item);
    let generics = &item.sig.generics;
    let params_generics: Vec<_> = generics.params.iter().collect();
    let where_clause = &generics.where_clause;
    let lifetime = syn::Lifetime::new("'__mica_tangent", Span::mixed_site());
    let slots_lifetime = syn::Lifetime::new("'__mica_slots", Span::mixed_site());
    let mixed = |what: &str, i: usize| format_ident!("{}{}", what, i, span = Span::mixed_site());
    let (mut inputs, mut dirs, mut dir_bounds, mut prepare, mut passed) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut slot_inputs, mut dir_slot_inputs, mut slot_bounds, mut slot_prepare) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut value_slots, mut dir_slots) = (Vec::new(), Vec::new());
    for (i, p) in params.iter().enumerate() {
        let pname = &p.name;
        let mut ty = p.ty.clone();
        syn::visit_mut::VisitMut::visit_type_mut(&mut Lifetimes(&lifetime), &mut ty);
        inputs.push(quote!(#pname: #ty));
        let (arg, ty_param) = (mixed("direction", i), format_ident!("__MicaDirection{}", i));
        dirs.push(quote!(#arg: #ty_param));
        let (slot, slot_ty) = (mixed("slot", i), format_ident!("__MicaSlot{}", i));
        let (dslot, dslot_ty) = (mixed("dslot", i), format_ident!("__MicaDirSlot{}", i));
        slot_inputs.push(quote!(#slot: #slot_ty));
        dir_slot_inputs.push(quote!(#dslot: #dslot_ty));
        let Some((_, shape)) = &p.tracked else {
            dir_bounds.push(quote!(#ty_param: ::mica::__private::Untracked));
            prepare.push(quote!(let _ = #arg;));
            slot_bounds.push(quote!(#slot_ty: ::mica::__private::Untracked));
            slot_bounds.push(quote!(#dslot_ty: ::mica::__private::Untracked));
            slot_prepare.push(quote!(let _ = (#slot, #dslot);));
            continue;
        };
        let given = quote!(::mica::__private::DirectionOf<#ty>);
        dir_bounds.push(quote!(#ty_param: #given));
        let d = mixed("d", i);
        prepare.push(given_or_zero(p, i, &given, &arg, &d));
        passed.push(d.clone());
        let target = &shape.slot;
        for (slot, slot_ty, like, into) in [
            (&slot, &slot_ty, quote!(#pname), &mut value_slots),
            (&dslot, &dslot_ty, quote!(#d), &mut dir_slots),
        ] {
            slot_bounds
                .push(quote!(#slot_ty: ::mica::__private::IntoSlot<#slots_lifetime, #target>));
            let scratch = format_ident!("scratch_{}", slot, span = Span::mixed_site());
            let at = format_ident!("at_{}", slot, span = Span::mixed_site());
            slot_prepare.push(quote! {
                let mut #scratch;
                let #at: &mut #target = match ::mica::__private::IntoSlot::into_slot(#slot) {
                    ::core::option::Option::Some(slot) => slot,
                    ::core::option::Option::None => {
                        #scratch = ::mica::__private::zeros_like(&#like);
                        &mut #scratch
                    }
                };
            });
            into.push(at);
        }
    }
    let args: Vec<&proc_macro2::Ident> = params.iter().map(|p| &p.name).collect();
    let seed = internal("seed");
    let (hvp, this, dir) = host.names("hvp", &dir);
    let (hvp_adjoint, _, dir_backward) = host.names("hvp_adjoint", &dir_backward);
    host.wrap(
        name,
        "hvp",
        quote! {
            #[doc(hidden)]
            #[inline(always)]
            #[allow(clippy::too_many_arguments, unused_assignments)]
            #vis fn #hvp<#lifetime, #(#params_generics,)* #(#dir_bounds),*>(#this #(#inputs,)* #(#dirs),*) -> #out #where_clause {
                #(#prepare)*
                #dir(#(#args,)* #(#passed),*)
            }

            #[doc(hidden)]
            #[inline(always)]
            #[allow(clippy::too_many_arguments, unused_assignments)]
            #vis fn #hvp_adjoint<#lifetime, #slots_lifetime, #(#params_generics,)* #(#dir_bounds,)* #(#slot_bounds),*>(
                #this #(#inputs,)* #(#dirs,)* #seed: #out, #(#slot_inputs,)* #(#dir_slot_inputs),*
            ) #where_clause {
                #(#prepare)*
                #(#slot_prepare)*
                #dir_backward(#(#args,)* #(#passed,)* #seed, #(#value_slots,)* #(#dir_slots),*);
            }
        },
    )
}

/// `let d: P = <the tangent `arg` gives through `given`, or a zero of
/// the parameter's shape>;` (kept alive beside it for a reference).
fn given_or_zero(
    p: &Param,
    i: usize,
    given: &TokenStream,
    arg: &proc_macro2::Ident,
    d: &proc_macro2::Ident,
) -> TokenStream {
    let pname = &p.name;
    let zero = format_ident!("zero{}", i, span = Span::mixed_site());
    let (fallback, declare) = match &p.ty {
        syn::Type::Reference(_) => (
            quote!({
                #zero = ::mica::__private::zeros_like(&#pname);
                &#zero
            }),
            quote!(let #zero;),
        ),
        _ => (quote!(::mica::__private::zeros_like(&#pname)), quote!()),
    };
    let plain_ty = &p.ty;
    quote! {
        #declare
        let #d: #plain_ty = match <_ as #given>::given(#arg) {
            ::core::option::Option::Some(d) => d,
            ::core::option::Option::None => #fallback,
        };
    }
}

/// Gives every reference without a lifetime the lifetime `.0`.
struct Lifetimes<'a>(&'a syn::Lifetime);

impl syn::visit_mut::VisitMut for Lifetimes<'_> {
    fn visit_type_reference_mut(&mut self, r: &mut syn::TypeReference) {
        if r.lifetime.is_none() {
            r.lifetime = Some(self.0.clone());
        }
        syn::visit_mut::visit_type_reference_mut(self, r);
    }
}
