//! Differentiable functions the runtime offers, each with its hand-written
//! adjoint.
//!
//! Every function here follows the same convention as a `#[tape]` function:
//! `f` is the value, `f_backward(x, seed, d_x)` *adds* `seed · f'(x)` into
//! `d_x` and returns the value, and `f_grad(x)` returns `(value, slope)`. So a
//! window or `#[tape]` function calls them like any other tape function.
//!
//! ```
//! let (y, dy) = mica_runtime::sigmoid_grad(0.0_f64);
//! assert_eq!((y, dy), (0.5, 0.25));
//! ```

use num_traits::Float;

/// Defines `NAME`, `NAME_backward`, `NAME_grad` and the hidden call adapter
/// (module `NAME`) for a unary function from its value and its slope.
macro_rules! unary {
    ($(#[$doc:meta])* $name:ident, $backward:ident, $grad:ident,
     |$x:ident| $value:expr, |$xs:ident, $y:ident| $slope:expr) => {
        $(#[$doc])*
        #[inline]
        pub fn $name<T: Float>($x: T) -> T {
            $value
        }

        #[doc = concat!("The adjoint of [`", stringify!($name), "`]: adds `seed` × its slope into `d_x` and returns the value.")]
        #[inline]
        pub fn $backward<T: Float>(x: T, seed: T, d_x: &mut T) -> T {
            let $y = $name(x);
            let $xs = x;
            *d_x = *d_x + seed * $slope;
            $y
        }

        #[doc = concat!("The value of [`", stringify!($name), "`] and its slope.")]
        #[inline]
        pub fn $grad<T: Float>(x: T) -> (T, T) {
            let mut d = T::zero();
            let y = $backward(x, T::one(), &mut d);
            (y, d)
        }

        #[doc(hidden)]
        pub mod $name {
            use super::*;
            use crate::knob::IntoSlot;
            #[inline(always)]
            pub fn adjoint<'a, T: Float + 'a, S0: IntoSlot<'a, T>>(x: T, seed: T, d_x: S0) {
                if let Some(d) = d_x.into_slot() {
                    super::$backward(x, seed, d);
                }
            }
        }
    };
}

unary!(
    /// The logistic function `1 / (1 + e⁻ˣ)`, computed without overflow for
    /// large `|x|`.
    ///
    /// ```
    /// assert_eq!(mica_runtime::sigmoid(0.0_f32), 0.5);
    /// ```
    sigmoid, sigmoid_backward, sigmoid_grad,
    |x| if x >= T::zero() {
        T::one() / (T::one() + (-x).exp())
    } else {
        let e = x.exp();
        e / (T::one() + e)
    },
    |_x, y| y * (T::one() - y)
);

unary!(
    /// The rectifier `max(x, 0)`; its slope is `1` for `x > 0` and `0`
    /// otherwise (including at `0`).
    ///
    /// ```
    /// assert_eq!(mica_runtime::relu(-2.0_f64), 0.0);
    /// assert_eq!(mica_runtime::relu_grad(3.0_f64), (3.0, 1.0));
    /// ```
    relu, relu_backward, relu_grad,
    |x| if x > T::zero() { x } else { T::zero() },
    |x, _y| if x > T::zero() { T::one() } else if x.is_nan() { x } else { T::zero() }
);

unary!(
    /// The smooth rectifier `ln(1 + eˣ)`, computed without overflow; its slope
    /// is the logistic function.
    ///
    /// ```
    /// let (y, dy) = mica_runtime::softplus_grad(0.0_f64);
    /// assert!((y - 2.0_f64.ln()).abs() < 1e-15 && dy == 0.5);
    /// ```
    softplus, softplus_backward, softplus_grad,
    |x| x.max(T::zero()) + (-x.abs()).exp().ln_1p(),
    |x, _y| sigmoid(x)
);
