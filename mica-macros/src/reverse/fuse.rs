//! Fused loops: a loop whose reverse runs inside its own forward sweep.
//!
//! A loop that only sums into its carried bindings (`total += …`) passes
//! each iteration the same adjoint for them: the adjoint they have after the
//! loop. When the code after the loop uses the sums linearly, with factors
//! known before the loop (`total / n as f64`, `0.5 * total`, `total` itself),
//! that adjoint is known before the loop runs, and each iteration's reverse
//! needs nothing from a later iteration. The iteration's reverse then runs
//! at the end of the iteration itself, reading the iteration's values where
//! the forward sweep left them: nothing is kept per iteration, and the data
//! the loop reads is walked once, as a hand-written adjoint walks it.
//!
//! ```text
//! let k = seed / (n as f64);          // the sums' adjoint, before the loop
//! for i in 0..n {
//!     …forward of iteration i…
//!     …reverse of iteration i, seeded with k…
//! }
//! ```
//!
//! Only loops of the function body's top level, in the function form without
//! `return`, are fused, and only when (checked on the record):
//!
//! - every carried binding that holds a recorded value ends each iteration
//!   as `entry + x`, `x + entry` or `entry - x`, and neither its value at the
//!   start of the iteration nor that sum is read anywhere else in the body;
//! - the code after the loop reads the sums only through operations whose
//!   slope to them reads no sum and nothing computed after the loop, other
//!   than constants that can be evaluated before the loop with the same value
//!   (see `Stability::same_before`);
//! - the arrays the body reads or writes are made inside it, or are
//!   parameters it only reads, or were made earlier at the top level and
//!   nothing after the loop writes them (nor, if the body writes them,
//!   reads them): the loop's reverse runs before the reverse of the code
//!   after it, and a write's reverse takes its element's adjoint, which
//!   must by then hold everything added after the write. Their buffers are
//!   then declared before the loop.
//!
//! A fused loop's gradients are the same sums, added in another order.

use super::{sum, Gen, Level};
use crate::record::{regions_of, Loop, OpKind, Operand, Step, Val, ValueId};
use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// Who reads and makes the values of the function body's top level, once
/// for all its loops.
pub(super) struct TopIndex {
    /// value → the top-level steps reading it (anywhere inside them)
    readers: HashMap<ValueId, Vec<usize>>,
    /// value → the top-level operation making it
    producers: HashMap<ValueId, usize>,
    /// array → the top-level steps reading or writing it (and whether
    /// they write it)
    arrays: HashMap<usize, Vec<(usize, bool)>>,
}

impl Gen<'_, '_> {
    pub(super) fn top_index(&self, steps: &[Step]) -> TopIndex {
        let mut index = TopIndex {
            readers: HashMap::new(),
            producers: HashMap::new(),
            arrays: HashMap::new(),
        };
        for (j, step) in steps.iter().enumerate() {
            if let Step::Op(op) = step {
                index.producers.insert(op.out, j);
            }
            let mut reads = HashMap::new();
            let mut touched = Touched::default();
            self.scan(std::slice::from_ref(step), &mut reads, &mut touched);
            for &array in touched.read.union(&touched.written) {
                let writes = touched.written.contains(&array);
                index.arrays.entry(array).or_default().push((j, writes));
            }
            if let Step::Loop(l) = step {
                for c in &l.carried {
                    let mut ids = Vec::new();
                    active_ids(&c.before, &mut ids);
                    for id in ids {
                        reads.insert(id, 1);
                    }
                }
            }
            for v in reads.into_keys() {
                index.readers.entry(v).or_default().push(j);
            }
        }
        index
    }
}

/// While the adjoints after a loop are worked out: what is known before it.
struct Early<'e, 'l> {
    l: &'l Loop,
    /// the loop's statement in the function body
    top: usize,
    /// the loop's place among the top-level steps
    at: usize,
    steps: &'l [Step],
    index: &'l TopIndex,
    /// values given a `let` before the loop so far
    defined: &'e mut HashSet<ValueId>,
    decls: &'e mut TokenStream,
}

/// What a fusable loop needs before it runs.
struct Plan {
    /// `let`s of the constants and adjoints below
    decls: TokenStream,
    /// per carried binding: its adjoint after the loop, if anything reaches it
    carries: Vec<Option<TokenStream>>,
    /// arrays made earlier whose adjoint buffers the loop adds into
    early_arrays: Vec<usize>,
}

