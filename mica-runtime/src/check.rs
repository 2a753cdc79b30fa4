//! A finite-difference gradient checker, for testing any gradient — Mica's or
//! a hand-written one.
//!
//! ```
//! use mica_runtime::check;
//! let f = |x: &[f64]| x[0] * x[0] * x[1];
//! let claimed = [2.0 * 3.0 * 5.0, 3.0 * 3.0]; // at (3, 5)
//! check::check_gradient(f, &[3.0, 5.0], &claimed).unwrap();
//! assert!(check::check_gradient(f, &[3.0, 5.0], &[30.0, 8.0]).is_err());
//! ```

use core::fmt;
use num_traits::Float;

/// Central finite differences of `f` at `at`: one slope per coordinate, with
/// the step `∛ε · (1 + |xᵢ|)`.
pub fn finite_difference<T: Float>(mut f: impl FnMut(&[T]) -> T, at: &[T]) -> Vec<T> {
    let mut x = at.to_vec();
    let cbrt_eps = T::epsilon().cbrt();
    (0..at.len())
        .map(|i| {
            let h = cbrt_eps * (T::one() + at[i].abs());
            x[i] = at[i] + h;
            let up = f(&x);
            x[i] = at[i] - h;
            let down = f(&x);
            x[i] = at[i];
            (up - down) / (h + h)
        })
        .collect()
}

/// The tolerance [`check_gradient`] uses: `10 √ε` relative (about `1.5e-7` for
/// `f64`, `3.5e-3` for `f32`).
pub fn default_tolerance<T: Float>() -> T {
    T::epsilon().sqrt() * T::from(10.0).unwrap_or_else(T::one)
}

/// One coordinate where a claimed gradient and finite differences disagree.
#[derive(Debug, Clone, PartialEq)]
pub struct GradientMismatch<T> {
    /// the coordinate
    pub index: usize,
    /// the gradient under test
    pub claimed: T,
    /// central finite differences
    pub finite_difference: T,
    /// the tolerance it was held to
    pub tolerance: T,
}

impl<T: fmt::Display> fmt::Display for GradientMismatch<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "slope {} is {}, finite differences give {} (tolerance {})",
            self.index, self.claimed, self.finite_difference, self.tolerance
        )
    }
}

impl<T: fmt::Display + fmt::Debug> std::error::Error for GradientMismatch<T> {}

/// Checks `claimed` against central finite differences of `f` at `at`, with
/// [`default_tolerance`].
pub fn check_gradient<T: Float>(
    f: impl FnMut(&[T]) -> T,
    at: &[T],
    claimed: &[T],
) -> Result<(), GradientMismatch<T>> {
    check_gradient_with(f, at, claimed, default_tolerance())
}

/// Checks `claimed` against central finite differences of `f` at `at`: each
/// slope must agree within `tolerance × max(1, |f(at)|, |claimed|, |fd|)`.
///
/// # Panics
///
/// If `claimed` and `at` differ in length.
pub fn check_gradient_with<T: Float>(
    mut f: impl FnMut(&[T]) -> T,
    at: &[T],
    claimed: &[T],
    tolerance: T,
) -> Result<(), GradientMismatch<T>> {
    assert_eq!(
        at.len(),
        claimed.len(),
        "check_gradient: `claimed` has {} slopes for a point of {} coordinates",
        claimed.len(),
        at.len()
    );
    let value = f(at).abs();
    let fd = finite_difference(&mut f, at);
    for (index, (&c, &d)) in claimed.iter().zip(&fd).enumerate() {
        let scale = T::one().max(value).max(c.abs()).max(d.abs());
        // a NaN on either side is a mismatch too
        let within = (c - d).abs() <= tolerance * scale;
        if !within {
            return Err(GradientMismatch {
                index,
                claimed: c,
                finite_difference: d,
                tolerance: tolerance * scale,
            });
        }
    }
    Ok(())
}
