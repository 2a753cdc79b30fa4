//! A `Vec` filled by pushes that an iteration may skip: under an `if` or
//! a `match` arm, or in a loop that may leave early (`break`, `continue`,
//! `return`). The pushes cannot be counted before the loop, but they are
//! at most the iterations times the pushes written in its body, so the
//! `Vec` is made that long, written through a counter, and cut to the
//! counter after the loop:
//!
//! ```text
//! let mut kept = Vec::new();
//! for &v in x { if v.abs() < cut { kept.push(v * v); } }
//! // is
//! let __mica_pushes_1: usize = ::mica::__private::trip(&(0..x.len()));
//! let mut kept = vec![0.0; __mica_pushes_1];
//! let mut __mica_pushed_2 = 0usize;
//! for &v in x { if v.abs() < cut { { kept[__mica_pushed_2] = v * v; __mica_pushed_2 += 1; } } }
//! let __mica_full_3 = kept;
//! let mut kept = vec![0.0; __mica_pushed_2];
//! for __mica_j_4 in 0..__mica_pushed_2 { kept[__mica_j_4] = __mica_full_3[__mica_j_4]; }
//! ```
//!
//! The first `__mica_pushed_2` elements are the values pushed, in order,
//! and their copy is the `Vec` the loop leaves (made by `vec!`, so that it
//! is an array Mica knows wherever it is lent, as a `Vec` filled in full
//! is). Inside the loop the `Vec` may
//! be named only by its pushes and by `len()` and `is_empty()`, which are
//! the counter's; a push inside a loop nested in the body is not taken.

use super::count::positions;
use super::Names;
use crate::names::mentions_ident;
use quote::ToTokens;
use syn::visit::Visit;
use syn::visit_mut::{self, VisitMut};
use syn::{Block, Expr, Ident, Stmt};

