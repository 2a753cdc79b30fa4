//! One function for every float type (SPEC 3.5): a `#[tape]` function
//! generic over its float, `fn f<T: mica::Real>(…)` or, as most generic
//! numeric Rust is written, `fn f<T: num_traits::Float>(…)`.
//!
//! The primal keeps the bounds the user wrote. Its companions need more of
//! the float than `Float` says (`+=` on slopes, a zero gradient of the
//! knob's shape, the constants the rules use); all of that is
//! `mica::Real`, so each companion's `where` clause gains `T: ::mica::Real`
//! for every type parameter with a float bound (serde's way with the bounds
//! a derive needs). A type parameter that a tracked parameter's type
//! mentions but that has no float bound at all is an error at the
//! parameter, in Mica's words.

use crate::errors::Errors;
use quote::ToTokens;
use std::collections::HashSet;
use syn::{Generics, Ident, TypeParamBound, WherePredicate};

/// The last segments of the bounds that say "this is a float".
const FLOAT_BOUNDS: [&str; 3] = ["Real", "Float", "FloatCore"];

/// Whether a bound names a float trait (`mica::Real`, `num_traits::Float`,
/// `Float`, …).
fn is_float_bound(bound: &TypeParamBound) -> bool {
    match bound {
        TypeParamBound::Trait(t) => t
            .path
            .segments
            .last()
            .is_some_and(|s| FLOAT_BOUNDS.contains(&s.ident.to_string().as_str())),
        _ => false,
    }
}

/// The type parameters of `generics` with a float bound, in the parameter
/// list or in the `where` clause.
pub fn float_params(generics: &Generics) -> Vec<Ident> {
    let mut floats: Vec<Ident> = Vec::new();
    for p in generics.type_params() {
        if p.bounds.iter().any(is_float_bound) {
            floats.push(p.ident.clone());
        }
    }
    if let Some(w) = &generics.where_clause {
        for predicate in &w.predicates {
            let WherePredicate::Type(t) = predicate else {
                continue;
            };
            let syn::Type::Path(ty) = &t.bounded_ty else {
                continue;
            };
            let Some(ident) = ty.path.get_ident() else {
                continue;
            };
            if t.bounds.iter().any(is_float_bound) && !floats.contains(ident) {
                floats.push(ident.clone());
            }
        }
    }
    floats
}

