//! How forward mode passes tangents to a called `#[tape(tangent)]`
//! function: `Tangent(d)` where the argument has one, `NoSlot` where it is
//! a constant (a tracked parameter then gets a zero tangent; an untracked
//! one accepts nothing else).

use crate::NoSlot;

/// The tangent of an argument.
pub struct Tangent<T>(pub T);

/// Accepted by a callee's tracked parameter in forward mode: the tangent,
/// or `NoSlot` for a constant argument.
#[diagnostic::on_unimplemented(
    message = "this tangent is not of the parameter's type",
    label = "forward mode passes a tangent of the argument's type"
)]
pub trait TangentOf<P> {
    /// The tangent, if the argument has one.
    fn given(self) -> Option<P>;
}

impl<P> TangentOf<P> for Tangent<P> {
    #[inline(always)]
    fn given(self) -> Option<P> {
        Some(self.0)
    }
}

/// An array's or a `Vec`'s tangent, passed where the parameter is a slice
/// (`f(&m[i])` for `f(x: &[f64])`): the coercion the argument itself goes
/// through.
impl<'a, T, const N: usize> TangentOf<&'a [T]> for Tangent<&'a [T; N]> {
    #[inline(always)]
    fn given(self) -> Option<&'a [T]> {
        Some(self.0)
    }
}

impl<'a, T> TangentOf<&'a [T]> for Tangent<&'a Vec<T>> {
    #[inline(always)]
    fn given(self) -> Option<&'a [T]> {
        Some(self.0)
    }
}

impl<P> TangentOf<P> for NoSlot {
    #[inline(always)]
    fn given(self) -> Option<P> {
        None
    }
}

/// Accepted by a callee's tracked parameter where a Hessian-vector
/// product's directional derivative calls it: the tangent itself, of the
/// parameter's type, or `NoSlot` for a constant argument (a zero tangent).
/// Passed bare, not wrapped, because the reverse sweep differentiates the
/// call again and follows the tangent as an argument.
#[diagnostic::on_unimplemented(
    message = "this tangent is not of the parameter's type",
    label = "`hvp` passes a tangent of the argument's type"
)]
pub trait DirectionOf<P> {
    /// The tangent, if the argument has one.
    fn given(self) -> Option<P>;
}

impl<P> DirectionOf<P> for NoSlot {
    #[inline(always)]
    fn given(self) -> Option<P> {
        None
    }
}

macro_rules! direction_of {
    ($($t:ty),*) => {$(
        impl DirectionOf<$t> for $t {
            #[inline(always)]
            fn given(self) -> Option<$t> {
                Some(self)
            }
        }
        impl<const N: usize> DirectionOf<[$t; N]> for [$t; N] {
            #[inline(always)]
            fn given(self) -> Option<[$t; N]> {
                Some(self)
            }
        }
        impl<'a, const N: usize> DirectionOf<&'a [$t; N]> for &'a [$t; N] {
            #[inline(always)]
            fn given(self) -> Option<&'a [$t; N]> {
                Some(self)
            }
        }
        impl<'a, const M: usize, const N: usize> DirectionOf<&'a [[$t; M]; N]> for &'a [[$t; M]; N] {
            #[inline(always)]
            fn given(self) -> Option<&'a [[$t; M]; N]> {
                Some(self)
            }
        }
        impl<'a> DirectionOf<&'a [$t]> for &'a [$t] {
            #[inline(always)]
            fn given(self) -> Option<&'a [$t]> {
                Some(self)
            }
        }
        // an array or a `Vec` passed where the parameter is a slice
        impl<'a, const N: usize> DirectionOf<&'a [$t]> for &'a [$t; N] {
            #[inline(always)]
            fn given(self) -> Option<&'a [$t]> {
                Some(self)
            }
        }
        impl<'a> DirectionOf<&'a [$t]> for &'a Vec<$t> {
            #[inline(always)]
            fn given(self) -> Option<&'a [$t]> {
                Some(self)
            }
        }
        impl<'a> DirectionOf<&'a Vec<$t>> for &'a Vec<$t> {
            #[inline(always)]
            fn given(self) -> Option<&'a Vec<$t>> {
                Some(self)
            }
        }
        impl DirectionOf<Vec<$t>> for Vec<$t> {
            #[inline(always)]
            fn given(self) -> Option<Vec<$t>> {
                Some(self)
            }
        }
        // rows: a struct's field gathered from a `Vec` of structs
        impl<'a> DirectionOf<&'a Vec<Vec<$t>>> for &'a Vec<Vec<$t>> {
            #[inline(always)]
            fn given(self) -> Option<&'a Vec<Vec<$t>>> {
                Some(self)
            }
        }
        impl<'a, const N: usize> DirectionOf<&'a Vec<[$t; N]>> for &'a Vec<[$t; N]> {
            #[inline(always)]
            fn given(self) -> Option<&'a Vec<[$t; N]>> {
                Some(self)
            }
        }
        impl<'a> DirectionOf<&'a [Vec<$t>]> for &'a [Vec<$t>] {
            #[inline(always)]
            fn given(self) -> Option<&'a [Vec<$t>]> {
                Some(self)
            }
        }
        impl<'a, const N: usize> DirectionOf<&'a [[$t; N]]> for &'a [[$t; N]] {
            #[inline(always)]
            fn given(self) -> Option<&'a [[$t; N]]> {
                Some(self)
            }
        }
    )*};
}

direction_of!(f32, f64);

/// Implemented by no type: `NAME::adjoint` of a `#[tape]` function with
/// an array out is reached only where Mica read the call's value as a
/// number (a call passed straight to another call), and it asks this of
/// the value's adjoint, so the build stops here with what to write.
#[diagnostic::on_unimplemented(
    message = "this call gives an array, which Mica reads as one where a `let` binds it: `let t: [f64; 2] = step(…);` (its type written), then pass `t`",
    label = "an array given straight to another call"
)]
pub trait ArrayValue {}
