//! Tapes sized once for a nest of range loops: where the trip counts of a
//! loop and of the range loops around it are known where the outermost of
//! them starts (their ends read only stable names), the adjoint makes the
//! tape's room there and each iteration writes into it. These programs are
//! built around the edges of that rule: a range reading an enclosing loop's
//! variable (the room sums it over the values that variable takes), ends
//! from `len()` and from a frozen `let mut`, a nest inside a branch (whose
//! room is made where the arm runs it), empty and inclusive signed ranges,
//! nests whose outer loop is not fused, and nests inside a fused loop,
//! whose reverse pops the tapes inside each iteration: there one writer,
//! made before the fused loop with the room of one iteration, serves every
//! iteration, unless that room reads the fused loop's variable. Each is
//! checked against central finite differences in `f64` and `f32`; a
//! counting allocator shows the room is made once.
#![deny(warnings)]

mod counting;
mod fd;

use counting::allocations;

macro_rules! programs {
    ($m:ident, $t:ty) => {
        pub mod $m {
            use mica::tape;

            /// A mixture-like nest: per point and component, small arrays
            /// overwritten each iteration. The sum runs through the inner
            /// loops, so the loop over points is not fused.
            #[tape]
            pub fn mixture(#[tracked] mu: &[$t], #[tracked] l: &[$t], x: &[$t], d: usize) -> $t {
                let k = mu.len() / d;
                let n = x.len() / d;
                let mut xc = vec![0.0; d];
                let mut qx = vec![0.0; d];
                let mut total = 0.0;
                for i in 0..n {
                    for c in 0..k {
                        for j in 0..d {
                            xc[j] = x[i * d + j] - mu[c * d + j];
                        }
                        for j in 0..d {
                            qx[j] = xc[j] * xc[j];
                        }
                        // the inner range reads `a`: room per run of `a`
                        let mut li = 0;
                        for a in 0..d {
                            for b in a + 1..d {
                                qx[b] += l[li] * xc[a] * qx[a];
                                li += 1;
                            }
                        }
                        for j in 0..d {
                            total += qx[j] * qx[j];
                        }
                    }
                }
                total
            }

            /// The same kind of nest under `sqrt`: the outer loop is not
            /// fused, so the inner tapes hold every iteration until the
            /// reverse sweep, and their room is made before the outer loop.
            #[tape]
            pub fn unfused(#[tracked] w: &[$t], x: &[$t]) -> $t {
                let d = w.len();
                let n = x.len() / d;
                let mut s = 0.0;
                for i in 0..n {
                    for j in 0..d {
                        s += (w[j] * x[i * d + j]).sin() * w[j];
                    }
                }
                (s * s + 1.0).sqrt()
            }

            /// An inner range that reads the outer loop's variable: the room
            /// is `Σ_i (i + 1)`.
            #[tape]
            pub fn triangle(#[tracked] w: &[$t]) -> $t {
                let n = w.len();
                let mut s = 0.0;
                for i in 0..n {
                    for j in 0..i + 1 {
                        s = (s * w[j]).sin() + w[i];
                    }
                }
                s * s
            }

            /// Ends from `len()` and from a `let mut` frozen before the
            /// nest.
            #[tape]
            pub fn frozen(#[tracked] w: &[$t], x: &[$t]) -> $t {
                let mut m = 1;
                if x.len() > 4 {
                    m = 2;
                }
                let mut s = 0.0;
                for i in 0..x.len() / m {
                    for j in 0..w.len() {
                        s += (w[j] * x[i * m]).tanh() * w[j];
                    }
                }
                s.exp()
            }

            /// A fused loop running a storing loop directly and a storing
            /// triangle nest: the room of one iteration reads no variable of
            /// the fused loop, so one writer made before it serves every
            /// iteration, pushing and popping.
            #[tape]
            pub fn fused_nests(#[tracked] w: &[$t], x: &[$t]) -> $t {
                let d = w.len();
                let n = x.len() / d;
                let mut total = 0.0;
                for i in 0..n {
                    let mut s = 0.0;
                    for j in 0..d {
                        s += (w[j] * x[i * d + j]).exp();
                    }
                    let mut t = 0.0;
                    for a in 0..d {
                        for b in a..d {
                            t += w[a] / (1.0 + w[b] * w[b]) * x[i * d + b];
                        }
                    }
                    total += s.ln() + t;
                }
                total
            }

            /// A fused loop whose inner range reads its variable: the room
            /// differs from one iteration to the next, so each iteration
            /// makes its own.
            #[tape]
            pub fn fused_triangle(#[tracked] w: &[$t], x: &[$t]) -> $t {
                let n = w.len();
                let mut total = 0.0;
                for i in 0..n {
                    let mut s = 0.0;
                    for j in 0..i + 1 {
                        s += (w[i] * w[j] - x[j]).exp();
                    }
                    total += s * x[i];
                }
                0.5 * total
            }

            /// A nest inside a branch, and empty and inclusive ranges.
            #[tape]
            pub fn branchy(#[tracked] w: &[$t], x: &[$t]) -> $t {
                let n = w.len();
                let mut s = 0.0;
                for i in 0..n {
                    if x[i] > 0.0 {
                        for j in 0..n {
                            s += (w[i] * w[j] * x[j]).sin();
                        }
                    }
                    for _ in n..n {
                        s += w[i].exp();
                    }
                    for j in -1i32..=1 {
                        s += (w[i] * (j as $t + x[i])).sin();
                    }
                }
                s * s
            }
        }
    };
}

