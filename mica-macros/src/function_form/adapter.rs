//! The call adapter of a `#[tape]` function: how other tape functions
//! call it (`function_form.rs`).

use super::{companion_attrs, in_impl, primal_use, receiver, self_arg};
use crate::names::internal;
use crate::parse::Param;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use syn::ItemFn;

/// The hidden type through which other tape functions call this one. A
/// braced struct lives in the type namespace only, so it can share the
/// function's name: `use path::loss;` brings both, and `loss::adjoint` is
/// reachable wherever `loss` is — in a module or inside a function body.
///
/// With `host` (the fields function of a function `loss` tracking a
/// struct), the adapter is `loss::with_tracked_struct_adjoint`, beside a
/// forwarder `loss::with_tracked_struct` to this function: a caller passing the
/// struct whole calls `loss::with_tracked_struct(its fields…, m, x)`.
pub(super) fn adapter_mod(
    item: &ItemFn,
    params: &[Param],
    ret: &TokenStream,
    host: Option<&(Ident, syn::Visibility)>,
    custom: bool,
) -> TokenStream {
    let vis = match host {
        Some((_, vis)) => vis,
        None => &item.vis,
    };
    let name = &item.sig.ident;
    let backward = format_ident!("{}_backward", name);
    let lifetime = syn::Lifetime::new("'__mica_slots", proc_macro2::Span::mixed_site());
    let mut bounds = Vec::new();
    let mut inputs = Vec::new();
    let mut prepare = Vec::new();
    let mut passed = Vec::new();
    for (i, p) in params.iter().enumerate() {
        let (pname, ty) = (&p.name, &p.ty);
        inputs.push(quote!(#pname: #ty));
        let slot = format_ident!("slot{}", i, span = proc_macro2::Span::mixed_site());
        let slot_ty = format_ident!("__MicaSlot{}", i);
        match &p.tracked {
            Some((_, shape)) => {
                let target = &shape.slot;
                bounds.push(quote!(#slot_ty: ::mica::__private::IntoSlot<#lifetime, #target>));
                let scratch = format_ident!("scratch{}", i, span = proc_macro2::Span::mixed_site());
                let d = format_ident!("d{}", i, span = proc_macro2::Span::mixed_site());
                prepare.push(quote! {
                    let mut #scratch;
                    let #d: &mut #target = match ::mica::__private::IntoSlot::into_slot(#slot) {
                        ::core::option::Option::Some(slot) => slot,
                        ::core::option::Option::None => {
                            #scratch = ::mica::__private::zeros_like(&#pname);
                            &mut #scratch
                        }
                    };
                });
                passed.push(d);
            }
            None => {
                bounds.push(quote!(#slot_ty: ::mica::__private::Untracked));
                prepare.push(quote!(let _ = #slot;));
            }
        }
        inputs.push(quote!(#slot: #slot_ty));
    }
    // interleaved above as (param, slot) pairs: split them back apart
    let (values, slots): (Vec<_>, Vec<_>) = inputs
        .chunks(2)
        .map(|pair| (pair[0].clone(), pair[1].clone()))
        .unzip();
    let args = params.iter().map(|p| &p.name);
    let seed = internal("seed");
    let generics = &item.sig.generics;
    let params_generics = generics.params.iter();
    let where_clause = &generics.where_clause;
    let attrs = companion_attrs(item);
    let keeps_primal_alive = primal_use(item);
    if item.sig.receiver().is_some() {
        // a method: the adapter is an associated function next to it,
        // reached as `receiver.__mica_adjoint_NAME(…)`
        let adapter = format_ident!("__mica_adjoint_{}", name);
        let receiver = receiver(item, true);
        let this = self_arg(item);
        return quote! {
            #attrs
            #[doc(hidden)]
            #[inline(always)]
            #[allow(dead_code, non_snake_case, clippy::too_many_arguments)]
            #vis fn #adapter<#lifetime, #(#params_generics,)* #(#bounds),*>(
                #receiver #(#values,)* #seed: #ret, #(#slots),*
            ) #where_clause {
                #keeps_primal_alive
                #(#prepare)*
                Self::#backward(#this #(#args,)* #seed, #(#passed),*);
            }
        };
    }
    if let Some((method, _)) = host.filter(|_| in_impl()) {
        let accessor = crate::names::tracked_self_accessor(method);
        // the fields function of a method tracking `self`: a value and
        // its adapter, methods of the hidden type the `#[tape] impl`
        // writes beside it (`module_form.rs`), which take them from here
        let args: Vec<&Ident> = params.iter().map(|p| &p.name).collect();
        let call = format_ident!("__mica_call");
        let adapter = format_ident!("__mica_adjoint___mica_call");
        // the scalar twin of a method with an array out: the method's
        // own call, which callers take its value by
        let value = twin_value(method, params).map(|(orig, out, args)| {
            let inputs = &values[..values.len() - 1];
            let accessor_of_orig = crate::names::tracked_self_accessor(&orig);
            quote! {
                #attrs
                #[__mica_beside(#accessor_of_orig)]
                #[inline(always)]
                #[allow(dead_code, clippy::too_many_arguments)]
                #vis fn #call #generics (&self, #(#inputs),*) -> #out #where_clause {
                    Self::#orig(#(#args),*)
                }
            }
        });
        return quote! {
            #value

            #attrs
            #[__mica_beside(#accessor)]
            #[inline(always)]
            #[allow(dead_code, clippy::too_many_arguments)]
            #vis fn #call #generics (&self, #(#values),*) -> #ret #where_clause {
                Self::#name(#(#args),*)
            }

            #attrs
            #[__mica_beside(#accessor)]
            #[inline(always)]
            #[allow(dead_code, clippy::too_many_arguments)]
            #vis fn #adapter<#lifetime, #(#params_generics,)* #(#bounds),*>(
                &self, #(#values,)* #seed: #ret, #(#slots),*
            ) #where_clause {
                #(#prepare)*
                Self::#backward(#(#args,)* #seed, #(#passed),*);
            }
        };
    }
    if let Some((host, _)) = host {
        let args: Vec<&Ident> = params.iter().map(|p| &p.name).collect();
        // the scalar twin of a function with an array out: the
        // function's own call, which callers take its value by
        let value = twin_value(host, params).map(|(orig, out, args)| {
            let inputs = &values[..values.len() - 1];
            let call = quote! {
                #[inline(always)]
                #vis fn with_tracked_struct #generics (#(#inputs),*) -> #out #where_clause {
                    #orig(#(#args),*)
                }
            };
            hidden_type(&attrs, vis, &orig, call)
        });
        return quote! {
            #value

            #attrs
            #[allow(dead_code)]
            impl #host {

                #[doc(hidden)]
                #[inline(always)]
                #[allow(clippy::too_many_arguments)]
                #vis fn with_tracked_struct #generics (#(#values),*) -> #ret #where_clause {
                    #name(#(#args),*)
                }

                #[doc(hidden)]
                #[inline(always)]
                #[allow(clippy::too_many_arguments)]
                #vis fn with_tracked_struct_adjoint<#lifetime, #(#params_generics,)* #(#bounds),*>(
                    #(#values,)* #seed: #ret, #(#slots),*
                ) #where_clause {
                    #keeps_primal_alive
                    #(#prepare)*
                    #backward(#(#args,)* #seed, #(#passed),*);
                }
            }
        };
    }
    // a function with an array out: its own hidden type (which its forward
    // mode's adapters use too), and on it the `adjoint` that a call read
    // as a number reaches (`f(g(x))`), an error saying to bind the array
    // (not of a `custom` function's: a struct-tracking function's own
    // twin is one, and its fields function's adapter has the type)
    let misread = crate::names::seeded_original(name)
        .filter(|_| !custom)
        .map(|orig| {
            let n = values.len().saturating_sub(1);
            let args: Vec<Ident> = (0..n).map(|k| format_ident!("__MicaArg{}", k)).collect();
            let slots: Vec<Ident> = (0..n).map(|k| format_ident!("__MicaSlot{}", k)).collect();
            let adjoint = quote! {
                #vis fn adjoint<__MicaValue: ::mica::__private::ArrayValue, #(#args,)* #(#slots),*>(
                    #(_: #args,)* _: __MicaValue, #(_: #slots),*
                ) {}
            };
            hidden_type(&attrs, vis, &orig, adjoint)
        });
    let adjoint = quote! {
        #[inline(always)]
        #vis fn adjoint<#lifetime, #(#params_generics,)* #(#bounds),*>(
            #(#values,)* #seed: #ret, #(#slots),*
        ) #where_clause {
            #keeps_primal_alive
            #(#prepare)*
            #backward(#(#args,)* #seed, #(#passed),*);
        }
    };
    let own = hidden_type(&attrs, vis, name, adjoint);
    quote! {
        #misread
        #own
    }
}

