//! `#[tape(tangent, jacobian, hvp)]`: forward mode, Jacobians and
//! Hessian-vector products, each against central finite differences (of
//! the primal for tangents and Jacobians, of `_grad` for Hessians) at
//! several points, in `f64` and `f32`; a tangent along a basis vector
//! against the matching column of the Jacobian and the matching slope of
//! the gradient; Hessians symmetric (`u·Hv = v·Hu`).
#![deny(warnings)]

macro_rules! programs {
    ($m:ident, $t:ty) => {
        pub mod $m {
            use mica::tape;

            /// Loops, a branch on a value with a slope, methods, a local
            /// array written in a loop and read in another.
            #[tape(tangent, jacobian, hvp)]
            pub fn mixed(#[tracked] x: &[$t; 3], k: $t) -> $t {
                let mut h = [0.0; 3];
                for i in 0..3 {
                    h[i] = (x[i] * k).sin() + x[(i + 1) % 3].powi(2);
                }
                let mut s = 0.0;
                for v in h.iter() {
                    if *v > 0.5 {
                        s += v.exp() / (1.0 + x[0] * x[0]);
                    } else {
                        s -= v * x[2].max(0.25);
                    }
                }
                s * s.sqrt().min(3.0) + x[1].tanh()
            }

            /// Rosenbrock's chained form over a slice.
            #[tape(tangent, jacobian, hvp)]
            pub fn rosenbrock(#[tracked] x: &[$t]) -> $t {
                let mut f = 0.0;
                for i in 0..x.len() - 1 {
                    let a = 1.0 - x[i];
                    let b = x[i + 1] - x[i] * x[i];
                    f += a * a + 100.0 * b * b;
                }
                f
            }

            /// Two tracked parameters, a scalar and an array; an early
            /// return and a `while` with `break`.
            #[tape(tangent, jacobian, hvp)]
            pub fn two(#[tracked] a: $t, #[tracked] w: &[$t; 2], y: $t) -> $t {
                if a > 10.0 {
                    return a * w[0];
                }
                let mut z = a;
                let mut n = 0;
                while n < 20 {
                    z = z * w[0] + w[1] * y;
                    if z.abs() > 4.0 {
                        break;
                    }
                    n += 1;
                }
                (z * a).atan2(w[1]) + (a / w[0]).ln_1p()
            }

            /// An array out: one step of a damped oscillator.
            #[tape(tangent, jacobian)]
            pub fn step(#[tracked] s: &[$t; 2], #[tracked] c: $t, dt: $t) -> [$t; 2] {
                let (x, v) = (s[0], s[1]);
                let a = -x - c * v * v.abs();
                [x + dt * v, v + dt * a]
            }

            /// A `Vec` out, built by pushes.
            #[tape(tangent, jacobian)]
            pub fn squares(#[tracked] x: &[$t]) -> Vec<$t> {
                let mut out = vec![0.0; x.len()];
                for (i, v) in x.iter().enumerate() {
                    out[i] = v * v * (i as $t + 1.0) + x[0].cos();
                }
                out
            }

            /// A tuple out.
            #[tape(tangent, jacobian)]
            pub fn polar(#[tracked] p: &[$t; 2]) -> ($t, [$t; 1]) {
                let r = p[0].hypot(p[1]);
                (r, [p[1].atan2(p[0])])
            }

            /// An iterator chain and a `loop` that breaks with a value.
            #[tape(tangent, hvp)]
            pub fn chained(#[tracked] x: &[$t; 4]) -> $t {
                let norm: $t = x.iter().map(|v| v * v).sum();
                let mut t = norm;
                let last = loop {
                    t = t * 0.5 + 1.0 / (1.0 + t);
                    if t < 2.0 {
                        break t * x[3];
                    }
                };
                last + x.iter().zip(x.iter()).map(|(a, b)| a * b.sin()).sum::<$t>()
            }

            /// The methods of whole steps and signs: `fract`, `copysign`,
            /// `midpoint`, `rem_euclid` (slopes to both sides), and
            /// `div_euclid` and `round_ties_even` (none).
            #[tape(tangent, hvp)]
            pub fn steps(#[tracked] x: &[$t; 2]) -> $t {
                let a = (x[0] * 3.0).fract() * x[1];
                let b = x[1].copysign(x[0] - 0.5) * x[0];
                let c = x[0].midpoint(x[1] * x[1]);
                let d = (x[0] * 5.0).rem_euclid(x[1] + 0.5) * x[0];
                let e = x[0].div_euclid(0.25) * x[1] + (x[1] * 4.0).round_ties_even();
                a + b + c * c + d + e
            }

            /// `break value` of a name the loop's body binds.
            #[tape(tangent, hvp)]
            pub fn exits(#[tracked] x: &[$t; 2]) -> $t {
                let mut i = 0;
                let t = loop {
                    let v = x[0].tanh() * (i as $t + 1.0);
                    if i + 1 >= 3 {
                        break v;
                    }
                    i += 1;
                };
                t * x[1] + t
            }

            /// A tuple out, fewer outputs than inputs: its Jacobian by
            /// reverse sweeps, each seeded with a basis tuple.
            #[tape(tangent, jacobian)]
            pub fn summary(#[tracked] p: &[$t; 3], #[tracked] w: $t) -> ($t, [$t; 1]) {
                (p[0] * w + p[1].sin(), [p[2] * p[0] * w])
            }

            /// Arrays out of an `if` and a `match`, read after.
            #[tape(tangent, hvp)]
            pub fn branchy(#[tracked] x: &[$t; 2], k: usize) -> $t {
                let h = if x[0] > 0.2 {
                    let v = x[1].tanh();
                    [v * x[0], 0.69]
                } else {
                    [0.71, (x[0] * 0.5).sin()]
                };
                let g = match k {
                    0 => [h[0] * h[1], x[1]],
                    _ => [x[0] * x[0], h[1].exp()],
                };
                h[0] * g[1] + h[1] * g[0] + x[1] * x[0] * g[0]
            }

            /// A recorded `Vec` made anew from constants, an iterator's
            /// `take(2)` inside an arm giving an array, a borrowed slice of
            /// constants rebound to the knob in a loop, a `Vec` copied from
            /// constants and then from the knob, an element by reference
            /// (`let r = &x[0];`), and a chain over a
            /// view's chunks of constants.
            #[tape(tangent, hvp)]
            pub fn copies(#[tracked] x: &[$t; 2]) -> $t {
                let h = [0.5, 0.25, 0.125];
                let mut v = x.to_vec();
                let mut t = v[0] * v[1];
                v = h[1..3].to_vec();
                t += v[0] * x[0] * x[0];
                // a borrowed slice of constants, rebound to the knob
                let data = vec![0.3, -0.2, 0.9];
                let mut seen: &[$t] = &data;
                for _ in 0..2 {
                    t += seen[1] * x[0];
                    seen = x;
                }
                t += seen[0] * seen[1] * seen[1];
                // a copy of constants, then of the knob
                let mut z = h[0..1].to_vec();
                t += z[0] * x[1];
                z = x[1..2].to_vec();
                t += z[0] * x[0];
                // an element by reference, and by `get`
                let r = &x[0];
                t += r * x[1] + (*r).sin() * r.cos();
                if let Some(second) = x.get(1) {
                    t += second * x[0];
                }
                if let Some(mut first) = x.get(0).copied() {
                    first *= x[1];
                    t += first;
                }
                t += x.get(1).copied().unwrap_or(0.5) * x[0];
                t += x.get(4).copied().unwrap_or(x[1] * x[1]);
                if let Some(both) = x.get(0..2) {
                    t += both[0] * both[1].sin();
                }
                if let Some(&third) = x.get(2) {
                    t += third;
                } else {
                    t += x[1].sin() * x[0];
                }
                let a = if x[0] > 0.2 {
                    [x[1], h.iter().skip(1).take(2).map(|c| c * x[0]).sum::<$t>()]
                } else {
                    [x[0], x[1] * x[1]]
                };
                let rest = &h[1..];
                let r = rest
                    .chunks(1)
                    .map(|c| c[0] * x[1])
                    .fold(0.7, |acc, y| acc * 0.5 + y);
                t + a[0] * a[1] + r * x[0]
            }

            /// Called by `outer`'s forward mode through its `_tangent`,
            /// and by its `hvp` through its own directional derivative.
            #[tape(tangent, hvp)]
            pub fn inner(#[tracked] x: &[$t; 2], #[tracked] k: $t) -> $t {
                (x[0] * k).sin() + x[1] * x[1] * k
            }

            /// Calls to another `#[tape(tangent, hvp)]` function: with a
            /// value that has a slope, and with a constant where the
            /// callee's parameter is tracked.
            #[tape(tangent, hvp)]
            pub fn outer(#[tracked] x: &[$t; 2], #[tracked] s: $t) -> $t {
                let a = inner(x, s) * s;
                let w = [x[1], x[0] * s];
                a + inner(&w, 2.0).exp()
            }

            /// Helpers of a `#[tape]` module are followed.
            #[tape]
            pub mod model {
                fn sigmoid(z: $t) -> $t {
                    1.0 / (1.0 + (-z).exp())
                }

                /// Walks its array by reference; called with a tracked
                /// array and with a constant one.
                fn walk(a: &[$t; 2]) -> $t {
                    let mut t: $t = 0.5;
                    for v in a.iter() {
                        t += (*v) * t.sin() * 0.1 + v * v * 0.05 + v.min(t) * 0.01;
                    }
                    t
                }

                /// Leaves by `return` from inside a loop.
                fn early(mut a: $t, s: &[$t; 2]) -> $t {
                    let mut i = 0;
                    loop {
                        if i >= 2 {
                            break;
                        }
                        if s[i] < -5.0 {
                            return s[0] * a;
                        }
                        i += 1;
                    }
                    a += a.sin() * 0.1;
                    a * 2.0
                }

                /// Returns a tuple, once from inside a loop.
                fn pair(a: $t) -> ($t, $t) {
                    let mut i = 0;
                    loop {
                        if a > 10.0 {
                            return (a, a);
                        }
                        if i >= 2 {
                            break;
                        }
                        i += 1;
                    }
                    (a * i as $t, a.sin())
                }

                #[tape(tangent)]
                pub fn paired(#[tracked] w: &[$t; 2], x: &[$t; 2]) -> $t {
                    let (p, q) = pair(w[0]);
                    let mut t = p * q + w[1];
                    // a tracked array walked beside a constant one
                    for (a, b) in w.iter().zip(x.iter()) {
                        t += a * (*b).tanh() + (*a) * b.min(0.5);
                    }
                    // the same name, tracked here
                    for b in w.iter() {
                        t += (*b) * 0.1;
                    }
                    t
                }

                #[tape(tangent, hvp)]
                pub fn early_use(#[tracked] w: &[$t; 2], x: &[$t; 2]) -> $t {
                    early(w[0], x) * w[1] + early(w[1], &[-6.0, 1.0])
                }

                #[tape(tangent, hvp)]
                pub fn loss(#[tracked] w: &[$t; 2], x: &[$t; 2], y: $t) -> $t {
                    let p = sigmoid(w[0] * x[0] + w[1] * x[1]);
                    -(y * p.ln() + (1.0 - y) * (1.0 - p).ln())
                }

                /// A helper inlined twice: over a tracked array and over
                /// a constant one.
                #[tape(tangent, hvp)]
                pub fn walked(#[tracked] w: &[$t; 2], x: &[$t; 2]) -> $t {
                    walk(w) * walk(x) + walk(&[x[0], w[1]])
                }
            }
        }
    };
}

