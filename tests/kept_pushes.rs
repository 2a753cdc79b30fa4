//! `Vec`s filled by pushes an iteration may skip, as first programs filter
//! their data: the values inside a cut pushed under an `if` and averaged,
//! the positive and negative parts pushed into two `Vec`s from the arms of
//! one `if`, the first few values kept until `len()` says enough (`break`)
//! with the rest passed over by `continue`, a `match` whose arms push none,
//! one or two values, a `Vec` that may end empty (its push ending the
//! `if` without a `;`), the length read in a push and after it, a macro of
//! the user's that `continue`s past the push, a `while` loop written as a
//! `for` loop left by `break`, constants pushed under a condition and lent
//! where a recorded `Vec` is lent later, and a generic function keeping
//! values above a threshold in a `Vec<T>`. Each against the plain twin and
//! the primal's value, slopes by hand, central finite differences and
//! forward mode, in `f64` and `f32`.
#![deny(warnings)]

mod fd;

/// A macro of the user's that leaves an iteration.
macro_rules! skip_odd {
    ($i:expr) => {
        if $i % 2 == 1 {
            continue;
        }
    };
}

macro_rules! programs {
    ($m:ident, $t:ty, $($mode:ident)?) => {
        pub mod $m {
            use mica::tape;

            /// The mean of `xᵢ²` over `|xᵢ| < cut`.
            #[tape(tangent$(, $mode)?)]
            pub fn trimmed(#[tracked] x: &[$t], cut: $t) -> $t {
                let mut kept = Vec::new();
                for &v in x {
                    if v.abs() < cut {
                        kept.push(v * v);
                    }
                }
                kept.iter().sum::<$t>() / kept.len() as $t
            }

            /// `Σ_{xᵢ > 0} (k + 1) xᵢ − Σ_{xᵢ ≤ 0} (k + 1) 2 w xᵢ`, `k` the
            /// position in each `Vec`.
            #[tape(tangent$(, $mode)?)]
            pub fn parts(#[tracked] x: &[$t], #[tracked] w: $t) -> $t {
                let mut up: Vec<$t> = Vec::new();
                let mut down = Vec::with_capacity(x.len());
                for i in 0..x.len() {
                    if x[i] > 0.0 {
                        up.push(x[i]);
                    } else {
                        down.push(-2.0 * w * x[i]);
                    }
                }
                let mut s = 0.0;
                for (k, u) in up.iter().enumerate() {
                    s += (k as $t + 1.0) * u;
                }
                for (k, d) in down.iter().enumerate() {
                    s += (k as $t + 1.0) * d;
                }
                s
            }

            /// The first `n` positive values, squared and weighted by
            /// their position: negative values are passed over by
            /// `continue`, the loop left by `break` once `n` are kept.
            #[tape(tangent$(, $mode)?)]
            pub fn first(#[tracked] x: &[$t], n: usize) -> $t {
                let mut kept = vec![];
                for v in x.iter() {
                    if kept.len() == n {
                        break;
                    }
                    if *v <= 0.0 {
                        continue;
                    }
                    kept.push(v * v);
                }
                let mut s = 0.0;
                for k in 0..kept.len() {
                    s += kept[k] * (k + 1) as $t;
                }
                s
            }

            /// By kind: `0` keeps `xᵢ`, `1` keeps `2 xᵢ` and `xᵢ²`, any
            /// other nothing; `Π (1 + mₖ / 4)` of what is kept.
            #[tape(tangent$(, $mode)?)]
            pub fn kinds(#[tracked] x: &[$t], kinds: &[u8]) -> $t {
                let mut m = Vec::new();
                for (v, kind) in x.iter().zip(kinds) {
                    match kind {
                        0 => m.push(*v),
                        1 => {
                            m.push(2.0 * v);
                            m.push(v * v);
                        }
                        _ => {}
                    }
                }
                m.iter().map(|v| 1.0 + v / 4.0).product()
            }

            /// `Σ` of the values above `cut`, doubled, plus `w`: nothing
            /// kept where none is.
            #[tape(tangent$(, $mode)?)]
            pub fn above(#[tracked] x: &[$t], #[tracked] w: $t, cut: $t) -> $t {
                let mut big = Vec::new();
                for v in x {
                    if *v > cut {
                        big.push(2.0 * v)
                    }
                }
                let total: $t = big.iter().sum();
                total + w * (big.is_empty() as u8 as $t + 1.0)
            }

            /// The length read in the push and after it: the values above
            /// −1, each times the number kept before it, summed, times
            /// `1 + Σ` of the lengths after each iteration.
            #[tape(tangent$(, $mode)?)]
            pub fn growing(#[tracked] x: &[$t]) -> $t {
                let mut r = Vec::new();
                let mut scale = 1.0;
                for i in 0..x.len() {
                    if x[i] > -1.0 {
                        r.push(x[i] * r.len() as $t);
                    }
                    scale += r.len() as $t;
                }
                r.iter().sum::<$t>() * scale
            }

            /// `Π (1 + xₖ²)` over the even positions, the odd ones passed
            /// over by a macro of the user's that `continue`s.
            #[tape(tangent$(, $mode)?)]
            pub fn evens(#[tracked] x: &[$t]) -> $t {
                let mut out = Vec::new();
                for (i, a) in x.iter().enumerate() {
                    skip_odd!(i);
                    out.push(1.0 + a * a);
                }
                out.iter().product()
            }

            /// A `while` loop written as the hint for pushes says, a `for`
            /// loop over a limit left by `break`: `Σ_k x hᵏ` over the
            /// halvings `h = 2⁻ᵏ` above `0.1`, plus `x` times their number.
            #[tape(tangent$(, $mode)?)]
            pub fn halving(#[tracked] x: $t) -> $t {
                let mut steps = Vec::new();
                let mut h = 1.0;
                for _ in 0..100 {
                    if h <= 0.1 {
                        break;
                    }
                    steps.push(x * h);
                    h *= 0.5;
                }
                steps.iter().sum::<$t>() + x * steps.len() as $t
            }

            /// Constants pushed under a condition, lent where a recorded
            /// `Vec` is lent later: `tanh(tanh w)` read `2 rounds − 1`
            /// times (times 0.1), then `tanh w` once.
            #[tape(tangent$(, $mode)?)]
            pub fn lent(#[tracked] w: $t, rounds: usize) -> $t {
                let mut fixed = Vec::new();
                for j in 0..4usize {
                    if j != 1 {
                        fixed.push((j as $t + 1.0) * -0.34);
                    }
                }
                let moving = vec![w.tanh(); 3];
                let mut h: &[$t] = &fixed;
                let mut t = 0.0;
                for _ in 0..rounds {
                    t += h[0].tanh() * 0.1;
                    h = &moving;
                    t += h[0].tanh() * 0.1;
                }
                t + h[2]
            }

            /// `Σ_{xᵢ > t} xᵢ³`, in every float type.
            #[tape$(($mode))?]
            pub fn cubes<T: mica::Real>(#[tracked] x: &[T], t: T) -> T {
                let mut c: Vec<T> = Vec::new();
                for v in x.iter() {
                    if *v > t {
                        c.push(*v * *v * *v);
                    }
                }
                let mut s = T::zero();
                for v in c.iter() {
                    s += *v;
                }
                s
            }

            /// The window form: `Σ_{aᵢ > 0} b aᵢ`.
            #[tape]
            pub fn window(x: &[$t], b: $t) -> ($t, Vec<$t>, $t) {
                #[tracked]
                let a: Vec<$t> = x.to_vec();
                #[tracked]
                let b = b;
                tape! {
                    let mut kept = Vec::new();
                    for i in 0..a.len() {
                        if a[i] > 0.0 {
                            kept.push(b * a[i]);
                        }
                    }
                    let total: $t = kept.iter().sum();
                }
                backward!(total);
                (total, gradient!(a).to_vec(), gradient!(b))
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
        let points: [[$t; 5]; 4] = [
            [0.3, -0.7, 1.1, 0.45, -1.6],
            [-0.3, 0.7, 0.1, -0.9, 1.3],
            [-1.3, 0.4, 0.2, 0.8, 0.6],
            [0.9, 0.2, -0.1, -0.6, -0.25],
        ];
        let along: [$t; 5] = [1.0, -1.0, 0.5, 0.25, -0.75];
        let dot = |g: &[$t]| g.iter().zip(&along).map(|(a, b)| a * b).sum::<$t>();
        for x in points {
            let cut = 1.0;
            let (value, g) = trimmed_grad(&x, cut);
            assert_eq!(value, trimmed(&x, cut), "trimmed: the value");
            let inside = x.iter().filter(|v| v.abs() < cut).count() as $t;
            let by_hand: Vec<$t> = x
                .iter()
                .map(|v| if v.abs() < cut { 2.0 * v / inside } else { 0.0 })
                .collect();
            same(&g, &by_hand, "trimmed by hand");
            same(&g, &$q::trimmed_grad(&x, cut).1, "trimmed");
            agree("trimmed", &|v| trimmed(v, cut), &x, &g);
            let (_, t) = trimmed_tangent(&x, cut, &along);
            fd::close("trimmed tangent", t, dot(&g), $rel);

            let w = x[2];
            let (value, (g, gw)) = parts_grad(&x, w);
            assert_eq!(value, parts(&x, w), "parts: the value");
            let (mut up, mut down) = (0.0, 0.0);
            let mut by_hand = [0.0; 5];
            let mut by_hand_w = 0.0;
            for (i, v) in x.iter().enumerate() {
                if *v > 0.0 {
                    up += 1.0;
                    by_hand[i] = up;
                } else {
                    down += 1.0;
                    by_hand[i] = -2.0 * w * down;
                    by_hand_w -= 2.0 * v * down;
                }
            }
            same(&g, &by_hand, "parts by hand");
            fd::close("parts by hand, w", gw, by_hand_w, $rel);
            let (_, (qg, qw)) = $q::parts_grad(&x, w);
            same(&g, &qg, "parts");
            fd::close("parts, w", gw, qw, $rel);
            let mut all = x.to_vec();
            all.push(w);
            let mut slopes = g.clone();
            slopes.push(gw);
            agree("parts", &|v| parts(&v[..5], v[5]), &all, &slopes);
            let (_, t) = parts_tangent(&x, w, &along, 0.5);
            fd::close("parts tangent", t, dot(&g) + 0.5 * gw, $rel);

            for n in [0, 1, 2, 9] {
                let (value, g) = first_grad(&x, n);
                assert_eq!(value, first(&x, n), "first: the value");
                let mut by_hand = [0.0; 5];
                let mut k = 0;
                for (i, v) in x.iter().enumerate() {
                    if k == n {
                        break;
                    }
                    if *v > 0.0 {
                        k += 1;
                        by_hand[i] = 2.0 * v * k as $t;
                    }
                }
                same(&g, &by_hand, "first by hand");
                same(&g, &$q::first_grad(&x, n).1, "first");
                agree("first", &|v| first(v, n), &x, &g);
                let (_, t) = first_tangent(&x, n, &along);
                fd::close("first tangent", t, dot(&g), $rel);
            }

            let kinds_of: [u8; 5] = [1, 0, 2, 1, 0];
            let (value, g) = kinds_grad(&x, &kinds_of);
            assert_eq!(value, kinds(&x, &kinds_of), "kinds: the value");
            // each kept m contributes its factor's log-slope
            let mut by_hand = [0.0; 5];
            for (i, v) in x.iter().enumerate() {
                by_hand[i] = value
                    * match kinds_of[i] {
                        0 => 0.25 / (1.0 + v / 4.0),
                        1 => 0.5 / (1.0 + 2.0 * v / 4.0) + 0.5 * v / (1.0 + v * v / 4.0),
                        _ => 0.0,
                    };
            }
            same(&g, &by_hand, "kinds by hand");
            same(&g, &$q::kinds_grad(&x, &kinds_of).1, "kinds");
            agree("kinds", &|v| kinds(v, &kinds_of), &x, &g);
            let (_, t) = kinds_tangent(&x, &kinds_of, &along);
            fd::close("kinds tangent", t, dot(&g), $rel);

            for cut in [0.5, 5.0] {
                let (value, (g, gw)) = above_grad(&x, w, cut);
                assert_eq!(value, above(&x, w, cut), "above: the value");
                let by_hand: Vec<$t> = x.iter().map(|v| if *v > cut { 2.0 } else { 0.0 }).collect();
                same(&g, &by_hand, "above by hand");
                let none = x.iter().all(|v| *v <= cut);
                fd::close("above by hand, w", gw, if none { 2.0 } else { 1.0 }, $rel);
                let (_, (qg, qw)) = $q::above_grad(&x, w, cut);
                same(&g, &qg, "above");
                fd::close("above, w", gw, qw, $rel);
                let (_, t) = above_tangent(&x, w, cut, &along, 1.0);
                fd::close("above tangent", t, dot(&g) + gw, $rel);
            }

            let (value, g) = growing_grad(&x);
            assert_eq!(value, growing(&x), "growing: the value");
            let (mut kept, mut scale) = (0.0, 1.0);
            let mut position = [0.0; 5];
            for (i, v) in x.iter().enumerate() {
                if *v > -1.0 {
                    position[i] = kept;
                    kept += 1.0;
                }
                scale += kept;
            }
            let by_hand: Vec<$t> = position.iter().map(|k| k * scale).collect();
            same(&g, &by_hand, "growing by hand");
            same(&g, &$q::growing_grad(&x).1, "growing");
            agree("growing", &|v| growing(v), &x, &g);
            let (_, t) = growing_tangent(&x, &along);
            fd::close("growing tangent", t, dot(&g), $rel);

            let (value, g) = evens_grad(&x);
            assert_eq!(value, evens(&x), "evens: the value");
            let by_hand: Vec<$t> = x
                .iter()
                .enumerate()
                .map(|(i, v)| {
                    if i % 2 == 0 {
                        value * 2.0 * v / (1.0 + v * v)
                    } else {
                        0.0
                    }
                })
                .collect();
            same(&g, &by_hand, "evens by hand");
            same(&g, &$q::evens_grad(&x).1, "evens");
            agree("evens", &|v| evens(v), &x, &g);
            let (_, t) = evens_tangent(&x, &along);
            fd::close("evens tangent", t, dot(&g), $rel);

            let (value, g) = halving_grad(w);
            assert_eq!(value, halving(w), "halving: the value");
            // h = 1, ½, ¼, ⅛: 1.875 + 4
            fd::close("halving by hand", g, 5.875, $rel);
            fd::close("halving", g, $q::halving_grad(w).1, $rel);
            fd::close("halving tangent", halving_tangent(w, 1.0).1, g, $rel);

            for rounds in [0, 1, 3] {
                let (value, g) = lent_grad(w, rounds);
                assert_eq!(value, lent(w, rounds), "lent: the value");
                let (th, s) = (w.tanh(), 1.0 - w.tanh() * w.tanh());
                let by_hand = match rounds {
                    0 => 0.0,
                    r => (2 * r - 1) as $t * 0.1 * (1.0 - th.tanh() * th.tanh()) * s + s,
                };
                fd::close("lent by hand", g, by_hand, $rel);
                fd::close("lent", g, $q::lent_grad(w, rounds).1, $rel);
                fd::close("lent tangent", lent_tangent(w, rounds, 1.0).1, g, $rel);
            }

            let (value, g) = cubes_grad(&x, 0.0);
            assert_eq!(value, cubes(&x, 0.0), "cubes: the value");
            let by_hand: Vec<$t> = x
                .iter()
                .map(|v| if *v > 0.0 { 3.0 * v * v } else { 0.0 })
                .collect();
            same(&g, &by_hand, "cubes by hand");
            same(&g, &$q::cubes_grad(&x, 0.0).1, "cubes");
            agree("cubes", &|v| cubes(v, 0.0), &x, &g);

            let (total, ga, gb) = window(&x, w);
            let positive: Vec<$t> = x.iter().map(|v| if *v > 0.0 { w } else { 0.0 }).collect();
            same(&ga, &positive, "window by hand");
            let sum: $t = x.iter().filter(|v| **v > 0.0).sum();
            fd::close("window: the value", total, w * sum, $rel);
            fd::close("window by hand, b", gb, sum, $rel);
        }
        let (value, g) = first_grad(&[], 3);
        assert_eq!((value, g.len()), (0.0, 0), "first of nothing");
    }};
}

#[test]
fn kept_pushes_agree_with_finite_differences_hand_slopes_and_plain_adjoints() {
    check_all!(p64, q64, f64, 1e-6, 1e-12);
    check_all!(p32, q32, f32, 2e-2, 1e-5);
}
