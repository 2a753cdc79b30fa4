//! The fused-loop verdict: may a loop's reverse run inside its own forward
//! sweep? (What fusion is and why it gives the same gradients:
//! `reverse/fuse.rs`.)
//!
//! Yes when (checked on the record):
//!
//! - the loop is a statement of the function body's top level (function
//!   form, no `return`), or a statement of a fused loop's body (not inside
//!   a nested block or arm there), at any depth: the code after it is then
//!   the rest of that body, and the sums' adjoints start from what each
//!   iteration of the loop around hands on;
//! - every carried binding that holds a recorded value ends each iteration
//!   as its value at the start plus terms, on every path through the body
//!   (`+=` and `-=` at the body's level or in branch arms, an arm or a
//!   `continue` leaving it alone), and none of its versions in the iteration
//!   is read anywhere else in the body (`reads::summed`);
//! - no iteration reads what another writes through an array, nor writes
//!   what another read (the dependence analysis, `analyze/dependence.rs`);
//! - the code after the loop reads the sums only through operations whose
//!   slope to them reads no sum and nothing computed after the loop, other
//!   than constants that can be evaluated before the loop with the same value
//!   (see `Stability::same_before`; inside fused loops, also their
//!   variables);
//! - the arrays the body reads or writes are made inside it, or are
//!   parameters it only reads and nothing after it writes, or were made
//!   earlier at the top level and nothing after the loop writes them (nor,
//!   if the body writes them, reads them): the loop's reverse runs before
//!   the reverse of the code after it, and a write's reverse takes its
//!   element's adjoint, which must by then hold everything added after the
//!   write;
//! - inside fused loops, the values it reads from before it are made at
//!   the top level or in those loops' own bodies: their adjoints are zeroed
//!   before the loop around them, or before this one, and not where the
//!   reverse of a nested block or arm starts, which runs after this loop's
//!   reverse.

use super::reads::{active_ids, scan, summed, Touched};
use super::View;
use crate::record::{regions_of, Loop, OpKind, Operand, Step, Val, ValueId};
use proc_macro2::TokenStream;
use quote::ToTokens;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// Who reads and makes the values among some steps (the function body's
/// top level, or a fused loop's body), once for all their loops.
pub struct TopIndex {
    /// value → the top-level steps reading it (anywhere inside them)
    readers: HashMap<ValueId, Vec<usize>>,
    /// value → the top-level operation making it
    producers: HashMap<ValueId, usize>,
    /// array → the top-level steps reading or writing it (and whether
    /// they write it)
    arrays: HashMap<usize, Vec<(usize, bool)>>,
}

