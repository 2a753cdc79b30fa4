//! The plan: every shortcut the reverse sweep may take, decided as a
//! verdict from the record and the analyses before any reverse code is
//! written.
//!
//! A verdict is `Yes` with what the shortcut needs, or `No` with the reason
//! (and the loop it is about). The reverse sweep (`reverse.rs`) only reads
//! the plan: it takes a shortcut where the verdict is yes, and writes the
//! plain adjoint where it is no. Legality is decided here; profit (whether a
//! loop's reverse keeps anything per iteration, which decides if a legal
//! forward walk is taken) is left to the emitter, which knows what its code
//! reads.
//!
//! | shortcut | file | yes when |
//! | --- | --- | --- |
//! | fused loop | `plan/fuse.rs` | a loop of the top level, or of a fused loop's body, only sums, its iterations pass nothing through arrays, the sums' adjoints are known before it |
//! | straight-line access | `plan/access.rs` | a range loop's body is operations and element writes with every index read again |
//! | forward walk | `plan/access.rs` | besides, its iterations pass nothing back and touch no element twice |
//! | slices | `plan/slices.rs` | besides, each array's accesses are one run of the loop's variable |
//! | selection | `plan/select.rs` | a top-level range loop only keeps the `max` or `min` of its values, made by reads and adds |
//! | slopes in registers | `analyze/carry.rs` | a range loop's body reads an array it never writes at two or three neighbouring elements |
//!
//! The plain adjoint (`#[tape(plain)]`) is the plan whose verdicts are all
//! no.

pub mod access;
pub mod fuse;
mod reads;
pub mod select;
pub mod slices;

use crate::record::{Loop, Record, Step, ValueId};
use proc_macro2::Span;
use std::collections::HashMap;

/// What the plan reads: the record (through `Deref`), and the values the
/// reverse sweep is seeded at.
pub struct View<'r> {
    pub record: Record<'r>,
    pub seeds: Vec<ValueId>,
}

impl<'r> std::ops::Deref for View<'r> {
    type Target = Record<'r>;
    fn deref(&self) -> &Record<'r> {
        &self.record
    }
}

/// Why a shortcut is not taken, and where: read by the tests of the plan,
/// which check each shortcut is refused for the reason it should be.
#[derive(Clone, Debug)]
#[cfg_attr(not(test), allow(dead_code))]
pub struct Miss {
    pub why: &'static str,
    /// the loop's first token, where the record knows it
    pub span: Option<Span>,
}

/// A shortcut's verdict.
pub enum Verdict<T> {
    Yes(T),
    No(#[cfg_attr(not(test), allow(dead_code))] Miss),
}

impl<T> Verdict<T> {
    pub fn yes(&self) -> Option<&T> {
        match self {
            Verdict::Yes(t) => Some(t),
            Verdict::No(_) => None,
        }
    }

    pub fn is_yes(&self) -> bool {
        matches!(self, Verdict::Yes(_))
    }

    /// The reason it is no, if it is.
    #[cfg(test)]
    pub fn miss(&self) -> Option<&Miss> {
        match self {
            Verdict::Yes(_) => None,
            Verdict::No(miss) => Some(miss),
        }
    }
}

/// `No` with `why`, about `l`.
pub fn no<T>(l: &Loop, why: &'static str) -> Verdict<T> {
    Verdict::No(Miss {
        why,
        span: l.facts.span,
    })
}

/// `Ok` or `Err(why)`, made a verdict about `l`.
fn verdict<T>(l: &Loop, result: Result<T, &'static str>) -> Verdict<T> {
    match result {
        Ok(t) => Verdict::Yes(t),
        Err(why) => no(l, why),
    }
}

/// One loop's verdicts.
pub struct LoopPlan {
    /// its reverse runs inside its forward sweep, at the end of each
    /// iteration
    pub fuse: Verdict<fuse::Fusion>,
    /// its reverse may walk the iterations first to last (taken if the
    /// reverse keeps nothing per iteration)
    pub forward: Verdict<()>,
    /// the adjoint buffers and elements its reverse reaches through slices
    pub slices: Verdict<slices::Slices>,
    /// its reverse is the winner's iteration alone
    pub select: Verdict<select::Selection>,
    /// slopes at neighbouring elements of arrays it reads wait in
    /// registers between the iterations of its reverse
    pub carry: Verdict<Vec<crate::analyze::carry::Carry>>,
}

/// Every loop's verdicts, by the loop's region.
pub struct Plan {
    loops: HashMap<usize, LoopPlan>,
}

const PLAIN: &str = "the plain adjoint takes no shortcut";

impl Plan {
    /// The plan of a record: `plain` makes every verdict no.
    pub fn of(view: &View<'_>, steps: &[Step], plain: bool) -> Plan {
        let mut plan = Plan {
            loops: HashMap::new(),
        };
        let index = fuse::TopIndex::of(steps);
        plan.region(view, steps, Some(&index), &[], plain);
        #[cfg(test)]
        tests::keep(&plan, steps);
        plan
    }

