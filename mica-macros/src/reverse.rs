//! The reverse sweep: from the record `lower.rs` made, the adjoint code.
//!
//! Straight-line code becomes one immutable `let` per adjoint, in reverse
//! order:
//!
//! ```text
//! // op 3: t4 = mul(t3, t3), seeded with `seed`
//! let __mica_a5 = seed;
//! // op 2: t3 = sub(t1, c2)
//! let __mica_a6 = rules::mul_d0(t3, t3, t4, a5) + rules::mul_d1(t3, t3, t4, a5);
//! ```
//!
//! Each adjoint is the sum of the contributions of its readers, collected
//! while their operations are visited (fan-out sums). An adjoint that
//! receives nothing is never written: dead values cost no code, and an input
//! nothing flowed into has gradient exactly zero (unread means zero).
//!
//! Control flow adds three things:
//!
//! - A value that receives slopes from inside a loop body or branch arm
//!   gets a mutable accumulator (`let mut acc = 0; … acc += …`), declared
//!   where the value lives; everything else stays an immutable `let`.
//! - A loop is walked backward by popping its tape — each iteration pushed
//!   the values its reverse reads — and a binding carried from one
//!   iteration to the next passes its adjoint back through a `carry`. A
//!   loop whose iterations pass nothing back is walked forward
//!   (`forward.rs`), and a loop over a range reads and adds through slices
//!   taken before it (`slices.rs`). In a nest of range loops whose trip
//!   counts are known where the nest starts, the tape's room is made once
//!   there and the iterations write into it through a `Writer`, whose push
//!   makes no call: a call inside a short loop costs the loop's registers.
//!   Inside a fused loop, which pops its inner tapes at the end of each
//!   iteration, a writer made before it with one iteration's room serves
//!   every iteration, pushing and popping (unless the room reads the fused
//!   loop's variable).
//! - A branch replays the arm its flag recorded; a value that comes out of
//!   the branch hands its adjoint to the value that arm gave.
//!
//! Arrays' adjoints are buffers: reading `w[i]` adds into `d_w[i]`.

pub(crate) mod forward;
mod fuse;
mod slices;

use crate::lower::Sweep;
use crate::record::{Branch, Loop, OpKind, Operand, RangeSource, Step, Val, ValueId};
use proc_macro2::{Ident, Span, TokenStream};
use quote::{quote, quote_spanned, ToTokens};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// The reverse sweep's code and what reached each input.
pub struct Reverse {
    pub code: TokenStream,
    /// input value → its total adjoint (absent: exactly zero)
    pub inputs: BTreeMap<ValueId, TokenStream>,
    /// each loop's placeholder in the forward code → the push of the values
    /// its reverse reads
    pub fills: HashMap<String, TokenStream>,
}

/// Writes the reverse sweep of `sweep`'s record, seeded at the given values.
pub fn reverse(sweep: &mut Sweep<'_>, seeds: Vec<(ValueId, TokenStream)>) -> Reverse {
    let steps = sweep.take_steps();
    let mut accumulated = BTreeSet::new();
    mark_accumulated(sweep, &steps, 0, &mut accumulated);
    let mut gen = Gen {
        sweep,
        contributions: BTreeMap::new(),
        accumulated,
        accumulators: BTreeMap::new(),
        accumulator_order: Vec::new(),
        fills: HashMap::new(),
        seeds: seeds.clone(),
        early: BTreeMap::new(),
        early_arrays: BTreeMap::new(),
        before_loops: HashMap::new(),
        fusing: None,
        sliced: HashMap::new(),
        nest: Vec::new(),
    };
    let mut code = TokenStream::new();
    for array in &gen.sweep.arrays {
        if let Some(declare) = &array.declare {
            code.extend([declare.clone()]);
        }
    }
    code.extend([gen.region(&steps, 0, seeds)]);
    gen.finish_fused();
    let inputs: Vec<ValueId> = (0..gen.sweep.values.len())
        .filter(|&v| {
            let value = &gen.sweep.values[v];
            value.capture.is_some() && value.region == 0
        })
        .collect();
    let mut totals = BTreeMap::new();
    for v in inputs {
        if let Some(total) = gen.total(v) {
            totals.insert(v, total);
        }
    }
    // loop bookkeeping: only what the reverse sweep reads
    let mut fills = gen.fills;
    gen.sweep.lazy_fills(&mut fills);
    Reverse {
        code,
        inputs: totals,
        fills,
    }
}

