//! `ad_trait` (reverse mode, `adr`: operator overloading on a thread-local
//! computation graph, reset before each gradient).

// `a = a + b` as in the `reverse` peer (which has no `+=`), so both build the same graph
#![allow(clippy::assign_op_pattern)]

use crate::logistic::Problem;
use crate::mlp::{Batch, Params, BATCH, IN};
use crate::ode::DT;
use ad_trait::nalgebra::ComplexField as Float;
use ad_trait::reverse_ad::adr::{adr, GlobalComputationGraph};
use ad_trait::F64;

fn vars(x: &[f64]) -> Vec<adr> {
    x.iter().map(|&v| adr::new_variable(v, false)).collect()
}

fn zero() -> adr {
    <adr as ad_trait::AD>::constant(0.0)
}

/// The course loss.
pub fn course(a: f64) -> f64 {
    GlobalComputationGraph::get().reset();
    let a = adr::new_variable(a, false);
    let m1 = a * F64(1.0) - F64(2.0);
    let m2 = a * F64(2.0) - F64(4.0);
    let m3 = a * F64(3.0) - F64(6.0);
    let loss = m1 * m1 + m2 * m2 + m3 * m3;
    loss.get_backwards_mode_grad().wrt(&a)
}

/// Extended Rosenbrock.
pub fn rosenbrock(x: &[f64]) -> Vec<f64> {
    GlobalComputationGraph::get().reset();
    let xs = vars(x);
    let mut f = zero();
    for p in xs.chunks_exact(2) {
        let t = p[1] - p[0] * p[0];
        let u = F64(1.0) - p[0];
        f = f + F64(100.0) * t * t + u * u;
    }
    let g = f.get_backwards_mode_grad();
    xs.iter().map(|v| g.wrt(v)).collect()
}

/// Logistic regression: `(∂w, ∂b)` flattened.
pub fn logistic(p: &Problem) -> Vec<f64> {
    GlobalComputationGraph::get().reset();
    let d = p.w.len();
    let w = vars(&p.w);
    let b = adr::new_variable(p.b, false);
    let mut total = zero();
    for (row, &y) in p.x.chunks_exact(d).zip(&p.y) {
        let mut z = b;
        for (wj, &xj) in w.iter().zip(row) {
            z = z + *wj * F64(xj);
        }
        let s = Float::recip(F64(1.0) + Float::exp(-z));
        total = total - (F64(y) * Float::ln(s) + F64(1.0 - y) * Float::ln(F64(1.0) - s));
    }
    let loss = total / F64(p.y.len() as f64);
    let g = loss.get_backwards_mode_grad();
    let mut out: Vec<f64> = w.iter().map(|v| g.wrt(v)).collect();
    out.push(g.wrt(&b));
    out
}

fn layer(w: &[adr], b: &[adr], x: &[adr], tanh: bool) -> Vec<adr> {
    let n = x.len();
    b.iter()
        .enumerate()
        .map(|(j, &bj)| {
            let mut s = bj;
            for (wji, xi) in w[j * n..(j + 1) * n].iter().zip(x) {
                s = s + *wji * *xi;
            }
            if tanh {
                Float::tanh(s)
            } else {
                s
            }
        })
        .collect()
}

/// The MLP's batch gradient, flattened in block order.
pub fn mlp(p: &Params, data: &Batch) -> Vec<f64> {
    GlobalComputationGraph::get().reset();
    let blocks: Vec<Vec<adr>> = p.slices().iter().map(|s| vars(s)).collect();
    let mut total = zero();
    for (x, &label) in data.x.chunks_exact(IN).zip(&data.labels) {
        let x: Vec<adr> = x
            .iter()
            .map(|&v| <adr as ad_trait::AD>::constant(v))
            .collect();
        let h1 = layer(&blocks[0], &blocks[1], &x, true);
        let h2 = layer(&blocks[2], &blocks[3], &h1, true);
        let o = layer(&blocks[4], &blocks[5], &h2, false);
        let m = o
            .iter()
            .map(|v| v.value())
            .fold(f64::NEG_INFINITY, f64::max);
        let mut z = zero();
        for &ok in &o {
            z = z + Float::exp(ok - F64(m));
        }
        total = total + Float::ln(z) + F64(m) - o[label];
    }
    let loss = total / F64(BATCH as f64);
    let g = loss.get_backwards_mode_grad();
    blocks.iter().flatten().map(|v| g.wrt(v)).collect()
}

fn advect(q0: &[f64], nt: usize, flux: impl Fn(adr, adr) -> adr) -> Vec<f64> {
    GlobalComputationGraph::get().reset();
    let leaves = vars(q0);
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
    let mut j = zero();
    for &v in &q {
        j = j + F64(0.5) * v * v;
    }
    let g = j.get_backwards_mode_grad();
    leaves.iter().map(|v| g.wrt(v)).collect()
}

/// Lax–Wendroff.
pub fn lax_wendroff(q0: &[f64], nt: usize, c: f64) -> Vec<f64> {
    advect(q0, nt, |a, b| F64(0.5 * c) * (a + b + F64(c) * (a - b)))
}

