//! Calls between `#[tape]` functions that return arrays and `Vec`s: the
//! caller's reverse seeds the callee's with the adjoint of the array it
//! got (a vector-Jacobian product through the call), and forward mode
//! follows the call through the callee's `_tangent`. Each gradient and
//! tangent against central finite differences of the primal at several
//! points, in `f64` and `f32`.
#![deny(warnings)]

macro_rules! programs {
    ($m:ident, $t:ty) => {
        pub mod $m {
            use mica::tape;

            /// One step of a damped oscillator: an array out.
            #[tape(tangent)]
            pub fn step(#[tracked] s: &[$t; 2], #[tracked] c: $t) -> [$t; 2] {
                [s[0] + 0.1 * s[1] * s[1], s[1] - 0.1 * c * s[0].sin()]
            }

            /// A `Vec` out, by an iterator chain.
            #[tape(tangent)]
            pub fn squares(#[tracked] x: &[$t]) -> Vec<$t> {
                x.iter().map(|v| v * v).collect()
            }

            /// Two calls in a row, the second fed the first's array, and
            /// both results read after.
            #[tape(tangent)]
            pub fn twice(#[tracked] s0: &[$t; 2], #[tracked] c: $t) -> $t {
                let a = step(s0, c);
                let b = step(&a, c * c);
                b[0] * b[0] + b[1] * a[1]
            }

            /// A simulation: the state replaced by the step's result in a
            /// loop, a typed `let`, and an element of a call read directly.
            #[tape(tangent, jacobian)]
            pub fn simulate(#[tracked] s0: &[$t; 2], #[tracked] c: $t) -> $t {
                let mut s = *s0;
                for k in 0..6 {
                    s = step(&s, c);
                    if s[0] > 2.0 {
                        s[0] *= 0.5;
                    }
                    let t: [$t; 2] = step(&s, 0.5 * k as $t);
                    s[1] += 0.1 * t[0];
                }
                s[0] * s[0] + s[1] + step(&s, c)[1]
            }

            /// A scalar from a call, swapped with another (`&mut a` is
            /// no sign of an array).
            #[tape]
            pub fn swapped(#[tracked] s: &[$t; 2], #[tracked] c: $t) -> $t {
                let mut a = twice(s, c);
                let mut b = s[0].sin();
                for _ in 0..3 {
                    std::mem::swap(&mut a, &mut b);
                    b += a * 0.5;
                }
                a * b
            }

            /// A `Vec` result walked by `.iter()` and indexed.
            #[tape(tangent)]
            pub fn weighted(#[tracked] x: &[$t]) -> $t {
                let y = squares(x);
                let mut t = 0.0;
                for (i, v) in y.iter().enumerate() {
                    t += v * (i as $t + 1.0) + y[0] * x[i];
                }
                let z = [y[0], y[1]];
                t + step(&z, 1.0)[0]
            }
        }
    };
}

programs!(f64s, f64);
programs!(f32s, f32);

/// Points of dimension `n` spread over [-1.1, 1.3].
fn points(n: usize) -> Vec<Vec<f64>> {
    (0..4)
        .map(|c| {
            (0..n)
                .map(|i| ((i * 5 + c * 7 + 2) % 9) as f64 / 8.0 * 2.4 - 1.1)
                .collect()
        })
        .collect()
}

fn close(what: &str, a: f64, b: f64, rel: f64) {
    assert!(
        (a - b).abs() <= rel * 1f64.max(a.abs()).max(b.abs()),
        "{what}: {a} vs {b}"
    );
}

