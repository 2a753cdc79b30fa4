//! A robust regression loss factored into small helpers, as people write
//! it: `predict` (a linear model with its bias first), `huber` (quadratic
//! within `delta`, linear outside, a branch on the residual) and `l2` (the
//! squared norm of the weights, an iterator chain), in a `#[tape] mod`;
//! `loss = mean huber(predict(w, x_i) − y_i) + λ l2(w)`. Knob: `w`.

// written as its authors write it, with index loops
#![allow(clippy::needless_range_loop)]

use crate::data::Lcg;

pub use robust::{robust_loss, robust_loss_backward, robust_loss_grad};

/// Features.
pub const D: usize = 8;
/// Examples.
pub const N: usize = 1000;
/// Huber's threshold.
pub const DELTA: f64 = 0.5;
/// The weight decay.
pub const LAMBDA: f64 = 1e-2;

#[mica::tape]
pub mod robust {
    pub fn predict(w: &[f64], x: &[f64]) -> f64 {
        let mut s = w[0];
        for j in 0..x.len() {
            s += w[j + 1] * x[j];
        }
        s
    }

    pub fn huber(r: f64, delta: f64) -> f64 {
        if r.abs() <= delta {
            0.5 * r * r
        } else {
            delta * (r.abs() - 0.5 * delta)
        }
    }

    pub fn l2(w: &[f64]) -> f64 {
        w.iter().map(|v| v * v).sum()
    }

    /// The primal: `xs` is row-major, `n × (w.len() − 1)`.
    pub fn robust_loss(
        #[tracked] w: &[f64],
        xs: &[f64],
        ys: &[f64],
        delta: f64,
        lambda: f64,
    ) -> f64 {
        let d = w.len() - 1;
        let n = ys.len();
        let mut total = 0.0;
        for i in 0..n {
            let r = predict(w, &xs[i * d..(i + 1) * d]) - ys[i];
            total += huber(r, delta);
        }
        total / n as f64 + lambda * l2(w)
    }
}

/// The hand-written adjoint: one pass; Huber's slope is `r` inside the
/// threshold and `δ sign(r)` outside.
pub fn robust_loss_hand(
    w: &[f64],
    xs: &[f64],
    ys: &[f64],
    delta: f64,
    lambda: f64,
    seed: f64,
    d_w: &mut [f64],
) -> f64 {
    assert_eq!(d_w.len(), w.len());
    let d = w.len() - 1;
    let n = ys.len();
    let c = seed / n as f64;
    let mut total = 0.0;
    let mut d_bias = 0.0;
    for (x, y) in xs.chunks_exact(d).zip(ys) {
        let mut s = w[0];
        for (wj, xj) in w[1..].iter().zip(x) {
            s += wj * xj;
        }
        let r = s - y;
        let (h, slope) = if r.abs() <= delta {
            (0.5 * r * r, r)
        } else {
            (delta * (r.abs() - 0.5 * delta), delta * r.signum())
        };
        total += h;
        let g = c * slope;
        d_bias += g;
        for (dj, xj) in d_w[1..].iter_mut().zip(x) {
            *dj += g * xj;
        }
    }
    d_w[0] += d_bias;
    let mut l2 = 0.0;
    for (dj, wj) in d_w.iter_mut().zip(w) {
        l2 += wj * wj;
        *dj += 2.0 * lambda * seed * wj;
    }
    total / n as f64 + lambda * l2
}

/// Features, responses with outliers, and starting weights: `(w, xs, ys)`.
pub fn problem(n: usize, d: usize) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let mut g = Lcg::new((n * 101 + d) as u64);
    let truth = g.vec(d + 1, -1.0, 1.0);
    let xs = g.vec(n * d, -1.0, 1.0);
    let ys = xs
        .chunks_exact(d)
        .enumerate()
        .map(|(i, x)| {
            let clean = truth[0] + truth[1..].iter().zip(x).map(|(a, b)| a * b).sum::<f64>();
            let outlier = if i % 17 == 0 { 3.0 } else { 0.0 };
            clean + 0.2 * g.range(-1.0, 1.0) + outlier
        })
        .collect();
    let w = g.vec(d + 1, -0.5, 0.5);
    (w, xs, ys)
}
