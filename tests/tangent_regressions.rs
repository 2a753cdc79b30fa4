//! Forward-mode programs that once went wrong, each checked against the
//! primal's value and the gradient read along a direction.
#![deny(warnings)]
#![allow(clippy::all)]

mod fd;

/// A `loop` whose `break` value has no slope while its body changes a
/// recorded name: the tangent once shaped the zero tangent of `t8` by
/// running the loop again (seed 95811034, program 80).
#[mica::tape(tangent, hvp)]
pub fn loop_value(
    #[tracked] v0: &[f64],
    #[tracked] v1: &[f64],
    #[tracked] w2: &[f64; 3],
    cp: f64,
) -> f64 {
    let mut t4 = 0.5_f64;
    let vv6 = vec![0.37_f64, t4.tanh()];
    let t7 = v0[0];
    let mut i9 = 0;
    let t8 = loop {
        t4 += t4.tanh().sinh().sin() * 0.1_f64;
        if i9 + 1 >= 2 || t4.tanh().mul_add(t7, v1[1].tanh()) < 0.13_f64.tanh().tan() {
            break -cp;
        }
        i9 += 1;
    };
    for (_a13, _a14) in w2.iter().zip(vv6.iter()) {
        let t8 = t8 * 0.5_f64 + t7;
        t4 += t8.tanh() * 0.1_f64;
    }
    ((t4 + vv6[0]) + t7) + t8
}

#[test]
fn a_loop_value_without_a_slope() {
    for (v0, v1, cp) in [
        ([0.85, -1.2], [-1.25, 1.35], -0.09),
        ([0.1, 0.4], [0.3, -0.2], 0.5),
    ] {
        let w2 = [-0.94, -1.12, -0.41];
        let (d0, d1, dw) = ([0.3, -0.5], [0.7, 0.2], [0.1, -0.4, 0.9]);
        let (y, t) = loop_value_tangent(&v0, &v1, &w2, cp, &d0, &d1, &dw);
        fd::close("value", y, loop_value(&v0, &v1, &w2, cp), 1e-12);
        let (_, (g0, g1, gw)) = loop_value_grad(&v0, &v1, &w2, cp);
        let along = g0[0] * d0[0]
            + g0[1] * d0[1]
            + g1[0] * d1[0]
            + g1[1] * d1[1]
            + gw[0] * dw[0]
            + gw[1] * dw[1]
            + gw[2] * dw[2];
        fd::close("tangent", t, along, 1e-9);
        let (y2, _, _) = loop_value_hvp(&v0, &v1, &w2, cp, &d0, &d1, &dw);
        fd::close("hvp value", y2, y, 1e-12);
    }
}

/// A copy of an array of constants that a helper changed, taken in a
/// `let mut` the body later gives a recorded copy: its zero tangent once
/// borrowed the copy after the copy had moved into the name, and the
/// function did not build (seed 272750206, program 182).
macro_rules! copied_after_a_call {
    ($m:ident, $t:ty) => {
        #[mica::tape]
        pub mod $m {
            pub fn scaled(y: &mut [$t; 3], v: [$t; 3]) -> $t {
                y[0] += 0.25;
                v[0] * 2.0
            }

            #[tape(tangent)]
            pub fn f(#[tracked] w: &[$t; 3]) -> $t {
                let mut h: [$t; 3] = [0.0; 3];
                let mut t = scaled(&mut h, *w);
                let mut v = h[0..3].to_vec();
                t += v[2].tanh() + v[0];
                v = w.to_vec();
                t += v[1].tanh();
                t
            }
        }
    };
}
copied_after_a_call!(copied64, f64);
copied_after_a_call!(copied32, f32);

