//! The finite-difference check the gradient tests share (`mod fd;`).

use num_traits::Float;
use std::fmt::Debug;

/// Panics, naming `what` and the point, unless `claimed` agrees with
/// central finite differences of `f` at `at` within `tolerance`.
pub fn agrees<T: Float + Debug>(
    what: &str,
    f: &dyn Fn(&[T]) -> T,
    at: &[T],
    claimed: &[T],
    tolerance: T,
) {
    if let Err(e) = mica::check::check_gradient_with(f, at, claimed, tolerance) {
        panic!("{what} at {at:?}: {e:?}");
    }
}
