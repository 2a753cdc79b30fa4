//! Helpers that return an `Option`, tested where they are called, as
//! first programs write them: a division that gives `None` near zero,
//! matched with `match`; a quadratic's root that leaves early with
//! `return None`, tested with `if let … else`; a lookup whose `match` by
//! an index gives `Some` or `None`, with its `None` arm written first and
//! a `_` for it; a helper called inside a loop whose `None` arm
//! `continue`s; and one whose `None` arm keeps the running value. Every block is written twice, as `#[tape]` and
//! `#[tape(plain)]`, and checked in `f64` and `f32` against its plain
//! twin, against central finite differences at points where both arms
//! run, and against slopes by hand.
#![deny(warnings)]

mod fd;

macro_rules! programs {
    ($m:ident, $t:ty, $($mode:ident)?) => {
        #[mica::tape$(($mode))?]
        pub mod $m {
            fn safe_div(a: $t, b: $t) -> Option<$t> {
                if b.abs() < 1e-3 {
                    None
                } else {
                    Some(a / b)
                }
            }

            /// The larger root of `a t² + b t + c`, if any.
            fn root(a: $t, b: $t, c: $t) -> Option<$t> {
                let d = b * b - 4.0 * a * c;
                if d < 0.0 {
                    return None;
                }
                Some((-b + d.sqrt()) / (2.0 * a))
            }

            fn pick(w: &[$t], k: usize) -> Option<$t> {
                match k {
                    0 => Some(w[0] * w[0]),
                    1 => Some(w[1].sin()),
                    _ => None,
                }
            }

            /// `(x / y)²`, or `x` where `y` is near zero.
            pub fn ratio(#[tracked] x: $t, #[tracked] y: $t) -> $t {
                match safe_div(x, y) {
                    Some(q) => q * q,
                    None => x,
                }
            }

            /// The root of `a t² + b t − 1` times `b`, or `a` where there is
            /// none.
            pub fn solved(#[tracked] a: $t, #[tracked] b: $t) -> $t {
                if let Some(t) = root(a, b, -1.0) {
                    t * b
                } else {
                    a
                }
            }

            /// `Σₖ pick(w, k)` over `k < n`, the `None`s adding `w₂`.
            pub fn picked(#[tracked] w: &[$t], n: usize) -> $t {
                let mut s = 0.0;
                for k in 0..n {
                    s += match pick(w, k) {
                        None => w[2],
                        Some(v) => v * 2.0,
                    };
                }
                s
            }

            /// `s ← (s + xᵢ / (xᵢ + 1)) / 2` over `i`, skipping by
            /// `continue` where the divisor is near zero.
            pub fn skipped(#[tracked] x: &[$t]) -> $t {
                let mut s = 0.0;
                for i in 0..x.len() {
                    match safe_div(x[i], x[i] + 1.0) {
                        Some(q) => s += q,
                        None => continue,
                    }
                    s *= 0.5;
                }
                s
            }

            /// A running value kept where the division has no value.
            pub fn running(#[tracked] x: &[$t]) -> $t {
                let mut r = 1.0;
                for i in 0..x.len() {
                    match safe_div(r, x[i]) {
                        Some(q) => r = q + x[i],
                        _ => {}
                    }
                }
                r
            }
        }
    };
}

programs!(p64, f64,);
programs!(q64, f64, plain);
programs!(p32, f32,);
programs!(q32, f32, plain);

