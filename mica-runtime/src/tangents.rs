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

impl<P> TangentOf<P> for NoSlot {
    #[inline(always)]
    fn given(self) -> Option<P> {
        None
    }
}
