//! One chain: its source, adapters and consumer, and the loop it becomes.

pub(super) use super::patterns::{bind, elem_expr, err, is_place, unparen, Elem};
use super::patterns::{element, is_call, is_literal, makes_array, valued};
use super::{place_or_slice, Chains};
use crate::helpers::subst::{Bound, Rename};
use proc_macro2::{Ident, Span};
use quote::{format_ident, ToTokens};
use std::collections::{HashMap, HashSet};
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{Expr, Stmt};

/// The loop a chain is, so far.
pub(super) struct Seq {
    pub(super) index: Ident,
    pub(super) lo: Expr,
    pub(super) hi: Expr,
    pub(super) step: Option<Expr>,
    pub(super) rev: bool,
    /// `filter` or `take_while`, if one cut the chain: positions not closed forms
    pub(super) filtered: Option<String>,
    /// lines before the loop (counters)
    pub(super) before: Vec<Stmt>,
    /// lines at the top of each iteration (`map`'s values, `filter`'s exits)
    pub(super) prelude: Vec<Stmt>,
    pub(super) elem: Elem,
    /// adapters Mica's own `for` does not read (for loops: rewrite or not)
    pub(super) adapted: bool,
    /// the lines of `prelude` the same in either order: a `chain`'s
    /// element binding, an `enumerate`'s position worked out from the index
    pub(super) order_free: usize,
    /// the last `map`'s closure makes an array (`|v| xs.iter()….collect()`,
    /// `|v| vec![…]`, `|v| [a, b]`): its elements are not numbers to collect
    pub(super) maps_to_array: bool,
}

impl Seq {
    /// The loop `for index in lo..hi` yielding `elem`, with no adapter yet.
    fn over(index: Ident, lo: Expr, hi: Expr, elem: Elem, adapted: bool) -> Seq {
        Seq {
            index,
            lo,
            hi,
            step: None,
            rev: false,
            filtered: None,
            before: Vec::new(),
            prelude: Vec::new(),
            elem,
            adapted,
            order_free: 0,
            maps_to_array: false,
        }
    }
}

pub(super) fn is_zero(e: &Expr) -> bool {
    matches!(unparen(e), Expr::Lit(l) if l.lit.to_token_stream().to_string() == "0")
}