macro_rules! check_all {
    ($p:ident, $q:ident, $t:ty, $tol:expr, $rel:expr) => {{
        use $p::*;
        let (agree, same) = fd::checks::<$t>($tol, $rel);
        // (`y` near zero: the `None` arm)
        for (x, y) in [(0.7, 1.3), (-0.4, 0.5), (0.9, 0.0001)] {
            let (value, (gx, gy)) = ratio_grad(x, y);
            assert_eq!(value, ratio(x, y), "ratio: the value");
            let by_hand = if y.abs() < 1e-3 {
                [1.0, 0.0]
            } else {
                [2.0 * x / (y * y), -2.0 * x * x / (y * y * y)]
            };
            same(&[gx, gy], &by_hand, "ratio by hand");
            same(
                &[gx, gy],
                &[$q::ratio_grad(x, y).1 .0, $q::ratio_grad(x, y).1 .1],
                "ratio",
            );
            if y.abs() > 0.1 {
                agree("ratio", &|p| ratio(p[0], p[1]), &[x, y], &[gx, gy]);
            }
        }
        // (`b² + 4a < 0`: no root)
        for (a, b) in [(0.8, 1.5), (1.2, -0.7), (-2.0, 0.5)] {
            let (value, (ga, gb)) = solved_grad(a, b);
            assert_eq!(value, solved(a, b), "solved: the value");
            let d: $t = b * b + 4.0 * a;
            let by_hand = if d < 0.0 {
                [1.0, 0.0]
            } else {
                // t = (−b + √d) / 2a, value t·b
                let s = d.sqrt();
                let t = (-b + s) / (2.0 * a);
                let dt_da = (2.0 / s) / (2.0 * a) - t / a;
                let dt_db = (-1.0 + b / s) / (2.0 * a);
                [dt_da * b, dt_db * b + t]
            };
            same(&[ga, gb], &by_hand, "solved by hand");
            let (_, (pa, pb)) = $q::solved_grad(a, b);
            same(&[ga, gb], &[pa, pb], "solved");
            agree("solved", &|p| solved(p[0], p[1]), &[a, b], &[ga, gb]);
        }
        let w: [$t; 3] = [0.6, -1.1, 0.4];
        for n in [0, 2, 4] {
            let (value, g) = picked_grad(&w, n);
            assert_eq!(value, picked(&w, n), "picked: the value");
            let mut by_hand = [0.0; 3];
            if n > 0 {
                by_hand[0] = 4.0 * w[0];
            }
            if n > 1 {
                by_hand[1] = 2.0 * w[1].cos();
            }
            by_hand[2] = n.saturating_sub(2) as $t;
            same(&g, &by_hand, "picked by hand");
            same(&g, &$q::picked_grad(&w, n).1, "picked");
            agree("picked", &|v| picked(v, n), &w, &g);
        }
        // (the middle element near −1: skipped)
        for x in [[0.8, 1.7, -0.9], [1.3, -1.0001, 0.6]] {
            let (value, g) = skipped_grad(&x);
            assert_eq!(value, skipped(&x), "skipped: the value");
            // each term halved once for itself and every later element
            // kept
            let kept: Vec<bool> = x.iter().map(|&v| (v + 1.0).abs() >= 1e-3).collect();
            let by_hand: Vec<$t> = (0..3)
                .map(|i| {
                    if !kept[i] {
                        return 0.0;
                    }
                    let later = (i..3).filter(|&j| kept[j]).count() as i32;
                    (0.5 as $t).powi(later) / ((x[i] + 1.0) * (x[i] + 1.0))
                })
                .collect();
            same(&g, &by_hand, "skipped by hand");
            same(&g, &$q::skipped_grad(&x).1, "skipped");
            if (x[1] + 1.0).abs() > 0.1 {
                agree("skipped", &|v| skipped(v), &x, &g);
            }
        }
        // (the middle element near zero: kept)
        for x in [[0.8, 1.7, -0.9], [1.3, 0.0001, 0.6]] {
            let (value, g) = running_grad(&x);
            assert_eq!(value, running(&x), "running: the value");
            same(&g, &$q::running_grad(&x).1, "running");
            if x[1].abs() > 0.1 {
                agree("running", &|v| running(v), &x, &g);
            }
        }
    }};
}

#[test]
fn options_agree_with_finite_differences_hand_slopes_and_plain_adjoints() {
    check_all!(p64, q64, f64, 1e-6, 1e-10);
    check_all!(p32, q32, f32, 2e-2, 1e-4);
}

/// An `Option` made in a block whose chain's closure names its parameter
/// `x`, tested by a `match` whose arm has a closure naming its own `x`:
/// the parameters of one closure are not in scope in the other, but the
/// block's names were all taken as shadowing the arm's, and the `match`
/// was refused (seed 311554528, program 220).
// (the block in the scrutinee is the form under test)
#[allow(clippy::blocks_in_conditions)]
#[mica::tape]
pub fn closures_apart(#[tracked] w: &[f64]) -> f64 {
    let mut total = 0.0;
    for k in 0..3 {
        total += match {
            let s: f64 = w.iter().filter(|x| **x > -0.5).map(|x| x * x).sum();
            if s > 0.2 {
                Some(s)
            } else {
                None
            }
        } {
            Some(g) => g * k as f64,
            None => w.iter().map(|x| x.sin()).fold(0.0, |acc, x| acc * 0.5 + x),
        };
    }
    total
}

#[test]
fn an_option_made_by_a_chain_and_an_arm_with_its_own_closure() {
    // both arms: Σ_k k·Σ wᵢ² over wᵢ > −0.5 when that sum passes 0.2
    for w in [[0.3_f64, -0.8, 0.9], [0.1, 0.2, -0.05]] {
        let (value, g) = closures_apart_grad(&w);
        assert_eq!(value, closures_apart(&w));
        let kept: f64 = w.iter().filter(|x| **x > -0.5).map(|x| x * x).sum();
        let by_hand: Vec<f64> = if kept > 0.2 {
            w.iter()
                .map(|x| if *x > -0.5 { 3.0 * 2.0 * x } else { 0.0 })
                .collect()
        } else {
            // 3 × the fold Σ 0.5^(n−1−i) sin wᵢ
            (0..3)
                .map(|i| 3.0 * 0.5_f64.powi(2 - i as i32) * w[i].cos())
                .collect()
        };
        for i in 0..3 {
            assert!(
                (g[i] - by_hand[i]).abs() < 1e-12,
                "{w:?}: {g:?} against {by_hand:?}"
            );
        }
        let h = 1e-6;
        for i in 0..3 {
            let (mut a, mut b) = (w, w);
            a[i] += h;
            b[i] -= h;
            let fd = (closures_apart(&a) - closures_apart(&b)) / (2.0 * h);
            assert!(
                (g[i] - fd).abs() < 1e-6,
                "{w:?}: {g:?} against differences at {i}: {fd}"
            );
        }
    }
}
