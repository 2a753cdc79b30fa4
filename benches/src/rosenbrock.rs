//! The extended Rosenbrock function (pairs `(x_{2i}, x_{2i+1})`):
//! `f = Σ_i 100 (x_{2i+1} − x_{2i}²)² + (1 − x_{2i})²`.

use mica::tape;

/// The primal.
#[tape(tangent, hvp)]
pub fn rosenbrock(#[tracked] x: &[f64]) -> f64 {
    let mut f = 0.0;
    for i in 0..x.len() / 2 {
        let a = x[2 * i];
        let b = x[2 * i + 1];
        let t = b - a * a;
        let u = 1.0 - a;
        f += 100.0 * t * t + u * u;
    }
    f
}

/// The hand-written adjoint.
pub fn rosenbrock_hand(x: &[f64], seed: f64, d_x: &mut [f64]) -> f64 {
    assert_eq!(x.len(), d_x.len());
    let mut f = 0.0;
    for (xs, ds) in x.chunks_exact(2).zip(d_x.chunks_exact_mut(2)) {
        let (a, b) = (xs[0], xs[1]);
        let t = b - a * a;
        let u = 1.0 - a;
        f += 100.0 * t * t + u * u;
        let dt = seed * 200.0 * t;
        ds[0] += -2.0 * a * dt - seed * 2.0 * u;
        ds[1] += dt;
    }
    f
}

/// A starting point: `x_i = −1.2` for even `i`, `1` for odd, perturbed.
pub fn start(n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| {
            let base = if i % 2 == 0 { -1.2 } else { 1.0 };
            base + 0.01 * (i % 7) as f64
        })
        .collect()
}
