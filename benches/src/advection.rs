//! Hogan's advection test (the Adept paper): a 1-D periodic advection of
//! `NX` cells for `nt` steps at Courant number `c`, by the linear
//! Lax–Wendroff scheme or Toon's nonlinear one; the objective is `½ Σ q²`
//! and the gradient is taken with respect to the initial field.

// the programs are written in the vocabulary Mica records (index loops, `vec!` arrays)
#![allow(clippy::needless_range_loop, clippy::manual_memcpy)]

use mica::tape;

/// Cells.
pub const NX: usize = 100;
/// Time steps.
pub const NT: usize = 2000;
/// The Courant number.
pub const COURANT: f64 = 0.125;

/// The initial field: `q0[i] = 1.5 + 0.5 sin(2πi / (NX − 1.5))`.
pub fn initial() -> Vec<f64> {
    (0..NX)
        .map(|i| 1.5 + 0.5 * (2.0 * std::f64::consts::PI * i as f64 / (NX as f64 - 1.5)).sin())
        .collect()
}

/// Lax–Wendroff (the primal).
#[tape(tangent, hvp)]
pub fn lax_wendroff(#[tracked] q0: &[f64], nt: usize, c: f64) -> f64 {
    let nx = q0.len();
    let mut q = vec![0.0; nx];
    for i in 0..nx {
        q[i] = q0[i];
    }
    let mut flux = vec![0.0; nx - 1];
    for _step in 0..nt {
        for i in 0..nx - 1 {
            flux[i] = 0.5 * c * (q[i] + q[i + 1] + c * (q[i] - q[i + 1]));
        }
        for i in 1..nx - 1 {
            q[i] += flux[i - 1] - flux[i];
        }
        q[0] = q[nx - 2];
        q[nx - 1] = q[1];
    }
    let mut j = 0.0;
    for i in 0..nx {
        j += 0.5 * q[i] * q[i];
    }
    j
}

/// Toon's scheme (the primal).
#[tape(tangent, hvp)]
pub fn toon(#[tracked] q0: &[f64], nt: usize, c: f64) -> f64 {
    let nx = q0.len();
    let mut q = vec![0.0; nx];
    for i in 0..nx {
        q[i] = q0[i];
    }
    let mut flux = vec![0.0; nx - 1];
    for _step in 0..nt {
        for i in 0..nx - 1 {
            flux[i] =
                ((c * (q[i] / q[i + 1]).ln()).exp() - 1.0) * q[i] * q[i + 1] / (q[i] - q[i + 1]);
        }
        for i in 1..nx - 1 {
            q[i] += flux[i - 1] - flux[i];
        }
        q[0] = q[nx - 2];
        q[nx - 1] = q[1];
    }
    let mut j = 0.0;
    for i in 0..nx {
        j += 0.5 * q[i] * q[i];
    }
    j
}

/// One forward step of either scheme's update and boundary, given fluxes.
fn update(q: &mut [f64], flux: &[f64]) {
    let nx = q.len();
    for i in 1..nx - 1 {
        q[i] += flux[i - 1] - flux[i];
    }
    q[0] = q[nx - 2];
    q[nx - 1] = q[1];
}

/// The reverse of [`update`]: from `aq` (the field's adjoint after the step)
/// to the fluxes' adjoint, leaving `aq` as the adjoint before the update.
fn update_reverse(aq: &mut [f64], aflux: &mut [f64]) {
    let nx = aq.len();
    aq[1] += aq[nx - 1];
    aq[nx - 1] = 0.0;
    aq[nx - 2] += aq[0];
    aq[0] = 0.0;
    aflux.fill(0.0);
    for i in 1..nx - 1 {
        aflux[i - 1] += aq[i];
        aflux[i] -= aq[i];
    }
}

/// The hand-written adjoint of Lax–Wendroff: the scheme is linear, so the
/// reverse stores nothing.
pub fn lax_wendroff_hand(q0: &[f64], nt: usize, c: f64, seed: f64, d_q0: &mut [f64]) -> f64 {
    let nx = q0.len();
    assert_eq!(d_q0.len(), nx);
    let (ca, cb) = (0.5 * c * (1.0 + c), 0.5 * c * (1.0 - c));
    let mut q = q0.to_vec();
    let mut flux = vec![0.0; nx - 1];
    for _ in 0..nt {
        for i in 0..nx - 1 {
            flux[i] = ca * q[i] + cb * q[i + 1];
        }
        update(&mut q, &flux);
    }
    let j = q.iter().map(|v| 0.5 * v * v).sum();
    let mut aq: Vec<f64> = q.iter().map(|v| seed * v).collect();
    let mut aflux = vec![0.0; nx - 1];
    for _ in 0..nt {
        update_reverse(&mut aq, &mut aflux);
        for i in 0..nx - 1 {
            aq[i] += ca * aflux[i];
            aq[i + 1] += cb * aflux[i];
        }
    }
    for (d, a) in d_q0.iter_mut().zip(&aq) {
        *d += a;
    }
    j
}

fn toon_flux(c: f64, a: f64, b: f64) -> f64 {
    ((c * (a / b).ln()).exp() - 1.0) * a * b / (a - b)
}

/// The hand-written adjoint of Toon's scheme: the field at the start of each
/// step is stored (`nt × nx` values) and the reverse reads it back.
pub fn toon_hand(q0: &[f64], nt: usize, c: f64, seed: f64, d_q0: &mut [f64]) -> f64 {
    let nx = q0.len();
    assert_eq!(d_q0.len(), nx);
    let mut hist = Vec::with_capacity(nt * nx);
    let mut q = q0.to_vec();
    let mut flux = vec![0.0; nx - 1];
    for _ in 0..nt {
        hist.extend_from_slice(&q);
        for i in 0..nx - 1 {
            flux[i] = toon_flux(c, q[i], q[i + 1]);
        }
        update(&mut q, &flux);
    }
    let j = q.iter().map(|v| 0.5 * v * v).sum();
    let mut aq: Vec<f64> = q.iter().map(|v| seed * v).collect();
    let mut aflux = vec![0.0; nx - 1];
    for step in (0..nt).rev() {
        let q = &hist[step * nx..(step + 1) * nx];
        update_reverse(&mut aq, &mut aflux);
        for i in 0..nx - 1 {
            let (a, b) = (q[i], q[i + 1]);
            let e = (c * (a / b).ln()).exp();
            let dd = a - b;
            let g = a * b / dd;
            let da = e * c / a * g + (e - 1.0) * (-b * b / (dd * dd));
            let db = -e * c / b * g + (e - 1.0) * (a * a / (dd * dd));
            aq[i] += da * aflux[i];
            aq[i + 1] += db * aflux[i];
        }
    }
    for (d, a) in d_q0.iter_mut().zip(&aq) {
        *d += a;
    }
    j
}
