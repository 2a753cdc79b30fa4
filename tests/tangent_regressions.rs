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
