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
//!
//! Neither does an array each iteration renews before it reads it: a
//! scratch array made before the loop, whose every element in `lo..hi` an
//! inner loop `for j in lo..hi { x[j] = …; }` at the top of the iteration
//! writes (with `lo` and `hi` the same in every iteration) before anything
//! else in the iteration touches the array, and which the rest of the
//! iteration writes only inside `0..hi`, through the counters of inner loops
//! over ranges ending at `hi` (`for b in a + 1..hi { x[b] += …; }`). A read
//! of it then sees the value its own iteration wrote, or one no iteration
//! writes.

use crate::facts::loops::{apart, linear, Linear, LoopFacts};
use crate::record::{Array, ArrayId, Loop, OpKind, Operand, Step, Value};
use std::collections::{BTreeMap, BTreeSet};

/// One access of a loop body to an array.
pub(crate) struct Access {
    pub array: ArrayId,
    /// the subscripts, outermost first (`None`: unknown); fewer than the
    /// array's rank for a row or a whole array
    pub at: Vec<Option<Linear>>,
    pub writes: bool,
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
    crate::record::regions_of(l, &mut regions);
    let mut by_array: BTreeMap<ArrayId, Vec<&Access>> = BTreeMap::new();
    for a in &accesses {
        // made inside the body: a new array in every iteration
        let fresh = matches!(arrays[a.array].local, Some((region, _)) if regions.contains(&region));
        if !fresh {
            by_array.entry(a.array).or_default().push(a);
        }
    }
    let renewed = renewed(l, values, arrays);
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
                    _ if renewed.contains(&array) => false,
                    _ => deps.carried.insert(array),
                };
            }
        }
    }
    deps
}

/// The arrays every iteration of `l` renews before it reads them (see the
/// module's documentation), or every iteration of a loop inside `l` that
/// holds every access of `l` to them.
fn renewed(l: &Loop, values: &[Value], arrays: &[Array]) -> BTreeSet<ArrayId> {
    let count = |steps: &[Step], array: ArrayId| {
        let mut found = Vec::new();
        collect(steps, l, values, &mut found);
        found.iter().filter(|a| a.array == array).count()
    };
    let mut loops = vec![l];
    loops_in(&l.steps, &mut loops);
    let mut out = BTreeSet::new();
    for (k, c) in loops.iter().enumerate() {
        for array in renewed_by(c, l, values, arrays) {
            if k == 0 || count(&c.steps, array) == count(&l.steps, array) {
                out.insert(array);
            }
        }
    }
    out
}

fn loops_in<'l>(steps: &'l [Step], out: &mut Vec<&'l Loop>) {
    for step in steps {
        match step {
            Step::Loop(inner) => {
                out.push(inner);
                loops_in(&inner.steps, out);
            }
            Step::Branch(b) => {
                for (_, arm) in &b.arms {
                    loops_in(arm, out);
                }
            }
            _ => {}
        }
    }
}

/// The arrays every iteration of `c` (`l` or a loop inside it) renews:
/// an inner loop at the top of `c`'s body writes them over a range the
/// same in every iteration of `l`.
fn renewed_by(c: &Loop, l: &Loop, values: &[Value], arrays: &[Array]) -> BTreeSet<ArrayId> {
    let mut out = BTreeSet::new();
    for (p, step) in c.steps.iter().enumerate() {
        let Step::Loop(m) = step else { continue };
        let Some((lo, hi)) = &m.facts.range else {
            continue;
        };
        // the range is the same in every iteration of `l`
        let (Some(lo), Some(hi)) = (linear(lo, &l.facts), linear(hi, &l.facts)) else {
            continue;
        };
        if lo.var != 0 || hi.var != 0 {
            continue;
        }
        for s in &m.steps {
            let Step::Write { array, indices, .. } = s else {
                continue;
            };
            if arrays[*array].rank != 1 || indices.len() != 1 {
                continue;
            }
            if !counts(&indices[0], m, values) {
                continue;
            }
            // nothing before `m` touches it, and nothing in `m` but the write
            let touches = |steps: &[Step]| {
                let mut found = Vec::new();
                collect(steps, l, values, &mut found);
                found.iter().filter(|a| a.array == *array).count()
            };
            if touches(&c.steps[..p]) != 0 || touches(&m.steps) != 1 {
                continue;
            }
            let mut nest = Vec::new();
            let zero = lo.as_constant() == Some(0);
            if writes_inside(&c.steps[p + 1..], *array, (zero, &hi), l, values, &mut nest) {
                out.insert(*array);
            }
        }
    }
    out
}

