//! Everyday spellings of the float methods, written as the method calls the
//! rest of Mica reads, before any analysis: `f64::max(a, b)` →
//! `a.max(b)`, `T::sin(x)` → `x.sin()`, `x.sin_cos()` → `(x.sin(),
//! x.cos())`. Each rewrite computes the same value as what was written.

use crate::rules;
use proc_macro2::Span;
use quote::format_ident;
use std::collections::HashSet;
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, ItemFn};

/// Rewrites the spellings in `item`'s body; whether anything changed.
pub fn rewrite(item: &mut ItemFn) -> bool {
    let mut types: HashSet<String> = ["f32", "f64", "Float", "Real", "Self"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    types.extend(item.sig.generics.type_params().map(|t| t.ident.to_string()));
    let mut visitor = Spellings {
        types,
        changed: false,
        next: 0,
    };
    visitor.visit_block_mut(&mut item.block);
    visitor.changed
}

struct Spellings {
    /// the types whose associated functions are the float methods
    types: HashSet<String>,
    changed: bool,
    next: usize,
}

impl Spellings {
    /// `f64::NAME`, `T::NAME`, `num_traits::Float::NAME`, … where NAME is a
    /// method of the vocabulary.
    fn method_path(&self, func: &Expr) -> Option<syn::Ident> {
        let Expr::Path(p) = func else { return None };
        if let Some(q) = &p.qself {
            // `<f64>::max`, `<T>::sin`
            let name = p.path.segments.last()?;
            let known = q.position == 0
                && p.path.segments.len() == 1
                && type_name(&q.ty).is_some_and(|t| self.types.contains(&t));
            let method = name.ident.to_string();
            let is_method = rules::method(&method).is_some() || method == "sin_cos";
            return (known && is_method && name.arguments.is_none()).then(|| name.ident.clone());
        }
        let segments: Vec<_> = p.path.segments.iter().collect();
        let [.., ty, name] = segments[..] else {
            return None;
        };
        let known = self.types.contains(&ty.ident.to_string()) && ty.arguments.is_none();
        let method = name.ident.to_string();
        let is_method = rules::method(&method).is_some() || method == "sin_cos";
        (known && is_method && name.arguments.is_none()).then(|| name.ident.clone())
    }
}

/// The name of a type that is one identifier (through the invisible group
/// a `macro_rules!` type fragment makes).
fn type_name(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Path(p) if p.qself.is_none() => p.path.get_ident().map(|i| i.to_string()),
        syn::Type::Group(g) => type_name(&g.elem),
        syn::Type::Paren(p) => type_name(&p.elem),
        _ => None,
    }
}

/// Whether an expression is read twice at no cost and with no effect.
fn is_simple(e: &Expr) -> bool {
    match e {
        Expr::Path(_) | Expr::Lit(_) => true,
        Expr::Paren(p) => is_simple(&p.expr),
        Expr::Index(i) => is_simple(&i.expr) && is_simple(&i.index),
        Expr::Field(f) => is_simple(&f.base),
        _ => false,
    }
}

/// A receiver as written: parenthesised unless it is one term.
fn receiver(e: Expr) -> Expr {
    match e {
        Expr::Path(_)
        | Expr::Lit(_)
        | Expr::Paren(_)
        | Expr::Index(_)
        | Expr::Field(_)
        | Expr::MethodCall(_)
        | Expr::Call(_) => e,
        other => syn::parse_quote!((#other)),
    }
}

impl VisitMut for Spellings {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        visit_mut::visit_expr_mut(self, e);
        match e {
            Expr::Call(call) => {
                let Some(name) = self.method_path(&call.func) else {
                    return;
                };
                let mut args = call.args.iter().cloned();
                // `f64::sqrt(2.0)` stays: `2.0.sqrt()` has no type to call on
                let Some(first) = args.next().filter(|a| !matches!(a, Expr::Lit(_))) else {
                    return;
                };
                let rest: Vec<Expr> = args.collect();
                let first = receiver(first);
                *e = syn::parse_quote!(#first.#name(#(#rest),*));
                self.changed = true;
                // `f64::sin_cos(x)` is now `x.sin_cos()`
                self.visit_expr_mut(e);
            }
            Expr::MethodCall(m) if m.method == "sin_cos" && m.args.is_empty() => {
                let x = (*m.receiver).clone();
                *e = if is_simple(&x) {
                    let x = receiver(x);
                    syn::parse_quote!((#x.sin(), #x.cos()))
                } else {
                    self.next += 1;
                    let t = format_ident!("__mica_angle{}", self.next, span = Span::mixed_site());
                    syn::parse_quote!({ let #t = #x; (#t.sin(), #t.cos()) })
                };
                self.changed = true;
            }
            _ => {}
        }
    }

    /// the lines of a `tape!` window, the elements of a `vec![…]`
    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        crate::facts::syntax::visit_macro_mut(self, m);
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}
