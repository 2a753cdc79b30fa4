//! An RNN scan: `h_{t+1} = tanh(W h_t + U x_t + b)` from `h_0 = 0` over 50
//! steps, hidden 8, input 4; the loss `½‖h_T − y‖²` on the last state.
//! Knobs: `W` (`H × H`), `U` (`H × I`), both row-major, and `b`.

// written as its authors write it, with index loops
#![allow(clippy::needless_range_loop)]

use crate::data::Lcg;
use mica::tape;

/// Hidden units.
pub const H: usize = 8;
/// Inputs.
pub const I: usize = 4;
/// Steps.
pub const STEPS: usize = 50;

/// The primal.
#[tape]
pub fn rnn(
    #[tracked] w: &[f64],
    #[tracked] u: &[f64],
    #[tracked] b: &[f64],
    xs: &[f64],
    target: &[f64],
) -> f64 {
    let mut h = [0.0; H];
    for t in 0..STEPS {
        let mut next = [0.0; H];
        for i in 0..H {
            let mut z = b[i];
            for j in 0..H {
                z += w[i * H + j] * h[j];
            }
            for j in 0..I {
                z += u[i * I + j] * xs[t * I + j];
            }
            next[i] = z.tanh();
        }
        h = next;
    }
    let mut loss = 0.0;
    for i in 0..H {
        let r = h[i] - target[i];
        loss += r * r;
    }
    0.5 * loss
}

/// The hand-written adjoint: the states on the stack (`(STEPS + 1) × H`),
/// then backpropagation through time: `δ = λ ∘ (1 − h²)`, `∂W += δ hᵀ`,
/// `∂U += δ xᵀ`, `∂b += δ`, `λ = Wᵀ δ`.
#[allow(clippy::too_many_arguments)]
pub fn rnn_hand(
    w: &[f64],
    u: &[f64],
    b: &[f64],
    xs: &[f64],
    target: &[f64],
    seed: f64,
    d_w: &mut [f64],
    d_u: &mut [f64],
    d_b: &mut [f64],
) -> f64 {
    let (w, u, b) = (&w[..H * H], &u[..H * I], &b[..H]);
    let (d_w, d_u, d_b) = (&mut d_w[..H * H], &mut d_u[..H * I], &mut d_b[..H]);
    let mut hs = [[0.0; H]; STEPS + 1];
    for t in 0..STEPS {
        let x = &xs[t * I..(t + 1) * I];
        let h = hs[t];
        for i in 0..H {
            let mut z = b[i];
            for j in 0..H {
                z += w[i * H + j] * h[j];
            }
            for j in 0..I {
                z += u[i * I + j] * x[j];
            }
            hs[t + 1][i] = z.tanh();
        }
    }
    let mut loss = 0.0;
    let mut lam = [0.0; H];
    for i in 0..H {
        let r = hs[STEPS][i] - target[i];
        loss += r * r;
        lam[i] = seed * r;
    }
    for t in (0..STEPS).rev() {
        let x = &xs[t * I..(t + 1) * I];
        let (h, out) = (&hs[t], &hs[t + 1]);
        let mut delta = [0.0; H];
        for i in 0..H {
            delta[i] = lam[i] * (1.0 - out[i] * out[i]);
        }
        let mut next = [0.0; H];
        for i in 0..H {
            let di = delta[i];
            d_b[i] += di;
            for j in 0..H {
                d_w[i * H + j] += di * h[j];
                next[j] += w[i * H + j] * di;
            }
            for j in 0..I {
                d_u[i * I + j] += di * x[j];
            }
        }
        lam = next;
    }
    0.5 * loss
}

/// Weights, inputs and a target: `(w, u, b, xs, target)`.
pub type Problem = (Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>);

/// A deterministic problem.
pub fn problem() -> Problem {
    let mut g = Lcg::new(0x2424);
    let w = g.vec(H * H, -0.5, 0.5);
    let u = g.vec(H * I, -0.5, 0.5);
    let b = g.vec(H, -0.1, 0.1);
    let xs = g.vec(STEPS * I, -1.0, 1.0);
    let target = g.vec(H, -0.5, 0.5);
    (w, u, b, xs, target)
}
