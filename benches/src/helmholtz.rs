//! The Helmholtz free energy of a mixed fluid (Griewank and Walther's test
//! function), with `RT = 1`:
//! `f(x) = Σ x_i ln(x_i / (1 − bᵀx)) − xᵀAx / (√8 bᵀx) · ln((1 + (1+√2) bᵀx) / (1 + (1−√2) bᵀx))`.
//! `A` is row-major, `n × n`.

// the program is written in the vocabulary Mica records (index loops)
#![allow(clippy::needless_range_loop)]

use crate::data::Lcg;
use mica::tape;
use std::f64::consts::SQRT_2;

/// The primal.
#[tape(tangent, hvp)]
pub fn helmholtz(#[tracked] x: &[f64], a: &[f64], b: &[f64]) -> f64 {
    let n = x.len();
    let mut bx = 0.0;
    for i in 0..n {
        bx += b[i] * x[i];
    }
    let mut xax = 0.0;
    for i in 0..n {
        let mut ax = 0.0;
        for j in 0..n {
            ax += a[i * n + j] * x[j];
        }
        xax += x[i] * ax;
    }
    let mut s = 0.0;
    for i in 0..n {
        s += x[i] * (x[i] / (1.0 - bx)).ln();
    }
    let p = 1.0 + (1.0 + SQRT_2) * bx;
    let q = 1.0 + (1.0 - SQRT_2) * bx;
    s - xax / (8.0_f64.sqrt() * bx) * (p / q).ln()
}

/// The hand-written adjoint.
pub fn helmholtz_hand(x: &[f64], a: &[f64], b: &[f64], seed: f64, d_x: &mut [f64]) -> f64 {
    let n = x.len();
    assert_eq!(d_x.len(), n);
    let bx: f64 = b.iter().zip(x).map(|(u, v)| u * v).sum();
    let sx: f64 = x.iter().sum();
    let t = 1.0 - bx;
    // A x and Aᵀ x in one sweep over A
    let mut ax = vec![0.0; n];
    let mut atx = vec![0.0; n];
    for (i, row) in a.chunks_exact(n).enumerate() {
        let mut s = 0.0;
        for (j, &aij) in row.iter().enumerate() {
            s += aij * x[j];
            atx[j] += aij * x[i];
        }
        ax[i] = s;
    }
    let xax: f64 = x.iter().zip(&ax).map(|(u, v)| u * v).sum();
    let s: f64 = x.iter().map(|&v| v * (v / t).ln()).sum();
    let p = 1.0 + (1.0 + SQRT_2) * bx;
    let q = 1.0 + (1.0 - SQRT_2) * bx;
    let l = (p / q).ln();
    let r8 = 8.0_f64.sqrt();
    let g = l / (r8 * bx);
    let dl = (1.0 + SQRT_2) / p - (1.0 - SQRT_2) / q;
    let dg = (dl * bx - l) / (r8 * bx * bx);
    for k in 0..n {
        let d1 = (x[k] / t).ln() + 1.0 + sx * b[k] / t;
        let d2 = g * (ax[k] + atx[k]) + xax * dg * b[k];
        d_x[k] += seed * (d1 - d2);
    }
    s - xax * g
}

/// A problem of size `n`: `(x, A, b)` with `bᵀx` well below 1.
pub fn problem(n: usize) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let mut g = Lcg::new(n as u64 + 99);
    let x = g.vec(n, 0.1, 1.0);
    let b = g.vec(n, 0.0, 1.0 / n as f64);
    let mut a = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..=i {
            let v = g.range(-1.0, 1.0);
            a[i * n + j] = v;
            a[j * n + i] = v;
        }
    }
    (x, a, b)
}
