//! GradBench's `ode`: `y' = f(x, y)` with `f_0 = x_0`, `f_i = x_i y_{i−1}`,
//! integrated from `y = 0` over `[0, 2]` by `s` steps of the classical
//! Runge–Kutta scheme, the state and stages in arrays updated in place
//! each step; the output is the last element of the final state, its
//! gradient taken with respect to `x`.

// written as its authors write it, with index loops and `vec!` arrays
#![allow(clippy::needless_range_loop)]

use crate::data::Lcg;

pub use gradbench_ode::{ode, ode_backward, ode_grad};

/// The state's length.
pub const N: usize = 10;
/// Steps.
pub const STEPS: usize = 1000;
/// The end of the interval.
pub const TF: f64 = 2.0;

#[mica::tape]
pub mod gradbench_ode {
    /// The right-hand side, into `z`.
    pub fn ode_fun(x: &[f64], y: &[f64], z: &mut [f64]) {
        z[0] = x[0];
        for i in 1..x.len() {
            z[i] = x[i] * y[i - 1];
        }
    }

    /// The primal.
    pub fn ode(#[tracked] x: &[f64], s: usize) -> f64 {
        let n = x.len();
        let h = super::TF / s as f64;
        let mut y = vec![0.0; n];
        let mut k1 = vec![0.0; n];
        let mut k2 = vec![0.0; n];
        let mut k3 = vec![0.0; n];
        let mut k4 = vec![0.0; n];
        let mut tmp = vec![0.0; n];
        for _ in 0..s {
            ode_fun(x, &y, &mut k1);
            for i in 0..n {
                tmp[i] = y[i] + h / 2.0 * k1[i];
            }
            ode_fun(x, &tmp, &mut k2);
            for i in 0..n {
                tmp[i] = y[i] + h / 2.0 * k2[i];
            }
            ode_fun(x, &tmp, &mut k3);
            for i in 0..n {
                tmp[i] = y[i] + h * k3[i];
            }
            ode_fun(x, &tmp, &mut k4);
            for i in 0..n {
                y[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
            }
        }
        y[n - 1]
    }
}

/// The hand-written adjoint. The forward pass keeps each step's state and
/// its three stage points `y + h/2 k1`, `y + h/2 k2`, `y + h k3` (`4n`
/// values a step). Each step's reverse is one downward pass over the
/// state: stage `k` reads only element `i − 1` of its point, so the stage
/// adjoints of element `i + 1` are all the pass carries, in registers.
pub fn ode_hand(x: &[f64], s: usize, seed: f64, d_x: &mut [f64]) -> f64 {
    let n = x.len();
    assert!(n >= 1 && d_x.len() == n);
    let h = TF / s as f64;
    // per step: y, then the three stage points
    let mut keep = vec![0.0; 4 * n * s];
    let mut y = vec![0.0; n];
    for rec in keep.chunks_exact_mut(4 * n) {
        let (ys, rest) = rec.split_at_mut(n);
        let (p2, rest) = rest.split_at_mut(n);
        let (p3, p4) = rest.split_at_mut(n);
        // one upward pass: every stage of element i reads element i − 1 of
        // its point, made the iteration before
        let (mut y_prev, mut p2_prev, mut p3_prev, mut p4_prev) = (0.0, 0.0, 0.0, 0.0);
        for i in 0..n {
            let xi = x[i];
            let (k1, k2, k3, k4) = if i == 0 {
                (xi, xi, xi, xi)
            } else {
                (xi * y_prev, xi * p2_prev, xi * p3_prev, xi * p4_prev)
            };
            let yi = y[i];
            ys[i] = yi;
            y_prev = yi;
            p2_prev = yi + h / 2.0 * k1;
            p3_prev = yi + h / 2.0 * k2;
            p4_prev = yi + h * k3;
            (p2[i], p3[i], p4[i]) = (p2_prev, p3_prev, p4_prev);
            y[i] = yi + h / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4);
        }
    }
    let value = y[n - 1];
    // reverse: `a` is the state's adjoint
    let mut a = vec![0.0; n];
    a[n - 1] = seed;
    for rec in keep.chunks_exact(4 * n).rev() {
        let (ys, rest) = rec.split_at(n);
        let (p2, rest) = rest.split_at(n);
        let (p3, p4) = rest.split_at(n);
        // stage adjoints of element i + 1, carried down
        let (mut c4, mut c3, mut c2, mut c1) = (0.0, 0.0, 0.0, 0.0);
        let mut x_up = 0.0;
        for i in (0..n).rev() {
            let ai = a[i];
            // the point of stage 4 is y + h k3, of 3 is y + h/2 k2, of 2 is y + h/2 k1
            let g4 = x_up * c4; // adjoint of p4[i]
            let k4 = h / 6.0 * ai;
            let k3 = h / 3.0 * ai + h * g4;
            let g3 = x_up * c3;
            let k2 = h / 3.0 * ai + h / 2.0 * g3;
            let g2 = x_up * c2;
            let k1 = h / 6.0 * ai + h / 2.0 * g2;
            let g1 = x_up * c1;
            a[i] = ai + g4 + g3 + g2 + g1;
            d_x[i] += if i == 0 {
                k4 + k3 + k2 + k1
            } else {
                k4 * p4[i - 1] + k3 * p3[i - 1] + k2 * p2[i - 1] + k1 * ys[i - 1]
            };
            (c4, c3, c2, c1) = (k4, k3, k2, k1);
            x_up = x[i];
        }
    }
    value
}

/// `n` coefficients in `[0.5, 1.5)`.
pub fn input(n: usize) -> Vec<f64> {
    Lcg::new(0x0de + n as u64).vec(n, 0.5, 1.5)
}
