//! `break` and `continue` in `for`, `while`, `while let` and `loop` over
//! recorded values.
//!
//! Masked sums (`continue` past some elements), running sums that stop once
//! they pass a limit (`break` on the first, a middle and the last iteration,
//! and never), a loop whose every iteration continues, nested loops whose
//! inner `break` ends only the inner loop, labelled exits (`continue
//! 'rows`, `break 'rows`, `break 'outer` out of a `loop` in a `while`),
//! `break value` out of a `loop` (and `break (a, b)` from two places), a
//! `while let` with both exits, a `continue` in a `match` arm, a `while`
//! loop that continues, and a Newton
//! iteration that stops when it has converged, in a `while` and in a
//! `loop`. Every program is written twice, as `#[tape]` and as
//! `#[tape(plain)]`, and checked in `f64` and `f32` against central finite
//! differences at several points, against its plain twin, and against
//! slopes derived by hand; a window-form program checks the same in the
//! other form.
#![deny(warnings)]

mod fd;

macro_rules! programs {
    ($m:ident, $t:ty, $($mode:ident)?) => {
        pub mod $m {
            use mica::tape;

            /// `Σ wᵢ²` over the elements that are not negative.
            #[tape$(($mode))?]
            pub fn masked(#[tracked] w: &[$t]) -> $t {
                let mut total = 0.0;
                for i in 0..w.len() {
                    if w[i] < 0.0 {
                        continue;
                    }
                    total += w[i] * w[i];
                }
                total
            }

            /// `Σ sin wᵢ` up to and with the first element that takes the
            /// sum past `limit`, over the first `n` elements.
            #[tape$(($mode))?]
            pub fn until(#[tracked] w: &[$t], limit: $t, n: usize) -> $t {
                let mut total = 0.0;
                for i in 0..n {
                    total += w[i].sin();
                    if total > limit {
                        break;
                    }
                }
                total * 2.0
            }

            /// Every iteration continues before its last line: `Σ 2wᵢ`.
            #[tape$(($mode))?]
            pub fn always_continues(#[tracked] w: &[$t]) -> $t {
                let mut total = 0.0;
                for i in 0..w.len() {
                    total += w[i] * 2.0;
                    if i < w.len() {
                        continue;
                    }
                    total += 100.0 * w[i];
                }
                total
            }

            /// The inner `break` ends the inner loop only: `Σ_{j ≤ i}
            /// wᵢ wⱼ`, until the sum passes `limit`.
            #[tape$(($mode))?]
            pub fn nested(#[tracked] w: &[$t], limit: $t) -> $t {
                let mut total = 0.0;
                for i in 0..w.len() {
                    for j in 0..w.len() {
                        if j > i {
                            break;
                        }
                        total += w[i] * w[j];
                    }
                    if total > limit {
                        break;
                    }
                }
                total
            }

            /// `continue` in a `match` arm: every third element is skipped.
            #[tape$(($mode))?]
            pub fn in_a_match(#[tracked] w: &[$t]) -> $t {
                let mut total = 0.0;
                for i in 0..w.len() {
                    match i % 3 {
                        0 => continue,
                        _ => {}
                    }
                    total += w[i].cos();
                }
                total
            }

            /// A `while` loop that continues past elements over `0.5`.
            #[tape$(($mode))?]
            pub fn while_continues(#[tracked] w: &[$t]) -> $t {
                let mut total = 0.0;
                let mut k = 0;
                while k < w.len() {
                    k += 1;
                    if w[k - 1] > 0.5 {
                        continue;
                    }
                    total += w[k - 1].exp();
                }
                total
            }

            /// Newton's iteration for `√a` in a `loop`, left by `break`
            /// once a step changes nothing (or after 60 steps).
            #[tape$(($mode))?]
            pub fn newton_loop(#[tracked] a: $t) -> $t {
                let mut x = a;
                let mut k = 0;
                loop {
                    k += 1;
                    let next = 0.5 * (x + a / x);
                    let done = (next - x).abs() <= 4.0 * <$t>::EPSILON * next;
                    x = next;
                    if done || k == 60 {
                        break;
                    }
                }
                x
            }

            /// Labelled exits from a loop nest: `continue 'rows` once the
            /// inner counter passes the outer one, `break 'rows` once the
            /// sum passes `limit`, and a line after the inner loop that
            /// either skips.
            #[tape$(($mode))?]
            pub fn labelled(#[tracked] w: &[$t], limit: $t) -> $t {
                let mut total = 0.0;
                'rows: for i in 0..w.len() {
                    for j in 0..w.len() {
                        if j > i {
                            continue 'rows;
                        }
                        if total > limit {
                            break 'rows;
                        }
                        total += w[i] * w[j];
                    }
                    total *= 1.5;
                }
                total
            }

            /// A labelled `break` out of a `loop` inside a `while`.
            #[tape$(($mode))?]
            pub fn labelled_while(#[tracked] w: &[$t], limit: $t) -> $t {
                let mut total = 0.0;
                let mut i = 0;
                'outer: while i < w.len() {
                    let mut j = 0;
                    loop {
                        if j == w.len() {
                            break;
                        }
                        if total > limit {
                            break 'outer;
                        }
                        total += w[j].sin() * w[i];
                        j += 1;
                    }
                    i += 1;
                }
                total
            }

            /// `break value` out of a `loop`: the damped iteration
            /// `x ← x/2 + b` stopped after `n + 1` steps, its value scaled.
            #[tape$(($mode))?]
            pub fn break_value(#[tracked] w: &[$t], n: usize) -> $t {
                let mut k = 0;
                let mut x = w[0];
                let y = loop {
                    x = 0.5 * x + w[1];
                    if k == n {
                        break x * w[2];
                    }
                    k += 1;
                };
                y + x
            }

            /// `break (a, b)` out of a `loop` from two places, the pair
            /// taken apart where the loop is bound: the iteration above,
            /// left with `(x w₂, x + k)` once `k` reaches `n`, or with
            /// `(x, 1)` once `x` passes 10.
            #[tape$(($mode))?]
            pub fn break_pair(#[tracked] w: &[$t], n: usize) -> $t {
                let mut k = 0;
                let mut x = w[0];
                let (a, b) = loop {
                    x = 0.5 * x + w[1];
                    if x > 10.0 {
                        break (x, 1.0);
                    }
                    if k == n {
                        break (x * w[2], x + k as $t);
                    }
                    k += 1;
                };
                a * b + x
            }

            /// `while let` over indices that are constants, with `break`
            /// and `continue`.
            #[tape$(($mode))?]
            pub fn while_let(#[tracked] w: &[$t], limit: $t) -> $t {
                let mut total = 0.0;
                let mut order: Vec<usize> = (0..w.len()).collect();
                while let Some(k) = order.pop() {
                    if k == 1 {
                        continue;
                    }
                    total += w[k] * w[k] + total * w[0];
                    if total > limit {
                        break;
                    }
                }
                total
            }

            /// Newton's iteration for `√a`, stopped once a step changes
            /// nothing: the slope is `1 / (2√a)`.
            #[tape$(($mode))?]
            pub fn newton_sqrt(#[tracked] a: $t) -> $t {
                let mut x = a;
                let mut k = 0;
                while k < 60 {
                    let next = 0.5 * (x + a / x);
                    if (next - x).abs() <= 4.0 * <$t>::EPSILON * next {
                        x = next;
                        break;
                    }
                    x = next;
                    k += 1;
                }
                x
            }
        }
    };
}

