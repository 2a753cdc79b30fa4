//! Stencils with named indices (`let p = i * n + j;`, `u[p - 1]`), which
//! the reverse reads through their definitions instead of storing, and
//! the names that must keep their `let`: one that reads the name it binds
//! (`let i = i + 1;`), one read after a name it reads is bound again. Each
//! gradient against central finite differences, in `f64` and `f32`.
#![deny(warnings)]
#![allow(clippy::needless_range_loop)]

mod fd;

macro_rules! programs {
    ($m:ident, $t:ty) => {
        pub mod $m {
            use mica::tape;

            /// An explicit heat equation on an `n × n` grid, double
            /// buffered.
            #[tape]
            pub fn heat(#[tracked] u0: &[$t], #[tracked] alpha: $t, n: usize, steps: usize) -> $t {
                let mut u = u0.to_vec();
                let mut v = u0.to_vec();
                for _ in 0..steps {
                    for i in 1..n - 1 {
                        for j in 1..n - 1 {
                            let p = i * n + j;
                            let below = p + n;
                            v[p] = u[p]
                                + alpha * (u[p - 1] + u[p + 1] + u[p - n] + u[below] - 4.0 * u[p]);
                        }
                    }
                    std::mem::swap(&mut u, &mut v);
                }
                let mut loss = 0.0;
                for p in 0..n * n {
                    loss += u[p] * u[p] * u[p];
                }
                loss
            }

            /// Names that keep their `let`.
            #[tape]
            pub fn shadows(#[tracked] x: &[$t; 6]) -> $t {
                let mut s = 0.0;
                for i in 0..3 {
                    let m = i + 1;
                    let i = i + 2;
                    s += x[m] * x[i] + x[i - 1].sin();
                    let i = m;
                    s += x[i] * x[m + 2];
                }
                s
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
            let n = 5;
            for seed in 0..3 {
                let u0: Vec<$t> = (0..n * n)
                    .map(|k| (((k * 7 + seed * 3) % 11) as $t) / 11.0 - 0.3)
                    .collect();
                let alpha = 0.15 + 0.02 * seed as $t;
                let mut d_u = vec![0.0; n * n];
                let mut d_a = 0.0;
                p::heat_backward(&u0, alpha, n, 4, 1.0, &mut d_u, &mut d_a);
                let mut at = u0.clone();
                at.push(alpha);
                let mut claimed = d_u.clone();
                claimed.push(d_a);
                let f = |q: &[$t]| p::heat(&q[..n * n], q[n * n], n, 4);
                fd::agrees("heat", &f, &at, &claimed, $tol);

                let x: [$t; 6] = core::array::from_fn(|k| 0.2 * k as $t - 0.4 + 0.1 * seed as $t);
                let (_, g) = p::shadows_grad(&x);
                let f = |q: &[$t]| p::shadows(&core::array::from_fn(|k| q[k]));
                fd::agrees("shadows", &f, &x, &g, $tol);
            }
        }
    };
}

checks!(named_indices_f64, p64, f64, 1e-6);
checks!(named_indices_f32, p32, f32, 2e-2);
