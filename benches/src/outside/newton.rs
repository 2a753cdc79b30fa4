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

/// A second hand-written adjoint, of what Mica differentiates: the
/// iterations the solve runs, reversed. Not the fastest adjoint (that is
/// [`implicit_fit_hand`]), but the limit for an adjoint of the iterations:
/// the forward keeps each point's iterates on the stack (at most 50), the
/// reverse walks them back, recomputing `f` and `g = 1 + 3 a z²` from the
/// kept iterate, one division a step. With `z' = z − f/g`:
/// `∂z'/∂z = 6 a z f / g²`, `∂z'/∂a = −(z³ g − 3 z² f) / g²` and, through
/// `rhs = k x` (read by `f` and by the start `z₀ = rhs`), `∂z'/∂rhs = 1/g`.
pub fn implicit_fit_iterations_hand(
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
    let mut zs = [0.0; 50];
    for (x, y) in xs.iter().zip(ys) {
        let rhs = k * x;
        let mut z = rhs;
        let mut iter = 0;
        loop {
            zs[iter] = z;
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
        // reverse: `dz` is the adjoint of the current iterate
        let mut dz = 2.0 * r * seed;
        let mut d_rhs = 0.0;
        for &z in zs[..iter].iter().rev() {
            let z2 = z * z;
            let f = z + a * z2 * z - rhs;
            let q = dz / (1.0 + 3.0 * a * z2);
            let t = q * f / (1.0 + 3.0 * a * z2);
            // z' = z − f/g: through f (slope g, cancelling the 1) and g
            da -= q * z2 * z - t * 3.0 * z2;
            d_rhs += q;
            dz = t * 6.0 * a * z;
        }
        // the start, z₀ = rhs
        d_rhs += dz;
        dk += d_rhs * x;
    }
    *d_a += da;
    *d_k += dk;
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
