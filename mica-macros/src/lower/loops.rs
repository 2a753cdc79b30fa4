//! Loops.
//!
//! A loop over recorded values:
//!
//! ```text
//! for x in w.iter() { s += x * x; }
//! ```
//!
//! becomes the user's own loop plus a counter, the copies the reverse needs,
//! and a push of them onto the loop's tape at the end of each iteration:
//!
//! ```text
//! let mut __mica_kc1 = 0usize;
//! let __mica_it2 = IntoIterator::into_iter(w.iter());
//! __mica_tape3.reserve(size_hint(&__mica_it2).0);   // storage sized once
//! for x in __mica_it2 {
//!     let __mica_c4 = __mica_kc1; __mica_kc1 += 1;  // the element's index
//!     let __mica_p5 = s;                             // `s` as the iteration found it
//!     let __mica_t6 = w[__mica_c4];                  // the element, recorded
//!     … s = …;
//!     __mica_tape3.push((…what the reverse reads…));
//! }
//! let __mica_c7 = __mica_kc1;                        // the trip count
//! let __mica_x8 = s;                                 // `s` after the loop
//! ```
//!

use super::*;
use crate::facts::activity::Assignments;
use crate::facts::places::PatNames;
use crate::facts::syntax::strip_parens;
use std::collections::HashSet;

