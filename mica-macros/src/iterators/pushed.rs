//! A `Vec` filled by `push`, written as the array it ends as:
//!
//! ```text
//! let mut r = Vec::new();
//! for v in x.iter().rev() { r.push(w * v); }
//! // is
//! let __mica_pushes_1: usize = ::mica::__private::trip(&((0..x.len()).rev()));
//! let mut r = vec![0.0; __mica_pushes_1];
//! let mut __mica_pushed_2 = 0usize;
//! for v in x.iter().rev() { r[__mica_pushed_2] = w * v; __mica_pushed_2 += 1; }
//! ```
//!
//! (`for i in 0..x.len()` with one push writes `r[i]`: the loop's index
//! counts the pushes.)
//!
//! Taken only where the two are the same `Vec` element for element: the
//! `Vec` starts empty (`Vec::new()`, `Vec::with_capacity(c)`, `vec![]`),
//! the next statement that names it is a `for` loop, and that loop names it
//! only in `push`es among the statements of its body (or once, in the body
//! of a loop nested that way), which every iteration runs: no branch around
//! them, nothing that leaves an iteration or the loop early. The pushes are
//! then the iterations times the pushes in the body, counted before the
//! loop from the same ranges (evaluated again: ranges and iterators over arrays, which have no
//! effects). Anything else keeps its `push`, which the lowering refuses
//! with a message that says what to write.

mod body;

use crate::names::{idents_in, mentions_ident};
mod count;
mod floats;
mod partial;

use body::{is_float_param, is_std_float, leaves, ungroup, vec_element, Binds, Names};
use count::{is_range, positions, strip};
use floats::{float_by_form, not_a_float};
use quote::{format_ident, quote, ToTokens};
use std::collections::HashSet;
use syn::visit::Visit;
use syn::visit_mut::{self, VisitMut};
use syn::{Block, Expr, Ident, Pat, Stmt};

/// Rewrites the `Vec`s of `block` that recorded values are pushed into;
/// whether anything changed. `active`: the names that may hold a recorded
/// value; `floats`: the function's float type parameters; `next`: the
/// number after the last `__mica_…_n` name in use.
pub(super) fn rewrite(
    item: &mut syn::ItemFn,
    active: &HashSet<String>,
    floats: &[Ident],
    next: &mut usize,
    windows_only: bool,
) -> bool {
    let names = Names::of(&item.sig, &item.block, floats);
    let block = &mut item.block;
    let mut pass = Pushes {
        active,
        names: &names,
        floats,
        next,
        changed: false,
        windows_only,
        in_window: 0,
    };
    pass.visit_block_mut(block);
    pass.changed
}

struct Pushes<'a> {
    active: &'a HashSet<String>,
    names: &'a Names,
    floats: &'a [Ident],
    next: &'a mut usize,
    changed: bool,
    /// a function without tracked parameters: what is recorded is in its
    /// `tape!` windows, and a `Vec` outside them is plain Rust's
    windows_only: bool,
    in_window: usize,
}

impl VisitMut for Pushes<'_> {
    fn visit_block_mut(&mut self, block: &mut Block) {
        visit_mut::visit_block_mut(self, block);
        if !self.windows_only || self.in_window > 0 {
            self.lines(&mut block.stmts);
        }
    }

    /// the lines of a `tape!` window, as a block's; the elements of a
    /// `vec![…]`
    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        let window = m.path.segments.last().is_some_and(|s| s.ident == "tape");
        let parsed = syn::parse::Parser::parse2(Block::parse_within, m.tokens.clone());
        match (window, parsed) {
            (true, Ok(mut stmts)) => {
                self.in_window += 1;
                stmts.iter_mut().for_each(|s| self.visit_stmt_mut(s));
                self.lines(&mut stmts);
                self.in_window -= 1;
                m.tokens = quote!(#(#stmts)*);
            }
            (true, Err(_)) => {}
            (false, _) => crate::facts::syntax::visit_macro_mut(self, m),
        }
    }

    // a nested function is expanded on its own
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

