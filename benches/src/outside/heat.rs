//! A 2-D explicit heat equation on an `n × n` grid (Dirichlet: the boundary
//! keeps its initial values), `steps` forward-Euler steps of the five-point
//! stencil with diffusivity `alpha` (the step and the spacing folded in),
//! written with named indices (`let p = i * n + j;`, `u[p − 1]`, `u[p + n]`)
//! and a double buffer swapped each step. The loss is the sum of squares of
//! the final field; knobs: the initial field and the diffusivity.

// written as its authors write it, with index loops
#![allow(clippy::needless_range_loop)]

use crate::data::Lcg;
use mica::tape;

/// Grid points per side.
pub const N: usize = 64;
/// Steps.
pub const STEPS: usize = 200;
/// The diffusivity (stable below 0.25).
pub const ALPHA: f64 = 0.2;

/// The primal.
#[tape]
pub fn heat(#[tracked] u0: &[f64], #[tracked] alpha: f64, n: usize, steps: usize) -> f64 {
    let mut u = u0.to_vec();
    let mut v = u0.to_vec();
    for _ in 0..steps {
        for i in 1..n - 1 {
            for j in 1..n - 1 {
                let p = i * n + j;
                v[p] = u[p] + alpha * (u[p - 1] + u[p + 1] + u[p - n] + u[p + n] - 4.0 * u[p]);
            }
        }
        std::mem::swap(&mut u, &mut v);
    }
    let mut loss = 0.0;
    for p in 0..n * n {
        loss += u[p] * u[p];
    }
    loss
}

/// One step: the interior of `next` from `u`, the boundary copied.
fn step(u: &[f64], next: &mut [f64], n: usize, alpha: f64) {
    let nn = n * n;
    next[..n].copy_from_slice(&u[..n]);
    next[nn - n..].copy_from_slice(&u[nn - n..]);
    for i in 1..n - 1 {
        let row = i * n;
        next[row] = u[row];
        next[row + n - 1] = u[row + n - 1];
        for p in row + 1..row + n - 1 {
            next[p] = u[p] + alpha * (u[p - 1] + u[p + 1] + u[p - n] + u[p + n] - 4.0 * u[p]);
        }
    }
}

/// The hand-written adjoint, with checkpoints: the forward pass keeps the
/// field every `k ≈ √steps` steps; the reverse remakes each segment's
/// fields from its checkpoint (one more forward pass in all) and walks them
/// back. About `2√steps` fields are kept (a megabyte here) instead of the
/// whole history (6.6 MB), so everything stays in cache.
///
/// The reverse carries the interior adjoint `μ` (zero on the boundary): one
/// stencil sweep per step gives `s = Lᵀμ` at each interior point, the next
/// `μ = μ + α s` and `∂/∂α += u_t · s` at once (summed per point, then over
/// the points). The boundary never changes,
/// so its slopes are summed once at the end from the running sums of the
/// interior neighbours' `μ`.
pub fn heat_hand(
    u0: &[f64],
    alpha: f64,
    n: usize,
    steps: usize,
    seed: f64,
    d_u0: &mut [f64],
    d_alpha: &mut f64,
) -> f64 {
    let nn = n * n;
    assert!(n >= 3 && u0.len() == nn && d_u0.len() == nn);
    let k = ((steps as f64).sqrt().ceil() as usize).max(1);
    let segments = steps.div_ceil(k);
    let mut checkpoints = vec![0.0; segments * nn];
    let mut u = u0.to_vec();
    let mut v = vec![0.0; nn];
    for t in 0..steps {
        if t % k == 0 {
            checkpoints[(t / k) * nn..(t / k + 1) * nn].copy_from_slice(&u);
        }
        step(&u, &mut v, n, alpha);
        std::mem::swap(&mut u, &mut v);
    }
    let last = u;
    let mut loss = 0.0;
    for p in 0..nn {
        loss += last[p] * last[p];
    }

    // μ: the interior adjoint, zero on the boundary; `ring`: the running
    // sum of μ at each boundary point's interior neighbour
    let mut mu = vec![0.0; nn];
    let mut mu_next = vec![0.0; nn];
    for i in 1..n - 1 {
        for p in i * n + 1..i * n + n - 1 {
            mu[p] = 2.0 * seed * last[p];
        }
    }
    let mut ring = vec![0.0; nn];
    // α's slope, point by point (a sum per point, not one chain through
    // every point of every step)
    let mut da_at = vec![0.0; nn];
    let mut segment = vec![0.0; k * nn];
    for s in (0..segments).rev() {
        let (t0, t1) = (s * k, ((s + 1) * k).min(steps));
        segment[..nn].copy_from_slice(&checkpoints[s * nn..(s + 1) * nn]);
        for t in t0 + 1..t1 {
            let (done, next) = segment[(t - t0 - 1) * nn..(t - t0 + 1) * nn].split_at_mut(nn);
            step(done, next, n, alpha);
        }
        for t in (t0..t1).rev() {
            let u = &segment[(t - t0) * nn..(t - t0 + 1) * nn];
            for i in 1..n - 1 {
                for p in i * n + 1..i * n + n - 1 {
                    let s = mu[p - 1] + mu[p + 1] + mu[p - n] + mu[p + n] - 4.0 * mu[p];
                    mu_next[p] = mu[p] + alpha * s;
                    da_at[p] += u[p] * s;
                }
            }
            // the boundary's interior neighbours
            for j in 1..n - 1 {
                ring[j] += mu[n + j];
                ring[nn - n + j] += mu[nn - 2 * n + j];
            }
            for i in 1..n - 1 {
                ring[i * n] += mu[i * n + 1];
                ring[i * n + n - 1] += mu[i * n + n - 2];
            }
            std::mem::swap(&mut mu, &mut mu_next);
        }
    }
    let mut da = 0.0;
    for p in 0..nn {
        da += da_at[p];
    }
    // interior: μ₀; boundary: the final field's own slope, and α times the
    // summed neighbours (whose product with u₀ is α's slope there)
    for p in 0..nn {
        let (i, j) = (p / n, p % n);
        if i == 0 || j == 0 || i == n - 1 || j == n - 1 {
            d_u0[p] += 2.0 * seed * last[p] + alpha * ring[p];
            da += u0[p] * ring[p];
        } else {
            d_u0[p] += mu[p];
        }
    }
    *d_alpha += da;
    loss
}

/// A smooth bump plus noise on the `n × n` grid.
pub fn initial(n: usize) -> Vec<f64> {
    let mut g = Lcg::new(0x4ea7 + n as u64);
    let mut u = vec![0.0; n * n];
    for i in 0..n {
        for j in 0..n {
            let (x, y) = (i as f64 / (n - 1) as f64, j as f64 / (n - 1) as f64);
            let bump = (-20.0 * ((x - 0.4).powi(2) + (y - 0.6).powi(2))).exp();
            u[i * n + j] = bump + 0.1 * g.range(-1.0, 1.0);
        }
    }
    u
}
