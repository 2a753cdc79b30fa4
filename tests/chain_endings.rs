//! How chains end: the `Option` a chain gives by `reduce`, `max_by` or
//! `min_by`, ended as users end it (`.unwrap()`, `.expect(…)`,
//! `.unwrap_or(d)`, `&d` under `*` for a chain of references, and
//! `.unwrap_or_default()`), where an empty chain (all its elements
//! filtered out, or an empty slice) gives the default, whose slope is the
//! default's own; and chains cut by `take_while`, whose walk ends at the
//! first element the predicate refuses, in whichever order the walk goes
//! (after `rev`, from the back), over elements, `chunks` and `windows`.
//!
//! Every program is written twice, as `#[tape]` and as `#[tape(plain)]`,
//! and checked at several points against central finite differences (away
//! from ties), against its plain twin and against slopes derived by hand,
//! in `f64` and `f32`.
#![deny(warnings)]

mod fd;

macro_rules! programs {
    ($m:ident, $t:ty, $($mode:ident)?) => {
        pub mod $m {
            use mica::tape;

            /// The largest element, or `d` for an empty slice.
            #[tape$(($mode))?]
            pub fn largest_or(#[tracked] x: &[$t], #[tracked] d: $t) -> $t {
                let m = x.iter().copied().reduce(<$t>::max).unwrap_or(d);
                m * m + d
            }

            /// The largest by a comparison, read through `*`, or -1.
            #[tape$(($mode))?]
            pub fn largest_by(#[tracked] x: &[$t]) -> $t {
                let m = *x.iter().max_by(|a, b| a.total_cmp(b)).unwrap_or(&-1.0);
                m.sin() + 0.5 * m
            }

            /// The smallest square above `floor`, or zero when none is.
            #[tape$(($mode))?]
            pub fn smallest_above(#[tracked] x: &[$t], floor: $t) -> $t {
                x.iter()
                    .map(|v| v * v)
                    .filter(|v| *v > floor)
                    .min_by(|a, b| a.partial_cmp(b).unwrap())
                    .unwrap_or_default()
            }

            /// A product by `reduce`, which a sample must have.
            #[tape$(($mode))?]
            pub fn product_of(#[tracked] x: &[$t]) -> $t {
                x.iter()
                    .map(|v| 1.0 + 0.5 * v)
                    .reduce(|a, b| a * b)
                    .expect("at least one sample")
            }

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
            for seed in 0..4 {
                // distinct elements, their order changing with the seed
                let x: Vec<$t> = (0..5)
                    .map(|k| (((k * 7 + seed * 5) % 11) as $t) / 4.0 - 1.2)
                    .collect();
                let d = 0.4 - 0.3 * seed as $t;
                let k = (0..5).fold(0, |k, i| if x[i] > x[k] { i } else { k });

                // largest_or: m = x[k]; f = m² + d
                let (_, (gx, gd)) = p::largest_or_grad(&x, d);
                let f = |v: &[$t]| p::largest_or(&v[..5], v[5]);
                let mut at = x.clone();
                at.push(d);
                let mut claimed = gx.clone();
                claimed.push(gd);
                fd::agrees("largest or", &f, &at, &claimed, $tol);
                let (_, (hx, hd)) = q::largest_or_grad(&x, d);
                fd::same("largest or, plain", &gx, &hx, $rel);
                fd::close("largest or, plain", gd, hd, $rel);
                for (i, g) in gx.iter().enumerate() {
                    let want = if i == k { 2.0 * x[k] } else { 0.0 };
                    fd::close("largest or, by hand", *g, want, $rel);
                }
                fd::close("largest or, by hand", gd, 1.0, $rel);
                // an empty slice: m = d, f = d² + d
                let (v, (gx, gd)) = p::largest_or_grad(&[], d);
                fd::close("largest or, empty", v, d * d + d, $rel);
                assert!(gx.is_empty());
                fd::close("largest or, empty, by hand", gd, 2.0 * d + 1.0, $rel);

                // largest_by: m = x[k]; f = sin m + m / 2
                let (_, g) = p::largest_by_grad(&x);
                fd::agrees("largest by", &|v| p::largest_by(v), &x, &g, $tol);
                fd::same("largest by, plain", &g, &q::largest_by_grad(&x).1, $rel);
                for (i, gi) in g.iter().enumerate() {
                    let want = if i == k { x[k].cos() + 0.5 } else { 0.0 };
                    fd::close("largest by, by hand", *gi, want, $rel);
                }
                let (v, g) = p::largest_by_grad(&[]);
                fd::close("largest by, empty", v, (-1.0 as $t).sin() - 0.5, $rel);
                assert!(g.is_empty());

                // smallest_above: the least x[i]² above the floor, 2 x[i]
                // at it; none above it: zero, with no slope
                for floor in [0.05 * seed as $t, 100.0] {
                    let (v, g) = p::smallest_above_grad(&x, floor);
                    let f = |v: &[$t]| p::smallest_above(v, floor);
                    fd::agrees("smallest above", &f, &x, &g, $tol);
                    fd::same(
                        "smallest above, plain",
                        &g,
                        &q::smallest_above_grad(&x, floor).1,
                        $rel,
                    );
                    let above = (0..5).filter(|&i| x[i] * x[i] > floor);
                    match above.min_by(|&a, &b| (x[a] * x[a]).total_cmp(&(x[b] * x[b]))) {
                        Some(j) => {
                            fd::close("smallest above, value", v, x[j] * x[j], $rel);
                            for (i, gi) in g.iter().enumerate() {
                                let want = if i == j { 2.0 * x[j] } else { 0.0 };
                                fd::close("smallest above, by hand", *gi, want, $rel);
                            }
                        }
                        None => {
                            assert_eq!(v, 0.0);
                            assert!(g.iter().all(|g| *g == 0.0), "{g:?}");
                        }
                    }
                }

                // product_of: Π (1 + x_i / 2); ∂/∂x_i = ½ Π_{j≠i}
                let (v, g) = p::product_of_grad(&x);
                fd::agrees("product", &|v| p::product_of(v), &x, &g, $tol);
                fd::same("product, plain", &g, &q::product_of_grad(&x).1, $rel);
                let factors: Vec<$t> = x.iter().map(|v| 1.0 + 0.5 * v).collect();
                fd::close("product, value", v, factors.iter().product(), $rel);
                for (i, gi) in g.iter().enumerate() {
                    let others: $t = (0..5).filter(|&j| j != i).map(|j| factors[j]).product();
                    fd::close("product, by hand", *gi, 0.5 * others, $rel);
                }
            }
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

checks!(endings_f64, p64, q64, f64, 1e-6, 1e-12);
checks!(endings_f32, p32, q32, f32, 2e-2, 1e-5);

#[test]
#[should_panic(expected = "at least one sample")]
fn an_empty_sample_panics_with_the_message() {
    p64::product_of_grad(&[]);
}
