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
//!   taken before it (`slices.rs`), the slopes of neighbouring elements it
//!   reads waiting in registers from one iteration to the next
//!   (`window.rs`). In a nest of range loops whose trip
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

mod decls;
mod forward;
mod fuse;
mod ops;
mod scaled;
mod select;
mod slices;
mod trig;
mod unread;
mod walk;
mod window;

use crate::lower::Sweep;
use crate::plan::Plan;
use crate::record::{Branch, Loop, OpKind, Operand, RangeSource, Record, Step, Val, ValueId};
use proc_macro2::{Ident, Span, TokenStream};
use quote::{quote, quote_spanned, ToTokens};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// The reverse sweep's code and what reached each input.
pub struct Reverse {
    pub code: TokenStream,
    /// input value → its total adjoint (absent: exactly zero)
    pub inputs: BTreeMap<ValueId, TokenStream>,
    /// each loop's placeholder in the forward code → the push of the values
    /// its reverse reads
    pub fills: HashMap<String, TokenStream>,
    /// the values whose stores the reverse reads (and those the forward
    /// reads): the forward must write them, and copy the inputs among them
    pub reads: BTreeSet<ValueId>,
    /// the loops whose tapes the reverse leaves empty: not declared
    pub empty_tapes: HashSet<String>,
}

/// Writes the reverse sweep of `sweep`'s record, seeded at the given values.
///
/// Every shortcut is decided first, in the plan (`plan.rs`); `plain` makes
/// every verdict no. Neither the plan nor the reverse changes the record:
/// the reverse says what it read in its output.
pub fn reverse(sweep: &mut Sweep<'_>, seeds: Vec<(ValueId, TokenStream)>, plain: bool) -> Reverse {
    let steps = sweep.take_steps();
    let (names, record) = sweep.parts();
    let seed_values: Vec<ValueId> = seeds.iter().map(|(v, _)| *v).collect();
    let view = crate::plan::View {
        record,
        seeds: seed_values,
    };
    let plan = Plan::of(&view, &steps, plain);
    let mut accumulated = BTreeSet::new();
    decls::mark_accumulated(&record, &steps, 0, &mut accumulated);
    let mut gen = Gen {
        record,
        names,
        plan: &plan,
        reads: record.forward_reads.clone(),
        empty_tapes: HashSet::new(),
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
        fused_seeds: Vec::new(),
        sliced: HashMap::new(),
        nest: Vec::new(),
        trig: HashMap::new(),
        open: Vec::new(),
        fused_at: None,
        carried_reads: HashMap::new(),
        carried_used: HashSet::new(),
        pooled: HashMap::new(),
        pools_used: Vec::new(),
        runs: HashMap::new(),
        made_again: HashSet::new(),
        plain,
        unread: if plain {
            HashSet::new()
        } else {
            unread::arrays(&record, &steps)
        },
    };
    // the plain adjoint computes every slope as its rule says
    if !plain {
        trig::values(&steps, &mut gen.trig);
    }
    let mut code = TokenStream::new();
    for array in gen.record.arrays {
        if let Some(declare) = &array.declare {
            code.extend([declare.clone()]);
        }
    }
    code.extend([gen.region(&steps, 0, seeds)]);
    gen.finish_fused();
    let inputs: Vec<ValueId> = (0..gen.record.values.len())
        .filter(|&v| {
            let value = &gen.record.values[v];
            value.capture.is_some() && value.region == 0
        })
        .collect();
    let mut totals = BTreeMap::new();
    for v in inputs {
        if let Some(total) = gen.total(v) {
            totals.insert(v, total);
        }
    }
    let Gen {
        mut fills,
        reads,
        empty_tapes,
        made_again,
        ..
    } = gen;
    // loop bookkeeping: only what the reverse sweep reads
    sweep.lazy_fills(&reads, &made_again, &mut fills);
    Reverse {
        code,
        inputs: totals,
        fills,
        reads,
        empty_tapes,
    }
}

