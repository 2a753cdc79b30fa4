//! What the 10,000-program runs with nested chains and literal sources
//! found, each a program that did not compile (never a wrong number), now
//! built warning-free and checked against finite differences and by hand,
//! in `f64` and `f32`, in the function form and in a window:
//!
//! - a block whose own `let` shadows a recorded name, then yields an array
//!   literal that is written into a local array (Mica judged the literal
//!   recorded, by the outer name);
//! - an index loop over a recorded array (`for i in 0..h.len()`, from an
//!   inlined helper) inside a loop whose counter has the same name: the
//!   counter was taken for a recorded value;
//! - a chain inside another chain's closure, inside `vec![…]` in a window;
//! - a constant array iterated by reference whose element is a float
//!   method's receiver with a recorded argument, the array written after
//!   the loop: the element was kept for the reverse as a reference, a
//!   borrow of the array.
#![deny(warnings)]
#![allow(clippy::needless_range_loop, clippy::useless_vec)]

mod fd;

macro_rules! programs {
    ($m:ident, $t:ty) => {
        pub mod $m {
            use mica::tape;

            /// `x0 · (½ + 0.3 · ½) + x1` whatever `x1` is: the block's `x1`
            /// is its own.
            #[tape]
            pub fn shadowed_literal(#[tracked] x0: $t, #[tracked] x1: $t) -> $t {
                let mut h = [0.5, 0.5, 0.5];
                let v = {
                    let x1: $t = 0.3;
                    [x1 * h[0], x1 * x0]
                };
                h[2] += v[0] + v[1];
                x0 * h[2] + x1
            }

            #[tape]
            pub fn shadowed_literal_window(x0: $t, x1: $t) -> ($t, $t, $t) {
                #[tracked]
                let x0 = x0;
                #[tracked]
                let x1 = x1;
                tape! {
                    let mut h = [0.5, 0.5, 0.5];
                    let v = {
                        let x1: $t = 0.3;
                        [x1 * h[0], x1 * x0]
                    };
                    h[2] += v[0] + v[1];
                    let out = x0 * h[2] + x1;
                }
                backward!(out);
                (out, gradient!(x0), gradient!(x1))
            }

            /// An index loop over a recorded array named `i` inside a loop
            /// counted by another `i`.
            #[tape]
            pub fn same_counter(#[tracked] x: $t) -> $t {
                let mut h = [x, x * x, 0.3];
                let mut t = x;
                let mut i = 0;
                while i < 2 {
                    for i in 0..h.len() {
                        h[i] = h[i] * 0.5 + 0.1;
                    }
                    t += h[1].tanh();
                    i += 1;
                }
                t + h[0]
            }

            #[tape]
            pub fn same_counter_window(x: $t) -> ($t, $t) {
                #[tracked]
                let x = x;
                tape! {
                    let mut h = [x, x * x, 0.3];
                    let mut t = x;
                    let mut i = 0;
                    let out = loop {
                        for i in 0..h.len() {
                            h[i] = h[i] * 0.5 + 0.1;
                        }
                        t += h[1].tanh();
                        if i + 1 >= 2 {
                            break t + h[0];
                        }
                        i += 1;
                    };
                }
                backward!(out);
                (out, gradient!(x))
            }

            /// `min(wᵢ², c wᵢ)` summed, inside `vec![…]` in a window.
            #[tape]
            pub fn nested_in_vec(w: &[$t; 3], c: $t) -> ($t, [$t; 3]) {
                #[tracked]
                let w: [$t; 3] = *w;
                tape! {
                    let v = vec![
                        w.iter()
                            .map(|&a| [a, c].iter().map(|&b| a * b).fold(<$t>::INFINITY, <$t>::min))
                            .sum::<$t>(),
                        w[0],
                    ];
                    let out = v[0] + v[1];
                }
                backward!(out);
                (out, gradient!(w))
            }

            /// `Σ atan2(hₖ, x² + ½)` over a constant `h` read by reference,
            /// then `h` written.
            #[tape]
            pub fn borrowed_element(#[tracked] x: $t) -> $t {
                let mut h: [$t; 3] = [0.1, 0.2, 0.3];
                let mut s = 0.0;
                for (a, b) in h.iter().zip(h.iter()) {
                    let mut k = 0;
                    let t = loop {
                        if k + 1 >= 2 || x > -5.0 {
                            break b.atan2(x * x + 0.5) + *a;
                        }
                        k += 1;
                    };
                    s += t;
                }
                h[0] = s;
                h[0] * 2.0
            }
        }
    };
}

programs!(p64, f64);
programs!(p32, f32);

macro_rules! check_all {
    ($p:ident, $t:ty, $tol:expr, $rel:expr) => {{
        use $p::*;
        let agree = |what: &str, f: &dyn Fn(&[$t]) -> $t, at: &[$t], g: &[$t]| {
            fd::agrees(what, f, at, g, $tol)
        };
        let same = |g: &[$t], h: &[$t], what: &str| fd::same(what, g, h, $rel);
        for (x0, x1) in [(0.4, 0.7), (-0.8, 1.3), (1.5, -0.2)] {
            let (_, (g0, g1)) = shadowed_literal_grad(x0, x1);
            // h₂ = ½ + 0.15 + 0.3 x0: d/dx0 (x0 h₂) = h₂ + 0.3 x0
            same(
                &[g0, g1],
                &[0.65 + 0.6 * x0, 1.0],
                "shadowed literal by hand",
            );
            let (_, w0, w1) = shadowed_literal_window(x0, x1);
            same(&[w0, w1], &[g0, g1], "shadowed literal, window");

            let (_, g) = same_counter_grad(x0);
            agree("same counter", &|v| same_counter(v[0]), &[x0], &[g]);
            let (_, w) = same_counter_window(x0);
            agree(
                "same counter, window",
                &|v| same_counter_window(v[0]).0,
                &[x0],
                &[w],
            );

            let w = [x0, x1, 0.25];
            let c = 0.6;
            let (_, g) = nested_in_vec(&w, c);
            // min(a², c a): 2a where a² < c a, else c; plus 1 on w₀
            let hand: Vec<$t> = (0..3)
                .map(|i| {
                    let a = w[i];
                    let slope = if a * a < c * a { 2.0 * a } else { c };
                    slope + if i == 0 { 1.0 } else { 0.0 }
                })
                .collect();
            same(&g, &hand, "nested in vec! by hand");
            agree(
                "nested in vec!",
                &|v| nested_in_vec(&[v[0], v[1], v[2]], c).0,
                &w,
                &g,
            );

            let (_, g) = borrowed_element_grad(x0);
            agree("borrowed element", &|v| borrowed_element(v[0]), &[x0], &[g]);
        }
    }};
}

#[test]
fn what_the_long_runs_found_builds_and_agrees_with_finite_differences() {
    check_all!(p64, f64, 1e-6, 1e-12);
    check_all!(p32, f32, 2e-2, 1e-5);
}
