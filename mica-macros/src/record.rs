//! The record: what the forward sweep did, as data. Built once by the
//! lowering (`lower.rs`), read by the analyses (`analyze/`), the plan
//! (`plan.rs`) and the reverse sweep (`reverse.rs`) through [`Record`],
//! changed by none of them: what the reverse reads it says in its own
//! output (`Reverse::reads`).

use proc_macro2::{Ident, TokenStream};

pub type ValueId = usize;
pub type ArrayId = usize;

/// What a binding holds, as far as the record is concerned.
#[derive(Clone, Debug)]
pub enum Val {
    /// does not depend on a knob
    Const,
    /// a recorded scalar
    Active(ValueId),
    /// a tuple of values
    Tuple(Vec<Val>),
    /// a recorded array, or a row of one (`prefix` holds the row's indices):
    /// its reads are recorded element by element
    Array {
        array: ArrayId,
        prefix: Vec<Operand>,
    },
}

impl Val {
    /// Whether two values are the same: the same recorded values, the same
    /// constants as written.
    pub fn same(&self, other: &Val) -> bool {
        match (self, other) {
            (Val::Const, Val::Const) => true,
            (Val::Active(a), Val::Active(b)) => a == b,
            (Val::Tuple(a), Val::Tuple(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.same(y))
            }
            (
                Val::Array { array, prefix },
                Val::Array {
                    array: other,
                    prefix: other_prefix,
                },
            ) => array == other && same_operands(prefix, other_prefix),
            _ => false,
        }
    }

    pub fn is_active(&self) -> bool {
        match self {
            Val::Const => false,
            Val::Active(_) | Val::Array { .. } => true,
            Val::Tuple(items) => items.iter().any(Val::is_active),
        }
    }
}

/// Where a binding was made: the placement law treats them differently.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Origin {
    /// a `#[tracked] let` outside the window
    Knob,
    /// a parameter of a `#[tape]` function
    Param,
    /// made inside the window or function body
    Local,
}

/// An input to a recorded operation, as the forward and reverse sweeps see it.
#[derive(Clone, Debug)]
pub enum Operand {
    Active(ValueId),
    /// a literal: pure to read again
    Const(TokenStream),
    /// a constant kept in a temporary (stored per iteration inside loops)
    Stored(ValueId),
    /// a recorded array (or row) passed to a tape function: the argument as
    /// written, kept in a temporary, and the array whose buffer is its slot
    Array {
        arg: ValueId,
        array: ArrayId,
        prefix: Vec<Operand>,
        /// the argument was `&a` of an array the body may change later:
        /// `arg` holds a copy of `a`, passed on as `&arg`
        owned: bool,
    },
}

/// Whether two lists of operands are the same, element by element.
fn same_operands(a: &[Operand], b: &[Operand]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.same(y))
}

impl Operand {
    /// Whether two operands are the same: the same values, the same
    /// constants as written.
    pub fn same(&self, other: &Operand) -> bool {
        match (self, other) {
            (Operand::Active(a), Operand::Active(b)) | (Operand::Stored(a), Operand::Stored(b)) => {
                a == b
            }
            (Operand::Const(a), Operand::Const(b)) => a.to_string() == b.to_string(),
            (
                Operand::Array {
                    arg,
                    array,
                    prefix,
                    owned,
                },
                Operand::Array {
                    arg: other_arg,
                    array: other_array,
                    prefix: other_prefix,
                    owned: other_owned,
                },
            ) => {
                arg == other_arg
                    && array == other_array
                    && owned == other_owned
                    && same_operands(prefix, other_prefix)
            }
            _ => false,
        }
    }
}

