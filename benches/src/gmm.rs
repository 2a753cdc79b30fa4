//! ADBench's Gaussian mixture model objective (the GradBench
//! specification), with the value and its constants included:
//!
//! `Σ_i lse_k(α_k + Σ_j q_kj − ½‖Q_k (x_i − μ_k)‖²) − n·lse(α)
//!  + Σ_k [½γ²(‖exp(q_k)‖² + ‖l_k‖²) − m·Σ_j q_kj] + constants`.
//!
//! `icf` holds, per component, `d` entries `q` (the log of `Q`'s diagonal)
//! then `d(d−1)/2` entries `l` (`Q`'s strictly lower triangle, column by
//! column, as in ADBench). `means` and `x` are row-major (`k × d`, `n × d`).
//! The constants are `−n·d/2·ln(2π)` and `−k` times the Wishart
//! log-normaliser, computed in plain Rust by [`constant`].

// the program is written in the vocabulary Mica records (index loops, `vec!` arrays)
#![allow(clippy::needless_range_loop, clippy::too_many_arguments)]

use crate::data::Lcg;
use mica::tape;

/// Dimension.
pub const D: usize = 2;
/// Components.
pub const K: usize = 5;
/// Points.
pub const N: usize = 1000;

/// `ln Γ(a)` for `a` a positive multiple of `½` (all the Wishart term needs).
fn ln_gamma_half(a: f64) -> f64 {
    let twice = 2.0 * a;
    assert!(
        a > 0.0 && twice == twice.round(),
        "ln_gamma_half: {a} is not a positive multiple of 1/2"
    );
    // Γ(1) = 1, Γ(½) = √π, Γ(x + 1) = x Γ(x)
    let (mut x, mut acc) = if (twice as u64).is_multiple_of(2) {
        (1.0, 0.0)
    } else {
        (0.5, 0.5 * std::f64::consts::PI.ln())
    };
    while x < a {
        acc += f64::ln(x);
        x += 1.0;
    }
    acc
}

/// The objective's constant part (no knob in it): `−n·d/2·ln(2π)` minus
/// `k` times ADBench's Wishart log-normaliser
/// `n_w·d·(ln γ − ½ ln 2) − ln Γ_d(n_w / 2)`, `n_w = d + m + 1`.
/// `m` must be a non-negative integer (ADBench's `wishart_m` is an `int`).
pub fn constant(n: usize, k: usize, d: usize, gamma: f64, m: f64) -> f64 {
    let (nf, kf, df) = (n as f64, k as f64, d as f64);
    let nw = df + m + 1.0;
    // ln Γ_d(a) = d(d−1)/4 · ln π + Σ_{j=1..d} ln Γ(a + (1 − j)/2)
    let a = 0.5 * nw;
    let mut lgd = 0.25 * df * (df - 1.0) * std::f64::consts::PI.ln();
    for j in 1..=d {
        lgd += ln_gamma_half(a + 0.5 * (1.0 - j as f64));
    }
    let c_wishart = nw * df * (gamma.ln() - 0.5 * 2.0_f64.ln()) - lgd;
    -nf * df * 0.5 * (2.0 * std::f64::consts::PI).ln() - kf * c_wishart
}

/// The primal.
#[tape]
pub fn gmm(
    #[tracked] alphas: &[f64],
    #[tracked] means: &[f64],
    #[tracked] icf: &[f64],
    x: &[f64],
    k: usize,
    d: usize,
    gamma: f64,
    m: f64,
) -> f64 {
    let n = x.len() / d;
    let isz = d * (d + 1) / 2;
    // per component: Σ_j q_kj and Q's diagonal exp(q_kj)
    let mut sum_q = vec![0.0; k];
    let mut qdiag = vec![0.0; k * d];
    for c in 0..k {
        let mut s = 0.0;
        for j in 0..d {
            s += icf[c * isz + j];
            qdiag[c * d + j] = icf[c * isz + j].exp();
        }
        sum_q[c] = s;
    }
    let mut xc = vec![0.0; d];
    let mut qx = vec![0.0; d];
    let mut main = vec![0.0; k];
    let mut slse = 0.0;
    for i in 0..n {
        for c in 0..k {
            for j in 0..d {
                xc[j] = x[i * d + j] - means[c * d + j];
            }
            for j in 0..d {
                qx[j] = qdiag[c * d + j] * xc[j];
            }
            let mut li = c * isz + d;
            for a in 0..d {
                for b in a + 1..d {
                    qx[b] += icf[li] * xc[a];
                    li += 1;
                }
            }
            let mut sq = 0.0;
            for j in 0..d {
                sq += qx[j] * qx[j];
            }
            main[c] = alphas[c] + sum_q[c] - 0.5 * sq;
        }
        // the shift is a constant: the log-sum-exp's slope does not depend on it
        let mut mx = mica::detach(main[0]);
        for c in 1..k {
            let v = mica::detach(main[c]);
            if v > mx {
                mx = v;
            }
        }
        let mut z = 0.0;
        for c in 0..k {
            z += (main[c] - mx).exp();
        }
        slse += mx + z.ln();
    }
    let mut ma = mica::detach(alphas[0]);
    for c in 1..k {
        let v = mica::detach(alphas[c]);
        if v > ma {
            ma = v;
        }
    }
    let mut za = 0.0;
    for c in 0..k {
        za += (alphas[c] - ma).exp();
    }
    let lse_alphas = ma + za.ln();
    // the Wishart prior
    let mut frob = 0.0;
    let mut msum = 0.0;
    for c in 0..k {
        for j in 0..d {
            frob += qdiag[c * d + j] * qdiag[c * d + j];
        }
        for j in d..isz {
            frob += icf[c * isz + j] * icf[c * isz + j];
        }
        msum += sum_q[c];
    }
    let prior = 0.5 * gamma * gamma * frob - m * msum;
    slse - n as f64 * lse_alphas + prior + constant(n, k, d, gamma, m)
}

