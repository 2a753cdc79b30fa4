//! ADBench's bundle-adjustment residual and its 2 × 15 Jacobian block.
//!
//! A camera has 11 parameters: a Rodrigues rotation (3), the camera centre
//! (3), the focal length (1), the principal point (2) and two radial
//! distortion coefficients (2). A 3-D point `x` seen by the camera at the
//! feature `feat`, with weight `w`, gives the residual
//! `w · (project(cam, x) − feat)`, a 2-vector. The projection subtracts the
//! centre, rotates, divides by depth, distorts radially, scales by the focal
//! length and shifts by the principal point, each step a helper as ADBench's
//! reference code has it (`rodrigues_rotate_point`, `p2e`, `radial_distort`,
//! `project`, `computeReprojError`), here as helpers of a `#[tape]` module.
//!
//! Mica's `reproject_jacobian` gives the residual and its Jacobian with
//! respect to the 15 tracked inputs (camera, point, weight, in that order);
//! [`reproject_jacobian_hand`] is the same block written by hand in one pass.

use mica::tape;

pub use adbench::{reproject, reproject_jacobian};

#[tape]
pub mod adbench {
    fn sqsum3(a: &[f64; 3]) -> f64 {
        a[0] * a[0] + a[1] * a[1] + a[2] * a[2]
    }

    fn dot3(a: &[f64; 3], b: &[f64; 3]) -> f64 {
        a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
    }

    fn cross(a: &[f64; 3], b: &[f64; 3]) -> [f64; 3] {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    }

    /// `x` rotated by the axis-angle `rot`; at a zero angle, the
    /// first-order form.
    fn rodrigues_rotate_point(rot: &[f64; 3], x: &[f64; 3]) -> [f64; 3] {
        let sqtheta = sqsum3(rot);
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
            let w_cross_x = cross(&w, x);
            let tmp = dot3(&w, x) * (1.0 - costheta);
            [
                x[0] * costheta + w_cross_x[0] * sintheta + w[0] * tmp,
                x[1] * costheta + w_cross_x[1] * sintheta + w[1] * tmp,
                x[2] * costheta + w_cross_x[2] * sintheta + w[2] * tmp,
            ]
        } else {
            let rot_cross_x = cross(rot, x);
            [
                x[0] + rot_cross_x[0],
                x[1] + rot_cross_x[1],
                x[2] + rot_cross_x[2],
            ]
        }
    }

    /// Homogeneous to Euclidean: divide by depth.
    fn p2e(x: &[f64; 3]) -> [f64; 2] {
        [x[0] / x[2], x[1] / x[2]]
    }

    fn radial_distort(rad: &[f64; 2], proj: &[f64; 2]) -> [f64; 2] {
        let rsq = proj[0] * proj[0] + proj[1] * proj[1];
        let l = 1.0 + rad[0] * rsq + rad[1] * rsq * rsq;
        [proj[0] * l, proj[1] * l]
    }

    /// Where the camera sees `x`, in pixels.
    fn project(cam: &[f64; 11], x: &[f64; 3]) -> [f64; 2] {
        let xo = [x[0] - cam[3], x[1] - cam[4], x[2] - cam[5]];
        let xcam = rodrigues_rotate_point(&[cam[0], cam[1], cam[2]], &xo);
        let distorted = radial_distort(&[cam[9], cam[10]], &p2e(&xcam));
        [
            distorted[0] * cam[6] + cam[7],
            distorted[1] * cam[6] + cam[8],
        ]
    }

    /// The weighted reprojection residual of one observation.
    #[tape(jacobian)]
    pub fn reproject(
        #[tracked] cam: &[f64; 11],
        #[tracked] x: &[f64; 3],
        #[tracked] w: f64,
        feat: &[f64; 2],
    ) -> [f64; 2] {
        let proj = project(cam, x);
        [w * (proj[0] - feat[0]), w * (proj[1] - feat[1])]
    }
}