/// `generics` with `::mica::Real` added to the bounds of each of
/// `floats`: where the parameter's bounds are written (in the list, or in
/// the `where` clause when only there), so no parameter has bounds in two
/// places; a parameter of an enclosing `impl` gets a `where` clause.
pub fn with_real(generics: &Generics, floats: &[Ident]) -> Generics {
    let mut generics = generics.clone();
    for t in floats {
        let in_where = generics.where_clause.as_mut().and_then(|w| {
            w.predicates.iter_mut().find_map(|p| match p {
                WherePredicate::Type(pt) => match &pt.bounded_ty {
                    syn::Type::Path(ty) if ty.path.is_ident(t) => Some(pt),
                    _ => None,
                },
                _ => None,
            })
        });
        if let Some(predicate) = in_where {
            predicate.bounds.push(syn::parse_quote!(::mica::Real));
            continue;
        }
        if let Some(param) = generics.type_params_mut().find(|p| p.ident == *t) {
            param.bounds.push(syn::parse_quote!(::mica::Real));
            continue;
        }
        generics
            .make_where_clause()
            .predicates
            .push(syn::parse_quote!(#t: ::mica::Real));
    }
    generics
}

/// Each type parameter of `generics` and whether it has a float bound.
pub fn params(generics: &Generics) -> Vec<(Ident, bool)> {
    let floats = float_params(generics);
    generics
        .type_params()
        .map(|p| (p.ident.clone(), floats.contains(&p.ident)))
        .collect()
}

/// The float type parameters of `generics` and those of `outer` (an
/// enclosing `impl`'s, from [`params`]).
pub fn floats_with(generics: &Generics, outer: &[(Ident, bool)]) -> Vec<Ident> {
    let mut floats = float_params(generics);
    floats.extend(outer.iter().filter(|(_, f)| *f).map(|(t, _)| t.clone()));
    floats
}

/// The zero of a float type parameter, where a literal `0.0` would be
/// written for `f64`.
pub fn zero(t: &impl ToTokens) -> syn::Expr {
    syn::parse_quote!(<#t as ::mica::__private::Zero>::zero())
}

/// For `#[tape]` on a method of an `impl` the macro does not see
/// (`impl<T: Float> Quad<T> { #[tape] fn energy(&self, #[tracked] x: &[T;
/// 2]) -> T }`): the names in its tracked parameters' and its return's
/// types that are not its own type parameters and read as a float type
/// parameter (`T`, `F`, `Real`, `Scalar`, …), taken as the `impl`'s float
/// parameters, so its companions bound them by `mica::Real`.
pub fn impl_floats(item: &syn::ItemFn) -> Vec<(Ident, bool)> {
    let own: HashSet<String> = item
        .sig
        .generics
        .type_params()
        .map(|p| p.ident.to_string())
        .collect();
    let mut types: Vec<&syn::Type> = item
        .sig
        .inputs
        .iter()
        .filter_map(|input| match input {
            syn::FnArg::Typed(t) if t.attrs.iter().any(crate::parse::is_tracked) => Some(&*t.ty),
            _ => None,
        })
        .collect();
    if let syn::ReturnType::Type(_, ty) = &item.sig.output {
        types.push(ty);
    }
    let mut found: Vec<(Ident, bool)> = Vec::new();
    for ty in types {
        let mut names = HashSet::new();
        crate::names::idents_in(ty.to_token_stream(), &mut names);
        let mut names: Vec<String> = names.into_iter().collect();
        names.sort();
        for name in names {
            let upper = name.chars().next().is_some_and(char::is_uppercase);
            let float_like = upper
                && (name.len() == 1 || crate::knob_derive::FLOAT_ALIASES.contains(&name.as_str()));
            if float_like && !own.contains(&name) && !found.iter().any(|(f, _)| *f == name) {
                found.push((Ident::new(&name, proc_macro2::Span::call_site()), true));
            }
        }
    }
    found
}

/// Checks that every type parameter a tracked parameter's type mentions has
/// a float bound; `outer` are the type parameters of an enclosing `impl`
/// and whether each has one (bounds there count too). Returns those
/// reported: the companions bound them by `mica::Real` all the same, so
/// Mica's error is the only one.
pub fn check_tracked(
    generics: &Generics,
    outer: &[(Ident, bool)],
    tracked: &[&syn::Type],
    errors: &mut Errors,
) -> Vec<Ident> {
    let mut params = params(generics);
    params.extend(outer.iter().cloned());
    let mut reported = HashSet::new();
    let mut unbounded = Vec::new();
    for ty in tracked {
        let mut names = HashSet::new();
        crate::names::idents_in(ty.to_token_stream(), &mut names);
        for (param, float) in &params {
            if !float && names.contains(&param.to_string()) && reported.insert(param.to_string()) {
                unbounded.push(param.clone());
                errors.push(syn::Error::new_spanned(
                    ty,
                    format!(
                        "a knob of type parameter `{param}` needs a float bound: write `{param}: mica::Real` (or `{param}: num_traits::Float`)"
                    ),
                ));
            }
        }
    }
    unbounded
}

/// The function as its companions are written: with `T: ::mica::Real` for
/// each float type parameter, its own or (`outer`) its `impl`'s, and for
/// each a tracked parameter needs but has no float bound (reported).
pub fn companion(
    item: &syn::ItemFn,
    outer: &[(Ident, bool)],
    tracked: &[&syn::Type],
    errors: &mut Errors,
) -> syn::ItemFn {
    let unbounded = check_tracked(&item.sig.generics, outer, tracked, errors);
    let mut floats = floats_with(&item.sig.generics, outer);
    floats.extend(unbounded);
    let mut companion = item.clone();
    companion.sig.generics = with_real(&item.sig.generics, &floats);
    companion
}

/// `let _ = name;` (`name::<T, N>` for a generic function, named at the
/// companion's own parameters): a primal used only through its gradient
/// is used.
pub fn named_at_parameters(
    item: &syn::ItemFn,
    name: proc_macro2::TokenStream,
) -> proc_macro2::TokenStream {
    use quote::quote;
    let params: Vec<&Ident> = item
        .sig
        .generics
        .params
        .iter()
        .filter_map(|p| match p {
            syn::GenericParam::Type(t) => Some(&t.ident),
            syn::GenericParam::Const(c) => Some(&c.ident),
            syn::GenericParam::Lifetime(_) => None,
        })
        .collect();
    // (no turbofish where an argument is `impl Trait`)
    let apit = item.sig.inputs.iter().any(|i| {
        i.to_token_stream()
            .into_iter()
            .any(|t| t.to_string() == "impl")
    });
    if params.is_empty() {
        quote!(let _ = #name;)
    } else if apit {
        proc_macro2::TokenStream::new()
    } else {
        quote!(let _ = #name::<#(#params),*>;)
    }
}