#[test]
fn a_constant_copy_given_a_recorded_one() {
    for (w, d) in [
        ([0.3_f64, -0.8, 1.1], [1.0_f64, 0.5, -2.0]),
        ([-1.2, 0.4, 0.0], [0.2, -1.5, 0.7]),
    ] {
        // f = 2 w₀ + 0.25 + tanh w₁: slope 2 d₀ + (1 − tanh² w₁) d₁
        let along = 2.0 * d[0] + (1.0 - w[1].tanh().powi(2)) * d[1];
        let (y, t) = copied64::f_tangent(&w, &d);
        fd::close("value", y, 2.0 * w[0] + 0.25 + w[1].tanh(), 1e-12);
        fd::close("tangent", t, along, 1e-12);
        let e = 1e-6;
        let up = [w[0] + e * d[0], w[1] + e * d[1], w[2] + e * d[2]];
        let down = [w[0] - e * d[0], w[1] - e * d[1], w[2] - e * d[2]];
        fd::close(
            "tangent by differences",
            t,
            (copied64::f(&up) - copied64::f(&down)) / (2.0 * e),
            1e-6,
        );
        let (w32, d32) = (w.map(|x| x as f32), d.map(|x| x as f32));
        let (y32, t32) = copied32::f_tangent(&w32, &d32);
        fd::close("value f32", y32, y as f32, 1e-6);
        fd::close("tangent f32", t32, along as f32, 1e-5);
    }
}

/// A helper's `if let Some(e) = c.get(1)` over chunks, inlined twice:
/// once over the knob, its scalar parameter given a constant that the
/// loop then carries as a recorded value (the reverse sweep once refused
/// it as a value it could not follow: seed 702404680, program 74), and
/// once over constants, where the element's name holds a slope in the
/// other copy (its tangent was then read unbound: the same seed, program
/// 138); and `get(0).copied().unwrap_or(…)` into a scalar parameter
/// the loop carries (refused as program 74 was: the same seed, program 35).
macro_rules! got_in_a_helper {
    ($m:ident, $t:ty) => {
        #[mica::tape]
        pub mod $m {
            pub fn tally(a: &[$t; 3], mut acc: $t) -> $t {
                for c in a.chunks(2) {
                    if let Some(e) = c.get(1) {
                        acc += e.tanh() * acc;
                    } else {
                        acc -= 0.03;
                    }
                }
                acc
            }

            pub fn lead(a: &[$t; 3], mut acc: $t) -> $t {
                for _ in 0..2 {
                    acc *= 0.5;
                    acc += a.get(0).copied().unwrap_or(0.07);
                }
                acc
            }

            #[tape(tangent, hvp)]
            pub fn f(#[tracked] w: &[$t; 3]) -> $t {
                tally(w, 0.5)
                    + tally(&[0.2, 0.4, -0.1], w[0])
                    + lead(w, 0.25)
                    + lead(&[0.3, 0.1, 0.2], w[2])
            }
        }
    };
}
got_in_a_helper!(got64, f64);
got_in_a_helper!(got32, f32);

#[test]
fn an_element_by_get_in_an_inlined_helper() {
    for (w, d) in [
        ([0.3_f64, -0.8, 1.1], [1.0_f64, 0.5, -2.0]),
        ([-1.2, 0.4, 0.0], [0.2, -1.5, 0.7]),
    ] {
        // f = ½ (1 + tanh w₁) − 0.03 + w₀ (1 + tanh 0.4) − 0.03
        //   + (1/16 + 1.5 w₀) + (0.25 w₂ + 0.45)
        let value = 0.5 * (1.0 + w[1].tanh()) + w[0] * (1.0 + 0.4_f64.tanh()) - 0.06
            + 0.0625
            + 1.5 * w[0]
            + 0.25 * w[2]
            + 0.45;
        let sech2 = 1.0 - w[1].tanh().powi(2);
        let slope = [2.5 + 0.4_f64.tanh(), 0.5 * sech2, 0.25];
        // the only second derivative: ∂²f/∂w₁² = −tanh w₁ sech² w₁
        let hv = [0.0, -w[1].tanh() * sech2 * d[1], 0.0];
        let along: f64 = (0..3).map(|i| slope[i] * d[i]).sum();

        let (y, g) = got64::f_grad(&w);
        fd::close("value", y, value, 1e-12);
        for i in 0..3 {
            fd::close("slope", g[i], slope[i], 1e-12);
            let e = 1e-6;
            let (mut up, mut down) = (w, w);
            up[i] += e;
            down[i] -= e;
            fd::close(
                "slope by differences",
                g[i],
                (got64::f(&up) - got64::f(&down)) / (2.0 * e),
                1e-6,
            );
        }
        let (y, t) = got64::f_tangent(&w, &d);
        fd::close("tangent value", y, value, 1e-12);
        fd::close("tangent", t, along, 1e-12);
        let (_, _, h) = got64::f_hvp(&w, &d);
        for i in 0..3 {
            fd::close("H·v", h[i], hv[i], 1e-12);
        }

        let (w32, d32) = (w.map(|x| x as f32), d.map(|x| x as f32));
        let (y32, g32) = got32::f_grad(&w32);
        fd::close("value f32", y32, value as f32, 1e-5);
        for i in 0..3 {
            fd::close("slope f32", g32[i], slope[i] as f32, 1e-5);
        }
        let (_, t32) = got32::f_tangent(&w32, &d32);
        fd::close("tangent f32", t32, along as f32, 1e-5);
        let (_, _, h32) = got32::f_hvp(&w32, &d32);
        for i in 0..3 {
            fd::close("H·v f32", h32[i], hv[i] as f32, 1e-4);
        }
    }
}

