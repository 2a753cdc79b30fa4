//! A helper's value, typed where it is written in: a helper's body ending
//! in `h.iter().sum()` takes its type from the helper's return type, which
//! is gone once the body stands at the call (`{ …; h.iter().sum() } - y`
//! leaves rustc nothing to infer `sum`'s type from). The consumers that
//! need a type (`sum`, `product`, `collect`) are given the return type as
//! written, `h.iter().sum::<f64>()`, in the value's tail and in the tails
//! of the blocks, `if`s and `match`es it ends in.

use quote::ToTokens;
use std::collections::HashSet;
use syn::{Expr, ReturnType, Stmt, Type};

/// Gives the untyped consumers at the end of `stmts` the helper's return
/// type where Mica's loops read it as the caller does: `f64`, `f32`, or
/// a type parameter the caller has too (generic code names its float
/// alike; an `impl`'s are both's), alone (`-> T`) or in a `Vec`. A name
/// of another kind (an alias) is left to inference, as before.
pub(super) fn type_the_tail(
    stmts: &mut [Stmt],
    output: &ReturnType,
    generics: &HashSet<String>,
    caller: &HashSet<String>,
) {
    let ReturnType::Type(_, ty) = output else {
        return;
    };
    // (a macro's `$t` stands in an invisible group)
    let mut ty: &Type = ty;
    while let Type::Group(g) = ty {
        ty = &g.elem;
    }
    let named = match ty {
        Type::Path(p) if p.qself.is_none() => p.path.get_ident().map(|i| i.to_string()),
        _ => None,
    };
    let typed = match named.as_deref() {
        Some("f64" | "f32") => true,
        Some(name) => generics.contains(name) && caller.contains(name),
        None => {
            let vec = matches!(ty, Type::Path(p) if p.qself.is_none()
                && p.path.segments.len() == 1 && p.path.segments[0].ident == "Vec");
            let own: HashSet<String> = generics.difference(caller).cloned().collect();
            vec && !mentions_generic(ty, &own)
        }
    };
    if !typed {
        return;
    }
    if let Some(Stmt::Expr(tail, None)) = stmts.last_mut() {
        type_expr(tail, ty);
    }
}

fn type_expr(e: &mut Expr, ty: &Type) {
    match e {
        Expr::Paren(p) => type_expr(&mut p.expr, ty),
        Expr::Block(b) if b.label.is_none() => {
            if let Some(Stmt::Expr(tail, None)) = b.block.stmts.last_mut() {
                type_expr(tail, ty);
            }
        }
        Expr::If(i) => {
            if let Some(Stmt::Expr(tail, None)) = i.then_branch.stmts.last_mut() {
                type_expr(tail, ty);
            }
            if let Some((_, other)) = &mut i.else_branch {
                type_expr(other, ty);
            }
        }
        Expr::Match(m) => m.arms.iter_mut().for_each(|a| type_expr(&mut a.body, ty)),
        Expr::MethodCall(m)
            if m.turbofish.is_none()
                && m.args.is_empty()
                && matches!(m.method.to_string().as_str(), "sum" | "product" | "collect") =>
        {
            m.turbofish = Some(syn::parse_quote!(::<#ty>));
        }
        _ => {}
    }
}

/// A function's own type parameters, by name.
pub(super) fn type_params(sig: &syn::Signature) -> HashSet<String> {
    sig.generics
        .type_params()
        .map(|t| t.ident.to_string())
        .collect()
}

pub(super) fn mentions_generic(ty: &Type, generics: &HashSet<String>) -> bool {
    let mut names = HashSet::new();
    crate::names::idents_in(ty.to_token_stream(), &mut names);
    names.iter().any(|n| generics.contains(n))
}