programs!(f64s, f64);
programs!(f32s, f32);

/// A few points of dimension `n`, spread over [-1.2, 1.4].
fn points(n: usize, count: usize) -> Vec<Vec<f64>> {
    (0..count)
        .map(|c| {
            (0..n)
                .map(|i| ((i * 7 + c * 13 + 3) % 11) as f64 / 10.0 * 2.6 / 1.1 - 1.2)
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
            const H: f64 = $h;
            const REL: f64 = $rel;

            fn arr<const N: usize>(v: &[f64]) -> [T; N] {
                std::array::from_fn(|i| v[i] as T)
            }

            /// The tangent of `mixed` along `v`, against finite differences
            /// of the primal; along a basis vector, against the gradient.
            #[test]
            fn tangent_of_mixed() {
                for (c, at) in points(3, 4).iter().enumerate() {
                    let x: [T; 3] = arr(at);
                    let v: [T; 3] = arr(&points(3, 9)[c + 4]);
                    let k = 0.7 as T;
                    let (value, dot) = p::mixed_tangent(&x, k, &v);
                    close("value", value as f64, p::mixed(&x, k) as f64, 1e-6);
                    let shifted = |s: f64| {
                        let y: [T; 3] = std::array::from_fn(|i| x[i] + (s * v[i] as f64) as T);
                        p::mixed(&y, k) as f64
                    };
                    let fd = (shifted(H) - shifted(-H)) / (2.0 * H);
                    close("tangent", dot as f64, fd, REL);
                    let (_, g) = p::mixed_grad(&x, k);
                    for j in 0..3 {
                        let mut e = [0.0 as T; 3];
                        e[j] = 1.0;
                        let (_, d) = p::mixed_tangent(&x, k, &e);
                        close("basis tangent vs gradient", d as f64, g[j] as f64, 1e-4);
                    }
                }
            }

            /// `hvp` of `mixed`, `rosenbrock`, `two`, `chained` and the
            /// module's `loss`: the gradient as `_grad`'s, `H·v` against
            /// finite differences of `_grad` along `v`, and `u·Hv = v·Hu`.
            #[test]
            fn hessian_vector_products() {
                for (c, at) in points(3, 3).iter().enumerate() {
                    let x: [T; 3] = arr(at);
                    let v: [T; 3] = arr(&points(3, 9)[c + 3]);
                    let u: [T; 3] = arr(&points(3, 9)[c + 6]);
                    let k = 0.7 as T;
                    let (value, g, hv) = p::mixed_hvp(&x, k, &v);
                    let (value2, g2) = p::mixed_grad(&x, k);
                    close("value", value as f64, value2 as f64, 1e-6);
                    for j in 0..3 {
                        close("gradient", g[j] as f64, g2[j] as f64, 1e-5);
                    }
                    let grad_at = |s: f64| {
                        let y: [T; 3] = std::array::from_fn(|i| x[i] + (s * v[i] as f64) as T);
                        p::mixed_grad(&y, k).1
                    };
                    let (gp, gm) = (grad_at(H), grad_at(-H));
                    for j in 0..3 {
                        let fd = (gp[j] as f64 - gm[j] as f64) / (2.0 * H);
                        close("H·v", hv[j] as f64, fd, REL);
                    }
                    let (_, _, hu) = p::mixed_hvp(&x, k, &u);
                    let uhv: f64 = (0..3).map(|i| u[i] as f64 * hv[i] as f64).sum();
                    let vhu: f64 = (0..3).map(|i| v[i] as f64 * hu[i] as f64).sum();
                    close("symmetry", uhv, vhu, 1e-4);
                }
                for at in points(6, 3) {
                    let x: Vec<T> = at.iter().map(|&a| a as T).collect();
                    let v: Vec<T> = points(6, 5)[4].iter().map(|&a| a as T).collect();
                    let (_, g, hv) = p::rosenbrock_hvp(&x, &v);
                    let (_, g2) = p::rosenbrock_grad(&x);
                    let gp = p::rosenbrock_grad(
                        &x.iter()
                            .zip(&v)
                            .map(|(a, b)| a + (H as T) * b)
                            .collect::<Vec<T>>(),
                    )
                    .1;
                    let gm = p::rosenbrock_grad(
                        &x.iter()
                            .zip(&v)
                            .map(|(a, b)| a - (H as T) * b)
                            .collect::<Vec<T>>(),
                    )
                    .1;
                    for j in 0..6 {
                        close("gradient", g[j] as f64, g2[j] as f64, 1e-5);
                        // Rosenbrock is a quartic: the differences are exact
                        // up to rounding of the step
                        close("H·v", hv[j] as f64, (gp[j] - gm[j]) as f64 / (2.0 * H), REL);
                    }
                    // by hand: H·v of the chained Rosenbrock
                    let n = 6;
                    for j in 0..n {
                        let xf: Vec<f64> = x.iter().map(|&a| a as f64).collect();
                        let vf: Vec<f64> = v.iter().map(|&a| a as f64).collect();
                        let mut want = 0.0;
                        if j + 1 < n {
                            want += (2.0 + 1200.0 * xf[j] * xf[j] - 400.0 * xf[j + 1]) * vf[j]
                                - 400.0 * xf[j] * vf[j + 1];
                        }
                        if j > 0 {
                            want += 200.0 * vf[j] - 400.0 * xf[j - 1] * vf[j - 1];
                        }
                        close(
                            "H·v by hand",
                            hv[j] as f64,
                            want,
                            if REL > 1e-4 { 1e-3 } else { 1e-9 },
                        );
                    }
                }
                for at in points(3, 3) {
                    let (a, w, y) = (at[0] as T, [at[1] as T + 2.0, at[2] as T], 0.3 as T);
                    let (va, vw) = (0.4 as T, [-0.3 as T, 0.8]);
                    let (value, (ga, gw), (ha, hw)) = p::two_hvp(a, &w, y, va, &vw);
                    let (value2, (ga2, gw2)) = p::two_grad(a, &w, y);
                    close("value", value as f64, value2 as f64, 1e-6);
                    close("gradient", ga as f64, ga2 as f64, 1e-5);
                    close("gradient", gw[1] as f64, gw2[1] as f64, 1e-5);
                    let at_s = |s: f64| {
                        let s = s as T;
                        p::two_grad(a + s * va, &[w[0] + s * vw[0], w[1] + s * vw[1]], y).1
                    };
                    // the `break` on |z| > 4 is a kink that f32's steps can
                    // straddle: in f32, the f64 product (checked against
                    // finite differences at the same points) is the reference
                    let (_, _, (ha64, hw64)) = crate::f64s::two_hvp(
                        a as f64,
                        &[w[0] as f64, w[1] as f64],
                        y as f64,
                        va as f64,
                        &[vw[0] as f64, vw[1] as f64],
                    );
                    close("H·v (a) against f64", ha as f64, ha64, 1e-3);
                    close("H·v (w) against f64", hw[0] as f64, hw64[0], 1e-3);
                    close("H·v (w) against f64", hw[1] as f64, hw64[1], 1e-3);
                    if REL < 1e-4 {
                        let ((pa, pw), (ma, mw)) = (at_s(H), at_s(-H));
                        close("H·v (a)", ha as f64, (pa - ma) as f64 / (2.0 * H), REL);
                        for j in 0..2 {
                            close(
                                "H·v (w)",
                                hw[j] as f64,
                                (pw[j] - mw[j]) as f64 / (2.0 * H),
                                REL,
                            );
                        }
                    }
                }
                for at in points(4, 3) {
                    let x: [T; 4] = arr(&at);
                    let v: [T; 4] = arr(&points(4, 5)[4]);
                    let (_, g, hv) = p::chained_hvp(&x, &v);
                    let (_, g2) = p::chained_grad(&x);
                    let gp = p::chained_grad(&std::array::from_fn(|i| x[i] + (H as T) * v[i])).1;
                    let gm = p::chained_grad(&std::array::from_fn(|i| x[i] - (H as T) * v[i])).1;
                    for j in 0..4 {
                        close("gradient", g[j] as f64, g2[j] as f64, 1e-5);
                        close("H·v", hv[j] as f64, (gp[j] - gm[j]) as f64 / (2.0 * H), REL);
                    }
                    let (value, dot) = p::chained_tangent(&x, &v);
                    close("value", value as f64, p::chained(&x) as f64, 1e-6);
                    let gv: f64 = (0..4).map(|i| g[i] as f64 * v[i] as f64).sum();
                    close("tangent = g·v", dot as f64, gv, 1e-4);
                }
                // away from the steps of `fract`, `rem_euclid`,
                // `div_euclid` and `round_ties_even`, and from `copysign`'s
                // sign change
                for at in [[0.7, 1.3], [0.35, -0.8], [1.1, 0.45]] {
                    let x: [T; 2] = arr(&at);
                    let v = [0.6 as T, -0.3];
                    let (_, g, hv) = p::steps_hvp(&x, &v);
                    let (_, g2) = p::steps_grad(&x);
                    let gp = p::steps_grad(&std::array::from_fn(|i| x[i] + (H as T) * v[i])).1;
                    let gm = p::steps_grad(&std::array::from_fn(|i| x[i] - (H as T) * v[i])).1;
                    let fx = |d: [f64; 2]| {
                        let at =
                            |s: f64| p::steps(&std::array::from_fn(|i| x[i] + (s * d[i]) as T));
                        (at(H) - at(-H)) as f64 / (2.0 * H)
                    };
                    for j in 0..2 {
                        close("gradient", g[j] as f64, g2[j] as f64, 1e-5);
                        let mut d = [0.0; 2];
                        d[j] = 1.0;
                        close("gradient against differences", g[j] as f64, fx(d), REL);
                        close("H·v", hv[j] as f64, (gp[j] - gm[j]) as f64 / (2.0 * H), REL);
                    }
                    let (value, dot) = p::steps_tangent(&x, &v);
                    close("value", value as f64, p::steps(&x) as f64, 1e-6);
                    let gv: f64 = (0..2).map(|i| g[i] as f64 * v[i] as f64).sum();
                    close("tangent = g·v", dot as f64, gv, 1e-4);
                }
                let (w, xs, y) = ([0.3 as T, -0.8], [1.5 as T, 0.5], 1.0 as T);
                let v = [0.2 as T, 0.9];
                let (_, g, hv) = p::model::loss_hvp(&w, &xs, y, &v);
                let (_, g2) = p::model::loss_grad(&w, &xs, y);
                // the logistic loss' Hessian is s(1-s)·x·xᵀ
                let z = (w[0] * xs[0] + w[1] * xs[1]) as f64;
                let s = 1.0 / (1.0 + (-z).exp());
                let xv = xs[0] as f64 * v[0] as f64 + xs[1] as f64 * v[1] as f64;
                for j in 0..2 {
                    close("gradient", g[j] as f64, g2[j] as f64, 1e-5);
                    close(
                        "H·v by hand",
                        hv[j] as f64,
                        s * (1.0 - s) * xs[j] as f64 * xv,
                        1e-4,
                    );
                }
                let (_, dot) = p::model::loss_tangent(&w, &xs, y, &v);
                close("tangent", dot as f64, (s - y as f64) * xv, 1e-4);
                // a helper walking a tracked and a constant array
                for at in points(2, 3) {
                    let w: [T; 2] = [at[0] as T, at[1] as T];
                    let (_, g, hv) = p::model::walked_hvp(&w, &xs, &v);
                    let shift = |h: f64| [w[0] + (h as T) * v[0], w[1] + (h as T) * v[1]];
                    let gp = p::model::walked_grad(&shift(H), &xs).1;
                    let gm = p::model::walked_grad(&shift(-H), &xs).1;
                    let f = |h: f64| p::model::walked(&shift(h), &xs) as f64;
                    let (_, dot) = p::model::walked_tangent(&w, &xs, &v);
                    close(
                        "walked tangent",
                        dot as f64,
                        (f(H) - f(-H)) / (2.0 * H),
                        REL,
                    );
                    for j in 0..2 {
                        close(
                            "walked H·v",
                            hv[j] as f64,
                            (gp[j] - gm[j]) as f64 / (2.0 * H),
                            REL,
                        );
                        let gv = g[0] as f64 * v[0] as f64 + g[1] as f64 * v[1] as f64;
                        close("walked tangent = g·v", dot as f64, gv, 1e-4);
                    }
                }
            }

            /// Exits from loops and helpers: tangents against finite
            /// differences of the primal, H·v against those of `_grad`.
            #[test]
            fn exits_from_loops() {
                type F = fn(&[T; 2]) -> T;
                type G = fn(&[T; 2]) -> (T, [T; 2]);
                type D = fn(&[T; 2], &[T; 2]) -> (T, T);
                type Hv = fn(&[T; 2], &[T; 2]) -> (T, [T; 2], [T; 2]);
                let xs = [0.4 as T, -0.3];
                for at in points(2, 4) {
                    let x = [at[0] as T, at[1] as T];
                    let v = [0.6 as T, -0.4];
                    let shift = |h: f64| [x[0] + (h as T) * v[0], x[1] + (h as T) * v[1]];
                    let cases: [(&str, F, G, D, Hv); 1] = [(
                        "exits",
                        p::exits,
                        p::exits_grad,
                        p::exits_tangent,
                        p::exits_hvp,
                    )];
                    for (name, f, g, d, hv) in cases {
                        let (_, dot) = d(&x, &v);
                        let fd = (f(&shift(H)) - f(&shift(-H))) as f64 / (2.0 * H);
                        close(name, dot as f64, fd, REL);
                        let (_, _, h) = hv(&x, &v);
                        let (gp, gm) = (g(&shift(H)).1, g(&shift(-H)).1);
                        for j in 0..2 {
                            close(name, h[j] as f64, (gp[j] - gm[j]) as f64 / (2.0 * H), REL);
                        }
                    }
                    let (_, dot) = p::model::paired_tangent(&x, &xs, &v);
                    let f = |h: f64| p::model::paired(&shift(h), &xs) as f64;
                    close(
                        "paired tangent",
                        dot as f64,
                        (f(H) - f(-H)) / (2.0 * H),
                        REL,
                    );
                    let (_, dot) = p::model::early_use_tangent(&x, &xs, &v);
                    let f = |h: f64| p::model::early_use(&shift(h), &xs) as f64;
                    close("early tangent", dot as f64, (f(H) - f(-H)) / (2.0 * H), REL);
                    let (_, _, h) = p::model::early_use_hvp(&x, &xs, &v);
                    let gp = p::model::early_use_grad(&shift(H), &xs).1;
                    let gm = p::model::early_use_grad(&shift(-H), &xs).1;
                    for j in 0..2 {
                        close(
                            "early H·v",
                            h[j] as f64,
                            (gp[j] - gm[j]) as f64 / (2.0 * H),
                            REL,
                        );
                    }
                }
            }

            /// `hvp` through calls: against finite differences of `_grad`.
            #[test]
            fn hvp_through_calls() {
                for at in points(3, 4) {
                    let (x, s) = ([at[0] as T, at[1] as T], at[2] as T);
                    let (vx, vs) = ([0.3 as T, -0.7], 0.5 as T);
                    let (value, g, hv) = p::outer_hvp(&x, s, &vx, vs);
                    close("value", value as f64, p::outer(&x, s) as f64, 1e-6);
                    let (_, g2) = p::outer_grad(&x, s);
                    close("gradient", g.1 as f64, g2.1 as f64, 1e-5);
                    let shift = |h: f64| {
                        let h = h as T;
                        ([x[0] + h * vx[0], x[1] + h * vx[1]], s + h * vs)
                    };
                    let ((xp, sp), (xm, sm)) = (shift(H), shift(-H));
                    let (gp, gm) = (p::outer_grad(&xp, sp).1, p::outer_grad(&xm, sm).1);
                    for j in 0..2 {
                        let fd = (gp.0[j] - gm.0[j]) as f64 / (2.0 * H);
                        close("H·v through calls", hv.0[j] as f64, fd, REL);
                    }
                    close(
                        "H·v through calls",
                        hv.1 as f64,
                        (gp.1 - gm.1) as f64 / (2.0 * H),
                        REL,
                    );
                }
            }

            /// `hvp` of arrays out of branches: against finite
            /// differences of `_grad`, on both sides of the branch.
            #[test]
            fn hvp_of_arrays_out_of_branches() {
                for at in points(2, 4) {
                    for k in 0..2 {
                        let x = [at[0] as T, at[1] as T];
                        let v = [0.6 as T, -0.4];
                        let (_, g, hv) = p::branchy_hvp(&x, k, &v);
                        let shift = |h: f64| [x[0] + (h as T) * v[0], x[1] + (h as T) * v[1]];
                        let gp = p::branchy_grad(&shift(H), k).1;
                        let gm = p::branchy_grad(&shift(-H), k).1;
                        let (_, dot) = p::branchy_tangent(&x, k, &v);
                        let gv = g[0] as f64 * v[0] as f64 + g[1] as f64 * v[1] as f64;
                        close("branchy tangent = g·v", dot as f64, gv, 1e-4);
                        for j in 0..2 {
                            let fd = (gp[j] - gm[j]) as f64 / (2.0 * H);
                            close("branchy H·v", hv[j] as f64, fd, REL);
                        }
                    }
                }
            }

            /// `hvp` and the tangent of `copies`: against finite
            /// differences of `_grad`, on both sides of its branch.
            #[test]
            fn hvp_of_copies_and_chains() {
                for at in points(2, 4) {
                    let x = [at[0] as T, at[1] as T];
                    let v = [0.6 as T, -0.4];
                    let (value, g, hv) = p::copies_hvp(&x, &v);
                    assert_eq!(value, p::copies(&x));
                    let shift = |h: f64| [x[0] + (h as T) * v[0], x[1] + (h as T) * v[1]];
                    let gp = p::copies_grad(&shift(H)).1;
                    let gm = p::copies_grad(&shift(-H)).1;
                    let (_, dot) = p::copies_tangent(&x, &v);
                    let gv = g[0] as f64 * v[0] as f64 + g[1] as f64 * v[1] as f64;
                    close("copies tangent = g·v", dot as f64, gv, 1e-4);
                    // the gradient itself, against finite differences
                    let fp = p::copies(&shift(H)) as f64;
                    let fm = p::copies(&shift(-H)) as f64;
                    close("copies g·v", gv, (fp - fm) / (2.0 * H), 1e-3);
                    for j in 0..2 {
                        let fd = (gp[j] - gm[j]) as f64 / (2.0 * H);
                        close("copies H·v", hv[j] as f64, fd, REL);
                    }
                }
            }

            /// Forward mode through calls: the tangent along each basis
            /// vector is the matching slope of the gradient, and along a
            /// direction matches finite differences.
            #[test]
            fn tangent_through_calls() {
                for at in points(3, 4) {
                    let (x, s) = ([at[0] as T, at[1] as T], at[2] as T);
                    let (_, (gx, gs)) = p::outer_grad(&x, s);
                    let basis = [
                        ([1.0 as T, 0.0], 0.0 as T),
                        ([0.0, 1.0], 0.0),
                        ([0.0, 0.0], 1.0),
                    ];
                    let want = [gx[0], gx[1], gs];
                    for ((dx, ds), g) in basis.iter().zip(want) {
                        let (value, d) = p::outer_tangent(&x, s, dx, *ds);
                        close("value", value as f64, p::outer(&x, s) as f64, 1e-6);
                        close("basis tangent vs gradient", d as f64, g as f64, 1e-4);
                    }
                    let (dx, ds) = ([0.3 as T, -0.7], 0.5 as T);
                    let f = |h: f64| {
                        let h = h as T;
                        p::outer(&[x[0] + h * dx[0], x[1] + h * dx[1]], s + h * ds) as f64
                    };
                    let (_, d) = p::outer_tangent(&x, s, &dx, ds);
                    close("tangent", d as f64, (f(H) - f(-H)) / (2.0 * H), REL);
                }
            }

            /// Jacobians of array, `Vec`, tuple and scalar outputs against
            /// finite differences of the primal; tangents along basis
            /// vectors are their columns.
            #[test]
            fn jacobians() {
                for at in points(4, 3) {
                    let (x, w) = ([at[0] as T, at[1] as T, at[2] as T], at[3] as T);
                    let (out, j) = p::summary_jacobian(&x, w);
                    assert_eq!(out, p::summary(&x, w));
                    assert_eq!((j.len(), j[0].len()), (2, 4));
                    let f = |y: [f64; 4]| {
                        let (a, b) = p::summary(&[y[0] as T, y[1] as T, y[2] as T], y[3] as T);
                        [a as f64, b[0] as f64]
                    };
                    let base = [at[0], at[1], at[2], at[3]];
                    for col in 0..4 {
                        let (mut u, mut d) = (base, base);
                        u[col] += H;
                        d[col] -= H;
                        for row in 0..2 {
                            let fd = (f(u)[row] - f(d)[row]) / (2.0 * H);
                            close("tuple Jacobian", j[row][col] as f64, fd, REL);
                        }
                    }
                }
                for at in points(3, 3) {
                    let (s, c, dt) = ([at[0] as T, at[1] as T], at[2] as T, 0.1 as T);
                    let (out, j) = p::step_jacobian(&s, c, dt);
                    assert_eq!(out, p::step(&s, c, dt));
                    assert_eq!((j.len(), j[0].len()), (2, 3));
                    let f = |x: [f64; 3]| p::step(&[x[0] as T, x[1] as T], x[2] as T, dt);
                    let base = [s[0] as f64, s[1] as f64, c as f64];
                    for col in 0..3 {
                        let (mut up, mut down) = (base, base);
                        up[col] += H;
                        down[col] -= H;
                        let (fu, fd) = (f(up), f(down));
                        for row in 0..2 {
                            close(
                                "J",
                                j[row][col] as f64,
                                (fu[row] - fd[row]) as f64 / (2.0 * H),
                                REL,
                            );
                        }
                    }
                    // (two outputs, three inputs: J by reverse sweeps, its
                    // columns equal to the tangents' to rounding)
                    let (_, ds) = p::step_tangent(&s, c, dt, &[0.0, 1.0], 0.0);
                    let (_, dc) = p::step_tangent(&s, c, dt, &[0.0, 0.0], 1.0);
                    for row in 0..2 {
                        close("tangent = column", ds[row] as f64, j[row][1] as f64, 1e-5);
                        close("tangent = column", dc[row] as f64, j[row][2] as f64, 1e-5);
                    }
                    // `_backward` with a seed adds seedᵀ·J; a basis seed
                    // gives J's row
                    let seed = [0.3 as T, -0.7];
                    let (mut d_s, mut d_c) = ([0.0 as T; 2], 0.0 as T);
                    let out = p::step_backward(&s, c, dt, &seed, &mut d_s, &mut d_c);
                    assert_eq!(out, p::step(&s, c, dt));
                    let got = [d_s[0], d_s[1], d_c];
                    for col in 0..3 {
                        let want =
                            seed[0] as f64 * j[0][col] as f64 + seed[1] as f64 * j[1][col] as f64;
                        close("seedᵀ·J", got[col] as f64, want, 1e-4);
                    }
                    for row in 0..2 {
                        let mut e = [0.0 as T; 2];
                        e[row] = 1.0;
                        let (mut d_s, mut d_c) = ([0.0 as T; 2], 0.0 as T);
                        p::step_backward(&s, c, dt, &e, &mut d_s, &mut d_c);
                        for (col, g) in [d_s[0], d_s[1], d_c].into_iter().enumerate() {
                            close("basis seed = row", g as f64, j[row][col] as f64, 1e-5);
                        }
                    }
                }
                for at in points(4, 3) {
                    let x: Vec<T> = at.iter().map(|&a| a as T).collect();
                    let (out, j) = p::squares_jacobian(&x);
                    assert_eq!(out, p::squares(&x));
                    for col in 0..4 {
                        let mut up = x.clone();
                        up[col] += H as T;
                        let mut down = x.clone();
                        down[col] -= H as T;
                        let (fu, fd) = (p::squares(&up), p::squares(&down));
                        for row in 0..4 {
                            close(
                                "J",
                                j[row][col] as f64,
                                (fu[row] - fd[row]) as f64 / (2.0 * H),
                                REL,
                            );
                        }
                    }
                    let seed: Vec<T> = vec![1.0, -0.5, 0.25, 2.0];
                    let mut d_x = vec![0.0 as T; 4];
                    let out = p::squares_backward(&x, &seed, &mut d_x);
                    assert_eq!(out, p::squares(&x));
                    for col in 0..4 {
                        let want: f64 = (0..4).map(|r| seed[r] as f64 * j[r][col] as f64).sum();
                        close("seedᵀ·J", d_x[col] as f64, want, 1e-4);
                    }
                }
                for at in points(2, 3) {
                    let q = [at[0] as T + 0.1, at[1] as T];
                    let (_, j) = p::polar_jacobian(&q);
                    let r2 = (q[0] * q[0] + q[1] * q[1]) as f64;
                    let r = r2.sqrt();
                    close("dr/dx", j[0][0] as f64, q[0] as f64 / r, 1e-5);
                    close("dr/dy", j[0][1] as f64, q[1] as f64 / r, 1e-5);
                    close("dθ/dx", j[1][0] as f64, -(q[1] as f64) / r2, 1e-5);
                    close("dθ/dy", j[1][1] as f64, q[0] as f64 / r2, 1e-5);
                    let mut d_q = [0.0 as T; 2];
                    p::polar_backward(&q, (2.0, [-1.0]), &mut d_q);
                    for col in 0..2 {
                        let want = 2.0 * j[0][col] as f64 - j[1][col] as f64;
                        close("seedᵀ·J", d_q[col] as f64, want, 1e-5);
                    }
                }
                // a scalar output's Jacobian is its gradient, as one row
                let x: Vec<T> = vec![0.5, -0.25, 1.0];
                let (_, j) = p::rosenbrock_jacobian(&x);
                let (_, g) = p::rosenbrock_grad(&x);
                assert_eq!(j, vec![g]);
            }
        }
    };
}

