//! A row of the data copied into a local that later holds recorded values
//! (`let mut h = *x;` over `for x in xs`, `xs[k]`, through `.zip` and
//! `.enumerate`): how a network's forward pass starts from its input. Each
//! gradient against central finite differences at several points, in
//! `f64` and `f32`.
#![deny(warnings)]
#![allow(clippy::needless_range_loop)]

mod fd;

macro_rules! programs {
    ($m:ident, $t:ty) => {
        pub mod $m {
            use mica::tape;

            /// Two layers over each input, the input copied by `*x`.
            #[tape]
            pub fn layers(#[tracked] w: &[$t; 2], xs: &[[$t; 2]], ys: &[$t]) -> $t {
                let mut total = 0.0;
                for (x, y) in xs.iter().zip(ys) {
                    let mut h = *x;
                    for _ in 0..2 {
                        let mut next = [0.0; 2];
                        for i in 0..2 {
                            next[i] = (w[i] * h[i] + w[1 - i] * h[1 - i]).tanh();
                        }
                        h = next;
                    }
                    total += (h[0] + h[1] - y).powi(2);
                }
                total
            }

            /// A row by index and by `for x in xs`, written in place.
            #[tape]
            pub fn in_place(#[tracked] w: &[$t; 2], xs: &[[$t; 2]]) -> $t {
                let mut t = 0.0;
                for x in xs {
                    let mut h = *x;
                    h[0] *= w[0];
                    t += h[0] * h[1];
                }
                for k in 0..xs.len() {
                    let mut h = xs[k];
                    h[1] = (h[1] * w[1]).sin();
                    t += h[0] + h[1];
                }
                for (k, x) in xs.iter().enumerate() {
                    let mut h = x.clone();
                    h[k % 2] += w[0] * w[1];
                    t += h[0] * h[1];
                }
                t
            }
        }
    };
}

programs!(p64, f64);
programs!(p32, f32);

macro_rules! checks {
    ($name:ident, $m:ident, $t:ty, $tol:expr) => {
        #[test]
        fn $name() {
            use $m as p;
            let xs: Vec<[$t; 2]> = vec![[0.3, -0.7], [1.1, 0.4], [-0.5, 0.9]];
            let ys: Vec<$t> = vec![0.2, -0.4, 0.7];
            for w in [[0.5, -0.3], [1.2, 0.8], [-0.9, 0.1]] {
                let (_, g) = p::layers_grad(&w, &xs, &ys);
                let f = |v: &[$t]| p::layers(&[v[0], v[1]], &xs, &ys);
                fd::agrees("layers", &f, &w, &g, $tol);
                let (_, g) = p::in_place_grad(&w, &xs);
                let f = |v: &[$t]| p::in_place(&[v[0], v[1]], &xs);
                fd::agrees("in_place", &f, &w, &g, $tol);
            }
        }
    };
}

checks!(rows_f64, p64, f64, 1e-6);
checks!(rows_f32, p32, f32, 2e-2);