/// Whether `index` is the counter of `m`, evaluated in `m`'s iteration.
fn counts(index: &Operand, m: &Loop, values: &[Value]) -> bool {
    counter_of(index, m.values.clone(), &m.facts, values)
}

fn counter_of(
    index: &Operand,
    made: std::ops::Range<usize>,
    facts: &LoopFacts,
    values: &[Value],
) -> bool {
    match index {
        Operand::Stored(id) if made.contains(id) => values[*id]
            .syntax
            .as_ref()
            .and_then(|e| linear(e, facts))
            .is_some_and(|f| f.is_counter()),
        _ => false,
    }
}

/// Whether every write of `array` in `steps` (inside `l`, under the inner
/// loops `nest`) lands in `0..hi` (`zero`: the renewing loop starts at
/// `0`): at the counter of an enclosing inner loop whose range ends at `hi`.
fn writes_inside<'l>(
    steps: &'l [Step],
    array: ArrayId,
    (zero, hi): (bool, &Linear),
    l: &Loop,
    values: &[Value],
    nest: &mut Vec<&'l Loop>,
) -> bool {
    steps.iter().all(|step| match step {
        Step::Write {
            array: a, indices, ..
        }
        | Step::Increment {
            array: a, indices, ..
        } if *a == array => {
            zero && indices.len() == 1
                && nest.iter().any(|k| {
                    k.facts.range.as_ref().is_some_and(|(_, end)| {
                        linear(end, &l.facts).as_ref() == Some(hi)
                            && counter_of(&indices[0], k.values.clone(), &k.facts, values)
                    })
                })
        }
        Step::Fill { array: a, .. }
        | Step::Copy { to: a, .. }
        | Step::CallInto(crate::record::CallInto { array: a, .. }) => *a != array,
        Step::Swap { a, b } => *a != array && *b != array,
        Step::Loop(k) => {
            nest.push(k);
            let inside = writes_inside(&k.steps, array, (zero, hi), l, values, nest);
            nest.pop();
            inside
        }
        Step::Branch(b) => b
            .arms
            .iter()
            .all(|(_, arm)| writes_inside(arm, array, (zero, hi), l, values, nest)),
        _ => true,
    })
}

pub(crate) fn collect(steps: &[Step], l: &Loop, values: &[Value], out: &mut Vec<Access>) {
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
            // whole arrays: every element, read and written
            Step::Copy { to, from, prefix } => {
                out.push(Access {
                    array: *to,
                    at: Vec::new(),
                    writes: true,
                });
                out.push(Access {
                    array: *from,
                    at: at(prefix),
                    writes: false,
                });
            }
            // the whole result written, the arrays passed read whole
            Step::CallInto(c) => {
                out.push(Access {
                    array: c.array,
                    at: Vec::new(),
                    writes: true,
                });
                for input in &c.inputs {
                    if let Operand::Array { array, prefix, .. } = input {
                        out.push(Access {
                            array: *array,
                            at: at(prefix),
                            writes: false,
                        });
                    }
                }
            }
            Step::Swap { a, b } => {
                for array in [a, b] {
                    out.push(Access {
                        array: *array,
                        at: Vec::new(),
                        writes: true,
                    });
                }
            }
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
pub(crate) fn subscript(index: &Operand, l: &Loop, values: &[Value]) -> Option<Linear> {
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