programs!(p64, f64);
programs!(p32, f32);

/// Checks every program's gradient against finite differences at several
/// points, for one float type.
macro_rules! check_all {
    ($m:ident, $t:ty, $tol:expr) => {{
        use $m::*;
        let check = |f: &dyn Fn(&[$t]) -> $t, at: &[$t], g: &[$t]| {
            fd::agrees(stringify!($m), f, at, g, $tol)
        };
        for shift in [0.0 as $t, 0.3, -0.45] {
            let w: Vec<$t> = (0..5).map(|k| 0.2 * k as $t - 0.5 + shift).collect();
            let x: Vec<$t> = (0..15).map(|k| ((k * 7 % 11) as $t) * 0.1 - 0.4).collect();
            // d = 3: three components, five points
            let mu: Vec<$t> = (0..9).map(|k| 0.1 * k as $t - 0.3 + shift).collect();
            let l: Vec<$t> = vec![0.4 + shift, -0.2, 0.3];
            let (_, (gmu, gl)) = mixture_grad(&mu, &l, &x, 3);
            let at: Vec<$t> = mu.iter().chain(&l).copied().collect();
            let g: Vec<$t> = gmu.iter().chain(&gl).copied().collect();
            check(&|p: &[$t]| mixture(&p[..9], &p[9..], &x, 3), &at, &g);
            check(
                &|p: &[$t]| unfused(p, &x[..10]),
                &w,
                &unfused_grad(&w, &x[..10]).1,
            );
            check(&|p: &[$t]| triangle(p), &w, &triangle_grad(&w).1);
            check(&|p: &[$t]| frozen(p, &x), &w, &frozen_grad(&w, &x).1);
            check(
                &|p: &[$t]| frozen(p, &x[..4]),
                &w,
                &frozen_grad(&w, &x[..4]).1,
            );
            check(&|p: &[$t]| branchy(p, &x), &w, &branchy_grad(&w, &x).1);
            // five points of d = 3, then none
            for x in [&x[..15], &x[..0]] {
                check(
                    &|p: &[$t]| fused_nests(&p[..3], x),
                    &w[..3],
                    &fused_nests_grad(&w[..3], x).1,
                );
            }
            check(
                &|p: &[$t]| fused_triangle(p, &x),
                &w,
                &fused_triangle_grad(&w, &x).1,
            );
            check(
                &|p: &[$t]| fused_triangle(p, &x),
                &w[..0],
                &fused_triangle_grad(&w[..0], &x).1,
            );
        }
    }};
}

#[test]
fn nests_written_through_room_agree_with_finite_differences() {
    check_all!(p64, f64, 1e-6);
    check_all!(p32, f32, 2e-2);
}

/// The allocations of one gradient of `backward(w, x)`, with `w` of 4 and
/// `x` of `4 n` elements, for `n` from 2 to 2,000.
fn allocations_by_trip(backward: fn(&[f64], &[f64], f64, &mut [f64]) -> f64) -> Vec<usize> {
    [2, 20, 200, 2000]
        .into_iter()
        .map(|n| {
            let w = vec![0.3; 4];
            let x = vec![0.5; n * 4];
            let mut d_w = vec![0.0; 4];
            allocations(|| {
                backward(&w, &x, 1.0, &mut d_w);
            })
        })
        .collect()
}

/// The nest's tape is sized once, and so are the tapes of nests inside a
/// fused loop: the gradient's allocations do not grow with the number of
/// iterations, as a tape growing by pushes would.
#[test]
fn a_nest_makes_its_room_once() {
    for backward in [p64::unfused_backward, p64::fused_nests_backward] {
        let counts = allocations_by_trip(backward);
        assert!(counts[0] > 0, "the tape is allocated: {counts:?}");
        assert!(counts.iter().all(|&c| c == counts[0]), "{counts:?}");
    }
}
