//! Loops over neighbouring elements (`x[i]` and `x[i + 1]`), whose fused
//! reverse carries the upper element's slope to the next iteration in a
//! register, and the loops where it must not: walked backward or by steps
//! of two, offsets two apart, a third offset, reads in an arm or after a
//! `continue`, a `break` that leaves a slope waiting, a loop that does not
//! run. Loops walked back whose slopes wait in registers too (a stencil
//! stepped into a second buffer, on a line and on a grid through a named
//! index, a parameter read at three neighbours next to reads outside the
//! window), and the loops where they must not: the array written in the
//! body. Each gradient against central finite differences, in `f64` and
//! `f32`.
#![deny(warnings)]
#![allow(clippy::needless_range_loop)]

mod fd;

macro_rules! programs {
    ($m:ident, $t:ty) => {
        pub mod $m {
            use mica::tape;

            /// The chained Rosenbrock function.
            #[tape]
            pub fn chained(#[tracked] x: &[$t]) -> $t {
                let mut f = 0.0;
                for i in 0..x.len() - 1 {
                    f += 100.0 * (x[i + 1] - x[i] * x[i]).powi(2) + (1.0 - x[i]).powi(2);
                }
                f
            }

            /// The lower neighbour behind the index, through a name.
            #[tape]
            pub fn behind(#[tracked] x: &[$t], #[tracked] y: &[$t]) -> $t {
                let mut f = 0.0;
                for i in 1..x.len() {
                    let p = i - 1;
                    f += (x[i] - x[p]).powi(2) * y[i].sin() + y[p] * x[i];
                }
                0.5 * f
            }

            /// Walked backward: the iteration after `i` is `i - 1`.
            #[tape]
            pub fn backward_walk(#[tracked] x: &[$t]) -> $t {
                let mut f = 0.0;
                for i in (0..x.len() - 1).rev() {
                    f += (x[i + 1] - x[i] * x[i]).powi(2) + x[i + 1].sin();
                }
                f
            }

            /// By steps of two: the iteration after `i` is `i + 2`.
            #[tape]
            pub fn stepped(#[tracked] x: &[$t]) -> $t {
                let mut f = 0.0;
                for i in (0..x.len() - 1).step_by(2) {
                    f += x[i + 1] * x[i].cos() + x[i + 1] * x[i + 1];
                }
                f
            }

            /// Offsets two apart, and three offsets.
            #[tape]
            pub fn wide(#[tracked] x: &[$t]) -> $t {
                let mut f = 0.0;
                for i in 0..x.len() - 2 {
                    f += (x[i + 2] - x[i]).powi(2);
                }
                let mut g = 0.0;
                for i in 0..x.len() - 2 {
                    g += x[i] * x[i + 1] * x[i + 2];
                }
                f + g
            }

            /// The upper read in an arm, and after a `continue`.
            #[tape]
            pub fn guarded(#[tracked] x: &[$t], c: $t) -> $t {
                let mut f = 0.0;
                for i in 0..x.len() - 1 {
                    f += x[i].tanh();
                    if x[i] > c {
                        f += x[i + 1] * x[i];
                    }
                }
                let mut g = 0.0;
                for i in 0..x.len() - 1 {
                    g += x[i] * x[i];
                    if x[i + 1] < c {
                        continue;
                    }
                    g += (x[i + 1] - x[i]).powi(2);
                }
                f + g
            }

            /// A `break` that leaves a slope waiting for an iteration that
            /// does not come.
            #[tape]
            pub fn stops(#[tracked] x: &[$t], limit: $t) -> $t {
                let mut f = 0.0;
                for i in 0..x.len() - 1 {
                    f += (x[i + 1] - x[i]).powi(2) + x[i + 1];
                    if x[i + 1] > limit {
                        break;
                    }
                }
                f
            }

            /// A line stepped into a second buffer swapped with it: the
            /// row's loop is walked back, its three neighbours' slopes in
            /// registers.
            #[tape]
            pub fn line(#[tracked] x: &[$t], #[tracked] a: $t, steps: usize) -> $t {
                let n = x.len();
                let mut u = x.to_vec();
                let mut v = x.to_vec();
                for _ in 0..steps {
                    for i in 1..n - 1 {
                        v[i] = u[i] + a * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
                    }
                    std::mem::swap(&mut u, &mut v);
                }
                let mut f = 0.0;
                for i in 0..n {
                    f += u[i] * u[i] * (i as $t + 1.0);
                }
                f
            }

            /// A grid of rows of `m` through a named index, as a heat
            /// equation writes it: the row's neighbours wait in registers,
            /// the rows above and below add into the buffer.
            #[tape]
            pub fn grid(#[tracked] x: &[$t], #[tracked] a: $t, m: usize, steps: usize) -> $t {
                let mut u = x.to_vec();
                let mut v = x.to_vec();
                for _ in 0..steps {
                    for r in 1..m - 1 {
                        for c in 1..m - 1 {
                            let p = r * m + c;
                            v[p] =
                                u[p] + a * (u[p - 1] + u[p + 1] + u[p - m] + u[p + m] - 4.0 * u[p]);
                        }
                    }
                    std::mem::swap(&mut u, &mut v);
                }
                let mut f = 0.0;
                for p in 0..m * m {
                    f += u[p].sin() * u[p];
                }
                f
            }

            /// A parameter read at three neighbours into a local array,
            /// next to a read two ahead and one in an arm (outside the
            /// window); and a loop that writes the array it reads (no
            /// registers).
            #[tape]
            pub fn smooth(#[tracked] x: &[$t], c: $t) -> $t {
                let n = x.len();
                let mut v = vec![0.0; n];
                for i in 1..n - 2 {
                    v[i] = x[i - 1].tanh() * x[i] + x[i + 1] * x[i + 2];
                    if x[i] > c {
                        v[i] += x[i + 1].sin();
                    }
                }
                let mut w = x.to_vec();
                for i in 1..n - 1 {
                    w[i] = w[i - 1] * 0.5 + w[i] * w[i + 1];
                }
                let mut f = 0.0;
                for i in 0..n {
                    f += v[i] * v[i] + w[i];
                }
                f
            }

            /// Two arrays, each carried, from a start not zero.
            #[tape]
            pub fn pair(#[tracked] x: &[$t], #[tracked] y: &[$t], from: usize) -> $t {
                let mut f = 0.0;
                for i in from..x.len() - 1 {
                    f += x[i] * y[i + 1] - y[i] * x[i + 1];
                }
                f * f
            }
        }
    };
}