/// The pushes into `v` of `f`, each run at most once an iteration: their
/// number for all iterations, bounded before the loop, and the values
/// pushed; `None` where the `Vec` is named otherwise in the loop.
pub(super) fn plan(f: &syn::ExprForLoop, v: &str, names: &Names) -> Option<(Expr, Vec<Expr>)> {
    if mentions_ident(&f.expr.to_token_stream(), v) || super::rebinds(f, v) {
        return None;
    }
    let mut values = Vec::new();
    stmts(&f.body.stmts, v, &mut values)?;
    if values.is_empty() {
        return None;
    }
    let shadow = positions(&f.expr, &names.arrays)?;
    let k = values.len();
    Some((
        syn::parse_quote!(::mica::__private::trip(&(#shadow)) * #k),
        values,
    ))
}

/// The pushes among `list`, through `if`s, `match` arms and blocks.
fn stmts(list: &[Stmt], v: &str, values: &mut Vec<Expr>) -> Option<()> {
    for s in list {
        if !mentions_ident(&s.to_token_stream(), v) {
            continue;
        }
        if let Some(value) = push_of(s, v) {
            values.push(value);
            continue;
        }
        match s {
            Stmt::Expr(e, _) => expr(e, v, values)?,
            other => {
                let mut lengths = Lengths::new(v);
                lengths.visit_stmt(other);
                if !lengths.only() {
                    return None;
                }
            }
        }
    }
    Some(())
}

fn expr(e: &Expr, v: &str, values: &mut Vec<Expr>) -> Option<()> {
    match e {
        Expr::If(i) if at_most_lengths(&i.cond, v) => {
            stmts(&i.then_branch.stmts, v, values)?;
            match &i.else_branch {
                Some((_, other)) if mentions_ident(&other.to_token_stream(), v) => {
                    expr(other, v, values)
                }
                _ => Some(()),
            }
        }
        Expr::Block(b) => stmts(&b.block.stmts, v, values),
        Expr::Match(m) if at_most_lengths(&m.expr, v) => {
            for arm in &m.arms {
                if arm
                    .guard
                    .as_ref()
                    .is_some_and(|(_, g)| !at_most_lengths(g, v))
                {
                    return None;
                }
                if !mentions_ident(&arm.body.to_token_stream(), v) {
                    continue;
                }
                match arm_push(&arm.body, v) {
                    Some(value) => values.push(value),
                    None => expr(&arm.body, v, values)?,
                }
            }
            Some(())
        }
        other => at_most_lengths(other, v).then_some(()),
    }
}

/// `v.push(e);` (or `v.push(e)` ending a block): `e`, which may read
/// `v`'s length (the pushes so far).
fn push_of(stmt: &Stmt, v: &str) -> Option<Expr> {
    let Stmt::Expr(Expr::MethodCall(m), _) = stmt else {
        return None;
    };
    let value = m.args.first()?;
    (is_name(&m.receiver, v)
        && m.method == "push"
        && m.args.len() == 1
        && m.turbofish.is_none()
        && at_most_lengths(value, v))
    .then(|| value.clone())
}

/// `v.push(e)` as a `match` arm's value.
fn arm_push(body: &Expr, v: &str) -> Option<Expr> {
    push_of(&Stmt::Expr(body.clone(), None), v)
}

/// Whether `v` is named in `e` only as `v.len()` or `v.is_empty()`, if
/// at all.
fn at_most_lengths(e: &Expr, v: &str) -> bool {
    let mut lengths = Lengths::new(v);
    lengths.visit_expr(e);
    !lengths.other
}

/// The reads of a `Vec`'s length, and whether it is named otherwise.
struct Lengths<'a> {
    v: &'a str,
    /// `v` named other than by its length
    other: bool,
}

impl<'a> Lengths<'a> {
    fn new(v: &'a str) -> Self {
        Lengths { v, other: false }
    }
    fn only(&self) -> bool {
        !self.other
    }
}

impl<'ast> Visit<'ast> for Lengths<'_> {
    fn visit_expr(&mut self, e: &'ast Expr) {
        match e {
            Expr::MethodCall(m)
                if is_name(&m.receiver, self.v)
                    && m.args.is_empty()
                    && m.turbofish.is_none()
                    && (m.method == "len" || m.method == "is_empty") => {}
            Expr::Path(p) if p.path.is_ident(self.v) => self.other = true,
            _ => syn::visit::visit_expr(self, e),
        }
    }
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        if mentions_ident(&m.tokens, self.v) {
            self.other = true;
        }
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

fn is_name(e: &Expr, v: &str) -> bool {
    matches!(e, Expr::Path(p) if p.qself.is_none() && p.path.is_ident(v))
}

/// Each push into `v` that [`plan`] found becomes `{ v[k] = e; k += 1; }`,
/// and `v.len()` the counter `k`, `v.is_empty()` `k == 0`.
pub(super) fn write(body: &mut Block, v: &Ident, k: &Ident) {
    Writes { v, k }.visit_block_mut(body);
}

struct Writes<'a> {
    v: &'a Ident,
    k: &'a Ident,
}

impl Writes<'_> {
    /// (the value evaluated before the counter moves on: the length it
    /// reads is the pushes before it)
    fn written(&mut self, value: &Expr) -> Expr {
        let mut value = value.clone();
        self.visit_expr_mut(&mut value);
        let (v, k) = (self.v, self.k);
        syn::parse_quote!({ #v[#k] = #value; #k += 1; })
    }
}

impl VisitMut for Writes<'_> {
    fn visit_stmt_mut(&mut self, s: &mut Stmt) {
        match push_of(s, &self.v.to_string()) {
            Some(value) => *s = Stmt::Expr(self.written(&value), None),
            None => visit_mut::visit_stmt_mut(self, s),
        }
    }
    fn visit_arm_mut(&mut self, arm: &mut syn::Arm) {
        match arm_push(&arm.body, &self.v.to_string()) {
            Some(value) => *arm.body = self.written(&value),
            None => visit_mut::visit_arm_mut(self, arm),
        }
    }
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        let length = match &*e {
            Expr::MethodCall(m)
                if is_name(&m.receiver, &self.v.to_string())
                    && (m.method == "len" || m.method == "is_empty") =>
            {
                Some(m.method == "is_empty")
            }
            _ => None,
        };
        let k = self.k;
        match length {
            Some(true) => *e = syn::parse_quote!((#k == 0)),
            Some(false) => *e = syn::parse_quote!(#k),
            None => visit_mut::visit_expr_mut(self, e),
        }
    }
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// The `Vec` the loop leaves: the first `k` elements written, copied into
/// a `Vec` made by `vec!` (an array Mica knows wherever it is lent, as the
/// `Vec` filled in full is). `full` and `j` are fresh names.
pub(super) fn cut(v: &Ident, k: &Ident, zero: &Expr, full: &Ident, j: &Ident) -> Vec<Stmt> {
    vec![
        syn::parse_quote!(let #full = #v;),
        syn::parse_quote!(let mut #v = vec![#zero; #k];),
        syn::parse_quote!(
            #[allow(clippy::needless_range_loop, clippy::manual_memcpy)]
            for #j in 0..#k {
                #v[#j] = #full[#j];
            }
        ),
    ]
}
