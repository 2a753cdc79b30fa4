//! The mean squared difference of two vectors as one iterator chain,
//! `x.iter().zip(y).map(|(a, b)| (a − b).powi(2)).sum()`, divided by `n`.

use crate::data::Lcg;
use mica::tape;

/// Elements.
pub const N: usize = 10_000;

/// The primal.
#[tape]
pub fn mse(#[tracked] x: &[f64], y: &[f64]) -> f64 {
    let s: f64 = x.iter().zip(y).map(|(a, b)| (a - b).powi(2)).sum();
    s / x.len() as f64
}

/// The hand-written adjoint: one pass, `2 (x_i − y_i) / n`.
pub fn mse_hand(x: &[f64], y: &[f64], seed: f64, d_x: &mut [f64]) -> f64 {
    assert_eq!(d_x.len(), x.len());
    let c = 2.0 * seed / x.len() as f64;
    let mut s = 0.0;
    for ((d, a), b) in d_x.iter_mut().zip(x).zip(y) {
        let r = a - b;
        s += r * r;
        *d += c * r;
    }
    s / x.len() as f64
}

/// Two vectors in `[-1, 1)`.
pub fn input(n: usize) -> (Vec<f64>, Vec<f64>) {
    let mut g = Lcg::new(0xc4a1 + n as u64);
    (g.vec(n, -1.0, 1.0), g.vec(n, -1.0, 1.0))
}
