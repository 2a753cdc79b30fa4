//! Lowering of arrays, loops and branches.
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
//! A branch records which arm ran (`__mica_f = 0usize;` at the top of each
//! arm), and a value that leaves it — the `if`'s value, or a binding an arm
//! assigns — becomes a merge the reverse hands back to the arm that ran.

use super::*;
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

impl Sweep<'_> {
    /// `w[i]`: an element of a recorded array is recorded, a row is a view.
    pub(super) fn lower_index(
        &mut self,
        i: &syn::ExprIndex,
        out: &mut TokenStream,
    ) -> syn::Result<Lowered> {
        let key = self
            .read_cache
            .as_ref()
            .map(|_| i.to_token_stream().to_string());
        if let (Some(cache), Some(key)) = (&self.read_cache, &key) {
            if let Some((id, fwd)) = cache.get(key) {
                return Ok(Lowered {
                    val: Val::Active(*id),
                    fwd: fwd.clone(),
                });
            }
        }
        let lowered = self.lower_index_once(i, out)?;
        if let (Some(cache), Some(key), Val::Active(id)) = (&mut self.read_cache, key, &lowered.val)
        {
            cache.insert(key, (*id, lowered.fwd.clone()));
        }
        Ok(lowered)
    }

    fn lower_index_once(
        &mut self,
        i: &syn::ExprIndex,
        out: &mut TokenStream,
    ) -> syn::Result<Lowered> {
        let base = self.lower_expr(&i.expr, out)?;
        if let (Val::Active(_), Expr::Path(p)) = (&base.val, &*i.expr) {
            if let Some(name) = p.path.get_ident() {
                if self
                    .lookup(&name.to_string())
                    .is_some_and(|b| b.origin == Origin::Knob)
                {
                    return Err(syn::Error::new_spanned(
                        name,
                        format!("`{name}` is tracked as a scalar; a knob that is an array needs its type: `#[tracked] let {name}: [f64; N] = …;`"),
                    ));
                }
            }
        }
        let Val::Array { array, prefix } = base.val else {
            return Err(syn::Error::new(
                i.bracket_token.span.join(),
                "only arrays, slices and `Vec`s of recorded values can be indexed",
            ));
        };
        let (index, index_fwd) = self.lower_subscript(&i.index, out)?;
        if matches!(index, Operand::Active(_)) {
            return Err(syn::Error::new_spanned(
                &i.index,
                "an index is an integer, not a recorded value",
            ));
        }
        let deps: Vec<ValueId> = prefix
            .iter()
            .chain([&index])
            .filter_map(|i| match i {
                Operand::Stored(v) => Some(*v),
                _ => None,
            })
            .collect();
        let place = {
            let base = &base.fwd;
            quote!(#base[#index_fwd])
        };
        // a scalar of a one-level array: through a slice where a loop
        // proves it in bounds (see `lower/fast.rs`)
        let fast = prefix.is_empty() && self.arrays[array].rank == 1;
        let read = fast
            .then(|| self.fast_read(&i.expr, &i.index, &place, true))
            .flatten()
            .unwrap_or_else(|| place.clone());
        let lowered = self.element(array, prefix, index, read, out);
        // an element of an array nothing writes (a stable name) is read again
        if let (Val::Active(id), Some(stability)) = (&lowered.val, &self.stability) {
            if stability.pure(&i.expr) {
                self.values[*id].recompute = Some(place);
                self.values[*id].deps = deps;
            }
        }
        Ok(lowered)
    }

    /// An array's subscript: an operand that keeps its syntax for the
    /// dependence analysis.
    fn lower_subscript(
        &mut self,
        index: &Expr,
        out: &mut TokenStream,
    ) -> syn::Result<(Operand, TokenStream)> {
        let (operand, fwd) = self.lower_operand(index, out)?;
        if let Operand::Stored(id) = operand {
            self.values[id].syntax = Some(strip_parens(index).clone());
        }
        Ok((operand, fwd))
    }

    fn element(
        &mut self,
        array: ArrayId,
        mut prefix: Vec<Operand>,
        index: Operand,
        fwd: TokenStream,
        out: &mut TokenStream,
    ) -> Lowered {
        prefix.push(index);
        if prefix.len() >= self.arrays[array].rank {
            self.new_op(
                OpKind::Read {
                    array,
                    indices: prefix,
                },
                Vec::new(),
                fwd,
                out,
            )
        } else {
            Lowered {
                val: Val::Array { array, prefix },
                fwd,
            }
        }
    }

    fn source(&mut self, expr: &Expr, out: &mut TokenStream) -> syn::Result<Source> {
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
    fn bind_elements(
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

    fn open_loop(&mut self, capacity: Option<TokenStream>, out: &mut TokenStream) -> OpenLoop {
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
    fn loop_body(
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
    fn close_loop(
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

    /// Bindings the body assigns whose values flow between iterations as
    /// recorded values (found before lowering, so each iteration can start
    /// from a copy).
    fn carried(&self, stmts: &[Stmt], elements: &[String]) -> Vec<(Ident, Origin, Val)> {
        let mut finder = Assignments::default();
        for stmt in stmts {
            finder.visit_stmt(stmt);
        }
        let mut active: HashSet<String> = self
            .scopes
            .iter()
            .flat_map(|s| s.iter())
            .filter(|(name, _)| self.is_active_name(name))
            .map(|(name, _)| name.clone())
            .chain(elements.iter().cloned())
            .collect();
        let mut loops = LoopPatterns::default();
        for stmt in stmts {
            loops.visit_stmt(stmt);
        }
        // a fixed point: a binding becomes recorded when assigned a recorded
        // value, an inner loop's element when it iterates a recorded array
        loop {
            let before = active.len();
            for (pat, iterated) in &loops.0 {
                if super::names_any(iterated, |i| active.contains(&i.to_string())) {
                    let mut names = PatNames::default();
                    names.visit_pat(pat);
                    active.extend(names.0.iter().map(Ident::to_string));
                }
            }
            for (name, value, compound) in &finder.assigned {
                if syntactically_active(value, &active)
                    || (*compound && active.contains(&name.to_string()))
                {
                    active.insert(name.to_string());
                }
            }
            for (name, init) in &finder.lets {
                if syntactically_active(init, &active) {
                    active.insert(name.to_string());
                }
            }
            // an array given a recorded element holds recorded values
            for (name, value) in &finder.writes {
                if syntactically_active(value, &active) {
                    active.insert(name.to_string());
                }
            }
            if active.len() == before {
                break;
            }
        }
        let mut seen = HashSet::new();
        finder
            .assigned
            .iter()
            .filter(|(name, _, _)| {
                active.contains(&name.to_string()) && seen.insert(name.to_string())
            })
            .filter_map(|(name, _, _)| {
                let binding = self.lookup(&name.to_string())?;
                matches!(binding.origin, Origin::Local | Origin::Param)
                    .then(|| (name.clone(), binding.origin, binding.val.clone()))
            })
            .collect()
    }

    /// `if cond { … } else { … }`: each arm a region, the arm taken recorded.
    pub(super) fn lower_if(
        &mut self,
        i: &syn::ExprIf,
        out: &mut TokenStream,
    ) -> syn::Result<Lowered> {
        if matches!(&*i.cond, Expr::Let(_)) && self.mentions_active(&i.cond) {
            return Err(syn::Error::new_spanned(
                i.if_token,
                "`if let` on recorded values is not supported; compare them instead",
            ));
        }
        let cond = self.lower_expr(&i.cond, out)?;
        if cond.val.is_active() {
            return Err(syn::Error::new_spanned(
                &i.cond,
                "a condition is a comparison, not a recorded value",
            ));
        }
        let then_block = i.then_branch.stmts.clone();
        let else_block: Option<Vec<Stmt>> = i.else_branch.as_ref().map(|(_, e)| match &**e {
            Expr::Block(b) => b.block.stmts.clone(),
            other => vec![Stmt::Expr(other.clone(), None)],
        });
        let has_value = else_block.is_some()
            && gives_value(&then_block)
            && else_block.as_deref().is_some_and(gives_value);
        let arms = vec![then_block, else_block.unwrap_or_default()];
        let (value, tokens, after) = self.lower_arms(&arms, has_value, &[], out)?;
        let (cond, then_tokens, else_tokens) = (&cond.fwd, &tokens[0], &tokens[1]);
        out.extend([quote!(if #cond { #then_tokens } else { #else_tokens } #after)]);
        Ok(value)
    }

    /// `match scrutinee { pat => … }`: each arm a region.
    pub(super) fn lower_match(
        &mut self,
        m: &syn::ExprMatch,
        out: &mut TokenStream,
    ) -> syn::Result<Lowered> {
        let scrutinee = self.lower_expr(&m.expr, out)?;
        if scrutinee.val.is_active() {
            return Err(syn::Error::new_spanned(
                &m.expr,
                "a `match` chooses by an integer, an enum or a comparison, not by a recorded value",
            ));
        }
        let arms: Vec<Vec<Stmt>> = m
            .arms
            .iter()
            .map(|arm| match &*arm.body {
                Expr::Block(b) if b.label.is_none() => b.block.stmts.clone(),
                // `k => d = x,`: an assignment is a statement, not a value
                other if is_assignment(other) => {
                    vec![Stmt::Expr(other.clone(), Some(Default::default()))]
                }
                other => vec![Stmt::Expr(other.clone(), None)],
            })
            .collect();
        let patterns: Vec<&Pat> = m.arms.iter().map(|arm| &arm.pat).collect();
        // arms of `()` (`{}`, a block of statements) give no value to keep
        let has_value = arms.iter().any(|arm| gives_value(arm));
        let (value, tokens, after) = self.lower_arms(&arms, has_value, &patterns, out)?;
        let arms = m.arms.iter().zip(tokens).map(|(arm, body)| {
            let pat = &arm.pat;
            let guard = arm
                .guard
                .as_ref()
                .map(|(if_token, cond)| quote!(#if_token #cond));
            quote!(#pat #guard => { #body })
        });
        let scrutinee = &scrutinee.fwd;
        out.extend([quote!(match #scrutinee { #(#arms)* } #after)]);
        Ok(value)
    }

    /// The arms of a branch, each lowered in a region of its own; returns
    /// the flag, the branch's value and each arm's forward code.
    fn lower_arms(
        &mut self,
        arms: &[Vec<Stmt>],
        has_value: bool,
        patterns: &[&Pat],
        out: &mut TokenStream,
    ) -> syn::Result<(Lowered, Vec<TokenStream>, TokenStream)> {
        let flag_store = self.names.fresh("f");
        self.declare_late(&flag_store, out);
        let flag = self.new_value(flag_store.clone(), None);
        let value_store = self.names.fresh("m");
        if has_value {
            self.declare_late(&value_store, out);
        }
        // bindings made before the branch that some arm assigns
        let mut finder = Assignments::default();
        for stmt in arms.iter().flatten() {
            finder.visit_stmt(stmt);
        }
        let mut candidates: Vec<(Ident, Val)> = Vec::new();
        for (name, _, _) in &finder.assigned {
            if candidates.iter().any(|(c, _)| c == name) {
                continue;
            }
            if let Some(binding) = self.lookup(&name.to_string()) {
                candidates.push((name.clone(), binding.val.clone()));
            }
        }
        let mut tokens = Vec::new();
        let mut record = Vec::new();
        let mut tails = Vec::new();
        let mut ends: Vec<Vec<Val>> = vec![Vec::new(); candidates.len()];
        let mut failed = None;
        for (k, stmts) in arms.iter().enumerate() {
            let saved = self.region;
            self.region = self.regions;
            self.regions += 1;
            if let Some(hoist) = self.hoists.last_mut() {
                hoist.arms += 1;
            }
            self.depth += 1;
            self.building.push(Vec::new());
            self.scopes.push(HashMap::new());
            if let Some(pat) = patterns.get(k) {
                let mut names = PatNames::default();
                names.visit_pat(pat);
                for name in names.0 {
                    self.bind(&name, Val::Const, Origin::Local);
                }
            }
            let mut arm = quote!(#flag_store = #k;);
            let tail = self.lower_block_stmts(stmts, &mut arm);
            match (tail, has_value) {
                (Some(tail), true) if !tail.fwd.is_empty() => {
                    let fwd = tail.fwd;
                    arm.extend([quote!(#value_store = #fwd;)]);
                    tails.push(tail.val);
                }
                (Some(_), true) => tails.push(Val::Const),
                (Some(tail), false) => {
                    let fwd = tail.fwd;
                    if !fwd.is_empty() {
                        arm.extend([quote!(#fwd;)]);
                    }
                }
                (None, true) => tails.push(Val::Const),
                (None, false) => {}
            }
            for (c, (name, _)) in candidates.iter().enumerate() {
                let val = self
                    .lookup(&name.to_string())
                    .map(|b| b.val.clone())
                    .unwrap_or(Val::Const);
                ends[c].push(val);
            }
            self.scopes.pop();
            let steps = self.building.pop().unwrap_or_default();
            self.depth -= 1;
            if let Some(hoist) = self.hoists.last_mut() {
                hoist.arms -= 1;
            }
            record.push((self.region, steps));
            self.region = saved;
            // the next arm starts from the values before the branch
            for (name, before) in &candidates {
                self.set(name, before.clone());
            }
            tokens.push(arm);
            if tails
                .iter()
                .chain(ends.iter().flatten())
                .any(|v| matches!(v, Val::Tuple(_) | Val::Array { .. }))
            {
                failed = Some(k);
            }
        }
        if failed.is_some() {
            return Err(syn::Error::new_spanned(
                first_token_of_stmts(arms),
                "a branch gives a scalar or a constant; tuples and arrays out of a branch are not supported",
            ));
        }
        let mut merges = Vec::new();
        let value = if has_value && tails.iter().any(Val::is_active) {
            let out_id = self.new_value(value_store.clone(), None);
            merges.push(Merge {
                out: out_id,
                per_arm: tails,
            });
            Lowered {
                val: Val::Active(out_id),
                fwd: value_store.to_token_stream(),
            }
        } else if has_value {
            Lowered {
                val: Val::Const,
                fwd: value_store.to_token_stream(),
            }
        } else {
            Lowered {
                val: Val::Const,
                fwd: TokenStream::new(),
            }
        };
        let mut after = TokenStream::new();
        for ((name, _), per_arm) in candidates.iter().zip(ends) {
            let first = per_arm.first().cloned().unwrap_or(Val::Const);
            let same = per_arm.iter().all(|v| match (v, &first) {
                (Val::Active(a), Val::Active(b)) => a == b,
                (Val::Const, Val::Const) => true,
                _ => false,
            });
            if same {
                self.set(name, first);
            } else {
                let store = self.names.fresh("m");
                self.emit_temp(&store, quote!(#name), &mut after);
                let id = self.new_value(store, None);
                self.set(name, Val::Active(id));
                merges.push(Merge { out: id, per_arm });
            }
        }
        self.push_step(Step::Branch(Branch {
            flag,
            arms: record,
            merges,
        }));
        Ok((value, tokens, after))
    }

    /// A local assigned later (in every arm of a branch): declared here, or
    /// at the top of the storage scope when the branch is nested.
    fn declare_late(&mut self, name: &Ident, out: &mut TokenStream) {
        let depth = self.depth;
        match self.hoists.last_mut() {
            Some(hoist) if hoist.base != depth || hoist.arms > 0 => {
                hoist.names.push((name.clone(), hoist.arms > 0))
            }
            _ => out.extend([quote!(let #name;)]),
        }
    }
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

/// `let` lines for a storage scope's hoisted temporaries.
pub(super) fn hoisted_decls(hoist: &Hoist) -> TokenStream {
    let options = hoist.options.iter().map(
        |name| quote!(#[allow(unused_assignments)] let mut #name = ::core::option::Option::None;),
    );
    hoist
        .names
        .iter()
        .map(|(name, in_arm)| {
            if *in_arm {
                quote!(#[allow(unused_assignments)] let mut #name = ::mica::__private::placeholder();)
            } else {
                quote!(let #name;)
            }
        })
        .chain(options)
        .collect()
}

/// Replaces each loop's placeholder by the push its reverse needs (or by
/// nothing, when no reverse walks the loop).
pub fn fill_placeholders(tokens: TokenStream, fills: &HashMap<String, TokenStream>) -> TokenStream {
    filled(&tokens, fills).unwrap_or(tokens)
}

/// `tokens` with their placeholders filled, or `None` if they hold none. A
/// stream without placeholders is kept, not rebuilt: inside rustc each
/// token moved into a new stream crosses the proc-macro bridge, and most of
/// a sweep's groups hold none.
fn filled(tokens: &TokenStream, fills: &HashMap<String, TokenStream>) -> Option<TokenStream> {
    let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
    // from the first change on, the new stream's trees
    let mut out: Option<Vec<TokenTree>> = None;
    for (k, tree) in trees.iter().enumerate() {
        let replacement: Option<Vec<TokenTree>> = match tree {
            TokenTree::Ident(ident) => {
                let name = ident.to_string();
                name.starts_with("__mica_fill").then(|| {
                    fills
                        .get(&name)
                        .cloned()
                        .unwrap_or_default()
                        .into_iter()
                        .collect()
                })
            }
            TokenTree::Group(g) => filled(&g.stream(), fills).map(|inner| {
                let mut group = proc_macro2::Group::new(g.delimiter(), inner);
                group.set_span(g.span());
                vec![TokenTree::Group(group)]
            }),
            _ => None,
        };
        match (replacement, &mut out) {
            (Some(new), Some(out)) => out.extend(new),
            (Some(new), None) => out = Some(trees[..k].iter().cloned().chain(new).collect()),
            (None, Some(out)) => out.push(tree.clone()),
            (None, None) => {}
        }
    }
    out.map(|trees| trees.into_iter().collect())
}

fn unsupported_iteration(expr: &Expr) -> syn::Error {
    syn::Error::new_spanned(
        expr,
        "iterate over recorded values with a range, `.iter()`, `.iter().enumerate()` or `.zip(…)`",
    )
}

fn first_token_of_stmts(arms: &[Vec<Stmt>]) -> TokenStream {
    arms.iter()
        .flatten()
        .next()
        .map(|s| s.to_token_stream().into_iter().take(1).collect())
        .unwrap_or_default()
}

/// `break` and `continue` would skip the iteration's push.
fn check_loop_exits(body: &syn::Block) -> syn::Result<()> {
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

/// Assignments and `let`s in a body, for the activity fixed point.
#[derive(Default)]
struct Assignments {
    /// `(target, value, compound)`
    assigned: Vec<(Ident, Expr, bool)>,
    lets: Vec<(Ident, Expr)>,
    /// `(array, value)` of `array[…] = value` and `array[…] op= value`
    writes: Vec<(Ident, Expr)>,
}

impl<'ast> Visit<'ast> for Assignments {
    fn visit_expr_assign(&mut self, e: &'ast syn::ExprAssign) {
        if let Some(name) = plain_name(&e.left) {
            self.assigned
                .push((name.clone(), (*e.right).clone(), false));
        } else if let Some(name) = indexed_name(&e.left) {
            self.writes.push((name.clone(), (*e.right).clone()));
        }
        syn::visit::visit_expr_assign(self, e);
    }
    fn visit_expr_binary(&mut self, e: &'ast syn::ExprBinary) {
        if is_compound(&e.op) {
            if let Some(name) = plain_name(&e.left) {
                self.assigned.push((name.clone(), (*e.right).clone(), true));
            } else if let Some(name) = indexed_name(&e.left) {
                self.writes.push((name.clone(), (*e.right).clone()));
            }
        }
        syn::visit::visit_expr_binary(self, e);
    }
    fn visit_local(&mut self, local: &'ast Local) {
        if let Some(init) = &local.init {
            let mut names = PatNames::default();
            names.visit_pat(&local.pat);
            for name in names.0 {
                self.lets.push((name, (*init.expr).clone()));
            }
        }
        syn::visit::visit_local(self, local);
    }
    fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// `h` of `h[i]`, `h[i][j]`.
fn indexed_name(expr: &Expr) -> Option<&Ident> {
    match expr {
        Expr::Index(i) => match &*i.expr {
            Expr::Index(_) => indexed_name(&i.expr),
            other => plain_name(other),
        },
        _ => None,
    }
}

fn plain_name(expr: &Expr) -> Option<&Ident> {
    match expr {
        Expr::Path(p) if p.qself.is_none() => p.path.get_ident(),
        Expr::Paren(p) => plain_name(&p.expr),
        _ => None,
    }
}

/// Whether an expression would be recorded, judged from its syntax alone:
/// arithmetic and rule methods carry recorded values, comparisons, casts and
/// `detach` do not.
fn syntactically_active(expr: &Expr, active: &HashSet<String>) -> bool {
    match expr {
        Expr::Path(p) => p
            .path
            .get_ident()
            .is_some_and(|i| active.contains(&i.to_string())),
        Expr::Binary(b) => {
            crate::rules::binary(&b.op).is_some()
                && (syntactically_active(&b.left, active) || syntactically_active(&b.right, active))
        }
        Expr::Unary(u) => {
            !matches!(u.op, syn::UnOp::Not(_)) && syntactically_active(&u.expr, active)
        }
        Expr::Paren(p) => syntactically_active(&p.expr, active),
        Expr::Group(g) => syntactically_active(&g.expr, active),
        Expr::Reference(r) => syntactically_active(&r.expr, active),
        Expr::MethodCall(m) => match crate::rules::method(&m.method.to_string()) {
            Some(method) if method.slope == crate::rules::Slope::Zero => false,
            Some(_) => syntactically_active(&m.receiver, active) || any_active(&m.args, active),
            None => {
                !matches!(m.method.to_string().as_str(), "len" | "is_empty")
                    && any_active(&m.args, active)
            }
        },
        Expr::Call(c) => {
            let detach = matches!(&*c.func, Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "detach"));
            !detach && any_active(&c.args, active)
        }
        Expr::Index(i) => syntactically_active(&i.expr, active),
        Expr::Field(f) => syntactically_active(&f.base, active),
        Expr::Tuple(t) => any_active(&t.elems, active),
        Expr::Array(a) => any_active(&a.elems, active),
        Expr::Repeat(r) => syntactically_active(&r.expr, active),
        Expr::Macro(m) if m.mac.path.is_ident("vec") => {
            array_literal(expr).is_some_and(|literal| syntactically_active(&literal, active))
        }
        Expr::Block(b) => block_active(&b.block.stmts, active),
        Expr::If(i) => {
            block_active(&i.then_branch.stmts, active)
                || i.else_branch
                    .as_ref()
                    .is_some_and(|(_, e)| syntactically_active(e, active))
        }
        Expr::Match(m) => m
            .arms
            .iter()
            .any(|arm| syntactically_active(&arm.body, active)),
        _ => false,
    }
}

/// Whether a block's value would be recorded: its tail, judged with the
/// block's own `let`s of recorded values (`{ let u = x; u.sin() }`).
fn block_active(stmts: &[Stmt], active: &HashSet<String>) -> bool {
    let Some(Stmt::Expr(tail, None)) = stmts.last() else {
        return false;
    };
    let mut inner = active.clone();
    for stmt in stmts {
        if let Stmt::Local(local) = stmt {
            if let Some(init) = &local.init {
                let mut names = PatNames::default();
                names.visit_pat(&local.pat);
                let recorded = syntactically_active(&init.expr, &inner);
                for name in names.0 {
                    if recorded {
                        inner.insert(name.to_string());
                    } else {
                        inner.remove(&name.to_string());
                    }
                }
            }
        }
    }
    syntactically_active(tail, &inner)
}

fn any_active<'e>(items: impl IntoIterator<Item = &'e Expr>, active: &HashSet<String>) -> bool {
    items.into_iter().any(|e| syntactically_active(e, active))
}

/// Arrays made inside the sweep: `let mut h = [0.0; N];` then `h[j] = …`.
impl Sweep<'_> {
    /// Whether this `let` makes an array that recorded values are written
    /// into (by its literal, or later in the block): such an array is
    /// recorded from the start, with its shape captured here.
    pub(super) fn makes_recorded_array(
        &self,
        local: &Local,
        rest: &[Stmt],
        later: &mut LaterNames<'_>,
        at: usize,
    ) -> bool {
        let Some(init) = &local.init else {
            return false;
        };
        let Some(name) = array_binding(&local.pat) else {
            return false;
        };
        let Some(literal) = array_literal(&init.expr) else {
            return false;
        };
        let mut active: HashSet<String> = self
            .scopes
            .iter()
            .flat_map(|s| s.keys())
            .filter(|name| self.is_active_name(name))
            .cloned()
            .collect();
        let elements: Vec<&Expr> = match &literal {
            Expr::Array(a) => a.elems.iter().collect(),
            Expr::Repeat(r) => vec![&*r.expr],
            _ => Vec::new(),
        };
        if elements.iter().any(|e| syntactically_active(e, &active)) {
            return true;
        }
        // only the lines up to the last one naming the array can write it
        let rest = &rest[..later
            .last_mention(&name.to_string(), at)
            .map_or(0, |k| k + 1 - at)];
        // what later lines could record: names bound from recorded values,
        // and the elements of loops over recorded arrays
        let mut finder = Assignments::default();
        let mut loops = LoopPatterns::default();
        for stmt in rest {
            finder.visit_stmt(stmt);
            loops.visit_stmt(stmt);
        }
        // (a loop may iterate an array bound by a later `let`): until
        // nothing more is found
        loop {
            let known = active.len();
            for (pat, iterated) in &loops.0 {
                if self.mentions_active(iterated)
                    || super::names_any(iterated, |i| active.contains(&i.to_string()))
                {
                    let mut names = PatNames::default();
                    names.visit_pat(pat);
                    active.extend(names.0.iter().map(Ident::to_string));
                }
            }
            for (binding, init) in &finder.lets {
                if syntactically_active(init, &active) {
                    active.insert(binding.to_string());
                }
            }
            for (binding, value, _) in &finder.assigned {
                if syntactically_active(value, &active) {
                    active.insert(binding.to_string());
                }
            }
            // another array made below that a recorded value is written into
            for (array, value) in &finder.writes {
                if syntactically_active(value, &active) {
                    active.insert(array.to_string());
                }
            }
            if active.len() == known {
                break;
            }
        }
        finder
            .writes
            .iter()
            .any(|(target, value)| *target == name && syntactically_active(value, &active))
    }

    pub(super) fn lower_local_array(
        &mut self,
        local: &Local,
        out: &mut TokenStream,
    ) -> syn::Result<()> {
        let (Some(init), Some(name)) = (&local.init, array_binding(&local.pat)) else {
            return Err(syn::Error::new_spanned(
                &local.pat,
                "an array is bound to one name",
            ));
        };
        let literal = array_literal(&init.expr).unwrap_or_else(|| (*init.expr).clone());
        let is_vec = matches!(&*init.expr, Expr::Macro(_));
        let rank = crate::facts::syntax::literal_rank(&literal);
        // the elements, lowered in order
        let (fwd, writes) = match &literal {
            Expr::Array(a) => {
                let mut fwds = Vec::new();
                let mut writes = Vec::new();
                for (k, elem) in a.elems.iter().enumerate() {
                    let lowered = self.lower_expr(elem, out)?;
                    match lowered.val {
                        Val::Active(id) => writes.push((k, id)),
                        Val::Const => {}
                        _ => {
                            return Err(syn::Error::new_spanned(
                                elem,
                                "an array literal of recorded values holds scalars; nested literals are not supported",
                            ))
                        }
                    }
                    fwds.push(lowered.fwd);
                }
                (quote!([#(#fwds),*]), Fill::Elements(writes))
            }
            Expr::Repeat(r) => {
                let lowered = self.lower_expr(&r.expr, out)?;
                let len = &r.len;
                let fwd = &lowered.fwd;
                let fill = match lowered.val {
                    Val::Active(id) if rank == 1 => Fill::All(id),
                    Val::Active(_) => {
                        return Err(syn::Error::new_spanned(
                            &r.expr,
                            "`[x; n]` of a recorded value makes a flat array; nested ones are not supported",
                        ))
                    }
                    _ => Fill::Elements(Vec::new()),
                };
                (quote!([#fwd; #len]), fill)
            }
            _ => {
                return Err(syn::Error::new_spanned(
                    &init.expr,
                    "an array made inside a window starts from a literal",
                ))
            }
        };
        let fwd = if is_vec {
            let inner: TokenStream = fwd
                .into_iter()
                .flat_map(|tt| match tt {
                    TokenTree::Group(g) => g.stream(),
                    other => other.into(),
                })
                .collect();
            quote!(::std::vec![#inner])
        } else {
            fwd
        };
        let (attrs, pat) = (&local.attrs, &local.pat);
        out.extend([quote!(#(#attrs)* let #pat = #fwd;)]);
        let shape = self.stored(quote!(::mica::__private::shape_of(&#name)), out);
        let acc = self.names.fresh("h");
        // `vec![x; N]` of a constant length: its buffer fits on the stack
        let inline = match &literal {
            Expr::Repeat(r) if is_vec && rank == 1 => self.capped_constant(&r.len, 0),
            _ => None,
        };
        self.arrays.push(Array {
            acc: acc.to_token_stream(),
            declare: None,
            rank: rank.max(1),
            local: Some((self.region, shape)),
            inline,
        });
        let array = self.arrays.len() - 1;
        match writes {
            Fill::Elements(writes) => {
                for (k, id) in writes {
                    let index = proc_macro2::Literal::usize_unsuffixed(k);
                    self.push_step(Step::Write {
                        array,
                        indices: vec![Operand::Const(index.to_token_stream())],
                        value: Operand::Active(id),
                    });
                }
            }
            Fill::All(id) => self.push_step(Step::Fill { array, value: id }),
        }
        self.bind(
            &name,
            Val::Array {
                array,
                prefix: Vec::new(),
            },
            Origin::Local,
        );
        Ok(())
    }

    /// `h[i] = v`, `h[i][j] += v` on an array made inside the sweep.
    pub(super) fn lower_array_write(
        &mut self,
        target: &syn::ExprIndex,
        op: Option<&syn::BinOp>,
        value: &Expr,
        out: &mut TokenStream,
    ) -> syn::Result<()> {
        // h[i][j]: the base and the indices, outermost first
        let mut indices_exprs = vec![&*target.index];
        let mut base = &*target.expr;
        while let Expr::Index(inner) = base {
            indices_exprs.push(&*inner.index);
            base = &*inner.expr;
        }
        indices_exprs.reverse();
        let lowered = self.lower_expr(base, out)?;
        let Val::Array { array, prefix } = lowered.val else {
            // an array that is not recorded may take a constant (a slope-0
            // value); the write is kept as the user wrote it
            let value = self.lower_expr(value, out)?;
            if value.val.is_active() {
                return Err(syn::Error::new_spanned(
                    base,
                    "a recorded value is written into an array made inside the window",
                ));
            }
            let (fwd, place) = (value.fwd, target);
            match op {
                Some(op) => out.extend([quote!(#place #op #fwd;)]),
                None => out.extend([quote!(#place = #fwd;)]),
            }
            return Ok(());
        };
        if self.arrays[array].local.is_none() {
            return Err(syn::Error::new_spanned(
                base,
                "a tracked array cannot be written to; copy what you need into an array made inside the window",
            ));
        }
        let mut indices = prefix;
        let mut index_fwds = Vec::new();
        for index in indices_exprs {
            let (operand, fwd) = self.lower_subscript(index, out)?;
            indices.push(operand);
            index_fwds.push(fwd);
        }
        if indices.len() != self.arrays[array].rank {
            return Err(syn::Error::new_spanned(
                target,
                "write one element at a time: `h[i] = …`",
            ));
        }
        let base_fwd = &lowered.fwd;
        let place = quote!(#base_fwd #([#index_fwds])*);
        // `h[i] += v` / `h[i] -= v`: the element's adjoint passes through
        // unchanged, and `v` receives it (negated for `-=`)
        if let Some(op @ (syn::BinOp::AddAssign(_) | syn::BinOp::SubAssign(_))) = op {
            let (right, right_fwd) = self.lower_operand(value, out)?;
            out.extend([quote!(#place #op #right_fwd;)]);
            self.push_step(Step::Increment {
                array,
                indices,
                value: right,
                negate: matches!(op, syn::BinOp::SubAssign(_)),
            });
            return Ok(());
        }
        let (operand, fwd) = match op {
            None => self.lower_operand(value, out)?,
            Some(op) => {
                let rule = crate::rules::binary(op).ok_or_else(|| {
                    syn::Error::new_spanned(op, "this operator is outside the recorded vocabulary")
                })?;
                self.new_op(
                    OpKind::Read {
                        array,
                        indices: indices.clone(),
                    },
                    Vec::new(),
                    place.clone(),
                    out,
                );
                let old = self.values.len() - 1;
                let (right, right_fwd) = self.lower_operand(value, out)?;
                let old_store = self.values[old].store.clone();
                let bin = compound_to_binary(op);
                let lowered = self.new_op(
                    OpKind::Rule(rule),
                    vec![Operand::Active(old), right],
                    quote!(#old_store #bin #right_fwd),
                    out,
                );
                (Operand::Active(self.values.len() - 1), lowered.fwd)
            }
        };
        out.extend([quote!(#place = #fwd;)]);
        self.push_step(Step::Write {
            array,
            indices,
            value: operand,
        });
        Ok(())
    }
}

/// The names each statement of a block mentions (its tokens' identifiers,
/// macro arguments included), computed once for the block when an array
/// `let` first asks: which later line is the last to name the array.
pub(super) struct LaterNames<'s> {
    stmts: &'s [Stmt],
    names: Option<Vec<HashSet<String>>>,
}

impl<'s> LaterNames<'s> {
    pub(super) fn new(stmts: &'s [Stmt]) -> Self {
        LaterNames { stmts, names: None }
    }

    /// The index of the last statement at or after `from` that names `name`.
    fn last_mention(&mut self, name: &str, from: usize) -> Option<usize> {
        let stmts = self.stmts;
        let names = self.names.get_or_insert_with(|| {
            stmts
                .iter()
                .map(|s| {
                    let mut names = HashSet::new();
                    crate::names::idents_in(s.to_token_stream(), &mut names);
                    names
                })
                .collect()
        });
        (from..names.len()).rev().find(|&k| names[k].contains(name))
    }
}

/// What an array literal writes when it is made.
enum Fill {
    /// these elements (by index) are recorded values
    Elements(Vec<(usize, ValueId)>),
    /// `[x; n]` of a recorded `x`
    All(ValueId),
}

fn array_binding(pat: &Pat) -> Option<Ident> {
    match pat {
        Pat::Ident(p) if p.subpat.is_none() && p.by_ref.is_none() => Some(p.ident.clone()),
        Pat::Type(t) => array_binding(&t.pat),
        _ => None,
    }
}

/// The literal an array `let` starts from: `[…]`, `[x; n]` or `vec![…]`.
pub(super) fn array_literal(expr: &Expr) -> Option<Expr> {
    match expr {
        Expr::Array(_) | Expr::Repeat(_) => Some(expr.clone()),
        Expr::Macro(m) if m.mac.path.is_ident("vec") => {
            let tokens = &m.mac.tokens;
            syn::parse2::<Expr>(quote!([#tokens]))
                .ok()
                .filter(|e| matches!(e, Expr::Array(_) | Expr::Repeat(_)))
        }
        _ => None,
    }
}

/// The patterns and iterated expressions of `for` loops.
#[derive(Default)]
struct LoopPatterns(Vec<(Pat, Expr)>);

impl<'ast> Visit<'ast> for LoopPatterns {
    fn visit_expr_for_loop(&mut self, f: &'ast syn::ExprForLoop) {
        self.0.push(((*f.pat).clone(), (*f.expr).clone()));
        syn::visit::visit_expr_for_loop(self, f);
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// `x = …` or `x op= …`.
pub(super) fn is_assignment(expr: &Expr) -> bool {
    match expr {
        Expr::Assign(_) => true,
        Expr::Binary(b) => is_compound(&b.op),
        _ => false,
    }
}

impl Sweep<'_> {
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
    fn capped_constant(&self, end: &Expr, extra: usize) -> Option<TokenStream> {
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

/// Whether a block's statements end with a value (not `()` and not an
/// assignment).
fn gives_value(stmts: &[Stmt]) -> bool {
    match stmts.last() {
        Some(Stmt::Expr(e, None)) => expr_gives_value(e),
        _ => false,
    }
}

/// Whether an expression ending a block gives a value. A branch there gives
/// one exactly when its own lowering keeps one (see `lower_if` and
/// `lower_match`): one that does not would leave the outer branch's value
/// declared and never assigned.
fn expr_gives_value(expr: &Expr) -> bool {
    match expr {
        Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_) => false,
        Expr::If(i) => i
            .else_branch
            .as_ref()
            .is_some_and(|(_, e)| gives_value(&i.then_branch.stmts) && expr_gives_value(e)),
        Expr::Match(m) => m.arms.iter().any(|arm| expr_gives_value(&arm.body)),
        Expr::Block(b) if b.label.is_none() => gives_value(&b.block.stmts),
        e => !is_assignment(e),
    }
}

fn reject_label(label: &Option<syn::Label>) -> syn::Result<()> {
    match label {
        Some(label) => Err(syn::Error::new_spanned(
            label,
            "a labelled loop over recorded values is not supported",
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::fill_placeholders;
    use proc_macro2::TokenStream;
    use quote::quote;
    use std::collections::HashMap;

    fn fills(pairs: &[(&str, TokenStream)]) -> HashMap<String, TokenStream> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect()
    }

    #[test]
    fn placeholders_are_filled_at_any_depth_or_dropped() {
        let code = quote! {
            let a = 1;
            __mica_fill1
            for i in 0..n { let b = (a, [i]); __mica_fill2 { __mica_fill3 } }
            __mica_fill4
        };
        let filled = fill_placeholders(
            code,
            &fills(&[
                ("__mica_fill1", quote!(let t = 0;)),
                ("__mica_fill3", quote!(t.push(b);)),
            ]),
        );
        let expected = quote! {
            let a = 1;
            let t = 0;
            for i in 0..n { let b = (a, [i]); { t.push(b); } }
        };
        assert_eq!(filled.to_string(), expected.to_string());
    }

    #[test]
    fn code_without_placeholders_is_kept_as_it_is() {
        let code = quote!(let a = (x + y) * z[i]; for j in 0..n { s += a; });
        let filled = fill_placeholders(code.clone(), &fills(&[("__mica_fill1", quote!(no))]));
        assert_eq!(filled.to_string(), code.to_string());
    }
}