impl Gen<'_, '_> {
    /// Fuses `l`, the step `at` of the function body's top-level `steps`,
    /// if it can be; returns whether it did.
    pub(super) fn fuse(
        &mut self,
        l: &Loop,
        steps: &[Step],
        at: usize,
        index: &TopIndex,
        code: &mut TokenStream,
    ) -> bool {
        let Some(plan) = self.plan(l, steps, at, index) else {
            return false;
        };
        let mut before = plan.decls;
        let mut seeds = Vec::new();
        let mut carries = Vec::new();
        for (c, adjoint) in l.carried.iter().zip(plan.carries) {
            let carry = adjoint.map(|adjoint| {
                let carry = self.sweep.names.fresh("k");
                before.extend([quote!(let #carry = #adjoint;)]);
                if let Val::Active(end) = c.end {
                    seeds.push((end, carry.to_token_stream()));
                }
                carry
            });
            carries.push(carry);
        }
        let outer = self.fusing.replace(BTreeSet::new());
        // the loop's reverse pops its inner loops' tapes inside it
        self.nest
            .push(l.trip.clone().map_or(Level::Stop, Level::Fused));
        let body = self.region(&l.steps, l.region, seeds);
        self.nest.pop();
        let touched = std::mem::replace(&mut self.fusing, outer).unwrap_or_default();
        // each iteration hands its carried adjoints on unchanged (checked)
        for c in &l.carried {
            let _ = self.total(c.entry);
        }
        // every value of the iteration is in scope where its reverse runs
        // (a temporary made in a nested block or arm is declared at the
        // top of the body): nothing is read again or kept
        self.sweep.empty_tapes.insert(l.tape.to_string());
        self.fills.insert(l.fill.to_string(), body);
        // accumulators of the function's values that the body adds into
        // are declared before the first (in forward order) loop using them:
        // loops are walked last to first, so a later walk overwrites
        let key = l.before.to_string();
        for array in plan.early_arrays {
            self.early_arrays.insert(array, key.clone());
        }
        for v in touched {
            if self.sweep.values[v].region == 0 {
                self.early.insert(v, key.clone());
            }
        }
        self.before_loops.entry(key).or_default().extend([before]);
        for (c, carry) in l.carried.iter().zip(carries) {
            if let (Val::Active(before), Some(carry)) = (&c.before, carry) {
                self.contribute(*before, carry, code);
            }
        }
        true
    }

    /// Puts what goes before each fused loop into its placeholder.
    pub(super) fn finish_fused(&mut self) {
        let early = std::mem::take(&mut self.early);
        for (v, key) in early {
            if let Some(acc) = self.accumulators.get(&v).cloned() {
                let store = self.sweep.read_store(v);
                self.before_loops
                    .entry(key)
                    .or_default()
                    .extend([super::accumulator_decl(&acc, &store)]);
            }
        }
        for (array, key) in std::mem::take(&mut self.early_arrays) {
            let a = &self.sweep.arrays[array];
            if let Some((_, shape)) = a.local {
                let (acc, inline) = (a.acc.clone(), a.inline.clone());
                let shape = self.sweep.read_store(shape);
                self.before_loops
                    .entry(key)
                    .or_default()
                    .extend([super::buffer_decl(&acc, &shape, inline.as_ref())]);
            }
        }
        for (key, code) in std::mem::take(&mut self.before_loops) {
            self.fills.insert(key, code);
        }
    }

    fn plan(&mut self, l: &Loop, steps: &[Step], at: usize, index: &TopIndex) -> Option<Plan> {
        let top = l.top?;
        // the body: carried bindings are sums, arrays stay inside
        let mut reads = HashMap::new();
        let mut touched = Touched {
            ok: true,
            ..Touched::default()
        };
        self.scan(&l.steps, &mut reads, &mut touched);
        let mut early_arrays = Vec::new();
        if !touched.ok || !self.arrays_allow(l, &touched, at, index, &mut early_arrays) {
            return None;
        }
        // each iteration's reverse runs before the next iteration exists:
        // no iteration may read what another writes through an array (two
        // iterations that only write one element each read their own
        // value, and each write's reverse takes the adjoint of its own)
        let deps = crate::analyze::dependence::of(l, &self.sweep.values, &self.sweep.arrays);
        if !deps.carried.is_empty() {
            return None;
        }
        for c in &l.carried {
            for val in [&c.before, &c.end] {
                let mut ids = Vec::new();
                if !active_ids(val, &mut ids) {
                    return None;
                }
                for id in ids {
                    *reads.entry(id).or_insert(0usize) += 1;
                }
            }
        }
        for c in &l.carried {
            let entry_reads = reads.get(&c.entry).copied().unwrap_or(0);
            match c.end {
                Val::Const => {
                    if entry_reads != 0 {
                        return None;
                    }
                }
                Val::Active(end) => {
                    // `end` was counted once as the carried end itself
                    if reads.get(&end).copied().unwrap_or(0) != 1 || entry_reads != 1 {
                        return None;
                    }
                    if !sums_into(&l.steps, end, c.entry) {
                        return None;
                    }
                }
                _ => return None,
            }
        }
        // after the loop: the sums' adjoints, from factors known before it
        let exits: Vec<ValueId> = l
            .carried
            .iter()
            .filter(|c| matches!(c.end, Val::Active(_)))
            .map(|c| c.exit)
            .collect();
        let mut sums: HashSet<ValueId> = exits.iter().copied().collect();
        let mut work = exits;
        let mut sum_steps = BTreeSet::new();
        while let Some(v) = work.pop() {
            for &j in index.readers.get(&v).into_iter().flatten() {
                let Some(Step::Op(op)) = steps.get(j).filter(|_| j > at) else {
                    return None; // read inside a loop or branch, or before
                };
                if !matches!(op.kind, OpKind::Rule(_)) {
                    return None;
                }
                if sums.insert(op.out) {
                    work.push(op.out);
                }
                sum_steps.insert(j);
            }
        }
        // each operation on a sum: its slope to the sum reads no sum
        for &j in &sum_steps {
            let Some(Step::Op(op)) = steps.get(j) else {
                return None;
            };
            let OpKind::Rule(name) = op.kind else {
                return None;
            };
            let is_sum = |i: usize| matches!(op.inputs[i], Operand::Active(v) if sums.contains(&v));
            let k = op.inputs.len();
            for i in (0..k).filter(|&i| is_sum(i)) {
                for &p in crate::rules::reads(name, i) {
                    if p >= k || is_sum(p) {
                        return None;
                    }
                }
            }
        }
        let mut decls = TokenStream::new();
        let mut defined = HashSet::new();
        let mut early = Early {
            l,
            top,
            at,
            steps,
            index,
            defined: &mut defined,
            decls: &mut decls,
        };
        let mut adjoints: BTreeMap<ValueId, Vec<TokenStream>> = BTreeMap::new();
        for (v, seed) in &self.seeds {
            if sums.contains(v) {
                adjoints.entry(*v).or_default().push(seed.clone());
            }
        }
        for &j in sum_steps.iter().rev() {
            let Some(Step::Op(op)) = steps.get(j) else {
                continue;
            };
            let Some(parts) = adjoints.remove(&op.out) else {
                continue;
            };
            let OpKind::Rule(name) = op.kind else {
                return None;
            };
            let adj = self.sweep.names.fresh("e");
            let total = sum(&parts);
            crate::names::push_let(early.decls, &adj, total);
            let k = op.inputs.len();
            for (i, input) in op.inputs.iter().enumerate() {
                let Operand::Active(id) = input else { continue };
                if !sums.contains(id) {
                    continue;
                }
                let part = match (name, i) {
                    ("add", _) | ("sub", 0) | ("mul_add", 2) => adj.to_token_stream(),
                    ("sub", _) | ("neg", _) => quote!(-#adj),
                    _ => {
                        let reads = crate::rules::reads(name, i);
                        let mut args = Vec::with_capacity(k + 1);
                        for (p, input) in op.inputs.iter().enumerate() {
                            args.push(if reads.contains(&p) {
                                self.known_before(input, &mut early)?
                            } else {
                                adj.to_token_stream()
                            });
                        }
                        args.push(adj.to_token_stream());
                        let rule = quote::format_ident!("{}_d{}", name, i);
                        quote!(::mica::__private::rules::#rule(#(#args,)* #adj))
                    }
                };
                adjoints.entry(*id).or_default().push(part);
            }
        }
        let carries = l
            .carried
            .iter()
            .map(|c| match c.end {
                Val::Active(_) => adjoints.remove(&c.exit).map(|parts| sum(&parts)),
                _ => None,
            })
            .collect();
        Some(Plan {
            decls,
            carries,
            early_arrays,
        })
    }

    /// An operand of the code after the loop, read before it: a literal, a
    /// value made before the loop, or one evaluated again there with the
    /// same result (its `let` added to the declarations).
    fn known_before(&mut self, input: &Operand, early: &mut Early<'_, '_>) -> Option<TokenStream> {
        match input {
            Operand::Const(tokens) => Some(tokens.clone()),
            Operand::Active(id) => self.value_before(*id, early),
            Operand::Stored(id) => {
                let store = self.value_before(*id, early)?;
                Some(quote!(::mica::__private::val(#store)))
            }
            Operand::Array { .. } => None,
        }
    }

    fn value_before(&mut self, id: ValueId, early: &mut Early<'_, '_>) -> Option<TokenStream> {
        let v = &self.sweep.values[id];
        if v.region != 0 || v.scope != 0 {
            return None;
        }
        if id < early.l.values.start || early.defined.contains(&id) {
            return Some(self.sweep.read_store(id).into_token_stream());
        }
        let made = early
            .index
            .producers
            .get(&id)
            .filter(|&&j| j > early.at)
            .and_then(|&j| match early.steps.get(j) {
                Some(Step::Op(op)) => Some(op),
                _ => None,
            });
        let expr = match (v.recompute.clone(), made) {
            // a constant or cheap value the lowering can read again
            (Some(expr), _) => {
                let deps = v.deps.clone();
                let mut names = HashSet::new();
                crate::names::idents_in(expr.clone(), &mut names);
                let stores: HashSet<String> = deps
                    .iter()
                    .map(|d| self.sweep.values[*d].store.to_string())
                    .collect();
                let stability = self.sweep.stability.as_ref()?;
                if !names
                    .iter()
                    .all(|n| stores.contains(n) || stability.same_before(n, early.top))
                {
                    return None;
                }
                for dep in deps {
                    self.value_before(dep, early)?;
                }
                expr
            }
            // an operation after the loop on values known before it: the
            // same operation on the same inputs, evaluated before
            (None, Some(op)) => {
                let OpKind::Rule(name) = op.kind else {
                    return None;
                };
                let mut args = Vec::with_capacity(op.inputs.len());
                for input in &op.inputs {
                    args.push(match input {
                        Operand::Const(tokens) => tokens.clone(),
                        Operand::Active(dep) | Operand::Stored(dep) => {
                            self.value_before(*dep, early)?
                        }
                        Operand::Array { .. } => return None,
                    });
                }
                crate::rules::forward(name, &args)?
            }
            (None, None) => return None,
        };
        let store = self.sweep.read_store(id);
        // a temporary declared at the top of the body and assigned in a
        // nested block: a `let` of it here would shadow that declaration
        if self.sweep.hoisted.contains(&store.to_string()) {
            return None;
        }
        // a name read in place (see `Sweep::lower_operand`) needs no copy
        if store != expr.to_string() {
            early.decls.extend([quote!(let #store = #expr;)]);
        }
        early.defined.insert(id);
        Some(store.into_token_stream())
    }

    /// How many times `steps` read each recorded value (see [`Self::scan`]).
    pub(super) fn count_reads(&self, steps: &[Step]) -> HashMap<ValueId, usize> {
        let mut reads = HashMap::new();
        self.scan(steps, &mut reads, &mut Touched::default());
        reads
    }

    /// Counts the recorded values `steps` read (into `reads`) and notes the
    /// arrays they read and write; clears `touched.ok` where a loop or branch
    /// carries an array value.
    fn scan(&self, steps: &[Step], reads: &mut HashMap<ValueId, usize>, touched: &mut Touched) {
        let read = |operand: &Operand, reads: &mut HashMap<ValueId, usize>| {
            if let Operand::Active(v) = operand {
                *reads.entry(*v).or_insert(0) += 1;
            }
        };
        for step in steps {
            match step {
                Step::Op(op) => {
                    for input in &op.inputs {
                        read(input, reads);
                        if let Operand::Array { array, .. } = input {
                            touched.read.insert(*array);
                        }
                    }
                    if let OpKind::Read { array, indices } = &op.kind {
                        touched.read.insert(*array);
                        for i in indices {
                            read(i, reads);
                        }
                    }
                }
                Step::Loop(inner) => {
                    self.scan(&inner.steps, reads, touched);
                    for c in &inner.carried {
                        let mut ids = Vec::new();
                        touched.ok &= active_ids(&c.before, &mut ids);
                        touched.ok &= active_ids(&c.end, &mut ids);
                        for id in ids {
                            *reads.entry(id).or_insert(0) += 1;
                        }
                    }
                }
                Step::Branch(b) => {
                    *reads.entry(b.flag).or_insert(0) += 1;
                    for (_, arm) in &b.arms {
                        self.scan(arm, reads, touched);
                    }
                    for merge in &b.merges {
                        let mut ids = Vec::new();
                        for val in &merge.per_arm {
                            touched.ok &= active_ids(val, &mut ids);
                        }
                        for id in ids {
                            *reads.entry(id).or_insert(0) += 1;
                        }
                    }
                }
                Step::Write {
                    array,
                    indices,
                    value,
                }
                | Step::Increment {
                    array,
                    indices,
                    value,
                    ..
                } => {
                    touched.written.insert(*array);
                    read(value, reads);
                    for i in indices {
                        read(i, reads);
                    }
                }
                Step::Fill { array, value } => {
                    touched.written.insert(*array);
                    *reads.entry(*value).or_insert(0) += 1;
                }
            }
        }
    }

    /// Whether a fused `l` may add into and write the arrays it touches:
    /// those made inside it, parameters it only reads, and arrays made
    /// earlier at the top level that nothing after the loop writes, or, if
    /// the loop writes them, touches (their adjoint buffers are then
    /// declared before the loop, into `early`).
    fn arrays_allow(
        &self,
        l: &Loop,
        touched: &Touched,
        at: usize,
        index: &TopIndex,
        early: &mut Vec<usize>,
    ) -> bool {
        let mut regions = BTreeSet::new();
        regions_of(l, &mut regions);
        for &array in touched.read.union(&touched.written) {
            let a = &self.sweep.arrays[array];
            if a.declare.is_some() {
                return false;
            }
            match a.local {
                Some((region, _)) if regions.contains(&region) => {}
                None if !touched.written.contains(&array) => {}
                // slopes only added (reads) commute with the code after
                // the loop adding more; a write takes the element's
                // adjoint, which must then hold everything after it
                Some((0, _)) => {
                    let written = touched.written.contains(&array);
                    let later = index.arrays.get(&array).is_some_and(|steps| {
                        steps
                            .iter()
                            .any(|&(j, writes)| j > at && (written || writes))
                    });
                    if later {
                        return false;
                    }
                    early.push(array);
                }
                _ => return false,
            }
        }
        true
    }
}

/// The arrays some steps read and write.
#[derive(Default)]
struct Touched {
    read: BTreeSet<usize>,
    written: BTreeSet<usize>,
    /// no array value carried by a loop or out of a branch
    ok: bool,
}

/// The recorded scalars of a value (into `out`); `false` for an array,
/// which a fused loop does not carry.
fn active_ids(val: &Val, out: &mut Vec<ValueId>) -> bool {
    match val {
        Val::Const => true,
        Val::Active(id) => {
            out.push(*id);
            true
        }
        Val::Tuple(items) => items.iter().all(|item| active_ids(item, out)),
        Val::Array { .. } => false,
    }
}

/// Whether `end` is made, at the body's own level, as `entry + x`,
/// `x + entry` or `entry - x`.
pub(super) fn sums_into(steps: &[Step], end: ValueId, entry: ValueId) -> bool {
    let is_entry = |operand: &Operand| matches!(operand, Operand::Active(v) if *v == entry);
    steps.iter().any(|step| match step {
        Step::Op(op) if op.out == end => match (&op.kind, op.inputs.as_slice()) {
            (OpKind::Rule("add"), [a, b]) => is_entry(a) || is_entry(b),
            (OpKind::Rule("sub"), [a, _]) => is_entry(a),
            _ => false,
        },
        _ => false,
    })
}
