//! Bundle adjustment: the reprojection error of a scene seen by several
//! cameras, written as vision code writes it — `rodrigues` turns a point by
//! an axis-angle, `project` moves it into a camera and through a pinhole
//! with radial distortion, and the objective sums the squared residuals
//! over the observations. Cameras follow the "bundle adjustment in the
//! large" layout: axis-angle (3), translation (3), focal length, two
//! distortion coefficients. The helpers carry no marks; the objective's
//! `#[tracked]` cameras and points make them differentiated where they are
//! called.
//!
//! The scene is made up (a fixed seed), its cameras and points disturbed,
//! and both refined by gradient descent on the objective.
//!
//! Run it with `make -C examples/BundleAdjustment run`.

include!("ba.rs");

/// The same gradient by hand: the adjoint of each step of `project`,
/// written backwards, for the tests.
#[cfg(test)]
fn reprojection_by_hand(
    cams: &[[f64; 9]],
    points: &[[f64; 3]],
    seen: &[(usize, usize)],
    pixels: &[[f64; 2]],
) -> (Vec<[f64; 9]>, Vec<[f64; 3]>) {
    let mut d_cams = vec![[0.0; 9]; cams.len()];
    let mut d_points = vec![[0.0; 3]; points.len()];
    for (k, &(c, p)) in seen.iter().enumerate() {
        let (cam, x) = (&cams[c], &points[p]);
        let r = [cam[0], cam[1], cam[2]];
        let turned = ba::rodrigues(&r, x);
        let pc = [turned[0] + cam[3], turned[1] + cam[4], turned[2] + cam[5]];
        let (u, v) = (pc[0] / pc[2], pc[1] / pc[2]);
        let r2 = u * u + v * v;
        let l = 1.0 + cam[7] * r2 + cam[8] * r2 * r2;
        let f = cam[6];
        let (gu_px, gv_px) = (
            2.0 * (f * l * u - pixels[k][0]),
            2.0 * (f * l * v - pixels[k][1]),
        );
        d_cams[c][6] += gu_px * l * u + gv_px * l * v;
        let g_l = f * (gu_px * u + gv_px * v);
        d_cams[c][7] += g_l * r2;
        d_cams[c][8] += g_l * r2 * r2;
        let g_r2 = g_l * (cam[7] + 2.0 * cam[8] * r2);
        let g_u = f * l * gu_px + g_r2 * 2.0 * u;
        let g_v = f * l * gv_px + g_r2 * 2.0 * v;
        let g_p = [
            g_u / pc[2],
            g_v / pc[2],
            -(g_u * pc[0] + g_v * pc[1]) / (pc[2] * pc[2]),
        ];
        for i in 0..3 {
            d_cams[c][3 + i] += g_p[i];
        }
        // Rodrigues, backwards: g is the slope of the turned point
        let g = g_p;
        let theta2 = ba::dot(&r, &r);
        let (g_r, g_x) = if theta2 > 1e-12 {
            let theta = theta2.sqrt();
            let (s, co) = theta.sin_cos();
            let w = [r[0] / theta, r[1] / theta, r[2] / theta];
            let (wdx, gdw) = (ba::dot(&w, x), ba::dot(&g, &w));
            let g_cross_w = ba::cross(&g, &w);
            let x_cross_g = ba::cross(x, &g);
            let wx = ba::cross(&w, x);
            let mut g_x = [0.0; 3];
            let mut g_w = [0.0; 3];
            for i in 0..3 {
                g_x[i] = co * g[i] + s * g_cross_w[i] + (1.0 - co) * gdw * w[i];
                g_w[i] = s * x_cross_g[i] + (1.0 - co) * (wdx * g[i] + gdw * x[i]);
            }
            let g_theta = -s * ba::dot(&g, x) + co * ba::dot(&g, &wx) + s * wdx * gdw;
            // w = r / θ and θ = |r|
            let gw_dot_r = ba::dot(&g_w, &r);
            let mut g_r = [0.0; 3];
            for i in 0..3 {
                g_r[i] =
                    g_w[i] / theta - gw_dot_r * r[i] / (theta * theta2) + g_theta * r[i] / theta;
            }
            (g_r, g_x)
        } else {
            let g_cross_r = ba::cross(&g, &r);
            let x_cross_g = ba::cross(x, &g);
            let g_x = [
                g[0] + g_cross_r[0],
                g[1] + g_cross_r[1],
                g[2] + g_cross_r[2],
            ];
            (x_cross_g, g_x)
        };
        for i in 0..3 {
            d_cams[c][i] += g_r[i];
            d_points[p][i] += g_x[i];
        }
    }
    (d_cams, d_points)
}

/// A small generator of numbers in `[0, 1)`, so the scene is the same on
/// every run.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }
    fn around(&mut self, spread: f64) -> f64 {
        (self.next() - 0.5) * 2.0 * spread
    }
}

/// A scene: cameras, points, which camera saw which point, and where.
struct Scene {
    cams: Vec<[f64; 9]>,
    points: Vec<[f64; 3]>,
    seen: Vec<(usize, usize)>,
    pixels: Vec<[f64; 2]>,
}

