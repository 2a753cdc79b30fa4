//! Programs factored the way their authors write them: bundle adjustment's
//! reprojection error through `rodrigues` and `project` helpers of a
//! `#[tape] mod` (as `examples/BundleAdjustment` has it), the same
//! objective written inline by hand, and the extended Rosenbrock function
//! as an iterator chain; and the forward kinematics of a planar arm through
//! `rot`, `trans` and `matmul` helpers (as `examples/Robot` has it), again
//! beside the same lines inline. Each factored objective and its inline
//! twin against one hand-written adjoint measure what factoring into
//! helpers costs; the chain against the loop's hand adjoint in
//! `rosenbrock.rs`.

// the inline objective is written as its authors would, with index loops
#![allow(clippy::needless_range_loop)]

use mica::tape;

include!("../../examples/BundleAdjustment/ba.rs");
include!("../../examples/Robot/arm.rs");

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

/// The arm's loss of `arm::reach` with every helper written out where it
/// is called: the same lines as `arm`'s helpers, in one function.
#[tape]
pub fn reach_inline(#[tracked] q: &[f64], lengths: &[f64], target: &[f64; 2]) -> f64 {
    let mut pose = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    for j in 0..q.len() {
        let (s, c) = q[j].sin_cos();
        let turn = [[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]];
        let mut turned = [[0.0; 3]; 3];
        for a in 0..3 {
            for b in 0..3 {
                for k in 0..3 {
                    turned[a][b] += pose[a][k] * turn[k][b];
                }
            }
        }
        let link = [[1.0, 0.0, lengths[j]], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
        let mut next = [[0.0; 3]; 3];
        for a in 0..3 {
            for b in 0..3 {
                for k in 0..3 {
                    next[a][b] += turned[a][k] * link[k][b];
                }
            }
        }
        pose = next;
    }
    let (x, y) = (pose[0][2], pose[1][2]);
    let (dx, dy) = (x - target[0], y - target[1]);
    let mut rest = 0.0;
    for angle in q.iter() {
        rest += angle * angle;
    }
    dx * dx + dy * dy + 1e-3 * rest
}

type Pose = [[f64; 3]; 3];

fn matmul(a: &Pose, b: &Pose) -> Pose {
    let mut c = [[0.0; 3]; 3];
    for i in 0..3 {
        for j in 0..3 {
            c[i][j] = a[i][0] * b[0][j] + a[i][1] * b[1][j] + a[i][2] * b[2][j];
        }
    }
    c
}

/// The adjoint of `arm::reach` by hand, as an engineer writes the reverse
/// of a chain of matrix products: the forward pass keeps the pose before
/// each joint and the joint's sine and cosine; the reverse carries the
/// adjoint of the pose from the tip back to the base (`d(A·B)` gives
/// `dA = dC·Bᵀ`, `dB = Aᵀ·dC`), and reads each angle's slope off the
/// adjoint of its rotation. The links' lengths are constants, so only the
/// pose's adjoint passes through them.
pub fn reach_hand(
    q: &[f64],
    lengths: &[f64],
    target: &[f64; 2],
    seed: f64,
    d_q: &mut [f64],
) -> f64 {
    let n = q.len();
    let mut before: Vec<(Pose, f64, f64)> = Vec::with_capacity(n);
    let mut pose = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    let mut rest = 0.0;
    for j in 0..n {
        let (s, c) = q[j].sin_cos();
        before.push((pose, s, c));
        let turned = matmul(&pose, &[[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]]);
        pose = matmul(
            &turned,
            &[[1.0, 0.0, lengths[j]], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]],
        );
        rest += q[j] * q[j];
    }
    let (dx, dy) = (pose[0][2] - target[0], pose[1][2] - target[1]);
    let value = dx * dx + dy * dy + 1e-3 * rest;
    // the adjoint of the final pose: only the translation column is read
    let mut d_pose = [[0.0; 3]; 3];
    d_pose[0][2] = 2.0 * dx * seed;
    d_pose[1][2] = 2.0 * dy * seed;
    for j in (0..n).rev() {
        let (prev, s, c) = before[j];
        let l = lengths[j];
        // next = turned · link, link = [[1, 0, l], [0, 1, 0], [0, 0, 1]]:
        // d_turned = d_next · linkᵀ
        let mut d_turned = d_pose;
        for row in d_turned.iter_mut() {
            row[0] += l * row[2];
        }
        // turned = prev · turn: d_turn = prevᵀ · d_turned, d_prev = d_turned · turnᵀ
        let mut d_turn = [[0.0; 2]; 2];
        for a in 0..2 {
            for b in 0..2 {
                d_turn[a][b] = prev[0][a] * d_turned[0][b]
                    + prev[1][a] * d_turned[1][b]
                    + prev[2][a] * d_turned[2][b];
            }
        }
        // turn = [[c, -s], [s, c]] in its upper left block
        d_q[j] += (-s * d_turn[0][0] - c * d_turn[0][1] + c * d_turn[1][0] - s * d_turn[1][1])
            + 2e-3 * q[j] * seed;
        for row in d_pose.iter_mut().zip(d_turned.iter()) {
            let (d_prev, dt) = row;
            d_prev[0] = dt[0] * c - dt[1] * s;
            d_prev[1] = dt[0] * s + dt[1] * c;
            d_prev[2] = dt[2];
        }
    }
    value
}

/// Joint angles and link lengths of an `n`-joint arm, and a target it can
/// reach.
pub fn arm(n: usize) -> (Vec<f64>, Vec<f64>, [f64; 2]) {
    let q = (0..n).map(|j| 0.3 * ((j as f64) * 1.7).sin()).collect();
    let lengths = (0..n).map(|j| 1.0 / (1.0 + j as f64)).collect();
    (q, lengths, [0.8, 1.1])
}
