//! Arrays, loops and branches over recorded values.
//!
//! Each construct that arrays, loops and branches add to the recorded
//! vocabulary is exercised by a `#[tape]` program and checked three ways:
//!
//! - against central finite differences at several pseudo-random points (a
//!   tiny LCG below, no dependency);
//! - in both forms: the function form (`#[tracked]` parameters, `f_grad`)
//!   and the same body recorded in a `tape! { … }` window, which must agree
//!   exactly, value and gradient (to rounding where the function form fuses
//!   a loop, which adds the same terms in another order);
//! - the value returned with the gradient is bit-identical to the plain
//!   function's.
//!
//! Everything is stamped twice from one body, for `f64` and for `f32`
//! (`suite!`). Four realistic programs (least squares, a damped spring, a
//! softmax cross-entropy, a two-layer MLP) are also checked against adjoints
//! written by hand here, independently of the macro.
//!
//! Bugs found while writing this file are kept at the bottom as commented-out
//! reproductions marked `// BUG:`.
#![deny(warnings)]
// The programs below index arrays in range loops on purpose: indexing
// recorded arrays inside loops is what this file tests.
#![allow(clippy::needless_range_loop)]

/// A 64-bit linear congruential generator (Knuth's MMIX constants): enough
/// to pick points that are not hand-picked, deterministically.
pub struct Lcg(u64);

impl Lcg {
    pub fn new(seed: u64) -> Self {
        let mut lcg = Lcg(seed ^ 0x9e37_79b9_7f4a_7c15);
        lcg.unit();
        lcg
    }

    /// Uniform in `[0, 1)`, from the top 53 bits.
    pub fn unit(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `[lo, hi)`.
    pub fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.unit()
    }
}

#[macro_use]
mod twin;

