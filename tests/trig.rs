//! `x.sin()` and `x.cos()` of one recorded `x`: the reverse takes each one's
//! slope from the other's value where it can read it (`sin_cos`, a rotation
//! written with both, a Newton step on Kepler's equation) and computes it
//! again where it cannot (the other made in another arm, or after a fused
//! loop whose reverse runs before it exists). Every program, in `f64` and
//! `f32`, against central finite differences at several points.
#![deny(warnings)]

mod fd;

macro_rules! programs {
    ($m:ident, $t:ty) => {
        pub mod $m {
            use mica::tape;

            /// Both from `sin_cos`, in one statement.
            #[tape]
            pub fn turned(#[tracked] t: $t, x: $t, y: $t) -> $t {
                let (s, c) = t.sin_cos();
                (c * x - s * y) * (s * x + c * y)
            }

            /// `sin` in the loop's body, `cos` in an arm after it: `cos`'s
            /// slope reads the `sin`, not the other way round.
            #[tape]
            pub fn newton(#[tracked] e: $t, #[tracked] m: $t) -> $t {
                let mut x = m;
                for _ in 0..4 {
                    let f = x - e * x.sin() - m;
                    if f.abs() > 1e-30 {
                        x -= f / (1.0 - e * x.cos());
                    }
                }
                x * x
            }

            /// `cos` in a fused loop's body, `sin` of the same knob after
            /// the loop: the loop's reverse runs before the `sin` exists.
            #[tape]
            pub fn sine_after(#[tracked] a: $t, #[tracked] w: &[$t]) -> $t {
                let mut total = 0.0;
                for i in 0..w.len() {
                    total += a.cos() * w[i];
                }
                total + a.sin() * 2.0
            }

            /// `sin` before a fused loop, `cos` in its body.
            #[tape]
            pub fn sine_before(#[tracked] a: $t, #[tracked] w: &[$t]) -> $t {
                let s = a.sin();
                let mut total = 0.0;
                for i in 0..w.len() {
                    total += a.cos() * w[i] * s;
                }
                total - s
            }

            /// A loop that is not fused (a product), `sin` after it.
            #[tape]
            pub fn product_then_sine(#[tracked] a: $t, #[tracked] w: &[$t]) -> $t {
                let mut p = 1.0;
                for i in 0..w.len() {
                    p *= a.cos() + w[i];
                }
                p + a.sin()
            }

            /// One in each arm: neither reads the other.
            #[tape]
            pub fn arms(#[tracked] t: $t, k: usize) -> $t {
                if k % 2 == 0 {
                    t.sin() * t
                } else {
                    t.cos() * t
                }
            }

            /// One in each arm, inside a loop whose iterations keep both
            /// arms' temporaries.
            #[tape]
            pub fn arms_in_loop(#[tracked] t: &[$t]) -> $t {
                let mut p = 1.0;
                for i in 0..t.len() {
                    let x = t[i] * 1.25;
                    let v = if i % 2 == 0 { x.sin() * x } else { x.cos() * x };
                    p *= v + 1.5;
                }
                p
            }

            /// Per element of an array, in a loop over rows.
            #[tape]
            pub fn rotations(#[tracked] q: &[$t], x: &[$t]) -> $t {
                let mut total = 0.0;
                for i in 0..q.len() {
                    let (s, c) = q[i].sin_cos();
                    let u = c * x[i] - s;
                    total += u * u + s * c;
                }
                total
            }

            /// The window form.
            #[tape]
            pub fn windowed(t0: $t, x: $t) -> $t {
                #[tracked]
                let t = t0;
                tape! {
                    let c = t.cos();
                    let v = t.sin() * x + c * c;
                }
                backward!(v);
                gradient!(t)
            }
        }
    };
}

programs!(p64, f64);
programs!(p32, f32);

macro_rules! check_all {
    ($m:ident, $t:ty, $tol:expr) => {{
        use $m::*;
        let check = |name: &str, f: &dyn Fn(&[$t]) -> $t, at: &[$t], g: &[$t]| {
            fd::agrees(&format!("{}::{name}", stringify!($m)), f, at, g, $tol)
        };
        for t in [-1.3 as $t, -0.2, 0.4, 1.1, 2.7] {
            let (_, g) = turned_grad(t, 0.7, -0.4);
            check("turned", &|p| turned(p[0], 0.7, -0.4), &[t], &[g]);

            let e = 0.3 + 0.1 * t.abs();
            let (_, (ge, gm)) = newton_grad(e, t);
            check("newton", &|p| newton(p[0], p[1]), &[e, t], &[ge, gm]);

            let w: Vec<$t> = (0..4).map(|k| 0.3 * k as $t - 0.5 + 0.1 * t).collect();
            let mut at = vec![t];
            at.extend(&w);
            type Grad = fn($t, &[$t]) -> ($t, ($t, Vec<$t>));
            let with_array: [(&str, fn($t, &[$t]) -> $t, Grad); 3] = [
                ("sine_after", sine_after, sine_after_grad),
                ("sine_before", sine_before, sine_before_grad),
                (
                    "product_then_sine",
                    product_then_sine,
                    product_then_sine_grad,
                ),
            ];
            for (name, f, grad) in with_array {
                let (_, (ga, gw)) = grad(t, &w);
                let mut g = vec![ga];
                g.extend(gw);
                check(name, &|p| f(p[0], &p[1..]), &at, &g);
            }

            for k in [0, 1] {
                let (_, g) = arms_grad(t, k);
                check("arms", &|p| arms(p[0], k), &[t], &[g]);
            }

            let (_, g) = arms_in_loop_grad(&w);
            check("arms_in_loop", &|p| arms_in_loop(p), &w, &g);

            let x: Vec<$t> = (0..4).map(|k| 0.2 * k as $t - 0.3).collect();
            let q: Vec<$t> = w.iter().map(|v| v * 2.0 + t).collect();
            let (_, g) = rotations_grad(&q, &x);
            check("rotations", &|p| rotations(p, &x), &q, &g);

            let g = windowed(t, 0.6);
            let value = |p: &[$t]| {
                let c = p[0].cos();
                p[0].sin() * 0.6 + c * c
            };
            check("windowed", &value, &[t], &[g]);
        }
    }};
}

#[test]
fn sine_and_cosine_of_one_value_agree_with_finite_differences() {
    check_all!(p64, f64, 1e-6);
    check_all!(p32, f32, 2e-2);
}
