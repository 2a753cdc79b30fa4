//! The run-time half of Mica: plain Rust that generated adjoints and users
//! call. Users reach it through the `mica` crate.
//!
//! - [`rules`]: the numeric pullback of every recorded operation,
//! - [`Knob`]: what may be tracked, and the shape of its gradient,
//! - [`detach`]: pass a value on as a constant (its slope stops here),
//! - [`sigmoid`], [`relu`], [`softplus`]: differentiable functions with their
//!   adjoints,
//! - [`check`]: a finite-difference gradient checker.
#![warn(missing_docs)]

pub mod check;
mod flat;
mod functions;
mod knob;
mod real;
pub mod rules;
mod tangents;
mod tape;
mod views;
mod walk;

#[doc(hidden)]
pub use flat::{flat_basis, flat_column, flat_into, flat_len, flat_unit, Flat, FlatMut};
pub use functions::*;
pub use real::Real;
#[doc(hidden)]
pub use tangents::{ArrayValue, DirectionOf, Tangent, TangentOf};
#[doc(hidden)]
pub use tape::{
    room_each, room_times, trip, zip_back, Rewind, Run, StackBack, StackTape, TakenBack, Writer,
};

#[doc(hidden)]
pub use views::{chunks_count, chunks_exact_count, view_bounds, windows_count};
#[doc(hidden)]
pub use walk::{zip_back_range, zip_up_range, Ahead, Positional, Stepped, WalkBack, WalkUp};

pub use knob::{
    add_into, assert_knob, assert_knob_type, clear, element, fitted, give_back, grow_shape, index,
    index_add, index_mul, index_sub, long_run, move_adjoints, no_run, one_like, placeholder, ran,
    run, run_span, shape_of, slot_len, step_field, take_sum, val, zero_element, zero_value,
    zeros_field, zeros_from, zeros_like, zeros_of, Accumulate, AddScaled, AsValue, Clear, Element,
    Fit, GradientView, Grow, InlineZeros, IntoSlot, Knob, Length, NoSlot, Placeholder, ShapeOf,
    Shaped, Untracked,
};

/// Passes `x` on unchanged, as a constant: no slope flows back through it.
///
/// Inside a window, `detach` turns a recorded value into a constant — for a
/// value you want to use but not differentiate through, or to feed a
/// recorded value to code outside the recorded vocabulary.
///
/// ```
/// assert_eq!(mica_runtime::detach(2.5_f64), 2.5);
/// ```
#[inline(always)]
pub fn detach<T>(x: T) -> T {
    x
}