/// What iterating over an expression yields, element by element.
pub(super) enum Source {
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

/// What lowering a loop body left for the record.
pub(super) struct LoopRecord {
    steps: Vec<Step>,
    entries: Vec<ValueId>,
    ends: Vec<Val>,
}

/// A loop being lowered.
pub(super) struct OpenLoop {
    /// placeholders for the counter's declaration and its step, and the
    /// iteration's index made from it
    counter_at: Ident,
    counter_step: Option<Ident>,
    index: Option<ValueId>,
    top: Option<usize>,
    before: Ident,
    tape: Ident,
    counter: Ident,
    fill: Ident,
    region: usize,
    reserve: Option<(Ident, TokenStream)>,
    range: Option<(TokenStream, RangeSource)>,
    trip: Option<Trip>,
    facts: crate::facts::loops::LoopFacts,
    first_value: ValueId,
}

pub(super) fn unsupported_iteration(expr: &Expr) -> syn::Error {
    syn::Error::new_spanned(
        expr,
        "iterate over recorded values with a range, `.iter()`, `.iter().enumerate()` or `.zip(…)`",
    )
}

/// `break` and `continue` would skip the iteration's push.
pub(super) fn check_loop_exits(body: &syn::Block) -> syn::Result<()> {
    struct Exits(Option<syn::Error>, usize);
    impl<'ast> Visit<'ast> for Exits {
        fn visit_expr(&mut self, e: &'ast Expr) {
            match e {
                Expr::Break(b) if self.1 == 0 || b.label.is_some() => {
                    self.0.get_or_insert_with(|| {
                        syn::Error::new_spanned(b.break_token, "`break` in a loop over recorded values is not supported; loop over a range that ends where you would break")
                    });
                }
                Expr::Continue(c) if self.1 == 0 || c.label.is_some() => {
                    self.0.get_or_insert_with(|| {
                        syn::Error::new_spanned(c.continue_token, "`continue` in a loop over recorded values is not supported; put the rest of the body in an `if`")
                    });
                }
                Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_) => {
                    self.1 += 1;
                    syn::visit::visit_expr(self, e);
                    self.1 -= 1;
                }
                Expr::Closure(_) | Expr::Async(_) => {}
                _ => syn::visit::visit_expr(self, e),
            }
        }
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut exits = Exits(None, 0);
    exits.visit_block(body);
    exits.0.map_or(Ok(()), Err)
}

pub(super) fn reject_label(label: &Option<syn::Label>) -> syn::Result<()> {
    match label {
        Some(label) => Err(syn::Error::new_spanned(
            label,
            "a labelled loop over recorded values is not supported",
        )),
        None => Ok(()),
    }
}

impl Sweep<'_> {
    pub(super) fn source(&mut self, expr: &Expr, out: &mut TokenStream) -> syn::Result<Source> {
        if !self.mentions_active(expr) {
            return Ok(Source::Const);
        }
        match expr {
            Expr::Paren(p) => self.source(&p.expr, out),
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

    /// Binds the loop's pattern to the elements of `source` at the
    /// iteration's index. A recorded element is read from the user's own
    /// binding (`x`, `&x`), so iterating a `Vec` by value works too.
    pub(super) fn bind_elements(
        &mut self,
        source: &Source,
        pat: &Pat,
        index: &(Operand, TokenStream),
        out: &mut TokenStream,
    ) -> syn::Result<()> {
        match (source, pat) {
            (Source::Const, _) => self.bind_pattern(pat, Val::Const),
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
        reject_label(&f.label)?;
        check_loop_exits(&f.body)?;
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
        let range = self.walked_range(f, out);
        let mut lp = self.open_loop(capacity.clone(), out);
        lp.facts = crate::facts::loops::LoopFacts::of_for(&f.pat, &f.expr, &f.body);
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
                crate::names::idents_in(range.clone(), &mut reads);
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
                crate::facts::stability::immutable_ident(&f.pat)
                    .and_then(|var| super::fast::FastLoop::new(var, strip_parens(&f.expr)))
            }
            _ => None,
        };
        let fast = fast.map(|l| self.fast.push(l)).is_some();
        let lowered = self.loop_body(&mut lp, &carried, &f.body, |this, index, out| {
            this.bind_elements(&source, pat, index, out)
        });
        if let Some(stability) = &mut self.stability {
            stability.leave_loop(entered);
        }
        let fast = if fast { self.fast.pop() } else { None };
        let (body, record) = lowered?;
        let decls = fast.map(|l| l.decls()).unwrap_or_default();
        out.extend([quote!(#decls for #pat in #it { #body })]);
        if let Some(trip) = &trip {
            out.extend([trip.end.to_token_stream()]);
        }
        lp.range = range.map(|(_, source)| (pat.to_token_stream(), source));
        lp.trip = trip;
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
    pub(super) fn walked_range(
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
            return Some((name, RangeSource::Again(expr.to_token_stream())));
        }
        Some((
            name,
            RangeSource::Kept(self.stored(expr.to_token_stream(), out)),
        ))
    }

    /// `while cond { … }`
    pub(super) fn lower_while(
        &mut self,
        w: &syn::ExprWhile,
        out: &mut TokenStream,
    ) -> syn::Result<Lowered> {
        reject_label(&w.label)?;
        if matches!(&*w.cond, Expr::Let(_)) && self.mentions_active(&w.cond) {
            return Err(syn::Error::new_spanned(
                w.while_token,
                "`while let` on recorded values is not supported",
            ));
        }
        check_loop_exits(&w.body)?;
        let carried = self.carried(&w.body.stmts, &[]);
        let mut lp = self.open_loop(None, out);
        lp.facts = crate::facts::loops::LoopFacts::of_while(&w.cond, &w.body);
        let (body, record) = self.loop_body(&mut lp, &carried, &w.body, |_, _, _| Ok(()))?;
        let cond = &w.cond;
        out.extend([quote!(while #cond { #body })]);
        self.close_loop(lp, carried, record, out);
        Ok(Lowered {
            val: Val::Const,
            fwd: TokenStream::new(),
        })
    }

    pub(super) fn open_loop(
        &mut self,
        capacity: Option<TokenStream>,
        out: &mut TokenStream,
    ) -> OpenLoop {
        let top = match &self.stability {
            Some(stability) if self.depth == 0 && self.region == 0 && self.scopes.len() == 1 => {
                Some(stability.statement())
            }
            _ => None,
        };
        let before = self.names.fresh("fill");
        out.extend([before.to_token_stream()]);
        let tape = self.names.fresh("tape");
        self.tapes.push((tape.clone(), capacity));
        let counter = self.names.fresh("kc");
        // written if the iteration's index or the trip count is read
        let counter_at = self.names.fresh("fill");
        out.extend([counter_at.to_token_stream()]);
        OpenLoop {
            counter_at,
            counter_step: None,
            index: None,
            top,
            before,
            tape,
            counter,
            fill: self.names.fresh("fill"),
            region: self.regions,
            reserve: None,
            range: None,
            trip: None,
            facts: Default::default(),
            first_value: self.values.len(),
        }
    }

    /// The body of a loop, lowered in a region and storage scope of its own.
    pub(super) fn loop_body(
        &mut self,
        lp: &mut OpenLoop,
        carried: &[(Ident, Origin, Val)],
        block: &syn::Block,
        bind: impl FnOnce(&mut Self, &(Operand, TokenStream), &mut TokenStream) -> syn::Result<()>,
    ) -> syn::Result<(TokenStream, LoopRecord)> {
        let saved = (self.region, self.scope);
        self.regions += 1;
        self.region = lp.region;
        self.scope = lp.region;
        self.depth += 1;
        self.hoists.push(Hoist {
            base: self.depth,
            ..Hoist::default()
        });
        self.building.push(Vec::new());
        self.scopes.push(HashMap::new());
        let mut body = TokenStream::new();
        let counter = lp.counter.clone();
        let index = self.lazy_temp(quote!(#counter), "c", &mut body);
        let step = self.names.fresh("fill");
        body.extend([step.to_token_stream()]);
        lp.counter_step = Some(step);
        lp.index = Some(index);
        let index = (
            Operand::Stored(index),
            self.values[index].store.to_token_stream(),
        );
        // each carried binding as this iteration found it
        let mut entries = Vec::new();
        for (name, origin, _) in carried {
            let id = self.lazy_temp(quote!(#name), "p", &mut body);
            self.bind(name, Val::Active(id), *origin);
            entries.push(id);
        }
        // the body's own bindings, above the carried copies: a `let` that
        // shadows a carried name does not hide it
        self.scopes.push(HashMap::new());
        let bound = bind(self, &index, &mut body);
        if let Some(tail) = self.lower_block_stmts(&block.stmts, &mut body) {
            let fwd = tail.fwd;
            if !fwd.is_empty() {
                body.extend([quote!(#fwd;)]);
            }
        }
        self.scopes.pop();
        // a binding of the enclosing code that now holds a value of this
        // body, without being carried, would be read after the loop where
        // that value no longer exists
        let mut assigned = Assignments::default();
        for stmt in &block.stmts {
            assigned.visit_stmt(stmt);
        }
        for (name, _, _) in &assigned.assigned {
            if carried.iter().any(|(c, _, _)| c == name) {
                continue;
            }
            if let Some(Val::Active(v)) = self.lookup(&name.to_string()).map(|b| b.val.clone()) {
                if self.values[v].scope == lp.region {
                    self.errors.push(syn::Error::new_spanned(
                        name,
                        format!("`{name}` carries a recorded value from one iteration to the next in a way Mica cannot follow; start it from a recorded value before the loop"),
                    ));
                    self.set(name, Val::Const);
                }
            }
        }
        let ends: Vec<Val> = carried
            .iter()
            .map(|(name, _, _)| {
                self.lookup(&name.to_string())
                    .map(|b| b.val.clone())
                    .unwrap_or(Val::Const)
            })
            .collect();
        self.scopes.pop();
        let steps = self.building.pop().unwrap_or_default();
        let hoist = self.hoists.pop().unwrap_or_default();
        self.depth -= 1;
        (self.region, self.scope) = saved;
        bound?;
        let decls = hoisted_decls(&hoist);
        let fill = &lp.fill;
        Ok((
            quote!(#decls #body #fill),
            LoopRecord {
                steps,
                entries,
                ends,
            },
        ))
    }

    /// After the loop: its trip count, the carried bindings' values after
    /// it, and the loop's step in the record.
    pub(super) fn close_loop(
        &mut self,
        lp: OpenLoop,
        carried: Vec<(Ident, Origin, Val)>,
        record: LoopRecord,
        out: &mut TokenStream,
    ) {
        let LoopRecord {
            steps,
            entries,
            ends,
        } = record;
        let counter = &lp.counter;
        let count = self.lazy_temp(quote!(#counter), "c", out);
        let readers: Vec<ValueId> = lp.index.into_iter().chain([count]).collect();
        self.lazy.push((
            lp.counter_at.clone(),
            readers.clone(),
            quote!(let mut #counter = 0usize;),
        ));
        if let Some(step) = &lp.counter_step {
            self.lazy
                .push((step.clone(), readers, quote!(#counter += 1;)));
        }
        let mut record = Vec::new();
        for (((name, _, before), entry), end) in carried.into_iter().zip(entries).zip(ends) {
            let exit = self.lazy_temp(quote!(#name), "x", out);
            self.set(&name, Val::Active(exit));
            record.push(Carried {
                entry,
                end,
                before,
                exit,
            });
        }
        self.push_step(Step::Loop(Box::new(Loop {
            region: lp.region,
            scope: lp.region,
            steps,
            tape: lp.tape,
            count,
            fill: lp.fill,
            reserve: lp.reserve,
            range: lp.range,
            values: lp.first_value..self.values.len(),
            carried: record,
            top: lp.top,
            before: lp.before,
            trip: lp.trip,
            facts: lp.facts,
        })));
    }

    /// Changes what an existing binding holds (where it was bound).
    pub(super) fn set(&mut self, name: &Ident, val: Val) {
        let key = name.to_string();
        if let Some(binding) = self.scopes.iter_mut().rev().find_map(|s| s.get_mut(&key)) {
            binding.val = val;
        }
    }

    /// For `for … in a..N` (or `a..=N`) with a literal or `const` bound: a
    /// bound on the trip count, capped so the inline storage stays small
    /// (past it the storage spills to the heap).
    pub(super) fn constant_trip_bound(&self, expr: &Expr) -> Option<TokenStream> {
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
