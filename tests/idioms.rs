//! Forms new users write in their first programs, each once refused:
//! a zip's pair taken whole (`|p| p.0 * p.1`), `if let Some(&l) =
//! x.last()`, `any`/`all` as a branch's test (also as the body's only
//! chain), a zip with a skipped iterator (neighbours), the ends by an
//! iterator (`x.iter().last().unwrap()`, `nth`) and by a `let`, `is_nan()` of a
//! recorded value, and a `match` on a recorded
//! value by guards; and a median by positions sorted by detached copies,
//! as the message for sorting recorded values says to write it. Each
//! against slopes by hand, central finite
//! differences and the plain twin, in `f64` and `f32`, and in forward mode.
#![deny(warnings)]

mod fd;

macro_rules! programs {
    ($m:ident, $t:ty, $($mode:ident)?) => {
        pub mod $m {
            use mica::tape;

            /// `Σ xᵢ yᵢ + Σ yᵢ sin xᵢ`, the zip's pair named whole (its
            /// fields read through, and by `*`).
            #[tape$(($mode))?]
            pub fn paired(#[tracked] x: &[$t], y: &[$t]) -> $t {
                x.iter().zip(y).map(|p| p.0 * p.1).sum::<$t>()
                    + x.iter().zip(y).map(|p| (*p.0).sin() * *p.1).sum::<$t>()
            }

            /// `x₀ + 2 xₙ₋₁ + x₀²`, by `last()` and `first()`; a part's
            /// `last()` of nothing adds nothing.
            #[tape(tangent$(, $mode)?)]
            pub fn ends(#[tracked] x: &[$t]) -> $t {
                let mut s = x[0];
                if let Some(&l) = x.last() {
                    s += l * 2.0;
                }
                if let Some(f) = x.first() {
                    s += f * f;
                }
                if let Some(z) = x[..0].last().copied() {
                    s += z * 100.0;
                }
                s
            }

            /// `Σ eˣⁱ` if some `xᵢ > 1`, else `Σ xᵢ²` if every `xᵢ² <
            /// 0.2`, else `Σ xᵢ`.
            #[tape(tangent$(, $mode)?)]
            pub fn tested(#[tracked] x: &[$t]) -> $t {
                let big = x.iter().any(|&v| v > 1.0);
                let small = x.iter().zip(x.iter()).all(|(a, b)| a * b < 0.2);
                if big {
                    x.iter().map(|v| v.exp()).sum()
                } else if small {
                    x.iter().map(|v| v * v).sum::<$t>()
                } else {
                    x.iter().sum()
                }
            }

            /// Neighbours by a zip with the iterator skipped:
            /// `Σ (xᵢ₊₁ − xᵢ)² + x₀ x₂ + x₀ x₁` (`take(2)` of the third on
            /// leaves one element of three; a part's iterator skipped).
            #[tape(tangent$(, $mode)?)]
            pub fn neighbours(#[tracked] x: &[$t]) -> $t {
                let steps: $t = x.iter().zip(x.iter().skip(1)).map(|(a, b)| (b - a).powi(2)).sum();
                let far: $t = x.iter().zip(x.iter().skip(2).take(2)).map(|(p, q)| p * q).sum();
                let near: $t = x.iter().zip(x[0..2].iter().skip(1)).map(|(p, q)| p * q).sum();
                steps + far + near
            }

            /// The ends by an iterator and by a `let`:
            /// `2 xₙ₋₁ + 3 x₁ + sin x₀ + x₀ xₙ₋₁`.
            #[tape(tangent$(, $mode)?)]
            pub fn iter_ends(#[tracked] x: &[$t]) -> $t {
                let l = x.iter().last().unwrap();
                let first = x.first().unwrap();
                l * 2.0 + *x.iter().nth(1).unwrap() * 3.0 + x.iter().next().unwrap().sin() + first * l
            }

            /// `Σ min(|rᵢ|, 1)` over the residuals that are numbers.
            #[tape(tangent$(, $mode)?)]
            pub fn robust(#[tracked] r: &[$t]) -> $t {
                let mut s = 0.0;
                for &e in r {
                    if e.is_nan() || (e * 2.0).is_infinite() {
                        continue;
                    }
                    s += e.abs().min(1.0);
                }
                s
            }

            /// `2 x₀` if some `xᵢ > 1`, else `x₀ x₁`: `any` the body's only
            /// chain (no other consumer, no `for`).
            #[tape(tangent$(, $mode)?)]
            pub fn gate(#[tracked] x: &[$t]) -> $t {
                if x.iter().any(|&v| v > 1.0) {
                    x[0] * 2.0
                } else {
                    x[1] * x[0]
                }
            }

            /// Twice the median plus the sine of the least, written as the
            /// message for sorting recorded values says: positions sorted
            /// by detached copies, the elements read through them.
            #[tape$(($mode))?]
            pub fn median(#[tracked] x: &[$t]) -> $t {
                let keys: Vec<$t> = x.iter().map(|v| mica::detach(*v)).collect();
                let mut order: Vec<usize> = (0..x.len()).collect();
                order.sort_by(|&i, &j| keys[i].total_cmp(&keys[j]));
                x[order[x.len() / 2]] * 2.0 + x[order[0]].sin()
            }

            /// `ln 2x` above `x = ½`, `−x` below `−1` (a guard alone reads
            /// `u`), else `4x⁴`.
            #[tape(tangent$(, $mode)?)]
            pub fn guards(#[tracked] x: $t) -> $t {
                match x * 2.0 {
                    v if v > 1.0 => v.ln(),
                    u if u < -2.0 => -x,
                    mut v => {
                        v *= x;
                        v * v
                    }
                }
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
        let y: [$t; 3] = [0.5, 0.25, -2.0];
        let points: [[$t; 3]; 4] = [
            [0.3, -0.7, 1.1],
            [0.3, 0.7, 0.1],
            [0.3, -0.7, 0.2],
            [0.3, 0.2, 0.1],
        ];
        for x in points {
            let (value, g) = paired_grad(&x, &y);
            assert_eq!(value, paired(&x, &y), "paired: the value");
            let by_hand: Vec<$t> = (0..3).map(|i| y[i] + x[i].cos() * y[i]).collect();
            same(&g, &by_hand, "paired by hand");
            same(&g, &$q::paired_grad(&x, &y).1, "paired");

            let (value, g) = ends_grad(&x);
            assert_eq!(value, ends(&x), "ends: the value");
            same(&g, &[1.0 + 2.0 * x[0], 0.0, 2.0], "ends by hand");
            same(&g, &$q::ends_grad(&x).1, "ends");
            agree("ends", &|v| ends(v), &x, &g);
            let (_, along) = ends_tangent(&x, &[1.0, 1.0, 1.0]);
            fd::close("ends tangent", along, g.iter().sum(), $rel);

            let (value, g) = tested_grad(&x);
            assert_eq!(value, tested(&x), "tested: the value");
            let by_hand: Vec<$t> = if x.iter().any(|v| *v > 1.0) {
                x.iter().map(|v| v.exp()).collect()
            } else if x.iter().all(|v| v * v < 0.2) {
                x.iter().map(|v| 2.0 * v).collect()
            } else {
                vec![1.0; 3]
            };
            same(&g, &by_hand, "tested by hand");
            same(&g, &$q::tested_grad(&x).1, "tested");
            agree("tested", &|v| tested(v), &x, &g);
            let (_, along) = tested_tangent(&x, &[1.0, -1.0, 0.5]);
            fd::close("tested tangent", along, g[0] - g[1] + 0.5 * g[2], $rel);
        }
        for x in points {
            let (value, g) = gate_grad(&x);
            assert_eq!(value, gate(&x), "gate: the value");
            let by_hand = if x.iter().any(|v| *v > 1.0) {
                [2.0, 0.0, 0.0]
            } else {
                [x[1], x[0], 0.0]
            };
            same(&g, &by_hand, "gate by hand");
            same(&g, &$q::gate_grad(&x).1, "gate");
            let (_, along) = gate_tangent(&x, &[1.0, -1.0, 0.5]);
            fd::close("gate tangent", along, g[0] - g[1] + 0.5 * g[2], $rel);
        }
        for x in points {
            let (value, g) = neighbours_grad(&x);
            assert_eq!(value, neighbours(&x), "neighbours: the value");
            let by_hand = [
                -2.0 * (x[1] - x[0]) + x[2] + x[1],
                2.0 * (x[1] - x[0]) - 2.0 * (x[2] - x[1]) + x[0],
                2.0 * (x[2] - x[1]) + x[0],
            ];
            same(&g, &by_hand, "neighbours by hand");
            same(&g, &$q::neighbours_grad(&x).1, "neighbours");
            agree("neighbours", &|v| neighbours(v), &x, &g);
            let (_, along) = neighbours_tangent(&x, &[1.0, -1.0, 0.5]);
            fd::close("neighbours tangent", along, g[0] - g[1] + 0.5 * g[2], $rel);
        }
        for x in points {
            let (value, g) = iter_ends_grad(&x);
            assert_eq!(value, iter_ends(&x), "iter_ends: the value");
            let by_hand = [x[0].cos() + x[2], 3.0, 2.0 + x[0]];
            same(&g, &by_hand, "iter_ends by hand");
            same(&g, &$q::iter_ends_grad(&x).1, "iter_ends");
            let (_, along) = iter_ends_tangent(&x, &[1.0, -1.0, 0.5]);
            fd::close("iter_ends tangent", along, g[0] - g[1] + 0.5 * g[2], $rel);
        }
        for x in points {
            let (value, g) = median_grad(&x);
            assert_eq!(value, median(&x), "median: the value");
            let mut order = [0, 1, 2];
            order.sort_by(|&i, &j| x[i].total_cmp(&x[j]));
            let mut by_hand = [0.0; 3];
            by_hand[order[1]] += 2.0;
            by_hand[order[0]] += x[order[0]].cos();
            same(&g, &by_hand, "median by hand");
            same(&g, &$q::median_grad(&x).1, "median");
            agree("median", &|v| median(v), &x, &g);
        }
        let r: [$t; 5] = [0.3, <$t>::NAN, -1.7, 0.5, <$t>::INFINITY];
        let (value, g) = robust_grad(&r);
        fd::close("robust: the value", value, 1.8, $rel);
        same(&g, &[1.0, 0.0, 0.0, 1.0, 0.0], "robust by hand");
        same(&g, &$q::robust_grad(&r).1, "robust");
        let (_, along) = robust_tangent(&r, &[1.0, 1.0, 1.0, -2.0, 1.0]);
        fd::close("robust tangent", along, -1.0, $rel);
        for x in [0.8, -1.5, 0.3, -0.6] {
            let (value, g) = guards_grad(x);
            assert_eq!(value, guards(x), "guards: the value");
            let by_hand = if x > 0.5 {
                1.0 / x
            } else if x < -1.0 {
                -1.0
            } else {
                16.0 * x * x * x
            };
            fd::close("guards by hand", g, by_hand, $rel);
            fd::close("guards", g, $q::guards_grad(x).1, $rel);
            agree("guards", &|v| guards(v[0]), &[x], &[g]);
            fd::close("guards tangent", guards_tangent(x, 1.0).1, g, $rel);
        }
    }};
}

#[test]
fn idioms_agree_with_finite_differences_hand_slopes_and_plain_adjoints() {
    check_all!(p64, q64, f64, 1e-6, 1e-12);
    check_all!(p32, q32, f32, 2e-2, 1e-5);
}
