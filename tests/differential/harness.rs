//! The checks every generated program goes through.
//!
//! This file is not a module of the test; it is copied verbatim into every
//! generated crate (`src/harness.rs`).
#![allow(dead_code)]

use crate::dual::{margin, reset_margin, Dual};

/// The checks' tolerances for one float type.
pub struct Tolerances {
    /// relative, between Mica's gradient and the dual numbers'
    pub dual: f64,
    /// relative, between `_backward`'s slots and `slot + seed × slope`
    pub backward: f64,
    /// relative, between Mica's gradient and central differences
    pub fd: f64,
    /// points closer than this to a kink or a branch flip skip finite
    /// differences
    pub min_margin: f64,
}

pub const F64: Tolerances = Tolerances {
    dual: 1e-9,
    backward: 1e-12,
    fd: 1e-5,
    min_margin: 1e-3,
};

/// `f32`: Mica and the dual numbers both carry slopes in `f32`, summed in
/// different orders, so they agree to a few thousand ulps (1e-3); `_backward`
/// adds each part of a slope into an array's slot as it comes, so a slot
/// that starts at `-1` rounds once per part at its own magnitude (parts that
/// cancel leave tens of ulps: 1e-5). Finite differences run in `f32`
/// too (step `∛ε (1 + |x|) ≈ 5e-3 (1 + |x|)`), so they are held to 1e-2 and
/// only at points 0.1 away from every kink or branch flip.
pub const F32: Tolerances = Tolerances {
    dual: 1e-3,
    backward: 1e-5,
    fd: 1e-2,
    min_margin: 0.1,
};

/// An `f32` point from an `f64` one (the generator makes the coordinates of an
/// `f32` program's points exact in `f32`).
pub fn to32(p: &[f64]) -> Vec<f32> {
    p.iter().map(|&x| x as f32).collect()
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol * 1f64.max(a.abs()).max(b.abs())
}

/// What a program exposes to the checks, over the flat list of its knobs'
/// coordinates (an `f32` program's closures convert, exactly, at the edge).
pub struct Program<'a> {
    /// an `f32` program
    pub f32: bool,
    pub primal: &'a dyn Fn(&[f64]) -> f64,
    pub grad: &'a dyn Fn(&[f64]) -> (f64, Vec<f64>),
    /// the plain adjoint's `_grad` (`#[tape(plain)]`), for the function form
    pub plain: Option<&'a dyn Fn(&[f64]) -> (f64, Vec<f64>)>,
    pub dual: &'a dyn Fn(&[Dual]) -> Dual,
    /// `_backward` with seed 0.5 into slots holding the given values
    pub backward: Option<&'a dyn Fn(&[f64], &mut [f64]) -> f64>,
    /// the plain adjoint's `_tangent` along a direction
    pub tangent: Option<&'a dyn Fn(&[f64], &[f64]) -> (f64, f64)>,
    /// the plain adjoint's `_hvp` along a direction: value, gradient, H·v
    pub hvp: Option<&'a dyn Fn(&[f64], &[f64]) -> (f64, Vec<f64>, Vec<f64>)>,
}

/// The dual numbers' gradient at `at` (one forward pass per coordinate).
fn dual_gradient(p: &Program, at: &[f64]) -> Vec<f64> {
    (0..at.len())
        .map(|i| {
            let point: Vec<Dual> = at
                .iter()
                .enumerate()
                .map(|(j, &v)| Dual {
                    v,
                    d: if i == j { 1.0 } else { 0.0 },
                })
                .collect();
            (p.dual)(&point).d
        })
        .collect()
}

/// A direction with coordinates in {-1.25, …, 1.25}, exact in `f32`.
fn direction(n: usize) -> Vec<f64> {
    (0..n).map(|i| ((i * 37 + 5) % 11) as f64 / 4.0 - 1.25).collect()
}

