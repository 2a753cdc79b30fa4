//! A tracked struct as the rest of `structs/` sees it: its leaves (the
//! fields that hold floats, `Leaf`), what each path into it reaches, and
//! the types the paths pass (`Tracked`).

use proc_macro2::{Ident, TokenStream};
use quote::quote;
use std::collections::HashMap;
use syn::Type;

/// A tuple of two or more knobs, or a reference to one.
pub fn tuple_of(ty: &Type) -> Option<&syn::TypeTuple> {
    match ty {
        Type::Reference(r) if r.mutability.is_none() => tuple_of(&r.elem),
        Type::Paren(p) => tuple_of(&p.elem),
        Type::Tuple(t) if t.elems.len() >= 2 => Some(t),
        _ => None,
    }
}

/// A field's name, or a tuple element's number.
pub fn member_name(member: &syn::Member) -> String {
    match member {
        syn::Member::Named(ident) => ident.to_string(),
        syn::Member::Unnamed(index) => index.index.to_string(),
    }
}

/// What a path into a tracked struct reaches.
pub enum Reach {
    Leaf(usize),
    Struct,
    /// a `Vec` or an array of structs, read by an index
    Each,
    Skipped,
    Unknown,
}

/// A tracked struct parameter: its name, its leaves, and its struct's
/// fields by path (for the rewrite).
pub struct Tracked {
    pub root: Ident,
    /// the name it is read by untracked (its skipped fields): the root, or
    /// the hidden parameter a tracked `self` becomes
    pub plain: Ident,
    pub leaves: Vec<Leaf>,
    /// its leaves are values (a window's `#[tracked] let`s), not
    /// references to the struct's fields (a parameter's)
    pub by_value: bool,
    /// every path into the struct, with what it reaches
    pub paths: HashMap<Vec<String>, Reach>,
    /// a tuple of knobs, read by element (`p.0`), not a struct
    pub tuple: bool,
    /// the type of each struct the paths reach, as this use fills its
    /// parameters (the root's under the empty path): a method called on
    /// one (`m.forward(x)`) is that type's
    pub types: HashMap<Vec<String>, syn::TypePath>,
}

/// What a container of structs becomes, given the place it is at, its
/// depth, and what each of its elements becomes.
type Around<'a> =
    dyn Fn(&TokenStream, usize, &mut dyn FnMut(&TokenStream) -> TokenStream) -> TokenStream + 'a;

/// One field of a tracked struct that holds floats: its path from the
/// parameter and its type.
///
/// A field of the structs in a `Vec` or an array field (`m.layers[l].w`)
/// is gathered: its leaf is a `Vec` of that field, one per element
/// (`each` holds how many names of `path` come before each container),
/// read as `leaf[l]`, its slopes added back element by element.
pub struct Leaf {
    /// fields by name, a tuple's elements by number
    pub path: Vec<syn::Member>,
    pub each: Vec<usize>,
    pub ty: Type,
}

impl Leaf {
    pub fn gathered(&self) -> bool {
        !self.each.is_empty()
    }

