//! An element read in several lines is one recorded value where nothing
//! can change it between the reads (`mica-macros/src/lower/repeated.rs`):
//! a parameter's element read in three lines, first inside a branch arm
//! and again after the branch (where the arm may not have run), in the
//! other arm, in a loop body and in a second loop with the same counter,
//! and a local array's element read, written, and read again (two
//! values). Each against slopes by hand, central finite differences and
//! the plain twin (which reads each element where it is written), in
//! `f64` and `f32`.
#![deny(warnings)]
#![allow(clippy::needless_range_loop)]

mod fd;

macro_rules! programs {
    ($m:ident, $t:ty, $($mode:ident)?) => {
        pub mod $m {
            use mica::tape;

            /// `x₀ x₁ + sin x₀ + x₀² (x₀ > 0: + 3 x₀ x₂; else + x₁ x₀)
            /// + x₀ x₂`.
            #[tape$(($mode))?]
            pub fn lines(#[tracked] x: &[$t]) -> $t {
                let a = x[0] * x[1];
                let b = x[0].sin();
                let mut s = a + b + x[0] * x[0];
                if x[0] > 0.0 {
                    s += 3.0 * x[0] * x[2];
                } else {
                    s += x[1] * x[0];
                }
                s + x[0] * x[2]
            }

            /// `Σᵢ (xᵢ² + xᵢ) + Σᵢ xᵢ³ + x₀ (h₀ + h₀')`, `h = x²`
            /// elementwise and `h₀' = h₀ + x₁`: a local element written
            /// between two reads is two values.
            #[tape$(($mode))?]
            pub fn loops(#[tracked] x: &[$t], n: usize) -> $t {
                let mut s = 0.0;
                for i in 0..n {
                    let p = x[i] * x[i];
                    s += p + x[i];
                }
                for i in 0..n {
                    s += x[i] * x[i] * x[i];
                }
                let mut h = vec![0.0; n];
                for i in 0..n {
                    h[i] = x[i] * x[i];
                }
                let before = h[0];
                h[0] += x[1];
                let after = h[0];
                s + x[0] * (before + after)
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
        let points: [[$t; 3]; 4] = [
            [0.3, -0.7, 1.1],
            [-1.2, 0.7, 0.1],
            [0.5, 0.5, -0.2],
            [-0.4, -0.1, 0.6],
        ];
        for x in points {
            let (value, g) = lines_grad(&x);
            assert_eq!(value, lines(&x), "lines: the value");
            let by_hand = if x[0] > 0.0 {
                [
                    x[1] + x[0].cos() + 2.0 * x[0] + 3.0 * x[2] + x[2],
                    x[0],
                    3.0 * x[0] + x[0],
                ]
            } else {
                [
                    x[1] + x[0].cos() + 2.0 * x[0] + x[1] + x[2],
                    x[0] + x[0],
                    x[0],
                ]
            };
            same(&g, &by_hand, "lines by hand");
            same(&g, &$q::lines_grad(&x).1, "lines");
            agree("lines", &|v| lines(v), &x, &g);

            let (value, g) = loops_grad(&x, 3);
            assert_eq!(value, loops(&x, 3), "loops: the value");
            let mut by_hand: Vec<$t> = x.iter().map(|v| 2.0 * v + 1.0 + 3.0 * v * v).collect();
            // x₀ (2 x₀² + x₁)
            by_hand[0] += 6.0 * x[0] * x[0] + x[1];
            by_hand[1] += x[0];
            same(&g, &by_hand, "loops by hand");
            same(&g, &$q::loops_grad(&x, 3).1, "loops");
            agree("loops", &|v| loops(v, 3), &x, &g);
        }
    }};
}

#[test]
fn repeated_reads_agree_with_finite_differences_hand_slopes_and_plain_adjoints() {
    check_all!(a64, b64, f64, 1e-6, 1e-12);
    check_all!(a32, b32, f32, 2e-2, 1e-5);
}
