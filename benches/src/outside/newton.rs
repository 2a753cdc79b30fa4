//! An implicit model fitted to data: the response `z_i` to the input `x_i`
//! solves `z + a z³ = k x_i`, found per data point by Newton's iteration in
//! a `loop` left by `break` once the step is below a tolerance (or after 50
//! steps); the loss is `Σ_i (z_i − y_i)²`. Knobs: `a` and `k`.

// written as its authors write it, with index loops
#![allow(clippy::needless_range_loop)]

use crate::data::Lcg;
use mica::tape;

/// Data points.
pub const N: usize = 1000;
/// The tolerance on a Newton step.
pub const TOL: f64 = 1e-12;

/// The primal.
#[tape]
pub fn implicit_fit(#[tracked] a: f64, #[tracked] k: f64, xs: &[f64], ys: &[f64]) -> f64 {
    let mut loss = 0.0;
    for i in 0..xs.len() {
        let rhs = k * xs[i];
        let mut z = rhs;
        let mut iter = 0;
        loop {
            let f = z + a * z * z * z - rhs;
            let step = f / (1.0 + 3.0 * a * z * z);
            z -= step;
            iter += 1;
            if step.abs() < TOL || iter == 50 {
                break;
            }
        }
        let r = z - ys[i];
        loss += r * r;
    }
    loss
}

/// The hand-written adjoint: the same solve, then the implicit function
/// theorem at the solution instead of the iterations' reverse: with
/// `g = 1 + 3 a z²`, `∂z/∂a = −z³/g` and `∂z/∂k = x/g`. One pass, nothing
/// kept. It differs from the derivative of the last iterate by about the
/// last step (below `TOL`), which the tests allow for.
pub fn implicit_fit_hand(
    a: f64,
    k: f64,
    xs: &[f64],
    ys: &[f64],
    seed: f64,
    d_a: &mut f64,
    d_k: &mut f64,
) -> f64 {
    let mut loss = 0.0;
    let (mut da, mut dk) = (0.0, 0.0);
    for (x, y) in xs.iter().zip(ys) {
        let rhs = k * x;
        let mut z = rhs;
        let mut iter = 0;
        loop {
            let f = z + a * z * z * z - rhs;
            let step = f / (1.0 + 3.0 * a * z * z);
            z -= step;
            iter += 1;
            if step.abs() < TOL || iter == 50 {
                break;
            }
        }
        let r = z - y;
        loss += r * r;
        let q = 2.0 * r / (1.0 + 3.0 * a * z * z);
        da -= q * z * z * z;
        dk += q * x;
    }
    *d_a += seed * da;
    *d_k += seed * dk;
    loss
}

/// Inputs in `[-2, 2)` and noisy responses of the model at `a = 0.5`,
/// `k = 1.5`: `(xs, ys)`.
pub fn data(n: usize) -> (Vec<f64>, Vec<f64>) {
    let mut g = Lcg::new(0x9e3 + n as u64);
    let xs = g.vec(n, -2.0, 2.0);
    let ys = xs
        .iter()
        .map(|x| {
            // the model at a = 0.5, k = 1.5, by bisection
            let rhs = 1.5 * x;
            let (mut lo, mut hi) = (-10.0_f64, 10.0_f64);
            for _ in 0..200 {
                let mid = 0.5 * (lo + hi);
                if mid + 0.5 * mid * mid * mid < rhs {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            0.5 * (lo + hi) + 0.05 * g.range(-1.0, 1.0)
        })
        .collect();
    (xs, ys)
}
