//! Loops over neighbouring elements (`x[i]` and `x[i + 1]`), whose fused
//! reverse carries the upper element's slope to the next iteration in a
//! register, and the loops where it must not: walked backward or by steps
//! of two, offsets two apart, a third offset, reads in an arm or after a
//! `continue`, a `break` that leaves a slope waiting, a loop that does not
//! run. Each gradient against central finite differences, in `f64` and
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
