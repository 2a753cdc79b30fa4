//! `Option<T>` and `Result<T, E>` returns (SPEC 3.6), unwrapped for the
//! adjoint.
//!
//! Input:
//!
//! ```text
//! fn f(#[tracked] x: f64, k: usize) -> Option<f64> {
//!     let scale = table.get(k)?;
//!     if *scale < 0.0 {
//!         return None;
//!     }
//!     Some(x * scale)
//! }
//! ```
//!
//! Output (only the adjoint sees it):
//!
//! ```text
//! let scale = table.get(k)?;
//! if *scale < 0.0 {
//!     ::mica::__mica_leave!(None);
//! }
//! x * scale
//! ```
//!
//! The adjoint's forward sweep runs first and whole, so a `?`, a `None` or
//! an `Err` leaves `_backward` before its reverse sweep has added anything
//! to a slot. `?` is kept as written: it applies to values that do not
//! depend on a knob, which the forward sweep computes as the function does.
//! A `return Some(e)` is a `return e` (see `returns.rs`), and the value
//! the function ends with is `e` of its `Some(e)` or `Ok(e)`.

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{Expr, Stmt};

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    Option,
    Result,
}

/// A return type that wraps the value: which wrapper, and the value's type.
pub struct Wrapped {
    pub kind: Kind,
    pub inner: TokenStream,
    /// `E` of a `Result<T, E>`
    pub error: TokenStream,
}