macro_rules! suite {
    ($m:ident, $r:ident, $tol:expr) => {
        mod $m {
            // `x = x + dt * v` is a form under test (`+=` is tested too),
            // and so is a tracked `&Vec<R>`
            #![allow(clippy::assign_op_pattern, clippy::ptr_arg)]
            use super::Lcg;
            // `tape`, `R` and the finite-difference `check`
            suite_prelude!($r, $tol);

            /// bit-identical
            fn same(a: R, b: R) {
                assert_eq!(a.to_bits(), b.to_bits(), "{a} vs {b}");
            }

            /// equal to rounding: 256 ε relative to the larger, or to one
            fn near(a: &[R], b: &[R]) {
                assert_eq!(a.len(), b.len());
                for (x, y) in a.iter().zip(b) {
                    let scale = x.abs().max(y.abs()).max(1.0);
                    assert!((x - y).abs() <= 256.0 * R::EPSILON * scale, "{a:?} vs {b:?}");
                }
            }

            /// `n` points of `dim` coordinates, uniform in `[lo, hi)`
            fn points(seed: u64, n: usize, dim: usize, lo: f64, hi: f64) -> Vec<Vec<R>> {
                let mut rng = Lcg::new(seed);
                (0..n)
                    .map(|_| (0..dim).map(|_| rng.uniform(lo, hi) as R).collect())
                    .collect()
            }

            fn arr<const N: usize>(p: &[R]) -> [R; N] {
                let mut a = [0.0; N];
                a.copy_from_slice(&p[..N]);
                a
            }

            fn mat<const N: usize, const M: usize>(p: &[R]) -> [[R; M]; N] {
                let mut a = [[0.0; M]; N];
                for (i, row) in a.iter_mut().enumerate() {
                    row.copy_from_slice(&p[i * M..(i + 1) * M]);
                }
                a
            }

            fn flat<const N: usize, const M: usize>(a: &[[R; M]; N]) -> Vec<R> {
                a.iter().flatten().copied().collect()
            }

            // ------------------------------------------------- indexing

            twin! {
                fn rows, rows_window
                (w: [[R; 3]; 2] => [[R; 3]; 2], v: Vec<R> => Vec<R>; x: [R; 3]) -> loss
                {
                    // `w[i][j]`, a row bound by name, rows iterated, `.len()`
                    let mut s = w[1][2] * v[0];
                    let r = w[1];
                    s += r[0] * r[1] - w[0][2];
                    for row in w.iter() {
                        let mut h = 0.0;
                        for j in 0..3 {
                            h += row[j] * x[j];
                        }
                        s += h.tanh();
                    }
                    for (i, row) in w.iter().enumerate() {
                        for (j, a) in row.iter().enumerate() {
                            s += a * v[i + j] * x[j];
                        }
                    }
                    let n = v.len();
                    s = s + v[n - 1] * w[0][0] + v[n / 2].sin();
                    let loss = s;
                }
            }

            #[test]
            fn indexing_rows_and_len() {
                let x = [0.5, -1.25, 2.0];
                for p in points(1, 5, 10, -1.0, 1.0) {
                    let (w, v) = (mat::<2, 3>(&p), p[6..].to_vec());
                    let (value, (dw, dv)) = rows_grad(w, v.clone(), x);
                    same(value, rows(w, v.clone(), x));
                    let (wv, (ww, wvg)) = rows_window(w, v.clone(), x);
                    same(wv, value);
                    // the function form's nested sums are fused: the same
                    // terms, added in another order
                    close(&flat(&ww), &flat(&dw), 16.0 * R::EPSILON);
                    close(&wvg, &dv, 16.0 * R::EPSILON);
                    let mut g = flat(&dw);
                    g.extend(&dv);
                    check(|p| rows(mat(p), p[6..].to_vec(), x), &p, &g);
                }
            }

            // ---------------------------------------------------- ranges

            twin! {
                fn ranges, ranges_window
                (w: [R; 4] => [R; 4]; lo: usize, hi: usize, xs: &[R]) -> loss
                {
                    let mut s = 0.0;
                    // run-time bounds, empty when `lo >= hi`
                    for i in lo..hi {
                        s += w[i] * xs[i];
                    }
                    for i in 0..=2 {
                        s = s * w[3 - i] + 0.25;
                    }
                    for i in 0..xs.len() {
                        s += (w[i % 4] - xs[i]).powi(2);
                    }
                    // bounded by the recorded array's own length
                    for i in 1..w.len() {
                        s += w[i - 1] * w[i];
                    }
                    let loss = s;
                }
            }

            #[test]
            fn ranges_with_run_time_bounds() {
                let xs = [0.25, -0.5, 0.75, 1.5, -1.0, 0.125];
                let bounds = [(0, 4), (1, 3), (2, 2), (3, 1), (0, 0)];
                for (p, (lo, hi)) in points(2, 5, 4, -1.0, 1.0).into_iter().zip(bounds) {
                    let w = arr::<4>(&p);
                    let (value, dw) = ranges_grad(w, lo, hi, &xs);
                    same(value, ranges(w, lo, hi, &xs));
                    let (wv, (ww,)) = ranges_window(w, lo, hi, &xs);
                    same(wv, value);
                    assert_eq!(ww, dw);
                    check(|p| ranges(arr(p), lo, hi, &xs), &p, &dw);
                }
            }

            // ------------------------------------------------- iterators

            twin! {
                fn iters, iters_window
                (w: [R; 4] => [R; 4], v: Vec<R> => Vec<R>; xs: &[R]) -> loss
                {
                    let mut s = 0.0;
                    for x in w.iter() {
                        s += x * x;
                    }
                    for (i, x) in w.iter().enumerate() {
                        s += x * xs[i];
                    }
                    for (a, b) in w.iter().zip(v.iter()) {
                        s += a * b;
                    }
                    for (a, x) in v.iter().zip(xs) {
                        s += (a - x).sin();
                    }
                    for x in &w {
                        s = s * 0.75 + x;
                    }
                    for x in &v {
                        s += x * 0.5;
                    }
                    for &x in v.iter() {
                        s += x.exp() * 0.125;
                    }
                    for x in w.iter().copied() {
                        s += x.cos();
                    }
                    // a constant on the left, a recorded array on the right
                    for (x, a) in xs.iter().zip(&v) {
                        s += x * a * a;
                    }
                    for (i, (a, b)) in w.iter().zip(v.iter()).enumerate() {
                        s += a * b * xs[i];
                    }
                    let loss = s;
                }
            }

            #[test]
            fn iterators() {
                let xs = [0.25, -0.5, 0.75, 1.5, -1.0];
                for p in points(3, 5, 8, -1.0, 1.0) {
                    let (w, v) = (arr::<4>(&p), p[4..].to_vec());
                    let (value, (dw, dv)) = iters_grad(w, v.clone(), &xs);
                    same(value, iters(w, v.clone(), &xs));
                    let (wv, (ww, wvg)) = iters_window(w, v.clone(), &xs);
                    same(wv, value);
                    assert_eq!((ww, &wvg), (dw, &dv));
                    let mut g = dw.to_vec();
                    g.extend(&dv);
                    check(|p| iters(arr(p), p[4..].to_vec(), &xs), &p, &g);
                }
            }

            // reference shapes (the function form only: a knob is a value)
            #[tape]
            pub fn shapes(#[tracked] a: &[R; 3], #[tracked] v: &Vec<R>, #[tracked] m: &[[R; 2]; 2]) -> R {
                let mut s = 0.0;
                for (x, y) in a.iter().zip(v.iter()) {
                    s += x * y;
                }
                for row in m.iter() {
                    for (j, x) in row.iter().enumerate() {
                        s += x * a[j + 1];
                    }
                }
                for i in 0..v.len() {
                    s = s * 0.5 + v[i] * m[i % 2][1];
                }
                for x in a {
                    s += x.sin();
                }
                s
            }

            #[test]
            fn reference_shapes() {
                for p in points(19, 4, 11, -1.0, 1.0) {
                    let (a, v, m) = (arr::<3>(&p), p[3..7].to_vec(), mat::<2, 2>(&p[7..]));
                    let (value, (da, dv, dm)) = shapes_grad(&a, &v, &m);
                    same(value, shapes(&a, &v, &m));
                    let mut g = da.to_vec();
                    g.extend(&dv);
                    g.extend(flat(&dm));
                    check(|p| shapes(&arr(p), &p[3..7].to_vec(), &mat(&p[7..])), &p, &g);
                }
            }

            // ----------------------------------------------------- while

            twin! {
                fn whiles, whiles_window
                (a: R => R, b: R => R; n: usize) -> loss
                {
                    let mut x = a;
                    let mut i = 0;
                    while i < n {
                        x = x * b + 0.125;
                        i += 1;
                    }
                    // a condition on recorded values: the trip count depends
                    // on the knobs (the points keep clear of its jumps)
                    let mut y = b;
                    let mut k = 0;
                    while y < a * 4.0 + 1.0 {
                        y = y * 1.5 + a * 0.25;
                        k += 1;
                    }
                    let loss = x + y * k as R;
                }
            }

            #[test]
            fn while_loops() {
                // the recorded condition's trip count, by plain code
                let trips = |a: R, b: R| {
                    let (mut y, mut k) = (b, 0);
                    while y < a * 4.0 + 1.0 {
                        y = y * 1.5 + a * 0.25;
                        k += 1;
                    }
                    k
                };
                let mut seen = std::collections::BTreeSet::new();
                for (p, n) in points(4, 6, 2, 0.25, 1.25)
                    .into_iter()
                    .zip([0, 1, 2, 5, 9, 3])
                {
                    let (value, (da, db)) = whiles_grad(p[0], p[1], n);
                    same(value, whiles(p[0], p[1], n));
                    let (wv, g) = whiles_window(p[0], p[1], n);
                    same(wv, value);
                    assert_eq!(g, (da, db));
                    check(|p| whiles(p[0], p[1], n), &p, &[da, db]);
                    seen.insert(trips(p[0], p[1]));
                }
                assert!(seen.len() >= 3, "trip counts {seen:?}");
            }

            // ---------------------------------------------- nested loops

            // a named bound: over a literal range the function form writes
            // the short loop out (adding in another order than the window,
            // which keeps it), and this program is about the loops
            const ROWS: usize = 3;

            twin! {
                fn nested, nested_window
                (w: [[R; 3]; 3] => [[R; 3]; 3]; n: usize) -> loss
                {
                    let mut s = 0.0;
                    for i in 0..ROWS {
                        // a triangular inner loop, its bound the outer index
                        let mut t = 1.0;
                        for j in 0..=i {
                            t = t * w[i][j] + w[j][i];
                        }
                        s += t;
                        let mut k = 0;
                        while k < i {
                            s += w[k][i] * s * 0.125;
                            k += 1;
                        }
                        // an inner loop that runs zero times when n == 0
                        for _ in 0..n {
                            s = s * 0.5 + w[i][i];
                        }
                        // a loop inside a branch arm, its accumulator
                        // made in the arm and read after the loop
                        if i % 2 == 1 {
                            let mut c = 0.0;
                            for j in 0..3 {
                                c += w[j][i] * w[i][j];
                            }
                            s = s * c;
                        }
                    }
                    let loss = s;
                }
            }

            #[test]
            fn nested_loops() {
                for (p, n) in points(5, 5, 9, -1.0, 1.0).into_iter().zip([0, 1, 2, 3, 0]) {
                    let w = mat::<3, 3>(&p);
                    let (value, dw) = nested_grad(w, n);
                    same(value, nested(w, n));
                    let (wv, (ww,)) = nested_window(w, n);
                    same(wv, value);
                    assert_eq!(ww, dw);
                    check(|p| nested(mat(p), n), &p, &flat(&dw));
                }
            }

            // ------------------------------------------ carried values

            twin! {
                fn carried, carried_window
                (k: R => R, c: R => R; steps: usize) -> loss
                {
                    let dt = 0.05;
                    let (mut x, mut v, mut e) = (1.0, 0.0, 0.0);
                    let mut p = 1.0;
                    for _ in 0..steps {
                        let a = -k * x - c * v;
                        v = v + dt * a;
                        x = x + dt * v;
                        e += x * x * dt;
                        p *= 1.0 + x * 0.125;
                        p -= v * 0.01;
                        p /= 1.0 + c * 0.01;
                    }
                    let loss = e + x * v + p;
                }
            }

            #[test]
            fn loop_carried_values() {
                for (p, steps) in points(6, 5, 2, 0.25, 2.0)
                    .into_iter()
                    .zip([0, 1, 7, 40, 100])
                {
                    let (value, (dk, dc)) = carried_grad(p[0], p[1], steps);
                    same(value, carried(p[0], p[1], steps));
                    let (wv, g) = carried_window(p[0], p[1], steps);
                    same(wv, value);
                    assert_eq!(g, (dk, dc));
                    check(|p| carried(p[0], p[1], steps), &p, &[dk, dc]);
                }
            }

            // -------------------------------------------------- if/else

            twin! {
                fn ifs, ifs_window
                (x: R => R, y: R => R;) -> loss
                {
                    let mut m = x;
                    if y > m {
                        m = y;
                    }
                    let mut t = 0.0;
                    if x > 0.5 {
                        t = x * y;
                    } else if y > 0.0 {
                        t = y.sqrt() + x;
                    } else {
                        t -= x * 2.0 - y;
                    }
                    let u = if x * y > 0.125 { x.exp() } else { y * 3.0 };
                    let d = 2.0 * if x > y { x - y } else { y - x } + 1.0;
                    // an arm that gives a constant
                    let z = if x < -0.5 { 1.0 } else { x * x };
                    let loss = m * t + u + d * z;
                }
            }

            #[test]
            fn if_else_chains() {
                let mut arms = [false; 3];
                for p in points(10, 8, 2, -1.0, 1.0) {
                    arms[if p[0] > 0.5 { 0 } else if p[1] > 0.0 { 1 } else { 2 }] = true;
                    let (value, (dx, dy)) = ifs_grad(p[0], p[1]);
                    same(value, ifs(p[0], p[1]));
                    let (wv, g) = ifs_window(p[0], p[1]);
                    same(wv, value);
                    assert_eq!(g, (dx, dy));
                    check(|p| ifs(p[0], p[1]), &p, &[dx, dy]);
                }
                assert_eq!(arms, [true; 3], "the points take every arm");
            }

            // ---------------------------------------------------- match

            #[derive(Clone, Copy, Debug)]
            pub enum Mode {
                Lin,
                Sq,
                Scaled(R),
            }

            twin! {
                fn matches, matches_window
                (x: R => R, y: R => R; k: i32, mode: Mode) -> loss
                {
                    let a = match k {
                        0 if x > y => x - y,
                        0 => y - x,
                        1 | 2 => x * y,
                        _ => 3.0,
                    };
                    let b = match mode {
                        Mode::Lin => x,
                        Mode::Sq => x * x,
                        Mode::Scaled(f) => y * f,
                    };
                    let c = match x > 0.0 {
                        true => x.sqrt(),
                        false => y * y,
                    };
                    let mut d = 0.0;
                    match k {
                        0 => d = x,
                        1 => {
                            d = y;
                            d *= x;
                        }
                        _ => {}
                    }
                    let loss = a + b * c + d;
                }
            }

            #[test]
            fn match_on_integers_enums_and_bools() {
                let cases = [
                    (0, Mode::Lin),
                    (0, Mode::Sq),
                    (1, Mode::Scaled(2.5)),
                    (2, Mode::Sq),
                    (7, Mode::Lin),
                ];
                let mut guard = [false; 2];
                for (p, (k, mode)) in points(11, 10, 2, -1.0, 1.0)
                    .into_iter()
                    .zip(cases.iter().cycle())
                {
                    let (k, mode) = (*k, *mode);
                    if k == 0 {
                        guard[usize::from(p[0] > p[1])] = true;
                    }
                    let (value, (dx, dy)) = matches_grad(p[0], p[1], k, mode);
                    same(value, matches(p[0], p[1], k, mode));
                    let (wv, g) = matches_window(p[0], p[1], k, mode);
                    same(wv, value);
                    assert_eq!(g, (dx, dy));
                    check(|p| matches(p[0], p[1], k, mode), &p, &[dx, dy]);
                }
                assert_eq!(guard, [true; 2], "the guard goes both ways");
            }

            // ------------------------------------- arrays made in the body

            twin! {
                fn locals, locals_window
                (w: [R; 3] => [R; 3], v: Vec<R> => Vec<R>; n: usize) -> loss
                {
                    let mut h = [0.0; 3];
                    for i in 0..3 {
                        h[i] = w[i] * v[i];
                    }
                    // every compound write, and an element overwritten
                    // several times
                    h[0] += w[1];
                    h[1] -= w[2] * 0.5;
                    h[2] *= w[0];
                    h[0] /= w[2] * w[2] + 1.5;
                    h[1] = h[1] * h[1];
                    h[1] = h[1] + h[0];
                    let mut g = vec![0.0; n];
                    for i in 0..n {
                        g[i] = h[i % 3] * v[i % v.len()];
                    }
                    // a recurrence through the array
                    for i in 1..n {
                        g[i] += g[i - 1] * 0.5;
                    }
                    let mut m = [[0.0; 2]; 2];
                    for i in 0..2 {
                        for j in 0..2 {
                            m[i][j] = w[i] * w[j] + h[i + j];
                        }
                    }
                    m[1][0] += m[0][1];
                    m[0][0] = m[1][1] * 2.0;
                    let lit = [w[0] * 2.0, v[1], 1.0];
                    let rep = [w[2]; 3];
                    let lv = vec![h[0], w[1] * w[1]];
                    let mut s = lit[0] * rep[1] + lit[1] * lv[1] + lit[2] + lv[0] * rep[2];
                    for x in g.iter() {
                        s += x;
                    }
                    for row in m.iter() {
                        s += row[0] * row[1];
                    }
                    for (i, x) in h.iter().enumerate() {
                        s += x * lit[i];
                    }
                    let loss = s;
                }
            }

            #[test]
            fn arrays_made_in_the_body() {
                for (p, n) in points(9, 5, 6, -1.0, 1.0).into_iter().zip([0, 1, 3, 5, 8]) {
                    let (w, v) = (arr::<3>(&p), p[3..].to_vec());
                    let (value, (dw, dv)) = locals_grad(w, v.clone(), n);
                    same(value, locals(w, v.clone(), n));
                    let (wv, (ww, wvg)) = locals_window(w, v.clone(), n);
                    same(wv, value);
                    // to rounding: the function form reads `w[0]` once for
                    // all its lines, and adds its shares in another order
                    near(&ww, &dw);
                    near(&wvg, &dv);
                    let mut g = dw.to_vec();
                    g.extend(&dv);
                    check(|p| locals(arr(p), p[3..].to_vec(), n), &p, &g);
                }
            }

            // -------------------------------------- calls and `detach`

            #[tape]
            pub fn bump(#[tracked] a: R, #[tracked] b: R, k: R) -> R {
                (a * b + k).tanh()
            }

            twin! {
                fn calls, calls_window
                (x: R => R, w: [R; 3] => [R; 3];) -> loss
                {
                    let mut s = 0.0;
                    for (i, a) in w.iter().enumerate() {
                        let k = i as R;
                        let z = if *a > 0.0 { bump(*a, x, k) } else { bump(x, x, 0.5) };
                        s += z * a;
                    }
                    // `detach` chooses an index: piecewise constant
                    let j = mica::detach(x * 4.0).abs() as usize % 3;
                    let loss = s + w[j] * bump(x, w[j], 0.25);
                }
            }

            #[test]
            fn calls_to_tape_functions() {
                for p in points(10, 6, 4, -1.0, 1.0) {
                    let w = arr::<3>(&p[1..]);
                    let (value, (dx, dw)) = calls_grad(p[0], w);
                    same(value, calls(p[0], w));
                    let (wv, (wx, ww)) = calls_window(p[0], w);
                    same(wv, value);
                    let mut g = vec![dx];
                    g.extend(dw);
                    // the function form runs the loop's reverse inside the
                    // loop (it only sums into `s`): the same slopes, added in
                    // another order than the window's
                    let mut gw = vec![wx];
                    gw.extend(ww);
                    close(&gw, &g, ADJOINT_REL);
                    check(|p| calls(p[0], arr(&p[1..])), &p, &g);
                }
            }

            #[tape]
            pub fn detached(#[tracked] w: [R; 2]) -> R {
                let mut s = 0.0;
                for x in w.iter() {
                    s += x * mica::detach(*x);
                }
                s
            }

            #[test]
            fn detach_passes_a_constant() {
                // s = Σ x·detach(x): the slope is x, not 2x
                let (value, g) = detached_grad([0.75, -1.5]);
                same(value, 0.75 * 0.75 + 1.5 * 1.5);
                assert_eq!(g, [0.75, -1.5]);
            }

            // ------------------------------------------------ realistic

            /// `|a − b| ≤ rel · max(1, |a|, |b|)`, elementwise: a hand-written
            /// adjoint sums in its own order, so it agrees to rounding only
            fn close(a: &[R], b: &[R], rel: R) {
                assert_eq!(a.len(), b.len());
                for (i, (x, y)) in a.iter().zip(b).enumerate() {
                    let scale = x.abs().max(y.abs()).max(1.0);
                    assert!((x - y).abs() <= rel * scale, "slope {i}: {x} vs {y}");
                }
            }

            /// A hand-written adjoint sums in its own order, so it agrees to
            /// a few ulps only (3.4 ε at worst here; the spring's adjoint
            /// happens to round alike, to 0)
            const ADJOINT_REL: R = R::EPSILON * 16.0;

            #[tape]
            pub fn least_squares(#[tracked] w: &[R], #[tracked] b: R, xs: &[[R; 3]], ys: &[R]) -> R {
                let mut s = 0.0;
                for (x, y) in xs.iter().zip(ys) {
                    let mut pred = b;
                    for (wj, xj) in w.iter().zip(x) {
                        pred += wj * xj;
                    }
                    let r = pred - y;
                    s += r * r;
                }
                s / ys.len() as R
            }

            /// d/dw_j = 2/n Σ r_i x_ij, d/db = 2/n Σ r_i
            fn least_squares_adjoint(w: &[R], b: R, xs: &[[R; 3]], ys: &[R]) -> (Vec<R>, R) {
                let n = ys.len() as R;
                let (mut dw, mut db) = (vec![0.0; w.len()], 0.0);
                for (x, y) in xs.iter().zip(ys) {
                    let r = b + w.iter().zip(x).map(|(a, b)| a * b).sum::<R>() - y;
                    for (d, xj) in dw.iter_mut().zip(x) {
                        *d += 2.0 * r * xj / n;
                    }
                    db += 2.0 * r / n;
                }
                (dw, db)
            }

            fn data_set(seed: u64) -> (Vec<[R; 3]>, Vec<R>) {
                let mut rng = Lcg::new(seed);
                let xs: Vec<[R; 3]> = (0..50)
                    .map(|_| [0, 1, 2].map(|_| rng.uniform(-1.0, 1.0) as R))
                    .collect();
                let ys = xs
                    .iter()
                    .map(|x| 0.5 * x[0] - 1.5 * x[1] + 2.0 * x[2] + 0.25 + rng.uniform(-0.1, 0.1) as R)
                    .collect();
                (xs, ys)
            }

            #[test]
            fn least_squares_over_50_points() {
                let (xs, ys) = data_set(11);
                for p in points(12, 5, 4, -2.0, 2.0) {
                    let (w, b) = (&p[..3], p[3]);
                    let (value, (dw, db)) = least_squares_grad(w, b, &xs, &ys);
                    same(value, least_squares(w, b, &xs, &ys));
                    let (hw, hb) = least_squares_adjoint(w, b, &xs, &ys);
                    close(&dw, &hw, ADJOINT_REL);
                    close(&[db], &[hb], ADJOINT_REL);
                    let mut g = dw.clone();
                    g.push(db);
                    check(|p| least_squares(&p[..3], p[3], &xs, &ys), &p, &g);
                }
            }

            /// `slot = old + 2.5 × slope`, to a few ulps of the larger of
            /// the two terms: 2.5 is not a power of two, so the seeded
            /// reverse rounds at every step where `_grad`'s does not, and
            /// an array's slot takes each example's slope into `old` one
            /// at a time (both sides measured within ~10 ulps of an f64
            /// reference, relative to the sum, which can cancel)
            fn accumulated(slot: &[R], old: &[R], slope: &[R]) {
                assert_eq!(slot.len(), slope.len());
                for (i, ((s, o), d)) in slot.iter().zip(old).zip(slope).enumerate() {
                    let want = o + 2.5 * d;
                    let scale = o.abs().max((2.5 * d).abs()).max(1.0);
                    assert!((s - want).abs() <= 8.0 * R::EPSILON * scale, "slot {i}: {s}, want {want}");
                }
            }

            #[test]
            fn backward_adds_seed_times_slope_into_the_slots() {
                let (xs, ys) = data_set(13);
                for p in points(14, 4, 4, -2.0, 2.0) {
                    let (w, b) = (&p[..3], p[3]);
                    let (value, (dw, db)) = least_squares_grad(w, b, &xs, &ys);
                    let old = [0.375, -1.25, 3.0];
                    let (mut slot_w, mut slot_b) = (old, 0.5);
                    let v = least_squares_backward(w, b, &xs, &ys, 2.5, &mut slot_w, &mut slot_b);
                    same(v, value);
                    accumulated(&slot_w, &old, &dw);
                    accumulated(&[slot_b], &[0.5], &[db]);
                }
                // a fixed-size array parameter
                let w = [[0.25, -0.5, 1.0], [0.75, 0.125, -1.5]];
                let v = vec![0.5, -0.25, 1.0, 2.0];
                let x = [0.5, -1.25, 2.0];
                let (value, (dw, dv)) = rows_grad(w, v.clone(), x);
                let mut slot_w = [[1.0, 2.0, 3.0], [-1.0, -2.0, -3.0]];
                let mut slot_v = vec![0.5; 4];
                let got = rows_backward(w, v.clone(), x, 2.5, &mut slot_w, &mut slot_v);
                same(got, value);
                accumulated(&flat(&slot_w), &[1.0, 2.0, 3.0, -1.0, -2.0, -3.0], &flat(&dw));
                accumulated(&slot_v, &[0.5; 4], &dv);
            }

            #[test]
            #[should_panic(expected = "the slot of `w` has 2 slopes for its 3 elements")]
            fn a_slot_of_the_wrong_length_names_its_parameter() {
                let (xs, ys) = data_set(15);
                let (mut slot_w, mut slot_b) = ([0.0; 2], 0.0);
                least_squares_backward(&[1.0, 2.0, 3.0], 0.5, &xs, &ys, 1.0, &mut slot_w, &mut slot_b);
            }

            /// The least squares body again, in a window walked once per
            /// round of a descent: each round's value and gradient equal the
            /// function form's at the same knobs, exactly.
            #[tape]
            pub fn descent(xs: &[[R; 3]], ys: &[R], rounds: usize) -> (Vec<R>, R) {
                #[tracked]
                let mut w: Vec<R> = vec![0.0; 3];
                #[tracked]
                let mut b: R = 0.0;
                for _ in 0..rounds {
                    tape! {
                        let mut s = 0.0;
                        for (x, y) in xs.iter().zip(ys) {
                            let mut pred = b;
                            for (wj, xj) in w.iter().zip(x) {
                                pred += wj * xj;
                            }
                            let r = pred - y;
                            s += r * r;
                        }
                        let loss = s / ys.len() as R;
                    }
                    backward!(loss);
                    let (dw, db) = (gradient!(w).to_vec(), gradient!(b));
                    let (value, (fw, fb)) = least_squares_grad(&w, b, xs, ys);
                    assert_eq!(loss.to_bits(), value.to_bits());
                    // the function form's loop runs its reverse inside it
                    // (fused): the same slopes, added in another order
                    close(&dw, &fw, ADJOINT_REL);
                    close(&[db], &[fb], ADJOINT_REL);
                    for (wj, d) in w.iter_mut().zip(&dw) {
                        *wj -= 0.5 * d;
                    }
                    b -= 0.5 * db;
                }
                (w, b)
            }

            #[test]
            fn least_squares_descent_in_a_window() {
                let (xs, ys) = data_set(20);
                let (w, b) = descent(&xs, &ys, 200);
                // the data's own line, up to its noise of ±0.1
                for (got, want) in w.iter().zip([0.5, -1.5, 2.0]).chain([(&b, 0.25)]) {
                    assert!((got - want).abs() < 0.1, "{got} vs {want}");
                }
            }

            twin! {
                fn spring, spring_window
                (k: R => R, c: R => R; x0: R, steps: usize) -> loss
                {
                    let dt = 0.01;
                    let mut x = x0;
                    let mut v = 0.0;
                    for _ in 0..steps {
                        let a = -k * x - c * v;
                        v = v + dt * a;
                        x = x + dt * v;
                    }
                    let loss = x * x + v * v;
                }
            }

            /// The spring's adjoint by hand: the trajectory kept, walked back.
            fn spring_adjoint(k: R, c: R, x0: R, steps: usize) -> (R, R) {
                let dt = 0.01;
                let (mut x, mut v) = (x0, 0.0);
                let mut path = Vec::with_capacity(steps);
                for _ in 0..steps {
                    path.push((x, v));
                    let a = -k * x - c * v;
                    v += dt * a;
                    x += dt * v;
                }
                let (mut xb, mut vb, mut kb, mut cb) = (2.0 * x, 2.0 * v, 0.0, 0.0);
                for &(x, v) in path.iter().rev() {
                    // x' = x + dt v'
                    vb += dt * xb;
                    // v' = v + dt a
                    let ab = dt * vb;
                    // a = -k x - c v
                    kb -= x * ab;
                    cb -= v * ab;
                    xb -= k * ab;
                    vb -= c * ab;
                }
                (kb, cb)
            }

            #[test]
            fn damped_spring_1000_steps() {
                for p in points(16, 4, 2, 0.0, 1.0) {
                    let (k, c) = (1.0 + 3.0 * p[0], 0.1 + 0.4 * p[1]);
                    let (value, (dk, dc)) = spring_grad(k, c, 1.0, 1000);
                    same(value, spring(k, c, 1.0, 1000));
                    let (wv, g) = spring_window(k, c, 1.0, 1000);
                    same(wv, value);
                    assert_eq!(g, (dk, dc));
                    let (hk, hc) = spring_adjoint(k, c, 1.0, 1000);
                    close(&[dk, dc], &[hk, hc], ADJOINT_REL);
                    check(|p| spring(p[0], p[1], 1.0, 1000), &[k, c], &[dk, dc]);
                }
            }

            twin! {
                fn softmax_xent, softmax_xent_window
                (w: [[R; 3]; 4] => [[R; 3]; 4], b: [R; 4] => [R; 4]; x: [R; 3], y: usize) -> loss
                {
                    let mut z = [0.0; 4];
                    for k in 0..4 {
                        let mut acc = b[k];
                        for (wj, xj) in w[k].iter().zip(x.iter()) {
                            acc += wj * xj;
                        }
                        z[k] = acc;
                    }
                    let mut mx = z[0];
                    for k in 1..4 {
                        if z[k] > mx {
                            mx = z[k];
                        }
                    }
                    let mut se = 0.0;
                    for k in 0..4 {
                        se += (z[k] - mx).exp();
                    }
                    let loss = se.ln() + mx - z[y];
                }
            }

            /// dz = softmax(z) − onehot(y), dW = dz ⊗ x, db = dz
            fn softmax_xent_adjoint(w: &[[R; 3]; 4], b: &[R; 4], x: &[R; 3], y: usize) -> ([[R; 3]; 4], [R; 4]) {
                let z: Vec<R> = (0..4)
                    .map(|k| b[k] + (0..3).map(|j| w[k][j] * x[j]).sum::<R>())
                    .collect();
                let mx = z.iter().copied().fold(R::NEG_INFINITY, R::max);
                let e: Vec<R> = z.iter().map(|z| (z - mx).exp()).collect();
                let total: R = e.iter().sum();
                let mut dw = [[0.0; 3]; 4];
                let mut db = [0.0; 4];
                for k in 0..4 {
                    db[k] = e[k] / total - if k == y { 1.0 } else { 0.0 };
                    for j in 0..3 {
                        dw[k][j] = db[k] * x[j];
                    }
                }
                (dw, db)
            }

            #[test]
            fn softmax_cross_entropy() {
                for (i, p) in points(17, 6, 19, -2.0, 2.0).into_iter().enumerate() {
                    let (w, b, x, y) = (mat::<4, 3>(&p), arr::<4>(&p[12..]), arr::<3>(&p[16..]), i % 4);
                    let (value, (dw, db)) = softmax_xent_grad(w, b, x, y);
                    same(value, softmax_xent(w, b, x, y));
                    let (wv, g) = softmax_xent_window(w, b, x, y);
                    same(wv, value);
                    assert_eq!(g, (dw, db));
                    let (hw, hb) = softmax_xent_adjoint(&w, &b, &x, y);
                    close(&flat(&dw), &flat(&hw), ADJOINT_REL);
                    close(&db, &hb, ADJOINT_REL);
                    let mut g = flat(&dw);
                    g.extend(db);
                    check(|p| softmax_xent(mat(p), arr(&p[12..]), x, y), &p[..16], &g);
                }
            }

            twin! {
                fn mlp, mlp_window
                (w1: [[R; 3]; 4] => [[R; 3]; 4], b1: [R; 4] => [R; 4], w2: [R; 4] => [R; 4], b2: R => R;
                 x: [R; 3], y: R) -> loss
                {
                    let mut z = [0.0; 4];
                    let mut h = [0.0; 4];
                    for j in 0..4 {
                        z[j] = b1[j];
                        for i in 0..3 {
                            z[j] += w1[j][i] * x[i];
                        }
                        h[j] = z[j].tanh();
                    }
                    let mut out = b2;
                    for (a, hj) in w2.iter().zip(h.iter()) {
                        out += a * hj;
                    }
                    let r = out - y;
                    let loss = 0.5 * r * r;
                }
            }

            type MlpGrad = ([[R; 3]; 4], [R; 4], [R; 4], R);

            /// dout = r, dh = r w2, dz = dh (1 − h²)
            fn mlp_adjoint(w1: &[[R; 3]; 4], b1: &[R; 4], w2: &[R; 4], b2: R, x: &[R; 3], y: R) -> MlpGrad {
                let mut h = [0.0; 4];
                for j in 0..4 {
                    h[j] = (b1[j] + (0..3).map(|i| w1[j][i] * x[i]).sum::<R>()).tanh();
                }
                let r = b2 + (0..4).map(|j| w2[j] * h[j]).sum::<R>() - y;
                let (mut dw1, mut db1, mut dw2) = ([[0.0; 3]; 4], [0.0; 4], [0.0; 4]);
                for j in 0..4 {
                    dw2[j] = r * h[j];
                    db1[j] = r * w2[j] * (1.0 - h[j] * h[j]);
                    for i in 0..3 {
                        dw1[j][i] = db1[j] * x[i];
                    }
                }
                (dw1, db1, dw2, r)
            }

            #[test]
            fn two_layer_tanh_mlp() {
                for p in points(18, 5, 25, -1.0, 1.0) {
                    let (w1, b1, w2, b2) = (mat::<4, 3>(&p), arr::<4>(&p[12..]), arr::<4>(&p[16..]), p[20]);
                    let (x, y) = (arr::<3>(&p[21..]), p[24] * 2.0);
                    let (value, g) = mlp_grad(w1, b1, w2, b2, x, y);
                    same(value, mlp(w1, b1, w2, b2, x, y));
                    let (wv, wg) = mlp_window(w1, b1, w2, b2, x, y);
                    same(wv, value);
                    assert_eq!(wg, g);
                    let (dw1, db1, dw2, db2) = g;
                    let (hw1, hb1, hw2, hb2) = mlp_adjoint(&w1, &b1, &w2, b2, &x, y);
                    close(&flat(&dw1), &flat(&hw1), ADJOINT_REL);
                    close(&db1, &hb1, ADJOINT_REL);
                    close(&dw2, &hw2, ADJOINT_REL);
                    close(&[db2], &[hb2], ADJOINT_REL);
                    let mut g = flat(&dw1);
                    g.extend(db1);
                    g.extend(dw2);
                    g.push(db2);
                    let f = |p: &[R]| mlp(mat(p), arr(&p[12..]), arr(&p[16..]), p[20], x, y);
                    check(f, &p[..21], &g);
                }
            }
        }
    };
}

