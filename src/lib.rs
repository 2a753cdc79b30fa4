//! # Mica: reverse-mode derivatives written at compile time
//!
//! Write the forward computation in plain Rust; `#[tape]` reads it and writes
//! its reverse-mode adjoint as ordinary Rust, so a gradient costs what a
//! hand-written adjoint costs: no tape, graph or closure exists at run time.
//!
//! ## The function form
//!
//! ```
//! use mica::tape;
//!
//! #[tape]
//! fn loss(#[tracked] a: f64, #[tracked] b: f64, x: f64) -> f64 {
//!     let r = a * x + b - 1.0;
//!     r * r
//! }
//!
//! // `loss` is unchanged; `loss_grad` returns the value and both slopes
//! let (value, (d_a, d_b)) = loss_grad(2.0, 0.5, 3.0);
//! assert_eq!(value, loss(2.0, 0.5, 3.0));
//! assert_eq!((d_a, d_b), (2.0 * 5.5 * 3.0, 2.0 * 5.5));
//!
//! // `loss_backward` adds seed × slope into its slots: summing over a batch
//! let (mut d_a, mut d_b) = (0.0, 0.0);
//! for x in [1.0, 2.0, 3.0] {
//!     loss_backward(2.0, 0.5, x, 1.0, &mut d_a, &mut d_b);
//! }
//! assert_eq!(d_b, 2.0 * (1.5 + 3.5 + 5.5));
//! ```
//!
//! ## The window form
//!
//! ```
//! use mica::tape;
//!
//! #[tape]
//! fn descend() -> f64 {
//!     #[tracked]
//!     let mut a = 0.0_f64;
//!     for _ in 0..100 {
//!         tape! {
//!             let m = a - 2.0;
//!             let loss = m * m;
//!         }
//!         backward!(loss);
//!         a -= 0.25 * gradient!(a);
//!     }
//!     a
//! }
//! assert!((descend() - 2.0).abs() < 1e-12);
//! ```
//!
//! The recorded vocabulary, the conventions at kinks and the placement law
//! are described in the repository's README.

#[doc(inline)]
pub use mica_macros::{tape, tracked};

pub use mica_runtime::Knob;
pub use mica_runtime::{check, detach, relu, relu_backward, relu_grad, rules, sigmoid};
pub use mica_runtime::{
    sigmoid_backward, sigmoid_grad, softplus, softplus_backward, softplus_grad,
};

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

/// The README's examples run as doctests.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

/// What generated code names. Not public API: no stability promise.
#[doc(hidden)]
pub mod __private {
    pub use mica_runtime::rules;
    pub use mica_runtime::SmallVec;
    pub use mica_runtime::{
        assert_knob, element, one_like, placeholder, shape_of, take_sum, val, zeros_like, zeros_of,
        AsValue, Element, GradientView, IntoSlot, Knob, NoSlot, Placeholder, ShapeOf, Shaped,
        Untracked,
    };
    pub use num_traits::One;
}
