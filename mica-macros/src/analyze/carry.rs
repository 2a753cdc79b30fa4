//! Neighbouring elements read by a fused loop: which slopes may wait in a
//! register for the next iteration.
//!
//! A loop over `lo..hi` whose body reads `w[i]` and `w[i + 1]` (chained
//! objectives, finite differences) adds, in iteration `i`, a slope into
//! `w`'s adjoint at `i` and one at `i + 1`; iteration `i + 1` adds into
//! `i + 1` again. When the loop is fused (`plan/fuse.rs`), its reverse runs
//! inside each iteration, and the element `i + 1`'s part can instead be
//! kept in a register and added, with the next iteration's own part, in a
//! single store: one read-modify-write per element instead of two, and no
//! store that the next iteration must load back.
//!
//! The slopes are the same sums, added in another order, when:
//!
//! - the loop walks a range `lo..hi` forward, one step at a time (the
//!   iteration after `i` is `i + 1`, so its lower element is the upper
//!   element of `i`);
//! - every access of the body to the array is a read of one element at the
//!   body's own level (not in an `if` arm, a `match` arm or an inner loop,
//!   which may not run in every iteration: a `continue` puts what follows
//!   it in such an arm), at `i + c` or `i + c + 1` for one constant `c`
//!   (the same invariant terms in all of them), both present;
//! - the array is read only: no write, increment, fill, copy, swap, call
//!   or row passed anywhere in the body;
//! - no other array's adjoint is the same buffer or a part of it.
//!
//! What waits when the loop ends (it may `break`) is added after it, into
//! the upper element of the last iteration that ran.

use super::dependence::{collect, subscript};
use crate::facts::loops::Linear;
use crate::record::{Array, ArrayId, Loop, OpKind, Operand, Step, Value, ValueId};
use std::collections::BTreeMap;

/// An array whose upper neighbour's slope is carried.
pub struct Carry {
    pub array: ArrayId,
    /// the reads at `i + c`, by the value each makes
    pub lower: Vec<ValueId>,
    /// the reads at `i + c + 1`
    pub upper: Vec<ValueId>,
    /// the subscripts of a lower and of an upper read
    pub at: (Operand, Operand),
}

/// A read of one element: its subscript as a linear form with the loop
/// variable's coefficient 1 (or `None`), the value read, the subscript as
/// recorded.
type Read<'l> = (Option<Linear>, ValueId, &'l Operand);

/// The arrays of `l`'s body whose slopes may be carried (see the module's
/// documentation). Only asked of a loop the plan fuses.
pub fn of(l: &Loop, values: &[Value], arrays: &[Array]) -> Vec<Carry> {
    if l.facts.range.is_none() || l.facts.var.is_none() {
        return Vec::new();
    }
    let mut accesses = Vec::new();
    collect(&l.steps, l, values, &mut accesses);
    // the body's own reads of one element, by array
    let mut reads: BTreeMap<ArrayId, Vec<Read>> = BTreeMap::new();
    for step in &l.steps {
        let Step::Op(op) = step else { continue };
        let OpKind::Read { array, indices } = &op.kind else {
            continue;
        };
        let at = match indices.as_slice() {
            [index] => subscript(index, l, values).filter(|s| s.var == 1),
            _ => None,
        };
        reads
            .entry(*array)
            .or_default()
            .push((at, op.out, &indices[0]));
    }
    let mut out = Vec::new();
    for (array, list) in reads {
        // every access of the body to the array is one of these reads
        // (so none writes it), each at `i + c` with the same terms
        let count = accesses.iter().filter(|a| a.array == array).count();
        let Some(Some(first)) = list.first().map(|(at, ..)| at) else {
            continue;
        };
        if count != list.len()
            || !list
                .iter()
                .all(|(at, ..)| at.as_ref().is_some_and(|at| at.terms == first.terms))
        {
            continue;
        }
        let offset = |(at, ..): &&Read| at.as_ref().map_or(0, |at| at.constant);
        let Some(low) = list.iter().map(|r| offset(&r)).min() else {
            continue;
        };
        let (Some(a), Some(b)) = (
            list.iter().find(|r| offset(r) == low),
            list.iter().find(|r| offset(r) == low + 1),
        ) else {
            continue;
        };
        if list.iter().any(|r| offset(&r) > low + 1) || !alone(array, arrays) {
            continue;
        }
        let pick = |k: i128| {
            list.iter()
                .filter(|r| offset(r) == k)
                .map(|r| r.1)
                .collect()
        };
        out.push(Carry {
            array,
            lower: pick(low),
            upper: pick(low + 1),
            at: (a.2.clone(), b.2.clone()),
        });
    }
    out
}

/// Whether `array`'s adjoint buffer is its own: a parameter's, which no
/// other array's buffer is, contains or lies in.
fn alone(array: ArrayId, arrays: &[Array]) -> bool {
    let a = &arrays[array];
    if a.local.is_some() || a.rank != 1 {
        return false;
    }
    let acc = a.acc.to_string();
    arrays.iter().enumerate().all(|(k, other)| {
        let other = other.acc.to_string();
        k == array || !(other.starts_with(&acc) || acc.starts_with(&other))
    })
}
