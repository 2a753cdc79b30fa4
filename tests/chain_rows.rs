//! Rows handed from an iterator chain to a function, as a loss over a
//! dataset is written: `xs.iter().zip(ys).map(|(x, y)| (predict(w, x) -
//! y).powi(2)).sum()` with `xs: &[Vec<f64>]`. The closure's `x` is a
//! reference to a row, so the call receives the row borrowed. Also: the
//! rows themselves tracked, a `for` over an adapted chain, `enumerate`,
//! `filter` (the call then in a branch of the loop), a `fold` whose closure
//! types its accumulator, a model's method called on each row, and a
//! function generic over its float. Also a closure's or a loop's name that
//! is also the array its chain splits (`|(h, b)|` over `h.iter_mut()`), a
//! view in use while its array's name is bound again, and a chain zipped
//! with a chain (`out.iter_mut().zip(a.iter().zip(b))`). Each gradient against central finite
//! differences at several points, in `f64` and `f32`.
#![deny(warnings)]

mod fd;

macro_rules! programs {
    ($m:ident, $t:ty) => {
        pub mod $m {
            use mica::tape;

            #[tape]
            pub fn dot(#[tracked] w: &[$t], x: &[$t]) -> $t {
                w.iter().zip(x).map(|(a, b)| a * b).sum()
            }

            #[tape]
            pub fn norm(#[tracked] x: &[$t]) -> $t {
                x.iter().map(|v| v * v).sum::<$t>().sqrt()
            }

            /// the mean squared error, the rows zipped with the targets
            #[tape]
            pub fn mse(#[tracked] w: &[$t], xs: &[Vec<$t>], ys: &[$t]) -> $t {
                xs.iter()
                    .zip(ys)
                    .map(|(x, y)| (dot(w, x) - y).powi(2))
                    .sum::<$t>()
                    / xs.len() as $t
            }

            /// the rows tracked, each passed to a tracked parameter
            #[tape]
            pub fn norms(#[tracked] rows: &[Vec<$t>], scale: $t) -> $t {
                rows.iter().map(|r| norm(r) * scale).sum::<$t>()
            }

            /// `enumerate`, the target read by the position
            #[tape]
            pub fn indexed(#[tracked] w: &[$t], xs: &[Vec<$t>], ys: &[$t]) -> $t {
                xs.iter()
                    .enumerate()
                    .map(|(i, x)| (dot(w, x) - ys[i]).abs())
                    .sum::<$t>()
            }

            /// a `for` over an adapted chain, the target dereferenced
            #[tape]
            pub fn skipped(#[tracked] w: &[$t], xs: &[Vec<$t>], ys: &[$t]) -> $t {
                let mut total = 0.0;
                for (x, y) in xs.iter().zip(ys).skip(1) {
                    total += (dot(w, x) * *y).sin();
                }
                total
            }

            /// the largest score, the `fold`'s accumulator typed
            #[tape]
            pub fn largest(#[tracked] w: &[$t], xs: &[Vec<$t>]) -> $t {
                xs.iter()
                    .map(|x| dot(w, x))
                    .fold(-1.0e6, |m: $t, v| m.max(v))
            }

            /// `filter` first: the call stands after the loop's exit
            #[tape]
            pub fn kept(#[tracked] w: &[$t], xs: &[Vec<$t>], ys: &[$t]) -> $t {
                xs.iter()
                    .zip(ys.iter())
                    .filter(|(x, _)| x[0] > 0.0)
                    .map(|(x, &y)| (dot(w, x) * y).tanh())
                    .sum()
            }

            /// a closure's or a loop's name that is also the array it splits
            /// (`h.iter_mut().zip(b).for_each(|(h, b)| …)`)
            #[tape]
            pub fn same_names(#[tracked] w: &[$t], b: &[$t]) -> $t {
                let mut h = w.to_vec();
                h.iter_mut().zip(b).for_each(|(h, b)| *h = (*h + b).tanh());
                let pairs = h.chunks(2).map(|h| h[0] * h[h.len() - 1]).sum::<$t>();
                let mut t = 0.0;
                for (i, h) in h.windows(2).enumerate() {
                    t += h[1].sin() * (i + 1) as $t;
                }
                pairs + t
            }

            /// a view in use while its array's name is bound again (a `let`
            /// after it, a `let` in a chunk loop, a closure's parameter)
            #[tape]
            pub fn bound_again(#[tracked] w: &[$t], b: &[$t]) -> $t {
                let row = &w[0..2];
                let mut s = 0.0;
                for c in w.chunks(2) {
                    let w = c[0];
                    s += w * c[c.len() - 1];
                }
                let sq = w.chunks(2).map(|w| w[0] * w[0]).sum::<$t>();
                let w = [b[0], b[1]];
                s + row[0] * w[0] + (row[1] * w[1]).sin() + sq
            }

            /// a chain zipped with a chain: each walked at one position
            #[tape]
            pub fn zipped(#[tracked] a: &[$t], b: &[$t], c: &[$t]) -> $t {
                let mut out = [0.0; 3];
                for (o, (x, y)) in out.iter_mut().zip(a.iter().zip(b)) {
                    *o = x * y;
                }
                let s = out.iter().map(|v| v.sin()).sum::<$t>();
                s + a
                    .iter()
                    .zip(c.iter().skip(1).map(|v| v * 2.0))
                    .map(|(x, y)| x * y)
                    .sum::<$t>()
                    + a.iter()
                        .enumerate()
                        .zip(b.iter().zip(c))
                        .map(|((i, x), (y, z))| (x * y).tanh() * z * (i + 1) as $t)
                        .sum::<$t>()
                    + a.iter()
                        .zip(c.iter().rev().skip(1))
                        .map(|(x, y)| x.sin() * y)
                        .sum::<$t>()
                    + a.iter()
                        .zip(c.iter().step_by(2))
                        .map(|(x, y)| (x * y).cos())
                        .sum::<$t>()
            }

            #[derive(Clone, Debug, mica::Knob)]
            pub struct Lin {
                pub w: Vec<$t>,
                pub b: $t,
            }

            #[tape]
            impl Lin {
                pub fn predict(#[tracked] &self, x: &[$t]) -> $t {
                    let mut z = self.b;
                    for j in 0..x.len() {
                        z += self.w[j] * x[j];
                    }
                    z.tanh()
                }
            }

            /// a model's method on each row
            #[tape]
            pub fn fit(#[tracked] m: &Lin, xs: &[Vec<$t>], ys: &[$t]) -> $t {
                xs.iter()
                    .zip(ys)
                    .map(|(x, y)| (m.predict(x) - y).powi(2))
                    .sum::<$t>()
            }
        }
    };
}