programs!(p64, f64,);
programs!(p32, f32,);
programs!(q64, f64, plain);
programs!(q32, f32, plain);

macro_rules! check_all {
    ($m:ident, $q:ident, $t:ty, $tol:expr, $close:expr) => {{
        use $m::*;
        let agree = |name: &str, f: &dyn Fn(&[$t]) -> $t, at: &[$t], g: &[$t]| {
            fd::agrees(&format!("{}::{name}", stringify!($m)), f, at, g, $tol)
        };
        let close = |a: $t, b: $t, what: &str| {
            fd::close(&format!("{}: {what}", stringify!($m)), a, b, $close)
        };
        let same = |g: &[$t], gq: &[$t], what: &str| {
            fd::same(&format!("{}: {what}", stringify!($m)), g, gq, $close)
        };
        let points: [&[$t]; 3] = [
            &[0.3, -0.7, 0.45, 0.9, -0.1],
            &[-0.55, 0.25, 0.8, -0.35, 0.6],
            &[1.1, 0.6, -0.2, 0.15, 0.4],
        ];
        for p in points {
            // masked: 2wᵢ where wᵢ ≥ 0
            let (value, g) = masked_grad(p);
            let by_hand: Vec<$t> = p
                .iter()
                .map(|&w| if w < 0.0 { 0.0 } else { 2.0 * w })
                .collect();
            close(
                value,
                p.iter().filter(|w| **w >= 0.0).map(|w| w * w).sum(),
                "masked value",
            );
            same(&g, &by_hand, "masked by hand");
            same(&g, &$q::masked_grad(p).1, "masked");
            agree("masked", &|v| masked(v), p, &g);

            // until: 2 cos wᵢ up to the element that passes the limit;
            // limits that stop it at the first element, in the middle,
            // never; and no iteration at all
            for (limit, n) in [(-10.0, 5), (0.35, 5), (10.0, 5), (10.0, 0)] {
                let (_, g) = until_grad(p, limit, n);
                let mut by_hand = vec![0.0 as $t; p.len()];
                let mut total = 0.0;
                for i in 0..n {
                    total += p[i].sin();
                    by_hand[i] = 2.0 * p[i].cos();
                    if total > limit {
                        break;
                    }
                }
                same(&g, &by_hand, &format!("until {limit} by hand"));
                same(&g, &$q::until_grad(p, limit, n).1, "until");
                // away from the point where the stop moves
                if (total - limit).abs() > 0.05 {
                    agree("until", &|v| until(v, limit, n), p, &g);
                }
            }
            // the first iteration stops it: only w₀ has a slope
            let (_, g) = until_grad(p, -10.0, 5);
            assert!(g[1..].iter().all(|s| *s == 0.0), "until: {g:?}");

            let (_, g) = always_continues_grad(p);
            same(&g, &vec![2.0; p.len()], "always_continues by hand");
            same(&g, &$q::always_continues_grad(p).1, "always_continues");

            for limit in [0.2, 1.0, 100.0] {
                let (_, g) = nested_grad(p, limit);
                same(&g, &$q::nested_grad(p, limit).1, "nested");
                agree("nested", &|v| nested(v, limit), p, &g);
            }

            // limits that stop the nest at once, in the middle, never
            for limit in [-1.0, 0.9, 100.0] {
                let (_, g) = labelled_grad(p, limit);
                same(&g, &$q::labelled_grad(p, limit).1, "labelled");
                agree("labelled", &|v| labelled(v, limit), p, &g);
                let (_, g) = labelled_while_grad(p, limit);
                same(&g, &$q::labelled_while_grad(p, limit).1, "labelled_while");
                agree("labelled_while", &|v| labelled_while(v, limit), p, &g);
                let (_, g) = while_let_grad(p, limit);
                same(&g, &$q::while_let_grad(p, limit).1, "while_let");
                agree("while_let", &|v| while_let(v, limit), p, &g);
            }
            // a limit never reached: every row but the last continues
            // `'rows` (skipping its ×1.5) once j passes i; the last row's
            // inner loop runs out, and its ×1.5 scales everything
            let (_, g) = labelled_grad(p, 1e9);
            let mut by_hand = vec![0.0 as $t; p.len()];
            {
                let n = p.len();
                let mut total = 0.0 as $t;
                let mut d = vec![0.0 as $t; n];
                for i in 0..n {
                    for j in 0..=i {
                        total += p[i] * p[j];
                        d[i] += p[j];
                        d[j] += p[i];
                    }
                    if i == n - 1 {
                        total *= 1.5;
                        for x in &mut d {
                            *x *= 1.5;
                        }
                    }
                }
                by_hand.copy_from_slice(&d);
                close(labelled(p, 1e9), total, "labelled value by hand");
            }
            same(&g, &by_hand, "labelled by hand");
            for n in [0, 1, 5] {
                let (_, g) = break_value_grad(p, n);
                same(&g, &$q::break_value_grad(p, n).1, "break_value");
                agree("break_value", &|v| break_value(v, n), p, &g);
                let (value, g) = break_pair_grad(p, n);
                assert_eq!(value, break_pair(p, n), "break_pair: the value");
                same(&g, &$q::break_pair_grad(p, n).1, "break_pair");
                agree("break_pair", &|v| break_pair(v, n), p, &g);
            }

            let (_, g) = in_a_match_grad(p);
            let by_hand: Vec<$t> = p
                .iter()
                .enumerate()
                .map(|(i, w)| if i % 3 == 0 { 0.0 } else { -w.sin() })
                .collect();
            same(&g, &by_hand, "in_a_match by hand");
            same(&g, &$q::in_a_match_grad(p).1, "in_a_match");

            let (_, g) = while_continues_grad(p);
            let by_hand: Vec<$t> = p
                .iter()
                .map(|w| if *w > 0.5 { 0.0 } else { w.exp() })
                .collect();
            same(&g, &by_hand, "while_continues by hand");
            same(&g, &$q::while_continues_grad(p).1, "while_continues");
            agree("while_continues", &|v| while_continues(v), p, &g);
        }
        // the same iteration as a `while` and as a `loop`
        let newtons: [(&str, fn($t) -> ($t, $t), fn($t) -> ($t, $t)); 2] = [
            ("newton_sqrt", newton_sqrt_grad, $q::newton_sqrt_grad),
            ("newton_loop", newton_loop_grad, $q::newton_loop_grad),
        ];
        for (name, grad, plain) in newtons {
            for a in [0.5 as $t, 2.0, 9.0] {
                let (x, g) = grad(a);
                close(x, a.sqrt(), &format!("{name} value"));
                // the converged iteration's slope is 1 / (2√a), to the
                // rounding the last step leaves
                assert!(
                    (g - 0.5 / a.sqrt()).abs() <= 64.0 * <$t>::EPSILON.sqrt() * (0.5 / a.sqrt()),
                    "{name} slope {g} against 1 / (2√a) at {a}"
                );
                close(g, plain(a).1, &format!("{name} against its plain adjoint"));
            }
        }
    }};
}