checks!(check_f64s, f64s, f64, 1e-6, 1e-6);
checks!(check_f32s, f32s, f32, 3e-3, 3e-2);

/// Generic over the float, with an early return and tuples out of
/// branches: its `hvp` against finite differences of `_grad` in `f64`, and
/// in `f32` against the `f64` one.
#[mica::tape(tangent, hvp)]
pub fn generic_tuple<T: mica::Real>(#[tracked] x: &[T; 2]) -> T {
    // an early return: what follows is a branch of its own
    for v in x.iter() {
        if *v > T::from(5.0).unwrap() {
            return *v * *v;
        }
    }
    let (a, b) = if x[0] > T::zero() {
        (x[0] * x[1], x[1].sin())
    } else {
        (x[1], x[0] * x[0])
    };
    // constants out of a branch on a tracked value
    let (c, d) = if x[1] > T::zero() {
        (T::from(0.27).unwrap(), T::from(0.5).unwrap())
    } else {
        (T::from(-0.7).unwrap(), T::one())
    };
    a * b + x[0] * a * c + d * x[1] * x[1]
}

#[test]
fn hvp_of_a_generic_tuple_out_of_a_branch() {
    let h = 1e-6;
    for x in [[0.7, -0.4], [-0.3, 0.9]] {
        let v = [0.5, 1.5];
        let (_, _, hv) = generic_tuple_hvp::<f64>(&x, &v);
        let gp = generic_tuple_grad(&[x[0] + h * v[0], x[1] + h * v[1]]).1;
        let gm = generic_tuple_grad(&[x[0] - h * v[0], x[1] - h * v[1]]).1;
        for j in 0..2 {
            close("generic H·v", hv[j], (gp[j] - gm[j]) / (2.0 * h), 1e-6);
        }
        let (_, _, hv32) = generic_tuple_hvp::<f32>(&[x[0] as f32, x[1] as f32], &[0.5, 1.5]);
        for j in 0..2 {
            close("generic H·v, f32", hv32[j] as f64, hv[j], 1e-4);
        }
    }
}
