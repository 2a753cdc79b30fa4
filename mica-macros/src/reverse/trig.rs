//! `x.sin()` and `x.cos()` of one recorded `x`: each one's slope is the
//! other's value. Where the function made both (`x.sin_cos()`, a rotation
//! written with both, a Newton step on Kepler's equation), the reverse reads
//! the other's value instead of computing it again, when it can: the other
//! must have run wherever this one did, and be there to read. The values
//! are the same either way; the plain adjoint computes every slope as its
//! rule says.

use super::Gen;
use crate::record::{OpKind, Operand, Step, ValueId};
use std::collections::HashMap;

/// Every `x.sin()` and `x.cos()` of a recorded `x` in `steps`, at any
/// depth: (x, rule) → the first such value.
pub(super) fn values(steps: &[Step], out: &mut HashMap<(ValueId, &'static str), ValueId>) {
    for step in steps {
        match step {
            Step::Op(op) => {
                if let (OpKind::Rule(name @ ("sin" | "cos")), [Operand::Active(x)]) =
                    (&op.kind, op.inputs.as_slice())
                {
                    out.entry((*x, *name)).or_insert(op.out);
                }
            }
            Step::Loop(l) => values(&l.steps, out),
            Step::Branch(b) => {
                for (_, arm) in &b.arms {
                    values(arm, out);
                }
            }
            _ => {}
        }
    }
}

impl Gen<'_> {
    /// For `x.sin()` (`x.cos()`): the `x.cos()` (`x.sin()`) of the same `x`
    /// whose value the reverse can read here. It must be made in a region
    /// whose reverse is being written (there it ran wherever this operation
    /// did), and not be written inside its consumer's expression (then it
    /// has no name). Inside a fused loop's body, whose reverse runs before
    /// the forward sweep has finished the regions around the loop, one of
    /// those must have made it already.
    pub(super) fn trig_sibling(&self, op: &crate::record::Op, name: &str) -> Option<ValueId> {
        let [Operand::Active(x)] = op.inputs.as_slice() else {
            return None;
        };
        let other = match name {
            "sin" => "cos",
            "cos" => "sin",
            _ => return None,
        };
        let sibling = *self.trig.get(&(*x, other))?;
        if self.record.inlined.contains(&sibling) {
            return None;
        }
        let at = self
            .open
            .iter()
            .rposition(|&r| r == self.record.values[sibling].region)?;
        let made = sibling < op.out || self.fused_at.is_none_or(|f| at >= f);
        made.then_some(sibling)
    }
}
