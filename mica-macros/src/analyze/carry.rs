//! Neighbouring elements read by a loop over a range: which slopes may wait
//! in registers for the next iteration of its reverse.
//!
//! A loop over `lo..hi` whose body reads `w[i - 1]`, `w[i]` and `w[i + 1]`
//! (a stencil, a chained objective, a finite difference) adds, in the
//! reverse of iteration `i`, a slope into `w`'s adjoint at each of the three
//! elements; the reverse of the next iteration walked adds into two of them
//! again. Those parts can instead wait in registers: each element's slope
//! is stored once, when the last iteration that reads it has added its
//! part, with one read-modify-write per element instead of three, and no
//! store that the next iteration must load back.
//!
//! Which iteration is the last to touch an element depends on the order the
//! reverse walks: last to first for a loop walked back (the window's upper
//! element is done after each iteration), first to last for a fused loop or
//! one walked forward (its lower element is done).
//!
//! The slopes are the same sums, added in another order, when:
//!
//! - the loop walks a range `lo..hi`, one step at a time, and its reverse
//!   walks it one step at a time too (its variable is its counter);
//! - the window is two or three neighbouring elements, each read at the
//!   body's own level (not in an `if` arm, a `match` arm or an inner loop,
//!   which may not run in every iteration: a `continue` puts what follows
//!   it in such an arm), at `i + c`, `i + c + 1` (and `i + c + 2`) for one
//!   constant `c` (the same invariant terms in all of them);
//! - the array is read only: no write, increment, fill, copy, swap or
//!   result of a call anywhere in the body, so that nothing in the body
//!   reads or zeroes its adjoint (other reads of it, in arms, inner loops,
//!   calls or at other elements, add into the buffer, which the registers
//!   also only add into);
//! - no other array's adjoint is the same buffer or a part of it, and the
//!   buffer is not made in the body (a parameter's, or an array made before
//!   the loop; a fused loop's registers are made before its forward sweep,
//!   where only a parameter's buffer is sure to be).
//!
//! What waits when the loop's reverse ends is added after it, into the
//! elements of the last iteration walked.

use super::dependence::{collect, subscript};
use crate::facts::loops::Linear;
use crate::record::{Array, ArrayId, Loop, OpKind, Operand, Step, Value, ValueId};
use std::collections::{BTreeMap, BTreeSet};

/// An array whose slopes at neighbouring elements wait in registers.
pub struct Carry {
    pub array: ArrayId,
    /// the reads of the window's elements by the value each makes, lowest
    /// element first: at `i + c`, `i + c + 1` (, `i + c + 2`)
    pub reads: Vec<Vec<ValueId>>,
    /// a read's subscript at each of the window's elements, as recorded
    pub at: Vec<Operand>,
}

/// A read of one element: its subscript as a linear form with the loop
/// variable's coefficient 1 (or `None`), the value read, the subscript as
/// recorded.
type Read<'l> = (Option<Linear>, ValueId, &'l Operand);

/// The widest window, in elements.
const WIDEST: usize = 3;

/// The arrays of `l`'s body whose slopes may wait in registers (see the
/// module's documentation), `fused` for a loop whose reverse runs inside
/// its forward sweep.
pub fn of(l: &Loop, values: &[Value], arrays: &[Array], fused: bool) -> Vec<Carry> {
    if l.facts.range.is_none() || l.facts.var.is_none() {
        return Vec::new();
    }
    let mut accesses = Vec::new();
    collect(&l.steps, l, values, &mut accesses);
    let written: BTreeSet<ArrayId> = accesses
        .iter()
        .filter(|a| a.writes)
        .map(|a| a.array)
        .collect();
    let mut regions = BTreeSet::new();
    crate::record::regions_of(l, &mut regions);
    // the body's own reads of one element, by array
    let mut reads: BTreeMap<ArrayId, Vec<Read>> = BTreeMap::new();
    for step in &l.steps {
        let Step::Op(op) = step else { continue };
        let OpKind::Read { array, indices } = &op.kind else {
            continue;
        };
        let [index] = indices.as_slice() else {
            continue;
        };
        let at = subscript(index, l, values).filter(|s| s.var == 1);
        reads.entry(*array).or_default().push((at, op.out, index));
    }
    let mut out = Vec::new();
    for (array, list) in reads {
        if written.contains(&array) || !alone(array, arrays, &regions, fused) {
            continue;
        }
        if let Some((terms, low, width)) = window(&list) {
            let in_window = |k: i128| -> Vec<&Read> {
                list.iter()
                    .filter(|(at, ..)| {
                        at.as_ref()
                            .is_some_and(|at| at.terms == *terms && at.constant == k)
                    })
                    .collect()
            };
            let (mut reads, mut at) = (Vec::new(), Vec::new());
            for k in low..low + width as i128 {
                let these = in_window(k);
                at.push(these[0].2.clone());
                reads.push(these.iter().map(|r| r.1).collect());
            }
            out.push(Carry { array, reads, at });
        }
    }
    out
}

/// The widest window among `list`'s subscripts: its invariant terms, the
/// lowest element's constant and the width (2 or 3). Among windows as
/// wide, the one with the most reads, then the lowest.
fn window<'l>(list: &'l [Read]) -> Option<(&'l BTreeMap<String, i128>, i128, usize)> {
    // each group of subscripts with the same invariant terms: the reads at
    // each constant
    let mut groups: BTreeMap<&BTreeMap<String, i128>, BTreeMap<i128, usize>> = BTreeMap::new();
    for at in list.iter().filter_map(|(at, ..)| at.as_ref()) {
        *groups
            .entry(&at.terms)
            .or_default()
            .entry(at.constant)
            .or_default() += 1;
    }
    let mut best: Option<(usize, usize, &BTreeMap<String, i128>, i128)> = None;
    for (terms, counts) in groups {
        for &low in counts.keys() {
            let (mut width, mut many) = (0, 0);
            while let Some(n) = counts
                .get(&(low + width as i128))
                .filter(|_| width < WIDEST)
            {
                many += n;
                width += 1;
            }
            if width >= 2 && best.is_none_or(|(w, m, ..)| (width, many) > (w, m)) {
                best = Some((width, many, terms, low));
            }
        }
    }
    best.map(|(width, _, terms, low)| (terms, low, width))
}

/// Whether `array`'s adjoint buffer is its own: no other array's buffer is
/// it, contains it or lies in it; and it is not made in the loop (whose
/// regions are `regions`): a parameter's, or for a loop not `fused`, an
/// array's made before the loop.
fn alone(array: ArrayId, arrays: &[Array], regions: &BTreeSet<usize>, fused: bool) -> bool {
    let a = &arrays[array];
    if a.rank != 1 {
        return false;
    }
    match a.local {
        Some(_) if fused => return false,
        Some((region, _)) if regions.contains(&region) => return false,
        _ => {}
    }
    let acc = a.acc.to_string();
    arrays.iter().enumerate().all(|(k, other)| {
        let other = other.acc.to_string();
        k == array || !(within(&acc, &other) || within(&other, &acc))
    })
}

/// Whether the buffer written `inner` is `outer` or a part of it: `outer`
/// followed by nothing, or by what is not part of a name.
fn within(outer: &str, inner: &str) -> bool {
    inner.strip_prefix(outer).is_some_and(|rest| {
        !rest
            .chars()
            .next()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}