impl Wrapped {
    /// `Some(value)` / `Ok(value)` of tokens.
    pub fn wrap(&self, value: TokenStream) -> TokenStream {
        match self.kind {
            Kind::Option => quote!(::core::option::Option::Some(#value)),
            Kind::Result => quote!(::core::result::Result::Ok(#value)),
        }
    }
}

/// `Option<T>` or `Result<T, E>`, by the last segment of its path.
pub fn of(ty: &syn::Type) -> Option<Wrapped> {
    let syn::Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    let kind = match last.ident.to_string().as_str() {
        "Option" => Kind::Option,
        "Result" => Kind::Result,
        _ => return None,
    };
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    let mut types = args.args.iter().filter_map(|a| match a {
        syn::GenericArgument::Type(t) => Some(t.to_token_stream()),
        _ => None,
    });
    let inner = types.next()?;
    let error = types.next().unwrap_or_default();
    if kind == Kind::Result && error.is_empty() {
        // an alias such as `io::Result<T>`: its error type is not written
        return None;
    }
    Some(Wrapped { kind, inner, error })
}

/// The body with its `Some`/`Ok` values unwrapped and its `None`/`Err`
/// exits made exits of the adjoint, and whether it may leave early.
pub fn unwrap_body(stmts: &[Stmt], kind: Kind) -> syn::Result<(Vec<Stmt>, bool)> {
    let mut out = stmts.to_vec();
    let mut returns = Returns { kind, error: None };
    for stmt in &mut out {
        returns.visit_stmt_mut(stmt);
    }
    if let Some(e) = returns.error {
        return Err(e);
    }
    if let Some(Stmt::Expr(tail, None)) = out.last_mut() {
        *tail = unwrap_tail(tail, kind)?;
    }
    let mut early = EarlyExit(false);
    for stmt in stmts {
        early.visit_stmt(stmt);
    }
    Ok((out, early.0))
}

/// What a value of the wrapper is, read from its syntax.
enum Parts<'e> {
    /// `Some(e)`, `Ok(e)`
    Value(&'e Expr),
    /// `None`, `Err(e)`
    Leave,
}

fn parts(expr: &Expr, kind: Kind) -> Option<Parts<'_>> {
    let last = |p: &syn::Path| p.segments.last().map(|s| s.ident.to_string());
    match (expr, kind) {
        (Expr::Paren(p), _) => parts(&p.expr, kind),
        (Expr::Path(p), Kind::Option) if last(&p.path).as_deref() == Some("None") => {
            Some(Parts::Leave)
        }
        (Expr::Call(c), _) if c.args.len() == 1 => {
            let Expr::Path(f) = &*c.func else { return None };
            match (last(&f.path).as_deref(), kind) {
                (Some("Some"), Kind::Option) | (Some("Ok"), Kind::Result) => {
                    Some(Parts::Value(&c.args[0]))
                }
                (Some("Err"), Kind::Result) => Some(Parts::Leave),
                _ => None,
            }
        }
        _ => None,
    }
}

/// `::mica::__mica_leave!(value)`: `return value` from the adjoint.
fn leave(value: &Expr) -> Expr {
    syn::parse_quote!(::mica::__mica_leave!(#value))
}

fn message(kind: Kind) -> &'static str {
    match kind {
        Kind::Option => "a `#[tape]` function returning `Option` ends with, and returns, `Some(value)` or `None` written out (as its last line: `if c { Some(x) } else { None }`); a binding that holds an `Option` of recorded values is not followed",
        Kind::Result => "a `#[tape]` function returning `Result` ends with, and returns, `Ok(value)` or `Err(e)` written out (as its last line: `if c { Ok(x) } else { Err(e) }`); a binding that holds a `Result` of recorded values is not followed",
    }
}

/// The value an expression in tail position gives, unwrapped.
fn unwrap_tail(expr: &Expr, kind: Kind) -> syn::Result<Expr> {
    match parts(expr, kind) {
        Some(Parts::Value(e)) => return Ok(e.clone()),
        Some(Parts::Leave) => {
            let leave = leave(expr);
            return Ok(syn::parse_quote!({ #leave; ::mica::__private::placeholder() }));
        }
        None => {}
    }
    match expr {
        Expr::If(i) => {
            let mut i = i.clone();
            tail_of_block(&mut i.then_branch, kind)?;
            match &mut i.else_branch {
                Some((_, e)) => **e = unwrap_tail(e, kind)?,
                None => return Err(syn::Error::new_spanned(i.if_token, message(kind))),
            }
            Ok(Expr::If(i))
        }
        Expr::Match(m) => {
            let mut m = m.clone();
            for arm in &mut m.arms {
                *arm.body = unwrap_tail(&arm.body, kind)?;
            }
            Ok(Expr::Match(m))
        }
        Expr::Block(b) if b.label.is_none() => {
            let mut b = b.clone();
            tail_of_block(&mut b.block, kind)?;
            Ok(Expr::Block(b))
        }
        // a `return` as the last line: its value is unwrapped already
        Expr::Return(_) | Expr::Macro(_) => Ok(expr.clone()),
        _ => Err(syn::Error::new_spanned(expr, message(kind))),
    }
}

fn tail_of_block(block: &mut syn::Block, kind: Kind) -> syn::Result<()> {
    match block.stmts.last_mut() {
        Some(Stmt::Expr(tail, None)) => {
            *tail = unwrap_tail(tail, kind)?;
            Ok(())
        }
        // an arm that ends with `return …;` (unwrapped where it stands)
        Some(Stmt::Expr(Expr::Return(_) | Expr::Macro(_), Some(_))) => Ok(()),
        _ => Err(syn::Error::new(
            block.brace_token.span.close(),
            message(kind),
        )),
    }
}

/// Rewrites every `return` of the body.
struct Returns {
    kind: Kind,
    error: Option<syn::Error>,
}

impl VisitMut for Returns {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        syn::visit_mut::visit_expr_mut(self, e);
        let Expr::Return(r) = e else { return };
        let Some(value) = &r.expr else {
            self.error
                .get_or_insert_with(|| syn::Error::new_spanned(r.return_token, message(self.kind)));
            return;
        };
        match parts(value, self.kind) {
            Some(Parts::Value(v)) => {
                let v = v.clone();
                r.expr = Some(Box::new(v));
            }
            Some(Parts::Leave) => *e = leave(value),
            None => {
                self.error
                    .get_or_insert_with(|| syn::Error::new_spanned(&**value, message(self.kind)));
            }
        }
    }
    fn visit_expr_closure_mut(&mut self, _: &mut syn::ExprClosure) {}
    fn visit_expr_async_mut(&mut self, _: &mut syn::ExprAsync) {}
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// Whether the body may leave before its end: a `?`, or a `None` / `Err`.
struct EarlyExit(bool);

impl<'ast> Visit<'ast> for EarlyExit {
    fn visit_expr_try(&mut self, _: &'ast syn::ExprTry) {
        self.0 = true;
    }
    fn visit_expr_return(&mut self, _: &'ast syn::ExprReturn) {
        self.0 = true;
    }
    fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
        if p.path.is_ident("None") {
            self.0 = true;
        }
    }
    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        if matches!(&*c.func, Expr::Path(p) if p.path.is_ident("Err")) {
            self.0 = true;
        }
        syn::visit::visit_expr_call(self, c);
    }
    fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(code: &str, kind: Kind) -> syn::Result<String> {
        let block: syn::Block = syn::parse_str(&format!("{{ {code} }}")).expect("a block");
        unwrap_body(&block.stmts, kind).map(|(stmts, _)| crate::names::text_of(&stmts))
    }

    #[test]
    fn values_are_unwrapped_and_exits_leave_the_adjoint() {
        let out = body(
            "let s = t.get(k)?; if *s < 0.0 { return None; } if x > 1.0 { return Some(x); } Some(x * s)",
            Kind::Option,
        )
        .unwrap();
        assert!(out.contains("let s = t . get (k) ? ;"), "{out}");
        assert!(out.contains(":: mica :: __mica_leave ! (None)"), "{out}");
        assert!(out.contains("return x ;"), "{out}");
        assert!(out.ends_with("x * s"), "{out}");
        let out = body(
            "if x > 0.0 { Ok(x.sqrt()) } else { Err(Bad) }",
            Kind::Result,
        )
        .unwrap();
        assert!(out.contains("{ x . sqrt () }"), "{out}");
        assert!(
            out.contains(":: mica :: __mica_leave ! (Err (Bad))"),
            "{out}"
        );
    }

    #[test]
    fn a_wrapped_value_not_written_out_is_refused() {
        assert!(body("let o = f(x); o", Kind::Option).is_err());
        assert!(body("if c { return o; } Some(x)", Kind::Option).is_err());
        assert!(of(&syn::parse_str("Option<f64>").unwrap()).is_some());
        assert!(of(&syn::parse_str("f64").unwrap()).is_none());
    }
}