/// `n_cams` cameras around a cloud of `n_points` points in front of them;
/// every camera sees every point.
fn scene(n_cams: usize, n_points: usize, rng: &mut Lcg) -> Scene {
    let cams: Vec<[f64; 9]> = (0..n_cams)
        .map(|_| {
            [
                rng.around(0.2),
                rng.around(0.2),
                rng.around(0.2),
                rng.around(0.5),
                rng.around(0.5),
                4.0 + rng.around(0.5),
                1.0 + rng.around(0.1),
                rng.around(0.05),
                rng.around(0.01),
            ]
        })
        .collect();
    let points: Vec<[f64; 3]> = (0..n_points)
        .map(|_| [rng.around(1.0), rng.around(1.0), rng.around(1.0)])
        .collect();
    let mut seen = Vec::new();
    let mut pixels = Vec::new();
    for (c, cam) in cams.iter().enumerate() {
        for (p, point) in points.iter().enumerate() {
            seen.push((c, p));
            pixels.push(ba::project(cam, point));
        }
    }
    Scene {
        cams,
        points,
        seen,
        pixels,
    }
}

/// Gradient descent on cameras and points, each block with its own step;
/// the cost every `every` rounds.
fn refine(s: &mut Scene, rounds: usize, every: usize) -> Vec<(usize, f64)> {
    let mut log = Vec::new();
    for round in 0..=rounds {
        let (cost, (d_cams, d_points)) =
            ba::reprojection_grad(&s.cams, &s.points, &s.seen, &s.pixels);
        if round % every == 0 {
            log.push((round, cost));
        }
        for (cam, d) in s.cams.iter_mut().zip(&d_cams) {
            for i in 0..9 {
                cam[i] -= 0.002 * d[i];
            }
        }
        for (point, d) in s.points.iter_mut().zip(&d_points) {
            for i in 0..3 {
                point[i] -= 0.05 * d[i];
            }
        }
    }
    log
}

/// The scene with its cameras' poses and its points disturbed.
fn disturbed(mut s: Scene, rng: &mut Lcg) -> Scene {
    for cam in s.cams.iter_mut() {
        for value in cam.iter_mut().take(6) {
            *value += rng.around(0.02);
        }
    }
    for point in s.points.iter_mut() {
        for value in point.iter_mut() {
            *value += rng.around(0.05);
        }
    }
    s
}

fn main() {
    let mut rng = Lcg(2026);
    let truth = scene(4, 30, &mut rng);
    let mut s = disturbed(truth, &mut rng);
    println!(
        "{} cameras, {} points, {} observations",
        s.cams.len(),
        s.points.len(),
        s.seen.len()
    );
    println!("{:>6}  {:>14}", "round", "cost");
    for (round, cost) in refine(&mut s, 2000, 250) {
        println!("{round:>6}  {cost:>14.8}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * (1.0 + a.abs().max(b.abs()))
    }

    #[test]
    fn gradient_matches_the_hand_written_adjoint_and_finite_differences() {
        let mut rng = Lcg(7);
        let truth = scene(2, 5, &mut rng);
        // one camera with no rotation: the small-angle branch
        let mut s = disturbed(truth, &mut rng);
        s.cams[1][0] = 0.0;
        s.cams[1][1] = 0.0;
        s.cams[1][2] = 0.0;
        let (_, (d_cams, d_points)) = ba::reprojection_grad(&s.cams, &s.points, &s.seen, &s.pixels);
        let (h_cams, h_points) = reprojection_by_hand(&s.cams, &s.points, &s.seen, &s.pixels);
        for (a, b) in d_cams.concat().iter().zip(&h_cams.concat()) {
            assert!(close(*a, *b), "cameras: {d_cams:?} vs {h_cams:?}");
        }
        for (a, b) in d_points.concat().iter().zip(&h_points.concat()) {
            assert!(close(*a, *b), "points: {d_points:?} vs {h_points:?}");
        }
        let points = s.points.clone();
        let at_cams = |v: &[f64]| {
            let cams: Vec<[f64; 9]> = v
                .chunks(9)
                .map(|c| [c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8]])
                .collect();
            ba::reprojection(&cams, &points, &s.seen, &s.pixels)
        };
        // (cameras 1's rotation stays on its branch: differences of 1e-6)
        mica::check::check_gradient(at_cams, &s.cams.concat(), &d_cams.concat())
            .expect("finite differences, cameras");
        let at_points = |v: &[f64]| {
            let points: Vec<[f64; 3]> = v.chunks(3).map(|c| [c[0], c[1], c[2]]).collect();
            ba::reprojection(&s.cams, &points, &s.seen, &s.pixels)
        };
        mica::check::check_gradient(at_points, &s.points.concat(), &d_points.concat())
            .expect("finite differences, points");
    }

    #[test]
    fn refinement_lowers_the_cost() {
        let mut rng = Lcg(2026);
        let truth = scene(4, 30, &mut rng);
        let mut s = disturbed(truth, &mut rng);
        let log = refine(&mut s, 400, 100);
        assert!(log.last().unwrap().1 < 0.2 * log[0].1, "{log:?}");
    }
}