// f64: the checker's default tolerance, 10 √ε ≈ 1.5e-7 relative (the worst
// seen here is 1.7e-9, on the 1000-step spring).
suite!(f64_, f64, mica::check::default_tolerance::<f64>());

// f32: 1e-2 relative, about 3× the default 10 √ε ≈ 3.5e-3. The gradients are
// not the loose part, finite differences are: in f32 the step is
// ∛ε·(1 + |x|) ≈ 5e-3, so the quotient carries a truncation error ~h²·f'''
// ≈ 2.5e-5 and a rounding error ~ε·|f|/h ≈ 2.4e-5·|f| for each rounding of
// `f` that does not cancel — and a long program rounds often: the 1000-step
// spring reaches 1.2e-3 (every other program stays under 2.5e-4), a third of
// the default. 1e-2 keeps a margin for other points while still catching a
// wrong slope, which is off by O(1). The f32 gradients are held much tighter
// elsewhere: bit-identical between the two forms, and within 16 ε of the
// hand-written adjoints.
suite!(f32_, f32, 1e-2);

// ---------------------------------------------------------------------------
// Regressions: bugs this file found, each fixed and kept as a test.

use mica::tape;

// Was a bug: a binding carried by a loop and assigned a recorded value of another
// carried binding (`a = b;`, a rotation like `prev = cur; cur = f(cur);`)
// gets the wrong gradient, silently: the carries are updated one after the
// other, so `b`'s carry reads `a`'s carry after it was already overwritten.
// Observed (5.0, (0.0, 2.0)); expected (5.0, (0.0, 5.0)), since the value is
// 3·b0 + 2·b0.
#[tape]
fn rotate(#[tracked] a0: f64, #[tracked] b0: f64) -> f64 {
    let mut a = a0;
    let mut b = b0;
    for _ in 0..1 {
        a = b;
        b *= 2.0;
    }
    a * 3.0 + b
}
#[test]
fn bug_carried_rotation() {
    assert_eq!(rotate_grad(1.0, 1.0), (5.0, (0.0, 5.0)));
}