struct Gen<'g> {
    /// the record, read only
    record: Record<'g>,
    names: &'g mut crate::names::Names,
    /// the values whose stores the reverse reads so far
    reads: BTreeSet<ValueId>,
    /// the loops whose tapes the reverse leaves empty
    empty_tapes: HashSet<String>,
    /// every shortcut's verdict, decided before the reverse is written
    plan: &'g Plan,
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
    /// while a fused loop's body is walked: the adjoints its iteration
    /// hands on (its carried ends), where the sums of a loop fused inside
    /// it start
    fused_seeds: Vec<(ValueId, TokenStream)>,
    /// inside a loop's reverse whose buffers are sliced: array → its slice
    /// and the loop variable's place in it (see `slices.rs`)
    sliced: HashMap<usize, (Ident, slices::Places)>,
    /// the loops around the one being walked, outermost first
    nest: Vec<Level>,
    /// `x.sin()` and `x.cos()` of one recorded `x`: (x, rule) → the first
    /// such value (see `ops.rs`, the reverse of `sin` and `cos`)
    trig: HashMap<(ValueId, &'static str), ValueId>,
    /// the regions whose reverse is being written, outermost first
    open: Vec<usize>,
    /// while a fused loop's body is walked: its place in `open`
    fused_at: Option<usize>,
    /// element reads whose slope waits in a register between a loop's
    /// iterations (`window.rs`): value → the register it adds into
    carried_reads: HashMap<ValueId, Ident>,
    /// the registers of `carried_reads` something was added into
    carried_used: HashSet<String>,
    /// buffers of arrays made in the body of the loop being walked, made
    /// in the memory its last iteration's reverse gave back: array → the
    /// pool that holds it between iterations (`walk.rs`), and the pools used
    pooled: HashMap<usize, Ident>,
    pools_used: Vec<Ident>,
    /// a loop's iterations counted where it starts, for the writers of the
    /// loops inside it (`walk.rs`, `run_writer`): its start → the count
    runs: HashMap<String, Ident>,
    /// copies the reverse made again from their literals (`walk.rs`): the
    /// forward need not take them
    made_again: HashSet<ValueId>,
    /// the plain adjoint: every slope as its rule says, none left out
    plain: bool,
    /// local arrays whose adjoint nothing adds into (`unread.rs`)
    unread: HashSet<usize>,
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

impl Gen<'_> {
    /// The store of a value, noted as read.
    fn read_store(&mut self, id: ValueId) -> Ident {
        self.reads.insert(id);
        self.record.values[id].store.clone()
    }

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
                    let acc = self.names.fresh("acc");
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
                let adj = self.names.fresh("a");
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
        let adj = self.names.fresh("a");
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
                let store = self.read_store(*id);
                quote!(&#store)
            }
            Operand::Active(id) | Operand::Stored(id) | Operand::Array { arg: id, .. } => {
                let store = self.read_store(*id);
                match self.record.values[*id].optional {
                    // `Some` wherever the call ran, and its reverse runs
                    // only where it ran (bound first: a `&Vec<f64>` kept
                    // is then coerced to the parameter's `&[f64]`)
                    true => {
                        let kept = quote::format_ident!("__mica_ran", span = Span::mixed_site());
                        quote!({ let #kept = ::mica::__private::ran(#store); #kept })
                    }
                    false => store.into_token_stream(),
                }
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
        self.open.push(region);
        let mut code = TokenStream::new();
        for (v, seed) in seeds {
            self.contribute(v, seed, &mut code);
        }
        let plan = self.plan;
        for step in steps.iter().rev() {
            match step {
                Step::Op(op) => self.op(op, &mut code),
                Step::CallInto(c) => self.call_into(c, &mut code),
                // a loop of the function body's top level may run its
                // reverse inside its forward sweep (see `fuse.rs`)
                Step::Loop(l) => match plan.of_loop(l).and_then(|p| p.fuse.yes()) {
                    Some(fusion) => self.fuse(l, steps, fusion, &mut code),
                    None => self.walk_loop(l, &mut code),
                },
                Step::Branch(b) => self.branch(b, &mut code),
                // an array whose adjoint stays zero gives its values none
                Step::Write { array, .. }
                | Step::Increment { array, .. }
                | Step::Fill { array, .. }
                    if self.unread.contains(array) => {}
                Step::Write {
                    array,
                    indices,
                    value,
                } => {
                    // the element's adjoint goes to the written value; the
                    // value it replaced reaches nothing after this write
                    let element = self.element(*array, indices);
                    let adj = self.names.fresh("a");
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
                        let adj = self.names.fresh("a");
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
                    let acc = self.record.arrays[*array].acc.clone();
                    match value {
                        Operand::Active(v) => {
                            let adj = self.names.fresh("a");
                            code.extend([
                                quote!(let #adj = ::mica::__private::take_sum(&mut #acc[..]);),
                            ]);
                            self.contribute(*v, adj, &mut code);
                        }
                        _ => code.extend([quote!(::mica::__private::clear(&mut #acc[..]);)]),
                    }
                }
                Step::Copy { to, from, prefix } => {
                    let to = self.record.arrays[*to].acc.clone();
                    let from = self.element(*from, prefix);
                    code.extend([
                        quote!(::mica::__private::move_adjoints(&mut #to[..], &mut #from[..]);),
                    ]);
                }
                Step::Swap { a, b } => {
                    let (a, b) = (&self.record.arrays[*a].acc, &self.record.arrays[*b].acc);
                    code.extend([quote!(::core::mem::swap(&mut #a, &mut #b);)]);
                }
            }
        }
        self.open.pop();
        // accumulators first written while walking this region, for values
        // that live in it: zero them where the region starts
        let mut decls = TokenStream::new();
        let mut new: Vec<(ValueId, Ident)> = self.accumulator_order[before..]
            .iter()
            .filter(|v| self.record.values[**v].region == region && !self.early.contains_key(v))
            .filter_map(|v| self.accumulators.get(v).map(|acc| (*v, acc.clone())))
            .collect();
        new.sort_by_key(|(v, _)| *v);
        for (v, acc) in new {
            let store = self.read_store(v);
            decls.extend([decls::accumulator_decl(&acc, &store)]);
        }
        // adjoint buffers of the arrays made in this region
        let (buffers, give_back) = self.local_buffers(region);
        decls.extend([buffers, code, give_back]);
        decls
    }
}

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
