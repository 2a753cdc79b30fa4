//! Arrays whose adjoint nothing adds into. A local array is read through
//! its elements (`w[i]`), copied from, swapped, or passed to a call; where
//! none of these is left in the record (each element read at a literal
//! index was taken straight from the literal that made it,
//! `lower/rebuild.rs`), its adjoint stays zero from where the reverse makes
//! it to where it ends. The reverse of a write into it then hands the
//! written value a zero: it is left out, and the element's zeroing with it.
//! Nothing else reads its buffer, which is not made. The plain adjoint
//! writes every such reverse.

use crate::record::{ArrayId, OpKind, Operand, Record, Step, Val};
use std::collections::HashSet;

/// The local arrays of `record` no step adds an adjoint into.
pub(super) fn arrays(record: &Record<'_>, steps: &[Step]) -> HashSet<ArrayId> {
    let mut receive = HashSet::new();
    walk(steps, &mut receive);
    (0..record.arrays.len())
        .filter(|a| record.arrays[*a].local.is_some() && !receive.contains(a))
        .collect()
}

fn operands(inputs: &[Operand], receive: &mut HashSet<ArrayId>) {
    for input in inputs {
        if let Operand::Array { array, .. } = input {
            receive.insert(*array);
        }
    }
}

fn val(v: &Val, receive: &mut HashSet<ArrayId>) {
    match v {
        Val::Array { array, .. } => {
            receive.insert(*array);
        }
        Val::Tuple(items) => items.iter().for_each(|v| val(v, receive)),
        Val::Const | Val::Active(_) => {}
    }
}

fn walk(steps: &[Step], receive: &mut HashSet<ArrayId>) {
    for step in steps {
        match step {
            Step::Op(op) => {
                if let OpKind::Read { array, .. } = &op.kind {
                    receive.insert(*array);
                }
                operands(&op.inputs, receive);
            }
            Step::Loop(l) => {
                walk(&l.steps, receive);
                for c in &l.carried {
                    val(&c.end, receive);
                    val(&c.before, receive);
                }
            }
            Step::Branch(b) => {
                for (_, arm) in &b.arms {
                    walk(arm, receive);
                }
                for m in &b.merges {
                    m.per_arm.iter().for_each(|v| val(v, receive));
                }
            }
            // (the array a call's value goes into, and the array a copy
            // goes into, hand their adjoints on: kept as they are)
            Step::CallInto(c) => {
                operands(&c.inputs, receive);
                receive.insert(c.array);
            }
            Step::Copy { to, from, .. } => {
                receive.extend([*to, *from]);
            }
            Step::Swap { a, b } => {
                receive.extend([*a, *b]);
            }
            Step::Write { .. } | Step::Increment { .. } | Step::Fill { .. } => {}
        }
    }
}