#[test]
fn breaks_and_continues_agree_with_finite_differences_hand_slopes_and_plain_adjoints() {
    check_all!(p64, q64, f64, 1e-6, 1e-12);
    check_all!(p32, q32, f32, 2e-2, 1e-5);
}

/// The window form: a masked sum that stops past a limit.
#[mica::tape]
fn window(w0: f64, w1: f64, w2: f64, limit: f64) -> (f64, [f64; 3]) {
    #[tracked]
    let w = [w0, w1, w2];
    tape! {
        let mut total = 0.0;
        for i in 0..3 {
            if w[i] < 0.0 {
                continue;
            }
            total += w[i] * w[i];
            if total > limit {
                break;
            }
        }
    }
    backward!(total);
    (total, gradient!(w))
}

#[test]
fn the_window_form_breaks_and_continues_too() {
    for (w, limit) in [
        ([0.5, -0.3, 0.9], 10.0),
        ([0.5, -0.3, 0.9], 0.1),
        ([-0.5, 0.7, 0.9], 0.6),
    ] {
        let (_, g) = window(w[0], w[1], w[2], limit);
        let mut by_hand = [0.0; 3];
        let mut total = 0.0;
        for i in 0..3 {
            if w[i] < 0.0 {
                continue;
            }
            total += w[i] * w[i];
            by_hand[i] = 2.0 * w[i];
            if total > limit {
                break;
            }
        }
        assert_eq!(g, by_hand, "{w:?}, {limit}");
    }
}
