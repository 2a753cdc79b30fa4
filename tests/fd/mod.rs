//! The finite-difference check the gradient tests share (`mod fd;`).

use num_traits::Float;
use std::fmt::Debug;

/// Panics, naming `what` and the point, unless `claimed` agrees with
/// central finite differences of `f` at `at` within `tolerance`.
#[allow(dead_code)] // not every test that shares this module checks gradients
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

/// Panics, naming `what`, unless `a` and `b` agree within `rel`, relative
/// to the larger of their magnitudes and 1.
#[allow(dead_code)] // not every test that shares this module compares values
pub fn close<T: Float + Debug>(what: &str, a: T, b: T, rel: T) {
    assert!(
        (a - b).abs() <= rel * T::one().max(a.abs()).max(b.abs()),
        "{what}: {a:?} vs {b:?}"
    );
}

/// [`close`], element by element, for two lists of one length.
#[allow(dead_code)]
pub fn same<T: Float + Debug>(what: &str, g: &[T], h: &[T], rel: T) {
    assert_eq!(g.len(), h.len(), "{what}: lengths");
    for (a, b) in g.iter().zip(h) {
        close(what, *a, *b, rel);
    }
}

/// A test's two checks at one precision, as its programs' checks name
/// them: `agree(what, f, at, claimed)` ([`agrees`] within `tolerance`)
/// and `same(g, h, what)` ([`same`] within `rel`).
#[allow(dead_code, clippy::type_complexity)]
pub fn checks<T: Float + Debug>(
    tolerance: T,
    rel: T,
) -> (
    impl Fn(&str, &dyn Fn(&[T]) -> T, &[T], &[T]),
    impl Fn(&[T], &[T], &str),
) {
    (
        move |what: &str, f: &dyn Fn(&[T]) -> T, at: &[T], claimed: &[T]| {
            agrees(what, f, at, claimed, tolerance)
        },
        move |g: &[T], h: &[T], what: &str| same(what, g, h, rel),
    )
}
