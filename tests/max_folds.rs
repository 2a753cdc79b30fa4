//! Loops that keep the largest or smallest of their values (`m =
//! m.max(x[i])`, `fold(f64::NEG_INFINITY, f64::max)`): the reverse walks the
//! winner's iteration alone. Where the winner's value started, what it read
//! (a knob, a sum, a negation), `min` and `max`, the running value on
//! either side of the call, no winner at all (the value before the loop is
//! never beaten), and ties (elements read twice, equal elements), which go
//! to the receiver as `f64::max`'s slope rule says. Beside them, folds
//! the reverse must still walk in full: a product in the value, a running
//! value read again in the body, a fold inside another loop.
//!
//! Every program is written twice, as `#[tape]` and as `#[tape(plain)]`
//! (every shortcut off), and checked at several points against central
//! finite differences (away from ties) and against its plain twin, in
//! `f64` and `f32`; the shortest against slopes derived by hand.
#![deny(warnings)]
#![allow(clippy::needless_range_loop)]

mod fd;

macro_rules! programs {
    ($m:ident, $t:ty, $($mode:ident)?) => {
        pub mod $m {
            use mica::tape;

            /// Log-sum-exp with its maximum by a fold.
            #[tape$(($mode))?]
            pub fn lse(#[tracked] x: &[$t]) -> $t {
                let m = x.iter().cloned().fold(<$t>::NEG_INFINITY, <$t>::max);
                let s: $t = x.iter().map(|xi| (xi - m).exp()).sum();
                m + s.ln()
            }

            /// The largest of `x[i] - c`, started from `x[0] - c`.
            #[tape$(($mode))?]
            pub fn shifted_max(#[tracked] x: &[$t], #[tracked] c: $t) -> $t {
                let mut m = x[0] - c;
                for i in 1..x.len() {
                    m = m.max(x[i] - c);
                }
                m * m + c
            }

            /// The smallest of `x[i] + y[i]`, the running value the call's
            /// argument (`f64::min(e, m)`).
            #[tape$(($mode))?]
            pub fn sum_min(#[tracked] x: &[$t], #[tracked] y: &[$t]) -> $t {
                let mut m = <$t>::INFINITY;
                for i in 0..x.len() {
                    m = <$t>::min(x[i] + y[i], m);
                }
                m.sin()
            }

            /// The largest negation, `max(-x[i])`, against a start of `s`:
            /// for a large `s` nothing beats it.
            #[tape$(($mode))?]
            pub fn beaten_or_not(#[tracked] x: &[$t], #[tracked] s: $t) -> $t {
                let mut m = s * s;
                for i in 0..x.len() {
                    m = (-x[i]).max(m);
                }
                m * 0.5
            }

            /// Every element read twice (`x[i % n]`): ties between the
            /// running value and the element.
            #[tape$(($mode))?]
            pub fn twice(#[tracked] x: &[$t]) -> $t {
                let n = x.len();
                let mut m = <$t>::NEG_INFINITY;
                for i in 0..2 * n {
                    m = m.max(x[i % n]);
                }
                m.exp()
            }

            /// A product in the value: walked in full.
            #[tape$(($mode))?]
            pub fn squares(#[tracked] x: &[$t]) -> $t {
                let mut m: $t = 0.0;
                for i in 0..x.len() {
                    m = m.max(x[i] * x[i]);
                }
                m.sqrt()
            }

            /// A root in the value: walked in full, for a slope that may be
            /// infinite (`√0`) reaches the iterations that lose too.
            #[tape$(($mode))?]
            pub fn roots(#[tracked] x: &[$t]) -> $t {
                let mut m = <$t>::NEG_INFINITY;
                for i in 0..x.len() {
                    m = m.max(x[i].sqrt());
                }
                m
            }

            /// The running value read again in the body: walked in full.
            #[tape$(($mode))?]
            pub fn read_again(#[tracked] x: &[$t]) -> $t {
                let mut m = x[0];
                for i in 0..x.len() {
                    m = m.max(x[i] - m);
                }
                m
            }

            /// A maximum per row, inside a loop over rows: walked in full.
            #[tape$(($mode))?]
            pub fn row_maxima(#[tracked] x: &[$t], cols: usize) -> $t {
                let mut total: $t = 0.0;
                for r in 0..x.len() / cols {
                    let mut m = <$t>::NEG_INFINITY;
                    for j in 0..cols {
                        m = m.max(x[r * cols + j]);
                    }
                    total += m * m;
                }
                total
            }
        }
    };
}

programs!(p64, f64,);
programs!(q64, f64, plain);
programs!(p32, f32,);
programs!(q32, f32, plain);

