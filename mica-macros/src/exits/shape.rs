//! The nesting of the tuples a `loop`'s `break`s leave, written out: each
//! value goes to a binding of its own (see `exits.rs`).

use proc_macro2::Ident;
use syn::Expr;

/// The nesting of a tuple written out: its places, or one value.
#[derive(Clone, PartialEq)]
pub(super) enum Shape {
    One,
    Tuple(Vec<Shape>),
}

impl Shape {
    pub(super) fn of(e: &Expr) -> Shape {
        match crate::facts::syntax::strip_parens(e) {
            Expr::Tuple(t) if !t.elems.is_empty() => {
                Shape::Tuple(t.elems.iter().map(Shape::of).collect())
            }
            _ => Shape::One,
        }
    }

    pub(super) fn leaves(&self) -> usize {
        match self {
            Shape::One => 1,
            Shape::Tuple(items) => items.iter().map(Shape::leaves).sum(),
        }
    }

    /// `e`'s values, one per leaf, in order (`e` of this shape).
    pub(super) fn flatten<'e>(&self, e: &'e Expr, out: &mut Vec<&'e Expr>) {
        match (self, crate::facts::syntax::strip_parens(e)) {
            (Shape::Tuple(items), Expr::Tuple(t)) => {
                for (item, elem) in items.iter().zip(&t.elems) {
                    item.flatten(elem, out);
                }
            }
            _ => out.push(e),
        }
    }

    /// The tuple of this shape made of `parts`, taken in order.
    pub(super) fn build(
        &self,
        parts: &mut std::slice::Iter<'_, Ident>,
    ) -> proc_macro2::TokenStream {
        match self {
            Shape::One => {
                let part = parts.next();
                quote::quote!(#part)
            }
            Shape::Tuple(items) => {
                let items: Vec<_> = items.iter().map(|i| i.build(parts)).collect();
                match items.as_slice() {
                    [one] => quote::quote!((#one,)),
                    _ => quote::quote!((#(#items),*)),
                }
            }
        }
    }

    /// The bindings of a tuple's values, `value_0`, `value_1`, …
    pub(super) fn parts(&self, value: &Ident) -> Vec<Ident> {
        (0..self.leaves())
            .map(|k| Ident::new(&format!("{value}_{k}"), value.span()))
            .collect()
    }
}
