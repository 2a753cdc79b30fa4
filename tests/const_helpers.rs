//! Helpers generic over `const` lengths, as code over fixed-size vectors
//! writes them: a dot product, a scaling returning `[T; N]`, a norm calling
//! the dot product, a matrix-vector product over two lengths calling it by
//! rows, given knobs, array literals, the arrays other helpers return or
//! an `if` gives, the rows of an array of arrays walked by `for` (with and
//! without `enumerate`) and elements of an array of points. Each against
//! the plain twin and the primal's value, slopes by hand where they are
//! short, central finite differences and forward mode, in `f64` and `f32`.
#![deny(warnings)]

mod fd;

macro_rules! programs {
    ($m:ident, $t:ty, $($mode:ident)?) => {
        #[mica::tape$(($mode))?]
        pub mod $m {
            pub fn dot<const N: usize>(a: &[$t; N], b: &[$t; N]) -> $t {
                let mut s = 0.0;
                for i in 0..N {
                    s += a[i] * b[i];
                }
                s
            }

            pub fn scale<const N: usize>(v: &[$t; N], k: $t) -> [$t; N] {
                let mut out = [0.0; N];
                for i in 0..N {
                    out[i] = v[i] * k;
                }
                out
            }

            pub fn norm<const N: usize>(v: &[$t; N]) -> $t {
                dot(v, v).sqrt()
            }

            pub fn matvec<const R: usize, const C: usize>(m: &[[$t; C]; R], v: &[$t; C]) -> [$t; R] {
                let mut out = [0.0; R];
                for i in 0..R {
                    out[i] = dot(&m[i], v);
                }
                out
            }

            /// `|2x| + |M 2x|² + |(z₀ z₁, x₀)| + (1, 2, 3)·x + |p|`, `z = M
            /// 2x`, `p` an array from either arm of an `if`.
            #[tape(tangent)]
            pub fn energy(#[tracked] x: &[$t; 3], m: &[[$t; 3]; 2]) -> $t {
                let y = scale(x, 2.0);
                let z = matvec(m, &y);
                let w: [$t; 2] = [z[0] * z[1], x[0]];
                let pick = if x[0] > 0.0 {
                    [x[0], 1.0, 2.0]
                } else {
                    [0.5, x[1], x[2]]
                };
                norm(&y) + dot(&z, &z) + norm(&w) + dot(&[1.0, 2.0, 3.0], x) + norm(&pick)
            }

            /// `Σ_k (k + 2) Mₖ·x`, the rows walked twice.
            #[tape(tangent)]
            pub fn rows(#[tracked] x: &[$t; 3], m: &[[$t; 3]; 2]) -> $t {
                let mut s = 0.0;
                for row in m.iter() {
                    s += dot(row, x);
                }
                for (k, row) in m.iter().enumerate() {
                    s += (k as $t + 1.0) * dot(row, x);
                }
                s
            }

            /// The lengths of a chain of points in the plane.
            pub fn chain(#[tracked] p: &[[$t; 2]; 4]) -> $t {
                let mut total = 0.0;
                for i in 0..3 {
                    let d = [p[i + 1][0] - p[i][0], p[i + 1][1] - p[i][1]];
                    total += norm(&d) + dot(&p[i], &p[i + 1]) * 0.25;
                }
                total
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
        let m: [[$t; 3]; 2] = [[1.0, 0.5, 0.0], [0.0, 1.0, 2.0]];
        let points: [[$t; 3]; 3] = [[0.3, -0.4, 0.7], [1.2, 0.1, -0.5], [-0.6, 0.9, 0.2]];
        for x in points {
            let (value, g) = energy_grad(&x, &m);
            assert_eq!(value, energy(&x, &m), "energy: the value");
            same(&g, &$q::energy_grad(&x, &m).1, "energy");
            agree("energy", &|v| energy(&[v[0], v[1], v[2]], &m), &x, &g);
            let (_, t) = energy_tangent(&x, &m, &[1.0, -0.5, 0.25]);
            fd::close("energy tangent", t, g[0] - 0.5 * g[1] + 0.25 * g[2], $rel);

            let (value, g) = rows_grad(&x, &m);
            assert_eq!(value, rows(&x, &m), "rows: the value");
            let by_hand: Vec<$t> = (0..3).map(|j| 2.0 * m[0][j] + 3.0 * m[1][j]).collect();
            same(&g, &by_hand, "rows by hand");
            same(&g, &$q::rows_grad(&x, &m).1, "rows");
            let (_, t) = rows_tangent(&x, &m, &[1.0, -0.5, 0.25]);
            fd::close("rows tangent", t, g[0] - 0.5 * g[1] + 0.25 * g[2], $rel);

            let p: [[$t; 2]; 4] = [[x[0], x[1]], [x[2], 1.0], [x[1] + 1.5, x[0]], [2.0, -x[2]]];
            let (value, g) = chain_grad(&p);
            assert_eq!(value, chain(&p), "chain: the value");
            let q = $q::chain_grad(&p).1;
            for k in 0..4 {
                same(&g[k], &q[k], "chain");
            }
            let flat: Vec<$t> = p.iter().flatten().copied().collect();
            let slopes: Vec<$t> = g.iter().flatten().copied().collect();
            let unflat = |v: &[$t]| [[v[0], v[1]], [v[2], v[3]], [v[4], v[5]], [v[6], v[7]]];
            agree("chain", &|v| chain(&unflat(v)), &flat, &slopes);
        }
    }};
}

#[test]
fn const_generic_helpers_agree_with_finite_differences_hand_slopes_and_plain_adjoints() {
    check_all!(p64, q64, f64, 1e-6, 1e-12);
    check_all!(p32, q32, f32, 2e-2, 1e-5);
}
