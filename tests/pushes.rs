//! `Vec`s filled by `push`, as first programs fill them: residuals pushed
//! in an index loop into `Vec::with_capacity`, a zip's products pushed into
//! `Vec::new()`, a triangle of products pushed by a nested loop into
//! `vec![]`, a slice's scaled elements pushed by `for &v in y` (the push
//! ending the body without a `;`), an index loop whose index is shadowed
//! before the push, a value per chunk pushed
//! after a branch and a scan pushed over `enumerate`, two pushes an
//! iteration of an index loop, a grid over a bound named `n`, powers by
//! `powi` over an unsuffixed range, a capacity with an effect, zeros pushed
//! and then added into, constants pushed and lent where a recorded `Vec`
//! is lent later, data and a scale pushed and then added into, and a
//! generic function pushing into a `Vec<T>`. Each against the plain twin
//! and the primal's value, all but the generic one against central finite
//! differences and in forward mode, nine against slopes by hand, in `f64`
//! and `f32`.
#![deny(warnings)]

mod fd;

macro_rules! programs {
    ($m:ident, $t:ty, $($mode:ident)?) => {
        pub mod $m {
            use mica::tape;

            /// `Σ (p₀ xᵢ + p₁ − yᵢ)²`, the residuals pushed first.
            #[tape(tangent$(, $mode)?)]
            pub fn residuals(#[tracked] p: &[$t], x: &[$t], y: &[$t]) -> $t {
                let mut r = Vec::with_capacity(x.len());
                for i in 0..x.len() {
                    r.push(p[0] * x[i] + p[1] - y[i]);
                }
                r.iter().map(|v| v * v).sum()
            }

            /// `Σ (k + 1) sin(xₖ yₖ)`: a zip over the knobs pushed, read
            /// back by position.
            #[tape(tangent$(, $mode)?)]
            pub fn zipped(#[tracked] x: &[$t], y: &[$t]) -> $t {
                let mut r: Vec<$t> = Vec::new();
                for (a, b) in x.iter().zip(y) {
                    r.push((a * b).sin());
                }
                let mut s = 0.0;
                for k in 0..r.len() {
                    s += r[k] * (k as $t + 1.0);
                }
                s
            }

            /// `Σ_{i ≤ j} xᵢ xⱼ` and, weighted by position in the push
            /// order, `Σₖ (k + 1) tanh mₖ`.
            #[tape(tangent$(, $mode)?)]
            pub fn triangle(#[tracked] x: &[$t], weighted: bool) -> $t {
                let mut m = vec![];
                for i in 0..x.len() {
                    for j in i..x.len() {
                        m.push(x[i] * x[j]);
                    }
                }
                let mut s = 0.0;
                for k in 0..m.len() {
                    s += if weighted { m[k].tanh() * (k as $t + 1.0) } else { m[k] };
                }
                s
            }

            /// `w² Σ yₖ yₖ₋₁`: a slice's elements scaled, then neighbours.
            #[tape(tangent$(, $mode)?)]
            pub fn scaled(#[tracked] w: $t, y: &[$t]) -> $t {
                let mut out = Vec::new();
                for &v in y {
                    out.push(w * v)
                }
                let mut total = 0.0;
                for k in 1..out.len() {
                    total += out[k] * out[k - 1];
                }
                total
            }

            /// `Σₖ (k + 1) xᵢ xᵢ₊₁`, `i = n − 1 − k` (cyclic): the index
            /// shadowed before the push, so that it no longer counts the
            /// pushes.
            #[tape(tangent$(, $mode)?)]
            pub fn shifted(#[tracked] x: &[$t]) -> $t {
                let mut r = Vec::new();
                for i in 0..x.len() {
                    let i = x.len() - 1 - i;
                    r.push(x[i] * x[(i + 1) % x.len()]);
                }
                let mut s = 0.0;
                for k in 0..r.len() {
                    s += r[k] * (k as $t + 1.0);
                }
                s
            }

            /// A value per pair of `data` (the chunks a view), chosen by a
            /// branch and pushed after it, then a decaying scan of them
            /// pushed over `enumerate`: `Σ hₖ²`.
            #[tape(tangent$(, $mode)?)]
            pub fn scan(#[tracked] w: &[$t], data: &[$t]) -> $t {
                let mut feats = Vec::with_capacity(data.len() / 2);
                for row in data.chunks(2) {
                    let v = if row[0] > 0.0 { row[0] * w[0] } else { row[1] * w[1] };
                    feats.push(v);
                }
                let mut hist = vec![];
                let mut state = 0.0;
                for (i, f) in feats.iter().enumerate() {
                    state = 0.9 * state + f * (i as $t + 1.0);
                    hist.push(state);
                }
                hist.iter().map(|h| h * h).sum::<$t>()
            }

            /// `Σᵢ (2i + 1) w xᵢ + (2i + 2) w² xᵢ²`: two pushes an
            /// iteration of an index loop.
            #[tape(tangent$(, $mode)?)]
            pub fn interleaved(#[tracked] w: $t, x: &[$t]) -> $t {
                let mut out = Vec::new();
                for i in 0..x.len() {
                    out.push(x[i] * w);
                    let sq = x[i] * x[i];
                    out.push(sq * w * w);
                }
                let mut t = 0.0;
                for k in 0..out.len() {
                    t += out[k] * (k as $t + 1.0);
                }
                t
            }

            /// A grid `xᵢ (j + 1)` over `j < n` (a name the count must not
            /// take for its own), its mean weighted by position; the powers
            /// `x₀ᵏ` by `powi` over an unsuffixed range (`k` an `i32`);
            /// the capacity taken where it is written, before `m` is.
            #[tape(tangent$(, $mode)?)]
            pub fn grid(#[tracked] x: &[$t], n: usize) -> $t {
                let mut sizes = vec![1, x.len()];
                let mut v = Vec::with_capacity(sizes.pop().unwrap() * n);
                let m = sizes.len() + x.len() - 1;
                for i in 0..m {
                    for j in 0..n {
                        v.push(x[i] * (j as $t + 1.0));
                    }
                }
                let mut powers = Vec::new();
                for k in 0..3 {
                    powers.push(x[0].powi(k));
                }
                let mut s = 0.0;
                for k in 0..v.len() {
                    s += v[k] * (k as $t + 1.0);
                }
                s / v.len() as $t + powers[2] * 0.5 + powers[1]
            }

            /// Zeros pushed, then sums written into them (`acc[r] = Σ xᵢ² /
            /// (r + 1)`), with weights `1 / (r + 1)` pushed as constants
            /// and lent before a loop that lends `acc` in their place:
            /// `s = w₀ acc₀ + Σ_{r ≥ 1} accᵣ²`.
            #[tape(tangent$(, $mode)?)]
            pub fn accumulated(#[tracked] x: &[$t], rows: usize) -> $t {
                let mut acc = Vec::with_capacity(rows);
                for _ in 0..rows {
                    acc.push(0.0);
                }
                let mut weights = Vec::new();
                for r in 0..rows {
                    weights.push(1.0 / (r as $t + 1.0));
                }
                for r in 0..rows {
                    for i in 0..x.len() {
                        acc[r] += x[i] * x[i] * weights[r];
                    }
                }
                let mut s = 0.0;
                let mut by: &[$t] = &weights;
                for r in 0..rows {
                    s += by[r] * acc[r];
                    by = &acc;
                }
                s
            }

            /// The data copied by push and a scale pushed three times,
            /// then the knobs' squares added in: `Σ (dᵢ + c xᵢ²)²`.
            #[tape(tangent$(, $mode)?)]
            pub fn offsets(#[tracked] x: &[$t], data: &[$t], scale: $t) -> $t {
                let mut acc = Vec::new();
                for i in 0..x.len() {
                    acc.push(data[i]);
                }
                let mut by = Vec::with_capacity(x.len());
                for _ in x.iter() {
                    by.push(scale);
                }
                for i in 0..x.len() {
                    acc[i] += x[i] * x[i] * by[i];
                }
                acc.iter().map(|a| a * a).sum()
            }

            /// `Σ xᵢ³`, in every float type.
            #[tape$(($mode))?]
            pub fn cubes<T: mica::Real>(#[tracked] x: &[T]) -> T {
                let mut c: Vec<_> = Vec::new();
                for v in x.iter().rev() {
                    c.push(*v * *v * *v);
                }
                let mut s = T::zero();
                for v in c.iter() {
                    s += *v;
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
        let y: [$t; 3] = [0.5, 0.25, -2.0];
        let points: [[$t; 3]; 4] = [
            [0.3, -0.7, 1.1],
            [0.3, 0.7, 0.1],
            [-1.3, 0.4, 0.2],
            [0.9, 0.2, -0.1],
        ];
        for x in points {
            let p = [x[0], x[1]];
            let (value, g) = residuals_grad(&p, &x, &y);
            assert_eq!(value, residuals(&p, &x, &y), "residuals: the value");
            let r: Vec<$t> = (0..3).map(|i| p[0] * x[i] + p[1] - y[i]).collect();
            let by_hand = [
                (0..3).map(|i| 2.0 * r[i] * x[i]).sum::<$t>(),
                (0..3).map(|i| 2.0 * r[i]).sum::<$t>(),
            ];
            same(&g, &by_hand, "residuals by hand");
            same(&g, &$q::residuals_grad(&p, &x, &y).1, "residuals");
            agree("residuals", &|q| residuals(q, &x, &y), &p, &g);
            let (_, along) = residuals_tangent(&p, &x, &y, &[1.0, -0.5]);
            fd::close("residuals tangent", along, g[0] - 0.5 * g[1], $rel);

            let (value, g) = zipped_grad(&x, &y);
            assert_eq!(value, zipped(&x, &y), "zipped: the value");
            let by_hand: Vec<$t> = (0..3)
                .map(|k| (x[k] * y[k]).cos() * y[k] * (k as $t + 1.0))
                .collect();
            same(&g, &by_hand, "zipped by hand");
            same(&g, &$q::zipped_grad(&x, &y).1, "zipped");
            agree("zipped", &|v| zipped(v, &y), &x, &g);
            let (_, along) = zipped_tangent(&x, &y, &[1.0, -1.0, 0.5]);
            fd::close("zipped tangent", along, g[0] - g[1] + 0.5 * g[2], $rel);

            let (value, g) = triangle_grad(&x, false);
            assert_eq!(value, triangle(&x, false), "triangle: the value");
            let total: $t = x.iter().sum();
            let by_hand: Vec<$t> = x.iter().map(|v| total + v).collect();
            same(&g, &by_hand, "triangle by hand");
            let (value, g) = triangle_grad(&x, true);
            assert_eq!(value, triangle(&x, true), "weighted triangle: the value");
            same(&g, &$q::triangle_grad(&x, true).1, "weighted triangle");
            agree("weighted triangle", &|v| triangle(v, true), &x, &g);
            let (_, along) = triangle_tangent(&x, true, &[1.0, -1.0, 0.5]);
            fd::close("triangle tangent", along, g[0] - g[1] + 0.5 * g[2], $rel);

            let w = x[1];
            let (value, g) = scaled_grad(w, &x);
            assert_eq!(value, scaled(w, &x), "scaled: the value");
            let by_hand = 2.0 * w * (x[1] * x[0] + x[2] * x[1]);
            fd::close("scaled by hand", g, by_hand, $rel);
            fd::close("scaled", g, $q::scaled_grad(w, &x).1, $rel);
            agree("scaled", &|v| scaled(v[0], &x), &[w], &[g]);
            fd::close("scaled tangent", scaled_tangent(w, &x, 1.0).1, g, $rel);

            let (value, g) = shifted_grad(&x);
            assert_eq!(value, shifted(&x), "shifted: the value");
            // s = x₂x₀ + 2 x₁x₂ + 3 x₀x₁
            let by_hand = [
                x[2] + 3.0 * x[1],
                2.0 * x[2] + 3.0 * x[0],
                x[0] + 2.0 * x[1],
            ];
            same(&g, &by_hand, "shifted by hand");
            same(&g, &$q::shifted_grad(&x).1, "shifted");
            agree("shifted", &|v| shifted(v), &x, &g);
            let (_, along) = shifted_tangent(&x, &[1.0, -1.0, 0.5]);
            fd::close("shifted tangent", along, g[0] - g[1] + 0.5 * g[2], $rel);

            let data = [x[0], x[1], -x[2], x[0] * x[1], 0.5, -1.5];
            let (value, g) = scan_grad(&p, &data);
            assert_eq!(value, scan(&p, &data), "scan: the value");
            same(&g, &$q::scan_grad(&p, &data).1, "scan");
            agree("scan", &|v| scan(v, &data), &p, &g);
            let (_, along) = scan_tangent(&p, &data, &[1.0, -0.5]);
            fd::close("scan tangent", along, g[0] - 0.5 * g[1], $rel);

            let (value, g) = interleaved_grad(w, &x);
            assert_eq!(value, interleaved(w, &x), "interleaved: the value");
            let by_hand: $t = (0..3)
                .map(|i| {
                    let k = i as $t;
                    x[i] * (2.0 * k + 1.0) + x[i] * x[i] * 2.0 * w * (2.0 * k + 2.0)
                })
                .sum();
            fd::close("interleaved by hand", g, by_hand, $rel);
            fd::close("interleaved", g, $q::interleaved_grad(w, &x).1, $rel);
            agree("interleaved", &|v| interleaved(v[0], &x), &[w], &[g]);
            fd::close(
                "interleaved tangent",
                interleaved_tangent(w, &x, 1.0).1,
                g,
                $rel,
            );

            for n in [1, 2, 4] {
                let (value, g) = grid_grad(&x, n);
                assert_eq!(value, grid(&x, n), "grid: the value");
                same(&g, &$q::grid_grad(&x, n).1, "grid");
                agree("grid", &|v| grid(v, n), &x, &g);
                let (_, along) = grid_tangent(&x, n, &[1.0, -1.0, 0.5]);
                fd::close("grid tangent", along, g[0] - g[1] + 0.5 * g[2], $rel);
            }

            for rows in [1, 3] {
                let (value, g) = accumulated_grad(&x, rows);
                assert_eq!(value, accumulated(&x, rows), "accumulated: the value");
                // s = S + c S², S = Σ xᵢ², c = Σ_{r=1}^{rows-1} 1 / (r + 1)²
                let c: $t = (1..rows).map(|r| 1.0 / ((r + 1) * (r + 1)) as $t).sum();
                let total: $t = x.iter().map(|v| v * v).sum();
                let by_hand: Vec<$t> = x
                    .iter()
                    .map(|v| 2.0 * v * (1.0 + 2.0 * c * total))
                    .collect();
                same(&g, &by_hand, "accumulated by hand");
                same(&g, &$q::accumulated_grad(&x, rows).1, "accumulated");
                agree("accumulated", &|v| accumulated(v, rows), &x, &g);
                let (_, along) = accumulated_tangent(&x, rows, &[1.0, -1.0, 0.5]);
                fd::close("accumulated tangent", along, g[0] - g[1] + 0.5 * g[2], $rel);
            }

            let (value, g) = offsets_grad(&x, &y, w);
            assert_eq!(value, offsets(&x, &y, w), "offsets: the value");
            let by_hand: Vec<$t> = (0..3)
                .map(|i| 2.0 * (y[i] + w * x[i] * x[i]) * 2.0 * w * x[i])
                .collect();
            same(&g, &by_hand, "offsets by hand");
            same(&g, &$q::offsets_grad(&x, &y, w).1, "offsets");
            agree("offsets", &|v| offsets(v, &y, w), &x, &g);
            let (_, along) = offsets_tangent(&x, &y, w, &[1.0, -1.0, 0.5]);
            fd::close("offsets tangent", along, g[0] - g[1] + 0.5 * g[2], $rel);

            let (value, g) = cubes_grad(&x);
            assert_eq!(value, cubes(&x), "cubes: the value");
            let by_hand: Vec<$t> = x.iter().map(|v| 3.0 * v * v).collect();
            same(&g, &by_hand, "cubes by hand");
            same(&g, &$q::cubes_grad(&x).1, "cubes");
        }
        // nothing pushed: an empty `Vec`, no slope
        let (value, g) = scaled_grad(0.5, &[]);
        assert_eq!((value, g), (0.0, 0.0), "scaled of nothing");
        let (value, g) = accumulated_grad(&[0.5, 0.25, -2.0], 0);
        assert_eq!(value, 0.0, "accumulated of no rows");
        assert_eq!(g, vec![0.0; 3], "accumulated of no rows: no slope");
        let (value, g) = triangle_grad(&[], true);
        assert_eq!(value, 0.0, "triangle of nothing");
        assert!(g.is_empty(), "triangle of nothing: no slopes");
    }};
}

#[test]
fn pushes_agree_with_finite_differences_hand_slopes_and_plain_adjoints() {
    check_all!(p64, q64, f64, 1e-6, 1e-12);
    check_all!(p32, q32, f32, 2e-2, 1e-5);
}
