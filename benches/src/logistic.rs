//! Logistic regression: the mean log-loss of `sigmoid(w·x_i + b)` against
//! labels `y_i ∈ {0, 1}`; `x` is row-major, `n × d`.

use crate::data::Lcg;
use mica::tape;

/// The primal.
#[tape(tangent, hvp)]
pub fn logistic(#[tracked] w: &[f64], #[tracked] b: f64, x: &[f64], y: &[f64]) -> f64 {
    let d = w.len();
    let n = y.len();
    let mut total = 0.0;
    for i in 0..n {
        let mut z = b;
        for j in 0..d {
            z += w[j] * x[i * d + j];
        }
        let p = mica::sigmoid(z);
        total += -(y[i] * p.ln() + (1.0 - y[i]) * (1.0 - p).ln());
    }
    total / n as f64
}

/// The hand-written adjoint: `∂/∂z = (p − y) / n`.
pub fn logistic_hand(
    w: &[f64],
    b: f64,
    x: &[f64],
    y: &[f64],
    seed: f64,
    d_w: &mut [f64],
    d_b: &mut f64,
) -> f64 {
    let d = w.len();
    let n = y.len();
    assert_eq!(d_w.len(), d);
    let scale = seed / n as f64;
    let mut total = 0.0;
    for (row, &yi) in x.chunks_exact(d).zip(y) {
        let z = b + row.iter().zip(w).map(|(a, c)| a * c).sum::<f64>();
        let p = 1.0 / (1.0 + (-z).exp());
        total += -(yi * p.ln() + (1.0 - yi) * (1.0 - p).ln());
        let dz = scale * (p - yi);
        *d_b += dz;
        for (dw, xi) in d_w.iter_mut().zip(row) {
            *dw += dz * xi;
        }
    }
    total / n as f64
}

/// A data set: `n × d` features in `[-1, 1)`, labels from a noisy linear rule,
/// and a starting `(w, b)`.
pub struct Problem {
    pub w: Vec<f64>,
    pub b: f64,
    pub x: Vec<f64>,
    pub y: Vec<f64>,
}

/// A deterministic problem of `n` examples and `d` features.
pub fn problem(n: usize, d: usize) -> Problem {
    let mut g = Lcg::new((n * 31 + d) as u64);
    let truth = g.vec(d, -1.0, 1.0);
    let x = g.vec(n * d, -1.0, 1.0);
    let y = x
        .chunks_exact(d)
        .map(|row| {
            let z: f64 = row.iter().zip(&truth).map(|(a, c)| a * c).sum();
            if z + g.range(-0.5, 0.5) > 0.0 {
                1.0
            } else {
                0.0
            }
        })
        .collect();
    let w = g.vec(d, -0.1, 0.1);
    Problem { w, b: 0.05, x, y }
}
