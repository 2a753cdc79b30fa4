// The objective of bundle adjustment, as helpers of a `#[tape] mod`:
// included by `main.rs`, and by the benchmarks (`benches/src/factored.rs`),
// which measure it against the same lines written inline.

#[mica::tape]
pub mod ba {
    pub fn dot(a: &[f64; 3], b: &[f64; 3]) -> f64 {
        a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
    }

    pub fn cross(a: &[f64; 3], b: &[f64; 3]) -> [f64; 3] {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    }

    /// `x` turned by the axis-angle `r` (Rodrigues' formula; near zero,
    /// its first-order form).
    pub fn rodrigues(r: &[f64; 3], x: &[f64; 3]) -> [f64; 3] {
        let theta2 = dot(r, r);
        if theta2 > 1e-12 {
            let theta = theta2.sqrt();
            let (s, c) = theta.sin_cos();
            let w = [r[0] / theta, r[1] / theta, r[2] / theta];
            let wx = cross(&w, x);
            let wdx = dot(&w, x);
            let mut out = [0.0; 3];
            for i in 0..3 {
                out[i] = x[i] * c + wx[i] * s + w[i] * wdx * (1.0 - c);
            }
            out
        } else {
            let rx = cross(r, x);
            [x[0] + rx[0], x[1] + rx[1], x[2] + rx[2]]
        }
    }

    /// Where camera `cam` sees the point `x`, in pixels.
    pub fn project(cam: &[f64; 9], x: &[f64; 3]) -> [f64; 2] {
        let turned = rodrigues(&[cam[0], cam[1], cam[2]], x);
        let p = [turned[0] + cam[3], turned[1] + cam[4], turned[2] + cam[5]];
        let (u, v) = (p[0] / p[2], p[1] / p[2]);
        let r2 = u * u + v * v;
        let distortion = 1.0 + cam[7] * r2 + cam[8] * r2 * r2;
        [cam[6] * distortion * u, cam[6] * distortion * v]
    }

    /// The sum of squared reprojection residuals over the observations:
    /// `seen[k] = (camera, point)` saw `pixels[k]`.
    pub fn reprojection(
        #[tracked] cams: &[[f64; 9]],
        #[tracked] points: &[[f64; 3]],
        seen: &[(usize, usize)],
        pixels: &[[f64; 2]],
    ) -> f64 {
        let mut total = 0.0;
        for k in 0..seen.len() {
            let (c, p) = seen[k];
            let at = project(&cams[c], &points[p]);
            let (du, dv) = (at[0] - pixels[k][0], at[1] - pixels[k][1]);
            total += du * du + dv * dv;
        }
        total
    }
}
