//! A loop's reverse: walked from its last iteration to its first (first
//! to last where the iterations pass nothing back, see `forward.rs`), with
//! the tape, writer or stack that holds what it kept.

use super::*;

/// Where a loop's tape is pushed and popped in the generated code.
pub(super) struct Handle {
    /// what the loop pushes onto: the tape or a writer
    pub(super) push: Ident,
    /// what its reverse pops from: the tape, or the writer of a nest inside
    /// a fused loop
    pub(super) pop: Ident,
    /// whether `push` is a writer with no room made beforehand, which makes
    /// room as the loop pushes (`Writer::push_grow`)
    pub(super) grows: bool,
}

impl Level {
    pub(super) fn of_loop(trip: &Option<crate::record::Trip>) -> Self {
        trip.clone().map_or(Level::Stop, Level::Loop)
    }

    fn trip(&self) -> Option<&crate::record::Trip> {
        match self {
            Level::Loop(trip) => Some(trip),
            _ => None,
        }
    }
}

impl Gen<'_> {
    /// A loop, walked from its last iteration to its first (first to last
    /// where the iterations pass nothing back, see `forward.rs`).
    pub(super) fn walk_loop(&mut self, l: &Loop, code: &mut TokenStream) {
        if self.reverse_is_zero(l) {
            leave_empty(l, &mut self.empty_tapes);
            return;
        }
        let plan = self.plan.of_loop(l);
        if let Some(sel) = plan.and_then(|p| p.select.yes()) {
            self.walk_selection(l, sel, code);
            return;
        }
        let forward = plan.is_some_and(|p| p.forward.is_yes());
        let slices = plan.and_then(|p| p.slices.yes());
        let mut slicing = slices.map(|s| self.open_slices(l, s));
        // carried bindings: the adjoint after the loop flows back in
        let mut carries = Vec::new();
        for c in &l.carried {
            let carry = self.names.fresh("k");
            let init = self.total_or_zero(c.exit);
            code.extend([quote!(let mut #carry = #init;)]);
            carries.push(carry);
        }
        let seeds = l
            .carried
            .iter()
            .zip(&carries)
            .filter_map(|(c, carry)| match c.end {
                Val::Active(end) => Some((end, carry.to_token_stream())),
                _ => None,
            })
            .collect();
        self.nest.push(Level::of_loop(&l.trip));
        // slopes at neighbouring elements wait in registers, for a range
        // walked one step at a time (`window.rs`); which way is known only
        // once the body says what it keeps, so both are made ready
        let windowed = match &l.range {
            Some(_) => plan.and_then(|p| p.carry.yes()),
            None => None,
        };
        let windowed = windowed.map(Vec::as_slice).unwrap_or_default();
        let windows = self.open_windows(windowed);
        let outer_pools = self.open_pools(l);
        let mut body = self.region(&l.steps, l.region, seeds);
        let pools = self.close_pools(outer_pools);
        // all carries move at once: one carry's next value may read another's
        let mut nexts = Vec::new();
        for c in &l.carried {
            let next = self.total_or_zero(c.entry);
            let name = self.names.fresh("n");
            body.extend([quote!(let #name = #next;)]);
            nexts.push(name);
        }
        let updates = quote!(#(#carries = #nexts;)*);
        // one carried slope may be passed back scaled (`scaled.rs`): that is
        // decided once the body's reverse is whole, below (a loop whose
        // iterations pass nothing back only sums: its slope passes back as
        // it came)
        let scales = windowed.is_empty() && !forward && self.scales_carry(l);
        if !scales {
            body.extend([updates.clone()]);
        }
        let closed = self.close_windows(windowed, windows);
        let (again, stored) = self.loop_reads(l, slicing.as_mut().zip(slices));
        if let Some(slicing) = &slicing {
            self.close_slices(slicing);
        }
        // the walk's order, as below: a loop whose iterations pass nothing
        // back walks forward, with its kept items too where they are read
        // oldest first (a range written `a..b`, its items in a `Vec` or a
        // writer, `zip_up_range`), so that its reverse reads and adds
        // through the arrays in the order the other loops do
        let half_open = match &l.range {
            Some((_, RangeSource::Again(expr))) => half_open(expr),
            _ => false,
        };
        let items_up = half_open && !self.held_in_place(&l.tape);
        let up = forward && (stored.is_empty() || items_up);
        let (mut window_decls, mut window_after) = (TokenStream::new(), TokenStream::new());
        let body = self.wrap_windows(closed, up, body, &mut window_decls, &mut window_after);
        let mut body = quote!(#again #body);
        if scales {
            let scaled = match (&carries[..], &nexts[..]) {
                ([carry], [next]) => {
                    let (unit, gamma) = (self.names.fresh("u"), self.names.fresh("g"));
                    scaled::scaled(&body, carry, next, [&unit, &gamma])
                }
                _ => None,
            };
            body = scaled.unwrap_or_else(|| quote!(#body #updates));
        }
        let tape = &l.tape;
        // what the reverse takes back from the tape: one item per
        // iteration, by the range walked backward where there is one
        // (`zip_back`), else one `pop` per iteration counted
        let mut taken = None;
        let body = if stored.is_empty() {
            self.empty_tapes.insert(tape.to_string());
            body
        } else {
            // while this loop is still on top of `nest`
            let handle = self
                .handle(tape)
                .or_else(|| self.run_writer(l))
                .or_else(|| self.growing_writer(l))
                .unwrap_or_else(|| {
                    if let Some((reserve, code)) = &l.reserve {
                        self.fills.insert(reserve.to_string(), code.clone());
                    }
                    Handle {
                        push: tape.clone(),
                        pop: tape.clone(),
                        grows: false,
                    }
                });
            let (push, pop) = (&handle.push, &handle.pop);
            let push_item = if handle.grows {
                quote!(#push.push_grow((#(#stored,)*));)
            } else {
                quote!(#push.push((#(#stored,)*));)
            };
            self.fills.insert(l.fill.to_string(), push_item);
            if l.range.is_some() {
                taken = Some((quote!((#(#stored,)*)), pop.clone()));
                body
            } else {
                quote! {
                    if let ::core::option::Option::Some((#(#stored,)*)) = #pop.pop() {
                        #body
                    }
                }
            }
        };
        self.nest.pop();
        code.extend([pools]);
        match &l.range {
            // a range with nothing to walk back (a loop over constants):
            // no loop
            Some(_) if body.is_empty() && taken.is_none() => {}
            // a range, walked backward: its variable is read again, not stored
            Some((pat, source)) => {
                // `a..b` written as such (`half_open`, above): its items
                // are read by the variable's place in it
                // (`zip_back_range`), the range the loop's one count
                let range = match source {
                    RangeSource::Again(expr) => expr.to_token_stream(),
                    RangeSource::Kept(id) => self.read_store(*id).into_token_stream(),
                };
                let pat = if mentions(&body, pat) {
                    pat.clone()
                } else {
                    quote!(_)
                };
                // iterations that pass nothing back, walked in the order
                // they ran (see `forward.rs`)
                let walked = range.clone();
                let range = if up {
                    range
                } else {
                    quote!(::core::iter::Iterator::rev(#range))
                };
                // every iteration of the forward run pushed one item (its
                // range has no early stop): the run's items, last first,
                // go with the range walked backward
                let (pat, range) = match &taken {
                    Some((items, pop)) if half_open && !up => (
                        quote!((#pat, #items)),
                        quote!(::mica::__private::zip_back_range(#walked, &mut #pop)),
                    ),
                    Some((items, pop)) if half_open => (
                        quote!((#pat, #items)),
                        quote!(::mica::__private::zip_up_range(#walked, &mut #pop)),
                    ),
                    Some((items, pop)) => (
                        quote!((#pat, #items)),
                        quote!(::mica::__private::zip_back(#range, &mut #pop)),
                    ),
                    None => (pat, range),
                };
                code.extend([window_decls]);
                code.extend([match &slicing {
                    Some(slicing) => slicing.wrap(&pat, &range, body),
                    None => quote! {
                        for #pat in #range {
                            #body
                        }
                    },
                }]);
                code.extend([window_after]);
            }
            None => {
                let count = self.read_store(l.count);
                let left = self.names.fresh("r");
                code.extend([quote! {
                    let mut #left = #count;
                    while #left > 0 {
                        #left -= 1;
                        #body
                    }
                }]);
            }
        }
        for (c, carry) in l.carried.iter().zip(carries) {
            if let Val::Active(before) = c.before {
                self.contribute(before, carry, code);
            }
        }
    }

    /// Everything that reached `v`, or a zero shaped like its value.
    pub(super) fn total_or_zero(&mut self, v: ValueId) -> TokenStream {
        match self.total(v) {
            Some(total) => total,
            None => {
                let store = self.read_store(v);
                quote!(::mica::__private::zeros_like(&#store))
            }
        }
    }

    /// Whether no adjoint reaches `l`'s iterations, so that its reverse
    /// would add only zeros: none of the bindings it carries (scalars or
    /// nothing recorded) has an adjoint after the loop, and nothing in its
    /// body writes an array (a write's reverse takes the element's adjoint,
    /// which may not be zero). Adjoints in the body come from nowhere else.
    /// Such a loop has no reverse and keeps nothing (a selection's
    /// candidates, where only the winner's index is read after the loop).
    fn reverse_is_zero(&self, l: &Loop) -> bool {
        l.carried.iter().all(|c| {
            matches!(c.end, Val::Active(_) | Val::Const)
                && self.contributions.get(&c.exit).is_none_or(Vec::is_empty)
                && !self.accumulators.contains_key(&c.exit)
        }) && !crate::record::writes_array(&l.steps)
    }

    /// For the tape of the loop on top of `nest`, pushed once per
    /// iteration, where to push and pop: a writer made before the outermost
    /// loop of the nest from
    /// which down to this loop every loop is a range loop with a [`Trip`],
    /// each run unconditionally by the one around it, or `None` if this
    /// loop has no `Trip`. The room is the number of this loop's iterations
    /// in one run of that outermost loop: the product of the trip counts,
    /// or, where a range reads the variable of a loop around it, their sum
    /// over the values that variable takes. It is computed before the nest
    /// runs, evaluating an inner range only for iterations where the nest
    /// itself will (`room_times` and `room_each` skip empty ranges). The
    /// writer is dropped, its items joining the tape, just after that loop,
    /// before any reverse pops the tape. A tape held in place (a
    /// `StackTape` of fixed capacity) keeps its pushes.
    ///
    /// When that outermost loop sits directly in a fused loop with a `Trip`
    /// and the room reads not the fused loop's variable, the room is the
    /// same for every iteration of the fused loop: the writer is made before
    /// the fused loop instead, and the reverse, which runs at the end of
    /// each iteration, pops from it.
    ///
    /// [`Trip`]: crate::record::Trip
    pub(super) fn handle(&mut self, tape: &Ident) -> Option<Handle> {
        if self.held_in_place(tape) {
            return None;
        }
        let inner = self.nest.len().checked_sub(1)?;
        let own = self.nest[inner].trip()?;
        let range = &own.range;
        let own_run = (own.start.to_string(), own.end.to_string(), range.clone());
        let mut room = quote!(::mica::__private::trip(&(#range)));
        let mut reads = own.reads.clone();
        let mut outer = inner;
        while let Some(parent) = outer.checked_sub(1).and_then(|p| self.nest[p].trip()) {
            let range = &parent.range;
            room = match &parent.var {
                Some(var) if reads.contains(&var.to_string()) => {
                    quote!(::mica::__private::room_each(#range, |#var| #room))
                }
                _ => quote!(::mica::__private::room_times(&(#range), || #room)),
            };
            reads.extend(parent.reads.iter().cloned());
            outer -= 1;
        }
        // just inside a fused loop whose variable the room does not read,
        // the room is the same for all its iterations (it reads only names
        // that hold the same value there, see `Trip`): one writer made before
        // the fused loop serves them all, and their reverse pops from it
        let fused = match outer.checked_sub(1).map(|p| &self.nest[p]) {
            Some(Level::Fused(fused))
                if !fused
                    .var
                    .as_ref()
                    .is_some_and(|var| reads.contains(&var.to_string())) =>
            {
                Some(fused)
            }
            _ => None,
        };
        let pops = fused.is_some();
        let at = match fused {
            Some(fused) => fused,
            None => self.nest[outer].trip()?,
        };
        let (start, end) = (at.start.to_string(), at.end.to_string());
        let writer = self.names.fresh("w");
        self.fills
            .entry(start)
            .or_default()
            .extend([quote!(let mut #writer = ::mica::__private::Writer::new(&mut #tape, #room);)]);
        self.fills
            .entry(end)
            .or_default()
            .extend([quote!(::core::mem::drop(#writer);)]);
        // each run of the loop pushes into slots of its own, counted from
        // the first, so that the store needs no test (`Writer::run`)
        let run = self.names.fresh("slots");
        let (start, end, range) = own_run;
        self.fills.entry(start).or_default().extend([
            quote!(let mut #run = ::mica::__private::Writer::run(&mut #writer, ::mica::__private::trip(&(#range)));),
        ]);
        let end = self.fills.entry(end).or_default();
        *end = quote!(::core::mem::drop(#run); #end);
        let pop = if pops { writer.clone() } else { tape.clone() };
        Some(Handle {
            push: run,
            pop,
            grows: false,
        })
    }

    /// For the tape of `l`, a loop over a range kept in a value, pushed
    /// once per iteration: a writer made where the loop starts, with room
    /// for the range's length, its pushes into one run's slots
    /// (`Writer::run`), its items joining the tape just after the loop.
    /// `None` for a tape held in place.
    fn run_writer(&mut self, l: &Loop) -> Option<Handle> {
        let (start, end, range) = l.kept_run.as_ref()?;
        let tape = &l.tape;
        if self.held_in_place(tape) {
            return None;
        }
        let (writer, slots) = (self.names.fresh("w"), self.names.fresh("slots"));
        // inside a loop whose trip count is known where it starts (through
        // arms and loops whose counts are not, but not a fused loop, whose
        // reverse empties the tape in each iteration): the tape's room is
        // made the first time for as many runs as that loop's iterations
        // (`Writer::within`, bounded), not doubled as the runs push
        let outer = &self.nest[..self.nest.len().saturating_sub(1)];
        let around = match outer.iter().rev().find(|l| !matches!(l, Level::Stop)) {
            Some(Level::Loop(trip)) => Some(trip),
            _ => None,
        };
        let writer_new = match around {
            Some(around) => {
                let start = around.start.to_string();
                let runs = match self.runs.get(&start) {
                    Some(runs) => runs.clone(),
                    None => {
                        let runs = self.names.fresh("runs");
                        let outer = &around.range;
                        self.fills
                            .entry(start.clone())
                            .or_default()
                            .extend([quote!(let #runs = ::mica::__private::trip(&(#outer));)]);
                        self.runs.insert(start, runs.clone());
                        runs
                    }
                };
                quote!(::mica::__private::Writer::within(&mut #tape, ::mica::__private::trip(&#range), #runs))
            }
            None => {
                quote!(::mica::__private::Writer::new(&mut #tape, ::mica::__private::trip(&#range)))
            }
        };
        self.fills.entry(start.to_string()).or_default().extend([quote! {
            let mut #writer = #writer_new;
            let mut #slots = ::mica::__private::Writer::run(&mut #writer, ::mica::__private::trip(&#range));
        }]);
        let end = self.fills.entry(end.to_string()).or_default();
        *end = quote!(::core::mem::drop(#slots); ::core::mem::drop(#writer); #end);
        Some(Handle {
            push: slots,
            pop: tape.clone(),
            grows: false,
        })
    }

    /// For the tape of `l`, a loop whose iterations are not counted before
    /// it runs (no range, or a range the reverse cannot size), somewhere
    /// inside a fused loop: a writer made before the innermost such fused
    /// loop, with no room, that makes room as the loop pushes
    /// (`Writer::push_grow`) and that the reverse pops from. Every item
    /// pushed in an iteration of the fused loop is popped at its end, by
    /// that iteration's reverse, so the room made in the first iterations
    /// serves the rest, and the writer, not the tape, holds the loop's
    /// count: `Vec::push` keeps its length in memory across the loop, for
    /// the call that grows it. `None` for a tape held in place, or outside
    /// any fused loop.
    fn growing_writer(&mut self, l: &Loop) -> Option<Handle> {
        if l.trip.is_some() || l.kept_run.is_some() || self.held_in_place(&l.tape) {
            return None;
        }
        let outer = &self.nest[..self.nest.len().saturating_sub(1)];
        let fused = outer.iter().rev().find_map(|level| match level {
            Level::Fused(fused) => Some(fused),
            _ => None,
        })?;
        let (start, end) = (fused.start.to_string(), fused.end.to_string());
        let tape = &l.tape;
        let writer = self.names.fresh("w");
        self.fills
            .entry(start)
            .or_default()
            .extend([quote!(let mut #writer = ::mica::__private::Writer::new(&mut #tape, 0);)]);
        self.fills
            .entry(end)
            .or_default()
            .extend([quote!(::core::mem::drop(#writer);)]);
        Some(Handle {
            push: writer.clone(),
            pop: writer,
            grows: true,
        })
    }

    /// Pools for the buffers of the arrays made in `l`'s body, so that its
    /// reverse allocates each once for all the iterations (see
    /// `decls.rs`, `local_buffers`); the pools used before, to restore.
    pub(super) fn open_pools(&mut self, l: &Loop) -> Vec<Ident> {
        for (k, a) in self.record.arrays.iter().enumerate() {
            if a.local.is_some_and(|(r, _)| r == l.region) && a.inline.is_none() {
                self.pooled.insert(k, self.names.fresh("pool"));
            }
        }
        std::mem::take(&mut self.pools_used)
    }

    /// Once the body's reverse is written: the declarations of the pools it
    /// used, to go before the loop, empty until an iteration gives its
    /// buffer back (their types are their buffers': `Shaped::Pool`); the
    /// pools used `before` are restored.
    pub(super) fn close_pools(&mut self, before: Vec<Ident>) -> TokenStream {
        let pools = std::mem::replace(&mut self.pools_used, before);
        let pools = pools.iter();
        quote!(#(let mut #pools = ::core::default::Default::default();)*)
    }

    /// Whether `tape` is held in place (a `StackTape` of fixed capacity),
    /// which keeps its own pushes.
    fn held_in_place(&self, tape: &Ident) -> bool {
        self.record
            .tapes
            .iter()
            .any(|(t, capacity)| t == tape && capacity.is_some())
    }

    /// What a loop body's reverse reads: the `let`s that evaluate values
    /// again where that gives the same value (see `facts/stability.rs`), and
    /// the values the forward sweep must keep per iteration.
    pub(super) fn loop_reads(
        &mut self,
        l: &Loop,
        mut slicing: Option<(&mut slices::Slicing, &crate::plan::slices::Slices)>,
    ) -> (TokenStream, Vec<Ident>) {
        let again_here = |v: &crate::record::Value| {
            v.recompute.is_some() && v.scope == l.scope && v.region == l.region
        };
        // what is evaluated again needs its inputs: read again or stored;
        // an element read through a slice needs none
        let mut sliced: HashMap<ValueId, TokenStream> = HashMap::new();
        // values kept although they could be evaluated again: doing so
        // would keep more of their inputs in their place
        let mut kept = HashSet::new();
        let values = self.record.values;
        for id in l.values.clone().rev() {
            let v = &values[id];
            if !(self.reads.contains(&id) && again_here(v)) {
                continue;
            }
            // an element of a parameter, through a slice
            if let Some((slicing, plan)) = slicing.as_mut() {
                if let Some(read) = plan.reads.get(&id) {
                    sliced.insert(id, slicing.read_again(read, self.names));
                    continue;
                }
            }
            // inputs of this loop's body that nothing else reads and that
            // cannot be evaluated again themselves: each would be kept
            let new_kept = v
                .deps
                .iter()
                .filter(|d| l.values.contains(d) && values[**d].scope == l.scope)
                .filter(|d| !self.reads.contains(d) && !again_here(&values[**d]))
                .collect::<HashSet<_>>()
                .len();
            // (an array made again from its literal reads at most one
            // value per element the copy would keep)
            if new_kept > 1 && !v.rebuilt {
                kept.insert(id);
                continue;
            }
            self.reads.extend(v.deps.iter().copied());
        }
        let mut again = TokenStream::new();
        let mut stored = Vec::new();
        for (id, v) in l.values.clone().zip(&values[l.values.clone()]) {
            if !self.reads.contains(&id) || v.scope != l.scope {
                continue;
            }
            let store = &v.store;
            match (&v.recompute, sliced.remove(&id)) {
                // an element of a parameter, through a slice
                (_, Some(read)) => again.extend([quote!(let #store = #read;)]),
                (Some(expr), None) if again_here(v) && !kept.contains(&id) => {
                    if v.rebuilt {
                        self.made_again.insert(id);
                    }
                    again.extend([quote!(let #store = #expr;)])
                }
                _ => stored.push(store.clone()),
            }
        }
        (again, stored)
    }
}

/// `l`'s tape and those of the loops inside it, left empty: a loop with no
/// reverse keeps nothing.
fn leave_empty(l: &Loop, empty: &mut HashSet<String>) {
    empty.insert(l.tape.to_string());
    leave_empty_in(&l.steps, empty);
}

fn leave_empty_in(steps: &[Step], empty: &mut HashSet<String>) {
    for step in steps {
        match step {
            Step::Loop(inner) => leave_empty(inner, empty),
            Step::Branch(b) => {
                for (_, arm) in &b.arms {
                    leave_empty_in(arm, empty);
                }
            }
            _ => {}
        }
    }
}

/// `a..b`, both ends written (in parentheses or not): a `Range`, whose
/// values tell their places in it.
fn half_open(expr: &syn::Expr) -> bool {
    matches!(
        crate::facts::syntax::strip_parens(expr),
        syn::Expr::Range(r) if r.start.is_some()
            && r.end.is_some()
            && matches!(r.limits, syn::RangeLimits::HalfOpen(_))
    )
}
