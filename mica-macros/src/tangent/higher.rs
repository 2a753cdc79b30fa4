//! The companions of forward mode: `NAME_tangent`, `NAME_jacobian` (by
//! forward sweeps for an array, tuple or `Vec` output, by one reverse sweep
//! for a scalar) and `NAME_hvp` (the reverse of the directional
//! derivative, written as a hidden `#[tape]` function the caller expands).

use crate::errors::Errors;
use crate::names::internal;
use crate::parse::Param;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::ItemFn;

fn d_name(p: &Param) -> proc_macro2::Ident {
    format_ident!("d_{}", p.name, span = Span::mixed_site())
}

pub(super) fn out_type(item: &ItemFn) -> TokenStream {
    match &item.sig.output {
        syn::ReturnType::Type(_, ty) => quote!(#ty),
        syn::ReturnType::Default => quote!(f64),
    }
}

fn lints() -> TokenStream {
    quote!(#[allow(dead_code, unused_parens, unused_mut, unused_variables, unused_assignments, clippy::all)])
}

/// A method's receiver as its companions declare it (`&self,`) and as
/// they pass it on (`self,`); nothing for a free function.
pub(crate) fn receiver(item: &ItemFn) -> (TokenStream, TokenStream) {
    match item.sig.receiver() {
        None => (TokenStream::new(), TokenStream::new()),
        Some(r) => {
            let this = r.self_token;
            let mut r = r.clone();
            r.attrs.clear();
            (quote!(#r,), quote!(#this,))
        }
    }
}

/// `NAME_tangent(args…, d_args…) -> (Out, Out)`.
pub(crate) fn tangent_fn(item: &ItemFn, params: &[Param], body: TokenStream) -> TokenStream {
    let name = format_ident!("{}_tangent", item.sig.ident);
    let vis = &item.vis;
    let (generics, where_clause) = (&item.sig.generics, &item.sig.generics.where_clause);
    let inputs = params.iter().map(|p| {
        let (attrs, pat, ty) = (&p.attrs, &p.pat, &p.ty);
        quote!(#(#attrs)* #pat: #ty)
    });
    let dots = super::tracked_params(params).map(|p| {
        let (d, ty) = (d_name(p), &p.ty);
        quote!(#d: #ty)
    });
    let out = out_type(item);
    let doc = format!(
        "Forward mode of [`{}`]: its value and its directional derivative along the tangents `d_…` of its tracked parameters (each of the parameter's type, in order).",
        item.sig.ident
    );
    let lints = lints();
    let (me, _) = receiver(item);
    quote! {
        #[doc = #doc]
        #lints
        #vis fn #name #generics (#me #(#inputs,)* #(#dots),*) -> (#out, #out) #where_clause {
            #body
        }
    }
}

/// An argument passed on: a reference as it is, a value cloned (it is
/// passed twice).
fn pass(p: &Param) -> TokenStream {
    let name = &p.name;
    match &p.ty {
        syn::Type::Reference(_) => quote!(#name),
        _ => quote!(::core::clone::Clone::clone(&#name)),
    }
}

/// A value passed where the parameter's type is wanted: by reference
/// when the parameter is one.
fn as_param(p: &Param, value: &TokenStream) -> TokenStream {
    match &p.ty {
        syn::Type::Reference(_) => quote!(&#value),
        _ => quote!(#value),
    }
}

fn is_scalar(item: &ItemFn) -> bool {
    match &item.sig.output {
        syn::ReturnType::Type(_, ty) => super::activity::is_float_type(ty),
        syn::ReturnType::Default => false,
    }
}

/// `NAME_jacobian(args…) -> (Out, Vec<Vec<F>>)`.
pub(crate) fn jacobian_fn(
    item: &ItemFn,
    params: &[Param],
    float: &TokenStream,
    twin: bool,
) -> TokenStream {
    let ident = &item.sig.ident;
    let name = format_ident!("{}_jacobian", ident);
    let vis = &item.vis;
    let (generics, where_clause) = (&item.sig.generics, &item.sig.generics.where_clause);
    let inputs = params.iter().map(|p| {
        let (attrs, name, ty) = (&p.attrs, &p.name, &p.ty);
        quote!(#(#attrs)* #name: #ty)
    });
    let out = out_type(item);
    let tracked: Vec<&Param> = super::tracked_params(params).collect();
    let (jac, value, col) = (internal("jac"), internal("value"), internal("col"));
    let (me, this) = receiver(item);
    let body = if is_scalar(item) {
        // one reverse sweep: the gradient is the only row
        let grad = crate::function_form::sibling(item, &format_ident!("{}_grad", ident));
        let args = params.iter().map(|p| &p.name);
        let g = internal("g");
        let rows = if tracked.len() == 1 {
            quote!(::mica::__private::flat_into(&#g, &mut #jac[0]);)
        } else {
            let parts = (0..tracked.len()).map(syn::Index::from);
            quote!(#( ::mica::__private::flat_into(&#g.#parts, &mut #jac[0]); )*)
        };
        quote! {
            let (#value, #g) = #grad(#this #(#args),*);
            let mut #jac: ::std::vec::Vec<::std::vec::Vec<#float>> = ::std::vec![::std::vec::Vec::new()];
            #rows
            (#value, #jac)
        }
    } else {
        // one forward sweep per flattened input
        let tangent = crate::function_form::sibling(item, &format_ident!("{}_tangent", ident));
        let zeros: Vec<TokenStream> = tracked
            .iter()
            .map(|p| {
                let z = internal(&format!("zero_{}", p.name));
                let name = &p.name;
                quote!(let #z = ::mica::__private::zeros_like(&#name);)
            })
            .collect();
        let primal_args: Vec<TokenStream> = params.iter().map(pass).collect();
        let mut sweeps = TokenStream::new();
        for (k, p) in tracked.iter().enumerate() {
            let name = &p.name;
            let basis = internal("basis");
            let dots = tracked.iter().enumerate().map(|(j, q)| {
                if j == k {
                    as_param(q, &quote!(#basis))
                } else {
                    let z = internal(&format!("zero_{}", q.name));
                    as_param(q, &quote!(#z))
                }
            });
            let (i, d) = (internal("i"), internal("d"));
            sweeps.extend(quote! {
                for #i in 0..::mica::__private::flat_len(&#name) {
                    let mut #basis = ::mica::__private::zeros_like(&#name);
                    ::mica::__private::flat_unit(&mut #basis, #i);
                    let (_, #d) = #tangent(#this #(#primal_args,)* #(#dots),*);
                    ::mica::__private::flat_column(&#d, &mut #jac, #col);
                    #col += 1;
                }
            });
        }
        let primal = crate::function_form::sibling(item, ident);
        let widths: Vec<TokenStream> = tracked
            .iter()
            .map(|p| {
                let name = &p.name;
                quote!(::mica::__private::flat_len(&#name))
            })
            .collect();
        // fewer outputs than inputs: one reverse sweep per output, seeded
        // with a basis vector, gives a row (the value computed once above:
        // the seeded twin's reverse, not `_backward`, which computes it
        // again; a hand-written `_backward` is all a `custom` one has)
        let (backward, one) = match twin {
            true => (
                crate::function_form::sibling(
                    item,
                    &format_ident!("{}_backward", crate::names::seeded_twin(ident)),
                ),
                quote!(<#float as ::mica::__private::One>::one(),),
            ),
            false => (
                crate::function_form::sibling(item, &format_ident!("{}_backward", ident)),
                TokenStream::new(),
            ),
        };
        let (seed, i, row) = (internal("seed"), internal("i"), internal("row"));
        let (outputs, inputs) = (internal("outputs"), internal("inputs"));
        let seed_arg = match &item.sig.output {
            syn::ReturnType::Type(_, ty) if matches!(**ty, syn::Type::Tuple(_)) => quote!(#seed),
            _ => quote!(&#seed),
        };
        let slots: Vec<proc_macro2::Ident> = tracked
            .iter()
            .map(|p| internal(&format!("slot_{}", p.name)))
            .collect();
        let slot_zeros = tracked.iter().zip(&slots).map(|(p, g)| {
            let name = &p.name;
            quote!(let mut #g = ::mica::__private::zeros_like(&#name);)
        });
        let by_rows = quote! {
            let (#outputs, #inputs) = (::mica::__private::flat_len(&#value), 0 #(+ #widths)*);
            if #outputs < #inputs {
                let mut #jac: ::std::vec::Vec<::std::vec::Vec<#float>> = ::std::vec::Vec::with_capacity(#outputs);
                for #i in 0..#outputs {
                    let #seed = ::mica::__private::flat_basis(&#value, #i);
                    #(#slot_zeros)*
                    #backward(#this #(#primal_args,)* #seed_arg, #one #(&mut #slots),*);
                    let mut #row = ::std::vec::Vec::with_capacity(#inputs);
                    #( ::mica::__private::flat_into(&#slots, &mut #row); )*
                    #jac.push(#row);
                }
                return (#value, #jac);
            }
        };
        quote! {
            #(#zeros)*
            let #value = #primal(#this #(#primal_args),*);
            #by_rows
            let mut #jac: ::std::vec::Vec<::std::vec::Vec<#float>> = ::std::vec![
                ::std::vec![<#float as ::mica::__private::Zero>::zero(); 0 #(+ #widths)*];
                ::mica::__private::flat_len(&#value)
            ];
            let mut #col = 0usize;
            #sweeps
            (#value, #jac)
        }
    };
    let doc = format!(
        "The value of [`{ident}`] and its Jacobian: `J[i][j]` is the slope of output `i` to tracked input `j`, outputs and inputs flattened in order (one reverse sweep per output or one forward sweep per input, whichever is fewer)."
    );
    let lints = lints();
    quote! {
        #[doc = #doc]
        #lints
        #vis fn #name #generics (#me #(#inputs),*) -> (#out, ::std::vec::Vec<::std::vec::Vec<#float>>) #where_clause {
            #body
        }
    }
}

/// The name of the directional derivative of function `f`, whose reverse
/// `NAME_hvp` calls: `__mica_hvp_f` (of a hidden function `__mica_f`,
/// `__mica_hvpf_f`: one run of underscores).
pub(crate) fn dir_name(f: &proc_macro2::Ident) -> proc_macro2::Ident {
    let name = f.to_string();
    match name.strip_prefix("__mica_") {
        Some(base) => format_ident!("__mica_hvpf_{}", base),
        None => format_ident!("__mica_hvp_{}", name),
    }
}

/// `NAME_hvp(args…, v…) -> (T, G, G)` and the hidden `#[tape]` function
/// of the directional derivative whose reverse it calls.
pub(crate) fn hvp_fns(
    item: &ItemFn,
    params: &[Param],
    body: TokenStream,
    errors: &mut Errors,
    at: Span,
) -> (TokenStream, Option<ItemFn>) {
    if !is_scalar(item) {
        errors.push(syn::Error::new(at, "`hvp` is the Hessian of a scalar: the function returns `f64`, `f32` or its float parameter; a caller's `hvp` follows a function returning an array or a tuple when that function is a helper of a `#[tape]` module"));
        return (TokenStream::new(), None);
    }
    let ident = &item.sig.ident;
    let dir_name = dir_name(ident);
    let vis = &item.vis;
    let (generics, where_clause) = (&item.sig.generics, &item.sig.generics.where_clause);
    let out = out_type(item);
    let tracked: Vec<&Param> = super::tracked_params(params).collect();
    let inputs = params.iter().map(|p| {
        let (attrs, pat, ty) = (&p.attrs, &p.pat, &p.ty);
        let mark = p.tracked.as_ref().map(|_| quote!(#[tracked]));
        quote!(#mark #(#attrs)* #pat: #ty)
    });
    let dots = tracked.iter().map(|p| {
        let dot = format_ident!("dot_{}", p.name, span = Span::mixed_site());
        let ty = &p.ty;
        quote!(#[tracked] #dot: #ty)
    });
    let (me, this) = receiver(item);
    let dir_tokens = quote! {
        #[doc(hidden)]
        #[allow(dead_code, unused_variables, unused_mut, unused_assignments, unused_parens, clippy::all)]
        #vis fn #dir_name #generics (#me #(#inputs,)* #(#dots),*) -> #out #where_clause {
            #body
        }
    };
    let dir: Option<ItemFn> = match syn::parse2(dir_tokens) {
        Ok(f) => Some(f),
        Err(e) => {
            errors.push(syn::Error::new(
                at,
                format!("`hvp` could not be written for this function: {e}"),
            ));
            return (TokenStream::new(), None);
        }
    };
    let name = format_ident!("{}_hvp", ident);
    let backward = crate::function_form::sibling(item, &format_ident!("{}_backward", dir_name));
    let plain_inputs = params.iter().map(|p| {
        let (attrs, name, ty) = (&p.attrs, &p.name, &p.ty);
        quote!(#(#attrs)* #name: #ty)
    });
    let vs: Vec<proc_macro2::Ident> = tracked
        .iter()
        .map(|p| format_ident!("v_{}", p.name))
        .collect();
    let v_inputs = tracked.iter().zip(&vs).map(|(p, v)| {
        let ty = &p.ty;
        quote!(#v: #ty)
    });
    let grads: Vec<&TokenStream> = tracked
        .iter()
        .map(|p| &p.tracked.as_ref().expect("tracked").1.grad)
        .collect();
    let g_names: Vec<proc_macro2::Ident> = tracked
        .iter()
        .map(|p| internal(&format!("g_{}", p.name)))
        .collect();
    let h_names: Vec<proc_macro2::Ident> = tracked
        .iter()
        .map(|p| internal(&format!("h_{}", p.name)))
        .collect();
    let zeros = tracked
        .iter()
        .zip(g_names.iter().zip(&h_names))
        .map(|(p, (g, h))| {
            let name = &p.name;
            quote! {
                let mut #g = ::mica::__private::zeros_like(&#name);
                let mut #h = ::mica::__private::zeros_like(&#name);
            }
        });
    let (g_ty, g_val, h_val) = if tracked.len() == 1 {
        (
            quote!(#(#grads)*),
            quote!(#(#g_names)*),
            quote!(#(#h_names)*),
        )
    } else {
        (
            quote!((#(#grads),*)),
            quote!((#(#g_names),*)),
            quote!((#(#h_names),*)),
        )
    };
    let primal_args: Vec<TokenStream> = params.iter().map(pass).collect();
    let args = params.iter().map(|p| &p.name);
    let primal = crate::function_form::sibling(item, ident);
    let value = internal("value");
    let doc = format!(
        "The value of [`{ident}`], its gradient, and its Hessian times `v` (one `v_…` per tracked parameter, of its type), by the reverse of its forward mode."
    );
    let lints = lints();
    let hvp = quote! {
        #[doc = #doc]
        #lints
        #[allow(non_snake_case)]
        #vis fn #name #generics (#me #(#plain_inputs,)* #(#v_inputs),*) -> (#out, #g_ty, #g_ty) #where_clause {
            #(#zeros)*
            let #value = #primal(#this #(#primal_args),*);
            #backward(#this #(#args,)* #(#vs,)* <#out as ::mica::__private::One>::one(), #(&mut #h_names,)* #(&mut #g_names),*);
            (#value, #g_val, #h_val)
        }
    };
    (hvp, dir)
}