/// Toon's scheme.
pub fn toon(q0: &[f64], nt: usize, c: f64) -> Vec<f64> {
    advect(q0, nt, |a, b| {
        (Float::exp(F64(c) * Float::ln(a / b)) - F64(1.0)) * a * b / (a - b)
    })
}

/// The damped oscillator: `(∂k, ∂c)`.
pub fn oscillator(k: f64, c: f64, obs: &[f64]) -> Vec<f64> {
    GlobalComputationGraph::get().reset();
    let kv = adr::new_variable(k, false);
    let cv = adr::new_variable(c, false);
    let mut x = <adr as ad_trait::AD>::constant(1.0);
    let mut v = zero();
    let mut loss = zero();
    for &o in obs {
        let a = -kv * x - cv * v;
        v = v + F64(DT) * a;
        x = x + F64(DT) * v;
        let r = x - F64(o);
        loss = loss + r * r;
    }
    let loss = loss * F64(DT);
    let g = loss.get_backwards_mode_grad();
    vec![g.wrt(&kv), g.wrt(&cv)]
}

/// The Helmholtz energy.
pub fn helmholtz(x: &[f64], a: &[f64], b: &[f64]) -> Vec<f64> {
    use std::f64::consts::SQRT_2;
    GlobalComputationGraph::get().reset();
    let xs = vars(x);
    let n = xs.len();
    let mut bx = zero();
    for (v, &u) in xs.iter().zip(b) {
        bx = bx + *v * F64(u);
    }
    let mut xax = zero();
    for i in 0..n {
        let mut ax = zero();
        for j in 0..n {
            ax = ax + xs[j] * F64(a[i * n + j]);
        }
        xax = xax + xs[i] * ax;
    }
    let t = F64(1.0) - bx;
    let mut s = zero();
    for &v in &xs {
        s = s + v * Float::ln(v / t);
    }
    let p = F64(1.0 + SQRT_2) * bx + F64(1.0);
    let q = F64(1.0 - SQRT_2) * bx + F64(1.0);
    let f = s - xax / (bx * F64(8.0_f64.sqrt())) * Float::ln(p / q);
    let g = f.get_backwards_mode_grad();
    xs.iter().map(|v| g.wrt(v)).collect()
}

/// The GMM objective: `(∂α, ∂μ, ∂icf)` flattened. The log-sum-exp shifts
/// are the maxima's values (constants), as in Mica's.
// index loops over the lower triangle, as ADBench's `Qtimesx`
#[allow(clippy::needless_range_loop)]
pub fn gmm(p: &crate::gmm::Problem) -> Vec<f64> {
    GlobalComputationGraph::get().reset();
    let (k, d) = (p.k, p.d);
    let isz = d * (d + 1) / 2;
    let n = p.x.len() / d;
    let alphas = vars(&p.alphas);
    let means = vars(&p.means);
    let icf = vars(&p.icf);
    let mut sum_q = Vec::with_capacity(k);
    let mut qdiag = Vec::with_capacity(k * d);
    for c in 0..k {
        let mut s = zero();
        for &q in &icf[c * isz..c * isz + d] {
            s = s + q;
            qdiag.push(Float::exp(q));
        }
        sum_q.push(s);
    }
    let lse = |v: &[adr]| {
        let m = v
            .iter()
            .map(|v| v.value())
            .fold(f64::NEG_INFINITY, f64::max);
        let mut z = zero();
        for &e in v {
            z = z + Float::exp(e - F64(m));
        }
        Float::ln(z) + F64(m)
    };
    let mut total = zero();
    let mut main = Vec::with_capacity(k);
    let mut xc = Vec::with_capacity(d);
    let mut qx = Vec::with_capacity(d);
    for xi in p.x.chunks_exact(d) {
        main.clear();
        for c in 0..k {
            xc.clear();
            qx.clear();
            for j in 0..d {
                xc.push(F64(xi[j]) - means[c * d + j]);
                qx.push(qdiag[c * d + j] * xc[j]);
            }
            let mut li = c * isz + d;
            for a in 0..d {
                for b in a + 1..d {
                    qx[b] = qx[b] + icf[li] * xc[a];
                    li += 1;
                }
            }
            let mut sq = zero();
            for &v in &qx {
                sq = sq + v * v;
            }
            main.push(alphas[c] + sum_q[c] - F64(0.5) * sq);
        }
        total = total + lse(&main);
    }
    total = total - F64(n as f64) * lse(&alphas);
    let g2 = p.gamma * p.gamma;
    for c in 0..k {
        let mut frob = zero();
        for &v in qdiag[c * d..(c + 1) * d]
            .iter()
            .chain(&icf[c * isz + d..(c + 1) * isz])
        {
            frob = frob + v * v;
        }
        total = total + F64(0.5 * g2) * frob - F64(p.m) * sum_q[c];
    }
    let f = total + F64(crate::gmm::constant(n, k, d, p.gamma, p.m));
    let g = f.get_backwards_mode_grad();
    alphas
        .iter()
        .chain(&means)
        .chain(&icf)
        .map(|v| g.wrt(v))
        .collect()
}