/// Values that receive slopes from a region other than their own.
fn mark_accumulated(sweep: &Sweep<'_>, steps: &[Step], region: usize, out: &mut BTreeSet<ValueId>) {
    let mark = |val: &Val, region: usize, out: &mut BTreeSet<ValueId>| {
        if let Val::Active(v) = val {
            if sweep.values[*v].region != region {
                out.insert(*v);
            }
        }
    };
    for step in steps {
        match step {
            Step::Op(op) => {
                for input in &op.inputs {
                    if let Operand::Active(v) = input {
                        mark(&Val::Active(*v), region, out);
                    }
                }
            }
            Step::Loop(l) => {
                mark_accumulated(sweep, &l.steps, l.region, out);
                for c in &l.carried {
                    mark(&c.end, l.region, out);
                    mark(&c.before, region, out);
                }
            }
            Step::Write {
                value: Operand::Active(v),
                ..
            }
            | Step::Increment {
                value: Operand::Active(v),
                ..
            }
            | Step::Fill { value: v, .. } => {
                mark(&Val::Active(*v), region, out);
            }
            Step::Write { .. } | Step::Increment { .. } => {}
            Step::Branch(b) => {
                for (k, (arm_region, arm)) in b.arms.iter().enumerate() {
                    mark_accumulated(sweep, arm, *arm_region, out);
                    for merge in &b.merges {
                        if let Some(val) = merge.per_arm.get(k) {
                            mark(val, *arm_region, out);
                        }
                    }
                }
            }
        }
    }
}

struct Gen<'g, 'a> {
    sweep: &'g mut Sweep<'a>,
    contributions: BTreeMap<ValueId, Vec<Part>>,
    accumulated: BTreeSet<ValueId>,
    /// accumulators written so far, by value
    accumulators: BTreeMap<ValueId, Ident>,
    /// the same values in the order their accumulators were made
    accumulator_order: Vec<ValueId>,
    fills: HashMap<String, TokenStream>,
    /// the sweep's seeds (the function's value and its adjoint)
    seeds: Vec<(ValueId, TokenStream)>,
    /// accumulators a fused loop adds into, declared before the first such
    /// loop instead of where the reverse sweep starts: value → that loop's
    /// `before` placeholder
    early: BTreeMap<ValueId, String>,
    /// the same for the adjoint buffers of arrays made earlier: array →
    /// placeholder
    early_arrays: BTreeMap<usize, String>,
    /// what goes before each fused loop (its `before` placeholder)
    before_loops: HashMap<String, TokenStream>,
    /// while a fused loop's body is walked: the accumulated values it adds
    /// into
    fusing: Option<BTreeSet<ValueId>>,
    /// inside a loop's reverse whose buffers are sliced: array → its slice
    /// and the loop variable's place in it (see `slices.rs`)
    sliced: HashMap<usize, (Ident, slices::Places)>,
    /// the loops around the one being walked, outermost first
    nest: Vec<Level>,
}

/// One loop around the one being walked, as the room of its tape sees it.
enum Level {
    /// a loop whose trip count is known where it starts
    Loop(crate::record::Trip),
    /// a fused loop whose trip count is known where it starts: its reverse
    /// runs at the end of each iteration and pops there what the iteration
    /// pushed
    Fused(crate::record::Trip),
    /// any other loop, or a branch's arm (whose loops may not run)
    Stop,
}

impl Level {
    fn of_loop(trip: &Option<crate::record::Trip>) -> Self {
        trip.clone().map_or(Level::Stop, Level::Loop)
    }

    fn trip(&self) -> Option<&crate::record::Trip> {
        match self {
            Level::Loop(trip) => Some(trip),
            _ => None,
        }
    }
}

