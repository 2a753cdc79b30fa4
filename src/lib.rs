#![doc = include_str!("../README.md")]

#[doc(inline)]
pub use mica_macros::{tape, tracked, Knob};

pub use mica_runtime::{check, detach, relu, relu_backward, relu_grad, rules, sigmoid};
pub use mica_runtime::{
    sigmoid_backward, sigmoid_grad, softplus, softplus_backward, softplus_grad,
};
pub use mica_runtime::{Knob, Real};

/// Walks the latest window backward from a scalar it recorded.
///
/// `backward!(loss);` has meaning only inside a `#[tape]` function, after a
/// `tape! { … }` window in the same block; the attribute rewrites it. Used
/// anywhere else it is a compile error.
#[macro_export]
macro_rules! backward {
    ($($t:tt)*) => {
        ::core::compile_error!(
            "`backward!` only has meaning inside a `#[tape]` function, after a `tape!` window in the same block"
        )
    };
}

/// The slope of the walked value with respect to a knob.
///
/// `gradient!(a)` has meaning only inside a `#[tape]` function, after the
/// `backward!` of a window; the attribute rewrites it. Used anywhere else it
/// is a compile error.
#[macro_export]
macro_rules! gradient {
    ($($t:tt)*) => {
        ::core::compile_error!(
            "`gradient!` only has meaning inside a `#[tape]` function, after a window's `backward!`"
        )
    };
}

/// `return value` from a `#[tape]` function's adjoint, where the function
/// returns `None` or `Err(…)`: the adjoint leaves before its reverse sweep.
/// Not public API.
#[doc(hidden)]
#[macro_export]
macro_rules! __mica_leave {
    ($value:expr) => {
        return $value
    };
}

/// What generated code names. Not public API: no stability promise.
#[doc(hidden)]
pub mod __private {
    pub use mica_macros::tape_with;
    pub use mica_runtime::rules;
    pub use mica_runtime::{
        add_into, assert_knob, clear, element, give_back, grow_shape, index, index_add, index_mul,
        index_sub, long_run, move_adjoints, no_run, one_like, placeholder, ran, room_each,
        room_times, run, run_span, shape_of, slot_len, take_sum, trip, val, zero_element,
        zero_value, zeros_from, zeros_like, zeros_of, zip_back, zip_back_range, zip_up_range,
        AsValue, Element, GradientView, InlineZeros, IntoSlot, Knob, NoSlot, Placeholder, ShapeOf,
        Shaped, StackTape, Untracked, Writer,
    };
    pub use mica_runtime::{
        assert_knob_type, fitted, step_field, zeros_field, AddScaled, Fit, Length,
    };
    pub use mica_runtime::{chunks_count, chunks_exact_count, view_bounds, windows_count};
    pub use mica_runtime::{
        flat_basis, flat_column, flat_into, flat_len, flat_unit, ArrayValue, DirectionOf, Flat,
        FlatMut, Tangent, TangentOf,
    };
    pub use num_traits::{NumCast, One, Zero};
}