impl TopIndex {
    pub fn of(steps: &[Step]) -> TopIndex {
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
            scan(std::slice::from_ref(step), &mut reads, &mut touched);
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

/// What a fused loop needs before it runs.
pub struct Fusion {
    /// the top-level steps after the loop that the sums flow through
    pub sum_steps: BTreeSet<usize>,
    /// the sums: the carried bindings' exits and what is made from them
    pub sums: HashSet<ValueId>,
    /// values given a `let` before the loop, in order, with their
    /// expression (`None`: a name read in place, which needs no copy)
    pub lets: Vec<(ValueId, Option<TokenStream>)>,
    /// sum step → the `lets` first needed by its adjoint, written after it
    pub lets_of: BTreeMap<usize, std::ops::Range<usize>>,
    /// every value read before the loop (its store is read)
    pub read: Vec<ValueId>,
    /// arrays made earlier whose adjoint buffers the loop adds into: they
    /// are declared before the loop
    pub early_arrays: Vec<usize>,
    /// for a loop of a fused loop's body: that body's region (the sums'
    /// adjoints start from what its iteration hands on)
    pub outer: Option<usize>,
}

/// While the values known before a loop are worked out.
struct Early<'e, 'v> {
    view: &'e View<'v>,
    l: &'e Loop,
    /// the fused loops whose bodies hold `steps`, outermost first
    outers: &'e [&'e Loop],
    /// the loop's statement in the function body
    top: usize,
    /// the loop's place among the top-level steps
    at: usize,
    steps: &'e [Step],
    index: &'e TopIndex,
    defined: HashSet<ValueId>,
    lets: Vec<(ValueId, Option<TokenStream>)>,
    read: Vec<ValueId>,
}

/// The verdict on fusing `l`, the step `at` of `steps`: the function
/// body's top level, or the body of the last of `outers`, the fused loops
/// around `l` (outermost first).
pub fn fusion(
    view: &View<'_>,
    l: &Loop,
    steps: &[Step],
    at: usize,
    index: &TopIndex,
    outers: &[&Loop],
) -> Result<Fusion, &'static str> {
    // the fused loop whose body `steps` are, if any
    let outer = outers.last().copied();
    let top = match outers.first() {
        None => l
            .top
            .ok_or("only a loop of the function body's top level is fused")?,
        Some(outermost) if l.direct => outermost
            .top
            .ok_or("only a loop of the function body's top level is fused")?,
        Some(_) => {
            return Err("a loop inside a fused loop is fused only as a statement of its body")
        }
    };
    let stability = view
        .stability
        .ok_or("no name is known to hold its value before the loop")?;
    // the body: carried bindings are sums, arrays stay inside
    let mut reads = HashMap::new();
    let mut touched = Touched {
        ok: true,
        ..Touched::default()
    };
    scan(&l.steps, &mut reads, &mut touched);
    if !touched.ok {
        return Err("a loop or branch inside it carries an array");
    }
    let early_arrays = arrays_allow(view, l, &touched, at, index, outer)?;
    reads_made_outside(view, l, &reads, outers)?;
    // each iteration's reverse runs before the next iteration exists: no
    // iteration may read what another writes through an array (two
    // iterations that only write one element each read their own value,
    // and each write's reverse takes the adjoint of its own)
    let deps = crate::analyze::dependence::of(l, view.values, view.arrays);
    if !deps.carried.is_empty() {
        return Err("its iterations pass values to each other through an array");
    }
    for c in &l.carried {
        for val in [&c.before, &c.end] {
            let mut ids = Vec::new();
            if !active_ids(val, &mut ids) {
                return Err("it carries an array from one iteration to the next");
            }
            for id in ids {
                *reads.entry(id).or_insert(0usize) += 1;
            }
        }
    }
    const NOT_A_SUM: &str = "a binding it carries is not only summed";
    for c in &l.carried {
        let entry_reads = reads.get(&c.entry).copied().unwrap_or(0);
        match c.end {
            Val::Const => {
                if entry_reads != 0 {
                    return Err(NOT_A_SUM);
                }
            }
            Val::Active(end) => {
                // `end` was counted once as the carried end itself
                if !summed(&l.steps, end, c.entry, &reads) {
                    return Err(NOT_A_SUM);
                }
            }
            _ => return Err(NOT_A_SUM),
        }
    }
    // after the loop: the sums' adjoints, from factors known before it
    const LATER: &str = "the code after it does not read its sums linearly";
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
                return Err(LATER); // read inside a loop or branch, or before
            };
            if !matches!(op.kind, OpKind::Rule(_)) {
                return Err(LATER);
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
            return Err(LATER);
        };
        let OpKind::Rule(name) = op.kind else {
            return Err(LATER);
        };
        let is_sum = |i: usize| matches!(op.inputs[i], Operand::Active(v) if sums.contains(&v));
        let k = op.inputs.len();
        for i in (0..k).filter(|&i| is_sum(i)) {
            for &p in crate::rules::reads(name, i) {
                if p >= k || is_sum(p) {
                    return Err(LATER);
                }
            }
        }
    }
    // the factors the sums' adjoints read, known before the loop; walked as
    // the reverse walks them, from the last operation to the first, through
    // those something reaches
    let mut early = Early {
        view,
        l,
        outers,
        top,
        at,
        steps,
        index,
        defined: HashSet::new(),
        lets: Vec::new(),
        read: Vec::new(),
    };
    // the sums' adjoints start from the sweep's seeds, or inside a fused
    // loop, from the adjoints its iteration hands on (its carried ends)
    let seeds: Vec<ValueId> = match outer {
        None => view.seeds.clone(),
        Some(outer) => outer
            .carried
            .iter()
            .filter_map(|c| match c.end {
                Val::Active(end) => Some(end),
                _ => None,
            })
            .collect(),
    };
    let mut reached: HashSet<ValueId> = seeds.into_iter().filter(|v| sums.contains(v)).collect();
    let mut lets_of = BTreeMap::new();
    for &j in sum_steps.iter().rev() {
        let Some(Step::Op(op)) = steps.get(j) else {
            continue;
        };
        if !reached.contains(&op.out) {
            continue;
        }
        let OpKind::Rule(name) = op.kind else {
            return Err(LATER);
        };
        let start = early.lets.len();
        for (i, input) in op.inputs.iter().enumerate() {
            let Operand::Active(id) = input else { continue };
            if !sums.contains(id) {
                continue;
            }
            reached.insert(*id);
            if crate::rules::passes(name, i).is_some() {
                continue;
            }
            for &p in crate::rules::reads(name, i) {
                known_before(&op.inputs[p], &mut early, stability)?;
            }
        }
        lets_of.insert(j, start..early.lets.len());
    }
    Ok(Fusion {
        sum_steps,
        sums,
        lets: early.lets,
        lets_of,
        read: early.read,
        early_arrays,
        outer: outer.map(|o| o.region),
    })
}

