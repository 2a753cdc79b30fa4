//! Slice views written as the indices they stand for, before any analysis:
//!
//! ```text
//! let row = &x[i * d..(i + 1) * d];   row[j]   row.len()   dot(row, w)
//! // is
//! let lo = i * d; let hi = (i + 1) * d;   x[lo + j]   (hi - lo)   dot(&x[lo..hi], w)
//! ```
//!
//! A view is a `let` of a borrowed sub-slice (`&x[a..b]`, `&mut x[a..]`,
//! `&x[..b]`), the halves of `x.split_at(k)`, or the element of a loop
//! over `x.chunks(d)`, `x.chunks_exact(d)`, `x.windows(k)` (and the
//! `_mut` chunks), alone or under `enumerate`, `zip`, `rev`, `skip`,
//! `take` and `step_by`: that loop runs over the chunks' numbers and binds
//! the chunk as a view. Each use of the view's name is then the place it
//! borrows, so every recorded read is an element of an array Mica knows.
//!
//! The view's ends are computed once, where the view is made: the names
//! they mention may change after it. Rust's borrow rules keep the viewed
//! array itself unchanged while the view is in use, so reading it there
//! reads what the view held. A view whose array's name is bound again
//! later in its block stays as written (and is refused as before). The
//! view's bounds are checked where it is made, as slicing checks them;
//! an index past the view's end reads the array beyond it (the function
//! as written, the primal, panics there).

use crate::errors::Errors;
use crate::helpers::subst::{Borrow, Bound};
use proc_macro2::Span;
use quote::format_ident;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{Expr, Pat, Stmt};

mod chunks;
mod elements;
mod optional;
pub(crate) mod places;
mod tested;

use elements::{
    arithmetic, clone_from, destructured, end_element, for_each_loop, tuple_assign, tuple_let,
};
use places::{is_stable_place, part_of, range_ends, root, simple_name, unparen};

/// Writes the views of `block` as indices; whether anything changed.
pub fn rewrite(block: &mut syn::Block, errors: &mut Errors) -> bool {
    let mut pass = Views {
        next: first_free(block),
        changed: false,
        errors: Vec::new(),
    };
    pass.visit_block_mut(block);
    errors.extend(pass.errors);
    pass.changed
}

struct Views {
    next: usize,
    changed: bool,
    errors: Vec<syn::Error>,
}

