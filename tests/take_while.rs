//! Chains cut by `take_while`: the walk ends at the first element the
//! predicate refuses, in whichever order the walk goes (after `rev`, from
//! the back), and what follows (`map`, `enumerate`, a consumer) sees only
//! the elements before it; over elements, `chunks` and `windows`.
//!
//! Every program is written twice, as `#[tape]` and as `#[tape(plain)]`,
//! and checked at several points against central finite differences (away
//! from the cut), against its plain twin and against slopes derived by
//! hand, in `f64` and `f32`.
#![deny(warnings)]

mod fd;

macro_rules! programs {
    ($m:ident, $t:ty, $($mode:ident)?) => {
        pub mod $m {
            use mica::tape;

            /// The squares of the leading positive elements.
            #[tape$(($mode))?]
            pub fn leading(#[tracked] x: &[$t]) -> $t {
                x.iter().take_while(|v| **v > 0.0).map(|v| v * v).sum()
            }

            /// The trailing elements above `c`, weighted by their place
            /// counted from the back, and their largest.
            #[tape$(($mode))?]
            pub fn trailing(#[tracked] x: &[$t], c: $t) -> $t {
                let s: $t = x
                    .iter()
                    .rev()
                    .take_while(|v| **v > c)
                    .enumerate()
                    .map(|(k, v)| (k as $t + 1.0) * v)
                    .sum();
                let m = x
                    .iter()
                    .copied()
                    .rev()
                    .take_while(|v| *v > c)
                    .reduce(<$t>::max)
                    .unwrap_or(c);
                s + m * m
            }

            /// Pairs taken while their first is positive, and the rises
            /// between neighbours from the back while they stay above `c`.
            #[tape$(($mode))?]
            pub fn in_parts(#[tracked] x: &[$t], c: $t) -> $t {
                let pairs: $t = x
                    .chunks(2)
                    .take_while(|p| p[0] > 0.0)
                    .map(|p| p[0] * p[1])
                    .sum();
                let rises: $t = x
                    .windows(2)
                    .rev()
                    .take_while(|w| w[1] > c)
                    .map(|w| (w[1] - w[0]).tanh())
                    .sum();
                pairs + rises
            }
        }
    };
}

programs!(p64, f64,);
programs!(q64, f64, plain);
programs!(p32, f32,);
programs!(q32, f32, plain);

macro_rules! checks {
    ($name:ident, $p:ident, $q:ident, $t:ty, $tol:expr, $rel:expr) => {
        #[test]
        fn $name() {
            use $p as p;
            use $q as q;
            for seed in 0..5 {
                let x: Vec<$t> = (0..6)
                    .map(|k| (((k * 7 + seed * 5) % 11) as $t) / 4.0 - 0.9)
                    .collect();

                // leading: Σ x_i² over the run of positives from the front
                let (v, g) = p::leading_grad(&x);
                fd::agrees("leading", &|v| p::leading(v), &x, &g, $tol);
                fd::same("leading, plain", &g, &q::leading_grad(&x).1, $rel);
                let run = x.iter().position(|v| *v <= 0.0).unwrap_or(x.len());
                let want: $t = x[..run].iter().map(|v| v * v).sum();
                fd::close("leading, value", v, want, $rel);
                for (i, gi) in g.iter().enumerate() {
                    let want = if i < run { 2.0 * x[i] } else { 0.0 };
                    fd::close("leading, by hand", *gi, want, $rel);
                }

                // trailing: over the run above c from the back, at place k
                // (from 0), (k + 1) x; and the run's largest squared, or c²
                for c in [-0.53, 0.2 * seed as $t - 0.37, 5.0] {
                    let (v, g) = p::trailing_grad(&x, c);
                    let f = |v: &[$t]| p::trailing(v, c);
                    fd::agrees("trailing", &f, &x, &g, $tol);
                    fd::same("trailing, plain", &g, &q::trailing_grad(&x, c).1, $rel);
                    let n = x.len();
                    let run = x.iter().rev().position(|v| *v <= c).unwrap_or(n);
                    let mut want_g = vec![0.0 as $t; n];
                    let mut s = 0.0;
                    for k in 0..run {
                        s += (k as $t + 1.0) * x[n - 1 - k];
                        want_g[n - 1 - k] += k as $t + 1.0;
                    }
                    let m =
                        match (0..run).map(|k| n - 1 - k).reduce(
                            |a, b| {
                                if x[b] > x[a] {
                                    b
                                } else {
                                    a
                                }
                            },
                        ) {
                            Some(i) => {
                                want_g[i] += 2.0 * x[i];
                                x[i]
                            }
                            None => c,
                        };
                    fd::close("trailing, value", v, s + m * m, $rel);
                    fd::same("trailing, by hand", &g, &want_g, $rel);

                    // in_parts: Σ x₂ⱼ x₂ⱼ₊₁ over the leading pairs whose
                    // first is positive; Σ tanh(x_{i+1} − x_i) over the
                    // windows from the back while x_{i+1} > c
                    let (v, g) = p::in_parts_grad(&x, c);
                    let f = |v: &[$t]| p::in_parts(v, c);
                    fd::agrees("in parts", &f, &x, &g, $tol);
                    fd::same("in parts, plain", &g, &q::in_parts_grad(&x, c).1, $rel);
                    let mut want_g = vec![0.0 as $t; n];
                    let mut want = 0.0;
                    for j in 0..n / 2 {
                        if x[2 * j] <= 0.0 {
                            break;
                        }
                        want += x[2 * j] * x[2 * j + 1];
                        want_g[2 * j] += x[2 * j + 1];
                        want_g[2 * j + 1] += x[2 * j];
                    }
                    for i in (0..n - 1).rev() {
                        if x[i + 1] <= c {
                            break;
                        }
                        let t = (x[i + 1] - x[i]).tanh();
                        want += t;
                        want_g[i + 1] += 1.0 - t * t;
                        want_g[i] -= 1.0 - t * t;
                    }
                    fd::close("in parts, value", v, want, $rel);
                    fd::same("in parts, by hand", &g, &want_g, $rel);
                }
            }
        }
    };
}

checks!(take_while_f64, p64, q64, f64, 1e-6, 1e-12);
checks!(take_while_f32, p32, q32, f32, 2e-2, 1e-5);
