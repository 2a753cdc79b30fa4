//! Loops that carry one scalar from an iteration to the next, as solves
//! and recurrences are written: a Newton solve per data point left by
//! `break`, a `while` loop of hundreds of damped steps per point, a
//! recurrence through a division reading an array, and one whose step
//! takes a branch.
//!
//! Their reverse passes the carried slope back scaled, `k · γ`, with `γ`
//! computed from the forward run's values alone (`reverse/scaled.rs`); a
//! loop whose number of iterations is not known before it runs, inside a
//! fused loop, keeps its values through a writer that grows as it pushes.
//! Each program is written twice, as `#[tape]` and as `#[tape(plain)]`
//! (every slope as its rule says, nothing scaled), and Mica's gradient is
//! checked against central finite differences and against the plain one,
//! at several points, in `f64` and `f32`.
#![deny(warnings)]

mod fd;

macro_rules! programs {
    ($m:ident, $t:ty, $tol:expr, $attr:meta) => {
        pub mod $m {
            /// The response to each `x` solves `z + a z³ = k x`, by Newton's
            /// iteration left by `break`; the loss is the squared misfit.
            #[$attr]
            pub fn newton(#[tracked] a: $t, #[tracked] k: $t, xs: &[$t], ys: &[$t]) -> $t {
                let mut loss = 0.0;
                for i in 0..xs.len() {
                    let rhs = k * xs[i];
                    let mut z = rhs;
                    let mut iter = 0;
                    loop {
                        let f = z + a * z * z * z - rhs;
                        let step = f / (1.0 + 3.0 * a * z * z);
                        z -= step;
                        iter += 1;
                        if step.abs() < $tol || iter == 50 {
                            break;
                        }
                    }
                    let r = z - ys[i];
                    loss += r * r;
                }
                loss
            }

            /// Hundreds of damped steps per point, more for each point, in
            /// a `while` loop: its values are kept by a writer that grows.
            #[$attr]
            pub fn damped(#[tracked] c: $t, #[tracked] r: $t, n: usize) -> $t {
                let mut total = 0.0;
                for j in 0..n {
                    let target = c + (j as $t) * 0.1;
                    let mut z = 1.0;
                    let mut steps = 0;
                    while steps < 300 + 200 * j {
                        z = z - r * (z * z * z - target) / (1.0 + z * z);
                        steps += 1;
                    }
                    total += z * z;
                }
                total
            }

            /// A recurrence through a division and a sine, reading `x`.
            #[$attr]
            pub fn rational(#[tracked] w: $t, x: &[$t]) -> $t {
                let mut z = w;
                for i in 0..x.len() {
                    z = (z + x[i]).sin() / (1.0 + w * z * z);
                }
                z
            }

            /// A step that takes one arm or the other.
            #[$attr]
            pub fn branchy(#[tracked] w: $t, n: usize) -> $t {
                let mut z = w;
                for _ in 0..n {
                    if z > 0.5 {
                        z = z.sqrt() / (1.0 + w);
                    } else {
                        z = z * z + w * 0.7;
                    }
                }
                z
            }
        }
    };
}

programs!(m64, f64, 1e-12, mica::tape);
programs!(p64, f64, 1e-12, mica::tape(plain));
programs!(m32, f32, 1e-5, mica::tape);
programs!(p32, f32, 1e-5, mica::tape(plain));

