//! A selection: a loop that keeps the largest (or smallest) of the values
//! its iterations make, `m = m.max(x[i])`, `m = f64::min(m, x[i] - c)`,
//! `x.iter().cloned().fold(f64::NEG_INFINITY, f64::max)`.
//!
//! Its plain reverse walks every iteration back, each from what it kept.
//! But `max` and `min` hand their whole adjoint to one input and exactly
//! zero to the other (`rules::max_d0`, `max_d1`: which one is decided by
//! the same test, ties going to the receiver). Walked back from the last
//! iteration, the carried adjoint passes unchanged through every iteration
//! whose rule kept the carried value, reaches the iteration's own value in
//! the last one whose rule took it (the winner), and is exactly zero from
//! there back. The iterations other than the winner's receive a zero
//! adjoint; when the rest of their body is reads of elements (slope 1) and
//! adds, subtractions and negations (slope ±1), a zero adjoint adds exactly
//! `±0` everywhere it reaches, which changes no sum. So the reverse of the
//! winner's iteration alone, seeded with the adjoint after the loop, gives
//! the plain adjoint (if no iteration took its value, the adjoint goes to
//! the value before the loop, as the plain walk passes it).
//!
//! The forward keeps no tape: where each iteration's value can be
//! evaluated again after the loop, the reverse finds the winner then, the
//! iteration whose value equals the result (`reverse/select.rs`); else the
//! forward keeps the winner's iteration, its variable and what its reverse
//! reads, overwritten each time an iteration's rule takes its value.
//!
//! The verdict is yes when:
//!
//! - the loop is a statement of the function body's top level, over a
//!   range (every iteration runs, no early stop), whose variable its body
//!   neither rebinds nor assigns;
//! - its body is operations only, and it carries one binding, whose value
//!   at the end of an iteration is `max` or `min` of its value at the start
//!   and another operand, and is read by nothing else in the body, and
//!   whose value at the start is read by that operation alone;
//! - every other operation is a read of an element or `+`, `-` or a
//!   negation (a slope of `±1`: a zero adjoint through a slope that could
//!   be infinite, `0 · ∞`, would not be zero);
//! - and the values the forward tests to find the winner are written
//!   where the loop runs (none is written inside its consumer).

use super::reads::count_reads;
use super::View;
use crate::record::{Loop, OpKind, Operand, Step, Val, ValueId};

/// What the reverse of a selection needs.
pub struct Selection {
    /// the loop's pattern over its range (a name or `_`)
    pub pat: proc_macro2::TokenStream,
    /// the carried binding's value at the start of an iteration
    pub entry: ValueId,
    /// its value at the end: `max` or `min` of `entry` and `other`
    pub out: ValueId,
    /// the iteration's own value
    pub other: Operand,
    /// `entry`'s place among the rule's inputs (0: the receiver)
    pub at: usize,
    /// `max` (else `min`)
    pub largest: bool,
}

/// The verdict on `l` being a selection (see the module's documentation).
pub fn selection(view: &View<'_>, l: &Loop) -> Result<Selection, &'static str> {
    if l.top.is_none() {
        return Err("only a loop of the function body's top level keeps its winner alone");
    }
    let Some((pat, _)) = &l.range else {
        return Err("it is not a loop over a range");
    };
    // the loop's variable, read at the end of an iteration, is the
    // iteration's own
    let written = pat.to_string();
    if written != "_" && l.facts.var.as_deref() != Some(written.as_str()) {
        return Err("its body rebinds or assigns its variable");
    }
    if !l.steps.iter().all(|s| matches!(s, Step::Op(_))) {
        return Err("its body holds a loop, a branch or a write");
    }
    let [c] = l.carried.as_slice() else {
        return Err("it does not carry exactly one binding");
    };
    let Val::Active(out) = c.end else {
        return Err("the binding it carries is not recorded");
    };
    let mut rule = None;
    for step in &l.steps {
        let Step::Op(op) = step else { continue };
        if op.inputs.iter().any(|i| matches!(i, Operand::Array { .. })) {
            return Err("its body passes an array to a call");
        }
        match &op.kind {
            OpKind::Rule("max" | "min") if op.out == out => rule = Some(op),
            OpKind::Read { .. } | OpKind::Rule("add" | "sub" | "neg") => {}
            _ => return Err("an operation of its body has a slope other than ±1"),
        }
    }
    let Some(op) = rule else {
        return Err("the binding it carries is not its `max` or `min`");
    };
    let is_entry = |i: &Operand| matches!(i, Operand::Active(v) if *v == c.entry);
    let (at, other) = match op.inputs.as_slice() {
        [a, b] if is_entry(a) && !is_entry(b) => (0, b),
        [a, b] if is_entry(b) && !is_entry(a) => (1, a),
        _ => return Err("the binding it carries is not its `max` or `min`"),
    };
    let reads = count_reads(&l.steps);
    if reads.get(&c.entry) != Some(&1) || reads.contains_key(&out) {
        return Err("its body reads the binding it carries elsewhere");
    }
    let tested = [Some(c.entry), Some(out), active(other)];
    if tested.iter().flatten().any(|v| view.inlined.contains(v)) {
        return Err("a value it tests is written inside its consumer");
    }
    Ok(Selection {
        pat: pat.clone(),
        entry: c.entry,
        out,
        other: other.clone(),
        at,
        largest: matches!(op.kind, OpKind::Rule("max")),
    })
}

fn active(operand: &Operand) -> Option<ValueId> {
    match operand {
        Operand::Active(v) => Some(*v),
        _ => None,
    }
}
