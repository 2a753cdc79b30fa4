//! A helper's value, typed where it is written in: a helper's body ending
//! in `h.iter().sum()` takes its type from the helper's return type, which
//! is gone once the body stands at the call (`{ …; h.iter().sum() } - y`
//! leaves rustc nothing to infer `sum`'s type from). The consumers that
//! need a type (`sum`, `product`, `collect`) are given the return type as
//! written, `h.iter().sum::<f64>()`, in the value's tail and in the tails
//! of the blocks, `if`s and `match`es it ends in.

use std::collections::HashSet;
use syn::{Expr, ReturnType, Stmt, Type};

/// Gives the untyped consumers at the end of `stmts` the helper's return
/// type, when it is one the caller can name: not `impl …`, and not built
/// from the helper's type parameters, but for one of them alone (`-> T`),
/// which is the caller's own where it names its parameter alike (a caller
/// whose `T` is another type, or who has none, fails to build, as it did
/// without the type).
pub(super) fn type_the_tail(stmts: &mut [Stmt], output: &ReturnType, generics: &HashSet<String>) {
    let ReturnType::Type(_, ty) = output else {
        return;
    };
    let alone = match &**ty {
        Type::Path(p) if p.qself.is_none() => p
            .path
            .get_ident()
            .is_some_and(|i| generics.contains(&i.to_string())),
        _ => false,
    };
    if matches!(&**ty, Type::ImplTrait(_) | Type::Infer(_))
        || (super::mentions_generic(ty, generics) && !alone)
    {
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
