//! [`Real`]: the one bound a function generic over its float writes.

use crate::{
    Accumulate, AddScaled, AsValue, Clear, Element, GradientView, Knob, Placeholder, Shaped,
};
use core::fmt::Debug;
use core::iter::{Product, Sum};
use core::ops::{AddAssign, DivAssign, MulAssign, SubAssign};
use num_traits::{Float, FloatConst};

/// The float types Mica differentiates: `f32` and `f64`.
///
/// It is the one bound a `#[tape]` function generic over its float needs
/// (`fn energy<T: mica::Real>(#[tracked] x: &[T], k: T) -> T`), and it is
/// enough for the body such a function is written with:
///
/// ```
/// use mica_runtime::Real;
///
/// fn mean<T: Real>(xs: &[T]) -> T {
///     let mut total = T::zero();
///     for x in xs {
///         total += *x;
///     }
///     total / T::from(xs.len()).unwrap()
/// }
///
/// assert_eq!(mean(&[1.0_f64, 3.0]), 2.0);
/// assert_eq!(mean(&[1.0_f32, 3.0]), 2.0);
/// assert_eq!([1.0_f64, 2.0].iter().sum::<f64>(), 3.0);
/// ```
///
/// A function written against [`num_traits::Float`] alone works too: its
/// companions (`_grad`, `_backward`) add `T: mica::Real` themselves, and
/// the function keeps the bounds it was written with. `Real` includes
/// `Float` and `FloatConst`, the compound assignments, `Sum` and `Product`
/// (of values and of references), and what Mica's
/// generated code needs of a knob's type.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a float Mica differentiates",
    label = "Mica's slopes are `f32` or `f64`",
    note = "a `#[tape]` function generic over its float is used at `f32` or `f64`"
)]
pub trait Real:
    Float
    + FloatConst
    + AddAssign
    + SubAssign
    + MulAssign
    + DivAssign
    + Sum
    + Product
    + for<'a> Sum<&'a Self>
    + for<'a> Product<&'a Self>
    + Default
    + Debug
    + Send
    + Sync
    + 'static
    + Knob<Grad = Self>
    + AddScaled<Self>
    + Accumulate
    + Clear
    + Shaped<Shape = (), Grad = Self, Owned = Self>
    + Element<Out = Self>
    + for<'a> GradientView<View<'a> = Self>
    + Placeholder
    + AsValue<Self>
{
}

impl Real for f32 {}
impl Real for f64 {}