/// The hand-written adjoint.
pub fn gmm_hand(
    alphas: &[f64],
    means: &[f64],
    icf: &[f64],
    x: &[f64],
    k: usize,
    d: usize,
    gamma: f64,
    m: f64,
    seed: f64,
    d_alphas: &mut [f64],
    d_means: &mut [f64],
    d_icf: &mut [f64],
) -> f64 {
    let n = x.len() / d;
    let isz = d * (d + 1) / 2;
    assert_eq!((alphas.len(), means.len(), icf.len()), (k, k * d, k * isz));
    assert_eq!(
        (d_alphas.len(), d_means.len(), d_icf.len()),
        (k, k * d, k * isz)
    );
    let mut sum_q = vec![0.0; k];
    let mut qdiag = vec![0.0; k * d];
    for c in 0..k {
        let q = &icf[c * isz..c * isz + d];
        sum_q[c] = q.iter().sum();
        for (e, &v) in qdiag[c * d..(c + 1) * d].iter_mut().zip(q) {
            *e = v.exp();
        }
    }
    // per point: every component's centred point and Q·(x − μ), forward
    // (kept for the reverse), then the weights of the log-sum-exp
    let mut xc = vec![0.0; k * d];
    let mut qx = vec![0.0; k * d];
    let mut main = vec![0.0; k];
    let mut dqx = vec![0.0; d];
    let mut slse = 0.0;
    for xi in x.chunks_exact(d) {
        for c in 0..k {
            let xcc = &mut xc[c * d..(c + 1) * d];
            let qxc = &mut qx[c * d..(c + 1) * d];
            let qd = &qdiag[c * d..(c + 1) * d];
            let l = &icf[c * isz + d..(c + 1) * isz];
            for j in 0..d {
                xcc[j] = xi[j] - means[c * d + j];
                qxc[j] = qd[j] * xcc[j];
            }
            let mut li = 0;
            for a in 0..d {
                for b in a + 1..d {
                    qxc[b] += l[li] * xcc[a];
                    li += 1;
                }
            }
            let sq: f64 = qxc.iter().map(|v| v * v).sum();
            main[c] = alphas[c] + sum_q[c] - 0.5 * sq;
        }
        let mx = main.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let mut z = 0.0;
        for v in main.iter_mut() {
            *v = (*v - mx).exp();
            z += *v;
        }
        slse += mx + z.ln();
        // reverse: ∂lse/∂main_c = e_c / z
        for c in 0..k {
            let w = seed * main[c] / z;
            d_alphas[c] += w;
            let xcc = &xc[c * d..(c + 1) * d];
            let qxc = &qx[c * d..(c + 1) * d];
            let qd = &qdiag[c * d..(c + 1) * d];
            let di = &mut d_icf[c * isz..(c + 1) * isz];
            // ∂main/∂(Qx) = −Qx
            for j in 0..d {
                dqx[j] = -w * qxc[j];
                // ∂(Σq)/∂q_j = 1; ∂(Qx)_j/∂q_j = exp(q_j)·xc_j
                di[j] += w + dqx[j] * qd[j] * xcc[j];
            }
            let dm = &mut d_means[c * d..(c + 1) * d];
            let mut li = d;
            for a in 0..d {
                // ∂xc_a, then ∂μ_a = −∂xc_a
                let mut dxa = dqx[a] * qd[a];
                for b in a + 1..d {
                    di[li] += dqx[b] * xcc[a];
                    dxa += dqx[b] * icf[c * isz + li];
                    li += 1;
                }
                dm[a] -= dxa;
            }
        }
    }
    // − n·lse(α)
    let ma = alphas.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let ea: Vec<f64> = alphas.iter().map(|a| (a - ma).exp()).collect();
    let za: f64 = ea.iter().sum();
    let nf = n as f64;
    for c in 0..k {
        d_alphas[c] -= seed * nf * ea[c] / za;
    }
    // the Wishart prior ½γ²(Σ exp(q)² + Σ l²) − m Σ q
    let g2 = gamma * gamma;
    let mut frob = 0.0;
    let mut msum = 0.0;
    for c in 0..k {
        let di = &mut d_icf[c * isz..(c + 1) * isz];
        for j in 0..d {
            let e = qdiag[c * d + j];
            frob += e * e;
            di[j] += seed * (g2 * e * e - m);
        }
        for j in d..isz {
            let l = icf[c * isz + j];
            frob += l * l;
            di[j] += seed * g2 * l;
        }
        msum += sum_q[c];
    }
    let prior = 0.5 * g2 * frob - m * msum;
    slse - nf * (ma + za.ln()) + prior + constant(n, k, d, gamma, m)
}