macro_rules! checks {
    ($c:ident, $m:ident, $t:ty, $h:expr, $rel:expr) => {
        mod $c {
            use super::{close, points};
            use crate::$m as p;
            type T = $t;

            /// Central differences of `f` at `x`, one per coordinate.
            fn fd(f: &dyn Fn(&[f64]) -> f64, x: &[f64]) -> Vec<f64> {
                (0..x.len())
                    .map(|i| {
                        let (mut a, mut b) = (x.to_vec(), x.to_vec());
                        a[i] += $h;
                        b[i] -= $h;
                        (f(&a) - f(&b)) / (2.0 * $h)
                    })
                    .collect()
            }

            fn state(x: &[f64]) -> ([T; 2], T) {
                ([x[0] as T, x[1] as T], x[2] as T)
            }

            #[test]
            fn gradients_through_array_calls() {
                for x in points(3) {
                    for (name, f, g) in [
                        (
                            "twice",
                            p::twice as fn(&[T; 2], T) -> T,
                            p::twice_grad as fn(&[T; 2], T) -> (T, ([T; 2], T)),
                        ),
                        ("simulate", p::simulate, p::simulate_grad),
                        ("swapped", p::swapped, p::swapped_grad),
                    ] {
                        let (s, c) = state(&x);
                        let (_, (gs, gc)) = g(&s, c);
                        let want = fd(
                            &|y: &[f64]| {
                                let (s, c) = state(y);
                                f(&s, c) as f64
                            },
                            &x,
                        );
                        let got = [gs[0] as f64, gs[1] as f64, gc as f64];
                        for i in 0..3 {
                            close(&format!("{name} ∂{i} at {x:?}"), got[i], want[i], $rel);
                        }
                        // forward mode along each axis: the same slopes
                        for (i, want) in want.iter().enumerate() {
                            let mut d = [0.0 as T; 3];
                            d[i] = 1.0;
                            let (_, t) = match name {
                                "twice" => p::twice_tangent(&s, c, &[d[0], d[1]], d[2]),
                                "simulate" => p::simulate_tangent(&s, c, &[d[0], d[1]], d[2]),
                                _ => continue,
                            };
                            close(
                                &format!("{name} tangent {i} at {x:?}"),
                                t as f64,
                                *want,
                                $rel,
                            );
                        }
                    }
                    // the Jacobian's one row is the gradient
                    let (s, c) = state(&x);
                    let (_, j) = p::simulate_jacobian(&s, c);
                    let (_, (gs, gc)) = p::simulate_grad(&s, c);
                    for (k, g) in [gs[0], gs[1], gc].iter().enumerate() {
                        close("jacobian row", j[0][k] as f64, *g as f64, $rel);
                    }
                }
            }

            #[test]
            fn gradients_through_vec_calls() {
                for x in points(4) {
                    let xs: Vec<T> = x.iter().map(|v| *v as T).collect();
                    let (_, g) = p::weighted_grad(&xs);
                    let want = fd(
                        &|y: &[f64]| {
                            let ys: Vec<T> = y.iter().map(|v| *v as T).collect();
                            p::weighted(&ys) as f64
                        },
                        &x,
                    );
                    for i in 0..4 {
                        close(
                            &format!("weighted ∂{i} at {x:?}"),
                            g[i] as f64,
                            want[i],
                            $rel,
                        );
                    }
                    let v: Vec<T> = (0..4).map(|i| [0.5, -1.0, 0.25, 2.0][i]).collect();
                    let (_, t) = p::weighted_tangent(&xs, &v);
                    let along: f64 = (0..4).map(|i| want[i] * v[i] as f64).sum();
                    close(&format!("weighted tangent at {x:?}"), t as f64, along, $rel);
                }
            }
        }
    };
}

checks!(check_f64, f64s, f64, 1e-6, 1e-6);
checks!(check_f32, f32s, f32, 1e-2, 2e-2);

/// RK4 as it is written with helpers that give arrays: each stage's
/// argument bound first, its type written, as the error for an array
/// passed straight to another call asks
/// (`tests/ui/fail/array_call_passed_straight.rs`).
mod stages {
    use mica::tape;

    #[tape]
    pub fn deriv(#[tracked] s: [f64; 2], #[tracked] k: f64) -> [f64; 2] {
        [s[1], -k * s[0] - 0.1 * s[1]]
    }

    #[tape]
    pub fn axpy(a: f64, #[tracked] x: [f64; 2], #[tracked] y: [f64; 2]) -> [f64; 2] {
        [y[0] + a * x[0], y[1] + a * x[1]]
    }

    #[tape]
    pub fn rk4(#[tracked] k: f64, #[tracked] s0: [f64; 2], dt: f64, n: usize) -> f64 {
        let mut s = s0;
        for _ in 0..n {
            let k1 = deriv(s, k);
            let t2: [f64; 2] = axpy(0.5 * dt, k1, s);
            let k2 = deriv(t2, k);
            let t3: [f64; 2] = axpy(0.5 * dt, k2, s);
            let k3 = deriv(t3, k);
            let t4: [f64; 2] = axpy(dt, k3, s);
            let k4 = deriv(t4, k);
            for i in 0..2 {
                s[i] += dt / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
            }
        }
        s[0] * s[0] + s[1]
    }
}

#[test]
fn rk4_stages_bound_by_typed_lets() {
    for at in [[2.0, 1.0, 0.0], [0.5, -0.3, 0.8], [3.0, 0.2, -1.1]] {
        let (_, (gk, gs)) = stages::rk4_grad(at[0], [at[1], at[2]], 0.01, 100);
        let f = |v: &[f64]| stages::rk4(v[0], [v[1], v[2]], 0.01, 100);
        let h = 1e-6;
        let claimed = [gk, gs[0], gs[1]];
        for (j, c) in claimed.iter().enumerate() {
            let (mut p, mut m) = (at, at);
            p[j] += h;
            m[j] -= h;
            let slope = (f(&p) - f(&m)) / (2.0 * h);
            assert!(
                (c - slope).abs() < 1e-6 * (1.0 + slope.abs()),
                "{j}: {c} vs {slope}"
            );
        }
    }
}
