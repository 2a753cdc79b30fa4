//! `for` loops: what they iterate (a range, or a recorded array through
//! `.iter()`, `.enumerate()` and `.zip(…)`), the elements bound to the
//! pattern at each iteration, a range the reverse sweep walks backward
//! instead of counting, and the bound on the trip count that lets a tape
//! live on the stack. What every loop shares (its counter, the carried
//! bindings, its tape) is in `lower/loops.rs`.

use super::loops::check_loop_exits;
use super::*;
use crate::facts::places::PatNames;
use crate::facts::syntax::strip_parens;
use std::collections::HashSet;

/// What iterating over an expression yields, element by element.
enum Source {
    /// integers, or anything not recorded
    Const,
    /// the elements (or rows) of a recorded array
    Array {
        array: ArrayId,
        prefix: Vec<Operand>,
    },
    Enumerate(Box<Source>),
    Zip(Box<Source>, Box<Source>),
}

fn unsupported_iteration(expr: &Expr) -> syn::Error {
    syn::Error::new_spanned(
        expr,
        "iterate over recorded values with a range, `.iter()`, `.iter().enumerate()` or `.zip(…)`",
    )
}

impl Sweep<'_> {
    fn source(&mut self, expr: &Expr, out: &mut TokenStream) -> syn::Result<Source> {
        if !self.mentions_active(expr) {
            return Ok(Source::Const);
        }
        match expr {
            Expr::Paren(p) => self.source(&p.expr, out),
            // `::mica::detach(…)`: a constant
            e if crate::facts::syntax::is_detach(e) => Ok(Source::Const),
            // `0..w.len()`: integers, whatever the bounds read
            Expr::Range(r) => {
                for bound in r.start.iter().chain(r.end.iter()) {
                    if self
                        .lower_expr(bound, &mut TokenStream::new())?
                        .val
                        .is_active()
                    {
                        return Err(syn::Error::new_spanned(
                            bound,
                            "a range's bounds are integers, not recorded values",
                        ));
                    }
                }
                Ok(Source::Const)
            }
            Expr::Reference(r) if r.mutability.is_none() => self.source(&r.expr, out),
            Expr::MethodCall(m) => {
                let name = m.method.to_string();
                match (name.as_str(), m.args.len()) {
                    ("iter" | "into_iter" | "copied" | "cloned", 0) => {
                        self.source(&m.receiver, out)
                    }
                    ("enumerate", 0) => {
                        Ok(Source::Enumerate(Box::new(self.source(&m.receiver, out)?)))
                    }
                    ("zip", 1) => {
                        let left = self.source(&m.receiver, out)?;
                        let right = self.source(&m.args[0], out)?;
                        Ok(Source::Zip(Box::new(left), Box::new(right)))
                    }
                    _ => Err(unsupported_iteration(expr)),
                }
            }
            Expr::Path(_) | Expr::Field(_) | Expr::Index(_) => {
                let lowered = self.lower_expr(expr, out)?;
                match lowered.val {
                    Val::Array { array, prefix } => Ok(Source::Array { array, prefix }),
                    Val::Const => Ok(Source::Const),
                    _ => Err(unsupported_iteration(expr)),
                }
            }
            _ => Err(unsupported_iteration(expr)),
        }
    }

    /// The names a constant loop element binds without `&`: references
    /// into the iterated array, unless it is a range.
    pub(super) fn mark_by_ref(&mut self, pat: &Pat) {
        if self.iterating_by_ref {
            self.mark_ref(pat);
        }
    }

    /// The names `pat` binds, marked as references (kept by value).
    pub(super) fn mark_ref(&mut self, pat: &Pat) {
        match pat {
            Pat::Ident(p) if p.subpat.is_none() => {
                if let Some(binding) = self
                    .scopes
                    .last_mut()
                    .and_then(|scope| scope.get_mut(&p.ident.to_string()))
                {
                    binding.by_ref = true;
                }
            }
            Pat::Tuple(t) => t.elems.iter().for_each(|p| self.mark_ref(p)),
            Pat::Paren(p) => self.mark_ref(&p.pat),
            Pat::Type(t) => self.mark_ref(&t.pat),
            _ => {}
        }
    }

    /// The rows a loop over a constant array binds (`for x in xs`, `xs`
    /// of rank 2): constant arrays a copy of may become recorded
    /// (`let mut h = *x;`).
    fn note_const_elements(&mut self, expr: &Expr, pat: &Pat) {
        let pat = match pat {
            Pat::Paren(p) => &*p.pat,
            Pat::Reference(r) => &*r.pat,
            Pat::Type(t) => &*t.pat,
            other => other,
        };
        match strip_parens(expr) {
            Expr::Reference(r) => self.note_const_elements(&r.expr, pat),
            Expr::MethodCall(m) => match (m.method.to_string().as_str(), m.args.len(), pat) {
                ("iter" | "into_iter" | "copied" | "cloned", 0, _) => {
                    self.note_const_elements(&m.receiver, pat)
                }
                ("enumerate", 0, Pat::Tuple(t)) if t.elems.len() == 2 => {
                    self.note_const_elements(&m.receiver, &t.elems[1])
                }
                ("zip", 1, Pat::Tuple(t)) if t.elems.len() == 2 => {
                    self.note_const_elements(&m.receiver, &t.elems[0]);
                    self.note_const_elements(&m.args[0], &t.elems[1]);
                }
                _ => {}
            },
            source @ (Expr::Path(_) | Expr::Index(_)) => {
                let Pat::Ident(p) = pat else { return };
                let rank = self.const_rank(source).and_then(|r| r.checked_sub(1));
                let element = self.lookup(&p.ident.to_string());
                if let (Some(rank), Some(false)) = (rank, element.map(|b| b.val.is_active())) {
                    if rank > 0 {
                        self.const_arrays.insert(p.ident.to_string(), rank);
                    }
                }
            }
            _ => {}
        }
    }

    /// Binds the loop's pattern to the elements of `source` at the
    /// iteration's index. A recorded element is read from the user's own
    /// binding (`x`, `&x`), so iterating a `Vec` by value works too.
    fn bind_elements(
        &mut self,
        source: &Source,
        pat: &Pat,
        index: &(Operand, TokenStream),
        out: &mut TokenStream,
    ) -> syn::Result<()> {
        match (source, pat) {
            (Source::Const, _) => {
                self.bind_pattern(pat, Val::Const)?;
                self.mark_by_ref(pat);
                Ok(())
            }
            (_, Pat::Wild(_)) => Ok(()),
            (_, Pat::Paren(p)) => self.bind_elements(source, &p.pat, index, out),
            (_, Pat::Reference(r)) => self.bind_elements(source, &r.pat, index, out),
            (_, Pat::Type(t)) => self.bind_elements(source, &t.pat, index, out),
            (Source::Enumerate(inner), Pat::Tuple(t)) if t.elems.len() == 2 => {
                self.bind_pattern(&t.elems[0], Val::Const)?;
                self.bind_elements(inner, &t.elems[1], index, out)
            }
            (Source::Zip(left, right), Pat::Tuple(t)) if t.elems.len() == 2 => {
                self.bind_elements(left, &t.elems[0], index, out)?;
                self.bind_elements(right, &t.elems[1], index, out)
            }
            (Source::Array { array, prefix }, Pat::Ident(p)) if p.subpat.is_none() => {
                let mut indices = prefix.clone();
                indices.push(index.0.clone());
                let val = if indices.len() >= self.arrays[*array].rank {
                    let ident = &p.ident;
                    let fwd = quote!(::mica::__private::element(#ident));
                    self.new_op(
                        OpKind::Read {
                            array: *array,
                            indices,
                        },
                        Vec::new(),
                        fwd,
                        out,
                    )
                    .val
                } else {
                    // a row: read through the user's binding when indexed
                    Val::Array {
                        array: *array,
                        prefix: indices,
                    }
                };
                self.bind(&p.ident, val, Origin::Local);
                Ok(())
            }
            _ => Err(syn::Error::new_spanned(
                pat,
                "bind each element of a recorded array to a name (`x`, `&x`, `(i, x)`, `(a, b)`)",
            )),
        }
    }

    /// `for pat in expr { … }`
    pub(super) fn lower_for(
        &mut self,
        f: &syn::ExprForLoop,
        out: &mut TokenStream,
    ) -> syn::Result<Lowered> {
        // a nest of short loops stays loops, inner ones too (`lower/unroll.rs`)
        let nest = self.short_nest(f);
        self.short_nests += usize::from(nest);
        let lowered = self.lower_for_loop(f, out);
        self.short_nests -= usize::from(nest);
        lowered
    }

    fn lower_for_loop(
        &mut self,
        f: &syn::ExprForLoop,
        out: &mut TokenStream,
    ) -> syn::Result<Lowered> {
        // a label no exit names any more (`exits.rs` rewrote them) is
        // dropped; an exit left as written is reported below
        // a loop that may stop early (see `exits.rs`): its last statement,
        // `if stop { break; }`, goes after the iteration's push, and its
        // reverse counts the iterations that ran instead of walking its range
        let split = crate::exits::split_stop(&f.body);
        let stops = split.as_ref().map(|(_, flag)| flag.clone());
        let without_stop;
        let f = match split {
            Some((body, _)) => {
                without_stop = syn::ExprForLoop { body, ..f.clone() };
                &without_stop
            }
            None => f,
        };
        check_loop_exits(&f.body)?;
        // a short loop over a literal range is written out (`lower/unroll.rs`)
        if stops.is_none() {
            if let Some(copies) = self.unrolled(f) {
                for copy in copies {
                    let mut code = TokenStream::new();
                    let tail = self.lower_nested_block(&copy, &mut code)?;
                    code.extend(tail.fwd);
                    // constants where the counter was: a write the last
                    // copy makes and nothing reads, an operation Rust folds
                    // to a panic in a copy the user's test never runs
                    out.extend([quote!(
                        #[allow(unused_assignments, unused_comparisons, arithmetic_overflow, unconditional_panic)]
                        #code;
                    )]);
                }
                return Ok(Lowered {
                    val: Val::Const,
                    fwd: TokenStream::new(),
                });
            }
        }
        let source = self.source(&f.expr, out)?;
        // the elements of a recorded array are recorded too
        let mut elements = PatNames::default();
        if !matches!(source, Source::Const) {
            elements.visit_pat(&f.pat);
        }
        let elements: Vec<String> = elements.0.iter().map(Ident::to_string).collect();
        let carried = self.carried(&f.body.stmts, &elements);
        // a loop run once per sweep over a literal range keeps its storage
        // on the stack; any other `for` keeps it on the heap
        let capacity = if self.scope == 0 {
            self.constant_trip_bound(&f.expr)
        } else {
            None
        };
        // a range the reverse sweep walks backward: kept (or recomputed)
        // in the enclosing region instead of counting iterations
        let range = if stops.is_some() {
            None
        } else {
            self.walked_range(f, out)
        };
        let mut lp = self.open_loop(capacity.clone(), out);
        lp.facts = crate::facts::loops::LoopFacts::of_for(&f.pat, &f.expr, &f.body);
        // what its pattern binds, and what its header may change
        let mut pattern = PatNames::default();
        pattern.visit_pat(&f.pat);
        let mut changed: HashSet<String> = pattern.0.iter().map(Ident::to_string).collect();
        changed.extend(crate::facts::loops::changed_in(&f.expr));
        self.enter_around(&lp.facts, changed, out);
        // a range's counter holds integers, not references
        if let (Some(_), Some(name)) = (&range, crate::facts::stability::immutable_name(&f.pat)) {
            self.owned.insert(name);
        }
        let it = self.names.fresh("it");
        let (tape, expr) = (&lp.tape, &f.expr);
        match &range {
            Some((_, RangeSource::Kept(range))) => {
                let store = &self.values[*range].store;
                out.extend([quote!(let #it = ::core::iter::IntoIterator::into_iter(::core::clone::Clone::clone(&#store));)]);
            }
            _ => out.extend([quote!(let #it = ::core::iter::IntoIterator::into_iter(#expr);)]),
        }
        // a range evaluated again where it starts: its trip count is known
        // before an enclosing loop (see `Trip`)
        let trip = match &range {
            Some((_, RangeSource::Again(range))) => {
                let (start, end) = (self.names.fresh("fill"), self.names.fresh("fill"));
                out.extend([start.to_token_stream()]);
                let mut reads = HashSet::new();
                crate::names::idents_in(range.to_token_stream(), &mut reads);
                Some(Trip {
                    start,
                    end,
                    range: range.clone(),
                    reads,
                    var: crate::facts::stability::immutable_ident(&f.pat).cloned(),
                })
            }
            _ => None,
        };
        // a range kept in a value: its length is known where the loop starts
        let kept_run = match &range {
            Some((_, RangeSource::Kept(range))) => {
                let start = self.names.fresh("fill");
                out.extend([start.to_token_stream()]);
                let store = self.values[*range].store.clone();
                Some((start, self.names.fresh("fill"), store))
            }
            _ => None,
        };
        // sized before the loop at the top level; a loop inside another
        // runs its sizing once per outer iteration, on a tape whose earlier
        // growth usually covers it, so it lets the tape grow as it pushes
        if capacity.is_none() && self.depth == 0 {
            let reserve = self.names.fresh("fill");
            out.extend([reserve.to_token_stream()]);
            lp.reserve = Some((
                reserve,
                quote!(#tape.reserve(::core::iter::Iterator::size_hint(&#it).0);),
            ));
        }
        let pat = &f.pat;
        // inside the body, a range's variable is stable
        let entered = match (&range, &mut self.stability) {
            (Some((Some(name), _)), Some(stability)) => stability.enter_loop(name, &f.body),
            _ => None,
        };
        // its reads may go through slices (see `lower/fast.rs`)
        let fast = match (&entered, &range) {
            (Some(_), Some((_, RangeSource::Again(_)))) => {
                let constant = self.constant_trip_bound(strip_parens(&f.expr)).is_some();
                crate::facts::stability::immutable_ident(&f.pat).and_then(|var| {
                    super::fast::FastLoop::new(var, strip_parens(&f.expr), &lp.facts, constant)
                })
            }
            _ => None,
        };
        let fast = fast.map(|l| self.fast.push(l)).is_some();
        let by_ref = !matches!(strip_parens(&f.expr), Expr::Range(_));
        let lowered = self.loop_body(&mut lp, &carried, &f.body, |this, index, out| {
            this.iterating_by_ref = by_ref;
            let bound = this.bind_elements(&source, pat, index, out);
            this.iterating_by_ref = false;
            this.note_const_elements(&f.expr, pat);
            bound
        });
        self.leave_around();
        if let Some(stability) = &mut self.stability {
            stability.leave_loop(entered);
        }
        let fast = if fast { self.fast.pop() } else { None };
        let (body, record) = lowered?;
        let stop = stops.map(|flag| quote!(if #flag { break; }));
        let looped = quote!(for #pat in #it { #body #stop });
        out.extend([match fast {
            Some(l) => {
                // runs only for a long range where they are taken again each
                // time the loop starts (`around` now holds the loops around
                // this one; see `FastLoop::around`)
                let long_only = !self.around.is_empty()
                    && !crate::record::writes_array(&record.steps)
                    && self.constant_trip_bound(strip_parens(&f.expr)).is_none();
                l.around(looped, long_only)
            }
            None => looped,
        }]);
        if let Some(trip) = &trip {
            out.extend([trip.end.to_token_stream()]);
        }
        if let Some((_, end, _)) = &kept_run {
            out.extend([end.to_token_stream()]);
        }
        lp.range = range.map(|(_, source)| (pat.to_token_stream(), source));
        lp.trip = trip;
        lp.kept_run = kept_run;
        self.close_loop(lp, carried, record, out);
        Ok(Lowered {
            val: Val::Const,
            fwd: TokenStream::new(),
        })
    }

    /// For `for x in a..b` (or `a..=b`, `_` for `x`) in a function whose
    /// names are tracked for stability: the range, kept in a value of the
    /// enclosing region (recomputed when its ends are pure), and the loop
    /// variable's name.
    fn walked_range(
        &mut self,
        f: &syn::ExprForLoop,
        out: &mut TokenStream,
    ) -> Option<(Option<String>, RangeSource)> {
        let stability = self.stability.as_ref()?;
        let name = match &*f.pat {
            Pat::Wild(_) => None,
            pat => Some(crate::facts::stability::immutable_name(pat)?),
        };
        let expr = strip_parens(&f.expr);
        let Expr::Range(range) = expr else {
            return None;
        };
        let (start, end) = (range.start.as_deref()?, range.end.as_deref()?);
        if stability.pure(start) && stability.pure(end) {
            return Some((name, RangeSource::Again(expr.clone())));
        }
        Some((
            name,
            RangeSource::Kept(self.stored(expr.to_token_stream(), out)),
        ))
    }

    /// For `for … in a..N` (or `a..=N`) with a literal or `const` bound: a
    /// bound on the trip count, capped so the inline storage stays small
    /// (past it the storage spills to the heap).
    fn constant_trip_bound(&self, expr: &Expr) -> Option<TokenStream> {
        let Expr::Range(range) = expr else {
            return None;
        };
        let end = range.end.as_deref()?;
        let extra = match range.limits {
            syn::RangeLimits::HalfOpen(_) => 0usize,
            syn::RangeLimits::Closed(_) => 1,
        };
        self.capped_constant(end, extra)
    }

    /// `end + extra` as a constant expression capped at 1,024, for an
    /// inline capacity, if `end` is an integer literal or a `const` item: a
    /// path named in capitals, by Rust's convention, that the sweep does not
    /// bind itself and that is not a `const` generic parameter (which an
    /// array length computed from it may not read).
    pub(super) fn capped_constant(&self, end: &Expr, extra: usize) -> Option<TokenStream> {
        const INLINE_LIMIT: usize = 1024;
        match end {
            Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(i),
                ..
            }) => {
                let bound = i
                    .base10_parse::<usize>()
                    .ok()?
                    .checked_add(extra)?
                    .min(INLINE_LIMIT);
                Some(quote!(#bound))
            }
            Expr::Path(p)
                if p.qself.is_none()
                    && p.path.segments.last().is_some_and(|s| {
                        let name = s.ident.to_string();
                        name.chars().any(|c| c.is_ascii_uppercase())
                            && !name.chars().any(|c| c.is_ascii_lowercase())
                            && (p.path.segments.len() > 1
                                || (self.lookup(&name).is_none()
                                    && !self.const_generics.contains(&name)))
                    }) =>
            {
                Some(quote!({
                    let n = (#p) as usize + #extra;
                    if n < #INLINE_LIMIT { n } else { #INLINE_LIMIT }
                }))
            }
            _ => None,
        }
    }
}
