//! How an inlined helper's early `return` leaves its body: a labelled
//! `loop` that the `return`s break, its value the helper's (a scalar), its
//! fields assigned one by one (a tuple), or a local array assigned whole (an
//! array), since a `loop`'s value is one scalar name.

use proc_macro2::{Ident, Span};
use quote::format_ident;
use syn::visit::Visit;
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, ReturnType, Stmt, Type};

/// The helper's lines `lets` (its last an expression: the value), with
/// every `return` leaving the labelled loop they become.
pub(super) fn early(
    output: &ReturnType,
    mut lets: Vec<Stmt>,
    label: syn::Lifetime,
    floats: &[proc_macro2::Ident],
) -> Expr {
    let tail = match lets.last() {
        Some(Stmt::Expr(_, None)) => match lets.pop() {
            Some(Stmt::Expr(e, None)) => Some(e),
            _ => None,
        },
        _ => None,
    };
    // a tuple is left field by field: a `loop`'s value is one name
    let arity = match output {
        ReturnType::Type(_, ty) => match &**ty {
            Type::Tuple(t) if !t.elems.is_empty() => Some(t.elems.len()),
            _ => None,
        },
        ReturnType::Default => None,
    };
    let fields: Option<Vec<Ident>> = arity.and_then(|k| {
        let mut values = TupleValues(k, true);
        for s in &lets {
            values.visit_stmt(s);
        }
        let tail_ok = tail.as_ref().is_some_and(|t| is_tuple_of(t, k));
        (values.1 && tail_ok).then(|| {
            (0..k)
                .map(|j| {
                    format_ident!(
                        "__mica_field{}_{}",
                        label.ident,
                        j,
                        span = Span::mixed_site()
                    )
                })
                .collect()
        })
    });
    // an array is left whole, assigned to a local that starts at
    // zeros: a `loop`'s value is a scalar
    let array = match (output, &fields) {
        (ReturnType::Type(_, ty), None) => zeros_of(ty, floats).map(|zeros| {
            let name = format_ident!("__mica_array_{}", label.ident, span = Span::mixed_site());
            (name, ty.clone(), zeros)
        }),
        _ => None,
    };
    let how = match (&array, &fields) {
        (Some((name, _, _)), _) => Carry::Array(name.clone()),
        (None, Some(fields)) => Carry::Fields(fields.clone()),
        (None, None) => Carry::Value,
    };
    let mut leave = Leave(label.clone(), how);
    for s in lets.iter_mut() {
        leave.visit_stmt_mut(s);
    }
    if let Some((name, ty, zeros)) = array {
        if let Some(tail) = tail {
            lets.push(syn::parse_quote!({ #name = #tail; break #label; }));
        }
        return syn::parse_quote!({
            let mut #name: #ty = #zeros;
            #label: loop { #(#lets)* }
            #name
        });
    }
    if let Some(fields) = fields {
        if let Some(Expr::Tuple(t)) = tail {
            let values = t.elems.iter();
            lets.push(syn::parse_quote!({ #(#fields = #values;)* break #label; }));
        }
        return syn::parse_quote!({
            #(let mut #fields = ::mica::__private::placeholder();)*
            #label: loop { #(#lets)* }
            (#(#fields),*)
        });
    }
    let exit: Stmt = match tail {
        Some(tail) => syn::parse_quote!(break #label #tail;),
        None => syn::parse_quote!(break #label;),
    };
    lets.push(exit);
    syn::parse_quote!(#label: loop { #(#lets)* })
}

fn is_tuple_of(e: &Expr, k: usize) -> bool {
    matches!(e, Expr::Tuple(t) if t.elems.len() == k)
}

/// Whether every `return` of a body gives a tuple of `.0` values written
/// out (closures and items aside).
struct TupleValues(usize, bool);

impl<'ast> Visit<'ast> for TupleValues {
    fn visit_expr_return(&mut self, r: &'ast syn::ExprReturn) {
        self.1 &= r.expr.as_deref().is_some_and(|e| is_tuple_of(e, self.0));
    }
    fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// Whether a body holds a `return` (closures and items aside).
#[derive(Default)]
pub(super) struct Returns(pub(super) bool);

impl<'ast> Visit<'ast> for Returns {
    fn visit_expr_return(&mut self, _: &'ast syn::ExprReturn) {
        self.0 = true;
    }
    fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// An array of zeros of a type of float arrays (`[f64; 3]`, `[[f32; 2];
/// N]`, `[T; 3]` for one of `floats`, the helper's float type
/// parameters), or `None` for any other type.
fn zeros_of(ty: &Type, floats: &[proc_macro2::Ident]) -> Option<Expr> {
    match ty {
        Type::Array(a) => {
            let inner = zeros_of(&a.elem, floats).or_else(|| zero_float(&a.elem, floats))?;
            let len = &a.len;
            Some(syn::parse_quote!([#inner; #len]))
        }
        Type::Paren(p) => zeros_of(&p.elem, floats),
        Type::Group(g) => zeros_of(&g.elem, floats),
        _ => None,
    }
}

fn zero_float(ty: &Type, floats: &[proc_macro2::Ident]) -> Option<Expr> {
    match ty {
        Type::Path(p)
            if p.qself.is_none() && p.path.get_ident().is_some_and(|i| floats.contains(i)) =>
        {
            Some(crate::generics::zero(p))
        }
        Type::Path(p) if p.qself.is_none() && p.path.is_ident("f64") => {
            Some(syn::parse_quote!(0.0_f64))
        }
        Type::Path(p) if p.qself.is_none() && p.path.is_ident("f32") => {
            Some(syn::parse_quote!(0.0_f32))
        }
        Type::Paren(p) => zero_float(&p.elem, floats),
        Type::Group(g) => zero_float(&g.elem, floats),
        _ => None,
    }
}

/// How a helper's `return e` leaves the labelled `loop` it is written in.
enum Carry {
    /// `break 'label e`
    Value,
    /// a tuple, field by field: `return (a, b)` → `{ field0 = a; field1 =
    /// b; break 'label; }`
    Fields(Vec<Ident>),
    /// an array, through its local: `{ local = e; break 'label; }`
    Array(Ident),
}

/// Rewrites each `return` of a helper's body as [`Carry`] says.
struct Leave(syn::Lifetime, Carry);

impl VisitMut for Leave {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        visit_mut::visit_expr_mut(self, e);
        if let Expr::Return(r) = e {
            let label = &self.0;
            *e = match (&r.expr, &self.1) {
                (Some(value), Carry::Array(array)) => {
                    syn::parse_quote!({ #array = #value; break #label; })
                }
                (Some(value), Carry::Fields(fields)) => match &**value {
                    Expr::Tuple(t) => {
                        let values = t.elems.iter();
                        syn::parse_quote!({ #(#fields = #values;)* break #label; })
                    }
                    _ => syn::parse_quote!(break #label #value),
                },
                (Some(value), Carry::Value) => syn::parse_quote!(break #label #value),
                (None, _) => syn::parse_quote!(break #label),
            };
        }
    }
    fn visit_expr_closure_mut(&mut self, _: &mut syn::ExprClosure) {}
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}