    /// The verdicts of the loops among `steps`; `outers` are the fused
    /// loops whose bodies hold `steps`, outermost first (`steps` the last
    /// one's own body), and `index` who reads what among `steps` (for the
    /// fused-loop verdict, made where it may be asked).
    fn region(
        &mut self,
        view: &View<'_>,
        steps: &[Step],
        index: Option<&fuse::TopIndex>,
        outers: &[&Loop],
        plain: bool,
    ) {
        for (at, step) in steps.iter().enumerate() {
            match step {
                Step::Loop(l) => {
                    let loop_plan = if plain {
                        LoopPlan {
                            fuse: no(l, PLAIN),
                            forward: no(l, PLAIN),
                            slices: no(l, PLAIN),
                            select: no(l, PLAIN),
                            carry: no(l, PLAIN),
                        }
                    } else {
                        let fuse = match index {
                            Some(index) => {
                                verdict(l, fuse::fusion(view, l, steps, at, index, outers))
                            }
                            None => no(
                                l,
                                "only a loop of the function body's top level, or of a fused loop's body, is fused",
                            ),
                        };
                        let access = verdict(l, access::access(view, l));
                        // both build on the body's straight-line access
                        let (forward, slices) = match &access {
                            Verdict::Yes(a) => (
                                verdict(l, access::forward(view, l)),
                                verdict(l, slices::slices(view, l, a)),
                            ),
                            Verdict::No(miss) => {
                                (Verdict::No(miss.clone()), Verdict::No(miss.clone()))
                            }
                        };
                        let select = match &fuse {
                            Verdict::Yes(_) => no(l, "it is fused"),
                            Verdict::No(_) => verdict(l, select::selection(view, l)),
                        };
                        let carry = match crate::analyze::carry::of(
                            l,
                            view.values,
                            view.arrays,
                            fuse.is_yes(),
                        ) {
                            found if found.is_empty() => {
                                no(l, "no array it only reads is read at neighbouring elements")
                            }
                            found => Verdict::Yes(found),
                        };
                        LoopPlan {
                            fuse,
                            forward,
                            slices,
                            select,
                            carry,
                        }
                    };
                    // a fused loop's body: the loops that are its own
                    // statements may be fused inside it
                    let fused = loop_plan.fuse.is_yes();
                    self.loops.insert(l.region, loop_plan);
                    if fused {
                        let index = fuse::TopIndex::of(&l.steps);
                        let inside: Vec<&Loop> = outers.iter().copied().chain([&**l]).collect();
                        self.region(view, &l.steps, Some(&index), &inside, plain);
                    } else {
                        self.region(view, &l.steps, None, &[], plain);
                    }
                }
                Step::Branch(b) => {
                    for (_, arm) in &b.arms {
                        self.region(view, arm, None, &[], plain);
                    }
                }
                _ => {}
            }
        }
    }

    /// The verdicts about `l` (every loop of the record has them).
    pub fn of_loop(&self, l: &Loop) -> Option<&LoopPlan> {
        self.loops.get(&l.region)
    }
}

#[cfg(test)]
pub(crate) mod tests;
