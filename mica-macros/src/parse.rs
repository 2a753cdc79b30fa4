//! Reading a `#[tape]` item: its arguments, its parameters and their marks.

use crate::errors::Errors;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, ToTokens};
use syn::{Attribute, FnArg, Pat, Signature, Type};

/// `#[tape]`, `#[tape(custom)]` or `#[tape(plain)]`.
#[derive(Default)]
pub struct Args {
    /// the user writes `NAME_backward` by hand; the body is not differentiated
    pub custom: bool,
    /// the plain adjoint: every shortcut off, every value the reverse needs
    /// kept (where the `plain` token was written, for errors about it)
    pub plain: Option<proc_macro2::Span>,
    /// set by the block form for an associated function of an `impl`,
    /// which has no room for the call adapter's type
    pub in_impl: bool,
    /// set by the block form for the functions of a generic `impl`: its
    /// type parameters with a float bound (`impl<T: Float> Model<T>`), and
    /// those without one
    pub outer: Vec<(proc_macro2::Ident, bool)>,
    /// set for the fields function of a free function tracking a struct
    /// (`structs.rs`): the function's name and visibility, whose hidden
    /// type then holds this one's call adapter and a forwarder to it
    /// (`loss::with_tracked_struct`), so a caller passing the struct whole reaches
    /// them wherever it reaches `loss`
    pub host: Option<(proc_macro2::Ident, syn::Visibility)>,
    /// `#[tape(tangent, jacobian, hvp)]`: the higher-order companions
    pub higher: Flags,
    /// set for the directional derivative `hvp` writes (`tangent.rs`):
    /// its calls `f::hvp(…)` are differentiated through `f::hvp_adjoint`
    pub directional: bool,
}

/// Which higher-order companions a `#[tape]` function asks for.
#[derive(Default, Clone)]
pub struct Flags {
    pub tangent: Option<proc_macro2::Span>,
    pub jacobian: Option<proc_macro2::Span>,
    pub hvp: Option<proc_macro2::Span>,
}

impl Flags {
    pub fn any(&self) -> Option<proc_macro2::Span> {
        self.tangent.or(self.jacobian).or(self.hvp)
    }
}

pub fn parse_args(args: TokenStream) -> syn::Result<Args> {
    let mut parsed = Args::default();
    if args.is_empty() {
        return Ok(parsed);
    }
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident("custom") {
            parsed.custom = true;
            Ok(())
        } else if meta.path.is_ident("plain") {
            parsed.plain = Some(syn::spanned::Spanned::span(&meta.path));
            Ok(())
        } else if meta.path.is_ident("tangent") {
            parsed.higher.tangent = Some(syn::spanned::Spanned::span(&meta.path));
            Ok(())
        } else if meta.path.is_ident("jacobian") {
            parsed.higher.jacobian = Some(syn::spanned::Spanned::span(&meta.path));
            Ok(())
        } else if meta.path.is_ident("hvp") {
            parsed.higher.hvp = Some(syn::spanned::Spanned::span(&meta.path));
            Ok(())
        } else {
            Err(meta.error(
                "unknown `#[tape]` argument; write `#[tape]`, `#[tape(custom)]` for a hand-written `_backward`, `#[tape(plain)]` for the adjoint with every shortcut off, or `tangent`, `jacobian`, `hvp` for the higher-order companions",
            ))
        }
    });
    syn::parse::Parser::parse2(parser, args)?;
    Ok(parsed)
}

/// Whether an attribute is `#[tracked]` (or `#[mica::tracked]`).
pub fn is_tracked(attr: &Attribute) -> bool {
    attr.path()
        .segments
        .last()
        .is_some_and(|s| s.ident == "tracked")
}

/// Removes `#[tracked]` marks, returning the first one found.
pub fn take_tracked(attrs: &mut Vec<Attribute>) -> Option<Attribute> {
    let found = attrs.iter().position(is_tracked)?;
    let attr = attrs.remove(found);
    attrs.retain(|a| !is_tracked(a));
    Some(attr)
}

/// The shape of a tracked parameter: what its gradient and slot look like.
pub struct Shape {
    /// the gradient's type in `_grad`
    pub grad: TokenStream,
    /// what the slot of `_backward` points to
    pub slot: TokenStream,
    /// indices to reach an element: 0 for a scalar
    pub rank: usize,
    /// a slice-like slot, whose length is checked
    pub sized_at_run_time: bool,
}

/// One parameter of the function.
pub struct Param {
    pub attrs: Vec<Attribute>,
    /// the pattern as written (`mut x`, `_`, …)
    pub pat: Pat,
    pub ty: Type,
    /// the name the companions pass it on by
    pub name: Ident,
    /// the plain name the body reads it by, if the pattern is one
    pub binding: Option<Ident>,
    pub tracked: Option<(Attribute, Shape)>,
}