/// The same Jacobian from Mica's `reproject_backward`, one reverse sweep
/// per output row (seeds `(1, 0)` and `(0, 1)`), in the hand-written
/// layout: what a Mica user can write today when outputs are fewer than
/// inputs.
pub fn reproject_jacobian_by_rows(
    cam: &[f64; 11],
    x: &[f64; 3],
    w: f64,
    feat: &[f64; 2],
) -> [[f64; 15]; 2] {
    let mut jac = [[0.0; 15]; 2];
    for (i, row) in jac.iter_mut().enumerate() {
        let mut seed = [0.0; 2];
        seed[i] = 1.0;
        let (mut d_cam, mut d_x, mut d_w) = ([0.0; 11], [0.0; 3], 0.0);
        adbench::reproject_backward(cam, x, w, feat, &seed, &mut d_cam, &mut d_x, &mut d_w);
        row[..11].copy_from_slice(&d_cam);
        row[11..14].copy_from_slice(&d_x);
        row[14] = d_w;
    }
    jac
}

/// The residual and its Jacobian by hand, in one pass: row `i` is output
/// `i`, columns 0–10 the camera, 11–13 the point, 14 the weight.
pub fn reproject_jacobian_hand(
    cam: &[f64; 11],
    x: &[f64; 3],
    w: f64,
    feat: &[f64; 2],
) -> ([f64; 2], [[f64; 15]; 2]) {
    let xo = [x[0] - cam[3], x[1] - cam[4], x[2] - cam[5]];
    let r = [cam[0], cam[1], cam[2]];
    let sqtheta = r[0] * r[0] + r[1] * r[1] + r[2] * r[2];
    // the rotated point, R = ∂xcam/∂xo and D = ∂xcam/∂r
    let (xcam, rm, dr) = if sqtheta != 0.0 {
        let theta = sqtheta.sqrt();
        let (s, c) = theta.sin_cos();
        let inv = 1.0 / theta;
        let u = [r[0] * inv, r[1] * inv, r[2] * inv];
        let uxo = [
            u[1] * xo[2] - u[2] * xo[1],
            u[2] * xo[0] - u[0] * xo[2],
            u[0] * xo[1] - u[1] * xo[0],
        ];
        let udx = u[0] * xo[0] + u[1] * xo[1] + u[2] * xo[2];
        let omc = 1.0 - c;
        let tmp = udx * omc;
        let mut xcam = [0.0; 3];
        // ∂xcam/∂θ, and A = ∂xcam/∂u with u free
        let mut a_theta = [0.0; 3];
        let mut a = [[0.0; 3]; 3];
        // [xo]×: ∂(u × xo)/∂u = −[xo]×
        let xo_x = [
            [0.0, -xo[2], xo[1]],
            [xo[2], 0.0, -xo[0]],
            [-xo[1], xo[0], 0.0],
        ];
        let u_x = [[0.0, -u[2], u[1]], [u[2], 0.0, -u[0]], [-u[1], u[0], 0.0]];
        let mut rm = [[0.0; 3]; 3];
        for i in 0..3 {
            xcam[i] = xo[i] * c + uxo[i] * s + u[i] * tmp;
            a_theta[i] = -s * xo[i] + c * uxo[i] + s * u[i] * udx;
            for j in 0..3 {
                let delta = if i == j { 1.0 } else { 0.0 };
                a[i][j] = -s * xo_x[i][j] + omc * (udx * delta + u[i] * xo[j]);
                rm[i][j] = c * delta + s * u_x[i][j] + omc * u[i] * u[j];
            }
        }
        // ∂u/∂r = (I − u uᵀ)/θ and ∂θ/∂r = uᵀ
        let mut dr = [[0.0; 3]; 3];
        for i in 0..3 {
            let au = a[i][0] * u[0] + a[i][1] * u[1] + a[i][2] * u[2];
            for j in 0..3 {
                dr[i][j] = a_theta[i] * u[j] + (a[i][j] - au * u[j]) * inv;
            }
        }
        (xcam, rm, dr)
    } else {
        let xcam = [
            xo[0] + (r[1] * xo[2] - r[2] * xo[1]),
            xo[1] + (r[2] * xo[0] - r[0] * xo[2]),
            xo[2] + (r[0] * xo[1] - r[1] * xo[0]),
        ];
        let rm = [[1.0, -r[2], r[1]], [r[2], 1.0, -r[0]], [-r[1], r[0], 1.0]];
        let dr = [
            [0.0, xo[2], -xo[1]],
            [-xo[2], 0.0, xo[0]],
            [xo[1], -xo[0], 0.0],
        ];
        (xcam, rm, dr)
    };
    let iz = 1.0 / xcam[2];
    let p = [xcam[0] * iz, xcam[1] * iz];
    let rsq = p[0] * p[0] + p[1] * p[1];
    let (k0, k1) = (cam[9], cam[10]);
    let l = 1.0 + k0 * rsq + k1 * rsq * rsq;
    let f = cam[6];
    let d = [p[0] * l, p[1] * l];
    let proj = [d[0] * f + cam[7], d[1] * f + cam[8]];
    let e = [w * (proj[0] - feat[0]), w * (proj[1] - feat[1])];

    let mut jac = [[0.0; 15]; 2];
    // ∂e/∂p = w f (L I + 2 (k0 + 2 k1 rsq) p pᵀ), then through p = xcam[..2]/xcam[2]
    let wf = w * f;
    let dl = 2.0 * (k0 + 2.0 * k1 * rsq);
    for (i, row) in jac.iter_mut().enumerate() {
        let m = [
            wf * ((if i == 0 { l } else { 0.0 }) + dl * p[i] * p[0]),
            wf * ((if i == 1 { l } else { 0.0 }) + dl * p[i] * p[1]),
        ];
        // ∂e_i/∂xcam
        let g = [m[0] * iz, m[1] * iz, -(m[0] * p[0] + m[1] * p[1]) * iz];
        for j in 0..3 {
            // rotation, and the point through R (the centre: its negative)
            row[j] = g[0] * dr[0][j] + g[1] * dr[1][j] + g[2] * dr[2][j];
            let dx = g[0] * rm[0][j] + g[1] * rm[1][j] + g[2] * rm[2][j];
            row[3 + j] = -dx;
            row[11 + j] = dx;
        }
        row[6] = w * d[i];
        row[7 + i] = w;
        row[9] = wf * p[i] * rsq;
        row[10] = wf * p[i] * rsq * rsq;
        row[14] = proj[i] - feat[i];
    }
    (e, jac)
}

