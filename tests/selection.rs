//! Loops whose reverse adds only zeros, which the reverse leaves out
//! (a selection whose candidates' distances reach nothing after it, only
//! the winner's index does), the loops that must keep theirs (one that also
//! writes an array, one whose value is read later), and sums that go on in
//! an inner loop (`for j in 0..d { total += … }`), which keep the outer
//! loop fused. Each gradient against central finite differences, in `f64`
//! and `f32`.
#![deny(warnings)]
#![allow(clippy::needless_range_loop)]

mod fd;

macro_rules! programs {
    ($m:ident, $t:ty) => {
        pub mod $m {
            use mica::tape;

            /// The k-means objective by selection.
            #[tape]
            pub fn kmeans(#[tracked] centres: &[$t], points: &[$t], k: usize, d: usize) -> $t {
                let n = points.len() / d;
                let mut total = 0.0;
                for i in 0..n {
                    let mut best = <$t>::INFINITY;
                    let mut nearest = 0;
                    for c in 0..k {
                        let mut dist = 0.0;
                        for j in 0..d {
                            let diff = points[i * d + j] - centres[c * d + j];
                            dist += diff * diff;
                        }
                        if dist < best {
                            best = dist;
                            nearest = c;
                        }
                    }
                    for j in 0..d {
                        let diff = points[i * d + j] - centres[nearest * d + j];
                        total += diff * diff;
                    }
                }
                total
            }

            /// The same selection, its best distance read after it: its
            /// reverse is not zero.
            #[tape]
            pub fn nearest_distance(#[tracked] centres: &[$t], point: &[$t], k: usize) -> $t {
                let d = point.len();
                let mut best = <$t>::INFINITY;
                for c in 0..k {
                    let mut dist = 0.0;
                    for j in 0..d {
                        let diff = point[j] - centres[c * d + j];
                        dist += diff * diff;
                    }
                    if dist < best {
                        best = dist;
                    }
                }
                best.sqrt()
            }

            /// A loop whose carried value reaches nothing, but which writes
            /// an array read after it: its reverse is not zero.
            #[tape]
            pub fn writes_too(#[tracked] x: &[$t; 4]) -> $t {
                let mut h = [0.0; 4];
                let mut unused = 0.0;
                for i in 0..4 {
                    unused += x[i].sin();
                    h[i] = x[i] * unused;
                }
                h[0] + h[1] * h[2] + h[3]
            }

            /// Sums through inner loops, each only summing.
            #[tape]
            pub fn inner_sums(#[tracked] w: &[$t], rows: usize) -> $t {
                let mut s = 0.0;
                for i in 0..rows {
                    for wj in w.iter() {
                        s += (wj * (i + 1) as $t).sin();
                    }
                    s -= w[i % w.len()] * 0.5;
                    for j in 0..w.len() {
                        s += w[j] * w[(j + i) % w.len()];
                    }
                }
                0.25 * s
            }

            /// An inner loop that scales the sum: not a sum of the outer loop.
            #[tape]
            pub fn inner_scales(#[tracked] w: &[$t], rows: usize) -> $t {
                let mut s = 0.0;
                for i in 0..rows {
                    for wj in w.iter() {
                        s = 0.9 * s + (wj * (i + 1) as $t).sin();
                    }
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
            for seed in 0..3 {
                let (k, d) = (3, 2);
                let centres: Vec<$t> = (0..k * d)
                    .map(|q| (((q * 7 + seed * 3) % 11) as $t) / 5.0 - 1.0)
                    .collect();
                let points: Vec<$t> = (0..10 * d)
                    .map(|q| (((q * 5 + seed) % 13) as $t) / 6.0 - 1.1)
                    .collect();
                let (_, g) = p::kmeans_grad(&centres, &points, k, d);
                let f = |q: &[$t]| p::kmeans(q, &points, k, d);
                fd::agrees("kmeans", &f, &centres, &g, $tol);

                let point = [0.31 + 0.13 * seed as $t, -0.17];
                let (_, g) = p::nearest_distance_grad(&centres, &point, k);
                let f = |q: &[$t]| p::nearest_distance(q, &point, k);
                fd::agrees("nearest distance", &f, &centres, &g, $tol);

                let x: [$t; 4] = core::array::from_fn(|q| 0.3 * q as $t - 0.5 + 0.1 * seed as $t);
                let (_, g) = p::writes_too_grad(&x);
                let f = |q: &[$t]| p::writes_too(&core::array::from_fn(|i| q[i]));
                fd::agrees("writes too", &f, &x, &g, $tol);

                let w: Vec<$t> = (0..4)
                    .map(|q| 0.2 * q as $t - 0.3 + 0.05 * seed as $t)
                    .collect();
                for rows in [0, 1, 5] {
                    let (_, g) = p::inner_sums_grad(&w, rows);
                    fd::agrees("inner sums", &|q| p::inner_sums(q, rows), &w, &g, $tol);
                    let (_, g) = p::inner_scales_grad(&w, rows);
                    fd::agrees("inner scales", &|q| p::inner_scales(q, rows), &w, &g, $tol);
                }
            }
        }
    };
}

checks!(selection_f64, p64, f64, 1e-6);
checks!(selection_f32, p32, f32, 3e-2);
