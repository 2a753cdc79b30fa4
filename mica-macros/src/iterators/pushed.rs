//! A `Vec` filled by `push`, written as the array it ends as:
//!
//! ```text
//! let mut r = Vec::new();
//! for v in x.iter().rev() { r.push(w * v); }
//! // is
//! let __mica_pushes_1 = ::mica::__private::exact((0..x.len()).rev());
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
use body::{leaves, Changed};
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
    block: &mut Block,
    active: &HashSet<String>,
    floats: &[Ident],
    next: &mut usize,
    windows_only: bool,
) -> bool {
    let mut pass = Pushes {
        active,
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
                    let (v, at_k) = pushed;
                    write_pushes(&mut f.body, &v, &at_k);
                    if let At::Counter(_) = at_k {
                        // (the counter is Mica's, in code the user's
                        // function may show)
                        f.attrs
                            .push(syn::parse_quote!(#[allow(clippy::explicit_counter_loop)]));
                    }
                    stmts.remove(k);
                    let at = at - 1;
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
    /// counter the pushes write at.
    #[allow(clippy::type_complexity)]
    fn filled(&mut self, stmts: &[Stmt], k: usize) -> Option<(usize, Vec<Stmt>, (Ident, At))> {
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
        let (count, values) = plan(f, &name)?;
        if !values.iter().any(|v| self.mentions_active(v)) {
            return None;
        }
        // (`Vec<_>` is typed by its elements, as no annotation is)
        let named = ty
            .as_ref()
            .filter(|t| !matches!(ungroup(t), syn::Type::Infer(_)));
        let zero: Expr = match (named, self.floats) {
            (Some(t), _) if is_float_param(t, self.floats) => crate::generics::zero(t),
            (Some(t), _) if !is_std_float(t) => return None,
            (None, [t]) => crate::generics::zero(t),
            _ => syn::parse_quote!(0.0),
        };
        let literal = |v: &Expr| matches!(v, Expr::Array(_) | Expr::Tuple(_) | Expr::Repeat(_));
        if values.iter().any(literal) {
            return None;
        }
        let n = self.fresh("pushes");
        let at_k = match by_index(f, &name) {
            Some(i) => At::Index(i),
            None => At::Counter(self.fresh("pushed")),
        };
        let declared = match &ty {
            Some(t) => quote!(let mut #v: ::std::vec::Vec<#t> = vec![#zero; #n];),
            None => quote!(let mut #v = vec![#zero; #n];),
        };
        let capacity = capacity_of(local);
        let mut lines: Vec<Stmt> = Vec::new();
        if let Some(c) = capacity.filter(|c| !quiet(c)) {
            lines.push(syn::parse_quote!(let _ = #c;));
        }
        lines.push(syn::parse_quote!(let #n: usize = #count;));
        lines.push(syn::parse2(declared).ok()?);
        if let At::Counter(k) = &at_k {
            lines.push(syn::parse_quote!(let mut #k = 0usize;));
        }
        Some((at, lines, (v, at_k)))
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
        Pat::Type(t) => (&*t.pat, Some(vec_element(&t.ty)?)),
        p => (p, None),
    };
    let Pat::Ident(p) = pat else { return None };
    if p.mutability.is_none() || p.by_ref.is_some() || p.subpat.is_some() {
        return None;
    }
    let empty = match &*init.expr {
        Expr::Call(c) if c.args.is_empty() => is_vec_fn(&c.func, "new"),
        Expr::Call(c) if c.args.len() == 1 => is_vec_fn(&c.func, "with_capacity"),
        Expr::Macro(m) => m.mac.path.is_ident("vec") && m.mac.tokens.is_empty(),
        _ => false,
    };
    empty.then(|| (p.ident.clone(), ty))
}

/// `Vec::new` / `Vec::<T>::new` (by `f`'s name).
fn is_vec_fn(func: &Expr, f: &str) -> bool {
    let Expr::Path(p) = func else { return false };
    let segs: Vec<_> = p.path.segments.iter().collect();
    p.qself.is_none() && segs.len() == 2 && segs[0].ident == "Vec" && segs[1].ident == f
}

/// `Vec<T>`: `T`.
fn vec_element(ty: &syn::Type) -> Option<syn::Type> {
    let syn::Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    if last.ident != "Vec" || p.qself.is_some() {
        return None;
    }
    let syn::PathArguments::AngleBracketed(a) = &last.arguments else {
        return None;
    };
    match a.args.first() {
        Some(syn::GenericArgument::Type(t)) if a.args.len() == 1 => Some(t.clone()),
        _ => None,
    }
}

fn is_std_float(t: &syn::Type) -> bool {
    matches!(ungroup(t), syn::Type::Path(p) if p.path.is_ident("f64") || p.path.is_ident("f32"))
}

fn is_float_param(t: &syn::Type, floats: &[Ident]) -> bool {
    matches!(ungroup(t), syn::Type::Path(p) if floats.iter().any(|f| p.path.is_ident(f)))
}

/// A type without the invisible group a macro's `$t` stands in.
fn ungroup(t: &syn::Type) -> &syn::Type {
    match t {
        syn::Type::Group(g) => ungroup(&g.elem),
        syn::Type::Paren(p) => ungroup(&p.elem),
        _ => t,
    }
}

/// `c` of `Vec::with_capacity(c)`.
fn capacity_of(local: &syn::Local) -> Option<Expr> {
    match &*local.init.as_ref()?.expr {
        Expr::Call(c) if c.args.len() == 1 => c.args.first().cloned(),
        _ => None,
    }
}

/// An integer expression that may be evaluated again: names, literals,
/// lengths, elements, arithmetic, `min`/`max`.
fn pure(e: &Expr) -> bool {
    match e {
        Expr::Lit(_) | Expr::Path(_) => true,
        Expr::Paren(p) => pure(&p.expr),
        Expr::Group(g) => pure(&g.expr),
        Expr::Binary(b) => pure(&b.left) && pure(&b.right),
        Expr::Unary(u) => pure(&u.expr),
        Expr::Cast(c) => pure(&c.expr),
        Expr::Field(f) => pure(&f.base),
        Expr::Index(i) => pure(&i.expr) && pure(&i.index),
        Expr::MethodCall(m) => {
            let method = m.method.to_string();
            let known = ["len", "min", "max", "saturating_sub", "pow", "abs"];
            known.contains(&method.as_str()) && pure(&m.receiver) && m.args.iter().all(pure)
        }
        // the counts of chunks and windows, as the views write a loop over
        // them (`0..::mica::__private::chunks_count(x.len(), k)`)
        Expr::Call(c) => {
            let counts = ["chunks_count", "chunks_exact_count", "windows_count"];
            let Expr::Path(f) = &*c.func else {
                return false;
            };
            let names: Vec<String> = f
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect();
            let count = matches!(names.as_slice(), [m, p, n] if m == "mica" && p == "__private" && counts.contains(&n.as_str()));
            count && c.args.iter().all(pure)
        }
        _ => false,
    }
}

/// A capacity that can be left out: names, literals, lengths, arithmetic.
fn quiet(e: &Expr) -> bool {
    match e {
        Expr::Lit(_) | Expr::Path(_) => true,
        Expr::Paren(p) => quiet(&p.expr),
        Expr::Binary(b) => quiet(&b.left) && quiet(&b.right),
        Expr::MethodCall(m) => m.method == "len" && m.args.is_empty() && quiet(&m.receiver),
        Expr::Field(f) => quiet(&f.base),
        _ => false,
    }
}

/// The pushes `f` makes into `v`, counted before it, and the values
/// pushed: one or more pushes among its body's statements, each run once an
/// iteration, or a loop nested there that pushes so; `None` where a push
/// may be skipped or repeated otherwise.
fn plan(f: &syn::ExprForLoop, v: &str) -> Option<(Expr, Vec<Expr>)> {
    if mentions_ident(&f.expr.to_token_stream(), v) || leaves(&f.body) {
        return None;
    }
    let count = count_of(&f.expr)?;
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
    let (per, value) = plan(inner, v)?;
    // the inner count, evaluated once per outer iteration, may read the
    // outer loop's names only: not what its body binds or changes
    let mut read = HashSet::new();
    idents_in(per.to_token_stream(), &mut read);
    let mut changed = Changed(HashSet::new());
    changed.visit_block(&f.body);
    if read.iter().any(|n| changed.0.contains(n)) {
        return None;
    }
    let names = crate::facts::places::pattern_names(&f.pat);
    let reads_outer = names.iter().any(|n| read.contains(&n.to_string()));
    let pat = &f.pat;
    let iterable = &f.expr;
    let count = if !reads_outer {
        syn::parse_quote!(match #count { 0 => 0, n => n * (#per) })
    } else if is_range(iterable) {
        syn::parse_quote!(::mica::__private::room_each(#iterable, |#pat| #per))
    } else {
        return None;
    };
    Some((count, value))
}

/// `v.push(e);`: `e`, where `e` does not name `v`.
fn pushed(stmt: &Stmt, v: &str) -> Option<Expr> {
    let Stmt::Expr(Expr::MethodCall(m), Some(_)) = stmt else {
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
    let index_literal = |e: &Expr| match strip(e) {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => matches!(i.suffix(), "" | "usize").then(|| i.base10_digits() == "0"),
        _ => None,
    };
    let length = |e: &Expr| matches!(strip(e), Expr::MethodCall(m) if m.method == "len" && m.args.is_empty());
    let end = r.end.as_deref()?;
    if index_literal(r.start.as_deref()?) != Some(true)
        || !(length(end) || index_literal(end).is_some())
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
    let mut before = Changed(HashSet::new());
    f.body.stmts[..at].iter().for_each(|s| before.visit_stmt(s));
    (!before.0.contains(&p.ident.to_string())).then(|| p.ident.clone())
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

/// The iterations of a `for` loop over `iterable`, as an expression that
/// reads no element: a range (reversed, stepped) evaluated again, or an
/// iterator over named arrays written over their positions instead
/// ([`positions`]), whose length it is.
fn count_of(iterable: &Expr) -> Option<Expr> {
    if is_range(iterable) {
        return Some(syn::parse_quote!(::mica::__private::trip(&(#iterable))));
    }
    let shadow = positions(iterable)?;
    Some(syn::parse_quote!(::mica::__private::exact(#shadow)))
}

/// An iterator of as many items as `e` gives, over positions: a named
/// array (`xs`, `&xs`, `xs.iter()`) is `0..xs.len()`, its chunks and
/// windows `0..` their count; `zip`, `enumerate`, `rev`, `skip`, `take`
/// and `step_by` are kept, `copied`, `cloned` and `map` left out (they
/// keep the count). `None` for anything else.
fn positions(e: &Expr) -> Option<Expr> {
    if is_range(e) {
        return Some(e.clone());
    }
    let named = |e: &Expr| match strip(e) {
        Expr::Path(p) if p.path.get_ident().is_some() => Some(p.clone()),
        _ => None,
    };
    match strip(e) {
        Expr::Path(_) => {
            let p = named(e)?;
            Some(syn::parse_quote!((0..#p.len())))
        }
        Expr::Reference(r) => {
            let p = named(&r.expr)?;
            Some(syn::parse_quote!((0..#p.len())))
        }
        Expr::MethodCall(m) => {
            let method = m.method.to_string();
            let args = &m.args;
            match (method.as_str(), args.len()) {
                ("iter" | "iter_mut", 0) => {
                    let p = named(&m.receiver)?;
                    Some(syn::parse_quote!((0..#p.len())))
                }
                ("chunks" | "chunks_exact" | "windows", 1) if pure(&args[0]) => {
                    let p = named(&m.receiver)?;
                    let k = &args[0];
                    let count = format_ident!("{}_count", method);
                    Some(syn::parse_quote!((0..::mica::__private::#count(#p.len(), #k))))
                }
                ("zip", 1) => {
                    let (a, b) = (positions(&m.receiver)?, positions(&args[0])?);
                    Some(syn::parse_quote!(#a.zip(#b)))
                }
                ("enumerate" | "rev", 0) => {
                    let a = positions(&m.receiver)?;
                    let method = &m.method;
                    Some(syn::parse_quote!(#a.#method()))
                }
                ("skip" | "take" | "step_by", 1) if pure(&args[0]) => {
                    let a = positions(&m.receiver)?;
                    let (method, k) = (&m.method, &args[0]);
                    Some(syn::parse_quote!(#a.#method(#k)))
                }
                ("copied" | "cloned", 0) | ("map", 1) => positions(&m.receiver),
                _ => None,
            }
        }
        _ => None,
    }
}

/// A range with both ends, possibly reversed or stepped, whose ends may
/// be evaluated again.
fn is_range(e: &Expr) -> bool {
    match strip(e) {
        Expr::Range(r) => match (&r.start, &r.end) {
            (Some(a), Some(b)) => pure(a) && pure(b),
            _ => false,
        },
        Expr::MethodCall(m) => match (m.method.to_string().as_str(), m.args.len()) {
            ("rev", 0) => is_range(&m.receiver),
            ("step_by", 1) => pure(&m.args[0]) && is_range(&m.receiver),
            _ => false,
        },
        _ => false,
    }
}

fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip(&p.expr),
        Expr::Group(g) => strip(&g.expr),
        _ => e,
    }
}