/// A chain over the knob whose closure reads no element, inside a chain
/// over constants: a count of the knob's elements, with no slope. Forward
/// mode once took the length it asks for a read of the knob and refused
/// the outer chain (seed 20261205, program 217).
macro_rules! counted {
    ($m:ident, $t:ty) => {
        pub mod $m {
            #[mica::tape(tangent, hvp)]
            pub fn f(#[tracked] w: &[$t; 3]) -> $t {
                let h = [0.5, 0.25, 2.0];
                let c = h
                    .iter()
                    .map(|&v| w.iter().skip(1).map(|_| v).sum::<$t>())
                    .fold(0.0, <$t>::max);
                c * w[0] + w[1] * w[2]
            }
        }
    };
}
counted!(counted64, f64);
counted!(counted32, f32);

#[test]
fn a_count_of_the_knob_has_no_slope() {
    for (w, d) in [
        ([0.3_f64, -0.8, 1.1], [1.0_f64, 0.5, -2.0]),
        ([-1.2, 0.4, 0.0], [0.2, -1.5, 0.7]),
    ] {
        // c = max over h of 2 v = 4: f = 4 w₀ + w₁ w₂
        let value = 4.0 * w[0] + w[1] * w[2];
        let along = 4.0 * d[0] + d[1] * w[2] + w[1] * d[2];
        let hv = [0.0, d[2], d[1]];
        let (y, t) = counted64::f_tangent(&w, &d);
        fd::close("value", y, value, 1e-12);
        fd::close("tangent", t, along, 1e-12);
        let (_, g, h) = counted64::f_hvp(&w, &d);
        for i in 0..3 {
            fd::close("H·v", h[i], hv[i], 1e-12);
        }
        fd::close("slope", g[0], 4.0, 1e-12);
        let (w32, d32) = (w.map(|x| x as f32), d.map(|x| x as f32));
        let (y32, t32) = counted32::f_tangent(&w32, &d32);
        fd::close("value f32", y32, value as f32, 1e-5);
        fd::close("tangent f32", t32, along as f32, 1e-5);
        let (_, _, h32) = counted32::f_hvp(&w32, &d32);
        for i in 0..3 {
            fd::close("H·v f32", h32[i], hv[i] as f32, 1e-5);
        }
    }
}

/// A helper's chain, written as a loop before the helper was inlined, and
/// the caller's own chain: both loops' names were numbered from one, so
/// the helper's literal took the caller's recorded literal's name, and
/// forward mode, telling values apart by name, refused the helper's inner
/// chain as one with a slope (seed 7, program 282).
#[mica::tape]
pub mod numbered {
    pub fn spread(y: &mut [f64; 3], a: &[f64; 3]) -> f64 {
        let mut s = 0.0;
        for i in 0..2 {
            s += [i as f64 * 0.5, -0.56, -0.93]
                .iter()
                .skip(1)
                .map(|&v| {
                    a.iter()
                        .take(1)
                        .map(|&c| c)
                        .fold(v.tanh(), |acc, c| acc * 0.5 + c)
                        * (v + y[i]).tanh()
                })
                .fold(0.0, f64::max);
        }
        s
    }