/// A GMM problem: parameters, data and the Wishart hyperparameters.
pub struct Problem {
    pub alphas: Vec<f64>,
    pub means: Vec<f64>,
    pub icf: Vec<f64>,
    pub x: Vec<f64>,
    pub k: usize,
    pub d: usize,
    pub gamma: f64,
    pub m: f64,
}

/// The signature `gmm_hand` and Mica's `gmm_backward` share.
type Backward = fn(
    &[f64],
    &[f64],
    &[f64],
    &[f64],
    usize,
    usize,
    f64,
    f64,
    f64,
    &mut [f64],
    &mut [f64],
    &mut [f64],
) -> f64;

impl Problem {
    /// The knobs flattened: `alphas`, `means`, `icf`.
    pub fn flat(&self) -> Vec<f64> {
        [&self.alphas[..], &self.means, &self.icf].concat()
    }

    /// The objective at a flat vector of knobs (for finite differences).
    pub fn at(&self, v: &[f64]) -> f64 {
        let (k, d) = (self.k, self.d);
        let (a, rest) = v.split_at(k);
        let (mu, icf) = rest.split_at(k * d);
        gmm(a, mu, icf, &self.x, k, d, self.gamma, self.m)
    }

    /// The gradient by `backward` (`gmm_hand` or `gmm_backward`, which share
    /// a signature), flattened like [`Problem::flat`].
    fn flat_gradient(&self, backward: Backward) -> Vec<f64> {
        let (k, d) = (self.k, self.d);
        let mut da = vec![0.0; k];
        let mut dm = vec![0.0; k * d];
        let mut di = vec![0.0; self.icf.len()];
        backward(
            &self.alphas,
            &self.means,
            &self.icf,
            &self.x,
            k,
            d,
            self.gamma,
            self.m,
            1.0,
            &mut da,
            &mut dm,
            &mut di,
        );
        [da, dm, di].concat()
    }

    /// The hand-written gradient, flattened like [`Problem::flat`].
    pub fn hand(&self) -> Vec<f64> {
        self.flat_gradient(gmm_hand)
    }

    /// Mica's `_backward`, flattened like [`Problem::flat`].
    pub fn mica(&self) -> Vec<f64> {
        self.flat_gradient(gmm_backward)
    }

    /// Mica's `_grad`, flattened like [`Problem::flat`].
    pub fn mica_grad(&self) -> Vec<f64> {
        let (_, (da, dm, di)) = gmm_grad(
            &self.alphas,
            &self.means,
            &self.icf,
            &self.x,
            self.k,
            self.d,
            self.gamma,
            self.m,
        );
        [da, dm, di].concat()
    }
}

/// A deterministic problem of `n` points in `d` dimensions, `k` components
/// (ADBench's shapes; γ = 1, m = 0).
pub fn problem_sized(n: usize, k: usize, d: usize) -> Problem {
    let mut g = Lcg::new((n * 31 + k * 7 + d) as u64 + 6);
    let isz = d * (d + 1) / 2;
    Problem {
        alphas: g.vec(k, -1.0, 1.0),
        means: g.vec(k * d, 0.0, 1.0),
        icf: g.vec(k * isz, -0.5, 0.5),
        x: g.vec(n * d, 0.0, 1.0),
        k,
        d,
        gamma: 1.0,
        m: 0.0,
    }
}

/// The suite's problem: d = 2, K = 5, n = 1,000.
pub fn problem() -> Problem {
    problem_sized(N, K, D)
}
