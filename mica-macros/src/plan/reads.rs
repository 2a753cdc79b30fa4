//! Who reads what in a stretch of the record: the counts the fusion and
//! forward-walk verdicts ask.

use crate::record::{OpKind, Operand, Step, Val, ValueId};
use std::collections::{BTreeSet, HashMap};

/// The arrays some steps read and write.
#[derive(Default)]
pub(super) struct Touched {
    pub(super) read: BTreeSet<usize>,
    pub(super) written: BTreeSet<usize>,
    /// no array value carried by a loop or out of a branch (meaningful
    /// only if it started `true`)
    pub(super) ok: bool,
}

/// How many times `steps` read each recorded value (see [`scan`]).
pub(super) fn count_reads(steps: &[Step]) -> HashMap<ValueId, usize> {
    let mut reads = HashMap::new();
    scan(steps, &mut reads, &mut Touched::default());
    reads
}

/// Counts the recorded values `steps` read (into `reads`) and notes the
/// arrays they read and write; clears `touched.ok` where a loop or branch
/// carries an array value.
pub(super) fn scan(steps: &[Step], reads: &mut HashMap<ValueId, usize>, touched: &mut Touched) {
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
                scan(&inner.steps, reads, touched);
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
                    scan(arm, reads, touched);
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
                read(value, reads);
            }
            Step::Copy { to, from, prefix } => {
                touched.written.insert(*to);
                touched.read.insert(*from);
                for i in prefix {
                    read(i, reads);
                }
            }
            Step::Swap { a, b } => {
                for array in [a, b] {
                    touched.read.insert(*array);
                    touched.written.insert(*array);
                }
            }
            Step::CallInto(c) => {
                // the result's adjoint is read as the callee's seed
                touched.read.insert(c.array);
                touched.written.insert(c.array);
                for input in &c.inputs {
                    read(input, reads);
                    if let Operand::Array { array, .. } = input {
                        touched.read.insert(*array);
                    }
                }
            }
        }
    }
}

/// The recorded scalars of a value (into `out`); `false` for an array,
/// which a fused loop does not carry.
pub(super) fn active_ids(val: &Val, out: &mut Vec<ValueId>) -> bool {
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

/// Whether `end` is `entry` plus terms on every path through a loop's body
/// `steps`, each sum along the way read only by the next: made at the
/// body's own level, or in the arms of its branches, by `u + x`, `x + u` or
/// `u - x` from `entry` or from such a sum, with an arm that leaves the
/// binding alone giving the sum it found (`if c { continue; } total += x;`,
/// `total += a; total += b;`, `if c { total += a } else { total -= b }`),
/// or by an inner loop whose own iterations sum into it the same way.
/// Then every version of the binding in an iteration has the adjoint of
/// `end`. `reads` counts every read of the body (and the carried `end`
/// once); each sum of the chain, `entry` too, must be read as often as the
/// chain reads it, so no term reads one.
pub(super) fn summed(
    steps: &[Step],
    end: ValueId,
    entry: ValueId,
    reads: &HashMap<ValueId, usize>,
) -> bool {
    let mut uses = HashMap::new();
    chain(&[steps], end, entry, &mut uses)
        && uses
            .iter()
            .all(|(v, n)| reads.get(v).copied().unwrap_or(0) == *n)
}

/// Whether `v` is a sum of `entry` through `scopes` (innermost last),
/// counting into `uses` each read of a sum the chain makes, `v`'s own by
/// its reader among them. A sum already found (two arms leave the binding
/// as one sum before them) counts one more read, not its chain again.
fn chain(
    scopes: &[&[Step]],
    v: ValueId,
    entry: ValueId,
    uses: &mut HashMap<ValueId, usize>,
) -> bool {
    let found = uses.contains_key(&v);
    *uses.entry(v).or_insert(0) += 1;
    if v == entry || found {
        return true;
    }
    for (depth, steps) in scopes.iter().enumerate().rev() {
        for step in steps.iter() {
            match step {
                Step::Op(op) if op.out == v => {
                    let inner = &scopes[..=depth];
                    return match (&op.kind, op.inputs.as_slice()) {
                        (OpKind::Rule("add"), [a, b]) => {
                            // the chain goes on through one operand: the
                            // other is a term
                            [a, b].into_iter().any(|u| {
                                let Operand::Active(u) = u else { return false };
                                let mut tried = uses.clone();
                                let ok = chain(inner, *u, entry, &mut tried);
                                if ok {
                                    *uses = tried;
                                }
                                ok
                            })
                        }
                        (OpKind::Rule("sub"), [Operand::Active(u), _]) => {
                            chain(inner, *u, entry, uses)
                        }
                        _ => false,
                    };
                }
                // an inner loop that only sums into the binding too
                // (`for j in 0..d { total += … }`): its exit is a sum of
                // what it found before it
                Step::Loop(l) => {
                    let Some(c) = l.carried.iter().find(|c| c.exit == v) else {
                        continue;
                    };
                    let (Val::Active(before), Val::Active(end)) = (&c.before, &c.end) else {
                        return false;
                    };
                    return chain(&[&l.steps], *end, c.entry, uses)
                        && chain(&scopes[..=depth], *before, entry, uses);
                }
                Step::Branch(b) => {
                    let Some(merge) = b.merges.iter().find(|m| m.out == v) else {
                        continue;
                    };
                    if b.arms.len() != merge.per_arm.len() {
                        return false;
                    }
                    return b.arms.iter().zip(&merge.per_arm).all(|((_, arm), val)| {
                        let Val::Active(u) = val else { return false };
                        let mut inner = scopes[..=depth].to_vec();
                        inner.push(arm);
                        chain(&inner, *u, entry, uses)
                    });
                }
                _ => {}
            }
        }
    }
    false
}
