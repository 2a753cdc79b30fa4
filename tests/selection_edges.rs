//! The edges of a selection whose winner is found after the loop (`m =
//! m.max(x[i])` and its kin, the forward keeping nothing): which iteration
//! gets the slope must be the one the plain walk seeds, whatever the start
//! and the elements are — a NaN start, NaN elements, `0.0` against `-0.0`,
//! every element `-inf` or `inf`, ties, no element at all, a start nothing
//! beats. Each program takes the running value as the call's receiver and
//! as its argument, for `max` and `min`, as a loop and as a fold, from a
//! start the caller picks and from a tracked one.
//!
//! Each is written as `#[tape]` and as `#[tape(plain)]` (every shortcut
//! off). At every pair of elements and start the two must give the same
//! value and the same slopes (NaN where the other is NaN); at points away
//! from ties and NaN the slopes are checked against finite differences, in
//! `f64` and `f32`.
#![deny(warnings)]
#![allow(clippy::needless_range_loop)]

mod fd;

macro_rules! programs {
    ($m:ident, $t:ty, $($mode:ident)?) => {
        pub mod $m {
            use mica::tape;

            /// The running value the receiver of `max`.
            #[tape$(($mode))?]
            pub fn max_receiver(#[tracked] x: &[$t], s: $t) -> $t {
                let mut m = s;
                for i in 0..x.len() {
                    m = m.max(x[i]);
                }
                m * 3.0
            }

            /// The running value the argument of `max`: ties go to the
            /// element.
            #[tape$(($mode))?]
            pub fn max_argument(#[tracked] x: &[$t], s: $t) -> $t {
                let mut m = s;
                for i in 0..x.len() {
                    m = x[i].max(m);
                }
                m * 3.0
            }

            /// The running value the receiver of `min`, through
            /// `f64::min(m, e)`.
            #[tape$(($mode))?]
            pub fn min_receiver(#[tracked] x: &[$t], s: $t) -> $t {
                let mut m = s;
                for i in 0..x.len() {
                    m = <$t>::min(m, x[i] - 0.5);
                }
                m * 3.0
            }

            /// The running value the argument of `min`.
            #[tape$(($mode))?]
            pub fn min_argument(#[tracked] x: &[$t], s: $t) -> $t {
                let mut m = s;
                for i in 0..x.len() {
                    m = (-x[i]).min(m);
                }
                m * 3.0
            }

            /// A fold from the caller's start.
            #[tape$(($mode))?]
            pub fn fold_max(#[tracked] x: &[$t], s: $t) -> $t {
                x.iter().cloned().fold(s, <$t>::max) * 3.0
            }

            /// A fold of `min` from the caller's start.
            #[tape$(($mode))?]
            pub fn fold_min(#[tracked] x: &[$t], s: $t) -> $t {
                x.iter().cloned().fold(s, <$t>::min) * 3.0
            }

            /// A tracked start, the running value the receiver: the slope
            /// goes to the start when nothing beats it.
            #[tape$(($mode))?]
            pub fn tracked_receiver(#[tracked] x: &[$t], #[tracked] s: $t) -> $t {
                let mut m = s * 2.0;
                for i in 0..x.len() {
                    m = m.max(x[i] + 1.0);
                }
                m * m
            }

            /// A tracked start, the running value the argument of `min`.
            #[tape$(($mode))?]
            pub fn tracked_argument(#[tracked] x: &[$t], #[tracked] s: $t) -> $t {
                let mut m = s - 1.0;
                for i in 0..x.len() {
                    m = x[i].min(m);
                }
                m * m
            }
        }
    };
}

programs!(p64, f64,);
programs!(q64, f64, plain);
programs!(p32, f32,);
programs!(q32, f32, plain);