macro_rules! checks {
    ($name:ident, $p:ident, $q:ident, $t:ty, $tol:expr, $rel:expr) => {
        #[test]
        fn $name() {
            use $p as p;
            use $q as q;
            for seed in 0..4 {
                // distinct elements, their order changing with the seed
                let x: Vec<$t> = (0..6)
                    .map(|k| (((k * 7 + seed * 5) % 11) as $t) / 4.0 - 1.2)
                    .collect();
                let y: Vec<$t> = (0..6)
                    .map(|k| (((k * 3 + seed) % 13) as $t) / 7.0 - 0.8)
                    .collect();
                let c = 0.3 + 0.2 * seed as $t;

                let (_, g) = p::lse_grad(&x);
                fd::agrees("lse", &|v| p::lse(v), &x, &g, $tol);
                fd::same("lse, plain", &g, &q::lse_grad(&x).1, $rel);
                // by hand: the softmax
                let m = x.iter().cloned().fold(<$t>::NEG_INFINITY, <$t>::max);
                let s: $t = x.iter().map(|v| (v - m).exp()).sum();
                let soft: Vec<$t> = x.iter().map(|v| (v - m).exp() / s).collect();
                fd::same("lse, softmax", &g, &soft, $rel);

                let (_, (gx, gc)) = p::shifted_max_grad(&x, c);
                let f = |v: &[$t]| p::shifted_max(&v[..6], v[6]);
                let mut at = x.clone();
                at.push(c);
                let mut claimed = gx.clone();
                claimed.push(gc);
                fd::agrees("shifted max", &f, &at, &claimed, $tol);
                let (_, (hx, hc)) = q::shifted_max_grad(&x, c);
                fd::same("shifted max, plain", &gx, &hx, $rel);
                fd::close("shifted max, plain", gc, hc, $rel);
                // by hand: m = x[k] - c at the largest x[k]
                let k = (0..6).fold(0, |k, i| if x[i] > x[k] { i } else { k });
                let mm = x[k] - c;
                for (i, gi) in gx.iter().enumerate() {
                    let want = if i == k { 2.0 * mm } else { 0.0 };
                    fd::close("shifted max, by hand", *gi, want, $rel);
                }
                fd::close("shifted max, by hand", gc, 1.0 - 2.0 * mm, $rel);

                let (_, (gx, gy)) = p::sum_min_grad(&x, &y);
                let f = |v: &[$t]| p::sum_min(&v[..6], &v[6..]);
                let at: Vec<$t> = x.iter().chain(&y).cloned().collect();
                let claimed: Vec<$t> = gx.iter().chain(&gy).cloned().collect();
                fd::agrees("sum min", &f, &at, &claimed, $tol);
                let (_, (hx, hy)) = q::sum_min_grad(&x, &y);
                fd::same("sum min, plain", &gx, &hx, $rel);
                fd::same("sum min, plain", &gy, &hy, $rel);

                // nothing beats s² = 9; then x's largest negation wins
                for s in [3.0, 0.1 * seed as $t] {
                    let (_, (gx, gs)) = p::beaten_or_not_grad(&x, s);
                    let f = |v: &[$t]| p::beaten_or_not(&v[..6], v[6]);
                    let mut at = x.clone();
                    at.push(s);
                    let mut claimed = gx.clone();
                    claimed.push(gs);
                    fd::agrees("beaten or not", &f, &at, &claimed, $tol);
                    let (_, (hx, hs)) = q::beaten_or_not_grad(&x, s);
                    fd::same("beaten or not, plain", &gx, &hx, $rel);
                    fd::close("beaten or not, plain", gs, hs, $rel);
                    if s == 3.0 {
                        fd::close("beaten or not, by hand", gs, 3.0, $rel);
                        assert!(gx.iter().all(|g| *g == 0.0), "{gx:?}");
                    }
                }

                // ties: against the plain twin, and finite differences away
                // from equal elements
                let (_, g) = p::twice_grad(&x);
                fd::agrees("twice", &|v| p::twice(v), &x, &g, $tol);
                fd::same("twice, plain", &g, &q::twice_grad(&x).1, $rel);
                let mut tied = x.clone();
                tied[seed as usize % 6] = 2.0;
                tied[(seed as usize + 3) % 6] = 2.0;
                fd::same(
                    "twice, tied",
                    &p::twice_grad(&tied).1,
                    &q::twice_grad(&tied).1,
                    $rel,
                );
                fd::same(
                    "lse, tied",
                    &p::lse_grad(&tied).1,
                    &q::lse_grad(&tied).1,
                    $rel,
                );
                let (g, h) = (
                    p::shifted_max_grad(&tied, c).1,
                    q::shifted_max_grad(&tied, c).1,
                );
                fd::same("shifted max, tied", &g.0, &h.0, $rel);
                fd::close("shifted max, tied", g.1, h.1, $rel);

                for (what, f, gf, hf) in [
                    (
                        "squares",
                        p::squares as fn(&[$t]) -> $t,
                        p::squares_grad as fn(&[$t]) -> ($t, Vec<$t>),
                        q::squares_grad as fn(&[$t]) -> ($t, Vec<$t>),
                    ),
                    (
                        "read again",
                        p::read_again,
                        p::read_again_grad,
                        q::read_again_grad,
                    ),
                ] {
                    let g = gf(&x).1;
                    fd::agrees(what, &|v| f(v), &x, &g, $tol);
                    fd::same(what, &g, &hf(&x).1, $rel);
                }
                // a losing element at 0, where `√` has an infinite slope: the
                // plain adjoint multiplies it by a zero adjoint (NaN), and so
                // must Mica, which walks the loop in full
                let mut roots: Vec<$t> = x.iter().map(|v| v.abs() + 0.5).collect();
                roots[seed as usize % 6] = 0.0;
                let (g, h) = (p::roots_grad(&roots).1, q::roots_grad(&roots).1);
                for (a, b) in g.iter().zip(&h) {
                    assert_eq!(a.to_bits(), b.to_bits(), "roots: {g:?} against {h:?}");
                }
                assert!(g.iter().any(|v| v.is_nan()), "{g:?}");
                let (_, g) = p::row_maxima_grad(&x, 3);
                fd::agrees("row maxima", &|v| p::row_maxima(v, 3), &x, &g, $tol);
                fd::same("row maxima, plain", &g, &q::row_maxima_grad(&x, 3).1, $rel);
            }
        }
    };
}

checks!(max_folds_f64, p64, q64, f64, 1e-6, 1e-12);
checks!(max_folds_f32, p32, q32, f32, 3e-2, 1e-5);
