//! Loops that end early, as the people who write them write them: Kepler's
//! equation `E − e sin E = M` solved by Newton's iteration for each of `n`
//! mean anomalies (a `loop` left by `break` once the residual is below
//! 1e-13), and a masked sum (`continue` past the masked elements). The
//! gradients are taken with respect to the eccentricity and the anomalies,
//! and to the weights.

// the programs are written in the vocabulary Mica records (index loops)
#![allow(clippy::needless_range_loop)]

use mica::tape;

/// The most Newton steps per anomaly.
pub const MAX_STEPS: usize = 30;

/// `Σ E_i²`, each `E_i` solving Kepler's equation for `m_i` by Newton's
/// iteration from `E = m_i`.
#[tape(tangent, hvp)]
pub fn kepler(#[tracked] e: f64, #[tracked] m: &[f64]) -> f64 {
    let mut total = 0.0;
    for i in 0..m.len() {
        let mut x = m[i];
        let mut k = 0;
        loop {
            let f = x - e * x.sin() - m[i];
            if f.abs() < 1e-13 || k == MAX_STEPS {
                break;
            }
            x -= f / (1.0 - e * x.cos());
            k += 1;
        }
        total += x * x;
    }
    total
}

/// The hand-written adjoint: each anomaly's iterates are kept on the stack
/// and walked back right after its solve. A step `x' = x − f/g` (`f = x −
/// e sin x − m`, `g = 1 − e cos x`) has slopes `f e sin x / g²` to `x`,
/// `(g sin x − f cos x) / g²` to `e` and `1/g` to `m`.
pub fn kepler_hand(e: f64, m: &[f64], seed: f64, d_e: &mut f64, d_m: &mut [f64]) -> f64 {
    let mut total = 0.0;
    let mut de = 0.0;
    let mut xs = [0.0; MAX_STEPS + 1];
    for i in 0..m.len() {
        let mi = m[i];
        let mut x = mi;
        let mut k = 0;
        loop {
            let f = x - e * x.sin() - mi;
            if f.abs() < 1e-13 || k == MAX_STEPS {
                break;
            }
            xs[k] = x;
            x -= f / (1.0 - e * x.cos());
            k += 1;
        }
        total += x * x;
        let mut a = 2.0 * x * seed;
        let mut dm = 0.0;
        for j in (0..k).rev() {
            let xj = xs[j];
            let (s, c) = xj.sin_cos();
            let f = xj - e * s - mi;
            let g = 1.0 - e * c;
            let r = 1.0 / g;
            let q = f * r * r;
            de += a * (s * r - c * q);
            dm += a * r;
            a *= e * s * q;
        }
        d_m[i] += dm + a;
    }
    *d_e += de;
    total
}

/// Anomalies spread over `(0, 2π)`.
pub fn anomalies(n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| 0.05 + 6.18 * (i as f64 + 0.5) / n as f64)
        .collect()
}

/// `Σ tanh(wᵢ xᵢ)` over the elements the mask keeps.
#[tape]
pub fn masked(#[tracked] w: &[f64], x: &[f64], mask: &[bool]) -> f64 {
    let mut total = 0.0;
    for i in 0..w.len() {
        if !mask[i] {
            continue;
        }
        total += (w[i] * x[i]).tanh();
    }
    total
}

/// The hand-written adjoint: one pass, each kept element's slope
/// `(1 − t²) xᵢ` written as it is met.
pub fn masked_hand(w: &[f64], x: &[f64], mask: &[bool], seed: f64, d_w: &mut [f64]) -> f64 {
    let mut total = 0.0;
    for i in 0..w.len() {
        if !mask[i] {
            continue;
        }
        let t = (w[i] * x[i]).tanh();
        total += t;
        d_w[i] += seed * (1.0 - t * t) * x[i];
    }
    total
}

/// Weights, inputs and a mask keeping about two thirds of `n` elements.
pub fn masked_problem(n: usize) -> (Vec<f64>, Vec<f64>, Vec<bool>) {
    let w = (0..n)
        .map(|i| ((i * 37 % 101) as f64 / 50.0) - 1.0)
        .collect();
    let x = (0..n)
        .map(|i| ((i * 53 % 97) as f64 / 40.0) - 1.2)
        .collect();
    let mask = (0..n).map(|i| (i * 7 + 3) % 3 != 0).collect();
    (w, x, mask)
}