/// Where a loop's tape is pushed and popped in the generated code.
struct Handle {
    /// what the loop pushes onto: the tape or a writer
    push: Ident,
    /// what its reverse pops from: the tape, or the writer of a nest inside
    /// a fused loop
    pop: Ident,
}

impl Gen<'_, '_> {
    /// Adds `part` to `v`'s adjoint: into its list, or, for an accumulated
    /// value, into its accumulator right away.
    fn contribute(&mut self, v: ValueId, part: impl Into<Part>, code: &mut TokenStream) {
        let part = part.into();
        if self.accumulated.contains(&v) {
            if let Some(touched) = &mut self.fusing {
                touched.insert(v);
            }
            let acc = match self.accumulators.get(&v) {
                Some(acc) => acc.clone(),
                None => {
                    let acc = self.sweep.names.fresh("acc");
                    self.accumulators.insert(v, acc.clone());
                    self.accumulator_order.push(v);
                    acc
                }
            };
            let part = part.into_tokens();
            code.extend([quote!(#acc += #part;)]);
        } else {
            self.contributions.entry(v).or_default().push(part);
        }
    }

    /// Everything that reached `v`, or `None` if nothing did.
    fn total(&mut self, v: ValueId) -> Option<TokenStream> {
        let parts = self.parts(v);
        (!parts.is_empty()).then(|| sum(&Part::tokens(parts)))
    }

    /// The contributions that reached `v`, its accumulator last.
    fn parts(&mut self, v: ValueId) -> Vec<Part> {
        let mut parts = self.contributions.remove(&v).unwrap_or_default();
        if let Some(acc) = self.accumulators.get(&v) {
            parts.push(Part::Name(acc.clone()));
        }
        parts
    }

    /// `v`'s adjoint under an immutable name (see [`Self::bind_adjoint`]),
    /// or `None` if nothing reached it.
    fn bound_total(&mut self, v: ValueId, code: &mut TokenStream) -> Option<Ident> {
        let mut parts = self.parts(v);
        match parts.len() {
            0 => None,
            // one contribution: small, cheap to look at
            1 => parts.pop().map(|one| self.bind_adjoint(one, code)),
            _ => {
                let adj = self.sweep.names.fresh("a");
                let total = sum(&Part::tokens(parts));
                crate::names::push_let(code, &adj, total);
                Some(adj)
            }
        }
    }

    /// An immutable name for an adjoint: the adjoint itself when it already
    /// is one (an unchanged adjoint is not copied), else a new `let`.
    fn bind_adjoint(&mut self, adjoint: Part, code: &mut TokenStream) -> Ident {
        let name = match &adjoint {
            Part::Name(name) => Some(name.clone()),
            Part::Tokens(tokens) => {
                let mut tokens = tokens.clone().into_iter();
                match (tokens.next(), tokens.next()) {
                    (Some(proc_macro2::TokenTree::Ident(name)), None) => Some(name),
                    _ => None,
                }
            }
        };
        if let Some(name) = name.filter(is_immutable_adjoint) {
            return name;
        }
        let adj = self.sweep.names.fresh("a");
        crate::names::push_let(code, &adj, adjoint.into_tokens());
        adj
    }

    fn operand(&mut self, operand: &Operand) -> TokenStream {
        match operand {
            Operand::Array {
                arg: id,
                owned: true,
                ..
            } => {
                let store = self.sweep.read_store(*id);
                quote!(&#store)
            }
            Operand::Active(id) | Operand::Stored(id) | Operand::Array { arg: id, .. } => {
                self.sweep.read_store(*id).into_token_stream()
            }
            Operand::Const(tokens) => tokens.clone(),
        }
    }

    /// The reverse of one region's steps, with its accumulators declared
    /// first.
    fn region(
        &mut self,
        steps: &[Step],
        region: usize,
        seeds: Vec<(ValueId, TokenStream)>,
    ) -> TokenStream {
        let before = self.accumulator_order.len();
        let mut code = TokenStream::new();
        for (v, seed) in seeds {
            self.contribute(v, seed, &mut code);
        }
        // a loop of the function body's top level may run its reverse
        // inside its forward sweep (see `fuse.rs`)
        let top = (region == 0
            && steps
                .iter()
                .any(|s| matches!(s, Step::Loop(l) if l.top.is_some())))
        .then(|| self.top_index(steps));
        for (k, step) in steps.iter().enumerate().rev() {
            match step {
                Step::Op(op) => self.op(op, &mut code),
                Step::Loop(l) if top.is_some() && l.top.is_some() => {
                    let fused = top
                        .as_ref()
                        .is_some_and(|index| self.fuse(l, steps, k, index, &mut code));
                    if !fused {
                        self.walk_loop(l, &mut code);
                    }
                }
                Step::Loop(l) => self.walk_loop(l, &mut code),
                Step::Branch(b) => self.branch(b, &mut code),
                Step::Write {
                    array,
                    indices,
                    value,
                } => {
                    // the element's adjoint goes to the written value; the
                    // value it replaced reaches nothing after this write
                    let element = self.element(*array, indices);
                    let adj = self.sweep.names.fresh("a");
                    code.extend([quote! {
                        let #adj = #element;
                        #element = ::mica::__private::zeros_like(&#adj);
                    }]);
                    if let Operand::Active(v) = value {
                        self.contribute(*v, adj, &mut code);
                    }
                }
                Step::Increment {
                    array,
                    indices,
                    value,
                    negate,
                } => {
                    if let Operand::Active(v) = value {
                        let element = self.element(*array, indices);
                        let adj = self.sweep.names.fresh("a");
                        code.extend([quote!(let #adj = #element;)]);
                        let part = if *negate {
                            Part::Tokens(quote!(-#adj))
                        } else {
                            Part::Name(adj)
                        };
                        self.contribute(*v, part, &mut code);
                    }
                }
                Step::Fill { array, value } => {
                    let acc = self.sweep.arrays[*array].acc.clone();
                    let adj = self.sweep.names.fresh("a");
                    code.extend([quote!(let #adj = ::mica::__private::take_sum(&mut #acc);)]);
                    self.contribute(*value, adj, &mut code);
                }
            }
        }
        // accumulators first written while walking this region, for values
        // that live in it: zero them where the region starts
        let mut decls = TokenStream::new();
        let mut new: Vec<(ValueId, Ident)> = self.accumulator_order[before..]
            .iter()
            .filter(|v| self.sweep.values[**v].region == region && !self.early.contains_key(v))
            .filter_map(|v| self.accumulators.get(v).map(|acc| (*v, acc.clone())))
            .collect();
        new.sort_by_key(|(v, _)| *v);
        for (v, acc) in new {
            let store = self.sweep.read_store(v);
            decls.extend([accumulator_decl(&acc, &store)]);
        }
        // adjoint buffers of the arrays made in this region
        let locals: Vec<(TokenStream, ValueId, Option<TokenStream>)> = self
            .sweep
            .arrays
            .iter()
            .enumerate()
            .filter(|(k, _)| region != 0 || !self.early_arrays.contains_key(k))
            .filter_map(|(_, a)| {
                a.local
                    .filter(|(r, _)| *r == region)
                    .map(|(_, shape)| (a.acc.clone(), shape, a.inline.clone()))
            })
            .collect();
        for (acc, shape, inline) in locals {
            let shape = self.sweep.read_store(shape);
            decls.extend([buffer_decl(&acc, &shape, inline.as_ref())]);
        }
        decls.extend([code]);
        decls
    }

    fn op(&mut self, op: &crate::record::Op, code: &mut TokenStream) {
        let Some(adj) = self.bound_total(op.out, code) else {
            return; // nothing reads this value: its adjoint is zero
        };
        match &op.kind {
            OpKind::Rule(name) => {
                let k = op.inputs.len();
                for (i, input) in op.inputs.iter().enumerate() {
                    let Operand::Active(id) = input else { continue };
                    let reads = crate::rules::reads(name, i);
                    // `a ± b` and `-a` pass the adjoint on, negated for
                    // what is subtracted
                    let part = match (*name, i) {
                        ("add", _) | ("sub", 0) => {
                            self.contribute(*id, adj.clone(), code);
                            continue;
                        }
                        ("sub", _) | ("neg", _) => quote!(-#adj),
                        // products and quotients inline, as the runtime's
                        // pullbacks write them: no call for the compiler to
                        // resolve, and fast in unoptimised builds
                        ("mul", 0) | ("mul", 1) | ("div", 0) => {
                            let other = self.operand(&op.inputs[1 - i]);
                            if *name == "mul" {
                                quote!(#adj * #other)
                            } else {
                                quote!(#adj / #other)
                            }
                        }
                        ("div", _) => {
                            let b = self.operand(&op.inputs[1]);
                            let y = self.sweep.read_store(op.out);
                            quote!(-(#adj * #y) / #b)
                        }
                        _ => {
                            // the positions the pullback reads, the others
                            // filled with the adjoint (same type, ignored)
                            let mut args = Vec::with_capacity(k + 1);
                            for (p, input) in op.inputs.iter().enumerate() {
                                args.push(if reads.contains(&p) {
                                    let arg = self.operand(input);
                                    // a constant is read as the rule's type
                                    // (`&f64` → `f64`)
                                    match input {
                                        Operand::Stored(_) => quote!(::mica::__private::val(#arg)),
                                        _ => arg,
                                    }
                                } else {
                                    adj.to_token_stream()
                                });
                            }
                            args.push(if reads.contains(&k) {
                                self.sweep.read_store(op.out).into_token_stream()
                            } else {
                                adj.to_token_stream()
                            });
                            let rule = quote::format_ident!("{}_d{}", name, i);
                            quote!(::mica::__private::rules::#rule(#(#args,)* #adj))
                        }
                    };
                    self.contribute(*id, part, code);
                }
            }
            OpKind::Call(_) | OpKind::Method { .. } => {
                let args: Vec<TokenStream> =
                    op.inputs.iter().map(|input| self.operand(input)).collect();
                // joint mode: the callee's adjoint re-runs its own forward
                // sweep and adds its slopes into one slot per argument; each
                // slot carries its argument's span, so a type error about it
                // (a recorded value passed to an untracked parameter) points
                // at the user's argument
                let mut slots = Vec::new();
                let mut parts = Vec::new();
                // an array passed twice: the second slot is a scratch
                // buffer, added into the array's buffer after the call
                let mut passed = Vec::new();
                let mut after = TokenStream::new();
                for (i, (input, arg)) in op.inputs.iter().zip(&args).enumerate() {
                    let span = op.spans.get(i).copied().unwrap_or_else(Span::call_site);
                    match input {
                        Operand::Active(id) => {
                            let slot = self.sweep.names.fresh("d");
                            code.extend([
                                quote!(let mut #slot = ::mica::__private::zeros_like(&#arg);),
                            ]);
                            let mut at = slot.clone();
                            at.set_span(slot.span().located_at(span));
                            slots.push(quote_spanned!(span=> &mut #at));
                            parts.push((*id, slot));
                        }
                        // the callee adds straight into the array's buffer
                        Operand::Array { array, prefix, .. } => {
                            let acc = self.sweep.arrays[*array].acc.clone();
                            let prefix: Vec<TokenStream> =
                                prefix.iter().map(|i| self.operand(i)).collect();
                            if passed.contains(array) {
                                let scratch = self.sweep.names.fresh("d");
                                code.extend([quote! {
                                    let mut #scratch = ::mica::__private::zeros_like(&#arg);
                                }]);
                                slots.push(quote_spanned!(span=> &mut #scratch));
                                after.extend([quote! {
                                    ::mica::__private::add_into(&mut #acc #([#prefix])* [..], &#scratch[..]);
                                }]);
                            } else {
                                passed.push(*array);
                                slots.push(quote_spanned!(span=> &mut #acc #([#prefix])*));
                            }
                        }
                        _ => slots.push(quote_spanned!(span=> ::mica::__private::NoSlot)),
                    }
                }
                let call = |callee: TokenStream| quote!(#callee(#(#args,)* #adj, #(#slots),*););
                match &op.kind {
                    OpKind::Call(adapter) => code.extend([call(adapter.clone())]),
                    // the receiver's borrow: `Some` wherever the call ran
                    OpKind::Method { object, adapter } => {
                        let store = self.sweep.read_store(*object);
                        let borrow = self.sweep.names.fresh("o");
                        let call = call(quote!(#borrow.#adapter));
                        code.extend([quote! {
                            if let ::core::option::Option::Some(#borrow) = #store { #call }
                        }]);
                    }
                    _ => {}
                }
                code.extend([after]);
                for (id, slot) in parts {
                    self.contribute(id, slot, code);
                }
            }
            OpKind::Read { array, indices } => {
                let element = self.element(*array, indices);
                code.extend([quote!(#element += #adj;)]);
            }
        }
    }

    /// A loop, walked from its last iteration to its first (first to last
    /// where the iterations pass nothing back, see `forward.rs`).
    fn walk_loop(&mut self, l: &Loop, code: &mut TokenStream) {
        let access = self.access(l);
        let forward = access.as_ref().is_some_and(|a| a.forward);
        let mut slicing = access.and_then(|a| self.open_slices(l, &a));
        // carried bindings: the adjoint after the loop flows back in
        let mut carries = Vec::new();
        for c in &l.carried {
            let carry = self.sweep.names.fresh("k");
            let init = match self.total(c.exit) {
                Some(total) => total,
                None => {
                    let exit = self.sweep.read_store(c.exit);
                    quote!(::mica::__private::zeros_like(&#exit))
                }
            };
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
        let mut body = self.region(&l.steps, l.region, seeds);
        // all carries move at once: one carry's next value may read another's
        let mut nexts = Vec::new();
        for c in &l.carried {
            let next = match self.total(c.entry) {
                Some(total) => total,
                None => {
                    let entry = self.sweep.read_store(c.entry);
                    quote!(::mica::__private::zeros_like(&#entry))
                }
            };
            let name = self.sweep.names.fresh("n");
            body.extend([quote!(let #name = #next;)]);
            nexts.push(name);
        }
        for (carry, next) in carries.iter().zip(nexts) {
            body.extend([quote!(#carry = #next;)]);
        }
        let (again, stored) = self.loop_reads(l, slicing.as_mut());
        if let Some(slicing) = &slicing {
            self.close_slices(slicing);
        }
        let body = quote!(#again #body);
        let tape = &l.tape;
        let body = if stored.is_empty() {
            self.sweep.empty_tapes.insert(tape.to_string());
            body
        } else {
            // while this loop is still on top of `nest`
            let handle = self.handle(tape).unwrap_or_else(|| {
                if let Some((reserve, code)) = &l.reserve {
                    self.fills.insert(reserve.to_string(), code.clone());
                }
                Handle {
                    push: tape.clone(),
                    pop: tape.clone(),
                }
            });
            let (push, pop) = (&handle.push, &handle.pop);
            self.fills
                .insert(l.fill.to_string(), quote!(#push.push((#(#stored,)*));));
            quote! {
                if let ::core::option::Option::Some((#(#stored,)*)) = #pop.pop() {
                    #body
                }
            }
        };
        self.nest.pop();
        match &l.range {
            // a range with nothing to walk back (a loop over constants):
            // no loop
            Some(_) if body.is_empty() => {}
            // a range, walked backward: its variable is read again, not stored
            Some((pat, source)) => {
                let range = match source {
                    RangeSource::Again(expr) => expr.clone(),
                    RangeSource::Kept(id) => self.sweep.read_store(*id).into_token_stream(),
                };
                let pat = if mentions(&body, pat) {
                    pat.clone()
                } else {
                    quote!(_)
                };
                // iterations that pass nothing back, walked in the order
                // they ran (see `forward.rs`)
                let range = if forward && stored.is_empty() {
                    range
                } else {
                    quote!(::core::iter::Iterator::rev(#range))
                };
                code.extend([match &slicing {
                    Some(slicing) => slicing.wrap(&pat, &range, body),
                    None => quote! {
                        for #pat in #range {
                            #body
                        }
                    },
                }]);
            }
            None => {
                let count = self.sweep.read_store(l.count);
                let left = self.sweep.names.fresh("r");
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
    fn handle(&mut self, tape: &Ident) -> Option<Handle> {
        if self
            .sweep
            .tapes
            .iter()
            .any(|(t, capacity)| t == tape && capacity.is_some())
        {
            return None;
        }
        let inner = self.nest.len().checked_sub(1)?;
        let own = self.nest[inner].trip()?;
        let range = &own.range;
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
        let writer = self.sweep.names.fresh("w");
        self.fills
            .entry(start)
            .or_default()
            .extend([quote!(let mut #writer = ::mica::__private::Writer::new(&mut #tape, #room);)]);
        self.fills
            .entry(end)
            .or_default()
            .extend([quote!(::core::mem::drop(#writer);)]);
        let pop = if pops { writer.clone() } else { tape.clone() };
        Some(Handle { push: writer, pop })
    }

    /// What a loop body's reverse reads: the `let`s that evaluate values
    /// again where that gives the same value (see `facts/stability.rs`), and
    /// the values the forward sweep must keep per iteration.
    fn loop_reads(
        &mut self,
        l: &Loop,
        mut slicing: Option<&mut slices::Slicing>,
    ) -> (TokenStream, Vec<Ident>) {
        let again_here = |v: &crate::record::Value| {
            v.recompute.is_some() && v.scope == l.scope && v.region == l.region
        };
        // what is evaluated again needs its inputs: read again or stored;
        // an element read through a slice needs none
        let mut sliced: HashMap<ValueId, TokenStream> = HashMap::new();
        for id in l.values.clone().rev() {
            let sweep = &mut *self.sweep;
            let v = &sweep.values[id];
            if !(v.needed && again_here(v)) {
                continue;
            }
            if let (Some(slicing), Some(expr)) = (slicing.as_deref_mut(), &v.recompute) {
                // `x[c]` with `c` an index read again: `c`'s expression
                let index = match v.deps.as_slice() {
                    [dep] => {
                        let d = &sweep.values[*dep];
                        (d.deps.is_empty() && again_here(d))
                            .then(|| d.recompute.clone().map(|e| (d.store.clone(), e)))
                            .flatten()
                    }
                    _ => None,
                };
                let read =
                    slicing.read_again(expr, index, sweep.stability.as_ref(), &mut *sweep.names);
                if let Some(read) = read {
                    sliced.insert(id, read);
                    continue;
                }
            }
            for dep in sweep.values[id].deps.clone() {
                sweep.values[dep].needed = true;
            }
        }
        let mut again = TokenStream::new();
        let mut stored = Vec::new();
        for (id, v) in l.values.clone().zip(&self.sweep.values[l.values.clone()]) {
            if !v.needed || v.scope != l.scope {
                continue;
            }
            let store = &v.store;
            match (&v.recompute, sliced.remove(&id)) {
                // an element of a parameter, through a slice
                (_, Some(read)) => again.extend([quote!(let #store = #read;)]),
                (Some(expr), None) if again_here(v) => again.extend([quote!(let #store = #expr;)]),
                _ => stored.push(store.clone()),
            }
        }
        (again, stored)
    }

    /// A branch: the recorded arm, walked.
    fn branch(&mut self, b: &Branch, code: &mut TokenStream) {
        let mut merged = Vec::new();
        for merge in &b.merges {
            if let Some(adj) = self.bound_total(merge.out, code) {
                merged.push((merge, adj));
            }
        }
        let mut arms = Vec::new();
        for (k, (region, steps)) in b.arms.iter().enumerate() {
            let seeds = merged
                .iter()
                .filter_map(|(merge, adj)| match merge.per_arm.get(k) {
                    Some(Val::Active(v)) => Some((*v, adj.to_token_stream())),
                    _ => None,
                })
                .collect();
            // a loop in an arm may not run: its range is evaluated where
            // the arm runs it, not before the loops around the branch
            self.nest.push(Level::Stop);
            let arm = self.region(steps, *region, seeds);
            self.nest.pop();
            if !arm.is_empty() {
                arms.push(quote!(#k => { #arm }));
            }
        }
        if !arms.is_empty() {
            let flag = self.sweep.read_store(b.flag);
            code.extend([quote!(match #flag { #(#arms)* _ => {} })]);
        }
    }
}

/// `let mut acc = 0;` for an accumulator of the value stored in `store`.
fn accumulator_decl(acc: &Ident, store: &Ident) -> TokenStream {
    quote!(let mut #acc = ::mica::__private::zeros_like(&#store);)
}

/// The zeroed adjoint buffer `acc` of an array of shape `shape`: on the
/// stack, up to `inline` elements, for a `vec!` of a constant length.
fn buffer_decl(acc: &TokenStream, shape: &Ident, inline: Option<&TokenStream>) -> TokenStream {
    match inline {
        // the stack buffer, then the slice of it the reverse indexes
        Some(capacity) => quote! {
            let mut #acc = ::mica::__private::InlineZeros::<_, #capacity>::new(#shape);
            #[allow(unused_mut)]
            let mut #acc = #acc.slice();
        },
        None => quote!(#[allow(unused_mut)] let mut #acc = ::mica::__private::zeros_of(#shape);),
    }
}

/// Whether `name` is an adjoint bound once by a `let` (`__mica_a7`,
/// `__mica_e7`), not an accumulator or a loop's carry.
/// A contribution to an adjoint: an expression, or a name the reverse sweep
/// bound. A name is known as one without walking its tokens, which inside
/// rustc crosses the proc-macro bridge.
enum Part {
    Name(Ident),
    Tokens(TokenStream),
}

impl From<Ident> for Part {
    fn from(name: Ident) -> Self {
        Part::Name(name)
    }
}

impl From<TokenStream> for Part {
    fn from(tokens: TokenStream) -> Self {
        Part::Tokens(tokens)
    }
}

impl Part {
    fn into_tokens(self) -> TokenStream {
        match self {
            Part::Name(name) => name.into_token_stream(),
            Part::Tokens(tokens) => tokens,
        }
    }

    fn tokens(parts: Vec<Part>) -> Vec<TokenStream> {
        parts.into_iter().map(Part::into_tokens).collect()
    }
}

fn is_immutable_adjoint(name: &Ident) -> bool {
    let name = name.to_string();
    ["__mica_a", "__mica_e"].iter().any(|prefix| {
        name.strip_prefix(prefix)
            .is_some_and(|rest| !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit()))
    })
}

/// `a + b + …` of the contributions (at least one).
pub fn sum(parts: &[TokenStream]) -> TokenStream {
    // extended in place: linear in the number of parts (a value read by
    // every line of a long body has thousands)
    const CHAIN: usize = 32;
    let mut out = TokenStream::new();
    if parts.len() <= CHAIN {
        for (k, part) in parts.iter().enumerate() {
            if k > 0 {
                out.extend([quote!(+)]);
            }
            out.extend([part.clone()]);
        }
        return out;
    }
    // a long chain `a + b + …` nests as deep as it is long, past what rustc
    // can walk: added one by one into a local instead, in the same order
    let sum = crate::names::internal("__mica_sum");
    let mut parts = parts.iter();
    let first = parts.next().cloned().unwrap_or_default();
    for part in parts {
        out.extend([quote!(#sum += #part;)]);
    }
    quote!({ let mut #sum = #first; #out #sum })
}

/// Whether `tokens` mention the name `pat` binds (a single identifier).
fn mentions(tokens: &TokenStream, pat: &TokenStream) -> bool {
    let Some(proc_macro2::TokenTree::Ident(name)) = pat.clone().into_iter().next() else {
        return false;
    };
    crate::names::mentions_ident(tokens, &name.to_string())
}