// Was a bug: a `let` that shadows a carried binding anywhere in the loop body stops
// the outer binding from being carried, silently: the gradient only sees the
// last iteration. Observed (9.0, 4.0); expected (9.0, 6.0) (the value is x²).
#[tape]
fn shadow(#[tracked] x: f64) -> f64 {
    let mut s = 1.0;
    for _ in 0..2 {
        s *= x;
        let s = 0.0;
        let _ = s;
    }
    s
}
#[test]
fn bug_shadowed_carry() {
    assert_eq!(shadow_grad(3.0), (9.0, 6.0));
}

// Was a bug: a constant of reference type (here `&f64`) used by a recorded
// operation inside a branch arm does not compile: the arm's temporaries are
// hoisted as `let mut t = Default::default();`, and `&f64` has no `Default`
// (nor, presumably, would any other constant type without one). Observed:
// error[E0277] "the trait bound `&f64: Default` is not satisfied", pointing at
// `#[tape]`; expected: compiles, slope x where a > 0, else 1. It bites any
// `for (a, x) in w.iter().zip(xs)` whose body has an `if` using `x`.
#[tape]
fn ref_in_arm(#[tracked] a: f64, x: &f64) -> f64 {
    if a > 0.0 {
        a * x
    } else {
        a
    }
}
#[test]
fn bug_reference_constant_in_arm() {
    assert_eq!(ref_in_arm_grad(1.0, &2.0), (2.0, 2.0));
}