/// Inside the fused loops `outers`: the values `l` reads that were made
/// before it are made at the top level or in one of those loops' own
/// bodies, whose adjoints are zeroed before the loop around them or before
/// `l` (not where a nested block or arm's reverse starts, which runs after
/// `l`'s).
fn reads_made_outside(
    view: &View<'_>,
    l: &Loop,
    reads: &HashMap<ValueId, usize>,
    outers: &[&Loop],
) -> Result<(), &'static str> {
    let outside = reads.keys().filter(|&&v| v < l.values.start);
    for &v in outside {
        let region = view.values[v].region;
        if region != 0 && !outers.iter().any(|o| o.region == region) {
            return Err("it reads a value made in a nested block or arm of the loop around it");
        }
    }
    Ok(())
}

const UNKNOWN: &str = "the slope of the code after it reads a value not known before it";

/// An operand of the code after the loop, read before it: a literal, a
/// value made before the loop, or one evaluated again there with the same
/// result (its `let` added to the plan).
fn known_before(
    input: &Operand,
    early: &mut Early<'_, '_>,
    stability: &crate::facts::stability::Stability,
) -> Result<(), &'static str> {
    match input {
        Operand::Const(_) => Ok(()),
        Operand::Active(id) | Operand::Stored(id) => value_before(*id, early, stability),
        Operand::Array { .. } => Err(UNKNOWN),
    }
}

