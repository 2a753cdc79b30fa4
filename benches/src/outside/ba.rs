//! ADBench's bundle adjustment as one scalar: the sum of squared weighted
//! reprojection errors `Σ_i ‖w_i (project(cam_{c_i}, X_{p_i}) − feat_i)‖²`.
//! A camera is ADBench's 11 numbers (Rodrigues rotation, centre, focal
//! length, principal point, two radial distortion coefficients), stored
//! one after another in `cams` as ADBench stores them, the points likewise
//! in `x`; `project` subtracts the centre, rotates, divides by depth,
//! distorts and scales, through ADBench's helpers, written here as
//! functions of a `#[tape] mod` over sub-slices (`&cams[c * 11..]`) the
//! way a Rust author would pass ADBench's pointers. Knobs: cameras and
//! points.

// written as its authors write it, with index loops
#![allow(clippy::needless_range_loop, clippy::too_many_arguments)]

use crate::data::Lcg;

pub use adbench_ba::{objective, objective_backward, objective_grad};

/// Numbers per camera.
pub const NCAM: usize = 11;

#[mica::tape]
pub mod adbench_ba {
    pub fn sqsum(x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() {
            s += x[i] * x[i];
        }
        s
    }

    pub fn cross(a: &[f64], b: &[f64]) -> [f64; 3] {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    }

    pub fn rodrigues_rotate_point(rot: &[f64], pt: &[f64]) -> [f64; 3] {
        let sqtheta = sqsum(rot);
        if sqtheta != 0.0 {
            let theta = sqtheta.sqrt();
            let costheta = theta.cos();
            let sintheta = theta.sin();
            let theta_inverse = 1.0 / theta;
            let w = [
                rot[0] * theta_inverse,
                rot[1] * theta_inverse,
                rot[2] * theta_inverse,
            ];
            let w_cross_pt = cross(&w, pt);
            let tmp = (w[0] * pt[0] + w[1] * pt[1] + w[2] * pt[2]) * (1.0 - costheta);
            let mut out = [0.0; 3];
            for i in 0..3 {
                out[i] = pt[i] * costheta + w_cross_pt[i] * sintheta + w[i] * tmp;
            }
            out
        } else {
            let rot_cross_pt = cross(rot, pt);
            let mut out = [0.0; 3];
            for i in 0..3 {
                out[i] = pt[i] + rot_cross_pt[i];
            }
            out
        }
    }

    pub fn radial_distort(rad: &[f64], proj: &[f64; 2]) -> [f64; 2] {
        let rsq = sqsum(proj);
        let l = 1.0 + rad[0] * rsq + rad[1] * rsq * rsq;
        [proj[0] * l, proj[1] * l]
    }

    pub fn project(cam: &[f64], x: &[f64]) -> [f64; 2] {
        let mut xo = [0.0; 3];
        for i in 0..3 {
            xo[i] = x[i] - cam[3 + i];
        }
        let xcam = rodrigues_rotate_point(&cam[0..3], &xo);
        let p = [xcam[0] / xcam[2], xcam[1] / xcam[2]];
        let distorted = radial_distort(&cam[9..11], &p);
        [
            distorted[0] * cam[6] + cam[7],
            distorted[1] * cam[6] + cam[8],
        ]
    }

    /// The primal: observation `i` sees point `obs[2i + 1]` from camera
    /// `obs[2i]` at `feats[2i..2i + 2]`, with weight `w[i]`.
    pub fn objective(
        #[tracked] cams: &[f64],
        #[tracked] x: &[f64],
        w: &[f64],
        obs: &[usize],
        feats: &[f64],
    ) -> f64 {
        let mut total = 0.0;
        for i in 0..w.len() {
            let c = obs[2 * i];
            let p = obs[2 * i + 1];
            let proj = project(&cams[c * 11..(c + 1) * 11], &x[p * 3..(p + 1) * 3]);
            let e0 = w[i] * (proj[0] - feats[2 * i]);
            let e1 = w[i] * (proj[1] - feats[2 * i + 1]);
            total += e0 * e0 + e1 * e1;
        }
        total
    }
}

