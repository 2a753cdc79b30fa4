//! Dependences between a loop's iterations through arrays.
//!
//! Every access of a loop body to an array (an element read, a write, an
//! increment, a fill, an array or row handed to a call) is read as the
//! array and its subscripts, each a linear form in the loop's variable
//! (`facts/loops.rs`) or unknown. Two accesses of one array in two
//! different iterations touch different elements only where a subscript
//! position proves it. Where one of them writes, an unproven pair is a
//! dependence between iterations: with the other reading, a flow or anti
//! dependence (`h[i] = h[i - 1] * w`, `t = h[i + 1]; h[i] = …`: a value
//! passes from one iteration to another); with both writing, an output
//! dependence (`h[0] = …` in every iteration: each iteration's reads see its
//! own write). Arrays made inside the body are new in every iteration and
//! carry nothing from one to the next.

use crate::facts::loops::{apart, linear, Linear};
use crate::lower::{Array, ArrayId, Loop, OpKind, Operand, Step, Value};
use std::collections::{BTreeMap, BTreeSet};

/// One access of a loop body to an array.
struct Access {
    array: ArrayId,
    /// the subscripts, outermost first (`None`: unknown); fewer than the
    /// array's rank for a row or a whole array
    at: Vec<Option<Linear>>,
    writes: bool,
}

/// What a loop's iterations share through arrays.
pub struct Dependences {
    /// arrays an iteration writes at an element another iteration may
    /// read (a flow or anti dependence)
    pub carried: BTreeSet<ArrayId>,
    /// arrays an iteration writes at an element another iteration may
    /// write too (an output dependence)
    pub output: BTreeSet<ArrayId>,
    /// arrays some element of which two iterations may touch, reads
    /// included
    pub shared: BTreeSet<ArrayId>,
}

/// The dependences between the iterations of `l`.
pub fn of(l: &Loop, values: &[Value], arrays: &[Array]) -> Dependences {
    let mut accesses = Vec::new();
    collect(&l.steps, l, values, &mut accesses);
    let mut regions = BTreeSet::new();
    crate::lower::regions_of(l, &mut regions);
    let mut by_array: BTreeMap<ArrayId, Vec<&Access>> = BTreeMap::new();
    for a in &accesses {
        // made inside the body: a new array in every iteration
        let fresh = matches!(arrays[a.array].local, Some((region, _)) if regions.contains(&region));
        if !fresh {
            by_array.entry(a.array).or_default().push(a);
        }
    }
    let mut deps = Dependences {
        carried: BTreeSet::new(),
        output: BTreeSet::new(),
        shared: BTreeSet::new(),
    };
    for (array, list) in by_array {
        for (k, a) in list.iter().enumerate() {
            for b in &list[k..] {
                if apart(&a.at, &b.at) {
                    continue;
                }
                deps.shared.insert(array);
                match (a.writes, b.writes) {
                    (true, true) => deps.output.insert(array),
                    (false, false) => false,
                    _ => deps.carried.insert(array),
                };
            }
        }
    }
    deps
}

fn collect(steps: &[Step], l: &Loop, values: &[Value], out: &mut Vec<Access>) {
    let at = |indices: &[Operand]| -> Vec<Option<Linear>> {
        indices.iter().map(|i| subscript(i, l, values)).collect()
    };
    for step in steps {
        match step {
            Step::Op(op) => {
                if let OpKind::Read { array, indices } = &op.kind {
                    out.push(Access {
                        array: *array,
                        at: at(indices),
                        writes: false,
                    });
                }
                for input in &op.inputs {
                    if let Operand::Array { array, prefix, .. } = input {
                        out.push(Access {
                            array: *array,
                            at: at(prefix),
                            writes: false,
                        });
                    }
                }
            }
            Step::Write { array, indices, .. } | Step::Increment { array, indices, .. } => out
                .push(Access {
                    array: *array,
                    at: at(indices),
                    writes: true,
                }),
            Step::Fill { array, .. } => out.push(Access {
                array: *array,
                at: Vec::new(),
                writes: true,
            }),
            Step::Loop(inner) => collect(&inner.steps, l, values, out),
            Step::Branch(b) => {
                for (_, arm) in &b.arms {
                    collect(arm, l, values, out);
                }
            }
        }
    }
}

/// A subscript of an access in `l` as a linear form in `l`'s variable: a
/// literal, or an integer the body evaluated from its syntax in the same
/// iteration.
fn subscript(index: &Operand, l: &Loop, values: &[Value]) -> Option<Linear> {
    match index {
        Operand::Const(tokens) => {
            let lit: syn::LitInt = syn::parse2(tokens.clone()).ok()?;
            Some(Linear::constant(lit.base10_parse().ok()?))
        }
        Operand::Stored(id) if l.values.contains(id) => {
            linear(values[*id].syntax.as_ref()?, &l.facts)
        }
        _ => None,
    }
}
