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
//! - a block helper whose parameter has the name of the caller's knob
//!   (`v0`), a local array it writes, called with constants in a window
//!   loop's `break` value: the helper's `v0` was taken for the knob, and
//!   the loop's value for a recorded one (helpers' names that the caller
//!   uses are now renamed where they are written, and a local array's
//!   own writes are judged by the array, not by an outer name);
//! - a constant array iterated by reference whose element is a float
//!   method's receiver with a recorded argument, the array written after
//!   the loop: the element was kept for the reverse as a reference, a
//!   borrow of the array;
//! - a block helper's by-value array parameter written with a recorded
//!   value, called with `*c` (a reference the caller holds) or, in a
//!   generic helper, with any array: the inlined copy was not seen as an
//!   array of constants.
//!
//! And one a seed of CI's random programs found, which did build, but
//! slowly: helpers inlined into the arguments of helpers inlined into a
//! loop's `break` value nest blocks in values many levels deep, and the
//! judgement of which values are recorded asked each nested block again
//! from every enclosing one, so its time grew exponentially with the
//! depth (one such program took over three minutes to expand). `deep`
//! below is of that shape, five levels of helpers; each block is now
//! judged a bounded number of times (`facts/activity.rs`).
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

            /// A helper whose parameter is named as the caller's knob.
            #[tape]
            pub mod named_alike {
                pub fn u0(mut v0: [$t; 3]) -> $t {
                    let h4: [$t; 3] = [0.0; 3];
                    v0[1] = (0.4 as $t).min(v0[1]).tanh();
                    h4[0] + v0[0] + v0[1]
                }

                pub fn f(v0_in: &[$t], cp: $t) -> ($t, Vec<$t>) {
                    #[tracked]
                    let v0: Vec<$t> = v0_in.to_vec();
                    tape! {
                        let mut t5 = v0[0] * v0[1];
                        let mut i = 0;
                        let t11 = loop {
                            t5 += (t5 - cp).tanh() * 0.1;
                            if i + 1 >= 3 || t5 > u0([cp, -0.63, 0.55]) {
                                break u0([-0.68, -0.27, 0.75]) * 2.0;
                            }
                            i += 1;
                        };
                        let out = t5 + t11;
                    }
                    backward!(out);
                    (out, gradient!(v0).to_vec())
                }

                /// the same in the function form
                pub fn g(#[tracked] v0: &[$t], cp: $t) -> $t {
                    let mut t5 = v0[0] * v0[1];
                    let mut i = 0;
                    let t11 = loop {
                        t5 += (t5 - cp).tanh() * 0.1;
                        if i + 1 >= 3 || t5 > u0([cp, -0.63, 0.55]) {
                            break u0([-0.68, -0.27, 0.75]) * 2.0;
                        }
                        i += 1;
                    };
                    t5 + t11
                }
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

            /// `u(v, s, x) = v₀ + tanh(tanh(x) s₀ + v₂) x`, its `v` a
            /// by-value array it writes, called with a literal, a recorded
            /// array and `*c`.
            #[tape]
            pub mod by_value {
                fn u0(mut v0: [$t; 3], s1: &[$t], x2: $t) -> $t {
                    v0[1] = (x2.tanh() * s1[0] + v0[2]).tanh();
                    v0[0] + v0[1] * x2
                }

                pub fn f(#[tracked] a: $t, c: &[$t; 3]) -> $t {
                    let r = [a * 0.5, 0.3, 0.2];
                    let s = [a, a * a];
                    u0([0.1, 0.2, 0.3], &s, a) + u0(r, &s, 0.7) + u0(*c, &s, a)
                }
            }
        }
    };
}

/// The same helper generic over its float, called with `*c` of a generic
/// array.
#[mica::tape]
pub mod by_value_generic {
    use mica::Real;

    fn u0<T: Real>(mut v0: [T; 3], s1: &[T], x2: T) -> T {
        v0[1] = (x2.tanh() * s1[0] + v0[2]).tanh();
        v0[0] + v0[1] * x2
    }

    pub fn f<T: Real>(#[tracked] a: T, c: &[T; 3]) -> T {
        let half = T::from(0.5).unwrap();
        let r = [a * half, T::from(0.3).unwrap(), T::from(0.2).unwrap()];
        let h = [
            T::from(0.1).unwrap(),
            T::from(0.2).unwrap(),
            T::from(0.3).unwrap(),
        ];
        let s = [a, a * a];
        u0(h, &s, a) + u0(r, &s, T::from(0.7).unwrap()) + u0(*c, &s, a)
    }
}

