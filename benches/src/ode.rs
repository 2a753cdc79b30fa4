//! A damped oscillator `x'' = −k x − c v`, 1,000 steps of semi-implicit
//! Euler from `x = 1, v = 0`; the loss is `dt Σ_t (x_t − obs_t)²` and the
//! gradient is taken with respect to `(k, c)`.

// the programs are written in the vocabulary Mica records (index loops, `vec!` arrays)
#![allow(clippy::needless_range_loop)]

use mica::tape;

/// The time step.
pub const DT: f64 = 0.01;
/// Steps.
pub const STEPS: usize = 1000;

/// The primal.
#[tape(tangent, hvp)]
pub fn oscillator(#[tracked] k: f64, #[tracked] c: f64, obs: &[f64]) -> f64 {
    let mut x = 1.0;
    let mut v = 0.0;
    let mut loss = 0.0;
    for t in 0..obs.len() {
        let a = -k * x - c * v;
        v += DT * a;
        x += DT * v;
        let r = x - obs[t];
        loss += r * r;
    }
    loss * DT
}

/// The hand-written adjoint: the trajectory is stored, then walked backward.
pub fn oscillator_hand(
    k: f64,
    c: f64,
    obs: &[f64],
    seed: f64,
    d_k: &mut f64,
    d_c: &mut f64,
) -> f64 {
    let n = obs.len();
    let mut xs = Vec::with_capacity(n + 1);
    let mut vs = Vec::with_capacity(n + 1);
    let (mut x, mut v) = (1.0, 0.0);
    xs.push(x);
    vs.push(v);
    let mut loss = 0.0;
    for o in obs {
        let a = -k * x - c * v;
        v += DT * a;
        x += DT * v;
        xs.push(x);
        vs.push(v);
        let r = x - o;
        loss += r * r;
    }
    let (mut ax, mut av) = (0.0, 0.0);
    let (mut dk, mut dc) = (0.0, 0.0);
    let s = seed * DT;
    for t in (0..n).rev() {
        ax += s * 2.0 * (xs[t + 1] - obs[t]);
        av += DT * ax;
        let aa = DT * av;
        dk -= xs[t] * aa;
        dc -= vs[t] * aa;
        ax -= k * aa;
        av -= c * aa;
    }
    *d_k += dk;
    *d_c += dc;
    loss * DT
}

/// Observations: a damped cosine sampled at the step times.
pub fn observations() -> Vec<f64> {
    (1..=STEPS)
        .map(|t| {
            let tt = t as f64 * DT;
            (-0.15 * tt).exp() * (2.1 * tt).cos()
        })
        .collect()
}