/// For the fields function of the scalar twin of a function with an
/// array, tuple or `Vec` out (`names::seeded_twin`), whose last parameter
/// is the seed: the function, the output's type, and the arguments the
/// function takes from the twin's parameters (every one but the seed and
/// the struct's leaves). A caller passing a struct whole takes its value
/// so (`lower/array_calls.rs`).
fn twin_value(host: &Ident, params: &[Param]) -> Option<(Ident, TokenStream, Vec<Ident>)> {
    let orig = crate::names::seeded_original(host)?;
    let (seed, params) = params.split_last()?;
    let out = match &seed.ty {
        syn::Type::Reference(r) => {
            let elem = &r.elem;
            quote!(#elem)
        }
        other => quote!(#other),
    };
    let args = params
        .iter()
        .filter(|p| !(p.tracked.is_some() && p.name.to_string().starts_with("__mica_")))
        .map(|p| p.name.clone())
        .collect();
    Some((orig, out, args))
}

/// The hidden type named after a function, `struct NAME {}`, with `item`
/// (a function) in its `impl`.
fn hidden_type(
    attrs: &TokenStream,
    vis: &syn::Visibility,
    name: &Ident,
    item: TokenStream,
) -> TokenStream {
    quote! {
        #attrs
        #[doc(hidden)]
        #[allow(non_camel_case_types, dead_code)]
        #vis struct #name {}

        #attrs
        #[allow(dead_code)]
        impl #name {
            #[doc(hidden)]
            #[allow(clippy::too_many_arguments)]
            #item
        }
    }
}