fn cross(a: &[f64; 3], b: &[f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// The hand-written adjoint: one pass over the observations, each one's
/// forward then its reverse in registers, into the camera's and the
/// point's slots.
pub fn objective_hand(
    cams: &[f64],
    x: &[f64],
    w: &[f64],
    obs: &[usize],
    feats: &[f64],
    seed: f64,
    d_cams: &mut [f64],
    d_x: &mut [f64],
) -> f64 {
    assert_eq!(d_cams.len(), cams.len());
    assert_eq!(d_x.len(), x.len());
    let mut total = 0.0;
    for i in 0..w.len() {
        let (c, p) = (obs[2 * i], obs[2 * i + 1]);
        let cam = &cams[c * NCAM..(c + 1) * NCAM];
        let pt = &x[p * 3..(p + 1) * 3];
        let xo = [pt[0] - cam[3], pt[1] - cam[4], pt[2] - cam[5]];
        let rot = [cam[0], cam[1], cam[2]];
        let sqtheta = rot[0] * rot[0] + rot[1] * rot[1] + rot[2] * rot[2];
        // forward, keeping what the reverse reads
        let turning = sqtheta != 0.0;
        let (theta, costheta, sintheta, w3, wx, wdx) = if turning {
            let theta = sqtheta.sqrt();
            let (costheta, sintheta) = (theta.cos(), theta.sin());
            let inv = 1.0 / theta;
            let w3 = [rot[0] * inv, rot[1] * inv, rot[2] * inv];
            let wdx = w3[0] * xo[0] + w3[1] * xo[1] + w3[2] * xo[2];
            (theta, costheta, sintheta, w3, cross(&w3, &xo), wdx)
        } else {
            (0.0, 1.0, 0.0, [0.0; 3], [0.0; 3], 0.0)
        };
        let xcam = if turning {
            let tmp = wdx * (1.0 - costheta);
            [
                xo[0] * costheta + wx[0] * sintheta + w3[0] * tmp,
                xo[1] * costheta + wx[1] * sintheta + w3[1] * tmp,
                xo[2] * costheta + wx[2] * sintheta + w3[2] * tmp,
            ]
        } else {
            let rx = cross(&rot, &xo);
            [xo[0] + rx[0], xo[1] + rx[1], xo[2] + rx[2]]
        };
        let pr = [xcam[0] / xcam[2], xcam[1] / xcam[2]];
        let rsq = pr[0] * pr[0] + pr[1] * pr[1];
        let l = 1.0 + cam[9] * rsq + cam[10] * rsq * rsq;
        let dist = [pr[0] * l, pr[1] * l];
        let f = cam[6];
        let e0 = w[i] * (dist[0] * f + cam[7] - feats[2 * i]);
        let e1 = w[i] * (dist[1] * f + cam[8] - feats[2 * i + 1]);
        total += e0 * e0 + e1 * e1;

        // reverse
        let dc = &mut d_cams[c * NCAM..(c + 1) * NCAM];
        let g0 = 2.0 * seed * w[i] * e0; // adjoint of the projection
        let g1 = 2.0 * seed * w[i] * e1;
        dc[7] += g0;
        dc[8] += g1;
        dc[6] += g0 * dist[0] + g1 * dist[1];
        let (dd0, dd1) = (g0 * f, g1 * f);
        let dl = dd0 * pr[0] + dd1 * pr[1];
        dc[9] += dl * rsq;
        dc[10] += dl * rsq * rsq;
        let drsq = dl * (cam[9] + 2.0 * cam[10] * rsq);
        let dp0 = dd0 * l + 2.0 * drsq * pr[0];
        let dp1 = dd1 * l + 2.0 * drsq * pr[1];
        let inv_z = 1.0 / xcam[2];
        let dxc = [
            dp0 * inv_z,
            dp1 * inv_z,
            -(dp0 * pr[0] + dp1 * pr[1]) * inv_z,
        ];
        let dxo = if turning {
            // xcam = xo cos + (w × xo) sin + w (w·xo)(1 − cos)
            let one_c = 1.0 - costheta;
            let dwx = [dxc[0] * sintheta, dxc[1] * sintheta, dxc[2] * sintheta];
            let d_cos = dxc[0] * xo[0] + dxc[1] * xo[1] + dxc[2] * xo[2]
                - wdx * (dxc[0] * w3[0] + dxc[1] * w3[1] + dxc[2] * w3[2]);
            let d_sin = dxc[0] * wx[0] + dxc[1] * wx[1] + dxc[2] * wx[2];
            let dwdx = (dxc[0] * w3[0] + dxc[1] * w3[1] + dxc[2] * w3[2]) * one_c;
            let tmp = wdx * one_c;
            // w's adjoint: from w × xo, w (w·xo)(1 − cos) and w·xo
            let xw = cross(&xo, &dwx);
            let dw = [
                xw[0] + dxc[0] * tmp + dwdx * xo[0],
                xw[1] + dxc[1] * tmp + dwdx * xo[1],
                xw[2] + dxc[2] * tmp + dwdx * xo[2],
            ];
            let xo_from_cross = cross(&dwx, &w3);
            // θ's: from cos, sin and w = rot / θ
            let inv = 1.0 / theta;
            let d_theta = -d_cos * sintheta + d_sin * costheta
                - (dw[0] * w3[0] + dw[1] * w3[1] + dw[2] * w3[2]) * inv;
            for k in 0..3 {
                dc[k] += dw[k] * inv + d_theta * w3[k];
            }
            [
                dxc[0] * costheta + xo_from_cross[0] + dwdx * w3[0],
                dxc[1] * costheta + xo_from_cross[1] + dwdx * w3[1],
                dxc[2] * costheta + xo_from_cross[2] + dwdx * w3[2],
            ]
        } else {
            // xcam = xo + rot × xo
            let dr = cross(&xo, &dxc);
            for k in 0..3 {
                dc[k] += dr[k];
            }
            let xr = cross(&dxc, &rot);
            [dxc[0] + xr[0], dxc[1] + xr[1], dxc[2] + xr[2]]
        };
        let dpt = &mut d_x[p * 3..(p + 1) * 3];
        for k in 0..3 {
            dpt[k] += dxo[k];
            dc[3 + k] -= dxo[k];
        }
    }
    total
}

/// A scene: cameras about five units behind points in the unit cube,
/// looking along `z`, each observation's feature its projection plus
/// noise; camera 0 is not turned at all (Rodrigues' other branch).
pub struct Scene {
    pub cams: Vec<f64>,
    pub x: Vec<f64>,
    pub w: Vec<f64>,
    pub obs: Vec<usize>,
    pub feats: Vec<f64>,
}

/// A deterministic scene of `n_cams` cameras, `n_pts` points and `n_obs`
/// observations.
pub fn scene(n_cams: usize, n_pts: usize, n_obs: usize) -> Scene {
    let mut g = Lcg::new((n_cams * 7919 + n_pts * 31 + n_obs) as u64);
    let mut cams = Vec::with_capacity(n_cams * NCAM);
    for c in 0..n_cams {
        let rot = if c == 0 {
            [0.0; 3]
        } else {
            [g.range(-0.3, 0.3), g.range(-0.3, 0.3), g.range(-0.3, 0.3)]
        };
        cams.extend_from_slice(&rot);
        cams.extend_from_slice(&[g.range(-0.5, 0.5), g.range(-0.5, 0.5), g.range(-6.0, -4.0)]);
        cams.push(g.range(0.8, 1.2)); // focal length
        cams.extend_from_slice(&[g.range(-0.05, 0.05), g.range(-0.05, 0.05)]);
        cams.extend_from_slice(&[g.range(-0.1, 0.1), g.range(-0.02, 0.02)]);
    }
    let x = g.vec(3 * n_pts, -1.0, 1.0);
    let w = g.vec(n_obs, 0.5, 1.5);
    let mut obs = Vec::with_capacity(2 * n_obs);
    let mut feats = Vec::with_capacity(2 * n_obs);
    for i in 0..n_obs {
        let (c, p) = (i % n_cams, (i * 7 + i / n_cams) % n_pts);
        obs.extend_from_slice(&[c, p]);
        let proj = adbench_ba::project(&cams[c * NCAM..(c + 1) * NCAM], &x[p * 3..(p + 1) * 3]);
        feats.extend_from_slice(&[
            proj[0] + g.range(-0.05, 0.05),
            proj[1] + g.range(-0.05, 0.05),
        ]);
    }
    Scene {
        cams,
        x,
        w,
        obs,
        feats,
    }
}
