//! The chained Rosenbrock function, `Σ_i 100 (x_{i+1} − x_i²)² + (1 − x_i)²`
//! over consecutive pairs (each element in two terms), with `powi(2)` as
//! people write it.

use mica::tape;

/// Elements.
pub const N: usize = 1000;

/// The primal.
#[tape]
pub fn chained_rosenbrock(#[tracked] x: &[f64]) -> f64 {
    let mut f = 0.0;
    for i in 0..x.len() - 1 {
        f += 100.0 * (x[i + 1] - x[i] * x[i]).powi(2) + (1.0 - x[i]).powi(2);
    }
    f
}

/// The hand-written adjoint: one pass, each slope written once; the slope
/// of term `i − 1` to `x_i` is carried to the next iteration in a register.
pub fn chained_rosenbrock_hand(x: &[f64], seed: f64, d_x: &mut [f64]) -> f64 {
    let n = x.len();
    assert_eq!(d_x.len(), n);
    let mut f = 0.0;
    let mut carry = 0.0;
    for i in 0..n - 1 {
        let (a, b) = (x[i], x[i + 1]);
        let t = b - a * a;
        let u = 1.0 - a;
        f += 100.0 * (t * t) + u * u;
        let dt = 200.0 * seed * t;
        d_x[i] += carry - 2.0 * a * dt - 2.0 * seed * u;
        carry = dt;
    }
    d_x[n - 1] += carry;
    f
}

/// The usual start, `(−1.2, 1, −1.2, 1, …)`, perturbed.
pub fn start(n: usize) -> Vec<f64> {
    crate::rosenbrock::start(n)
}
