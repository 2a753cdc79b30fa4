//! `#[derive(Knob)]`: a struct whose fields are knobs is a knob.
//!
//! ```text
//! #[derive(Clone, mica::Knob)]
//! struct Mlp { w: [[f64; 4]; 8], b: Vec<f64>, #[knob(skip)] name: String }
//! ```
//!
//! writes three things beside the struct:
//!
//! - `impl Knob for Mlp` with `Grad = Mlp`: a zero gradient shaped like a
//!   value (skipped fields cloned from it) and `add_scaled`;
//! - `impl AddScaled<Mlp> for Mlp`, field by field;
//! - the struct's field table, for `#[tape]`: a macro in the macro
//!   namespace under the struct's own name, so wherever `Mlp` is in scope
//!   (`use models::Mlp;` brings both), `Mlp! { … }` hands the table to
//!   `#[tape]`'s second pass (`structs.rs`). A proc macro cannot see a type
//!   defined elsewhere; the struct's derive can, and passes it on.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::spanned::Spanned;
use syn::{Fields, ItemStruct, Type};

/// Scalars without a slope: never tracked, and copied as a struct's
/// fields.
pub const INTEGERS: &[&str] = &[
    "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64", "u128", "usize", "bool",
    "char",
];

/// Other field types that hold no float: copied, like a `#[knob(skip)]`
/// field. A type that may hold floats (`Option`, `Box`, a tuple, a
/// `HashMap`) is not copied silently: it is a knob or marked `#[knob(skip)]`.
const NO_FLOATS: &[&str] = &["String", "str", "PhantomData"];

/// Containers a tracked parameter's type may name that are no struct of
/// knobs (their errors are the function form's, not a missing table's).
const CONTAINERS: &[&str] = &["Option", "Box", "Rc", "Arc", "HashMap", "BTreeMap"];

/// Whether a field's type holds no float to differentiate: one of
/// [`INTEGERS`] or [`NO_FLOATS`], a reference or a function pointer.
pub fn never_a_knob(ty: &Type) -> bool {
    match ty {
        Type::Reference(_) | Type::Ptr(_) | Type::BareFn(_) => true,
        Type::Path(p) => p.path.segments.last().is_some_and(|s| {
            let name = s.ident.to_string();
            INTEGERS.contains(&name.as_str()) || NO_FLOATS.contains(&name.as_str())
        }),
        Type::Paren(p) => never_a_knob(&p.elem),
        Type::Group(g) => never_a_knob(&g.elem),
        _ => false,
    }
}

/// Names that are floats even when written as a path: type aliases users
/// give a float.
pub(crate) const FLOAT_ALIASES: &[&str] =
    &["f32", "f64", "Real", "Float", "Scalar", "Num", "Fp", "Flt"];

/// The struct a tracked parameter's type names (`&Mlp`, `Mlp`,
/// `&models::Mlp<f64>`), or `None` for a float, an array, a slice, a `Vec`
/// or a type parameter (`generic`: the names of the type parameters in
/// scope).
pub fn struct_of<'t>(ty: &'t Type, generic: &[String]) -> Option<&'t syn::TypePath> {
    let ty = match ty {
        Type::Reference(r) if r.mutability.is_none() => &*r.elem,
        Type::Reference(_) => return None,
        other => other,
    };
    let Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    let name = last.ident.to_string();
    let single_letter = name.len() == 1;
    if p.qself.is_some()
        || name == "Vec"
        || name == "Self"
        || single_letter
        || FLOAT_ALIASES.contains(&name.as_str())
        || generic.contains(&name)
        || CONTAINERS.contains(&name.as_str())
        || never_a_knob(ty)
    {
        return None;
    }
    Some(p)
}

