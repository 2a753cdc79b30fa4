//! Programs factored the way their authors write them: bundle adjustment's
//! reprojection error through `rodrigues` and `project` helpers of a
//! `#[tape] mod` (as `examples/BundleAdjustment` has it), the same
//! objective written inline by hand, and the extended Rosenbrock function
//! as an iterator chain. The first two against one hand-written adjoint
//! measure what factoring into helpers costs; the chain against the loop's
//! hand adjoint in `rosenbrock.rs`.

// the inline objective is written as its authors would, with index loops
#![allow(clippy::needless_range_loop)]

use mica::tape;

include!("../../examples/BundleAdjustment/ba.rs");

/// The reprojection error with every helper written out where it is
/// called: the same lines as `ba`'s helpers, in one function.
#[tape]
pub fn reprojection_inline(
    #[tracked] cams: &[[f64; 9]],
    #[tracked] points: &[[f64; 3]],
    seen: &[(usize, usize)],
    pixels: &[[f64; 2]],
) -> f64 {
    let mut total = 0.0;
    for k in 0..seen.len() {
        let (c, p) = seen[k];
        let x = &points[p];
        let r = [cams[c][0], cams[c][1], cams[c][2]];
        let theta2 = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
        let turned = if theta2 > 1e-12 {
            let theta = theta2.sqrt();
            let (s, co) = (theta.sin(), theta.cos());
            let w = [r[0] / theta, r[1] / theta, r[2] / theta];
            let wx = [
                w[1] * x[2] - w[2] * x[1],
                w[2] * x[0] - w[0] * x[2],
                w[0] * x[1] - w[1] * x[0],
            ];
            let wdx = w[0] * x[0] + w[1] * x[1] + w[2] * x[2];
            let mut out = [0.0; 3];
            for i in 0..3 {
                out[i] = x[i] * co + wx[i] * s + w[i] * wdx * (1.0 - co);
            }
            out
        } else {
            let rx = [
                r[1] * x[2] - r[2] * x[1],
                r[2] * x[0] - r[0] * x[2],
                r[0] * x[1] - r[1] * x[0],
            ];
            [x[0] + rx[0], x[1] + rx[1], x[2] + rx[2]]
        };
        let pc = [
            turned[0] + cams[c][3],
            turned[1] + cams[c][4],
            turned[2] + cams[c][5],
        ];
        let (u, v) = (pc[0] / pc[2], pc[1] / pc[2]);
        let r2 = u * u + v * v;
        let distortion = 1.0 + cams[c][7] * r2 + cams[c][8] * r2 * r2;
        let at = [cams[c][6] * distortion * u, cams[c][6] * distortion * v];
        let (du, dv) = (at[0] - pixels[k][0], at[1] - pixels[k][1]);
        total += du * du + dv * dv;
    }
    total
}

