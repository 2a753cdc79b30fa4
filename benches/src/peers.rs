//! The peers' gradients, one function per program and peer, each returning
//! the gradient in the hand-written adjoint's order.
//!
//! - `reverse` (runtime tape, reverse mode): a new tape per gradient.
//! - `num-dual` (forward mode, `Dual64`): one forward pass per input, so
//!   only the programs with few inputs.

use crate::logistic::Problem;
use crate::mlp::{Batch, Params, BATCH, HID, IN, OUT};
use crate::ode::DT;
use num_dual::{Dual64, DualNum};
use reverse::{Gradient, Tape, Var};

// ----- reverse --------------------------------------------------------------

/// The course loss by `reverse`.
pub fn course_reverse(a: f64) -> f64 {
    let tape = Tape::new();
    let a = tape.add_var(a);
    let m1 = a * 1.0 - 2.0;
    let m2 = a * 2.0 - 4.0;
    let m3 = a * 3.0 - 6.0;
    let loss = m1 * m1 + m2 * m2 + m3 * m3;
    loss.grad().wrt(&a)
}

/// Extended Rosenbrock by `reverse`.
pub fn rosenbrock_reverse(x: &[f64]) -> Vec<f64> {
    let tape = Tape::new();
    let xs = tape.add_vars(x);
    let f: Var = xs
        .chunks_exact(2)
        .map(|p| {
            let t = p[1] - p[0] * p[0];
            let u = 1.0 - p[0];
            100.0 * t * t + u * u
        })
        .sum();
    f.grad().wrt(&xs)
}

/// Logistic regression by `reverse`: `(∂w, ∂b)` flattened.
pub fn logistic_reverse(p: &Problem) -> Vec<f64> {
    let tape = Tape::new();
    let d = p.w.len();
    let w = tape.add_vars(&p.w);
    let b = tape.add_var(p.b);
    let total: Var =
        p.x.chunks_exact(d)
            .zip(&p.y)
            .map(|(row, &y)| {
                let mut z = b;
                for (wj, xj) in w.iter().zip(row) {
                    z = z + *wj * *xj;
                }
                // `f64 / Var` in reverse 0.2.2 records slope −1/x, not −c/x²:
                // `recip` is right
                let s = (1.0 + (-z).exp()).recip();
                -(y * s.ln() + (1.0 - y) * (1.0 - s).ln())
            })
            .sum();
    let loss = total / p.y.len() as f64;
    let g = loss.grad();
    let mut out = g.wrt(&w);
    out.push(g.wrt(&b));
    out
}

fn layer<'a>(w: &[Var<'a>], b: &[Var<'a>], x: &[Var<'a>], tanh: bool) -> Vec<Var<'a>> {
    let n = x.len();
    b.iter()
        .enumerate()
        .map(|(j, &bj)| {
            let mut s = bj;
            for (wji, xi) in w[j * n..(j + 1) * n].iter().zip(x) {
                s = s + *wji * *xi;
            }
            if tanh {
                s.tanh()
            } else {
                s
            }
        })
        .collect()
}

/// The MLP's batch gradient by `reverse` (one tape for the batch), flattened
/// in block order.
pub fn mlp_reverse(p: &Params, data: &Batch) -> Vec<f64> {
    let tape = Tape::new();
    let blocks: Vec<Vec<Var>> = p.slices().iter().map(|s| tape.add_vars(s)).collect();
    let mut total = Vec::with_capacity(BATCH);
    for (x, &label) in data.x.chunks_exact(IN).zip(&data.labels) {
        // the input is a constant: a leaf the gradient ignores
        let x: Vec<Var> = tape.add_vars(x);
        let h1 = layer(&blocks[0], &blocks[1], &x, true);
        let h2 = layer(&blocks[2], &blocks[3], &h1, true);
        let o = layer(&blocks[4], &blocks[5], &h2, false);
        debug_assert_eq!((h1.len(), o.len()), (HID, OUT));
        let m = o.iter().map(|v| v.val()).fold(f64::NEG_INFINITY, f64::max);
        let z: Var = o.iter().map(|&ok| (ok - m).exp()).sum();
        total.push(z.ln() + m - o[label]);
    }
    let loss = total.into_iter().sum::<Var>() / BATCH as f64;
    let g = loss.grad();
    blocks.iter().flat_map(|b| g.wrt(b)).collect()
}