    #[tape(tangent)]
    pub fn f(#[tracked] x: f64, #[tracked] z: f64) -> f64 {
        let mut h = [x.tanh(), 0.25, z * x];
        let s = spread(&mut h, &[-0.01, 0.3, 0.25]);
        let r = [0.5, 0.61, z]
            .iter()
            .zip(h.iter())
            .map(|(&_u, &_w)| x)
            .fold(h[1].tanh(), |acc, t| acc * 0.5 + t);
        s + r * z
    }
}

#[test]
fn a_helpers_chain_and_the_callers_keep_their_names_apart() {
    for (x, z) in [(0.3, 0.2), (-0.7, 1.1), (1.4, -0.6)] {
        let (y, t) = numbered::f_tangent(x, z, 1.0, 0.5);
        fd::close("value", y, numbered::f(x, z), 1e-12);
        let e = 1e-6;
        let by_differences =
            (numbered::f(x + e, z + 0.5 * e) - numbered::f(x - e, z - 0.5 * e)) / (2.0 * e);
        fd::close("tangent by differences", t, by_differences, 1e-6);
        let (_, (gx, gz)) = numbered::f_grad(x, z);
        fd::close("tangent = g·d", t, gx + 0.5 * gz, 1e-12);
    }
}

/// A `loop` left by `break` with a pair, taken apart where the loop is
/// bound: forward mode carried the pair as one tuple assigned in a branch,
/// which the reverse of forward mode (`hvp`) refused (seed 7, program 120).
#[mica::tape(tangent, hvp)]
pub fn loop_pair(#[tracked] x: &[f64; 2], n: usize) -> f64 {
    let mut i = 0;
    let mut y = x[0];
    let (a, b) = loop {
        y = 0.5 * y + x[1] * x[1];
        if i + 1 >= n || y > 10.0 {
            break (y * x[0], y * 0.25);
        }
        i += 1;
    };
    a * b + y
}

#[test]
fn a_loop_left_with_a_pair() {
    for (x, n) in [([0.7, -0.4], 1), ([1.2, 0.9], 3), ([-0.5, 1.5], 5)] {
        let d = [0.3, -0.8];
        let (y, t) = loop_pair_tangent(&x, n, &d);
        fd::close("value", y, loop_pair(&x, n), 1e-12);
        let (_, g) = loop_pair_grad(&x, n);
        fd::agrees(
            "gradient",
            &|v: &[f64]| loop_pair(&[v[0], v[1]], n),
            &x,
            &g,
            1e-6,
        );
        fd::close("tangent", t, g[0] * d[0] + g[1] * d[1], 1e-9);
        // the Hessian along d: the gradient's central difference along d
        let (y2, g2, hv) = loop_pair_hvp(&x, n, &d);
        fd::close("hvp value", y2, y, 1e-12);
        fd::same("hvp gradient", &g2, &g, 1e-12);
        let h = 1e-5;
        let up = loop_pair_grad(&[x[0] + h * d[0], x[1] + h * d[1]], n).1;
        let down = loop_pair_grad(&[x[0] - h * d[0], x[1] - h * d[1]], n).1;
        for k in 0..2 {
            fd::close("hvp", hv[k], (up[k] - down[k]) / (2.0 * h), 1e-5);
        }
    }
}

/// A sort's comparison names its parameters `a` and `b`, and a later line
/// binds a recorded array `a`: forward mode, which knows bindings by name,
/// took the closure's `a` for the recorded one and refused the sort (seed
/// 419219858, program 279).
#[mica::tape(tangent)]
pub fn sorted_beside_a(#[tracked] w: &[f64; 3]) -> f64 {
    let h = vec![w[0] * 2.0, w[1], 0.5];
    let keys: Vec<f64> = h.iter().map(|v| mica::detach(*v)).collect();
    let mut order: Vec<usize> = (0..h.len()).collect();
    order.sort_by(|&a, &b| keys[a].partial_cmp(&keys[b]).unwrap());
    let mut total = h[order[0]] * 0.81 + h[order[2]].sin();
    for i in 0..2 {
        let a = [i as f64, 0.41, 0.05 * w[i + 1].tanh()];
        total += (a[2] * w[2]).sin();
    }
    total
}