pub enum OpKind {
    /// `rules::{name}_d{i}` gives the slope to input `i`
    Rule(&'static str),
    /// a call to a tape function, differentiated through `path::adjoint`
    Call(TokenStream),
    /// a call to a `#[tape]` method, differentiated through
    /// `object.adapter`, where the value `object` holds
    /// `Some(&receiver)` (see `Sweep::lower_tape_method`)
    Method { object: ValueId, adapter: Ident },
    /// an element of a recorded array: its slope is added into the array's
    /// adjoint at the same indices
    Read {
        array: ArrayId,
        indices: Vec<Operand>,
    },
}

pub struct Op {
    pub out: ValueId,
    pub kind: OpKind,
    pub inputs: Vec<Operand>,
    /// where each input was written, for errors about it
    pub spans: Vec<proc_macro2::Span>,
}

/// The record is a tree: straight-line operations, loops whose iterations
/// are walked backward, and branches whose taken arm is walked.
pub enum Step {
    Op(Op),
    Loop(Box<Loop>),
    Branch(Branch),
    /// `array[indices] = value`: the element's old value reaches nothing
    /// after this
    Write {
        array: ArrayId,
        indices: Vec<Operand>,
        value: Operand,
    },
    /// `array[indices] += value` (or `-=`): the element's adjoint is
    /// unchanged, and `value` receives it
    Increment {
        array: ArrayId,
        indices: Vec<Operand>,
        value: Operand,
        negate: bool,
    },
    /// `[value; n]` or `array.fill(value)`: every element is `value` (a
    /// constant clears the adjoints)
    Fill {
        array: ArrayId,
        value: Operand,
    },
    /// `to = from` of whole arrays (or a row of `from`): `to`'s old
    /// elements reach nothing after this, `from`'s receive `to`'s adjoints
    Copy {
        to: ArrayId,
        from: ArrayId,
        prefix: Vec<Operand>,
    },
    /// `std::mem::swap(&mut a, &mut b)` of two arrays: their adjoints swap
    Swap {
        a: ArrayId,
        b: ArrayId,
    },
    /// `array = f(args…)` of a `#[tape]` function returning an array or a
    /// `Vec`: `array`'s old elements reach nothing after this; the
    /// arguments receive the array's adjoint times the callee's Jacobian
    /// (through the callee's seeded twin, `adapter`)
    CallInto(CallInto),
}

/// See [`Step::CallInto`].
pub struct CallInto {
    pub array: ArrayId,
    /// `path::__mica_seeded_f::adjoint`
    pub adapter: TokenStream,
    pub inputs: Vec<Operand>,
    /// where each input was written, for errors about it
    pub spans: Vec<proc_macro2::Span>,
    /// a tuple out, its scalars in `array`: for each element of the tuple,
    /// its index there (`None`: an element the caller does not read, whose
    /// seed is zero)
    pub tuple: Option<Vec<Option<usize>>>,
}

/// A `for` or `while` loop. Each iteration pushes the values its reverse
/// needs onto `tape` (a `Vec` of tuples); the reverse pops them.
pub struct Loop {
    pub region: usize,
    /// this loop's storage scope: values made in its body
    pub scope: usize,
    pub steps: Vec<Step>,
    pub tape: Ident,
    /// the trip count, a value of the enclosing region
    pub count: ValueId,
    /// where the forward sweep pushes the iteration's values
    pub fill: Ident,
    /// where the forward sweep sizes the tape once, and how
    pub reserve: Option<(Ident, TokenStream)>,
    /// a loop over a range: its pattern and the range, walked backward
    /// instead of counted
    pub range: Option<(TokenStream, RangeSource)>,
    /// the values made while lowering the loop (its body's among them)
    pub values: std::ops::Range<ValueId>,
    pub carried: Vec<Carried>,
    /// for a loop that is a statement of the function body's top level
    /// (function form, no `return`): that statement's index
    pub top: Option<usize>,
    /// a statement of the enclosing loop's own body (outside any nested
    /// block or branch arm there), whose placeholder `before` is in the
    /// same block as the enclosing loop's `fill`
    pub direct: bool,
    /// a placeholder just before the loop, at the function body's top level
    /// when `top` is set (see `reverse.rs`, fused loops)
    pub before: Ident,
    /// for a loop over a range whose ends read only stable names: how many
    /// iterations it runs, known where it starts
    pub trip: Option<Trip>,
    /// for a loop over a range kept in a value (its ends not stable): the
    /// placeholders just before and just after the loop, and the kept
    /// range, whose length is known where the loop starts (see
    /// `reverse/walk.rs`, a writer for one run)
    pub kept_run: Option<(Ident, Ident, Ident)>,
    /// what its syntax says about its iterations
    pub facts: crate::facts::loops::LoopFacts,
}

/// Whether a step among `steps` (inside loops and arms too) writes an
/// array.
pub fn writes_array(steps: &[Step]) -> bool {
    steps.iter().any(|step| match step {
        Step::Op(_) => false,
        Step::Loop(inner) => writes_array(&inner.steps),
        Step::Branch(b) => b.arms.iter().any(|(_, arm)| writes_array(arm)),
        _ => true,
    })
}

/// The regions of a loop's body: its own and those of the loops and branch
/// arms inside it.
pub fn regions_of(l: &Loop, out: &mut std::collections::BTreeSet<usize>) {
    out.insert(l.region);
    regions_in(&l.steps, out);
}

fn regions_in(steps: &[Step], out: &mut std::collections::BTreeSet<usize>) {
    for step in steps {
        match step {
            Step::Loop(inner) => regions_of(inner, out),
            Step::Branch(b) => {
                for (region, arm) in &b.arms {
                    out.insert(*region);
                    regions_in(arm, out);
                }
            }
            _ => {}
        }
    }
}

/// A loop over a range whose ends read only stable names (see
/// `facts/stability.rs`): evaluated again before an enclosing loop of the
/// same kind, with that loop's variable bound to each value it takes, the
/// range gives the lengths of this loop's runs. The reverse sweep uses this
/// to make a tape's room once for a whole nest of loops (see `reverse.rs`).
#[derive(Clone)]
pub struct Trip {
    /// placeholders just before and just after the loop
    pub start: Ident,
    pub end: Ident,
    /// the range
    pub range: syn::Expr,
    /// the names the range reads
    pub reads: std::collections::HashSet<String>,
    /// the loop's variable, as written, if it has one
    pub var: Option<Ident>,
}

/// Where the reverse sweep finds a loop's range.
pub enum RangeSource {
    /// its expression, evaluated again (its ends are pure)
    Again(syn::Expr),
    /// a value of the enclosing region holding it
    Kept(ValueId),
}

/// A binding the loop body assigns, whose value flows from one iteration to
/// the next.
pub struct Carried {
    /// the binding's name (its value before the loop, read just before it)
    pub name: Ident,
    /// its value at the start of an iteration
    pub entry: ValueId,
    /// its value at the end of an iteration
    pub end: Val,
    /// its value before the loop
    pub before: Val,
    /// its value after the loop
    pub exit: ValueId,
}

/// An `if` or `match`: `flag` records which arm ran.
pub struct Branch {
    pub flag: ValueId,
    pub arms: Vec<(usize, Vec<Step>)>,
    pub merges: Vec<Merge>,
}

/// A value that comes out of a branch: `per_arm[k]` is what arm `k` gave.
pub struct Merge {
    pub out: ValueId,
    pub per_arm: Vec<Val>,
}

/// A recorded array: where its slopes are added.
pub struct Array {
    /// the adjoint buffer, indexed like the array
    pub acc: TokenStream,
    /// for a buffer the reverse sweep makes: its declaration
    pub declare: Option<TokenStream>,
    /// how many indices reach an element: 1 for `[T; N]` or `&[T]`, 2 for
    /// `[[T; M]; N]`
    pub rank: usize,
    /// for an array made inside the sweep: the region it was made in and its
    /// captured shape, from which the reverse makes its buffer there
    pub local: Option<(usize, ValueId)>,
    /// for `vec![x; N]` with a literal or `const` `N`: the (capped) inline
    /// capacity of a buffer the reverse keeps on the stack
    pub inline: Option<TokenStream>,
}

pub struct Value {
    /// an immutable local holding the value for the whole sweep (or, inside
    /// a loop, for the iteration; the loop's tape keeps it for the reverse)
    pub store: Ident,
    /// for an input (a knob or tracked parameter): the name it is read from,
    /// copied into `store` at the start of the sweep only if needed
    pub capture: Option<Ident>,
    /// for a constant the reverse sweep can evaluate again (see
    /// `facts/stability.rs`): its expression, read instead of stored
    pub recompute: Option<syn::Expr>,
    /// the values whose stores `recompute` reads
    pub deps: Vec<ValueId>,
    /// for an array's subscript: the expression as written, which the
    /// dependence analysis reads as a linear form
    pub syntax: Option<syn::Expr>,
    /// the loop body or branch arm it was made in (0: the sweep itself)
    pub region: usize,
    /// the innermost loop it was made in (0: none)
    pub scope: usize,
    /// a call's argument borrowed in a branch arm, whose temporaries start
    /// from a placeholder (which no reference has): the store holds
    /// `Some(argument)`, read unwrapped
    pub optional: bool,
    /// a copy of a whole array that the reverse makes again from its
    /// literal (see `lower/rebuild.rs`): `recompute` is that literal
    pub rebuilt: bool,
}

/// The record as the stages after the lowering see it: borrowed, so no
/// stage can change it.
#[derive(Clone, Copy)]
pub struct Record<'r> {
    pub values: &'r [Value],
    pub arrays: &'r [Array],
    /// names that hold one value wherever the reverse reads them (`None`:
    /// a window, a body with `return`, or the plain adjoint)
    pub stability: Option<&'r crate::facts::stability::Stability>,
    /// temporaries declared at the top of their scope and assigned in a
    /// nested block or arm
    pub hoisted: &'r std::collections::HashSet<String>,
    /// every loop's tape, with its capacity when it lives on the stack
    pub tapes: &'r [(Ident, Option<TokenStream>)],
    /// the values whose stores the forward sweep itself reads where the
    /// lowering did not write them (they must be written)
    pub forward_reads: &'r std::collections::BTreeSet<ValueId>,
    /// operations written inside their consumer's expression: their stores
    /// are never declared, so only what the lowering knew would be read
    /// may be (see `lower/inline.rs`)
    pub inlined: &'r std::collections::HashSet<ValueId>,
}