// Was a bug: a match arm that is a block ending in an assignment without `;` does
// not compile: error[E0282] "type annotations needed", pointing at
// `#[tape]`. `0 => d *= x,` and `0 => { d *= x; }` compile; so does the same
// block as an `if` arm.
#[tape]
fn arm_block_tail(#[tracked] x: f64, k: i32) -> f64 {
    let mut d = 0.5;
    match k {
        0 => {
            d = x;
            d *= x
        }
        1 => d += x,
        _ => {}
    }
    d
}
#[test]
fn bug_assignment_tail_of_an_arm_block() {
    assert_eq!(arm_block_tail_grad(2.0, 0), (4.0, 4.0));
}

// Was a bug: an element of a local `[x; n]` or `vec![…]` of recorded values,
// written into another local array, is not seen as recorded (the activity
// analysis does not look into `[x; n]` or `vec!`): error "a recorded value is
// written into an array made inside the window" at `h`. A literal `[w[0],
// w[1]]` in place of `r` compiles. Expected slope [1, 0].
#[tape]
fn repeat_copy(#[tracked] w: [f64; 2]) -> f64 {
    let mut h = [0.0; 2];
    let r = [w[0]; 2]; // or: let r = vec![w[0], w[1]];
    h[0] = r[1];
    h[0]
}
#[test]
fn bug_repeat_element_into_local_array() {
    assert_eq!(repeat_copy_grad([1.0, 2.0]), (1.0, [1.0, 0.0]));
}

// Was a bug: iterating a tracked `Vec` by value (plain Rust) does not compile: the
// element is read as `w[i]` after `w` was moved into the loop. Observed:
// error[E0382] "borrow of moved value: `w`", rustc suggesting `w.clone()`;
// expected: compiles (or a Mica error asking for `&w` / `w.iter()`).
#[tape]
fn by_value(#[tracked] w: Vec<f64>) -> f64 {
    let mut s = 0.0;
    for x in w {
        s += x * x;
    }
    s
}
#[test]
fn bug_vec_by_value() {
    assert_eq!(by_value_grad(vec![1.0, 2.0]), (5.0, vec![2.0, 4.0]));
}

// Was a bug: a parenthesised constant operand is stored as `let t = (…);`, which
// rustc's `unused_parens` lint reports at the user's parentheses (an error
// under `#![deny(warnings)]`), and its suggestion, `x - i as f64 + 1.0`,
// changes the meaning (`cargo fix` would apply it). Not specific to loops.
#[tape]
fn paren(#[tracked] x: f64, i: usize) -> f64 {
    x - (i as f64 + 1.0)
}

#[test]
fn parenthesised_constants_are_not_reported_as_unused() {
    assert_eq!(paren_grad(5.0, 2), (2.0, 1.0));
}