#[test]
fn a_closure_parameter_named_as_a_recorded_binding() {
    for w in [[0.7, -0.4, 1.1], [-1.2, 0.9, 0.3], [0.2, 0.65, -0.8]] {
        let d = [0.3, -0.8, 0.5];
        let (y, t) = sorted_beside_a_tangent(&w, &d);
        fd::close("value", y, sorted_beside_a(&w), 1e-12);
        let (_, g) = sorted_beside_a_grad(&w);
        fd::agrees(
            "gradient",
            &|v: &[f64]| sorted_beside_a(&[v[0], v[1], v[2]]),
            &w,
            &g,
            1e-6,
        );
        fd::close("tangent", t, g[0] * d[0] + g[1] * d[1] + g[2] * d[2], 1e-9);
    }
}

/// A helper collecting a `Vec` from a chain over an array, inlined twice:
/// once over constants, where the chain stays as written and the name it
/// binds holds a slope in the other copy. The zero tangent of that copy
/// was written as the float's zero, not a `Vec`'s, and the function did
/// not build ("expected `Vec<T>`, found `T`": seed 48, program 143).
#[mica::tape]
pub mod gathered {
    pub fn first_two<T: mica::Real>(x: T, s: &[T]) -> T {
        let pairs = [
            (T::from(0.28).unwrap(), T::from(0.27).unwrap()),
            (T::from(-0.68).unwrap(), T::from(-0.41).unwrap()),
        ];
        let c: Vec<T> = pairs.iter().enumerate().map(|(k, (_a, _b))| s[k]).collect();
        c[1] * x + c[0].sin()
    }

    fn constant<T: mica::Real>(s: &[T]) -> T {
        let h = [T::from(0.5).unwrap(); 3];
        first_two(s[2], &h)
    }

    #[tape(tangent)]
    pub fn f<T: mica::Real>(#[tracked] w: &[T; 3]) -> T {
        constant(w) * w[0] + first_two(w[1], w)
    }
}

#[test]
fn a_collected_vec_over_constants_in_one_copy_of_a_helper() {
    for (w, d) in [
        ([0.3_f64, -0.8, 1.1], [1.0_f64, 0.5, -2.0]),
        ([-1.2, 0.4, 0.0], [0.2, -1.5, 0.7]),
    ] {
        // f = (0.5 w₂ + sin 0.5) w₀ + w₁ w₁ + sin w₀:
        // slope (0.5 w₂ + sin 0.5 + cos w₀) d₀ + 2 w₁ d₁ + 0.5 w₀ d₂
        let along = (0.5 * w[2] + 0.5_f64.sin() + w[0].cos()) * d[0]
            + 2.0 * w[1] * d[1]
            + 0.5 * w[0] * d[2];
        let (y, t) = gathered::f_tangent(&w, &d);
        fd::close("value", y, gathered::f(&w), 1e-12);
        fd::close("tangent", t, along, 1e-12);
        let (_, g) = gathered::f_grad(&w);
        let by_grad = g[0] * d[0] + g[1] * d[1] + g[2] * d[2];
        fd::close("gradient along", by_grad, along, 1e-12);
        let (w32, d32) = (w.map(|x| x as f32), d.map(|x| x as f32));
        let (_, t32) = gathered::f_tangent(&w32, &d32);
        fd::close("tangent f32", t32, along as f32, 1e-5);
    }
}

/// An array bound by a branch whose arms are literals, then written with
/// recorded values: the tangent made its zero by running the branch again,
/// into a copy the reverse of forward mode did not take for an array, and
/// `hvp` was refused (seed 694746402, program 164). The zero is now the
/// first arm's shape, written as a literal.
macro_rules! branch_of_literals {
    ($m:ident, $t:ty) => {
        pub mod $m {
            #[mica::tape(tangent, hvp)]
            pub fn by_for(#[tracked] w: &[$t; 2]) -> $t {
                let x = w[0];
                let mut t = 0.5;
                let mut h = if w[1] < 0.0 {
                    [-0.42, -0.82, -0.42]
                } else {
                    [0.66, 0.16, -0.52]
                };
                for i in 0..2 {
                    h[i] = t * w[1];
                    t += x;
                }
                t * t + h[1] * h[0] + h[2] * w[1]
            }

            #[mica::tape(tangent, hvp)]
            pub fn by_while(#[tracked] w: &[$t; 2]) -> $t {
                let x = w[0];
                let mut t = 0.5;
                let mut h = match w[1] < 0.0 {
                    true => [[-0.42, -0.82, -0.42]; 1],
                    false => [[0.66, 0.16, -0.52]; 1],
                };
                let mut i = 0;
                while i < 2 {
                    h[0][i] = t * w[1];
                    t += x;
                    i += 1;
                }
                t * t + h[0][1] * h[0][0] + h[0][2] * w[1]
            }
        }
    };
}
branch_of_literals!(literals64, f64);
branch_of_literals!(literals32, f32);

