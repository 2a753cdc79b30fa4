//! Iterator chains and closures over recorded values, written as users
//! write them: `zip`/`map`/`sum` dot products, `filter`, `fold` (with a
//! closure, into a tuple and with `f64::max`), `reduce`, `position`,
//! `min_by`/`max_by`, `skip`/`take`/`rev`/`step_by`/`enumerate` (and
//! `enumerate`, `map` or `filter` then `rev`), `chain`, an array's own
//! `map` and `std::array::from_fn`,
//! `product`, `count`, `collect` (from a literal and over a `chain` too),
//! `for` loops over adapted chains, and
//! closures bound by `let`, called directly, passed to an adapter, and
//! called where they are written, and chains inside a chain's closure
//! (over a literal array too). Every program is
//! written twice, as `#[tape]` and as `#[tape(plain)]`, and checked in
//! `f64` and `f32` against central finite differences at several points
//! and against its plain twin, one against slopes by hand; a window-form
//! program checks the other form.
#![deny(warnings)]

mod fd;

macro_rules! programs {
    ($m:ident, $t:ty, $($mode:ident)?) => {
        pub mod $m {
            use mica::tape;

            /// `Σ wᵢ xᵢ`
            #[tape$(($mode))?]
            pub fn dot(#[tracked] w: &[$t], x: &[$t]) -> $t {
                w.iter().zip(x.iter()).map(|(a, b)| a * b).sum()
            }

            /// Least squares over data given as pairs, the pattern
            /// `|(x, y)|` (and `|&(x, y)|`, and zipped with the knob):
            /// `Σ (w₀ xᵢ + w₁ − yᵢ)² + Σ xᵢ wᵢ`.
            #[tape$(($mode))?]
            pub fn pairs(#[tracked] w: &[$t], data: &[($t, $t)]) -> $t {
                let fit: $t = data.iter().map(|(x, y)| (w[0] * x + w[1] - y).powi(2)).sum();
                let again = data.iter().map(|&(x, y)| (w[0] * x + w[1] - y) * 0.0).sum::<$t>();
                let tilt: $t = data.iter().zip(w).map(|((x, _), v)| x * v).sum();
                fit + again + tilt
            }

            /// Norms, masks, extremes and positions.
            #[tape$(($mode))?]
            pub fn statistics(#[tracked] w: &[$t]) -> $t {
                let l2 = w.iter().map(|v| v * v).sum::<$t>().sqrt();
                let positive: $t = w.iter().filter(|v| **v > 0.0).map(|v| v.exp()).sum();
                let largest = w.iter().cloned().fold(<$t>::NEG_INFINITY, <$t>::max);
                let smallest = *w.iter().min_by(|a, b| a.partial_cmp(b).unwrap()).unwrap();
                let middle: $t = w.iter().skip(1).take(2).product();
                let weighted: $t = w
                    .iter()
                    .rev()
                    .enumerate()
                    .map(|(k, v)| (k as $t + 1.0) * v)
                    .sum();
                let waves: Vec<$t> = w.iter().map(|v| v.sin()).collect();
                let ramp = waves
                    .iter()
                    .enumerate()
                    .fold(0.0, |acc, (i, s)| acc + s * (i as $t));
                let above = w.iter().filter(|v| **v > 0.1).count() as $t;
                let mut lse = 0.0;
                for e in w.iter().map(|v| (v - largest).exp()) {
                    lse += e;
                }
                l2 + positive + largest + smallest + middle + weighted + ramp + lse.ln() + above
            }

            /// Two arrays chained, squared and weighted by position:
            /// `Σ_i wᵢ² + Σ xⱼ² + Σ_{i≥1} (i − 1) wᵢ + Σ_j (n − 1 + j) xⱼ`.
            #[tape$(($mode))?]
            pub fn joined(#[tracked] w: &[$t], x: &[$t]) -> $t {
                let squares: $t = w.iter().chain(x.iter()).map(|v| v * v).sum();
                let ramp: $t = w[1..].iter().chain(x).enumerate().map(|(k, &v)| k as $t * v).sum();
                squares + ramp
            }

            /// Positions counted from the front, elements taken last
            /// first (`enumerate` then `rev`): `Σ_k (k + 1) 0.5ᵏ wₖ` by a
            /// fold, and `Σ_{j≥1} (j − 1) wⱼ xⱼ` over a zip, skipped.
            #[tape$(($mode))?]
            pub fn reversed_positions(#[tracked] w: &[$t], x: &[$t]) -> $t {
                let fold = w
                    .iter()
                    .enumerate()
                    .rev()
                    .fold(0.0, |acc, (k, v)| acc * 0.5 + (k as $t + 1.0) * v);
                let zipped: $t =
                    w.iter().zip(x).skip(1).enumerate().rev().map(|(k, (a, b))| k as $t * a * b).sum();
                fold + zipped
            }

            /// Reversed after a `map` and after a `filter`, their closures
            /// changing nothing outside them (one sums in a loop of its
            /// own): `Σ_k 0.5ᵏ wₖ²` and `Σ_r 0.25ʳ 3 wₖ₍ᵣ₎` over the
            /// positive elements, each folded from the back.
            #[tape$(($mode))?]
            pub fn mapped_back(#[tracked] w: &[$t]) -> $t {
                let horner = w.iter().map(|v| v * v).rev().fold(0.0, |acc, s| acc * 0.5 + s);
                let kept = w
                    .iter()
                    .filter(|v| **v > 0.0)
                    .map(|v| {
                        let mut s = 0.0;
                        for j in 0..2 {
                            s += v * (j as $t + 1.0);
                        }
                        s
                    })
                    .rev()
                    .fold(0.0, |acc, s| acc * 0.25 + s);
                horner + kept
            }

            /// Arrays made by closures: an array's own `map` (of a
            /// parameter, of a literal, by a function's path) and
            /// `std::array::from_fn` with its length in the `let`'s type
            /// or in the call's turbofish.
            #[tape$(($mode))?]
            pub fn made(#[tracked] p: &[$t; 3]) -> $t {
                let q: [$t; 3] = std::array::from_fn(|i| p[i] * p[(i + 1) % 3]);
                let r = std::array::from_fn::<$t, 3, _>(|i| (p[i] - q[i]).sin());
                let s = p.map(|v| v * 2.0);
                let d = [p[0] - 1.0, p[1], p[2] * 0.5];
                let e = d.map(<$t>::exp);
                q[0] + q[1] + q[2] + r[0] * r[2] + s[1] * s[2] + e[0] + e[2]
            }

            /// Chains collected into `Vec`s, from a literal of elements
            /// and over two arrays chained: `w₀⁴ + w₂² + 2 w₀ wₙ₋₁ x₀`.
            #[tape$(($mode))?]
            pub fn gathered(#[tracked] w: &[$t], x: &[$t]) -> $t {
                let ends: Vec<$t> = [w[0], w[2]].iter().map(|t| t * t).collect();
                let both: Vec<$t> = w.iter().chain(x.iter()).map(|t| 2.0 * t).collect();
                ends[0] * ends[0] + ends[1] + both[0] * both[w.len() - 1] * x[0] * 0.5
            }

            /// Chains through the other adapters: copies reversed and
            /// skipped into a `fold`, zipped, a part chained, a `for` over
            /// a literal array and a part, and a `filter` and `step_by`.
            #[tape$(($mode))?]
            pub fn chained(#[tracked] w: &[$t], x: &[$t]) -> $t {
                let back = w
                    .iter()
                    .copied()
                    .chain(x.iter().copied())
                    .rev()
                    .skip(1)
                    .fold(0.0, |a, v| a * 0.5 + v);
                let zipped: $t = w.iter().chain(&x[..2]).zip(x.iter()).map(|(a, b)| a * b).sum();
                let mut looped = 0.0;
                for v in [w[0], 2.0].iter().chain(&w[2..4]) {
                    looped += v.sin() * *v;
                }
                let kept: $t = x.iter().chain(w).filter(|v| **v > 0.0).map(|v| v.exp()).sum();
                let every: $t = w.iter().chain(w.iter()).step_by(3).map(|v| v.cos()).sum();
                back + zipped + looped + kept + every
            }

            /// Ranges with steps, and `max_by` over copies.
            #[tape$(($mode))?]
            pub fn strided(#[tracked] w: &[$t]) -> $t {
                let even: $t = (0..w.len()).step_by(2).map(|i| w[i] * w[i]).sum();
                even + w.iter().copied().max_by(|a, b| a.total_cmp(b)).unwrap()
            }

            /// `reduce` with a float's path and with a closure, and a fold
            /// from an untyped `0.0` by `f64::max`.
            #[tape$(($mode))?]
            pub fn reduced(#[tracked] w: &[$t]) -> $t {
                let largest = w.iter().copied().reduce(<$t>::max).unwrap();
                let least = w.iter().map(|v| v.sin()).reduce(<$t>::min).unwrap();
                let total = w.iter().skip(1).copied().reduce(|a, b| a * 0.5 + b).unwrap();
                let peak = w.iter().map(|v| v.abs()).fold(0.0, <$t>::max);
                largest + least * total + peak
            }

            /// Sub-slices: iterated, zipped and summed, and a `for` over one.
            #[tape$(($mode))?]
            pub fn slices(#[tracked] w: &[$t]) -> $t {
                let head: $t = w[..2].iter().map(|v| v * v).sum();
                let inner: $t = w[1..4].iter().zip(&w[2..]).map(|(a, b)| a * b).sum();
                let mut tail = 0.0;
                for v in &w[3..] {
                    tail += v.sin();
                }
                let closed: $t = w[1..=2].iter().product();
                let mut shifted = 0.0;
                for (a, b) in w.iter().zip(w[1..].iter()) {
                    shifted += a * b;
                }
                head + inner + tail + closed + shifted
            }

            /// Where the generator found chains failing: inside `vec![…]`,
            /// as a `break` value, with a `filter`; over an array that only
            /// a later `.fill` records; `rev` and `take` of literal ends.
            #[tape$(($mode))?]
            pub fn placed(#[tracked] w: &[$t]) -> $t {
                let v = vec![w[0], w.iter().filter(|x| **x > 0.0).map(|x| x * x).sum::<$t>()];
                let mut h = [0.5; 3];
                let before: $t = h.iter().map(|x| x * 2.0).sum();
                h.fill(w[1]);
                let mut i = 0;
                let found = loop {
                    if i + 1 >= 2 {
                        break w.iter().filter(|x| **x < 0.5).map(|&x| x.sin()).sum::<$t>();
                    }
                    i += 1;
                };
                let tail: $t = (0..3).rev().take(2).map(|j| w[j]).sum();
                let lowest = vec![w
                    .iter()
                    .skip(1)
                    .enumerate()
                    .map(|(k, &x)| x * (k as $t + 1.0))
                    .min_by(|a, b| a.total_cmp(b))
                    .unwrap()];
                v[0] + v[1] + before + h[0] * h[2] + found + tail + lowest[0]
            }

            /// A sum that may be empty: -0.0 then, as std's.
            #[tape$(($mode))?]
            pub fn positive_sum(#[tracked] w: &[$t]) -> $t {
                w.iter().filter(|x| **x > 0.0).map(|x| x * x).sum()
            }

            /// A hinge loss over the points inside the margin: the margins
            /// made by `map`, kept by `filter`, whose closure is handed a
            /// reference to each (`|m| *m > 0.0`, `|&m| m > 0.5`):
            /// `Σ_{mᵢ > 0} mᵢ + Σ_{mᵢ > 0.5} mᵢ²`, `mᵢ = 1 − yᵢ (w₀ xᵢ₀ + w₁ xᵢ₁)`.
            #[tape$(($mode))?]
            pub fn margins(#[tracked] w: &[$t], xs: &[[$t; 2]], ys: &[$t]) -> $t {
                let hinge: $t = xs
                    .iter()
                    .zip(ys)
                    .map(|(x, y)| 1.0 - y * (w[0] * x[0] + w[1] * x[1]))
                    .filter(|m| *m > 0.0)
                    .sum();
                let squared: $t = xs
                    .iter()
                    .zip(ys)
                    .map(|(x, y)| 1.0 - y * (w[0] * x[0] + w[1] * x[1]))
                    .filter(|&m| m > 0.5)
                    .map(|m| m * m)
                    .sum();
                hinge + squared
            }

            /// Folds into tuples: the sum and sum of squares by `|(a, b), v|`
            /// (the variance, `Σ v²/n − (Σ v/n)²`), the extremes by `|acc,
            /// v|` reading `acc.0` and `acc.1` (their spread), and three
            /// running values: `var + (max − min) + Π (1 + vᵢ/4)`.
            #[tape$(($mode))?]
            pub fn folded(#[tracked] w: &[$t]) -> $t {
                let (s, s2) = w.iter().fold((0.0, 0.0), |(a, b), v| (a + v, b + v * v));
                let n = w.len() as $t;
                let (lo, hi) = w
                    .iter()
                    .fold((<$t>::INFINITY, <$t>::NEG_INFINITY), |acc, v| (acc.0.min(*v), acc.1.max(*v)));
                let (_, p, _) = w
                    .iter()
                    .fold((0.0, 1.0, 0), |(k, p, c), &v| (k + 1.0, p * (1.0 + v / 4.0), c + 1));
                s2 / n - (s / n).powi(2) + (hi - lo) + p
            }

            /// Positions: the first element above 0.5 (none: the length),
            /// its place read back, and the first square below 0.1 after
            /// `rev` (none: 9): `wₚ · (p + 1) + q`.
            #[tape$(($mode))?]
            pub fn positions(#[tracked] w: &[$t]) -> $t {
                let p = w.iter().position(|v| *v > 0.5).unwrap_or(w.len());
                let q = match w.iter().rev().map(|v| v * v).position(|s| s < 0.1) {
                    Some(k) => k as $t,
                    None => 9.0,
                };
                let at = if p < w.len() { w[p] } else { 0.0 };
                at * (p + 1) as $t + q
            }

            /// Closures bound by `let`: called, passed to `map`, and one
            /// called where it is written.
            #[tape$(($mode))?]
            pub fn closures(#[tracked] w: &[$t], k: $t) -> $t {
                let a = w[0] * k;
                let f = |x: $t| x * x + a;
                let g = |x: $t, y: $t| (x - y).tanh();
                let s: $t = w.iter().map(|v| f(*v)).sum();
                let t: $t = w.iter().copied().map(f).sum();
                let v = vec![f(w[0]), g(w[1], a)];
                f(w[1]) + g(w[2], a) + s + t + g(a, w[3]) + (|v: $t| v.sin())(w[1]) + v[0] * v[1]
            }

            /// Chains inside a chain's closure: over a literal that holds
            /// the outer element, over the knob from the outer position,
            /// and over the knob for each constant of a table.
            #[tape$(($mode))?]
            pub fn nested(#[tracked] w: &[$t]) -> $t {
                let outer: $t = w
                    .iter()
                    .map(|&a| [0.5, a].iter().map(|&b| a * b).sum::<$t>())
                    .sum();
                let pairs: $t = w
                    .iter()
                    .enumerate()
                    .map(|(i, &a)| w.iter().skip(i).map(|&b| (a - b).tanh()).sum::<$t>())
                    .sum();
                let c = [1.0, -0.5, 2.0];
                let table: $t = c
                    .iter()
                    .map(|&k| w.iter().map(|&x| (k * x).sin()).fold(0.0, |m, v| m + v * v))
                    .sum();
                outer + pairs + table
            }

            /// The window form.
            #[tape]
            pub fn window(a: $t, b: $t) -> ($t, $t, $t) {
                #[tracked]
                let a = a;
                #[tracked]
                let b = b;
                tape! {
                    let v = [a, b, a * b];
                    let scale = |x: $t| x * b;
                    let total: $t = v.iter().map(|x| scale(*x)).sum::<$t>()
                        + v.iter().fold(0.0, |m, x| m + x * x)
                        + v.iter().map(|&x| [x, b].iter().map(|&y| x * y).sum::<$t>()).sum::<$t>();
                }
                backward!(total);
                (total, gradient!(a), gradient!(b))
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
        let points: [&[$t]; 3] = [
            &[0.3, -0.7, 0.45, 0.9, 0.2],
            &[-0.55, 0.25, 0.8, -0.35, 0.6],
            &[1.1, 0.6, -0.2, 0.15, -0.4],
        ];
        let x: [$t; 5] = [0.5, -1.0, 2.0, 0.25, 0.75];
        for p in points {
            let (_, g) = dot_grad(p, &x);
            // the slope of a dot product is the other vector
            same(&g, &x, "dot by hand");
            same(&g, &$q::dot_grad(p, &x).1, "dot");

            let (_, g) = statistics_grad(p);
            same(&g, &$q::statistics_grad(p).1, "statistics");
            agree("statistics", &|v| statistics(v), p, &g);

            let (value, g) = positions_grad(p);
            assert_eq!(value, positions(p), "positions: the value");
            same(&g, &$q::positions_grad(p).1, "positions");
            agree("positions", &|v| positions(v), p, &g);
            // by hand: (p + 1) at the first element above 0.5, nothing else
            let first = p.iter().position(|v| *v > 0.5);
            let by_hand: Vec<$t> = (0..p.len())
                .map(|i| if Some(i) == first { (i + 1) as $t } else { 0.0 })
                .collect();
            same(&g, &by_hand, "positions by hand");

            let (value, g) = folded_grad(p);
            assert_eq!(value, folded(p), "folded: the value");
            same(&g, &$q::folded_grad(p).1, "folded");
            agree("folded", &|v| folded(v), p, &g);
            // by hand: 2 (wᵢ − mean) / n, ±1 at the extremes, the product's
            let n = p.len() as $t;
            let mean = p.iter().sum::<$t>() / n;
            let product: $t = p.iter().map(|v| 1.0 + v / 4.0).product();
            let (lo, hi) = p
                .iter()
                .fold((<$t>::INFINITY, <$t>::NEG_INFINITY), |(a, b), v| {
                    (a.min(*v), b.max(*v))
                });
            let by_hand: Vec<$t> = p
                .iter()
                .map(|v| {
                    let ends = if *v == hi {
                        1.0
                    } else if *v == lo {
                        -1.0
                    } else {
                        0.0
                    };
                    2.0 * (v - mean) / n + ends + product * 0.25 / (1.0 + v / 4.0)
                })
                .collect();
            same(&g, &by_hand, "folded by hand");

            let (_, g) = placed_grad(p);
            same(&g, &$q::placed_grad(p).1, "placed");
            agree("placed", &|v| placed(v), p, &g);

            let (_, g) = slices_grad(p);
            same(&g, &$q::slices_grad(p).1, "slices");
            agree("slices", &|v| slices(v), p, &g);

            let (_, g) = nested_grad(p);
            same(&g, &$q::nested_grad(p).1, "nested");
            agree("nested", &|v| nested(v), p, &g);

            let (value, g) = reduced_grad(p);
            assert_eq!(value, reduced(p), "reduced: the value");
            same(&g, &$q::reduced_grad(p).1, "reduced");
            agree("reduced", &|v| reduced(v), p, &g);

            let (value, g) = joined_grad(p, &x);
            assert_eq!(value, joined(p, &x), "joined: the value");
            same(&g, &$q::joined_grad(p, &x).1, "joined");
            agree("joined", &|v| joined(v, &x), p, &g);
            let by_hand: Vec<$t> = (0..p.len())
                .map(|i| 2.0 * p[i] + if i >= 1 { (i - 1) as $t } else { 0.0 })
                .collect();
            same(&g, &by_hand, "joined by hand");

            let (value, g) = gathered_grad(p, &x);
            assert_eq!(value, gathered(p, &x), "gathered: the value");
            same(&g, &$q::gathered_grad(p, &x).1, "gathered");
            agree("gathered", &|v| gathered(v, &x), p, &g);
            let n = p.len();
            let by_hand: Vec<$t> = (0..n)
                .map(|j| {
                    let mut d = 0.0;
                    if j == 0 {
                        d += 4.0 * p[0] * p[0] * p[0] + 2.0 * p[n - 1] * x[0];
                    }
                    if j == 2 {
                        d += 2.0 * p[2];
                    }
                    if j == n - 1 {
                        d += 2.0 * p[0] * x[0];
                    }
                    d
                })
                .collect();
            same(&g, &by_hand, "gathered by hand");

            let (value, g) = reversed_positions_grad(p, &x);
            assert_eq!(
                value,
                reversed_positions(p, &x),
                "reversed positions: the value"
            );
            same(
                &g,
                &$q::reversed_positions_grad(p, &x).1,
                "reversed positions",
            );
            agree("reversed positions", &|v| reversed_positions(v, &x), p, &g);
            let by_hand: Vec<$t> = (0..p.len())
                .map(|j| {
                    let zipped = if j >= 1 { (j - 1) as $t * x[j] } else { 0.0 };
                    (j + 1) as $t * (0.5 as $t).powi(j as i32) + zipped
                })
                .collect();
            same(&g, &by_hand, "reversed positions by hand");

            let three = [p[0], p[1], p[2]];
            let (value, g) = made_grad(&three);
            assert_eq!(value, made(&three), "made: the value");
            same(&g, &$q::made_grad(&three).1, "made");
            agree("made", &|v| made(&[v[0], v[1], v[2]]), &three, &g);

            let (value, g) = mapped_back_grad(p);
            assert_eq!(value, mapped_back(p), "mapped back: the value");
            same(&g, &$q::mapped_back_grad(p).1, "mapped back");
            agree("mapped back", &|v| mapped_back(v), p, &g);
            let mut rank = 0;
            let by_hand: Vec<$t> = (0..p.len())
                .map(|k| {
                    let mut d = 2.0 * (0.5 as $t).powi(k as i32) * p[k];
                    if p[k] > 0.0 {
                        d += 3.0 * (0.25 as $t).powi(rank);
                        rank += 1;
                    }
                    d
                })
                .collect();
            same(&g, &by_hand, "mapped back by hand");

            let (value, g) = chained_grad(p, &x);
            assert_eq!(value, chained(p, &x), "chained: the value");
            same(&g, &$q::chained_grad(p, &x).1, "chained");
            agree("chained", &|v| chained(v, &x), p, &g);

            let (_, g) = strided_grad(p);
            same(&g, &$q::strided_grad(p).1, "strided");
            agree("strided", &|v| strided(v), p, &g);

            for k in [1.5, -0.5] {
                let (_, g) = closures_grad(p, k);
                same(&g, &$q::closures_grad(p, k).1, "closures");
                agree("closures", &|v| closures(v, k), p, &g);
            }

            let (_, da, db) = window(p[0], p[1]);
            agree("window", &|v| window(v[0], v[1]).0, &p[..2], &[da, db]);

            let xs: [[$t; 2]; 4] = [[1.0, 2.0], [0.5, -1.0], [3.0, 0.1], [-0.4, 0.3]];
            let ys: [$t; 4] = [1.0, -1.0, 1.0, -1.0];
            let (value, g) = margins_grad(&p[..2], &xs, &ys);
            assert_eq!(value, margins(&p[..2], &xs, &ys), "margins: the value");
            same(&g, &$q::margins_grad(&p[..2], &xs, &ys).1, "margins");
            agree("margins", &|v| margins(v, &xs, &ys), &p[..2], &g);
            // by hand: −yᵢ xᵢ where mᵢ > 0, and 2 mᵢ (−yᵢ xᵢ) where mᵢ > 0.5
            let mut by_hand = [0.0; 2];
            for (x, y) in xs.iter().zip(ys) {
                let m = 1.0 - y * (p[0] * x[0] + p[1] * x[1]);
                let weight = if m > 0.0 { 1.0 } else { 0.0 } + if m > 0.5 { 2.0 * m } else { 0.0 };
                by_hand[0] -= weight * y * x[0];
                by_hand[1] -= weight * y * x[1];
            }
            same(&g, &by_hand, "margins by hand");

            let data: [($t, $t); 4] = [(0.5, 0.1), (-1.0, 0.4), (2.0, -0.3), (0.25, 0.9)];
            let (value, g) = pairs_grad(p, &data);
            assert_eq!(value, pairs(p, &data), "pairs: the value");
            same(&g, &$q::pairs_grad(p, &data).1, "pairs");
            agree("pairs", &|v| pairs(v, &data), p, &g);
            // by hand: 2 Σ rᵢ xᵢ + x₀ and 2 Σ rᵢ + x₁, then xᵢ below 4
            let mut by_hand = [0.0; 5];
            for (i, (x, y)) in data.iter().enumerate() {
                let r = p[0] * x + p[1] - y;
                by_hand[0] += 2.0 * r * x;
                by_hand[1] += 2.0 * r;
                by_hand[i] += x;
            }
            same(&g, &by_hand, "pairs by hand");
        }
    }};
}

#[test]
fn chains_and_closures_agree_with_finite_differences_hand_slopes_and_plain_adjoints() {
    check_all!(p64, q64, f64, 1e-6, 1e-12);
    check_all!(p32, q32, f32, 2e-2, 1e-5);
}

/// The chains compute what they did before Mica wrote them as loops.
#[test]
fn values_are_unchanged() {
    let w = [0.3, -0.7, 0.45, 0.9, 0.2];
    let by_std = {
        let l2 = w.iter().map(|v| v * v).sum::<f64>().sqrt();
        let positive: f64 = w.iter().filter(|v| **v > 0.0).map(|v| v.exp()).sum();
        let largest = w.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        let smallest = *w.iter().min_by(|a, b| a.partial_cmp(b).unwrap()).unwrap();
        let middle: f64 = w.iter().skip(1).take(2).product();
        let weighted: f64 = w
            .iter()
            .rev()
            .enumerate()
            .map(|(k, v)| (k as f64 + 1.0) * v)
            .sum();
        let ramp: f64 = w.iter().enumerate().map(|(i, v)| v.sin() * i as f64).sum();
        let above = w.iter().filter(|v| **v > 0.1).count() as f64;
        let lse: f64 = w.iter().map(|v| (v - largest).exp()).sum();
        l2 + positive + largest + smallest + middle + weighted + ramp + lse.ln() + above
    };
    let (value, _) = p64::statistics_grad(&w);
    assert!((value - by_std).abs() < 1e-12, "{value} vs {by_std}");
    // the sub-slices, by index
    let by_index = w[0] * w[0]
        + w[1] * w[1]
        + (w[1] * w[2] + w[2] * w[3] + w[3] * w[4])
        + (w[3].sin() + w[4].sin())
        + w[1] * w[2]
        + (w[0] * w[1] + w[1] * w[2] + w[2] * w[3] + w[3] * w[4]);
    // an empty float sum is -0.0, in std and in Mica's loop: the values
    // agree to the bit (`filter` keeps nothing here)
    let negative = [-0.3, -0.7, -0.45, -0.9, -0.2];
    let (value, g) = p64::positive_sum_grad(&negative);
    assert_eq!(value.to_bits(), p64::positive_sum(&negative).to_bits());
    assert!(value.is_sign_negative() && g.iter().all(|d| *d == 0.0));
    let empty: f64 = negative.iter().filter(|x| **x > 0.0).sum();
    assert!(empty == 0.0 && empty.is_sign_negative());
    // two arrays chained, as std chains them
    let x = [0.5, -1.0, 2.0, 0.25, 0.75];
    let by_std = {
        let back = w
            .iter()
            .copied()
            .chain(x.iter().copied())
            .rev()
            .skip(1)
            .fold(0.0, |a, v| a * 0.5 + v);
        let zipped: f64 = w
            .iter()
            .chain(&x[..2])
            .zip(x.iter())
            .map(|(a, b)| a * b)
            .sum();
        let mut looped = 0.0;
        for v in [w[0], 2.0].iter().chain(&w[2..4]) {
            looped += v.sin() * *v;
        }
        let kept: f64 = x
            .iter()
            .chain(&w)
            .filter(|v| **v > 0.0)
            .map(|v| v.exp())
            .sum();
        let every: f64 = w.iter().chain(w.iter()).step_by(3).map(|v| v.cos()).sum();
        back + zipped + looped + kept + every
    };
    assert_eq!(p64::chained_grad(&w, &x).0, by_std);
    let (value, _) = p64::slices_grad(&w);
    assert!((value - by_index).abs() < 1e-12, "{value} vs {by_index}");
    // `reduce` as std runs it, and its `unwrap` of nothing panics
    let by_std = {
        let largest = w.iter().copied().reduce(f64::max).unwrap();
        let least = w.iter().map(|v| v.sin()).reduce(f64::min).unwrap();
        let total = w
            .iter()
            .skip(1)
            .copied()
            .reduce(|a, b| a * 0.5 + b)
            .unwrap();
        let peak = w.iter().map(|v| v.abs()).fold(0.0, f64::max);
        largest + least * total + peak
    };
    assert_eq!(p64::reduced_grad(&w).0, by_std);
    assert!(std::panic::catch_unwind(|| p64::reduced_grad(&[0.5])).is_err());
    assert!(std::panic::catch_unwind(|| p64::reduced(&[0.5])).is_err());
}
