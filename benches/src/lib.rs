//! Benchmark programs for Mica: each module holds the primal (a `#[tape]`
//! function, which Mica keeps exactly as written), a hand-written adjoint
//! with the same signature as Mica's `_backward`, and, where a peer crate
//! can express it, the peers' gradients (in [`peers`]).

pub mod advection;
pub mod ba;
pub mod calls;
pub mod course;
pub mod data;
pub mod exits;
pub mod factored;
pub mod gmm;
pub mod helmholtz;
pub mod higher;
pub mod logistic;
pub mod mlp;
pub mod ode;
pub mod outside;
pub mod peers;
pub mod peers_ad_trait;
pub mod peers_candle;
pub mod peers_echidna;
pub mod peers_higher;
pub mod rosenbrock;

/// A time in nanoseconds as the report prints it: `12.3 ns`, `4.56 µs`,
/// `7.89 ms` or `1.23 s`.
pub fn time(ns: f64) -> String {
    if ns < 1e3 {
        format!("{ns:.1} ns")
    } else if ns < 1e6 {
        format!("{:.2} µs", ns / 1e3)
    } else if ns < 1e9 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.2} s", ns / 1e9)
    }
}

/// The largest relative difference between two gradients, each slope scaled
/// by `max(1, |a|, |b|)`.
pub fn max_rel_diff(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len(), "gradients of different lengths");
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs() / 1.0_f64.max(x.abs()).max(y.abs()))
        .fold(0.0, f64::max)
}

/// Asserts that two gradients agree within `1e-10` relative.
pub fn assert_close(what: &str, a: &[f64], b: &[f64]) {
    assert_close_within(what, a, b, 1e-10);
}

/// Asserts that two gradients agree within `tol` relative.
pub fn assert_close_within(what: &str, a: &[f64], b: &[f64], tol: f64) {
    let d = max_rel_diff(a, b);
    assert!(d <= tol, "{what}: gradients differ by {d:e} relative");
}