#[test]
fn an_array_bound_by_a_branch_of_literals_then_written() {
    type F = fn(&[f64; 2]) -> f64;
    type G = fn(&[f64; 2]) -> (f64, [f64; 2]);
    type T = fn(&[f64; 2], &[f64; 2]) -> (f64, f64);
    type H = fn(&[f64; 2], &[f64; 2]) -> (f64, [f64; 2], [f64; 2]);
    let forms: [(F, G, T, H); 2] = [
        (
            literals64::by_for,
            literals64::by_for_grad,
            literals64::by_for_tangent,
            literals64::by_for_hvp,
        ),
        (
            literals64::by_while,
            literals64::by_while_grad,
            literals64::by_while_tangent,
            literals64::by_while_hvp,
        ),
    ];
    for (w, d) in [
        ([0.3_f64, -0.7], [1.0_f64, 0.5]),
        ([-1.1, 0.9], [-0.4, 2.0]),
        ([0.6, 1.7], [0.8, -1.3]),
    ] {
        // h = [½ w₁, (½ + x) w₁, c] (c = −0.42 for w₁ < 0, else −0.52),
        // t = ½ + 2x: f = t² + ½ (½ + x) w₁² + c w₁
        let (x, w1) = (w[0], w[1]);
        let c = if w1 < 0.0 { -0.42 } else { -0.52 };
        let value = (0.5 + 2.0 * x).powi(2) + 0.5 * (0.5 + x) * w1 * w1 + c * w1;
        let slope = [4.0 * (0.5 + 2.0 * x) + 0.5 * w1 * w1, (0.5 + x) * w1 + c];
        // H = [[8, w₁], [w₁, ½ + x]]
        let hv = [8.0 * d[0] + w1 * d[1], w1 * d[0] + (0.5 + x) * d[1]];
        for (f, grad, tangent, hvp) in forms {
            let (y, g) = grad(&w);
            fd::close("value", y, value, 1e-12);
            fd::close("value of the primal", f(&w), value, 1e-12);
            for i in 0..2 {
                fd::close("slope", g[i], slope[i], 1e-12);
                let e = 1e-6;
                let (mut up, mut down) = (w, w);
                up[i] += e;
                down[i] -= e;
                let by_differences = (f(&up) - f(&down)) / (2.0 * e);
                fd::close("slope by differences", g[i], by_differences, 1e-6);
            }
            let (y, t) = tangent(&w, &d);
            fd::close("tangent value", y, value, 1e-12);
            fd::close("tangent", t, slope[0] * d[0] + slope[1] * d[1], 1e-12);
            let (y, g, h) = hvp(&w, &d);
            fd::close("hvp value", y, value, 1e-12);
            for i in 0..2 {
                fd::close("hvp slope", g[i], slope[i], 1e-12);
                fd::close("H·v", h[i], hv[i], 1e-12);
            }
        }
        let (w32, d32) = (w.map(|v| v as f32), d.map(|v| v as f32));
        for (grad, hvp) in [
            (
                literals32::by_for_grad as fn(&[f32; 2]) -> (f32, [f32; 2]),
                literals32::by_for_hvp as fn(&[f32; 2], &[f32; 2]) -> (f32, [f32; 2], [f32; 2]),
            ),
            (literals32::by_while_grad, literals32::by_while_hvp),
        ] {
            let (y, g) = grad(&w32);
            fd::close("value f32", y, value as f32, 1e-5);
            let (_, _, h) = hvp(&w32, &d32);
            for i in 0..2 {
                fd::close("slope f32", g[i], slope[i] as f32, 1e-5);
                fd::close("H·v f32", h[i], hv[i] as f32, 1e-4);
            }
        }
    }
}