fn advect_reverse(
    q0: &[f64],
    nt: usize,
    flux: impl for<'a> Fn(Var<'a>, Var<'a>) -> Var<'a>,
) -> Vec<f64> {
    let tape = Tape::new();
    let leaves = tape.add_vars(q0);
    let mut q = leaves.clone();
    let nx = q.len();
    let mut f = Vec::with_capacity(nx - 1);
    for _ in 0..nt {
        f.clear();
        f.extend((0..nx - 1).map(|i| flux(q[i], q[i + 1])));
        for i in 1..nx - 1 {
            q[i] = q[i] + (f[i - 1] - f[i]);
        }
        q[0] = q[nx - 2];
        q[nx - 1] = q[1];
    }
    let j: Var = q.iter().map(|&v| 0.5 * v * v).sum();
    j.grad().wrt(&leaves)
}

/// Lax–Wendroff by `reverse`.
pub fn lax_wendroff_reverse(q0: &[f64], nt: usize, c: f64) -> Vec<f64> {
    advect_reverse(q0, nt, |a, b| 0.5 * c * (a + b + c * (a - b)))
}

/// Toon's scheme by `reverse`.
pub fn toon_reverse(q0: &[f64], nt: usize, c: f64) -> Vec<f64> {
    advect_reverse(q0, nt, |a, b| {
        ((c * (a / b).ln()).exp() - 1.0) * a * b / (a - b)
    })
}

/// The damped oscillator by `reverse`: `(∂k, ∂c)`.
pub fn oscillator_reverse(k: f64, c: f64, obs: &[f64]) -> Vec<f64> {
    let tape = Tape::new();
    let kc = tape.add_vars(&[k, c]);
    let (k, c) = (kc[0], kc[1]);
    let mut x = tape.add_var(1.0);
    let mut v = tape.add_var(0.0);
    let mut loss = tape.add_var(0.0);
    for o in obs {
        let a = -k * x - c * v;
        v = v + DT * a;
        x = x + DT * v;
        let r = x - *o;
        loss = loss + r * r;
    }
    let loss = loss * DT;
    loss.grad().wrt(&kc)
}

// ----- num-dual -------------------------------------------------------------

/// The course loss by `num-dual`.
pub fn course_dual(a: f64) -> f64 {
    let a = Dual64::new(a, 1.0);
    let m1 = a * 1.0 - 2.0;
    let m2 = a * 2.0 - 4.0;
    let m3 = a * 3.0 - 6.0;
    (m1 * m1 + m2 * m2 + m3 * m3).eps
}

fn seeded(x: &[f64], i: usize) -> Vec<Dual64> {
    x.iter()
        .enumerate()
        .map(|(j, &v)| Dual64::new(v, if i == j { 1.0 } else { 0.0 }))
        .collect()
}

/// Extended Rosenbrock by `num-dual`: one pass per input.
pub fn rosenbrock_dual(x: &[f64]) -> Vec<f64> {
    (0..x.len())
        .map(|i| {
            let xs = seeded(x, i);
            let mut f = Dual64::from_re(0.0);
            for p in xs.chunks_exact(2) {
                let t = p[1] - p[0] * p[0];
                let u = -p[0] + 1.0;
                f += t * t * 100.0 + u * u;
            }
            f.eps
        })
        .collect()
}

/// Logistic regression by `num-dual`: one pass per weight and the bias.
pub fn logistic_dual(p: &Problem) -> Vec<f64> {
    let d = p.w.len();
    let mut at = p.w.clone();
    at.push(p.b);
    (0..=d)
        .map(|i| {
            let v = seeded(&at, i);
            let (w, b) = (&v[..d], v[d]);
            let mut total = Dual64::from_re(0.0);
            for (row, &y) in p.x.chunks_exact(d).zip(&p.y) {
                let mut z = b;
                for (wj, xj) in w.iter().zip(row) {
                    z += *wj * *xj;
                }
                let s = ((-z).exp() + 1.0).recip();
                total -= s.ln() * y + (-s + 1.0).ln() * (1.0 - y);
            }
            (total / p.y.len() as f64).eps
        })
        .collect()
}

