//! `return` anywhere in the function form, rewritten for the forward sweep.
//!
//! Input:
//!
//! ```text
//! if x < 0.0 {
//!     return 0.0;
//! }
//! let y = x * x;
//! y + 1.0
//! ```
//!
//! Output (only the adjoint sees it; the function itself keeps its
//! `return`s):
//!
//! ```text
//! let mut __mica_ret: f64 = Default::default();
//! let mut __mica_done = false;
//! if x < 0.0 {
//!     { __mica_ret = 0.0; __mica_done = true; }
//! }
//! if !__mica_done {
//!     let y = x * x;
//!     __mica_ret = y + 1.0;
//! }
//! __mica_ret
//! ```
//!
//! Every statement after one that may return is guarded (and a loop's
//! iterations run only until the function is done), so the same
//! arithmetic runs in the same order as in the function: the value is
//! bit-identical, and the branches are differentiated like any other.

use proc_macro2::{Ident, Span, TokenStream};
use syn::visit::Visit;
use syn::{Expr, Stmt};

/// The body with its `return`s rewritten, or `None` if it has none.
pub fn eliminate(stmts: &[Stmt], ret: &TokenStream) -> syn::Result<Option<Vec<Stmt>>> {
    if !stmts.iter().any(has_return) {
        return Ok(None);
    }
    let names = Names {
        value: Ident::new("__mica_ret", Span::mixed_site()),
        done: Ident::new("__mica_done", Span::mixed_site()),
    };
    let (value, done) = (&names.value, &names.done);
    let mut out: Vec<Stmt> = vec![
        syn::parse_quote!(let mut #value: #ret = ::core::default::Default::default();),
        syn::parse_quote!(let mut #done = false;),
    ];
    out.extend(names.block(stmts, true)?);
    out.push(Stmt::Expr(syn::parse_quote!(#value), None));
    Ok(Some(out))
}

struct Names {
    value: Ident,
    done: Ident,
}

impl Names {
    /// A block's statements; `top` marks the function's own body, whose
    /// tail becomes the result.
    fn block(&self, stmts: &[Stmt], top: bool) -> syn::Result<Vec<Stmt>> {
        let (value, done) = (&self.value, &self.done);
        let mut out = Vec::new();
        for (i, stmt) in stmts.iter().enumerate() {
            let last = i + 1 == stmts.len();
            if !has_return(stmt) {
                match stmt {
                    Stmt::Expr(expr, None) if last && top => {
                        out.push(syn::parse_quote!(#value = #expr;))
                    }
                    _ => out.push(stmt.clone()),
                }
                continue;
            }
            out.push(self.stmt(stmt)?);
            let rest = &stmts[i + 1..];
            if !rest.is_empty() {
                let rest = self.block(rest, top)?;
                out.push(syn::parse_quote!(if !#done { #(#rest)* }));
            }
            break;
        }
        Ok(out)
    }

    /// A loop body whose iterations do nothing once the function is done
    /// (keeping last the stop of a loop that may stop early).
    fn idle_when_done(&self, body: &syn::Block) -> syn::Result<Vec<Stmt>> {
        let done = &self.done;
        let (inner, stop) = match crate::exits::split_stop(body) {
            Some((inner, _)) => (inner.stmts, body.stmts.last().cloned()),
            None => (body.stmts.clone(), None),
        };
        let inner = self.block(&inner, false)?;
        let mut stmts: Vec<Stmt> = vec![syn::parse_quote!(if !#done { #(#inner)* })];
        stmts.extend(stop);
        Ok(stmts)
    }

    fn stmt(&self, stmt: &Stmt) -> syn::Result<Stmt> {
        match stmt {
            Stmt::Expr(expr, semi) => Ok(Stmt::Expr(self.expr(expr)?, *semi)),
            other => Err(syn::Error::new_spanned(
                first(other),
                "`return` inside a `let` is not supported; return from a statement of its own",
            )),
        }
    }

    fn expr(&self, expr: &Expr) -> syn::Result<Expr> {
        let (value, done) = (&self.value, &self.done);
        match expr {
            Expr::Return(r) => match &r.expr {
                Some(result) => Ok(syn::parse_quote!({ #value = #result; #done = true; })),
                None => Err(syn::Error::new_spanned(r.return_token, "a `#[tape]` function returns a value")),
            },
            Expr::If(i) => {
                let mut i = i.clone();
                i.then_branch.stmts = self.block(&i.then_branch.stmts, false)?;
                if let Some((_, else_branch)) = &mut i.else_branch {
                    **else_branch = self.expr(else_branch)?;
                }
                Ok(Expr::If(i))
            }
            Expr::Block(b) if b.label.is_none() => {
                let mut b = b.clone();
                b.block.stmts = self.block(&b.block.stmts, false)?;
                Ok(Expr::Block(b))
            }
            Expr::Match(m) => {
                let mut m = m.clone();
                for arm in &mut m.arms {
                    if has_return_expr(&arm.body) {
                        *arm.body = self.expr(&arm.body)?;
                    }
                }
                Ok(Expr::Match(m))
            }
                        // each iteration runs only until the function is done; a `while`
            // stops asking its condition then
            // (a loop that may stop early keeps its stop, `if stop { break;
            // }`, last: see `exits.rs`)
            Expr::ForLoop(f) => {
                let mut f = f.clone();
                f.body.stmts = self.idle_when_done(&f.body)?;
                Ok(Expr::ForLoop(f))
            }
            // a `while let` as a `for`
            Expr::While(w) if matches!(&*w.cond, Expr::Let(_)) => {
                let mut w = w.clone();
                w.body.stmts = self.idle_when_done(&w.body)?;
                Ok(Expr::While(w))
            }
            Expr::While(w) if !matches!(&*w.cond, Expr::Let(_)) => {
                let mut w = w.clone();
                let body = self.block(&w.body.stmts, false)?;
                let cond = &w.cond;
                w.cond = syn::parse_quote!(!#done && (#cond));
                w.body.stmts = body;
                Ok(Expr::While(w))
            }
            Expr::While(_) | Expr::Loop(_) => Err(syn::Error::new_spanned(
                first(expr),
                "`return` inside this loop of a `#[tape]` function is not supported; return from a `for` or `while` loop",
            )),
            other if !has_return_expr(other) => Ok(other.clone()),
            other => Err(syn::Error::new_spanned(
                first(other),
                "`return` inside this expression is not supported; return from an `if`, a `match` or a block",
            )),
        }
    }
}

fn first(tokens: &impl quote::ToTokens) -> TokenStream {
    tokens.to_token_stream().into_iter().take(1).collect()
}

fn has_return(stmt: &Stmt) -> bool {
    let mut finder = Returns(false);
    finder.visit_stmt(stmt);
    finder.0
}

fn has_return_expr(expr: &Expr) -> bool {
    let mut finder = Returns(false);
    finder.visit_expr(expr);
    finder.0
}

/// Finds a `return` of this function (not of a closure or nested item).
struct Returns(bool);

impl<'ast> Visit<'ast> for Returns {
    fn visit_expr_return(&mut self, _: &'ast syn::ExprReturn) {
        self.0 = true;
    }
    fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    fn visit_expr_async(&mut self, _: &'ast syn::ExprAsync) {}
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}