/// One observation: a camera, a point, a weight and the feature seen.
pub type Observation = ([f64; 11], [f64; 3], f64, [f64; 2]);

/// A few observations: cameras turned a little (every fifth not at all),
/// points in front of them, weights near one.
pub fn observations(count: usize) -> Vec<Observation> {
    (0..count)
        .map(|k| {
            let t = k as f64;
            let rot = if k % 5 == 4 {
                [0.0; 3]
            } else {
                [
                    0.1 * (t * 0.7).sin(),
                    -0.2 + 0.05 * (t * 1.3).cos(),
                    0.15 * (t * 0.4).sin(),
                ]
            };
            let cam = [
                rot[0],
                rot[1],
                rot[2],
                0.3 * (t * 0.9).sin(),
                -0.2 * (t * 0.5).cos(),
                -5.0 + 0.1 * t.sin(),
                800.0 + 10.0 * (t * 0.3).cos(),
                320.0 + t,
                240.0 - t,
                -1e-2 * (1.0 + 0.1 * t.sin()),
                2e-3 * (1.0 + 0.1 * t.cos()),
            ];
            let x = [
                0.5 * (t * 1.1).sin(),
                0.4 * (t * 0.6).cos(),
                1.0 + 0.3 * (t * 0.8).sin(),
            ];
            let w = 0.8 + 0.05 * (k % 7) as f64;
            let feat = [300.0 + 5.0 * t.cos(), 250.0 + 4.0 * t.sin()];
            (cam, x, w, feat)
        })
        .collect()
}
