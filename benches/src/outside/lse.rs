//! GradBench's `lse`: the log-sum-exp of a vector, `m + ln Σ_i exp(x_i − m)`
//! with `m = max_i x_i`, written the usual way: the maximum by a fold, not
//! detached (its slope cancels: `1 − Σ_i softmax_i`).

use crate::data::Lcg;
use mica::tape;

/// Elements.
pub const N: usize = 1000;

/// The primal.
#[tape]
pub fn lse(#[tracked] x: &[f64]) -> f64 {
    let m = x.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let s: f64 = x.iter().map(|xi| (xi - m).exp()).sum();
    m + s.ln()
}

/// The hand-written adjoint: the slope is the softmax, `exp(x_i − m) / s`.
/// The exponentials are kept (one buffer) rather than computed twice; the
/// maximum's slope, zero in exact arithmetic, is left out.
pub fn lse_hand(x: &[f64], seed: f64, d_x: &mut [f64]) -> f64 {
    assert_eq!(x.len(), d_x.len());
    let m = x.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
    let e: Vec<f64> = x.iter().map(|xi| (xi - m).exp()).collect();
    let s: f64 = e.iter().sum();
    let c = seed / s;
    for (d, ei) in d_x.iter_mut().zip(&e) {
        *d += c * ei;
    }
    m + s.ln()
}

/// `n` numbers in `[-3, 3)`.
pub fn input(n: usize) -> Vec<f64> {
    Lcg::new(0x15e + n as u64).vec(n, -3.0, 3.0)
}