/// The damped oscillator by `num-dual`: two passes.
pub fn oscillator_dual(k: f64, c: f64, obs: &[f64]) -> Vec<f64> {
    (0..2)
        .map(|i| {
            let kc = seeded(&[k, c], i);
            let (k, c) = (kc[0], kc[1]);
            let mut x = Dual64::from_re(1.0);
            let mut v = Dual64::from_re(0.0);
            let mut loss = Dual64::from_re(0.0);
            for o in obs {
                let a = -k * x - c * v;
                v += a * DT;
                x += v * DT;
                let r = x - *o;
                loss += r * r;
            }
            (loss * DT).eps
        })
        .collect()
}

/// The Helmholtz energy by `reverse`.
pub fn helmholtz_reverse(x: &[f64], a: &[f64], b: &[f64]) -> Vec<f64> {
    use std::f64::consts::SQRT_2;
    let tape = Tape::new();
    let xs = tape.add_vars(x);
    let n = xs.len();
    let bx: Var = xs.iter().zip(b).map(|(v, &u)| *v * u).sum();
    let xax: Var = (0..n)
        .map(|i| {
            let ax: Var = (0..n).map(|j| xs[j] * a[i * n + j]).sum();
            xs[i] * ax
        })
        .sum();
    let t = 1.0 - bx;
    let s: Var = xs.iter().map(|&v| v * (v * t.recip()).ln()).sum();
    let p = (1.0 + SQRT_2) * bx + 1.0;
    let q = (1.0 - SQRT_2) * bx + 1.0;
    let f = s - xax * (bx * 8.0_f64.sqrt()).recip() * (p * q.recip()).ln();
    f.grad().wrt(&xs)
}

/// `ln Σ exp(v)`, shifted by the maximum's value (a constant).
fn lse_reverse<'a>(v: &[Var<'a>]) -> Var<'a> {
    let m = v.iter().map(|v| v.val()).fold(f64::NEG_INFINITY, f64::max);
    let z: Var = v.iter().map(|&e| (e - m).exp()).sum();
    z.ln() + m
}

/// The GMM objective by `reverse`: `(∂α, ∂μ, ∂icf)` flattened. The
/// log-sum-exp shifts are the maxima's values (constants), as in Mica's.
// index loops over the lower triangle, as ADBench's `Qtimesx`
#[allow(clippy::needless_range_loop)]
pub fn gmm_reverse(p: &crate::gmm::Problem) -> Vec<f64> {
    let (k, d) = (p.k, p.d);
    let isz = d * (d + 1) / 2;
    let n = p.x.len() / d;
    let tape = Tape::new();
    let alphas = tape.add_vars(&p.alphas);
    let means = tape.add_vars(&p.means);
    let icf = tape.add_vars(&p.icf);
    let sum_q: Vec<Var> = (0..k)
        .map(|c| icf[c * isz..c * isz + d].iter().copied().sum())
        .collect();
    let qdiag: Vec<Var> = (0..k)
        .flat_map(|c| icf[c * isz..c * isz + d].iter().map(|q| q.exp()))
        .collect();
    let mut terms = Vec::with_capacity(n + 2);
    let mut main = Vec::with_capacity(k);
    for xi in p.x.chunks_exact(d) {
        main.clear();
        for c in 0..k {
            let xc: Vec<Var> = (0..d).map(|j| -means[c * d + j] + xi[j]).collect();
            let mut qx: Vec<Var> = (0..d).map(|j| qdiag[c * d + j] * xc[j]).collect();
            let mut li = c * isz + d;
            for a in 0..d {
                for b in a + 1..d {
                    qx[b] = qx[b] + icf[li] * xc[a];
                    li += 1;
                }
            }
            let sq: Var = qx.iter().map(|&v| v * v).sum();
            main.push(alphas[c] + sum_q[c] - 0.5 * sq);
        }
        terms.push(lse_reverse(&main));
    }
    terms.push(lse_reverse(&alphas) * -(n as f64));
    let g2 = p.gamma * p.gamma;
    for c in 0..k {
        let frob: Var = qdiag[c * d..(c + 1) * d]
            .iter()
            .chain(&icf[c * isz + d..(c + 1) * isz])
            .map(|&v| v * v)
            .sum();
        terms.push(0.5 * g2 * frob - p.m * sum_q[c]);
    }
    let f = terms.into_iter().sum::<Var>() + crate::gmm::constant(n, k, d, p.gamma, p.m);
    let g = f.grad();
    [g.wrt(&alphas), g.wrt(&means), g.wrt(&icf)].concat()
}