macro_rules! check {
    ($m:ident, $p:ident, $t:ty, $fd_tol:expr, $rel:expr) => {{
        let (agree, same) = fd::checks::<$t>($fd_tol, $rel);
        let xs: Vec<$t> = (0..40).map(|i| -2.0 + 0.1 * i as $t).collect();
        let ys: Vec<$t> = xs.iter().map(|x| 0.7 * x + 0.05).collect();
        for (a, k) in [(0.5, 1.5), (0.2, 0.8), (1.3, -0.6)] {
            let (mut g, mut h) = ([0.0; 2], [0.0; 2]);
            {
                let [ga, gk] = &mut g;
                $m::newton_backward(a, k, &xs, &ys, 1.0, ga, gk);
                let [ha, hk] = &mut h;
                $p::newton_backward(a, k, &xs, &ys, 1.0, ha, hk);
            }
            let f = |v: &[$t]| $m::newton(v[0], v[1], &xs, &ys);
            agree("newton", &f, &[a, k], &g);
            same(&g, &h, "newton, against the plain adjoint");
        }
        for (c, r) in [(0.6, 0.05), (1.1, 0.02), (0.3, 0.08)] {
            let (mut g, mut h) = ([0.0; 2], [0.0; 2]);
            {
                let [gc, gr] = &mut g;
                $m::damped_backward(c, r, 4, 1.0, gc, gr);
                let [hc, hr] = &mut h;
                $p::damped_backward(c, r, 4, 1.0, hc, hr);
            }
            let f = |v: &[$t]| $m::damped(v[0], v[1], 4);
            agree("damped", &f, &[c, r], &g);
            same(&g, &h, "damped, against the plain adjoint");
        }
        let x: Vec<$t> = (0..25).map(|i| (0.3 * i as $t).cos()).collect();
        for w in [0.4, 0.9, 1.7] {
            let (mut g, mut h) = (0.0, 0.0);
            $m::rational_backward(w, &x, 1.0, &mut g);
            $p::rational_backward(w, &x, 1.0, &mut h);
            let f = |v: &[$t]| $m::rational(v[0], &x);
            agree("rational", &f, &[w], &[g]);
            same(&[g], &[h], "rational, against the plain adjoint");
        }
        for w in [0.3, 0.9, 2.5] {
            let (mut g, mut h) = (0.0, 0.0);
            $m::branchy_backward(w, 12, 1.0, &mut g);
            $p::branchy_backward(w, 12, 1.0, &mut h);
            let f = |v: &[$t]| $m::branchy(v[0], 12);
            agree("branchy", &f, &[w], &[g]);
            same(&[g], &[h], "branchy, against the plain adjoint");
        }
    }};
}

#[test]
fn carried_solves_agree_with_finite_differences_and_the_plain_adjoint() {
    check!(m64, p64, f64, 1e-6, 1e-10);
    check!(m32, p32, f32, 2e-2, 1e-4);
}

/// The slopes of the Newton solve by hand: the iterations' adjoint walked
/// back as a strong engineer writes it (`z' = z − f/g`, so
/// `∂z'/∂z = 6 a z f / g²`, `∂z'/∂a = −(z³ g − 3 z² f) / g²` and
/// `∂z'/∂rhs = 1/g`), at three points.
#[test]
fn the_newton_solve_agrees_with_its_adjoint_by_hand() {
    let xs: Vec<f64> = (0..40).map(|i| -2.0 + 0.1 * i as f64).collect();
    let ys: Vec<f64> = xs.iter().map(|x| 0.7 * x + 0.05).collect();
    for (a, k) in [(0.5, 1.5), (0.2, 0.8), (1.3, -0.6)] {
        let (mut da, mut dk) = (0.0, 0.0);
        for (x, y) in xs.iter().zip(&ys) {
            let rhs = k * x;
            let mut zs = vec![rhs];
            loop {
                let z = *zs.last().unwrap();
                let step = (z + a * z * z * z - rhs) / (1.0 + 3.0 * a * z * z);
                zs.push(z - step);
                if step.abs() < 1e-12 || zs.len() == 51 {
                    break;
                }
            }
            let mut dz = 2.0 * (zs.pop().unwrap() - y);
            let mut d_rhs = 0.0;
            for &z in zs.iter().rev() {
                let g = 1.0 + 3.0 * a * z * z;
                let f = z + a * z * z * z - rhs;
                da -= dz * (z * z * z * g - 3.0 * z * z * f) / (g * g);
                d_rhs += dz / g;
                dz *= 6.0 * a * z * f / (g * g);
            }
            dk += (d_rhs + dz) * x;
        }
        let (mut ga, mut gk) = (0.0, 0.0);
        m64::newton_backward(a, k, &xs, &ys, 1.0, &mut ga, &mut gk);
        fd::same("newton, by hand", &[ga, gk], &[da, dk], 1e-10);
    }
}
