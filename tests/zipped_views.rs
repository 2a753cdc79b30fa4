//! Two arrays walked together by mutable iterators, as a step of a
//! simulation over arrays of points is written: `for (p, v) in
//! pos.iter_mut().zip(vel.iter_mut())` in a helper taking `&mut` slices of
//! points, `.zip(&mut vel)`, `.zip(rows.chunks_mut(2))`, and the same under
//! `enumerate` (`for (k, (p, v)) in …zip(…).enumerate()`), and chunks zipped
//! and enumerated (`for (k, (c, w)) in x.chunks(2).zip(y.iter())
//! .enumerate()`). Each against the plain twin and the primal's value,
//! slopes by hand, central finite differences and forward mode, in `f64`
//! and `f32`.
#![deny(warnings)]

mod fd;

macro_rules! programs {
    ($m:ident, $t:ty, $($mode:ident)?) => {
        #[mica::tape$(($mode))?]
        pub mod $m {
            fn step(p: &mut [[$t; 2]], v: &mut [[$t; 2]], g: $t, dt: $t) {
                for (pi, vi) in p.iter_mut().zip(v.iter_mut()) {
                    vi[1] -= g * dt;
                    pi[0] += vi[0] * dt;
                    pi[1] += vi[1] * dt;
                }
            }

            /// Points thrown with velocities `v₀` under gravity `g`, ten
            /// steps of 0.1: `Σ` of their heights, `Σ v₀ᵧ − 5.5 g` (two
            /// points), and `Σ` of their squared distances, then `(x + g)`
            /// through a zip with `&mut`.
            #[tape(tangent)]
            pub fn thrown(#[tracked] v0: &[[$t; 2]], #[tracked] g: $t) -> $t {
                let mut p = vec![[0.0, 0.0]; v0.len()];
                let mut v = v0.to_vec();
                for _ in 0..10 {
                    step(&mut p, &mut v, g, 0.1);
                }
                let mut heights = 0.0;
                for q in p.iter() {
                    heights += q[1];
                }
                let mut shifted = vec![0.0; p.len()];
                for (s, q) in shifted.iter_mut().zip(&mut p) {
                    q[0] += g;
                    *s = q[0] * q[0];
                }
                heights + shifted.iter().sum::<$t>()
            }

            /// `rows` (pairs) scaled by their position and by `x`, the rows
            /// walked with the scales by `chunks_mut` zipped and enumerated:
            /// `Σ_k (k + 1) xₖ (r_{2k} + r_{2k+1})`.
            #[tape(tangent)]
            pub fn scaled(#[tracked] x: &[$t], rows: &[$t]) -> $t {
                let mut r = rows.to_vec();
                let mut w = x.to_vec();
                for (k, (wk, row)) in w.iter_mut().zip(r.chunks_mut(2)).enumerate() {
                    *wk *= (k + 1) as $t;
                    row[0] *= *wk;
                    row[1] *= *wk;
                }
                r.iter().sum()
            }

            /// `Σ_k (k + 1) c₀ c₁ yₖ` over the pairs of `x`.
            #[tape(tangent)]
            pub fn pairs(#[tracked] x: &[$t], y: &[$t]) -> $t {
                let mut s = 0.0;
                for (k, (c, w)) in x.chunks(2).zip(y.iter()).enumerate() {
                    s += (k as $t + 1.0) * c[0] * c[1] * w;
                }
                s
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
        let points: [[$t; 4]; 3] = [
            [1.0, 2.0, 0.5, 3.0],
            [-0.5, 1.5, 2.0, -1.0],
            [0.25, -0.75, 1.25, 0.5],
        ];
        for x in points {
            let v0 = [[x[0], x[1]], [x[2], x[3]]];
            let g = 9.81;
            let (value, (gv, gg)) = thrown_grad(&v0, g);
            assert_eq!(value, thrown(&v0, g), "thrown: the value");
            // heights: Σ v₀ᵧ − 5.5 g (0.01 Σ_{k=1}^{10} k); the end's
            // xᵢ = v₀ₓ + g (ten steps of 0.1), squared
            let by_hand_v = [[2.0 * (x[0] + g), 1.0], [2.0 * (x[2] + g), 1.0]];
            let by_hand_g = -1.1 + 2.0 * (x[0] + g) + 2.0 * (x[2] + g);
            for k in 0..2 {
                same(&gv[k], &by_hand_v[k], "thrown by hand");
            }
            fd::close("thrown by hand, g", gg, by_hand_g, $rel);
            let (qv, qg) = $q::thrown_grad(&v0, g).1;
            for k in 0..2 {
                same(&gv[k], &qv[k], "thrown");
            }
            fd::close("thrown, g", gg, qg, $rel);
            let flat = [x[0], x[1], x[2], x[3], g];
            let slopes = [gv[0][0], gv[0][1], gv[1][0], gv[1][1], gg];
            agree(
                "thrown",
                &|v| thrown(&[[v[0], v[1]], [v[2], v[3]]], v[4]),
                &flat,
                &slopes,
            );
            let (_, t) = thrown_tangent(&v0, g, &[[1.0, -0.5], [0.25, 2.0]], 0.5);
            let along = gv[0][0] - 0.5 * gv[0][1] + 0.25 * gv[1][0] + 2.0 * gv[1][1] + 0.5 * gg;
            fd::close("thrown tangent", t, along, $rel);

            let rows = [0.5, -1.0, 2.0, 0.25, 1.5, 3.0];
            let (value, g) = scaled_grad(&x, &rows);
            assert_eq!(value, scaled(&x, &rows), "scaled: the value");
            let by_hand: Vec<$t> = (0..4)
                .map(|k| match k {
                    0..=2 => (k + 1) as $t * (rows[2 * k] + rows[2 * k + 1]),
                    _ => 0.0,
                })
                .collect();
            same(&g, &by_hand, "scaled by hand");
            same(&g, &$q::scaled_grad(&x, &rows).1, "scaled");
            agree("scaled", &|v| scaled(v, &rows), &x, &g);
            let (_, t) = scaled_tangent(&x, &rows, &[1.0, -1.0, 0.5, 2.0]);
            fd::close(
                "scaled tangent",
                t,
                g[0] - g[1] + 0.5 * g[2] + 2.0 * g[3],
                $rel,
            );

            let y = [0.5, 2.0];
            let (value, g) = pairs_grad(&x, &y);
            assert_eq!(value, pairs(&x, &y), "pairs: the value");
            let by_hand = [
                x[1] * y[0],
                x[0] * y[0],
                2.0 * x[3] * y[1],
                2.0 * x[2] * y[1],
            ];
            same(&g, &by_hand, "pairs by hand");
            same(&g, &$q::pairs_grad(&x, &y).1, "pairs");
            agree("pairs", &|v| pairs(v, &y), &x, &g);
            let (_, t) = pairs_tangent(&x, &y, &[1.0, -1.0, 0.5, 2.0]);
            fd::close(
                "pairs tangent",
                t,
                g[0] - g[1] + 0.5 * g[2] + 2.0 * g[3],
                $rel,
            );
        }
    }};
}

#[test]
fn zipped_element_loops_agree_with_finite_differences_hand_slopes_and_plain_adjoints() {
    check_all!(p64, q64, f64, 1e-6, 1e-12);
    check_all!(p32, q32, f32, 2e-2, 1e-5);
}