pub(super) fn paren(e: &Expr) -> Expr {
    match unparen(e) {
        Expr::Path(_) | Expr::Lit(_) | Expr::MethodCall(_) | Expr::Index(_) | Expr::Field(_) => {
            e.clone()
        }
        _ => syn::parse_quote!((#e)),
    }
}

impl Chains {
    /// A name of its own for `role` (a user's name a closure binds, or
    /// what the loop keeps): the count after an underscore, so that `u17`'s
    /// third and `u1`'s seventy-third differ, in snake case (no `__` inside:
    /// `_k` and `k_` give `__mica_k_3`; `r#type` gives `__mica_type_3`).
    pub(super) fn fresh(&mut self, role: &str) -> Ident {
        self.next += 1;
        let role = role.trim_start_matches("r#").trim_start_matches("__mica_");
        let words: Vec<String> = role
            .split('_')
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect();
        let role = if words.is_empty() {
            "v".to_string()
        } else {
            words.join("_")
        };
        format_ident!("__mica_{}_{}", role, self.next, span = Span::mixed_site())
    }

    /// The loop of `e`, if `e` is a chain over a source Mica knows.
    pub(super) fn seq(&mut self, e: &Expr) -> syn::Result<Option<Seq>> {
        let Expr::MethodCall(m) = unparen(e) else {
            return Ok(self.range(e).or_else(|| self.sub_slice(e)));
        };
        let method = m.method.to_string();
        if matches!(method.as_str(), "iter" | "into_iter") && m.args.is_empty() {
            if let Some(range) = self.range(&m.receiver) {
                return Ok(Some(range));
            }
            if let Some(slice) = self.sub_slice(&m.receiver) {
                return Ok(Some(slice));
            }
            if is_literal(&m.receiver) || is_call(&m.receiver) {
                // `[a, b, c].iter()`, `vec![…].into_iter()`, `f(x).iter()`:
                // the literal or the call's value is bound once, before
                // the loop, and read by index
                let (index, source) = (self.fresh("i"), self.fresh("source"));
                let x = &m.receiver;
                let (lo, hi) = (syn::parse_quote!(0), syn::parse_quote!(#source.len()));
                let place = syn::parse_quote!(#source[#index]);
                let elem = match method.as_str() {
                    "iter" => Elem::Place(place),
                    _ => Elem::One(place),
                };
                let mut seq = Seq::over(index, lo, hi, elem, true);
                seq.before.push(syn::parse_quote!(let #source = #x;));
                return Ok(Some(seq));
            }
            if !is_place(&m.receiver) {
                return Ok(None);
            }
            let index = self.fresh("i");
            let x = &m.receiver;
            let (lo, hi) = (syn::parse_quote!(0), syn::parse_quote!(#x.len()));
            let place = syn::parse_quote!(#x[#index]);
            let elem = match method.as_str() {
                "iter" => Elem::Place(place),
                _ => Elem::One(place),
            };
            return Ok(Some(Seq::over(index, lo, hi, elem, false)));
        }
        let adapters = [
            "copied",
            "cloned",
            "map",
            "filter",
            "take_while",
            "zip",
            "enumerate",
            "rev",
            "skip",
            "take",
            "step_by",
            "chain",
        ];
        if !adapters.contains(&method.as_str()) {
            return Ok(None);
        }
        let Some(mut seq) = self.seq(&m.receiver)? else {
            return Ok(None);
        };
        let arg = m.args.first();
        match (method.as_str(), arg) {
            ("copied" | "cloned", None) => {
                seq.elem = valued(seq.elem);
                seq.adapted = true;
            }
            ("map", Some(f)) => {
                seq.maps_to_array = makes_array(f);
                let (lines, value) = self.apply_flat(f, vec![seq.elem.clone()])?;
                let name = self.fresh("m");
                // (run per element as it comes, as std's `Map` runs its
                // closure, in whichever order the walk goes)
                seq.order_free += lines.len() + 1;
                seq.prelude.extend(lines);
                seq.prelude.push(syn::parse_quote!(let #name = #value;));
                seq.elem = Elem::One(syn::parse_quote!(#name));
                seq.adapted = true;
            }
            // `take_while(p)`: a filter's exit that ends the walk
            ("filter" | "take_while", Some(p)) => {
                let keep = self.apply(p, vec![seq.elem.clone()])?;
                seq.prelude.push(match method.as_str() {
                    "filter" => syn::parse_quote!(if !(#keep) { continue; }),
                    _ => syn::parse_quote!(if !(#keep) { break; }),
                });
                seq.order_free += 1;
                seq.filtered = Some(method.clone());
                seq.adapted = true;
            }
            ("zip", Some(other)) => {
                if seq.filtered.is_some() || seq.rev || seq.step.is_some() {
                    return Err(err(
                        &m.method,
                        &format!("`.zip(…)` after `{}`, `rev` or `step_by`", seq.cut()),
                    ));
                }
                // `y.iter().skip(k)`, `.take(n)`: the part of `y` they leave
                let mut other_base = unparen(other);
                let mut cuts: Vec<(bool, Expr)> = Vec::new();
                while let Expr::MethodCall(c) = other_base {
                    match c.method.to_string().as_str() {
                        "skip" | "take" if c.args.len() == 1 => {
                            cuts.push((c.method == "skip", c.args[0].clone()));
                            other_base = unparen(&c.receiver);
                        }
                        _ => break,
                    }
                }
                let y = match other_base {
                    Expr::MethodCall(c)
                        if matches!(c.method.to_string().as_str(), "iter" | "into_iter")
                            && c.args.is_empty() =>
                    {
                        &c.receiver
                    }
                    _ if !cuts.is_empty() => return self.zip_chain(seq, other),
                    other => other,
                };
                let Some((y_place, mut start, mut len)) = place_or_slice(y) else {
                    return self.zip_chain(seq, other);
                };
                let cut = !cuts.is_empty();
                // (in the order they are applied: the innermost first)
                for (skip, n) in cuts.into_iter().rev() {
                    let (n, l) = (paren(&n), paren(&len));
                    if skip {
                        start = Some(match &start {
                            Some(s) => {
                                let s = paren(s);
                                syn::parse_quote!(#s + ::core::primitive::usize::min(#n, #l))
                            }
                            None => syn::parse_quote!(::core::primitive::usize::min(#n, #l)),
                        });
                        len = syn::parse_quote!(::core::primitive::usize::saturating_sub(#l, #n));
                    } else {
                        len = syn::parse_quote!(::core::primitive::usize::min(#l, #n));
                    }
                }
                // Mica's own `for` zips whole arrays only
                let whole = match unparen(y) {
                    Expr::Reference(r) => is_place(&r.expr),
                    other => is_place(other),
                };
                if !whole || cut {
                    seq.adapted = true;
                }
                let y = y_place;
                let (i, lo, hi) = (&seq.index, paren(&seq.lo), paren(&seq.hi));
                let mut at: Expr = if is_zero(&seq.lo) {
                    syn::parse_quote!(#i)
                } else {
                    syn::parse_quote!(#i - #lo)
                };
                if let Some(start) = &start {
                    let start = paren(start);
                    at = syn::parse_quote!(#start + #at);
                }
                let len = paren(&len);
                seq.hi = if is_zero(&seq.lo) {
                    syn::parse_quote!(::core::primitive::usize::min(#hi, #len))
                } else {
                    syn::parse_quote!(::core::primitive::usize::min(#hi, #lo + #len))
                };
                // (`zip(ys)` and `zip(ys.iter())` of a slice both borrow)
                seq.elem = Elem::Tuple(vec![
                    seq.elem.clone(),
                    Elem::Place(syn::parse_quote!(#y[#at])),
                ]);
            }
            ("enumerate", None) => {
                let k = self.fresh("k");
                let (i, lo) = (&seq.index, paren(&seq.lo));
                let position: Option<Expr> = match (&seq.step, seq.filtered.is_some()) {
                    (_, true) => None,
                    (None, false) if is_zero(&seq.lo) => Some(syn::parse_quote!(#i)),
                    (None, false) => Some(syn::parse_quote!(#i - #lo)),
                    (Some(s), false) => {
                        let s = paren(s);
                        Some(syn::parse_quote!((#i - #lo) / #s))
                    }
                };
                match (position, seq.rev) {
                    (Some(at), false) => {
                        seq.prelude.push(syn::parse_quote!(let #k = #at;));
                        seq.order_free += 1;
                    }
                    _ => {
                        // counted as the elements come
                        let count = self.fresh("n");
                        seq.before.push(syn::parse_quote!(let mut #count = 0usize;));
                        seq.prelude.push(syn::parse_quote!(let #k = #count;));
                        seq.prelude.push(syn::parse_quote!(#count += 1;));
                    }
                }
                seq.elem = Elem::Tuple(vec![Elem::One(syn::parse_quote!(#k)), seq.elem.clone()]);
            }
            ("rev", None) => {
                // (a `map` or `filter` runs its closure per element as the
                // walk comes to it, as std's adapters do walked from the
                // back; a position counted as the elements come is not
                // std's from the front)
                if seq.step.is_some() {
                    return Err(syn::Error::new_spanned(
                        &m.method,
                        "`.rev()` after `step_by` over recorded values is not supported yet; write the loop over the steps, last first: `let mut total = 0.0; for j in (0..(xs.len() + k - 1) / k).rev() { let x = xs[j * k]; total += …; }`",
                    ));
                }
                if seq.prelude.len() > seq.order_free {
                    return Err(syn::Error::new_spanned(
                        &m.method,
                        "`.rev()` after `.rev().enumerate()` over recorded values is not supported yet; write the loop, its positions counted from the back: `let mut total = 0.0; for i in 0..xs.len() { let k = xs.len() - 1 - i; total += …; }`",
                    ));
                }
                seq.rev = !seq.rev;
                seq.adapted = true;
            }
            ("skip" | "take", Some(n)) => {
                if seq.filtered.is_some() {
                    return Err(err(
                        &m.method,
                        &format!("`.{method}(…)` after `{}`", seq.cut()),
                    ));
                }
                let (lo, hi, n) = (paren(&seq.lo), paren(&seq.hi), paren(n));
                let span: Expr = match &seq.step {
                    None => n.clone(),
                    Some(s) => {
                        let s = paren(s);
                        syn::parse_quote!(#n * #s)
                    }
                };
                match (method.as_str(), seq.rev) {
                    ("skip", false) => seq.lo = syn::parse_quote!(#lo + #span),
                    ("skip", true) => {
                        seq.hi =
                            syn::parse_quote!(::core::primitive::usize::saturating_sub(#hi, #span))
                    }
                    ("take", false) => {
                        seq.hi = syn::parse_quote!(::core::primitive::usize::min(#hi, #lo + #span))
                    }
                    _ => {
                        seq.lo = syn::parse_quote!(::core::primitive::usize::max(#lo, ::core::primitive::usize::saturating_sub(#hi, #span)))
                    }
                }
                seq.adapted = true;
            }
            ("chain", Some(other)) => self.chained(&mut seq, &m.method, other)?,
            ("step_by", Some(k)) => {
                if seq.rev {
                    return Err(syn::Error::new_spanned(
                        &m.method,
                        "`.step_by(…)` after `rev` over recorded values is not supported yet; write the loop, last element first: `let mut total = 0.0; for i in (0..xs.len()).rev().step_by(k) { total += …; }`",
                    ));
                }
                if seq.filtered.is_some() {
                    let what = format!("`.step_by(…)` after `{}`", seq.cut());
                    return Err(err(&m.method, &what));
                }
                let k = paren(k);
                seq.step = Some(match &seq.step {
                    None => k,
                    Some(s) => {
                        let s = paren(s);
                        syn::parse_quote!(#s * #k)
                    }
                });
                seq.adapted = true;
            }
            _ => return Ok(None),
        }
        Ok(Some(seq))
    }

    /// `a..b`, `a..=b`, in parentheses or not: a loop over its numbers.
    fn range(&mut self, e: &Expr) -> Option<Seq> {
        let Expr::Range(r) = unparen(e) else {
            return None;
        };
        let (lo, hi) = (r.start.as_deref()?, r.end.as_deref()?);
        let hi: Expr = match r.limits {
            syn::RangeLimits::HalfOpen(_) => hi.clone(),
            syn::RangeLimits::Closed(_) => {
                let hi = paren(hi);
                syn::parse_quote!(#hi + 1)
            }
        };
        let index = self.fresh("i");
        let elem = Elem::One(syn::parse_quote!(#index));
        Some(Seq::over(index, lo.clone(), hi, elem, false))
    }

    /// `x[a..b]`, `&x[a..]`, `&x[..b]`: a loop over those elements of `x`
    /// (adapted: Mica's own `for` iterates whole arrays only).
    fn sub_slice(&mut self, e: &Expr) -> Option<Seq> {
        let e = match unparen(e) {
            Expr::Reference(r) if r.mutability.is_none() => &*r.expr,
            other => other,
        };
        let Expr::Index(ix) = unparen(e) else {
            return None;
        };
        let Expr::Range(_) = unparen(&ix.index) else {
            return None;
        };
        let (x, start, len) = place_or_slice(e)?;
        let index = self.fresh("i");
        let lo = start.unwrap_or_else(|| syn::parse_quote!(0));
        let (l, n) = (paren(&lo), paren(&len));
        let elem = Elem::Place(syn::parse_quote!(#x[#index]));
        Some(Seq::over(index, lo, syn::parse_quote!(#l + #n), elem, true))
    }

    /// `f(args…)` for a closure written here (its parameters standing for
    /// the elements) or a function named by its path.
    pub(super) fn apply(&mut self, f: &Expr, args: Vec<Elem>) -> syn::Result<Expr> {
        let (stmts, value) = self.apply_flat(f, args)?;
        Ok(if stmts.is_empty() {
            value
        } else {
            syn::parse_quote!({ #(#stmts)* #value })
        })
    }

    /// [`apply`](Self::apply) as the lines of a closure's block and its
    /// value, to stand in the loop's body itself; the block's names are
    /// renamed, so no line after them sees them.
    pub(super) fn apply_flat(
        &mut self,
        f: &Expr,
        args: Vec<Elem>,
    ) -> syn::Result<(Vec<Stmt>, Expr)> {
        let value = self.applied(f, args)?;
        let Expr::Block(b) = &value else {
            return Ok((Vec::new(), value));
        };
        if b.label.is_some() || !b.attrs.is_empty() {
            return Ok((Vec::new(), value));
        }
        let mut stmts = b.block.stmts.clone();
        let Some(Stmt::Expr(tail, None)) = stmts.pop() else {
            return Ok((Vec::new(), value));
        };
        let mut bound = Bound::default();
        for s in &stmts {
            bound.visit_stmt(s);
        }
        // fresh names in the order of the names, not of the set: the
        // expansion is the same in every build
        let mut names: Vec<&String> = bound.0.iter().collect();
        names.sort();
        let fresh: HashMap<String, Ident> = names
            .into_iter()
            .map(|n| (n.clone(), self.fresh(n)))
            .collect();
        let mut rename = Rename(fresh);
        for s in stmts.iter_mut() {
            rename.visit_stmt_mut(s);
        }
        let mut tail = tail;
        rename.visit_expr_mut(&mut tail);
        Ok((stmts, tail))
    }

    fn applied(&mut self, f: &Expr, args: Vec<Elem>) -> syn::Result<Expr> {
        match unparen(f) {
            Expr::Closure(c) => {
                if c.inputs.len() != args.len() {
                    return Err(syn::Error::new_spanned(
                        c,
                        "this closure takes a different number of arguments",
                    ));
                }
                let mut pairs = Vec::new();
                for (pat, elem) in c.inputs.iter().zip(args) {
                    bind(pat, elem, &mut pairs)?;
                }
                let mut body = (*c.body).clone();
                super::patterns::fields(&mut body, &pairs);
                let mut returns = HasReturn(false);
                returns.visit_expr(&body);
                if returns.0 {
                    return Err(err(&c.body, "a closure with `return`"));
                }
                // the closure's own names that a place also uses are renamed
                let mut used = HashSet::new();
                for (_, place) in &pairs {
                    crate::names::idents_in(place.to_token_stream(), &mut used);
                }
                let mut bound = Bound::default();
                bound.visit_expr(&body);
                let params: HashSet<String> = pairs.iter().map(|(n, _)| n.clone()).collect();
                let mut names: Vec<&String> = bound
                    .0
                    .iter()
                    .filter(|n| used.contains(*n) && !params.contains(*n))
                    .collect();
                names.sort();
                let clashes: HashMap<String, Ident> = names
                    .into_iter()
                    .map(|n| (n.clone(), self.fresh(n)))
                    .collect();
                if !clashes.is_empty() {
                    Rename(clashes).visit_expr_mut(&mut body);
                }
                for (name, place) in pairs {
                    element(name, place).visit_expr_mut(&mut body);
                }
                Ok(match body {
                    Expr::Block(_) | Expr::Paren(_) => body,
                    other => syn::parse_quote!((#other)),
                })
            }
            Expr::Path(p) => {
                let args: Vec<Expr> = args.iter().map(elem_expr).collect();
                Ok(syn::parse_quote!(#p(#(#args),*)))
            }
            other => Err(err(
                other,
                "an adapter given something other than a closure or a function's name",
            )),
        }
    }
}

#[derive(Default)]
struct HasReturn(bool);

impl<'ast> Visit<'ast> for HasReturn {
    fn visit_expr_return(&mut self, _: &'ast syn::ExprReturn) {
        self.0 = true;
    }
    fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
}

impl Seq {
    /// `for index in range { prelude; body }` with the lines before it.
    pub(super) fn wrap(self, label: Option<&syn::Label>, body: Vec<Stmt>) -> (Vec<Stmt>, Stmt) {
        let (i, lo, hi) = (&self.index, &self.lo, &self.hi);
        let range: Expr = match (&self.step, self.rev) {
            (None, false) => syn::parse_quote!(#lo..#hi),
            (Some(s), _) => syn::parse_quote!((#lo..#hi).step_by(#s)),
            (None, true) => syn::parse_quote!((#lo..#hi).rev()),
        };
        let prelude = &self.prelude;
        let lp: Stmt = syn::parse_quote!(#label for #i in #range { #(#prelude)* #(#body)* });
        (self.before, lp)
    }

    pub(super) fn scalar(&self, at: &impl ToTokens, what: &str) -> syn::Result<Expr> {
        match &self.elem {
            Elem::One(e) | Elem::Place(e) => Ok(e.clone()),
            Elem::Tuple(_) => Err(err(at, &format!("`{what}` of tuples"))),
        }
    }

    /// The adapter that cut the chain, for errors (`filter` if none did).
    pub(super) fn cut(&self) -> &str {
        self.filtered.as_deref().unwrap_or("filter")
    }

    /// The element's position in the output (for `collect`).
    pub(super) fn position(&self) -> Option<Expr> {
        let (i, lo, hi) = (&self.index, paren(&self.lo), paren(&self.hi));
        match (&self.step, self.rev, self.filtered.is_some()) {
            (_, _, true) => None,
            (None, false, _) if is_zero(&self.lo) => Some(syn::parse_quote!(#i)),
            (None, false, _) => Some(syn::parse_quote!(#i - #lo)),
            (None, true, _) => Some(syn::parse_quote!(#hi - 1 - #i)),
            (Some(s), false, _) => {
                let s = paren(s);
                Some(syn::parse_quote!((#i - #lo) / #s))
            }
            (Some(_), true, _) => None,
        }
    }

    /// How many elements the loop yields (for `collect`).
    pub(super) fn count(&self) -> Expr {
        let (lo, hi) = (paren(&self.lo), paren(&self.hi));
        match &self.step {
            None => syn::parse_quote!(::core::primitive::usize::saturating_sub(#hi, #lo)),
            Some(s) => {
                let s = paren(s);
                syn::parse_quote!((::core::primitive::usize::saturating_sub(#hi, #lo) + #s - 1) / #s)
            }
        }
    }
}

/// `for pat in chain { body }` where the chain has adapters: the loop.
pub(super) fn for_loop(ch: &mut Chains, f: &syn::ExprForLoop) -> syn::Result<Option<Expr>> {
    let Some(seq) = ch.seq(&f.expr)? else {
        return Ok(None);
    };
    if !seq.adapted {
        return Ok(None);
    }
    let mut pairs = Vec::new();
    bind(&f.pat, seq.elem.clone(), &mut pairs)?;
    let mut body = f.body.clone();
    for (name, place) in pairs {
        element(name, place).visit_block_mut(&mut body);
    }
    let (before, lp) = seq.wrap(f.label.as_ref(), body.stmts);
    Ok(Some(syn::parse_quote!({ #(#before)* #lp })))
}