/// Whether a field carries `#[knob(skip)]`; any other `#[knob(…)]` is an
/// error.
fn skipped(field: &syn::Field, errors: &mut Vec<syn::Error>) -> bool {
    let mut skip = false;
    for attr in field.attrs.iter().filter(|a| a.path().is_ident("knob")) {
        let parsed = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("skip") {
                skip = true;
                Ok(())
            } else {
                Err(meta.error(
                    "unknown `#[knob]` argument; `#[knob(skip)]` copies a field instead of differentiating it",
                ))
            }
        });
        if let Err(e) = parsed {
            errors.push(e);
        }
    }
    skip
}

pub fn derive(input: TokenStream) -> TokenStream {
    let item: ItemStruct = match syn::parse2(input.clone()) {
        Ok(item) => item,
        Err(_) => {
            let at = input.into_iter().next();
            return syn::Error::new_spanned(
                quote!(#at),
                "`#[derive(mica::Knob)]` goes on a struct with named fields",
            )
            .to_compile_error();
        }
    };
    let Fields::Named(named) = &item.fields else {
        return syn::Error::new_spanned(
            &item.ident,
            "`#[derive(mica::Knob)]` goes on a struct with named fields: a knob's gradient is read by its fields' names",
        )
        .to_compile_error();
    };
    let mut errors = Vec::new();
    let name = &item.ident;
    let (impl_generics, ty_generics, where_clause) = item.generics.split_for_impl();
    let written: Vec<TokenStream> = where_clause
        .map(|w| w.predicates.iter().map(|p| quote!(#p)).collect())
        .unwrap_or_default();
    let (mut knob_bounds, mut step_bounds) = (written.clone(), written);
    let generic: Vec<String> = item
        .generics
        .type_params()
        .map(|p| p.ident.to_string())
        .collect();
    let (mut zeros, mut steps, mut table) = (Vec::new(), Vec::new(), Vec::new());
    // the knob fields, for `Flat` (what `_jacobian` numbers by)
    let mut flat: Vec<(&syn::Ident, &Type, bool)> = Vec::new();
    for field in &named.named {
        let Some(ident) = &field.ident else { continue };
        let ty = &field.ty;
        let span = ty.span();
        if skipped(field, &mut errors) || never_a_knob(ty) {
            zeros.push(quote_spanned!(span=> #ident: ::core::clone::Clone::clone(&self.#ident)));
            table.push(quote!(#[skip] #ident: #ty));
            continue;
        }
        // a field of the struct's type parameters is bounded where the
        // impl is; one of a concrete type is checked where it is used, at
        // its type, in Mica's words
        if mentions(ty, &generic) {
            knob_bounds.push(quote_spanned!(span=> #ty: ::mica::Knob<Grad = #ty>));
            step_bounds.push(quote_spanned!(span=> #ty: ::mica::__private::AddScaled<#ty>));
        }
        flat.push((ident, ty, mentions(ty, &generic)));
        zeros.push(
            quote_spanned!(span=> #ident: ::mica::__private::zeros_field::<#ty>(&self.#ident)),
        );
        steps.push(quote_spanned!(span=>
            ::mica::__private::step_field::<#ty>(&mut self.#ident, &g.#ident, factor);
        ));
        table.push(quote!(#ident: #ty));
    }
    let errors = errors.iter().map(syn::Error::to_compile_error);
    let generics = &item.generics;
    let params = &generics.params;
    let table_where = &generics.where_clause;
    let callback = format_ident!("__mica_knob_{}", name);
    let flat = flat_impl(&item, &flat, &generic);
    quote! {
        #flat
        #(#errors)*
        impl #impl_generics ::mica::Knob for #name #ty_generics where #(#knob_bounds,)* {
            type Grad = Self;
            fn zeros_like(&self) -> Self {
                #name { #(#zeros,)* }
            }
        }
        impl #impl_generics ::mica::__private::AddScaled<#name #ty_generics> for #name #ty_generics
        where #(#step_bounds,)* {
            #[allow(unused_variables)]
            fn add_scaled_by(&mut self, g: &Self, factor: f64) {
                #(#steps)*
            }
        }
        #[doc(hidden)]
        #[allow(unused_macros)]
        macro_rules! #callback {
            ($($t:tt)*) => {
                ::mica::__private::tape_with! {
                    [struct #name <#params> #table_where { #(#table,)* }] $($t)*
                }
            };
        }
        #[doc(hidden)]
        #[allow(unused_imports)]
        pub(crate) use #callback as #name;
    }
}

/// Whether a type names one of `generic`.
/// `impl Flat`: the struct's floats in field order, each field's in its
/// own (a `Vec` of structs element by element), of the float type its
/// fields name (`f32`, `f64` or a type parameter; a struct whose fields
/// name none gets no `Flat`). Each field's `Flat` is asked of a reference
/// to it, under a lifetime of its own: a bound the compiler checks where
/// `_jacobian` uses it, not here, so a field of a type that is no knob has
/// one error, the `Knob` impl's.
fn flat_impl(
    item: &ItemStruct,
    fields: &[(&syn::Ident, &Type, bool)],
    generic: &[String],
) -> TokenStream {
    let Some(float) = fields
        .iter()
        .find_map(|(_, ty, _)| float_named(ty, generic))
    else {
        return TokenStream::new();
    };
    let name = &item.ident;
    let (impl_generics, ty_generics, where_clause) = item.generics.split_for_impl();
    let flat = quote!(::mica::__private::Flat);
    let flat_mut = quote!(::mica::__private::FlatMut);
    let mut bounds: Vec<TokenStream> = where_clause
        .map(|w| w.predicates.iter().map(|p| quote!(#p)).collect())
        .unwrap_or_default();
    if generic.contains(&float.to_string()) {
        bounds.push(quote!(#float: ::mica::Real));
    }
    for (_, ty, _) in fields {
        bounds.push(quote!(for<'__mica> &'__mica #ty: #flat<F = #float>));
        bounds.push(quote!(for<'__mica> &'__mica mut #ty: #flat_mut<F = #float>));
    }
    let idents: Vec<&syn::Ident> = fields.iter().map(|(i, _, _)| *i).collect();
    quote! {
        impl #impl_generics #flat for #name #ty_generics where #(#bounds,)* {
            type F = #float;
            fn flat_len(&self) -> usize {
                0 #(+ #flat::flat_len(&&self.#idents))*
            }
            fn flat_push(&self, out: &mut ::std::vec::Vec<#float>) {
                #(#flat::flat_push(&&self.#idents, out);)*
            }
            #[allow(unused_assignments)]
            fn flat_set(&mut self, mut k: usize, v: #float) {
                #(
                    let n = #flat::flat_len(&&self.#idents);
                    if k < n {
                        return #flat_mut::flat_set_in(&mut self.#idents, k, v);
                    }
                    k -= n;
                )*
            }
        }
    }
}

/// The float a field's type names: `f32`, `f64` or one of the struct's
/// type parameters.
fn float_named(ty: &Type, generic: &[String]) -> Option<TokenStream> {
    fn walk(tokens: TokenStream, generic: &[String]) -> Option<TokenStream> {
        for t in tokens {
            match t {
                proc_macro2::TokenTree::Ident(i)
                    if i == "f32" || i == "f64" || generic.contains(&i.to_string()) =>
                {
                    return Some(quote!(#i));
                }
                proc_macro2::TokenTree::Group(g) => {
                    if let Some(found) = walk(g.stream(), generic) {
                        return Some(found);
                    }
                }
                _ => {}
            }
        }
        None
    }
    walk(ty.to_token_stream(), generic)
}

fn mentions(ty: &Type, generic: &[String]) -> bool {
    ty.to_token_stream()
        .into_iter()
        .any(|t| mentions_in(t, generic))
}

fn mentions_in(t: proc_macro2::TokenTree, generic: &[String]) -> bool {
    match t {
        proc_macro2::TokenTree::Ident(i) => generic.contains(&i.to_string()),
        proc_macro2::TokenTree::Group(g) => g.stream().into_iter().any(|t| mentions_in(t, generic)),
        _ => false,
    }
}