macro_rules! checks {
    ($name:ident, $p:ident, $q:ident, $t:ty, $tol:expr) => {
        #[test]
        fn $name() {
            use $p as p;
            use $q as q;
            type F = fn(&[$t], $t) -> ($t, Vec<$t>);
            type T = fn(&[$t], $t) -> ($t, (Vec<$t>, $t));
            // each program: its name, the function, `_grad`, the plain twin's
            let untracked: [(&str, fn(&[$t], $t) -> $t, F, F); 6] = [
                (
                    "max receiver",
                    p::max_receiver,
                    p::max_receiver_grad,
                    q::max_receiver_grad,
                ),
                (
                    "max argument",
                    p::max_argument,
                    p::max_argument_grad,
                    q::max_argument_grad,
                ),
                (
                    "min receiver",
                    p::min_receiver,
                    p::min_receiver_grad,
                    q::min_receiver_grad,
                ),
                (
                    "min argument",
                    p::min_argument,
                    p::min_argument_grad,
                    q::min_argument_grad,
                ),
                ("fold max", p::fold_max, p::fold_max_grad, q::fold_max_grad),
                ("fold min", p::fold_min, p::fold_min_grad, q::fold_min_grad),
            ];
            let tracked: [(&str, fn(&[$t], $t) -> $t, T, T); 2] = [
                (
                    "tracked receiver",
                    p::tracked_receiver,
                    p::tracked_receiver_grad,
                    q::tracked_receiver_grad,
                ),
                (
                    "tracked argument",
                    p::tracked_argument,
                    p::tracked_argument_grad,
                    q::tracked_argument_grad,
                ),
            ];
            let (nan, inf) = (<$t>::NAN, <$t>::INFINITY);
            let elements: Vec<Vec<$t>> = vec![
                vec![],
                vec![1.0, 2.0, 3.0],
                vec![3.0, 2.0, 1.0],
                vec![3.0, 2.0, 3.0, 1.0, 3.0],
                vec![-1.0, -3.0, -1.0, -3.0],
                vec![nan, 1.0, 2.0],
                vec![1.0, nan, 2.0, nan],
                vec![2.0, nan, 2.0],
                vec![nan, nan],
                vec![nan],
                vec![-0.0, 0.0, -0.0],
                vec![0.0, -0.0],
                vec![-inf, -inf, -inf],
                vec![inf, 1.0, inf],
                vec![-inf, inf, -inf, inf],
                vec![0.5, -0.5, 0.5, -0.5],
            ];
            let starts = [-inf, inf, nan, 0.0, -0.0, 0.5, 2.0, 3.0, -3.0];
            let same = |what: &str, a: $t, b: $t, x: &[$t], s: $t| {
                assert!(
                    a == b || (a.is_nan() && b.is_nan()),
                    "{what} at {x:?}, start {s:?}: {a:?} against the plain {b:?}"
                );
            };
            for x in &elements {
                for &s in &starts {
                    for (what, _, g, h) in &untracked {
                        let ((a, ga), (b, gb)) = (g(x, s), h(x, s));
                        same(what, a, b, x, s);
                        for (u, v) in ga.iter().zip(&gb) {
                            same(what, *u, *v, x, s);
                        }
                    }
                    for (what, _, g, h) in &tracked {
                        let ((a, (ga, sa)), (b, (gb, sb))) = (g(x, s), h(x, s));
                        same(what, a, b, x, s);
                        same(what, sa, sb, x, s);
                        for (u, v) in ga.iter().zip(&gb) {
                            same(what, *u, *v, x, s);
                        }
                    }
                }
            }
            // away from ties: finite differences, the start beaten or not
            let x: Vec<$t> = vec![0.25, -1.5, 1.75, 0.5, -0.75];
            for s in [-2.5, 0.1, 0.6, 5.0] {
                for (what, f, g, _) in untracked {
                    fd::agrees(what, &|v| f(v, s), &x, &g(&x, s).1, $tol);
                }
                for (what, f, g, _) in tracked {
                    let (_, (gx, gs)) = g(&x, s);
                    let mut at = x.clone();
                    at.push(s);
                    let mut claimed = gx.clone();
                    claimed.push(gs);
                    fd::agrees(what, &|v| f(&v[..5], v[5]), &at, &claimed, $tol);
                }
            }
        }
    };
}

checks!(selection_edges_f64, p64, q64, f64, 1e-6);
checks!(selection_edges_f32, p32, q32, f32, 3e-2);

/// The Hessian-vector product goes through the same reverse: log-sum-exp
/// with its maximum by a fold, `H·v` against central differences of the
/// gradient and against `diag(p)·v − p (p·v)`, `p` the softmax.
mod hessians {
    use mica::tape;

    #[tape(hvp)]
    pub fn lse(#[tracked] x: &[f64]) -> f64 {
        let m = x.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let s: f64 = x.iter().map(|xi| (xi - m).exp()).sum();
        m + s.ln()
    }

    #[test]
    fn lse_hessian_times_a_vector() {
        for seed in 0..4 {
            let x: Vec<f64> = (0..5)
                .map(|k| (((k * 7 + seed * 3) % 11) as f64) / 4.0 - 1.1)
                .collect();
            let v: Vec<f64> = (0..5).map(|k| 0.3 * k as f64 - 0.5).collect();
            let (_, g, hv) = lse_hvp(&x, &v);
            let h = 1e-5;
            let shifted = |s: f64| {
                let q: Vec<f64> = x.iter().zip(&v).map(|(a, b)| a + s * b).collect();
                lse_grad(&q).1
            };
            let (up, down) = (shifted(h), shifted(-h));
            let m = x.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
            let s: f64 = x.iter().map(|xi| (xi - m).exp()).sum();
            let p: Vec<f64> = x.iter().map(|xi| (xi - m).exp() / s).collect();
            let pv: f64 = p.iter().zip(&v).map(|(a, b)| a * b).sum();
            for i in 0..5 {
                let fd = (up[i] - down[i]) / (2.0 * h);
                assert!((hv[i] - fd).abs() < 1e-6, "{i}: {} against {fd}", hv[i]);
                let exact = p[i] * v[i] - p[i] * pv;
                assert!(
                    (hv[i] - exact).abs() < 1e-12,
                    "{i}: {} against {exact}",
                    hv[i]
                );
                assert!(
                    (g[i] - p[i]).abs() < 1e-12,
                    "{i}: {} against {}",
                    g[i],
                    p[i]
                );
            }
        }
    }
}