/// Helpers calling helpers in their arguments, in a loop's `break` value
/// and in blocks, five levels deep, in both precisions.
macro_rules! deep {
    ($m:ident, $t:ty, $($tape:tt)*) => {
        #[$($tape)*]
        pub mod $m {
            fn h0(a: [$t; 3], mut x: $t) -> $t {
                for i in 0..3 {
                    x += (a[i] * x).tanh() * 0.1;
                }
                x
            }

            fn h1(mut x: $t) -> $t {
                let mut i = 0;
                let (a, b) = loop {
                    let t = h0([x.sin(), 0.2, x], -({
                        let u = x;
                        u.sin() * 0.5
                    }));
                    x += t.tanh() * 0.1;
                    if i + 1 >= 2 || t > 3.0 {
                        break (
                            h0([h0([t, x, t.tanh()], 0.4).tanh(), x, t], 0.6) * 0.75,
                            h0([h0([t, x.cos(), t], 0.4), t, x], 0.6) * 0.25,
                        );
                    }
                    i += 1;
                };
                a + b
            }

            fn h2(x: $t) -> $t {
                let y = h1(x) * 0.5;
                h0([y, h1(y), x], x)
            }

            fn h3(x: $t) -> $t {
                let z = {
                    let u = h2(x);
                    u * 0.5 + x
                };
                h1(z) + z
            }

            pub fn deep(#[tracked] x: $t, #[tracked] w: &[$t; 2]) -> $t {
                let mut s = 0.0;
                for k in 0..2 {
                    s += h3(h3(w[k] * x + s)).tanh();
                }
                s
            }
        }
    };
}

deep!(deep64, f64, mica::tape);
deep!(deep64_plain, f64, mica::tape(plain));
deep!(deep32, f32, mica::tape);
deep!(deep32_plain, f32, mica::tape(plain));

programs!(p64, f64);
programs!(p32, f32);

macro_rules! check_all {
    ($p:ident, $deep:ident, $plain:ident, $t:ty, $tol:expr, $rel:expr) => {{
        use $p::*;
        let (agree, same) = fd::checks::<$t>($tol, $rel);
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

            let v = [x0, x1];
            let (_, g) = named_alike::f(&v, 0.3);
            agree("named alike", &|p| named_alike::f(p, 0.3).0, &v, &g);
            let (_, h) = named_alike::g_grad(&v, 0.3);
            same(&g, &h, "named alike, both forms");

            let (_, g) = borrowed_element_grad(x0);
            agree("borrowed element", &|v| borrowed_element(v[0]), &[x0], &[g]);

            // d/da of tanh(tanh(a) a + k) a, and of the middle call
            let q = |a: $t, k: $t| {
                let u = a.tanh() * a + k;
                let sech2 = |z: $t| 1.0 - z.tanh() * z.tanh();
                sech2(u) * (sech2(a) * a + a.tanh()) * a + u.tanh()
            };
            let c = [0.2, 0.4, -0.6];
            let t7: $t = 0.7;
            let hand = q(x0, 0.3)
                + 0.5
                + 0.7 * (1.0 - (t7.tanh() * x0 + 0.2).tanh().powi(2)) * t7.tanh()
                + q(x0, c[2]);
            let (_, g) = by_value::f_grad(x0, &c);
            same(&[g], &[hand], "by-value array parameter by hand");
            agree(
                "by-value array parameter",
                &|v| by_value::f(v[0], &c),
                &[x0],
                &[g],
            );
            let (_, h) = by_value_generic::f_grad(x0, &c);
            same(&[h], &[hand], "generic by-value array parameter by hand");

            let w = [x1, 0.6];
            let (v, (gx, gw)) = $deep::deep_grad(x0, &w);
            let (pv, (px, pw)) = $plain::deep_grad(x0, &w);
            same(&[v], &[$deep::deep(x0, &w)], "deep helpers, value");
            same(
                &[v, gx, gw[0], gw[1]],
                &[pv, px, pw[0], pw[1]],
                "deep helpers, plain",
            );
            agree(
                "deep helpers",
                &|p| $deep::deep(p[0], &[p[1], p[2]]),
                &[x0, w[0], w[1]],
                &[gx, gw[0], gw[1]],
            );
        }
    }};
}

#[test]
fn what_the_long_runs_found_builds_and_agrees_with_finite_differences() {
    check_all!(p64, deep64, deep64_plain, f64, 1e-6, 1e-12);
    check_all!(p32, deep32, deep32_plain, f32, 2e-2, 1e-5);
}
