//! The checks every generated program goes through.
//!
//! This file is not a module of the test; it is copied verbatim into every
//! generated crate (`src/harness.rs`).
#![allow(dead_code)]

use crate::dual::{margin, reset_margin, Dual};

/// Relative tolerance between Mica's gradient and the dual numbers'.
pub const DUAL_TOL: f64 = 1e-9;
/// Relative tolerance between Mica's gradient and central differences.
pub const FD_TOL: f64 = 1e-5;
/// Points closer than this to a kink or a branch flip skip finite differences.
pub const MIN_MARGIN: f64 = 1e-3;

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * 1f64.max(a.abs()).max(b.abs())
}

/// What a program exposes to the checks, over the flat list of its knobs'
/// coordinates.
pub struct Program<'a> {
    pub primal: &'a dyn Fn(&[f64]) -> f64,
    pub grad: &'a dyn Fn(&[f64]) -> (f64, Vec<f64>),
    pub dual: &'a dyn Fn(&[Dual]) -> Dual,
    /// `_backward` with seed 0.5 into slots holding the given values
    pub backward: Option<&'a dyn Fn(&[f64], &mut [f64]) -> f64>,
}

/// `Ok(true)` passed, `Ok(false)` skipped (values not finite: the generator's
/// fault, not Mica's), `Err` failed, with the kind of failure first.
pub fn check(p: &Program, at: &[f64]) -> Result<bool, String> {
    let y = (p.primal)(at);
    if !y.is_finite() {
        return Ok(false);
    }
    let (gy, g) = (p.grad)(at);
    if gy.to_bits() != y.to_bits() {
        return Err(format!("value: _grad gives {gy:e}, plain gives {y:e}"));
    }
    reset_margin();
    let mut fwd = vec![0.0; at.len()];
    for (i, slot) in fwd.iter_mut().enumerate() {
        let point: Vec<Dual> = at
            .iter()
            .enumerate()
            .map(|(j, &v)| Dual {
                v,
                d: if i == j { 1.0 } else { 0.0 },
            })
            .collect();
        let r = (p.dual)(&point);
        if r.v.to_bits() != y.to_bits() {
            return Err(format!(
                "dual value: dual gives {:e}, plain gives {y:e}",
                r.v
            ));
        }
        *slot = r.d;
    }
    let margin = margin();
    if fwd.iter().any(|d| !d.is_finite()) {
        return Ok(false);
    }
    for (i, (&m, &d)) in g.iter().zip(&fwd).enumerate() {
        if !close(m, d, DUAL_TOL) {
            return Err(format!(
                "dual: slope {i}: Mica {m:e}, dual numbers {d:e} (margin {margin:e})"
            ));
        }
    }
    if let Some(b) = p.backward {
        let mut slots: Vec<f64> = (0..at.len()).map(|i| 0.25 * i as f64 - 1.0).collect();
        let before = slots.clone();
        let by = b(at, &mut slots);
        if by.to_bits() != y.to_bits() {
            return Err(format!("backward value: {by:e}, plain gives {y:e}"));
        }
        for (i, ((&s, &s0), &m)) in slots.iter().zip(&before).zip(&g).enumerate() {
            if !close(s, s0 + 0.5 * m, 1e-12) {
                return Err(format!(
                    "backward: slot {i}: {s:e}, expected {s0:e} + 0.5 * {m:e}"
                ));
            }
        }
    }
    if margin >= MIN_MARGIN {
        if let Err(e) = mica::check::check_gradient_with(|p2| (p.primal)(p2), at, &g, FD_TOL) {
            return Err(format!("fd: {e} (margin {margin:e})"));
        }
    }
    Ok(true)
}
