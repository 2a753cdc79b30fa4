//! Two verdicts about a loop over a range: is its body straight-line code
//! whose indices are all read again (what the slices and the forward walk
//! build on), and may its reverse walk the iterations first to last?
//! (Why a forward walk gives the same gradients: `reverse/forward.rs`.)
//!
//! Straight-line access: the loop is over a range, its body is operations
//! and element writes (no inner loop, branch or call that takes an array),
//! and every index is read again in the reverse with no kept input.
//!
//! Forward walk, besides:
//!
//! - every carried binding that holds a recorded value ends each iteration
//!   as `entry + x`, `x + entry` or `entry - x`, and neither its value at the
//!   start of the iteration nor that sum is read anywhere else in the body,
//!   so its adjoint passes through each iteration unchanged;
//! - the body reads no recorded value made outside it (whose adjoint would
//!   be a sum over iterations, added in another order);
//! - no element of an array is touched by two iterations, reads included
//!   (the dependence analysis, `analyze/dependence.rs`);
//! - and, decided where the reverse is written: its reverse keeps nothing
//!   per iteration (everything it reads is read again).

use super::reads::{count_reads, sums_into};
use super::View;
use crate::record::{Loop, OpKind, Operand, Step, Val, ValueId};
use std::collections::BTreeMap;

/// How a loop body whose indices are all read again touches arrays.
pub struct Access {
    /// array → the indices of each access: values the reverse reads again
    pub arrays: BTreeMap<usize, Vec<Vec<ValueId>>>,
}

/// The verdict on `l`'s body being straight-line code read again.
pub fn access(view: &View<'_>, l: &Loop) -> Result<Access, &'static str> {
    if l.range.is_none() {
        return Err("it is not a loop over a range");
    }
    // straight-line code: operations and element writes
    if l.steps
        .iter()
        .any(|s| !matches!(s, Step::Op(_) | Step::Write { .. } | Step::Increment { .. }))
    {
        return Err("its body holds a loop, a branch or a fill");
    }
    let mut arrays: BTreeMap<usize, Vec<Vec<ValueId>>> = BTreeMap::new();
    for step in &l.steps {
        let (array, indices) = match step {
            // a call that adds into an array's buffer: not followed
            Step::Op(op) if op.inputs.iter().any(|i| matches!(i, Operand::Array { .. })) => {
                return Err("its body passes an array to a call")
            }
            Step::Op(op) => match &op.kind {
                OpKind::Read { array, indices } => (*array, indices),
                _ => continue,
            },
            Step::Write { array, indices, .. } | Step::Increment { array, indices, .. } => {
                (*array, indices)
            }
            _ => continue,
        };
        arrays
            .entry(array)
            .or_default()
            .push(indices_again(view, indices).ok_or("an index is not read again")?);
    }
    Ok(Access { arrays })
}

/// The values holding an element's indices, if the reverse reads them all
/// again without kept inputs.
fn indices_again(view: &View<'_>, indices: &[Operand]) -> Option<Vec<ValueId>> {
    indices
        .iter()
        .map(|index| {
            let Operand::Stored(id) = index else {
                return None;
            };
            let value = &view.values[*id];
            (value.deps.is_empty() && value.recompute.is_some()).then_some(*id)
        })
        .collect()
}

/// The verdict on walking `l`'s reverse first to last, for a loop whose
/// access is straight-line (see the module's documentation).
pub fn forward(view: &View<'_>, l: &Loop) -> Result<(), &'static str> {
    let reads = count_reads(&l.steps);
    // whether every recorded value the body reads was made in it
    if !reads.keys().all(|v| view.values[*v].region == l.region) {
        return Err("its body reads a recorded value made outside it");
    }
    // no element that two iterations touch (see `analyze/dependence.rs`)
    if !crate::analyze::dependence::of(l, view.values, view.arrays)
        .shared
        .is_empty()
    {
        return Err("two of its iterations may touch one element");
    }
    let carried = l.carried.iter().all(|c| match c.end {
        Val::Active(end) => {
            // the sum's one reader is the carried binding itself
            !reads.contains_key(&end)
                && reads.get(&c.entry) == Some(&1)
                && sums_into(&l.steps, end, c.entry)
        }
        _ => false,
    });
    if !carried {
        return Err("a binding it carries is not only summed");
    }
    Ok(())
}
