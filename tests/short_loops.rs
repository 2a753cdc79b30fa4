//! Short loops over literal ranges, as 3-D and small-vector code writes
//! them (`for i in 0..3`), which the adjoint writes out iteration by
//! iteration: up and down a range, inclusive, with a suffix, with `_`,
//! nested, over a helper's slice of a local array's length, reading the
//! counter as a number and in a macro, an order that matters (a shift),
//! and the forms it keeps as loops (the counter rebound, a method called
//! on it). Each against slopes by hand, central finite differences and
//! the plain twin, which keeps every loop, in `f64` and `f32`.
#![deny(warnings)]
#![allow(clippy::needless_range_loop)]

mod fd;

macro_rules! programs {
    ($m:ident, $t:ty, $($mode:ident)?) => {
        #[mica::tape$(($mode))?]
        pub mod $m {
            /// `Σᵢ (i + 1) xᵢ² + x₀ x₂`, up `0..3` and `0..=2`, the counter
            /// read as an index, a number and in a macro.
            pub fn weighted(#[tracked] x: &[$t]) -> $t {
                let mut s = 0.0;
                for i in 0..3 {
                    debug_assert!(i < 3);
                    s += (i + 1) as $t * x[i] * x[i];
                }
                for k in 0..=2usize {
                    if k == 1 {
                        s += x[0] * x[2];
                    }
                }
                s
            }

            /// A shift down by `(0..3).rev()` (`h[i + 1] = h[i]`, the
            /// order matters), then `Σ hᵢ sin xᵢ` with `h = (x₀², x₀², x₁²,
            /// x₂²)`, and `_` twice: `+ 2 x₃`.
            pub fn shifted(#[tracked] x: &[$t]) -> $t {
                let mut h = [x[0] * x[0], x[1] * x[1], x[2] * x[2], 0.0];
                for i in (0..3).rev() {
                    h[i + 1] = h[i];
                }
                let mut s = 0.0;
                for j in 0..4 {
                    s += h[j] * x[j].sin();
                }
                for _ in 0..2 {
                    s += x[3];
                }
                s
            }

            /// `‖a‖²` of a slice, `a.len()` known only once inlined.
            pub fn sqsum(a: &[$t]) -> $t {
                let mut s = 0.0;
                for i in 0..a.len() {
                    s += a[i] * a[i];
                }
                s
            }

            /// `R x` for the 3 × 3 matrix `R`, a nest of short loops (kept
            /// loops), then
            /// `‖R x‖²` through a helper over a local array:
            /// `Σᵢ (Σⱼ Rᵢⱼ xⱼ)²`.
            pub fn rotated(#[tracked] x: &[$t], r: &[$t]) -> $t {
                let mut y = [0.0; 3];
                for i in 0..3 {
                    for j in 0..3 {
                        y[i] += r[i * 3 + j] * x[j];
                    }
                }
                sqsum(&y)
            }

            /// Kept as loops: the counter rebound in the body, a method
            /// called on it. `Σᵢ xᵢ³ + x₁ + 2 x₂`.
            pub fn kept(#[tracked] x: &[$t]) -> $t {
                let mut s = 0.0;
                for i in 0..3 {
                    let i = 2 - i;
                    s += x[i] * x[i] * x[i];
                }
                for i in 0..3usize {
                    s += x[i.min(2)] * (i as $t);
                }
                s
            }
        }
    };
}

programs!(a64, f64,);
programs!(b64, f64, plain);
programs!(a32, f32,);
programs!(b32, f32, plain);

macro_rules! check_all {
    ($p:ident, $q:ident, $t:ty, $tol:expr, $rel:expr) => {{
        use $p::*;
        let (agree, same) = fd::checks::<$t>($tol, $rel);
        let r: [$t; 9] = [0.9, -0.2, 0.1, 0.3, 0.8, -0.4, 0.05, 0.5, 1.1];
        let points: [[$t; 4]; 4] = [
            [0.3, -0.7, 1.1, 0.4],
            [-1.2, 0.7, 0.1, 2.0],
            [0.5, 0.5, -0.2, -0.3],
            [2.0, -0.1, 0.6, 0.9],
        ];
        for x in points {
            let (value, g) = weighted_grad(&x);
            assert_eq!(value, weighted(&x), "weighted: the value");
            same(
                &g,
                &[2.0 * x[0] + x[2], 4.0 * x[1], 6.0 * x[2] + x[0], 0.0],
                "weighted by hand",
            );
            same(&g, &$q::weighted_grad(&x).1, "weighted");
            agree("weighted", &|v| weighted(v), &x, &g);

            let (value, g) = shifted_grad(&x);
            assert_eq!(value, shifted(&x), "shifted: the value");
            let by_hand = [
                2.0 * x[0] * (x[0].sin() + x[1].sin()) + x[0] * x[0] * x[0].cos(),
                2.0 * x[1] * x[2].sin() + x[0] * x[0] * x[1].cos(),
                2.0 * x[2] * x[3].sin() + x[1] * x[1] * x[2].cos(),
                x[2] * x[2] * x[3].cos() + 2.0,
            ];
            same(&g, &by_hand, "shifted by hand");
            same(&g, &$q::shifted_grad(&x).1, "shifted");
            agree("shifted", &|v| shifted(v), &x, &g);

            let x3 = [x[0], x[1], x[2]];
            let (value, g) = rotated_grad(&x3, &r);
            assert_eq!(value, rotated(&x3, &r), "rotated: the value");
            let y: Vec<$t> = (0..3)
                .map(|i| (0..3).map(|j| r[i * 3 + j] * x3[j]).sum())
                .collect();
            let by_hand: Vec<$t> = (0..3)
                .map(|j| (0..3).map(|i| 2.0 * y[i] * r[i * 3 + j]).sum())
                .collect();
            same(&g, &by_hand, "rotated by hand");
            same(&g, &$q::rotated_grad(&x3, &r).1, "rotated");
            agree("rotated", &|v| rotated(v, &r), &x3, &g);

            let (value, g) = kept_grad(&x3);
            assert_eq!(value, kept(&x3), "kept: the value");
            let by_hand = [
                3.0 * x3[0] * x3[0],
                3.0 * x3[1] * x3[1] + 1.0,
                3.0 * x3[2] * x3[2] + 2.0,
            ];
            same(&g, &by_hand, "kept by hand");
            same(&g, &$q::kept_grad(&x3).1, "kept");
            agree("kept", &|v| kept(v), &x3, &g);
        }
    }};
}

#[test]
fn short_loops_agree_with_finite_differences_hand_slopes_and_plain_adjoints() {
    check_all!(a64, b64, f64, 1e-6, 1e-12);
    check_all!(a32, b32, f32, 2e-2, 1e-5);
}