/// Whether `stmts` up to the last that names `view` bind `array` again:
/// the view's uses would then read another array under the same name.
fn rebound_while_used(stmts: &[Stmt], view: &syn::Ident, array: &str) -> bool {
    let view = view.to_string();
    let last = stmts
        .iter()
        .rposition(|s| crate::names::mentions_ident(&quote::quote!(#s), &view));
    match last {
        Some(last) => binds_in(&stmts[..=last], array),
        None => false,
    }
}

/// A refused view's value as a constant, so nothing else is said about it.
fn detach(local: &mut syn::Local) {
    if let Some(init) = &mut local.init {
        let value = &init.expr;
        *init.expr = syn::parse_quote!(::mica::detach(#value));
    }
}

/// The error for a view whose array's name is bound again while it is in
/// use.
fn rebound(at: &syn::Ident, array: &str) -> syn::Error {
    syn::Error::new(
        at.span(),
        format!("`{at}` views `{array}`, and `{array}` is bound again while `{at}` is in use; give the new binding another name"),
    )
}

/// The number after the last `__mica_view_` name already in `block` (a
/// body rewritten before, as a helper's inlined body is, keeps its names).
fn first_free(block: &syn::Block) -> usize {
    let mut names = std::collections::HashSet::new();
    crate::names::idents_in(quote::quote!(#block), &mut names);
    names
        .iter()
        .filter_map(|n| n.strip_prefix("__mica_view_"))
        .filter_map(|rest| rest.rsplit('_').next()?.parse::<usize>().ok())
        .max()
        .map_or(0, |n| n + 1)
}

/// How a view borrows.
struct View {
    /// the view's name
    name: syn::Ident,
    /// the array viewed
    place: Expr,
    /// `&mut`
    mutable: bool,
    /// where the view starts and ends (`None`: the array's end)
    lo: Option<Expr>,
    hi: Option<Expr>,
    /// one element (at `lo`), not a part
    element: bool,
}

impl Views {
    /// The bindings in `stmts` that shadow `array` (a closure's parameter
    /// `|h|` over `h.chunks(2)`, a `let`), renamed: a view of `array`
    /// reads it by name wherever it is used.
    pub(super) fn unshadow(&mut self, stmts: &mut [Stmt], array: &str) {
        let mut fresh = || self.fresh(array);
        crate::helpers::subst::Unshadow {
            name: array,
            fresh: &mut fresh,
        }
        .stmts(stmts);
    }

    fn fresh(&mut self, role: &str) -> syn::Ident {
        let n = self.next;
        self.next += 1;
        format_ident!("__mica_view_{}_{}", role, n, span = Span::mixed_site())
    }

    /// `place` with each index that is not a literal computed once, in a
    /// `let` pushed to `lines` (`m[i]` as `m[ix]`): the view then reads the
    /// row it was made of, whatever `i` becomes.
    fn stable(&mut self, place: &Expr, lines: &mut Vec<Stmt>) -> Expr {
        match place {
            Expr::Paren(p) => self.stable(&p.expr, lines),
            Expr::Group(g) => self.stable(&g.expr, lines),
            Expr::Field(f) => {
                let mut f = f.clone();
                *f.base = self.stable(&f.base, lines);
                Expr::Field(f)
            }
            Expr::Index(i) => {
                let mut i = i.clone();
                *i.expr = self.stable(&i.expr, lines);
                *i.index = self.once(&i.index, "ix", lines);
                Expr::Index(i)
            }
            other => other.clone(),
        }
    }

    /// `e` computed once: a literal as it is, anything else bound to a
    /// fresh name by a `let` pushed to `lines`.
    fn once(&mut self, e: &Expr, role: &str, lines: &mut Vec<Stmt>) -> Expr {
        match unparen(e) {
            Expr::Lit(_) => e.clone(),
            _ => {
                let name = self.fresh(role);
                lines.push(syn::parse_quote!(let #name: usize = #e;));
                syn::parse_quote!(#name)
            }
        }
    }

    /// `let` lines binding the view's ends, and the view's name replaced
    /// by what it borrows in `rest`.
    fn bind(&mut self, view: View, rest: &mut [Stmt]) -> Vec<Stmt> {
        let View {
            name,
            place,
            mutable,
            lo,
            hi,
            element,
        } = view;
        let mut lines: Vec<Stmt> = Vec::new();
        let place = self.stable(&place, &mut lines);
        let zero: Expr = syn::parse_quote!(0);
        let lo = lo.map_or(zero, |lo| self.once(&lo, "lo", &mut lines));
        if element {
            // `&mut x[i]`: the element itself, at an index computed once
            let bare: Expr = match mutable {
                true => syn::parse_quote!(&mut #place[#lo]),
                false => syn::parse_quote!(&#place[#lo]),
            };
            let mut borrow =
                Borrow::of(name.to_string(), syn::parse_quote!(#place[#lo]), bare, None);
            borrow.stmts(rest);
            return lines;
        }
        let hi = match hi {
            Some(hi) => self.once(&hi, "hi", &mut lines),
            None => syn::parse_quote!(#place.len()),
        };
        // the bounds slicing checks, checked where the view is made
        lines.push(syn::parse_quote!(
            ::mica::__private::view_bounds(#lo, #hi, #place.len());
        ));
        let bare: Expr = match mutable {
            true => syn::parse_quote!(&mut #place[#lo..#hi]),
            false => syn::parse_quote!(&#place[#lo..#hi]),
        };
        let mut borrow = Borrow::of(name.to_string(), place, bare, Some((lo, Some(hi))));
        borrow.stmts(rest);
        lines
    }
}

/// `let name = &x[a..b];` (or `&mut`, or typed `let name: &[f64] = …`):
/// the view.
fn view_let(local: &syn::Local) -> Option<View> {
    let init = local.init.as_ref()?;
    if init.diverge.is_some() {
        return None;
    }
    let name = simple_name(&local.pat)?;
    let Expr::Reference(r) = unparen(&init.expr) else {
        return None;
    };
    let Expr::Index(ix) = unparen(&r.expr) else {
        return None;
    };
    let Expr::Range(range) = unparen(&ix.index) else {
        return None;
    };
    if !is_stable_place(&ix.expr) {
        return None;
    }
    let (lo, hi) = range_ends(range);
    Some(View {
        name,
        place: (*ix.expr).clone(),
        mutable: r.mutability.is_some(),
        lo,
        hi,
        element: false,
    })
}

/// `let (a, b) = x.split_at(k);` (or `split_at_mut`).
struct Split2 {
    /// the halves' names (`None` for `_`)
    halves: [Option<syn::Ident>; 2],
    /// the array split, or the part of it (`x[a..b]`) with its ends
    place: Expr,
    ends: (Option<Expr>, Option<Expr>),
    /// where, from the part's start
    at: Expr,
    /// `split_at_mut`
    mutable: bool,
}

/// The split a `let` makes, if it is one.
fn split_let(local: &syn::Local) -> Option<Split2> {
    let init = local.init.as_ref()?;
    if init.diverge.is_some() {
        return None;
    }
    let Expr::MethodCall(m) = unparen(&init.expr) else {
        return None;
    };
    let mutable = match m.method.to_string().as_str() {
        "split_at" => false,
        "split_at_mut" => true,
        _ => return None,
    };
    if m.args.len() != 1 {
        return None;
    }
    let (place, lo, hi) = part_of(&m.receiver)?;
    let pat = match &local.pat {
        Pat::Type(t) => &*t.pat,
        p => p,
    };
    let Pat::Tuple(t) = pat else { return None };
    if t.elems.len() != 2 {
        return None;
    }
    let half = |p: &Pat| -> Option<Option<syn::Ident>> {
        match p {
            Pat::Wild(_) => Some(None),
            p => simple_name(p).map(Some),
        }
    };
    let first = half(&t.elems[0])?;
    let second = half(&t.elems[1])?;
    Some(Split2 {
        halves: [first, second],
        place,
        ends: (lo, hi),
        at: m.args[0].clone(),
        mutable,
    })
}

/// Whether `name` is bound anywhere in `stmts` (conservatively: in any
/// pattern, at any depth).
fn binds_in(stmts: &[Stmt], name: &str) -> bool {
    let mut bound = Bound::default();
    for s in stmts {
        bound.visit_stmt(s);
    }
    bound.0.contains(name)
}

impl Views {
    /// A block's statements, views bound and chunk loops rewritten in
    /// order, each statement then visited.
    fn stmts(&mut self, stmts: Vec<Stmt>) -> Vec<Stmt> {
        // the lines still to read, first at the front (taken and put back
        // there in constant time: a long body stays linear)
        let mut rest: std::collections::VecDeque<Stmt> = stmts.into();
        let mut out = Vec::with_capacity(rest.len());
        while let Some(mut stmt) = rest.pop_front() {
            if let Some(lp) = for_each_loop(&stmt) {
                stmt = lp;
                self.changed = true;
            }
            if let Some(lines) = destructured(&stmt) {
                out.extend(lines);
                self.changed = true;
                continue;
            }
            if let Some(assign) = clone_from(&stmt) {
                stmt = assign;
                self.changed = true;
            }
            // (the lines these write are read as any others, views and all)
            let split = tuple_let(&stmt, || self.fresh("part"))
                .or_else(|| tuple_assign(&stmt, || self.fresh("part")));
            if let Some(lines) = split {
                for line in lines.into_iter().rev() {
                    rest.push_front(line);
                }
                self.changed = true;
                continue;
            }
            match &mut stmt {
                Stmt::Local(local) => {
                    if let Some(view) = view_let(local) {
                        let array = root(&view.place).unwrap_or_default();
                        self.unshadow(rest.make_contiguous(), &array);
                        if rebound_while_used(rest.make_contiguous(), &view.name, &array) {
                            self.errors.push(rebound(&view.name, &array));
                            detach(local);
                        } else {
                            out.extend(self.bind(view, rest.make_contiguous()));
                            self.changed = true;
                            continue;
                        }
                    }
                    if let Some(Split2 {
                        halves: [a, b],
                        place,
                        ends,
                        at,
                        mutable,
                    }) = split_let(local)
                    {
                        let array = root(&place).unwrap_or_default();
                        self.unshadow(rest.make_contiguous(), &array);
                        let clash = [&a, &b]
                            .into_iter()
                            .flatten()
                            .find(|name| rebound_while_used(rest.make_contiguous(), name, &array));
                        if let Some(name) = clash {
                            self.errors.push(rebound(name, &array));
                            detach(local);
                        } else {
                            let mut lines = Vec::new();
                            let place = self.stable(&place, &mut lines);
                            let point = self.fresh("at");
                            let (lo, hi) = match ends {
                                (None, None) => {
                                    lines.push(syn::parse_quote!(let #point: usize = #at;));
                                    (None, None)
                                }
                                // a part's split: its ends computed once,
                                // the point inside the part as std checks
                                (lo, hi) => {
                                    let lo = lo.unwrap_or_else(|| syn::parse_quote!(0));
                                    let lo = self.once(&lo, "lo", &mut lines);
                                    let hi = hi.unwrap_or_else(|| syn::parse_quote!(#place.len()));
                                    let hi = self.once(&hi, "hi", &mut lines);
                                    lines.push(syn::parse_quote!(::mica::__private::view_bounds(#lo, #hi, #place.len());));
                                    lines.push(syn::parse_quote!(let #point: usize = #lo + #at;));
                                    lines.push(syn::parse_quote!(::mica::__private::view_bounds(#lo, #point, #hi);));
                                    (Some(lo), Some(hi))
                                }
                            };
                            out.extend(lines);
                            for (name, lo, hi) in [
                                (a, lo, Some(syn::parse_quote!(#point))),
                                (b, Some(syn::parse_quote!(#point)), hi),
                            ] {
                                let Some(name) = name else { continue };
                                let view = View {
                                    name,
                                    place: place.clone(),
                                    mutable,
                                    lo,
                                    hi,
                                    element: false,
                                };
                                out.extend(self.bind(view, rest.make_contiguous()));
                            }
                            self.changed = true;
                            continue;
                        }
                    }
                }
                Stmt::Expr(Expr::ForLoop(f), _) => {
                    if let Some(before) = self.chunk_loop(f) {
                        out.extend(before);
                        self.changed = true;
                    }
                }
                _ => {}
            }
            self.visit_stmt_mut(&mut stmt);
            out.push(stmt);
        }
        out
    }
}

impl VisitMut for Views {
    /// `let l = x.last().unwrap();`: a reference to the element, as
    /// `last` gives it (`let r = &x[i];` is followed)
    fn visit_local_mut(&mut self, local: &mut syn::Local) {
        syn::visit_mut::visit_local_mut(self, local);
        if let Some(init) = &mut local.init {
            if let Some(element) = end_element(&init.expr) {
                *init.expr = syn::parse_quote!(&#element);
                self.changed = true;
            }
        }
    }

    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        let stmts = std::mem::take(&mut block.stmts);
        block.stmts = self.stmts(stmts);
    }

    fn visit_expr_mut(&mut self, e: &mut Expr) {
        // tests written as the branches they are (`views/tested.rs`)
        self.tested(e);
        syn::visit_mut::visit_expr_mut(self, e);
        if let Expr::MethodCall(m) = e {
            if self.chunk_chain(m).is_some() {
                self.changed = true;
            }
            // `x.last().unwrap().sin()`: the method of the element itself
            else if let Some(element) = end_element(&m.receiver) {
                *m.receiver = element;
                self.changed = true;
            }
            return;
        }
        match e {
            // `*x.last().unwrap()`, `*x.first().unwrap()`: the element
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => {
                if let Some(element) = end_element(&u.expr) {
                    *e = element;
                    self.changed = true;
                }
            }
            // `x.last().unwrap() * 2.0`: an operand, the element's value
            Expr::Binary(b) if arithmetic(&b.op) => {
                for side in [&mut b.left, &mut b.right] {
                    if let Some(element) = end_element(side) {
                        **side = element;
                        self.changed = true;
                    }
                }
            }
            _ => {}
        }
    }

    /// the lines of a `tape!` window, the elements of a `vec![…]`
    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        if m.path.segments.last().is_some_and(|s| s.ident == "tape") {
            if let Ok(stmts) =
                syn::parse::Parser::parse2(syn::Block::parse_within, m.tokens.clone())
            {
                let stmts = self.stmts(stmts);
                m.tokens = quote::quote!(#(#stmts)*);
            }
        } else {
            crate::facts::syntax::visit_macro_mut(self, m);
        }
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}