fn value_before(
    id: ValueId,
    early: &mut Early<'_, '_>,
    stability: &crate::facts::stability::Stability,
) -> Result<(), &'static str> {
    let v = &early.view.values[id];
    // made at the top level (before the outermost loop around `l`), or in
    // the body of one of the fused loops around it
    let in_scope = match early.outers.first() {
        None => v.region == 0 && v.scope == 0,
        Some(outermost) => {
            (v.region == 0 && v.scope == 0 && id < outermost.values.start)
                || early
                    .outers
                    .iter()
                    .any(|o| v.region == o.region && v.scope == o.scope && o.values.contains(&id))
        }
    };
    if !in_scope {
        return Err(UNKNOWN);
    }
    // inside fused loops, their variables hold one value in an iteration
    let is_var = |n: &str| {
        early
            .outers
            .iter()
            .any(|o| o.facts.var.as_deref() == Some(n))
    };
    if id < early.l.values.start || early.defined.contains(&id) {
        early.read.push(id);
        return Ok(());
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
    let expr = match (&v.recompute, made) {
        // a constant or cheap value the lowering can read again
        (Some(expr), _) => {
            let mut names = HashSet::new();
            crate::names::idents_in(expr.to_token_stream(), &mut names);
            let stores: HashSet<String> = v
                .deps
                .iter()
                .map(|d| early.view.values[*d].store.to_string())
                .collect();
            if !names
                .iter()
                .all(|n| stores.contains(n) || is_var(n) || stability.same_before(n, early.top))
            {
                return Err(UNKNOWN);
            }
            for &dep in &v.deps {
                value_before(dep, early, stability)?;
            }
            expr.to_token_stream()
        }
        // an operation after the loop on values known before it: the
        // same operation on the same inputs, evaluated before
        (None, Some(op)) => {
            let OpKind::Rule(name) = op.kind else {
                return Err(UNKNOWN);
            };
            let mut args = Vec::with_capacity(op.inputs.len());
            for input in &op.inputs {
                args.push(match input {
                    Operand::Const(tokens) => tokens.clone(),
                    Operand::Active(dep) | Operand::Stored(dep) => {
                        value_before(*dep, early, stability)?;
                        early.view.values[*dep].store.to_token_stream()
                    }
                    Operand::Array { .. } => return Err(UNKNOWN),
                });
            }
            crate::rules::forward(name, &args).ok_or(UNKNOWN)?
        }
        (None, None) => return Err(UNKNOWN),
    };
    let store = &early.view.values[id].store;
    // a temporary declared at the top of the body and assigned in a
    // nested block: a `let` of it here would shadow that declaration
    if early.view.hoisted.contains(&store.to_string()) {
        return Err("a value its slope reads is declared in a nested block");
    }
    // a name read in place (see `Sweep::lower_operand`) needs no copy
    let expr = (*store != expr.to_string()).then_some(expr);
    early.lets.push((id, expr));
    early.defined.insert(id);
    early.read.push(id);
    Ok(())
}

/// Whether a fused `l` may add into and write the arrays it touches:
/// those made inside it, parameters it only reads, and arrays made
/// earlier at the top level that nothing after the loop writes, or, if
/// the loop writes them, touches. Gives the latter, whose adjoint buffers
/// are then declared before the loop.
fn arrays_allow(
    view: &View<'_>,
    l: &Loop,
    touched: &Touched,
    at: usize,
    index: &TopIndex,
    outer: Option<&Loop>,
) -> Result<Vec<usize>, &'static str> {
    let mut early = Vec::new();
    let mut regions = BTreeSet::new();
    regions_of(l, &mut regions);
    for &array in touched.read.union(&touched.written) {
        let a = &view.arrays[array];
        if a.declare.is_some() {
            return Err("it adds into a knob array's buffer, declared where the reverse starts");
        }
        match a.local {
            Some((region, _)) if regions.contains(&region) => {}
            // a parameter it only reads, that no code after it writes
            None if !touched.written.contains(&array) => {
                let later = index
                    .arrays
                    .get(&array)
                    .is_some_and(|steps| steps.iter().any(|&(j, writes)| j > at && writes));
                if later {
                    return Err("the code after it writes an array it reads");
                }
            }
            // slopes only added (reads) commute with the code after
            // the loop adding more; a write takes the element's
            // adjoint, which must then hold everything after it
            // inside a fused loop: the loop around declared its buffer
            // before it (the later code checked is that of its body)
            Some((0, _)) => {
                let written = touched.written.contains(&array);
                let later = index.arrays.get(&array).is_some_and(|steps| {
                    steps
                        .iter()
                        .any(|&(j, writes)| j > at && (written || writes))
                });
                if later {
                    return Err(
                        "the code after it writes an array it touches, or touches one it writes",
                    );
                }
                if outer.is_none() {
                    early.push(array);
                }
            }
            Some(_) if outer.is_some() => {
                return Err("it touches an array made in the body of the loop around it")
            }
            _ => return Err("it writes an array made outside the function body's top level"),
        }
    }
    Ok(early)
}