impl Pushes<'_> {
    /// The `Vec`s a sequence of statements starts empty and fills by
    /// `push`, made as the arrays they end as.
    fn lines(&mut self, stmts: &mut Vec<Stmt>) {
        let mut k = 0;
        while k < stmts.len() {
            match self.filled(stmts, k) {
                Some((at, lines, pushed)) => {
                    let Stmt::Expr(Expr::ForLoop(f), _) = &mut stmts[at] else {
                        unreachable!("`filled` found a loop there")
                    };
                    let (v, at_k, partly) = pushed;
                    match (&at_k, partly) {
                        (At::Counter(c), Some(zero)) => {
                            partial::write(&mut f.body, &v, c);
                            // the `Vec` the loop leaves, where it is read
                            let name = v.to_string();
                            if stmts[at + 1..]
                                .iter()
                                .any(|s| mentions_ident(&s.to_token_stream(), &name))
                            {
                                let (full, j) = (self.fresh("full"), self.fresh("j"));
                                let cut = partial::cut(&v, c, &zero, &full, &j);
                                for (n, line) in cut.into_iter().enumerate() {
                                    stmts.insert(at + 1 + n, line);
                                }
                            }
                        }
                        _ => write_pushes(&mut f.body, &v, &at_k),
                    }
                    let Stmt::Expr(Expr::ForLoop(f), _) = &mut stmts[at] else {
                        unreachable!("`filled` found a loop there")
                    };
                    if let At::Counter(_) = at_k {
                        // (the counter is Mica's, in code the user's
                        // function may show)
                        f.attrs
                            .push(syn::parse_quote!(#[allow(clippy::explicit_counter_loop)]));
                    }
                    // (the capacity evaluated where it was, the `Vec`
                    // made just before the loop)
                    let at = match capacity_of(&stmts[k]) {
                        Some(c) => {
                            stmts[k] = syn::parse_quote!(let _ = #c;);
                            at
                        }
                        None => {
                            stmts.remove(k);
                            at - 1
                        }
                    };
                    for (n, line) in lines.into_iter().enumerate() {
                        stmts.insert(at + n, line);
                    }
                    self.changed = true;
                }
                None => k += 1,
            }
        }
    }

    fn fresh(&mut self, role: &str) -> Ident {
        *self.next += 1;
        format_ident!("__mica_{}_{}", role, self.next)
    }

    /// Whether `stmts[k]` starts an empty `Vec` that the loop at the
    /// returned position fills: that position, the lines that make the
    /// `Vec` just before it (replacing `stmts[k]`), and its name with the
    /// counter the pushes write at and, where an iteration may skip them,
    /// the `Vec`'s zero (it is cut to the counter after the loop).
    #[allow(clippy::type_complexity)]
    fn filled(
        &mut self,
        stmts: &[Stmt],
        k: usize,
    ) -> Option<(usize, Vec<Stmt>, (Ident, At, Option<Expr>))> {
        let Stmt::Local(local) = &stmts[k] else {
            return None;
        };
        let (v, ty) = empty_vec(local)?;
        let name = v.to_string();
        let at =
            (k + 1..stmts.len()).find(|&j| mentions_ident(&stmts[j].to_token_stream(), &name))?;
        let Stmt::Expr(Expr::ForLoop(f), _) = &stmts[at] else {
            return None;
        };
        let (count, values, partly) = match plan(f, &name, self.names) {
            Some((count, values)) => (count, values, false),
            None => {
                let (count, values) = partial::plan(f, &name, self.names)?;
                (count, values, true)
            }
        };
        // (`Vec<_>` is typed by its elements, as no annotation is)
        let named = ty
            .as_ref()
            .filter(|t| !matches!(ungroup(t), syn::Type::Infer(_)));
        // recorded values, or floats a recorded value may later be
        // written among or the `Vec` lent where a recorded array is (`acc
        // .push(0.0)`, then `acc[i] += w[i] * x`): an array Mica knows
        let floats = named.is_some_and(|t| is_std_float(t) || is_float_param(t, self.floats))
            || values
                .iter()
                .all(|v| float_by_form(v, self.floats, self.names));
        if !floats && !values.iter().any(|v| self.mentions_active(v)) {
            return None;
        }
        let zero: Expr = match (named, self.floats) {
            (Some(t), _) if is_float_param(t, self.floats) => crate::generics::zero(t),
            (Some(t), _) if !is_std_float(t) => return None,
            (None, [t]) => crate::generics::zero(t),
            _ => syn::parse_quote!(0.0),
        };
        if values.iter().any(not_a_float) {
            return None;
        }
        let n = self.fresh("pushes");
        let at_k = match by_index(f, &name).filter(|_| !partly) {
            Some(i) => At::Index(i),
            None => At::Counter(self.fresh("pushed")),
        };
        let declared = match &ty {
            Some(t) => quote!(let mut #v: ::std::vec::Vec<#t> = vec![#zero; #n];),
            None => quote!(let mut #v = vec![#zero; #n];),
        };
        let mut lines: Vec<Stmt> = Vec::new();
        lines.push(syn::parse_quote!(let #n: usize = #count;));
        lines.push(syn::parse2(declared).ok()?);
        if let At::Counter(k) = &at_k {
            lines.push(syn::parse_quote!(let mut #k = 0usize;));
        }
        Some((at, lines, (v, at_k, partly.then_some(zero))))
    }

    fn mentions_active(&self, e: &Expr) -> bool {
        let mut names = HashSet::new();
        idents_in(e.to_token_stream(), &mut names);
        names.iter().any(|n| self.active.contains(n))
    }
}

/// `let mut v = Vec::new();` (or `Vec::with_capacity(c)`, `vec![]`, with
/// or without `: Vec<T>`): `v` and `T`.
fn empty_vec(local: &syn::Local) -> Option<(Ident, Option<syn::Type>)> {
    let init = local.init.as_ref().filter(|i| i.diverge.is_none())?;
    if !local.attrs.is_empty() {
        return None;
    }
    let (pat, ty) = match &local.pat {
        Pat::Type(t) => (&*t.pat, Some(vec_element(&t.ty)?.clone())),
        p => (p, None),
    };
    let Pat::Ident(p) = pat else { return None };
    if p.mutability.is_none() || p.by_ref.is_some() || p.subpat.is_some() {
        return None;
    }
    let (empty, turbofish) = match &*init.expr {
        Expr::Call(c) if c.args.is_empty() => is_vec_fn(&c.func, "new"),
        Expr::Call(c) if c.args.len() == 1 => is_vec_fn(&c.func, "with_capacity"),
        Expr::Macro(m) => (m.mac.path.is_ident("vec") && m.mac.tokens.is_empty(), None),
        _ => (false, None),
    };
    empty.then(|| (p.ident.clone(), ty.or(turbofish)))
}

/// `Vec::new` / `Vec::<T>::new` (by `f`'s name), and the `T`.
fn is_vec_fn(func: &Expr, f: &str) -> (bool, Option<syn::Type>) {
    let Expr::Path(p) = func else {
        return (false, None);
    };
    let segs: Vec<_> = p.path.segments.iter().collect();
    if p.qself.is_some() || segs.len() != 2 || segs[0].ident != "Vec" || segs[1].ident != f {
        return (false, None);
    }
    let element = match &segs[0].arguments {
        syn::PathArguments::AngleBracketed(a) => match a.args.first() {
            Some(syn::GenericArgument::Type(t)) if a.args.len() == 1 => Some(t.clone()),
            _ => return (false, None),
        },
        _ => None,
    };
    (true, element)
}

/// `c` of `let mut v = Vec::with_capacity(c);`.
fn capacity_of(stmt: &Stmt) -> Option<Expr> {
    let Stmt::Local(local) = stmt else {
        return None;
    };
    match &*local.init.as_ref()?.expr {
        Expr::Call(c) if c.args.len() == 1 => c.args.first().cloned(),
        _ => None,
    }
}

/// The pushes `f` makes into `v`, counted before it, and the values
/// pushed: one or more pushes among its body's statements, each run once an
/// iteration, or a loop nested there that pushes so; `None` where a push
/// may be skipped or repeated otherwise.
fn plan(f: &syn::ExprForLoop, v: &str, names: &Names) -> Option<(Expr, Vec<Expr>)> {
    if mentions_ident(&f.expr.to_token_stream(), v) || leaves(&f.body) {
        return None;
    }
    if rebinds(f, v) {
        return None;
    }
    let shadow = positions(&f.expr, &names.arrays)?;
    let count: Expr = syn::parse_quote!(::mica::__private::trip(&(#shadow)));
    let hits: Vec<&Stmt> = f
        .body
        .stmts
        .iter()
        .filter(|s| mentions_ident(&s.to_token_stream(), v))
        .collect();
    // pushes among the body's statements, each run once an iteration
    let values: Option<Vec<Expr>> = hits.iter().map(|s| pushed(s, v)).collect();
    match (values, hits.as_slice()) {
        (Some(values), [_]) => return Some((count, values)),
        (Some(values), [_, ..]) => {
            let k = values.len();
            return Some((syn::parse_quote!(#count * #k), values));
        }
        (_, [_]) => {}
        _ => return None,
    }
    // a nested loop, every iteration of it pushing as often
    let Stmt::Expr(Expr::ForLoop(inner), _) = hits[0] else {
        return None;
    };
    let (per, value) = plan(inner, v, names)?;
    // the inner count, evaluated once per outer iteration, may read the
    // outer loop's names, and names that do not change: not one the body
    // binds again, nor one that may change anywhere (bound `mut` or to a
    // `&mut`: every change, by assignment or through a call, needs one);
    // nor an item of the body
    let mut read = HashSet::new();
    idents_in(per.to_token_stream(), &mut read);
    let mut bound = Binds::default();
    bound.visit_block(&f.body);
    let outer: Vec<String> = crate::facts::places::pattern_names(&f.pat)
        .iter()
        .map(|n| n.to_string())
        .collect();
    let changes = |n: &String| bound.0.iter().any(|(b, _)| b == n) || names.mutable.contains(n);
    let items = f.body.stmts.iter().any(|s| matches!(s, Stmt::Item(_)));
    if items || read.iter().any(|n| !outer.contains(n) && changes(n)) {
        return None;
    }
    let reads_outer = outer.iter().any(|n| read.contains(n));
    let pat = &f.pat;
    let iterable = &f.expr;
    let count = if !reads_outer {
        syn::parse_quote!(::mica::__private::room_times(&(#shadow), || #per))
    } else if is_range(iterable) {
        syn::parse_quote!(::mica::__private::room_each(#iterable, |#pat| #per))
    } else {
        return None;
    };
    Some((count, value))
}

/// Whether a pattern of the loop `f` or a `let` in it binds `v`: another
/// `v` than the `Vec`.
fn rebinds(f: &syn::ExprForLoop, v: &str) -> bool {
    let mut binds = Binds::default();
    binds.visit_pat(&f.pat);
    binds.visit_block(&f.body);
    binds.0.iter().any(|(n, _)| n == v)
}

/// `v.push(e);` (or `v.push(e)` ending a block): `e`, where `e` does not
/// name `v`.
fn pushed(stmt: &Stmt, v: &str) -> Option<Expr> {
    let Stmt::Expr(Expr::MethodCall(m), _) = stmt else {
        return None;
    };
    let receiver_is_v = matches!(&*m.receiver, Expr::Path(p) if p.path.is_ident(v));
    let value = m.args.first()?;
    (receiver_is_v && m.method == "push" && m.args.len() == 1)
        .then_some(())
        .filter(|_| !mentions_ident(&value.to_token_stream(), v))?;
    Some(value.clone())
}

/// Where a push writes: the next element by a counter, or the loop's own
/// index where that counts the pushes from zero.
enum At {
    Counter(Ident),
    Index(Ident),
}

/// The index of `for i in 0..e` where `i` counts the pushes into `v` from
/// zero and is a `usize` (`e` a length or a literal): the push in the loop's
/// own body, and no statement before it binding `i` again.
fn by_index(f: &syn::ExprForLoop, v: &str) -> Option<Ident> {
    let Pat::Ident(p) = &*f.pat else { return None };
    if p.by_ref.is_some() || p.mutability.is_some() || p.subpat.is_some() {
        return None;
    }
    let Expr::Range(r) = strip(&f.expr) else {
        return None;
    };
    // (`usize` by its end: a length, or a literal of that suffix; an
    // unsuffixed end may be typed otherwise by the body, `x.powi(i)`)
    let literal = |e: &Expr, suffixes: &[&str]| match strip(e) {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => suffixes
            .contains(&i.suffix())
            .then(|| i.base10_digits() == "0"),
        _ => None,
    };
    let length = |e: &Expr| matches!(strip(e), Expr::MethodCall(m) if m.method == "len" && m.args.is_empty());
    let end = r.end.as_deref()?;
    if literal(r.start.as_deref()?, &["", "usize"]) != Some(true)
        || !(length(end) || literal(end, &["usize"]).is_some())
    {
        return None;
    }
    let mut pushes = f
        .body
        .stmts
        .iter()
        .enumerate()
        .filter(|(_, s)| pushed(s, v).is_some());
    let (at, _) = pushes.next()?;
    if pushes.next().is_some() {
        return None;
    }
    let mut before = Binds::default();
    f.body.stmts[..at].iter().for_each(|s| before.visit_stmt(s));
    let index = p.ident.to_string();
    (!before.0.iter().any(|(b, _)| *b == index)).then(|| p.ident.clone())
}

/// Each `v.push(e);` (in the body or a nested loop's, as [`plan`] found
/// them) becomes `v[k] = e; k += 1;` (`v[i] = e;` by the loop's index).
fn write_pushes(body: &mut Block, v: &Ident, at_k: &At) {
    for stmt in body.stmts.iter_mut() {
        if let Some(value) = pushed(stmt, &v.to_string()) {
            let lines: Stmt = match at_k {
                At::Counter(k) => syn::parse_quote!({ #v[#k] = #value; #k += 1; }),
                At::Index(i) => syn::parse_quote!(#v[#i] = #value;),
            };
            *stmt = lines;
            continue;
        }
        if let Stmt::Expr(Expr::ForLoop(inner), _) = stmt {
            if mentions_ident(&inner.body.to_token_stream(), &v.to_string()) {
                return write_pushes(&mut inner.body, v, at_k);
            }
        }
    }
}