/// Forward mode and `H·v`: the tangent against the dual numbers'
/// gradient times `v`; `_hvp`'s gradient against the dual numbers', its
/// `H·v` against central differences of the dual numbers' gradient
/// along `v` (away from kinks).
fn check_higher(p: &Program, at: &[f64], y: f64, fwd: &[f64], margin: f64) -> Result<(), String> {
    let tol = if p.f32 { &F32 } else { &F64 };
    let v = direction(at.len());
    let scale: f64 = fwd.iter().zip(&v).map(|(g, v)| (g * v).abs()).sum();
    let want: f64 = fwd.iter().zip(&v).map(|(g, v)| g * v).sum();
    if let Some(t) = p.tangent {
        let (ty, td) = t(at, &v);
        if !close(ty, y, tol.dual) {
            return Err(format!("tangent value: {ty:e}, plain gives {y:e}"));
        }
        if (td - want).abs() > tol.dual * scale.max(1.0) {
            return Err(format!("tangent: {td:e}, dual numbers' g·v {want:e}"));
        }
    }
    if let Some(h) = p.hvp {
        let (hy, hg, hv) = h(at, &v);
        if !close(hy, y, tol.dual) {
            return Err(format!("hvp value: {hy:e}, plain gives {y:e}"));
        }
        for (i, (&m, &d)) in hg.iter().zip(fwd).enumerate() {
            if !close(m, d, tol.dual) {
                return Err(format!("hvp gradient: slope {i}: {m:e}, dual numbers {d:e}"));
            }
        }
        if margin >= tol.min_margin {
            let step = if p.f32 { 1e-2 } else { 1e-5 };
            let shifted = |s: f64| {
                let q: Vec<f64> = at.iter().zip(&v).map(|(a, v)| a + s * v).collect();
                let q = if p.f32 {
                    q.iter().map(|&x| x as f32 as f64).collect()
                } else {
                    q
                };
                dual_gradient(p, &q)
            };
            let (up, down) = (shifted(step), shifted(-step));
            let tol_h = if p.f32 { 5e-2 } else { 1e-5 };
            for i in 0..at.len() {
                let fd = (up[i] - down[i]) / (2.0 * step);
                if !fd.is_finite() {
                    continue;
                }
                if !close(hv[i], fd, tol_h) {
                    return Err(format!(
                        "hvp: (H·v)[{i}]: Mica {:e}, differences of the dual gradient {fd:e} (margin {margin:e})",
                        hv[i]
                    ));
                }
            }
        }
    }
    Ok(())
}

/// `Ok(true)` passed, `Ok(false)` skipped (values not finite: the generator's
/// fault, not Mica's), `Err` failed, with the kind of failure first.
pub fn check(p: &Program, at: &[f64]) -> Result<bool, String> {
    let tol = if p.f32 { &F32 } else { &F64 };
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
    // the shortcuts add the same terms as the plain adjoint, in another
    // order: the two agree as two summation orders do (the dual numbers'
    // tolerance, for the same reason), at any point
    if let Some(plain) = p.plain {
        let (qy, q) = plain(at);
        if qy.to_bits() != y.to_bits() {
            return Err(format!("plain value: `#[tape(plain)]` gives {qy:e}, the function {y:e}"));
        }
        for (i, (&m, &d)) in g.iter().zip(&q).enumerate() {
            if !close(m, d, tol.dual) {
                return Err(format!(
                    "plain: slope {i}: Mica {m:e}, `#[tape(plain)]` {d:e}"
                ));
            }
        }
    }
    let margin = margin();
    if fwd.iter().any(|d| !d.is_finite()) {
        return Ok(false);
    }
    for (i, (&m, &d)) in g.iter().zip(&fwd).enumerate() {
        if !close(m, d, tol.dual) {
            return Err(format!(
                "dual: slope {i}: Mica {m:e}, dual numbers {d:e} (margin {margin:e})"
            ));
        }
    }
    check_higher(p, at, y, &fwd, margin)?;
    if let Some(b) = p.backward {
        let mut slots: Vec<f64> = (0..at.len()).map(|i| 0.25 * i as f64 - 1.0).collect();
        let before = slots.clone();
        let by = b(at, &mut slots);
        if by.to_bits() != y.to_bits() {
            return Err(format!("backward value: {by:e}, plain gives {y:e}"));
        }
        for (i, ((&s, &s0), &m)) in slots.iter().zip(&before).zip(&g).enumerate() {
            if !close(s, s0 + 0.5 * m, tol.backward) {
                return Err(format!(
                    "backward: slot {i}: {s:e}, expected {s0:e} + 0.5 * {m:e}"
                ));
            }
        }
    }
    if margin >= tol.min_margin {
        let fd = if p.f32 {
            let (at, g) = (to32(at), to32(&g));
            let f = |q: &[f32]| {
                let q: Vec<f64> = q.iter().map(|&x| x as f64).collect();
                (p.primal)(&q) as f32
            };
            mica::check::check_gradient_with(f, &at, &g, tol.fd as f32).map_err(|e| e.to_string())
        } else {
            mica::check::check_gradient_with(|q| (p.primal)(q), at, &g, tol.fd)
                .map_err(|e| e.to_string())
        };
        if let Err(e) = fd {
            return Err(format!("fd: {e} (margin {margin:e})"));
        }
    }
    Ok(true)
}
