//! GradBench's `llsq`: the linear least-squares objective
//! `½ Σ_i (s(t_i) − Σ_j x_j t_i^j)²` over `n` points `t_i = −1 + 2i/(n − 1)`,
//! `s = sign`, with `m` coefficients `x`; the powers `t_i^j` by repeated
//! multiplication in the inner loop, as GradBench's reference writes it.

// written as its authors write it, with index loops
#![allow(clippy::needless_range_loop)]

use crate::data::Lcg;
use mica::tape;

/// Data points.
pub const N: usize = 1000;
/// Coefficients.
pub const M: usize = 32;

/// The primal.
#[tape]
pub fn llsq(#[tracked] x: &[f64], n: usize) -> f64 {
    let m = x.len();
    let mut sum = 0.0;
    for i in 0..n {
        let ti = -1.0 + 2.0 * i as f64 / (n as f64 - 1.0);
        let mut inner = 0.0;
        let mut mul = 1.0;
        for j in 0..m {
            inner += x[j] * mul;
            mul *= ti;
        }
        let r = ti.signum() - inner;
        sum += r * r;
    }
    0.5 * sum
}

/// The hand-written adjoint: one pass; each point's residual `r` adds
/// `−r t_i^j` to slope `j`. The powers are kept in a buffer as the forward
/// sum makes them, so that the update is a multiply-add per slope with no
/// chain of multiplications through it.
pub fn llsq_hand(x: &[f64], n: usize, seed: f64, d_x: &mut [f64]) -> f64 {
    assert_eq!(x.len(), d_x.len());
    let mut powers = vec![0.0; x.len()];
    let mut sum = 0.0;
    for i in 0..n {
        let ti = -1.0 + 2.0 * i as f64 / (n as f64 - 1.0);
        let mut inner = 0.0;
        let mut mul = 1.0;
        for (xj, pj) in x.iter().zip(powers.iter_mut()) {
            inner += xj * mul;
            *pj = mul;
            mul *= ti;
        }
        let r = ti.signum() - inner;
        sum += r * r;
        let g = -seed * r;
        for (dj, pj) in d_x.iter_mut().zip(&powers) {
            *dj += g * pj;
        }
    }
    0.5 * sum
}

/// `m` coefficients in `[-1, 1)`.
pub fn input(m: usize) -> Vec<f64> {
    Lcg::new(0x115 + m as u64).vec(m, -1.0, 1.0)
}
