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
//! A loop that is a statement of a fused loop's body is fused the same way
//! inside it (and so on, at any depth): the code after it is the rest of
//! that body, and its sums' adjoints start from what the outer iteration
//! hands on (`k` above), not from the sweep's seed. The values of the outer
//! body it adds into have their accumulators zeroed before it; those made
//! before the outer loop are handed to that loop, which zeroes them before
//! itself.
//!
//! ```text
//! for i in 0..n {
//!     let k_z = k * w[i];            // `q += w[i] * z`: z's adjoint
//!     for j in 0..n {
//!         z += a[i * n + j] * w[j];
//!         d_w[j] += k_z * a[i * n + j];
//!     }
//!     q += w[i] * z;
//!     …reverse of the rest of iteration i…
//! }
//! ```
//!
//! Which loops are fused is the plan's verdict (`plan/fuse.rs`), taken
//! before any reverse code is written; this file writes a fused loop.
//!
//! A fused loop's gradients are the same sums, added in another order.

use super::{sum, Gen, Level};
use crate::plan::fuse::Fusion;
use crate::record::{Loop, OpKind, Operand, Step, Val, ValueId};
use crate::rules::Pass;
use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use std::collections::{BTreeMap, BTreeSet};

impl Gen<'_> {
    /// Fuses `l`, a step of the function body's top-level `steps` or of a
    /// fused loop's body, as the plan's `fusion` says.
    pub(super) fn fuse(
        &mut self,
        l: &Loop,
        steps: &[Step],
        fusion: &Fusion,
        code: &mut TokenStream,
    ) {
        // the values read before the loop
        for &id in &fusion.read {
            self.read_store(id);
        }
        let mut before = TokenStream::new();
        // the sums' adjoints start from the sweep's seeds, or inside a
        // fused loop, from those its iteration hands on
        let start = match fusion.outer {
            None => self.seeds.clone(),
            Some(_) => self.fused_seeds.clone(),
        };
        let mut adjoints = self.sum_adjoints(steps, fusion, &start, &mut before);
        let mut seeds = Vec::new();
        let mut carries = Vec::new();
        for c in &l.carried {
            let adjoint = match c.end {
                Val::Active(_) => adjoints.remove(&c.exit).map(|parts| sum(&parts)),
                _ => None,
            };
            let carry = adjoint.map(|adjoint| {
                let carry = self.names.fresh("k");
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
        let fused_at = self.fused_at.replace(self.open.len());
        // slopes at neighbouring elements wait in registers (walked first
        // to last: a fused loop's reverse runs in each iteration)
        let windowed = self.plan.of_loop(l).and_then(|p| p.carry.yes());
        let windowed = windowed.map(Vec::as_slice).unwrap_or_default();
        let windows = self.open_windows(windowed);
        let outer_pools = self.open_pools(l);
        let outer_seeds = std::mem::replace(&mut self.fused_seeds, seeds.clone());
        let body = self.region(&l.steps, l.region, seeds);
        self.fused_seeds = outer_seeds;
        before.extend([self.close_pools(outer_pools)]);
        let closed = self.close_windows(windowed, windows);
        let body = self.wrap_windows(closed, true, body, &mut before, code);
        self.fused_at = fused_at;
        self.nest.pop();
        let touched = std::mem::replace(&mut self.fusing, outer).unwrap_or_default();
        // what the loop around adds into too: values made before it, whose
        // accumulators it declares before itself
        let (own, around): (Vec<ValueId>, Vec<ValueId>) = touched
            .into_iter()
            .partition(|&v| self.record.values[v].region == fusion.outer.unwrap_or(0));
        if let Some(outer) = &mut self.fusing {
            outer.extend(around);
        }
        // each iteration hands its carried adjoints on unchanged (checked)
        for c in &l.carried {
            let _ = self.total(c.entry);
        }
        // every value of the iteration is in scope where its reverse runs
        // (a temporary made in a nested block or arm is declared at the
        // top of the body): nothing is read again or kept
        self.empty_tapes.insert(l.tape.to_string());
        self.fills.insert(l.fill.to_string(), body);
        // accumulators of the function's values that the body adds into
        // are declared before the first (in forward order) loop using them:
        // loops are walked last to first, so a later walk overwrites
        let key = l.before.to_string();
        for &array in &fusion.early_arrays {
            self.early_arrays.insert(array, key.clone());
        }
        for v in own {
            self.early.insert(v, key.clone());
        }
        self.before_loops.entry(key).or_default().extend([before]);
        for (c, carry) in l.carried.iter().zip(carries) {
            if let (Val::Active(before), Some(carry)) = (&c.before, carry) {
                self.contribute(*before, carry, code);
            }
        }
    }

    /// The adjoints of the sums after a fused loop, worked out before it
    /// (their `let`s, and those of the values they read, into `before`):
    /// value → its parts.
    fn sum_adjoints(
        &mut self,
        steps: &[Step],
        fusion: &Fusion,
        start: &[(ValueId, TokenStream)],
        before: &mut TokenStream,
    ) -> BTreeMap<ValueId, Vec<TokenStream>> {
        let mut adjoints: BTreeMap<ValueId, Vec<TokenStream>> = BTreeMap::new();
        for (v, seed) in start {
            if fusion.sums.contains(v) {
                adjoints.entry(*v).or_default().push(seed.clone());
            }
        }
        for &j in fusion.sum_steps.iter().rev() {
            let Some(Step::Op(op)) = steps.get(j) else {
                continue;
            };
            let Some(parts) = adjoints.remove(&op.out) else {
                continue;
            };
            let OpKind::Rule(name) = op.kind else {
                continue;
            };
            let adj = self.names.fresh("e");
            crate::names::push_let(before, &adj, sum(&parts));
            for (id, expr) in fusion
                .lets_of
                .get(&j)
                .and_then(|r| fusion.lets.get(r.clone()))
                .into_iter()
                .flatten()
            {
                if let Some(expr) = expr {
                    let store = &self.record.values[*id].store;
                    before.extend([quote!(let #store = #expr;)]);
                }
            }
            let k = op.inputs.len();
            for (i, input) in op.inputs.iter().enumerate() {
                let Operand::Active(id) = input else { continue };
                if !fusion.sums.contains(id) {
                    continue;
                }
                let part = match crate::rules::passes(name, i) {
                    Some(Pass::Same) => adj.to_token_stream(),
                    Some(Pass::Negated) => quote!(-#adj),
                    None => {
                        let reads = crate::rules::reads(name, i);
                        let mut args = Vec::with_capacity(k + 1);
                        for (p, input) in op.inputs.iter().enumerate() {
                            args.push(if reads.contains(&p) {
                                self.read_before(input)
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
        adjoints
    }

    /// An operand of the code after a fused loop, as read before it (the
    /// plan made sure it can be).
    fn read_before(&mut self, input: &Operand) -> TokenStream {
        match input {
            Operand::Const(tokens) => tokens.clone(),
            Operand::Active(id) => self.read_store(*id).into_token_stream(),
            Operand::Stored(id) => {
                let store = self.read_store(*id);
                quote!(::mica::__private::val(#store))
            }
            Operand::Array { .. } => self.operand(input),
        }
    }

    /// Puts what goes before each fused loop into its placeholder.
    pub(super) fn finish_fused(&mut self) {
        let early = std::mem::take(&mut self.early);
        for (v, key) in early {
            if let Some(acc) = self.accumulators.get(&v).cloned() {
                let store = self.read_store(v);
                self.before_loops
                    .entry(key)
                    .or_default()
                    .extend([super::decls::accumulator_decl(&acc, &store)]);
            }
        }
        for (array, key) in std::mem::take(&mut self.early_arrays) {
            let a = &self.record.arrays[array];
            if let Some((_, shape)) = a.local.filter(|_| !self.unread.contains(&array)) {
                let (acc, inline) = (a.acc.clone(), a.inline.clone());
                let shape = self.read_store(shape);
                self.before_loops
                    .entry(key)
                    .or_default()
                    .extend([super::decls::buffer_decl(&acc, &shape, inline.as_ref())]);
            }
        }
        for (key, code) in std::mem::take(&mut self.before_loops) {
            self.fills.insert(key, code);
        }
    }
}