programs!(p64, f64);
programs!(p32, f32);

/// Forward mode through a call given a row (`&[f64; 2]`) or a `Vec` where
/// the parameter is a slice: the tangent is coerced as the argument is.
pub mod forward {
    use mica::tape;

    #[tape(tangent, hvp)]
    pub fn row_energy(#[tracked] r: &[f64]) -> f64 {
        (r[0] * 0.5 - r[1]).tanh() * r[r.len() - 1] + r[1].sin()
    }

    // (`&Vec<f64>` as users write it: its tangent too is coerced)
    #[allow(clippy::ptr_arg)]
    #[tape(tangent, hvp)]
    pub fn energy(#[tracked] m: &[[f64; 2]; 3], #[tracked] v: &Vec<f64>) -> f64 {
        m.iter().map(|r| row_energy(r)).sum::<f64>() + row_energy(v) * row_energy(&m[1])
    }
}

/// Generic over its float: the rows of `T`.
#[mica::tape]
pub mod generic {
    use mica::Real;

    pub fn weighted<T: Real>(#[tracked] w: &[T], x: &[T]) -> T {
        let mut s = T::zero();
        for j in 0..w.len() {
            s += w[j] * x[j];
        }
        s
    }

    pub fn loss<T: Real>(#[tracked] w: &[T], xs: &[Vec<T>], ys: &[T]) -> T {
        xs.iter()
            .zip(ys)
            .map(|(x, y)| (weighted(w, x) - *y).powi(2))
            .sum::<T>()
    }
}

