//! Array, tuple and `Vec` outputs (a vector-Jacobian product).
//!
//! `_backward` of a function with such an output takes `seed` of the
//! output's type (by reference for an array or a `Vec`) and adds seedᵀ·J
//! into the slots. It is the reverse of a hidden scalar twin, the same
//! body with each value it returns written as its dot product with the
//! seed:
//!
//! ```text
//! fn step(#[tracked] s: &[f64; 2], dt: f64) -> [f64; 2] { … [a, b] }
//! fn __mica_seeded_step(#[tracked] s: &[f64; 2], dt: f64, seed: &[f64; 2]) -> f64 {
//!     … { let o = [a, b]; let mut d = 0.0; for i in 0..o.len() { d += seed[i] * o[i]; } d }
//! }
//! fn step_backward(s: &[f64; 2], dt: f64, seed: &[f64; 2], d_s: &mut [f64; 2]) -> [f64; 2] {
//!     let value = step(s, dt);
//!     __mica_seeded_step_backward(s, dt, seed, 1.0, d_s);
//!     value
//! }
//! ```
//!
//! `_grad` is written for scalar outputs only.

use crate::errors::Errors;
use crate::names::internal;
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::visit_mut::VisitMut;
use syn::{Expr, ItemFn, Type};

/// Whether a return type is an array, a tuple or a `Vec`.
pub fn is_vector(item: &ItemFn) -> bool {
    match &item.sig.output {
        syn::ReturnType::Type(_, ty) => vector(ty),
        syn::ReturnType::Default => false,
    }
}

fn vector(ty: &Type) -> bool {
    match ty {
        Type::Array(_) | Type::Tuple(_) => true,
        Type::Path(p) => p.path.segments.last().is_some_and(|s| s.ident == "Vec"),
        Type::Group(g) => vector(&g.elem),
        Type::Paren(p) => vector(&p.elem),
        _ => false,
    }
}