/// The hand-written adjoint of the reprojection error, into slots.
pub fn reprojection_hand(
    cams: &[[f64; 9]],
    points: &[[f64; 3]],
    seen: &[(usize, usize)],
    pixels: &[[f64; 2]],
    seed: f64,
    d_cams: &mut [[f64; 9]],
    d_points: &mut [[f64; 3]],
) -> f64 {
    let mut total = 0.0;
    for (k, &(c, p)) in seen.iter().enumerate() {
        let (cam, x) = (&cams[c], &points[p]);
        let r = [cam[0], cam[1], cam[2]];
        let theta2 = ba::dot(&r, &r);
        // forward, keeping what the reverse reads
        let (s, co, theta, w, wx, wdx) = if theta2 > 1e-12 {
            let theta = theta2.sqrt();
            let (s, co) = theta.sin_cos();
            let w = [r[0] / theta, r[1] / theta, r[2] / theta];
            (s, co, theta, w, ba::cross(&w, x), ba::dot(&w, x))
        } else {
            (0.0, 1.0, 0.0, [0.0; 3], [0.0; 3], 0.0)
        };
        let turned = if theta2 > 1e-12 {
            [
                x[0] * co + wx[0] * s + w[0] * wdx * (1.0 - co),
                x[1] * co + wx[1] * s + w[1] * wdx * (1.0 - co),
                x[2] * co + wx[2] * s + w[2] * wdx * (1.0 - co),
            ]
        } else {
            let rx = ba::cross(&r, x);
            [x[0] + rx[0], x[1] + rx[1], x[2] + rx[2]]
        };
        let pc = [turned[0] + cam[3], turned[1] + cam[4], turned[2] + cam[5]];
        let (u, v) = (pc[0] / pc[2], pc[1] / pc[2]);
        let r2 = u * u + v * v;
        let l = 1.0 + cam[7] * r2 + cam[8] * r2 * r2;
        let f = cam[6];
        let (eu, ev) = (f * l * u - pixels[k][0], f * l * v - pixels[k][1]);
        total += eu * eu + ev * ev;
        // reverse
        let (gu_px, gv_px) = (2.0 * seed * eu, 2.0 * seed * ev);
        let dc = &mut d_cams[c];
        dc[6] += (gu_px * u + gv_px * v) * l;
        let g_l = f * (gu_px * u + gv_px * v);
        dc[7] += g_l * r2;
        dc[8] += g_l * r2 * r2;
        let g_r2 = g_l * (cam[7] + 2.0 * cam[8] * r2);
        let g_u = f * l * gu_px + 2.0 * g_r2 * u;
        let g_v = f * l * gv_px + 2.0 * g_r2 * v;
        let inv = 1.0 / pc[2];
        let g = [g_u * inv, g_v * inv, -(g_u * u + g_v * v) * inv];
        dc[3] += g[0];
        dc[4] += g[1];
        dc[5] += g[2];
        let dp = &mut d_points[p];
        if theta2 > 1e-12 {
            let gdw = ba::dot(&g, &w);
            let gxw = ba::cross(&g, &w);
            let xxg = ba::cross(x, &g);
            let mut g_w = [0.0; 3];
            for i in 0..3 {
                dp[i] += co * g[i] + s * gxw[i] + (1.0 - co) * gdw * w[i];
                g_w[i] = s * xxg[i] + (1.0 - co) * (wdx * g[i] + gdw * x[i]);
            }
            let g_theta = -s * ba::dot(&g, x) + co * ba::dot(&g, &wx) + s * wdx * gdw;
            let gw_dot_w = ba::dot(&g_w, &w);
            for i in 0..3 {
                dc[i] += (g_w[i] - gw_dot_w * w[i]) / theta + g_theta * w[i];
            }
        } else {
            let gxr = ba::cross(&g, &r);
            let xxg = ba::cross(x, &g);
            for i in 0..3 {
                dp[i] += g[i] + gxr[i];
                dc[i] += xxg[i];
            }
        }
    }
    total
}

/// A scene of `n_cams` cameras and `n_points` points, each point seen by
/// `per_point` cameras, its pixels the projections themselves.
pub struct Scene {
    pub cams: Vec<[f64; 9]>,
    pub points: Vec<[f64; 3]>,
    pub seen: Vec<(usize, usize)>,
    pub pixels: Vec<[f64; 2]>,
}

pub fn scene(n_cams: usize, n_points: usize, per_point: usize) -> Scene {
    let mut state = 2026u64;
    let mut next = move |spread: f64| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 2.0 * spread
    };
    let cams: Vec<[f64; 9]> = (0..n_cams)
        .map(|_| {
            [
                next(0.2),
                next(0.2),
                next(0.2),
                next(0.5),
                next(0.5),
                4.0 + next(0.5),
                1.0 + next(0.1),
                next(0.05),
                next(0.01),
            ]
        })
        .collect();
    let points: Vec<[f64; 3]> = (0..n_points)
        .map(|_| [next(1.0), next(1.0), next(1.0)])
        .collect();
    let mut seen = Vec::new();
    let mut pixels = Vec::new();
    for p in 0..n_points {
        for j in 0..per_point {
            let c = (p + j * 7) % n_cams;
            seen.push((c, p));
            let at = ba::project(&cams[c], &points[p]);
            pixels.push([at[0] + next(0.01), at[1] + next(0.01)]);
        }
    }
    Scene {
        cams,
        points,
        seen,
        pixels,
    }
}

/// The extended Rosenbrock function of `rosenbrock.rs` as an iterator chain.
#[tape]
pub fn rosenbrock_chain(#[tracked] x: &[f64]) -> f64 {
    (0..x.len() / 2)
        .map(|i| {
            let (a, b) = (x[2 * i], x[2 * i + 1]);
            let t = b - a * a;
            let u = 1.0 - a;
            100.0 * t * t + u * u
        })
        .sum()
}