macro_rules! checks {
    ($name:ident, $m:ident, $t:ty, $tol:expr) => {
        #[test]
        fn $name() {
            use $m as p;
            let xs: Vec<Vec<$t>> = vec![
                vec![0.3, -0.7, 1.1],
                vec![1.1, 0.4, -0.2],
                vec![-0.5, 0.9, 0.6],
                vec![0.8, 0.1, -1.3],
            ];
            let ys: Vec<$t> = vec![0.2, -0.4, 0.7, 1.5];
            let points: [[$t; 3]; 3] = [[0.5, -0.3, 0.9], [1.2, 0.8, -0.4], [-0.9, 0.1, 0.35]];
            for w in points {
                let (_, g) = p::mse_grad(&w, &xs, &ys);
                fd::agrees("mse", &|v: &[$t]| p::mse(v, &xs, &ys), &w, &g, $tol);
                let (_, g) = p::indexed_grad(&w, &xs, &ys);
                fd::agrees("indexed", &|v: &[$t]| p::indexed(v, &xs, &ys), &w, &g, $tol);
                let (_, g) = p::skipped_grad(&w, &xs, &ys);
                fd::agrees("skipped", &|v: &[$t]| p::skipped(v, &xs, &ys), &w, &g, $tol);
                let (_, g) = p::largest_grad(&w, &xs);
                fd::agrees("largest", &|v: &[$t]| p::largest(v, &xs), &w, &g, $tol);
                let (_, g) = p::kept_grad(&w, &xs, &ys);
                fd::agrees("kept", &|v: &[$t]| p::kept(v, &xs, &ys), &w, &g, $tol);
                let (_, g) = p::same_names_grad(&w, &ys[..3]);
                let f = |v: &[$t]| p::same_names(v, &ys[..3]);
                fd::agrees("same_names", &f, &w, &g, $tol);
                let (_, g) = p::bound_again_grad(&w, &ys);
                let f = |v: &[$t]| p::bound_again(v, &ys);
                fd::agrees("bound_again", &f, &w, &g, $tol);
                let (_, g) = p::zipped_grad(&w, &ys[..3], &ys);
                let f = |v: &[$t]| p::zipped(v, &ys[..3], &ys);
                fd::agrees("zipped", &f, &w, &g, $tol);
                let (_, g) = generic::loss_grad(&w, &xs, &ys);
                let f = |v: &[$t]| generic::loss(v, &xs, &ys);
                fd::agrees("generic", &f, &w, &g, $tol);

                // the model: its floats as one list, `w` then `b`
                let model = |v: &[$t]| p::Lin {
                    w: v[..3].to_vec(),
                    b: v[3],
                };
                let at = [w[0], w[1], w[2], w[0] * w[1]];
                let (_, g) = p::fit_grad(&model(&at), &xs, &ys);
                let claimed = [g.w[0], g.w[1], g.w[2], g.b];
                let f = |v: &[$t]| p::fit(&model(v), &xs, &ys);
                fd::agrees("fit", &f, &at, &claimed, $tol);

                // the rows tracked: the slope of each of their numbers
                let mut rows = xs.clone();
                rows[1][2] = w[2];
                let (_, g) = p::norms_grad(&rows, w[0]);
                let claimed: Vec<$t> = g.iter().flatten().copied().collect();
                let flat: Vec<$t> = rows.iter().flatten().copied().collect();
                let f = |v: &[$t]| {
                    let rows: Vec<Vec<$t>> = v.chunks(3).map(|c| c.to_vec()).collect();
                    p::norms(&rows, w[0])
                };
                fd::agrees("norms", &f, &flat, &claimed, $tol);
            }
        }
    };
}

checks!(rows_passed_on_f64, p64, f64, 1e-6);
checks!(rows_passed_on_f32, p32, f32, 2e-2);

#[test]
fn forward_mode_through_rows_passed_as_slices() {
    use forward::{energy, energy_grad, energy_hvp, energy_tangent};
    let unflat = |p: &[f64]| -> ([[f64; 2]; 3], Vec<f64>) {
        ([[p[0], p[1]], [p[2], p[3]], [p[4], p[5]]], p[6..].to_vec())
    };
    let flat = |m: &[[f64; 2]; 3], v: &[f64]| -> Vec<f64> {
        m.iter().flatten().chain(v).copied().collect()
    };
    let points = [
        [0.3, -0.2, 0.7, 1.1, -0.4, 0.9, 0.5, -0.6, 0.25],
        [-1.2, 0.4, 0.1, -0.8, 1.3, 0.2, -0.3, 0.9, 1.1],
        [0.6, 0.6, -0.5, 0.35, 0.05, -1.0, 0.8, 0.15, -0.7],
    ];
    let dir = [0.4, -0.3, 0.2, 0.9, -0.6, 0.1, 0.7, -0.2, 0.5];
    let (dm, dv) = unflat(&dir);
    let h = 1e-6;
    for at in points {
        let (m, v) = unflat(&at);
        let along = |s: f64| -> Vec<f64> { at.iter().zip(&dir).map(|(a, d)| a + s * d).collect() };
        // the tangent: the value's slope along `dir`
        let (value, dot) = energy_tangent(&m, &v, &dm, &dv);
        fd::close("value", value, energy(&m, &v), 1e-12);
        let (mp, vp) = unflat(&along(h));
        let (mm, vm) = unflat(&along(-h));
        let slope = (energy(&mp, &vp) - energy(&mm, &vm)) / (2.0 * h);
        fd::close("tangent", dot, slope, 1e-6);
        // `hvp`: the gradient's slope along `dir`
        let (_, (gm, gv), (hm, hv)) = energy_hvp(&m, &v, &dm, &dv);
        let (_, (g0m, g0v)) = energy_grad(&m, &v);
        fd::same("hvp's gradient", &flat(&gm, &gv), &flat(&g0m, &g0v), 1e-12);
        let (_, (gpm, gpv)) = energy_grad(&mp, &vp);
        let (_, (gmm, gmv)) = energy_grad(&mm, &vm);
        let slopes: Vec<f64> = flat(&gpm, &gpv)
            .iter()
            .zip(flat(&gmm, &gmv))
            .map(|(p, q)| (p - q) / (2.0 * h))
            .collect();
        fd::same("hvp", &flat(&hm, &hv), &slopes, 1e-5);
    }
}