/// Reads the parameters, removing their `#[tracked]` marks from `sig`.
pub fn params(sig: &mut Signature, errors: &mut Errors) -> Vec<Param> {
    let mut params = Vec::new();
    for (index, input) in sig.inputs.iter_mut().enumerate() {
        match input {
            FnArg::Receiver(receiver) => {
                if let Some(attr) = take_tracked(&mut receiver.attrs) {
                    errors.at(attr, "`self` is tracked in a `#[tape] impl` block of a struct with `#[derive(mica::Knob)]`; put `#[tape]` on the `impl`, or track a float parameter");
                }
            }
            FnArg::Typed(typed) => {
                let tracked = take_tracked(&mut typed.attrs);
                let binding = match &*typed.pat {
                    Pat::Ident(p) if p.subpat.is_none() && p.by_ref.is_none() => {
                        Some(p.ident.clone())
                    }
                    _ => None,
                };
                let name = binding.clone().unwrap_or_else(|| {
                    format_ident!("arg{}", index, span = proc_macro2::Span::mixed_site())
                });
                let tracked = match tracked {
                    None => None,
                    Some(attr) => {
                        if binding.is_none() {
                            errors.at(
                                &typed.pat,
                                "a tracked parameter is a plain name, not a pattern",
                            );
                            None
                        } else {
                            match shape(&typed.ty) {
                                Ok(shape) => Some((attr, shape)),
                                Err(e) => {
                                    errors.push(e);
                                    None
                                }
                            }
                        }
                    }
                };
                params.push(Param {
                    attrs: typed.attrs.clone(),
                    pat: (*typed.pat).clone(),
                    ty: (*typed.ty).clone(),
                    name,
                    binding,
                    tracked,
                });
            }
        }
    }
    params
}

/// The gradient and slot types of a tracked parameter (SPEC 3.2's table).
pub fn shape(ty: &Type) -> syn::Result<Shape> {
    match ty {
        Type::Reference(r) if r.mutability.is_some() => Err(syn::Error::new_spanned(
            r.mutability,
            "a `&mut` parameter cannot be tracked; take the value or a shared reference",
        )),
        Type::Reference(r) => match &*r.elem {
            Type::Array(_) => shape(&r.elem),
            Type::Slice(slice) => run_time_sized(&slice.elem),
            Type::Path(p) if vec_element(p).is_some() => shape(&r.elem),
            // a `#[derive(Knob)]` struct or a tuple of knobs: its gradient
            // is one of its type
            Type::Tuple(t) if t.elems.len() >= 2 => Ok(Shape {
                grad: r.elem.to_token_stream(),
                slot: r.elem.to_token_stream(),
                rank: 0,
                sized_at_run_time: false,
            }),
            Type::Path(_) if crate::knob_derive::struct_of(ty, &[]).is_some() => Ok(Shape {
                grad: r.elem.to_token_stream(),
                slot: r.elem.to_token_stream(),
                rank: 0,
                sized_at_run_time: false,
            }),
            _ => Err(syn::Error::new_spanned(
                ty,
                "a shared reference is tracked when it is to an array, a slice or a `Vec` of floats",
            )),
        },
        Type::Path(p) if p.qself.is_none() => {
            if let Some(element) = vec_element(p) {
                return run_time_sized(element);
            }
            let last = p.path.segments.last().map(|s| s.ident.to_string()).unwrap_or_default();
            if crate::knob_derive::INTEGERS.contains(&last.as_str()) {
                return Err(syn::Error::new_spanned(
                    ty,
                    format!("`{last}` cannot be tracked: it has no slope; a knob is `f32`, `f64`, or an array of them"),
                ));
            }
            Ok(Shape { grad: ty.to_token_stream(), slot: ty.to_token_stream(), rank: 0, sized_at_run_time: false })
        }
        Type::Array(a) => {
            let element = shape(&a.elem)?;
            if element.sized_at_run_time {
                return Err(syn::Error::new_spanned(&a.elem, "an array of `Vec`s cannot be tracked; use nested arrays"));
            }
            Ok(Shape { grad: ty.to_token_stream(), slot: ty.to_token_stream(), rank: element.rank + 1, sized_at_run_time: false })
        }
        Type::Paren(p) => shape(&p.elem),
        Type::Group(g) => shape(&g.elem),
        Type::Tuple(t) if t.elems.len() >= 2 => Ok(Shape {
            grad: ty.to_token_stream(),
            slot: ty.to_token_stream(),
            rank: 0,
            sized_at_run_time: false,
        }),
        _ => Err(syn::Error::new_spanned(
            ty,
            "this type cannot be tracked; a knob is `f32`, `f64`, an array, a `Vec` or a tuple of knobs, or a struct with `#[derive(mica::Knob)]`",
        )),
    }
}

/// `&[E]`, `&Vec<E>`, `Vec<E>`: a `Vec<E>` gradient, a `[E]` slot.
fn run_time_sized(element: &Type) -> syn::Result<Shape> {
    let inner = shape(element)?;
    Ok(Shape {
        grad: quote::quote!(::std::vec::Vec<#element>),
        slot: quote::quote!([#element]),
        rank: inner.rank + 1,
        sized_at_run_time: true,
    })
}

/// `E` of `Vec<E>`.
fn vec_element(p: &syn::TypePath) -> Option<&Type> {
    let last = p.path.segments.last()?;
    if last.ident != "Vec" {
        return None;
    }
    match &last.arguments {
        syn::PathArguments::AngleBracketed(args) => args.args.iter().find_map(|a| match a {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        }),
        _ => None,
    }
}

/// Whether a function has `#[tracked]` parameters.
pub fn has_tracked(item: &syn::ItemFn) -> bool {
    item.sig.inputs.iter().any(|input| match input {
        syn::FnArg::Typed(t) => t.attrs.iter().any(is_tracked),
        syn::FnArg::Receiver(r) => r.attrs.iter().any(is_tracked),
    })
}