programs!(p64, f64);
programs!(p32, f32);

macro_rules! checks {
    ($name:ident, $m:ident, $t:ty, $tol:expr) => {
        #[test]
        fn $name() {
            use $m as p;
            for seed in 0..3 {
                let n = 6 + seed;
                let x: Vec<$t> = (0..n)
                    .map(|k| (((k * 7 + seed * 3) % 11) as $t) / 11.0 - 0.4)
                    .collect();
                let y: Vec<$t> = (0..n)
                    .map(|k| (((k * 5 + seed) % 7) as $t) / 7.0 - 0.2)
                    .collect();
                let one = |name: &str, f: &dyn Fn(&[$t]) -> $t, g: &[$t]| {
                    fd::agrees(name, f, &x, g, $tol);
                };
                one("chained", &|q| p::chained(q), &p::chained_grad(&x).1);
                one(
                    "backward",
                    &|q| p::backward_walk(q),
                    &p::backward_walk_grad(&x).1,
                );
                one("stepped", &|q| p::stepped(q), &p::stepped_grad(&x).1);
                one("wide", &|q| p::wide(q), &p::wide_grad(&x).1);
                for steps in [0, 1, 3] {
                    let a = 0.15;
                    let (_, (g, da)) = p::line_grad(&x, a, steps);
                    one("line", &|q| p::line(q, a, steps), &g);
                    fd::agrees("line, a", &|q| p::line(&x, q[0], steps), &[a], &[da], $tol);
                }
                one("smooth", &|q| p::smooth(q, 0.0), &p::smooth_grad(&x, 0.0).1);
                // a grid of 3 × 3 (one interior point) and 4 × 4
                for m in [3, 4] {
                    let u: Vec<$t> = (0..m * m)
                        .map(|k| (((k * 7 + seed * 5) % 13) as $t) / 13.0 - 0.3)
                        .collect();
                    let a = 0.2;
                    let (_, (g, da)) = p::grid_grad(&u, a, m, 2);
                    fd::agrees("grid", &|q| p::grid(q, a, m, 2), &u, &g, $tol);
                    fd::agrees("grid, a", &|q| p::grid(&u, q[0], m, 2), &[a], &[da], $tol);
                }
                let c = 0.0;
                one("guarded", &|q| p::guarded(q, c), &p::guarded_grad(&x, c).1);
                for limit in [-1.0, 0.1, 0.3, 10.0] {
                    one(
                        "stops",
                        &|q| p::stops(q, limit),
                        &p::stops_grad(&x, limit).1,
                    );
                }
                // two arrays: the gradient of both, against one vector
                let both: Vec<$t> = x.iter().chain(&y).copied().collect();
                let (_, (gx, gy)) = p::behind_grad(&x, &y);
                let claimed: Vec<$t> = gx.iter().chain(&gy).copied().collect();
                let f = |q: &[$t]| p::behind(&q[..n], &q[n..]);
                fd::agrees("behind", &f, &both, &claimed, $tol);
                for from in [0, 2, n - 1] {
                    let (_, (gx, gy)) = p::pair_grad(&x, &y, from);
                    let claimed: Vec<$t> = gx.iter().chain(&gy).copied().collect();
                    let f = |q: &[$t]| p::pair(&q[..n], &q[n..], from);
                    fd::agrees("pair", &f, &both, &claimed, $tol);
                }
            }
        }
    };
}

checks!(neighbours_f64, p64, f64, 1e-6);
checks!(neighbours_f32, p32, f32, 3e-2);

/// The loop that does not run: nothing waits, nothing is added.
#[test]
fn a_loop_that_does_not_run_adds_nothing() {
    let x = [0.5_f64, -0.25];
    let y = [0.75_f64, 0.125];
    let mut d_x = [1.0, 2.0];
    let mut d_y = [3.0, 4.0];
    let v = p64::pair_backward(&x, &y, 5, 1.0, &mut d_x, &mut d_y);
    assert_eq!(v, 0.0);
    assert_eq!((d_x, d_y), ([1.0, 2.0], [3.0, 4.0]));
}
