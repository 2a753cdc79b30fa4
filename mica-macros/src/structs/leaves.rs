//! A tracked struct's leaves: the fields that hold floats, found through
//! its table and those of the structs it holds (`structs.rs`).

use super::leaf::{member_name, tuple_of, Leaf, Reach, Tracked};
use super::tables::{is_skipped, table};
use crate::errors::Errors;
use crate::knob_derive::struct_of;
use proc_macro2::Ident;
use std::collections::HashMap;
use syn::visit_mut::VisitMut;
use syn::Type;

/// The tracked struct a root names, found in its table, or a tuple of
/// knobs (`(f64, [f64; 3])`, `&(Mlp, f64)`).
pub fn tracked_struct(
    root: Ident,
    plain: Ident,
    ty: &Type,
    generic: &[String],
    errors: &mut Errors,
) -> Option<Tracked> {
    let mut into = Tracked {
        root,
        plain,
        leaves: Vec::new(),
        by_value: false,
        paths: HashMap::new(),
        tuple: false,
        types: HashMap::new(),
    };
    if let Some(tuple) = tuple_of(ty) {
        into.tuple = true;
        into.paths.insert(Vec::new(), Reach::Struct);
        for (k, elem) in tuple.elems.iter().enumerate() {
            let member = syn::Member::Unnamed(syn::Index::from(k));
            element(
                member,
                elem.clone(),
                generic,
                &[],
                &[],
                &mut into,
                errors,
                elem,
            );
        }
        return Some(into);
    }
    let p = struct_of(ty, generic)?;
    let name = p.path.segments.last().map(|s| s.ident.to_string())?;
    table(&name)?;
    flatten(p, generic, &[], &[], &mut into, errors);
    Some(into)
}

/// Replaces a struct's type and const parameters by the arguments its use
/// gives (`Layer<f64, 4>`).
struct Subst(HashMap<String, Type>, HashMap<String, syn::Expr>);

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
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        if let syn::Expr::Path(p) = e {
            if let Some(v) = p.path.get_ident().and_then(|i| self.1.get(&i.to_string())) {
                *e = v.clone();
                return;
            }
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }
}

/// One field (or tuple element) `member` of type `ty` under `prefix`: a
/// leaf, a struct flattened, or the structs of a container.
#[allow(clippy::too_many_arguments)]
fn element(
    member: syn::Member,
    mut ty: Type,
    floats: &[String],
    prefix: &[syn::Member],
    each: &[usize],
    into: &mut Tracked,
    errors: &mut Errors,
    written: &Type,
) {
    let mut path = prefix.to_vec();
    path.push(member);
    let key: Vec<String> = path.iter().map(member_name).collect();
    match floats_inside(&ty, floats) {
        Inside::Floats => {
            // gathered: a `Vec` of the field, one per element
            for _ in each {
                ty = syn::parse_quote!(::std::vec::Vec<#ty>);
            }
            into.paths.insert(key, Reach::Leaf(into.leaves.len()));
            into.leaves.push(Leaf {
                path,
                each: each.to_vec(),
                ty,
            });
        }
        Inside::Struct(p) => flatten(&p, floats, &path, each, into, errors),
        Inside::Each(p) => {
            into.paths.insert(key, Reach::Each);
            let mut each = each.to_vec();
            each.push(path.len());
            flatten(&p, floats, &path, &each, into, errors);
        }
        Inside::Structs => {
            into.paths.insert(key, Reach::Unknown);
            errors.at(
                written,
                "a tracked struct's field holds structs in nested arrays or `Vec`s, which is not supported yet; hold them in one `Vec` or array (`Vec<Layer>`), or their floats in arrays of floats",
            );
        }
    }
}

fn flatten(
    at: &syn::TypePath,
    floats: &[String],
    prefix: &[syn::Member],
    each: &[usize],
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
    let key: Vec<String> = prefix.iter().map(member_name).collect();
    into.types.insert(key.clone(), at.clone());
    into.paths.entry(key).or_insert(Reach::Struct);
    // the struct's type parameters, as this use fills them
    let mut subst = Subst(HashMap::new(), HashMap::new());
    if let Some(syn::PathArguments::AngleBracketed(a)) =
        at.path.segments.last().map(|s| &s.arguments)
    {
        // lifetimes aside, arguments in the parameters' order
        let params = table
            .generics
            .params
            .iter()
            .filter(|p| !matches!(p, syn::GenericParam::Lifetime(_)));
        let given = a
            .args
            .iter()
            .filter(|g| !matches!(g, syn::GenericArgument::Lifetime(_)));
        for (param, arg) in params.zip(given) {
            match (param, arg) {
                (syn::GenericParam::Type(p), syn::GenericArgument::Type(t)) => {
                    subst.0.insert(p.ident.to_string(), t.clone());
                }
                // `Layer<4, N>`: a constant, or a name read as a type
                (syn::GenericParam::Const(p), syn::GenericArgument::Const(e)) => {
                    subst.1.insert(p.ident.to_string(), e.clone());
                }
                (syn::GenericParam::Const(p), syn::GenericArgument::Type(t)) => {
                    subst.1.insert(p.ident.to_string(), syn::parse_quote!(#t));
                }
                _ => {}
            }
        }
    }
    for field in &table.fields {
        let Some(ident) = &field.ident else { continue };
        let member = syn::Member::Named(ident.clone());
        if is_skipped(field) {
            let mut key: Vec<String> = prefix.iter().map(member_name).collect();
            key.push(ident.to_string());
            into.paths.insert(key, Reach::Skipped);
            continue;
        }
        let mut ty = field.ty.clone();
        subst.visit_type_mut(&mut ty);
        element(member, ty, floats, prefix, each, into, errors, &field.ty);
    }
}

enum Inside {
    Floats,
    Struct(syn::TypePath),
    /// a `Vec` or an array of one struct
    Each(syn::TypePath),
    /// structs in nested containers
    Structs,
}

/// One container of structs, or structs deeper.
fn each(inner: Inside) -> Inside {
    match inner {
        Inside::Floats => Inside::Floats,
        Inside::Struct(p) => Inside::Each(p),
        _ => Inside::Structs,
    }
}

/// What a knob field's type holds: floats (a float, arrays and `Vec`s of
/// them), one struct, a `Vec` or an array of structs, or structs deeper.
fn floats_inside(ty: &Type, floats: &[String]) -> Inside {
    match ty {
        Type::Array(a) => each(floats_inside(&a.elem, floats)),
        Type::Paren(p) => floats_inside(&p.elem, floats),
        Type::Group(g) => floats_inside(&g.elem, floats),
        Type::Path(p) => {
            let last = p.path.segments.last();
            if let Some(s) = last.filter(|s| s.ident == "Vec") {
                if let syn::PathArguments::AngleBracketed(a) = &s.arguments {
                    if let Some(syn::GenericArgument::Type(t)) = a.args.first() {
                        return each(floats_inside(t, floats));
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

/// The names of the type parameters in scope: the function's and the
/// enclosing `impl`'s (`outer`).
pub fn generic_names(sig: &syn::Signature, outer: &[String]) -> Vec<String> {
    let mut generic: Vec<String> = sig
        .generics
        .type_params()
        .map(|p| p.ident.to_string())
        .collect();
    generic.extend(outer.iter().cloned());
    generic
}