/// The seed's type: a reference to an array or a `Vec`, a tuple by value.
fn seed_type(ty: &Type) -> TokenStream {
    match ty {
        Type::Tuple(_) => quote!(#ty),
        Type::Group(g) => seed_type(&g.elem),
        _ => quote!(&#ty),
    }
}

/// The float the output is made of.
fn float_of(ty: &Type) -> TokenStream {
    match ty {
        Type::Array(a) => float_of(&a.elem),
        Type::Slice(s) => float_of(&s.elem),
        Type::Tuple(t) => t.elems.first().map_or(quote!(f64), float_of),
        Type::Group(g) => float_of(&g.elem),
        Type::Paren(p) => float_of(&p.elem),
        Type::Path(p) => match p.path.segments.last() {
            Some(s) if s.ident == "Vec" => match &s.arguments {
                syn::PathArguments::AngleBracketed(a) => match a.args.first() {
                    Some(syn::GenericArgument::Type(t)) => float_of(t),
                    _ => quote!(f64),
                },
                _ => quote!(f64),
            },
            _ => quote!(#ty),
        },
        _ => quote!(#ty),
    }
}

/// `seed · o` for an output of type `ty`, as recorded-vocabulary code.
fn dot(
    ty: &Type,
    seed: TokenStream,
    o: TokenStream,
    zero: &TokenStream,
    depth: usize,
) -> TokenStream {
    match ty {
        Type::Group(g) => dot(&g.elem, seed, o, zero, depth),
        Type::Paren(p) => dot(&p.elem, seed, o, zero, depth),
        Type::Tuple(t) => {
            let parts: Vec<proc_macro2::Ident> = (0..t.elems.len())
                .map(|k| internal(&format!("__mica_seeded{depth}_part{k}")))
                .collect();
            let terms = t.elems.iter().enumerate().map(|(k, e)| {
                let index = syn::Index::from(k);
                let part = &parts[k];
                dot(e, quote!(#seed.#index), quote!(#part), zero, depth + 1)
            });
            quote!({ let (#(#parts,)*): #ty = #o; #zero #(+ #terms)* })
        }
        Type::Array(_) | Type::Path(_) if vector(ty) => {
            let elem = match ty {
                Type::Array(a) => (*a.elem).clone(),
                Type::Path(p) => match &p.path.segments.last().expect("a Vec").arguments {
                    syn::PathArguments::AngleBracketed(a) => match a.args.first() {
                        Some(syn::GenericArgument::Type(t)) => t.clone(),
                        _ => syn::parse_quote!(f64),
                    },
                    _ => syn::parse_quote!(f64),
                },
                _ => syn::parse_quote!(f64),
            };
            let (acc, i, whole) = (
                internal(&format!("__mica_seeded{depth}_dot")),
                internal(&format!("__mica_seeded{depth}_i")),
                internal(&format!("__mica_seeded{depth}_out")),
            );
            // a name (`out`) is read where it stands: bound again, it would
            // be an array of its own to the reverse, its adjoints moved
            // from one buffer to another
            let named = syn::parse2::<syn::Ident>(o.clone()).ok();
            let at = named
                .as_ref()
                .map_or_else(|| quote!(#whole), |n| quote!(#n));
            let inner = dot(&elem, quote!(#seed[#i]), quote!(#at[#i]), zero, depth + 1);
            if named.is_some() {
                return quote!({
                    let mut #acc = #zero;
                    for #i in 0..#at.len() {
                        #acc += #inner;
                    }
                    #acc
                });
            }
            // typed: a tail like `….collect()` is inferred from it
            quote!({
                let #whole: #ty = #o;
                let mut #acc = #zero;
                for #i in 0..#whole.len() {
                    #acc += #inner;
                }
                #acc
            })
        }
        _ => quote!((#seed * #o)),
    }
}

/// Rewrites `return e` (outside closures) to return `seed · e`.
struct Returns<'a> {
    ty: &'a Type,
    seed: TokenStream,
    zero: TokenStream,
}

impl VisitMut for Returns<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if let Expr::Return(r) = e {
            if let Some(value) = &mut r.expr {
                self.visit_expr_mut(value);
                let d = dot(self.ty, self.seed.clone(), quote!(#value), &self.zero, 0);
                **value = syn::parse_quote!(#d);
            }
            return;
        }
        if matches!(e, Expr::Closure(_)) {
            return;
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// The scalar twin (to expand as a `#[tape]` function) and `NAME_backward`
/// calling its reverse.
pub fn seeded(item: &ItemFn, errors: &mut Errors) -> Option<(ItemFn, TokenStream)> {
    let syn::ReturnType::Type(_, out) = &item.sig.output else {
        return None;
    };
    let float = float_of(out);
    let zero = quote!(<#float as ::mica::__private::Zero>::zero());
    let seed = format_ident!("__mica_seed", span = Span::mixed_site());
    let seed_ty = seed_type(out);
    let mut twin = item.clone();
    twin.sig.ident = crate::names::seeded_twin(&item.sig.ident);
    twin.sig.output = syn::parse_quote!(-> #float);
    twin.sig.inputs.push(syn::parse_quote!(#seed: #seed_ty));
    twin.attrs.retain(|a| !a.path().is_ident("doc"));
    twin.attrs.push(syn::parse_quote!(#[doc(hidden)]));
    twin.attrs
        .push(syn::parse_quote!(#[allow(clippy::all, unused_parens)]));
    let mut returns = Returns {
        ty: out,
        seed: quote!(#seed),
        zero: zero.clone(),
    };
    returns.visit_block_mut(&mut twin.block);
    match twin.block.stmts.pop() {
        Some(syn::Stmt::Expr(tail, None)) => {
            let d = dot(out, quote!(#seed), quote!(#tail), &zero, 0);
            twin.block
                .stmts
                .push(syn::Stmt::Expr(syn::parse_quote!(#d), None));
        }
        other => {
            twin.block.stmts.extend(other);
        }
    }
    // `NAME_backward`: the value, and the twin's reverse with seed one
    let mut sig = item.sig.clone();
    // a method's tracked `self` (of a struct of knobs) has its slot first
    let d_self = format_ident!("d_self", span = Span::mixed_site());
    let mut first = None;
    if let Some(syn::FnArg::Receiver(r)) = sig.inputs.first_mut() {
        if r.attrs.iter().any(crate::parse::is_tracked) {
            first = Some(quote!(#d_self: &mut Self));
        }
        r.attrs.retain(|a| !crate::parse::is_tracked(a));
    }
    let params = crate::parse::params(&mut sig, errors);
    let ret = crate::function_form::Ret {
        full: quote!(#out),
        value: seed_ty,
        wrapped: None,
    };
    let this = match item.sig.receiver() {
        Some(r) => {
            let this = r.self_token;
            quote!(#this,)
        }
        None => TokenStream::new(),
    };
    let self_slot = first.as_ref().map(|_| quote!(#d_self,));
    let signature = crate::function_form::backward_signature(item, &params, &ret, false, first);
    let args: Vec<&proc_macro2::Ident> = params.iter().map(|p| &p.name).collect();
    let passed = params.iter().map(|p| {
        let name = &p.name;
        match &p.ty {
            Type::Reference(_) => quote!(#name),
            _ => quote!(::core::clone::Clone::clone(&#name)),
        }
    });
    let slots = params
        .iter()
        .filter(|p| p.tracked.is_some())
        .map(|p| format_ident!("d_{}", p.name, span = Span::mixed_site()));
    let name = crate::function_form::sibling(item, &item.sig.ident);
    let twin_backward = crate::function_form::sibling(
        item,
        &format_ident!("{}_backward", crate::names::seeded_twin(&item.sig.ident)),
    );
    let (value, seed_arg) = (internal("value"), internal("seed"));
    let backward = quote! {
        #[allow(clippy::too_many_arguments)]
        #signature {
            let #value = #name(#this #(#passed),*);
            #twin_backward(#this #(#args,)* #seed_arg, <#float as ::mica::__private::One>::one(), #self_slot #(#slots),*);
            #value
        }
    };
    Some((twin, backward))
}