    /// The leaf's value read from `value`: the field itself, or (gathered)
    /// a `Vec` of it built element by element.
    pub fn gather(&self, value: &TokenStream) -> TokenStream {
        self.walk(
            value,
            0,
            &mut |at, _| quote!(::core::clone::Clone::clone(&#at)),
            &|at, k, inner| collected(at, k, quote!(iter), &mut |e| inner(&quote!(#e))),
        )
    }

    /// The field's own type, under the `Vec`s a gathered leaf wraps it in.
    fn field_ty(&self) -> Option<&Type> {
        self.under(self.each.len())
    }

    /// The leaf's type under `levels` of the `Vec`s it is gathered in.
    fn under(&self, levels: usize) -> Option<&Type> {
        let mut ty = &self.ty;
        for _ in 0..levels {
            let Type::Path(p) = ty else { return None };
            let Some(syn::PathArguments::AngleBracketed(a)) =
                p.path.segments.last().map(|s| &s.arguments)
            else {
                return None;
            };
            let Some(syn::GenericArgument::Type(inner)) = a.args.first() else {
                return None;
            };
            ty = inner;
        }
        Some(ty)
    }

    /// Whether the field itself (under its containers) is a `Vec`.
    fn field_is_vec(&self) -> bool {
        matches!(self.field_ty(), Some(Type::Path(p)) if p.path.segments.last().is_some_and(|s| s.ident == "Vec"))
    }

    /// The gathered leaf's slot, moved out of the fields of `slot` (the
    /// struct's gradient): a `Vec` field taken, an array or a float
    /// copied. The callee adds into it; [`Self::put_back`] returns it.
    pub fn take(&self, slot: &TokenStream) -> TokenStream {
        let vec = self.field_is_vec();
        self.walk(
            slot,
            0,
            &mut |at, _| match vec {
                true => quote!(::core::mem::take(&mut #at)),
                false => quote!(#at),
            },
            &|at, k, inner| collected(at, k, quote!(iter_mut), &mut |e| inner(&quote!((*#e)))),
        )
    }

    /// Moves the slot [`Self::take`] made, `d`, back into the fields of
    /// `slot`.
    pub fn put_back(&self, slot: &TokenStream, d: &TokenStream) -> TokenStream {
        let d_at = |k: usize| {
            quote::format_ident!("__mica_back{}", k, span = proc_macro2::Span::mixed_site())
        };
        let body = self.walk(
            slot,
            0,
            &mut |at, k| {
                let d = d_at(k);
                quote!(#at = #d;)
            },
            &|at, k, inner| {
                let (e, d, outer) = (
                    quote::format_ident!(
                        "__mica_back_e{}",
                        k,
                        span = proc_macro2::Span::mixed_site()
                    ),
                    d_at(k + 1),
                    d_at(k),
                );
                let inner = inner(&quote!((*#e)));
                quote!(for (#e, #d) in #at.iter_mut().zip(#outer) { #inner })
            },
        );
        let d0 = d_at(0);
        quote!({ let #d0 = #d; #body })
    }

    /// The name of the container above the leaf at depth `k`
    /// (`m.layers`), for a length mismatch.
    pub fn container(&self, root: &Ident, k: usize) -> String {
        std::iter::once(root.to_string())
            .chain(self.path[..self.each[k]].iter().map(member_name))
            .collect::<Vec<_>>()
            .join(".")
    }

    /// Adds the gathered leaf's slopes `d` to the fields of `slot`.
    pub fn scatter(&self, slot: &TokenStream, d: &TokenStream, root: &Ident) -> TokenStream {
        let d_at = |k: usize| {
            quote::format_ident!("__mica_d{}", k, span = proc_macro2::Span::mixed_site())
        };
        let body = self.walk(
            slot,
            0,
            &mut |at, k| {
                let d = d_at(k);
                quote!(::mica::__private::step_field(&mut #at, #d, 1.0);)
            },
            &|at, k, inner| {
                let (e, d, outer) = (
                    quote::format_ident!("__mica_e{}", k, span = proc_macro2::Span::mixed_site()),
                    d_at(k + 1),
                    d_at(k),
                );
                let inner = inner(&quote!((*#e)));
                // the container named in a length mismatch: `m.layers`
                let label = self.container(root, k);
                quote! {
                    ::mica::__private::slot_len(#at.len(), #outer.len(), #label);
                    for (#e, #d) in #at.iter_mut().zip(#outer.iter()) { #inner }
                }
            },
        );
        let d0 = d_at(0);
        quote!({ let #d0 = &#d; #body })
    }

    /// `value.path…` through the containers: `leaf` at the field itself,
    /// `each` around what is under a container.
    fn walk(
        &self,
        value: &TokenStream,
        from: usize,
        leaf: &mut dyn FnMut(&TokenStream, usize) -> TokenStream,
        each: &Around<'_>,
    ) -> TokenStream {
        let k = self.each.iter().filter(|&&e| e <= from).count();
        let (start, end) = (from, self.each.get(k).copied().unwrap_or(self.path.len()));
        let names = &self.path[start.min(end)..end];
        let at = quote!(#value #(.#names)*);
        if k == self.each.len() {
            return leaf(&at, k);
        }
        let mut inner = |e: &TokenStream| self.walk(e, end, leaf, each);
        each(&at, k, &mut inner)
    }

    /// Whether the gathered leaf indexed `levels` deep (the field of one
    /// struct, or the fields of its own structs gathered) is passed by
    /// reference: an array or a `Vec`, not a float.
    pub fn by_ref_under(&self, levels: usize) -> bool {
        !matches!(self.under(levels), Some(Type::Path(p)) if p.path.segments.last().is_some_and(|s| s.ident != "Vec"))
    }

    pub fn by_ref(&self) -> bool {
        !matches!(&self.ty, Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident != "Vec"))
    }
    pub fn is_vec(&self) -> bool {
        matches!(&self.ty, Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "Vec"))
    }
    pub fn name(&self, root: &Ident) -> Ident {
        let mut name = format!("__mica_{root}");
        for p in &self.path {
            name.push('_');
            name.push_str(&member_name(p));
        }
        Ident::new(&name, root.span())
    }
}

/// `{ let mut v = Vec::with_capacity(at.len()); for e in at.ITER() {
/// v.push(INNER(e)); } v }`: a `Vec` of what each element of the
/// container `at` (at depth `k`) gives. A loop, not an iterator chain:
/// the chains of a body are Mica's to rewrite.
fn collected(
    at: &TokenStream,
    k: usize,
    iter: TokenStream,
    inner: &mut dyn FnMut(&Ident) -> TokenStream,
) -> TokenStream {
    let span = proc_macro2::Span::mixed_site();
    let (e, v) = (
        quote::format_ident!("__mica_each_e{}", k, span = span),
        quote::format_ident!("__mica_each_v{}", k, span = span),
    );
    let inner = inner(&e);
    quote!({
        let mut #v = ::std::vec::Vec::with_capacity(#at.len());
        for #e in #at.#iter() {
            #v.push(#inner);
        }
        #v
    })
}
