//! Slice views, written as users write them: `let row = &w[i * d..(i + 1) * d];`
//! (read by index, by `len`, by an iterator chain, passed to a helper,
//! sliced again, copied with `to_vec`), `&mut` views written through,
//! `split_at` and `split_at_mut`, and loops over `chunks`, `chunks_exact`,
//! `chunks_mut`, `windows`, under `enumerate`, `zip`, `rev`, `skip`,
//! `step_by` and `take`, and in chains (`map`, `fold`, `filter`); elements
//! by `iter_mut` and `for_each`, by reference (`let r = &w[i];`) and by
//! `if let Some(v) = w.get(i)` (and a `match` on it),
//! arrays destructured, `first` and `last`
//! (of views and of a helper's slice given a part too, and as methods'
//! receivers);
//! copies of
//! sub-slices by `to_vec()` and `to_owned()`; a view inside a `tape!`
//! window and in a generic `T: Float` function.
//!
//! Every program is written twice, as `#[tape]` and as `#[tape(plain)]`,
//! and checked in `f64` and `f32` against central finite differences at
//! several points and against its plain twin; one against slopes by hand,
//! and the values against the same code run by the standard library's
//! slices.
#![deny(warnings)]

mod fd;

macro_rules! programs {
    ($m:ident, $t:ty, $($mode:ident)?) => {
        pub mod $m {
            use mica::tape;

            #[tape$(($mode))?]
            pub mod models {
                /// `Σ aᵢ bᵢ`, a helper given views.
                pub fn dot(a: &[$t], b: &[$t]) -> $t {
                    let mut s = 0.0;
                    for i in 0..a.len() {
                        s += a[i] * b[i];
                    }
                    s
                }

                /// A chunk's first element times its last.
                pub fn ends(c: &[$t]) -> $t {
                    c[0] * c[c.len() - 1]
                }

                /// Rows of a flat matrix as views: `Σ_i (row_i · x − y_i)²`
                /// plus each row's sum of squares and a copy's last element.
                pub fn rows(#[tracked] w: &[$t], x: &[$t], ys: &[$t], d: usize) -> $t {
                    let mut loss = 0.0;
                    for i in 0..w.len() / d {
                        let row = &w[i * d..(i + 1) * d];
                        let r = dot(row, x) - ys[i];
                        loss += r * r;
                        let squares: $t = row.iter().map(|v| v * v).sum();
                        let tail = &row[1..];
                        let copy = tail.to_vec();
                        loss += 0.5 * squares + copy[copy.len() - 1] * row[0];
                    }
                    loss
                }

                /// A model held in one slice: weights, then a bias, split.
                pub fn split(#[tracked] p: &[$t], x: &[$t]) -> $t {
                    let (weights, rest) = p.split_at(x.len());
                    let bias = rest[0];
                    // views read inside `vec![…]`
                    let pair = vec![weights[0] * 2.0, rest[rest.len() - 1]];
                    let z = dot(weights, x) + bias + pair[0] * pair[1];
                    let mut h = vec![0.0; p.len()];
                    for i in 0..p.len() {
                        h[i] = p[i].sin();
                    }
                    let (left, right) = h.split_at_mut(2);
                    left[0] *= right[0];
                    right[1] += left[1] * z;
                    z.tanh() + h[0] * h[3] + h[1]
                }

                /// Loops over chunks, exact chunks, windows, under adapters.
                pub fn chunked(#[tracked] w: &[$t], ys: &[$t]) -> $t {
                    let mut total = 0.0;
                    // a last chunk shorter than the others
                    for c in w.chunks(2) {
                        total += c[0] * c[c.len() - 1];
                    }
                    for (k, c) in w.chunks_exact(2).enumerate() {
                        total += (k as $t + 1.0) * (c[1] - c[0]).powi(2);
                    }
                    for (c, y) in w.chunks(3).zip(ys.iter()) {
                        let s: $t = c.iter().sum();
                        total += (s - y).powi(2);
                    }
                    for p in w.windows(3).rev() {
                        total += p[0] * p[1] - p[2].sin();
                    }
                    for (k, p) in w.windows(2).enumerate().skip(1).step_by(2).take(2) {
                        total += k as $t * p[0] * p[1].cos();
                    }
                    let mut h = vec![0.0; w.len()];
                    for i in 0..w.len() {
                        h[i] = w[i] * w[i];
                    }
                    for c in h.chunks_mut(2) {
                        c[0] += c[c.len() - 1].cos();
                    }
                    // the chunks of a view, and of a part
                    let inner = &w[1..];
                    for c in inner.chunks(2) {
                        total += c[0] * c[c.len() - 1].sin();
                    }
                    let ends: $t = w[1..5].windows(2).map(|p| p[0] - p[1] * p[1]).sum();
                    total += ends;
                    let firsts = w[..3].to_owned();
                    let lasts = w[w.len() - 2..].to_vec();
                    // a `Vec` made again, of a part, in each iteration
                    let mut part = vec![0.0; 2];
                    for k in 0..2 {
                        part = h[k..k + 3].to_vec();
                        part[0] *= w[k];
                        total += part[0] * part[2];
                    }
                    total + h[0] * h[2] + firsts[2] * lasts[0] + h[h.len() - 1] + part[1]
                }

                /// Chains over chunks and windows: `map` and `sum`, `zip`,
                /// `fold` after `enumerate`, `filter` then `map`, a loop over
                /// a filtered chain, and a helper named for the closure.
                pub fn chains(#[tracked] w: &[$t], ys: &[$t], d: usize) -> $t {
                    let a: $t = w.chunks(2).map(|c| c[0] * c[c.len() - 1]).sum();
                    let b = w
                        .chunks_exact(d)
                        .zip(ys)
                        .map(|(row, y)| (row.iter().sum::<$t>() - y).powi(2))
                        .sum::<$t>();
                    let c = w
                        .windows(2)
                        .enumerate()
                        .fold(0.0, |acc, (k, p)| acc + k as $t * p[0] * p[1]);
                    let e: $t = w.chunks(3).filter(|c| c.len() == 3).map(|c| c[2].exp()).sum();
                    let mut f = 0.0;
                    for (k, p) in w.windows(3).enumerate().filter(|&(_, p)| p[1] > 0.0) {
                        f += k as $t * p[0] * p[2];
                    }
                    let g: $t = w.chunks(3).map(ends).sum();
                    a + b + c + e + f + g
                }

                /// Views whose ends and rows read names that change after
                /// the views are made: the views keep what they were made of.
                pub fn moving(#[tracked] w: &[$t]) -> $t {
                    let mut k = 1;
                    let row = &w[k..k + 3];
                    k += 2;
                    let m = [[w[0], w[1]], [w[2] * w[3], w[4]]];
                    let mut i = 1;
                    let last = &m[i][..];
                    i -= 1;
                    row[0] * w[k] + row[2] + last[0] * m[i][1]
                }

                /// Elements by `iter_mut` (alone, zipped, enumerated, in
                /// `for_each`, as `&mut out`), arrays destructured, and
                /// `first`/`last`.
                pub fn elements(#[tracked] w: &[$t]) -> $t {
                    let mut out = vec![0.0; w.len()];
                    for (o, v) in out.iter_mut().zip(w) {
                        *o = v * 2.0;
                    }
                    for v in out.iter_mut() {
                        *v = v.tanh();
                    }
                    for v in &mut out {
                        *v *= 1.5;
                    }
                    out.iter_mut().enumerate().for_each(|(k, v)| *v += k as $t * 0.1);
                    out.iter_mut().for_each(|v| *v = *v * *v);
                    let head = [w[0], w[1] * w[2], w[2]];
                    let [p, q, r] = head;
                    let trio: [$t; 3] = [w[3], w[4].sin(), w[5]];
                    let [a, _, c]: [$t; 3] = trio;
                    *w.last().unwrap() * a + w.first().unwrap() * q + c * p - q * r
                        + out[w.len() - 1]
                        + out[0]
                }

                /// A part's ends, as values and as methods' receivers.
                pub fn ends_of(s: &[$t]) -> $t {
                    s.first().unwrap().sin() * *s.last().unwrap()
                }

                /// `first`, `last` and `split_at` of views, of views' halves
                /// and of a helper's slice given a part.
                pub fn parts(#[tracked] w: &[$t], k: usize) -> $t {
                    let mid = &w[1..w.len() - 1];
                    let (left, right) = mid.split_at(k);
                    let (_, tail) = right.split_at(1);
                    let a = *left.last().unwrap() * right.first().unwrap().cos();
                    let b = ends_of(&w[2..5]) + ends_of(mid) + tail[0] * tail.last().unwrap().exp();
                    a + b + mid.last().unwrap() * w.first().unwrap()
                }

                /// Elements by reference (`let r = &w[i];`), read by value,
                /// through `*r` and as a method's receiver, one of them
                /// held while the index moves on:
                /// `Σ_{i<n−1} wᵢ wᵢ₊₁ + ½ sin wᵢ + cos wᵢ₊₁`.
                pub fn element_refs(#[tracked] w: &[$t]) -> $t {
                    let mut s = 0.0;
                    let mut i = 0;
                    while i + 1 < w.len() {
                        let r = &w[i];
                        i += 1;
                        let next = &w[i];
                        s += r * next + (*r).sin() * 0.5 + next.cos();
                    }
                    s
                }

                /// Elements by `get`: `if let Some(v) = w.get(i + 1)`, then
                /// `Some(&v)`, past the end too, and a value of the `if`:
                /// `(Σ_{i<n−1} wᵢ₊₁ wᵢ + sin wᵢ₊₁ + wₙ₋₁² + 2 + ½ Σ wᵢ) · w₅`
                /// (the last sum by `get(i).copied()` into a `mut` name), plus
                /// `¼ w₃` by a view's `get` and `0.1 (w₂² + w₅²)` by chunks',
                /// and by `get(…).copied().unwrap_or(…)`, `0.3 Σ wᵢ²` and
                /// `0.05 (Σ_{i≥2} wᵢ + 2)`.
                pub fn got(#[tracked] w: &[$t]) -> $t {
                    let mut s = 0.0;
                    for i in 0..w.len() + 2 {
                        if let Some(v) = w.get(i + 1) {
                            s += v * w[i] + v.sin();
                        } else if let Some(&u) = w.get(i) {
                            s += u * u;
                        } else {
                            s += 1.0;
                        }
                        if let Some(mut c) = w.get(i).copied() {
                            c *= 0.5;
                            s += c;
                        }
                        // the neighbour below, zero past the start
                        let below = w.get(i.wrapping_sub(1)).copied().unwrap_or(0.0);
                        s += below * below * 0.3;
                    }
                    let tail = &w[2..];
                    for i in 0..w.len() {
                        s += tail.get(i).cloned().unwrap_or(1.0) * 0.05;
                    }
                    // of a view, and of a chunk
                    if let Some(t) = tail.get(1) {
                        s += t * 0.25;
                    }
                    for c in w.chunks(3) {
                        if let Some(&z) = c.get(2) {
                            s += z * z * 0.1;
                        }
                    }
                    let scale = if let Some(v) = w.get(5) { *v } else { 0.5 };
                    s * scale
                }

                /// Ends by `first()` and `last()`, then `.copied()` (or
                /// `.cloned()`) and `.unwrap_or(…)`: of the array, of a view,
                /// and of an empty part, which gives the default:
                /// `w₀ wₙ₋₁ + sin w₂ + 3 w₂`.
                pub fn ends_or(#[tracked] w: &[$t]) -> $t {
                    let a = w.first().copied().unwrap_or(1.0);
                    let b = w.last().cloned().unwrap_or(1.0);
                    let c = w[1..3].last().copied().unwrap_or(0.0);
                    let d = w[..0].first().copied().unwrap_or(w[2] * 3.0);
                    a * b + c.sin() + d
                }

                /// Parts by `get`: `if let Some(pair) = w.get(i..i + 2)`,
                /// past the end too, and `get(..3)`, `get(4..)`, `get(k..k − 1)`
                /// (none: its start is past its end):
                /// `Σ_{i<n−1} wᵢ wᵢ₊₁ + ½ wₙ₋₁ + w₀² + w₁² + w₂² + sin w₄`.
                pub fn got_parts(#[tracked] w: &[$t]) -> $t {
                    let mut s = 0.0;
                    for i in 0..w.len() {
                        if let Some(pair) = w.get(i..i + 2) {
                            s += pair[0] * pair[1];
                        } else {
                            s += w[i] * 0.5;
                        }
                    }
                    if let Some(head) = w.get(..3) {
                        s += head.iter().map(|v| v * v).sum::<$t>();
                    }
                    if let Some(rest) = w.get(4..) {
                        s += rest[0].sin();
                    }
                    let late = w.len() / 2;
                    if let Some(none) = w.get(late..late - 1) {
                        s += none[0] * 100.0;
                    }
                    s
                }

                /// The same tests as a `match` on the `Option`, its arms in
                /// either order, with `None` or `_`:
                /// `Σ_{i<n} (wᵢ₊₁ sin wᵢ, or ½ wᵢ past the end) + w₀² +
                /// 3 wₙ₋₁ + w₁ w₂ + cos w₀ − 2 (for the index past the end)`.
                pub fn matched(#[tracked] w: &[$t]) -> $t {
                    let mut s = 0.0;
                    for i in 0..w.len() {
                        match w.get(i + 1) {
                            Some(v) => s += v * w[i].sin(),
                            None => s += w[i] * 0.5,
                        }
                    }
                    match w.first() {
                        None => s += 100.0,
                        Some(&f) => s += f * f,
                    }
                    s += match w.last().copied() {
                        Some(l) => 3.0 * l,
                        _ => 0.0,
                    };
                    match w.get(1..3) {
                        Some(pair) => {
                            s += pair[0] * pair[1];
                        }
                        None => {}
                    }
                    match w.get(w.len()) {
                        Some(v) => s += v * 100.0,
                        _ => s -= 2.0,
                    }
                    let head = &w[..2];
                    match head.get(0).cloned() {
                        Some(h) => s + h.cos(),
                        None => s,
                    }
                }

                /// A view written through: `&mut` of a local array's part.
                pub fn written(#[tracked] w: &[$t]) -> $t {
                    let mut state = vec![0.0; 2 * w.len()];
                    for i in 0..w.len() {
                        state[i] = w[i];
                    }
                    {
                        let upper = &mut state[w.len()..];
                        for i in 0..upper.len() {
                            upper[i] = (w[i] * 1.5).exp() - 1.0;
                        }
                    }
                    let lower = &state[..w.len()];
                    let mut s = 0.0;
                    for i in 0..lower.len() {
                        s += lower[i] * state[w.len() + i];
                    }
                    s
                }
            }

            /// The window form, a view inside the window.
            #[tape]
            pub fn window(a: $t, b: $t) -> ($t, $t, $t) {
                #[tracked]
                let a = a;
                #[tracked]
                let b = b;
                tape! {
                    let v = [a, b, a * b, b * b];
                    let mid = &v[1..3];
                    let total = mid[0] * mid[1] + mid.iter().map(|x| x.sin()).sum::<$t>();
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

/// A generic model over rows, in `f64` and `f32`.
#[mica::tape]
fn generic_rows<T: mica::Real>(#[tracked] w: &[T], d: usize) -> T {
    let mut s = T::zero();
    for row in w.chunks_exact(d) {
        let head = &row[..2];
        s = s + head[0] * head[1] + row[d - 1].exp();
    }
    s
}

macro_rules! check_all {
    ($p:ident, $q:ident, $t:ty, $tol:expr, $rel:expr) => {{
        use $p::models::*;
        let (agree, same) = fd::checks::<$t>($tol, $rel);
        let points: [&[$t]; 3] = [
            &[0.3, -0.7, 0.45, 0.9, 0.2, -0.15, 0.5],
            &[-0.55, 0.25, 0.8, -0.35, 0.6, 0.1, -0.4],
            &[1.1, 0.6, -0.2, 0.15, -0.4, 0.35, 0.05],
        ];
        let x: [$t; 3] = [0.5, -1.0, 2.0];
        let ys: [$t; 3] = [0.25, -0.5, 1.5];
        for p in points {
            // 2 rows of 3 (the 7th knob is past the last row)
            let (_, g) = rows_grad(p, &x, &ys, 3);
            same(&g, &$q::models::rows_grad(p, &x, &ys, 3).1, "rows");
            agree("rows", &|v| rows(v, &x, &ys, 3), p, &g);
            assert_eq!(g[6], 0.0, "rows: an element no view holds");

            let (_, g) = split_grad(&p[..4], &x);
            same(&g, &$q::models::split_grad(&p[..4], &x).1, "split");
            agree("split", &|v| split(v, &x), &p[..4], &g);

            let (_, g) = chunked_grad(p, &ys);
            same(&g, &$q::models::chunked_grad(p, &ys).1, "chunked");
            agree("chunked", &|v| chunked(v, &ys), p, &g);

            let (_, g) = chains_grad(p, &ys, 2);
            same(&g, &$q::models::chains_grad(p, &ys, 2).1, "chains");
            agree("chains", &|v| chains(v, &ys, 2), p, &g);

            let (value, g) = moving_grad(p);
            assert_eq!(value, moving(p), "moving: the value");
            same(&g, &$q::models::moving_grad(p).1, "moving");
            // by hand: w₁w₃ + w₃ + w₁w₂w₃
            let by_hand = [
                0.0,
                p[3] + p[2] * p[3],
                p[1] * p[3],
                p[1] + 1.0 + p[1] * p[2],
                0.0,
                0.0,
                0.0,
            ];
            same(&g, &by_hand, "moving by hand");

            let (value, g) = elements_grad(p);
            assert_eq!(value, elements(p), "elements: the value");
            same(&g, &$q::models::elements_grad(p).1, "elements");
            agree("elements", &|v| elements(v), p, &g);

            let (value, g) = parts_grad(p, 2);
            assert_eq!(value, parts(p, 2), "parts: the value");
            same(&g, &$q::models::parts_grad(p, 2).1, "parts");
            agree("parts", &|v| parts(v, 2), p, &g);
            // by hand: w₂ cos w₃ + w₄ sin w₂ + w₅ sin w₁ + w₄ e^{w₅} + w₀ w₅
            let by_hand = [
                p[5],
                p[1].cos() * p[5],
                p[3].cos() + p[2].cos() * p[4],
                -p[2] * p[3].sin(),
                p[2].sin() + p[5].exp(),
                p[1].sin() + p[4] * p[5].exp() + p[0],
                0.0,
            ];
            same(&g, &by_hand, "parts by hand");

            let (value, g) = element_refs_grad(p);
            assert_eq!(value, element_refs(p), "element_refs: the value");
            same(&g, &$q::models::element_refs_grad(p).1, "element_refs");
            agree("element_refs", &|v| element_refs(v), p, &g);
            // by hand: wₖ₊₁ + ½ cos wₖ below the last, wₖ₋₁ − sin wₖ above the first
            let n = p.len();
            for k in 0..n {
                let mut want = 0.0;
                if k + 1 < n {
                    want += p[k + 1] + 0.5 * p[k].cos();
                }
                if k >= 1 {
                    want += p[k - 1] - p[k].sin();
                }
                fd::close("element_refs by hand", g[k], want, $rel * 10.0);
            }

            let (value, g) = got_grad(p);
            assert_eq!(value, got(p), "got: the value");
            same(&g, &$q::models::got_grad(p).1, "got");
            agree("got", &|v| got(v), p, &g);
            let (_, short) = got_grad(&p[..4]);
            agree("got, shorter than w₅", &|v| got(v), &p[..4], &short);
            // by hand, with S the sum before the scale w₅
            let n = p.len();
            let mut sum = 2.0 + p[n - 1] * p[n - 1] + 0.5 * p.iter().sum::<$t>();
            sum += 0.25 * p[3] + 0.1 * (p[2] * p[2] + p[5] * p[5]);
            sum += 0.3 * p.iter().map(|v| v * v).sum::<$t>();
            sum += 0.05 * (p[2..].iter().sum::<$t>() + 2.0);
            for i in 0..n - 1 {
                sum += p[i + 1] * p[i] + p[i + 1].sin();
            }
            for k in 0..n {
                let mut ds = 0.5;
                if k + 1 < n {
                    ds += p[k + 1];
                }
                if k >= 1 {
                    ds += p[k - 1] + p[k].cos();
                }
                if k == n - 1 {
                    ds += 2.0 * p[k];
                }
                ds += 0.6 * p[k] + if k >= 2 { 0.05 } else { 0.0 };
                ds += match k {
                    2 | 5 => 0.2 * p[k],
                    3 => 0.25,
                    _ => 0.0,
                };
                let want = ds * p[5] + if k == 5 { sum } else { 0.0 };
                fd::close("got by hand", g[k], want, $rel * 10.0);
            }

            let (value, g) = matched_grad(p);
            assert_eq!(value, matched(p), "matched: the value");
            same(&g, &$q::models::matched_grad(p).1, "matched");
            agree("matched", &|v| matched(v), p, &g);
            let n = p.len();
            for k in 0..n {
                let mut want = match k {
                    0 => 2.0 * p[0] - p[0].sin(),
                    1 => p[2],
                    2 => p[1],
                    _ => 0.0,
                };
                if k + 1 < n {
                    want += p[k + 1] * p[k].cos();
                } else {
                    want += 0.5 + 3.0;
                }
                if k >= 1 {
                    want += p[k - 1].sin();
                }
                fd::close("matched by hand", g[k], want, $rel * 10.0);
            }

            let (value, g) = ends_or_grad(p);
            assert_eq!(value, ends_or(p), "ends_or: the value");
            same(&g, &$q::models::ends_or_grad(p).1, "ends_or");
            agree("ends_or", &|v| ends_or(v), p, &g);
            let n = p.len();
            let mut want = vec![0.0; n];
            want[0] += p[n - 1];
            want[n - 1] += p[0];
            want[2] += p[2].cos() + 3.0;
            same(&g, &want, "ends_or by hand");

            let (value, g) = got_parts_grad(p);
            assert_eq!(value, got_parts(p), "got_parts: the value");
            same(&g, &$q::models::got_parts_grad(p).1, "got_parts");
            agree("got_parts", &|v| got_parts(v), p, &g);
            let n = p.len();
            for k in 0..n {
                let mut want = if k < 3 { 2.0 * p[k] } else { 0.0 };
                if k + 1 < n {
                    want += p[k + 1];
                } else {
                    want += 0.5;
                }
                if k >= 1 {
                    want += p[k - 1];
                }
                if k == 4 {
                    want += p[4].cos();
                }
                fd::close("got_parts by hand", g[k], want, $rel * 10.0);
            }

            let (_, g) = written_grad(p);
            same(&g, &$q::models::written_grad(p).1, "written");
            agree("written", &|v| written(v), p, &g);
            // by hand: s = Σ wᵢ (e^{1.5 wᵢ} − 1)
            for (i, w) in p.iter().enumerate() {
                let e = (1.5 * w).exp();
                fd::close("written by hand", g[i], e - 1.0 + 1.5 * w * e, $rel * 10.0);
            }

            let (_, da, db) = $p::window(p[0], p[1]);
            agree("window", &|v| $p::window(v[0], v[1]).0, &p[..2], &[da, db]);

            let (_, g) = generic_rows_grad::<$t>(&p[..6], 3);
            agree("generic", &|v| generic_rows(v, 3), &p[..6], &g);
        }
    }};
}

#[test]
fn views_agree_with_finite_differences_hand_slopes_and_plain_adjoints() {
    check_all!(p64, q64, f64, 1e-6, 1e-12);
    check_all!(p32, q32, f32, 2e-2, 1e-5);
}

/// The views compute what the standard library's slices compute.
#[test]
fn values_are_those_of_the_slices() {
    let w: [f64; 7] = [0.3, -0.7, 0.45, 0.9, 0.2, -0.15, 0.5];
    let ys: [f64; 3] = [0.25, -0.5, 1.5];
    let by_std = {
        let mut total = 0.0;
        for c in w.chunks(2) {
            total += c[0] * c[c.len() - 1];
        }
        for (k, c) in w.chunks_exact(2).enumerate() {
            total += (k as f64 + 1.0) * (c[1] - c[0]).powi(2);
        }
        for (c, y) in w.chunks(3).zip(ys.iter()) {
            let s: f64 = c.iter().sum();
            total += (s - y).powi(2);
        }
        for p in w.windows(3).rev() {
            total += p[0] * p[1] - p[2].sin();
        }
        for (k, p) in w.windows(2).enumerate().skip(1).step_by(2).take(2) {
            total += k as f64 * p[0] * p[1].cos();
        }
        let mut h: Vec<f64> = w.iter().map(|v| v * v).collect();
        for c in h.chunks_mut(2) {
            c[0] += c[c.len() - 1].cos();
        }
        let inner = &w[1..];
        for c in inner.chunks(2) {
            total += c[0] * c[c.len() - 1].sin();
        }
        let ends: f64 = w[1..5].windows(2).map(|p| p[0] - p[1] * p[1]).sum();
        total += ends;
        let mut part = vec![0.0; 2];
        for k in 0..2 {
            part = h[k..k + 3].to_vec();
            part[0] *= w[k];
            total += part[0] * part[2];
        }
        total + h[0] * h[2] + w[2] * w[5] + h[6] + part[1]
    };
    let (value, _) = p64::models::chunked_grad(&w, &ys);
    assert!((value - by_std).abs() < 1e-12, "{value} vs {by_std}");
    assert_eq!(value, p64::models::chunked(&w, &ys));

    let by_std = {
        let a: f64 = w.chunks(2).map(|c| c[0] * c[c.len() - 1]).sum();
        let b: f64 = w
            .chunks_exact(2)
            .zip(&ys)
            .map(|(row, y)| (row.iter().sum::<f64>() - y).powi(2))
            .sum();
        let c = w
            .windows(2)
            .enumerate()
            .fold(0.0, |acc, (k, p)| acc + k as f64 * p[0] * p[1]);
        let e: f64 = w
            .chunks(3)
            .filter(|c| c.len() == 3)
            .map(|c| c[2].exp())
            .sum();
        let mut f = 0.0;
        for (k, p) in w.windows(3).enumerate().filter(|&(_, p)| p[1] > 0.0) {
            f += k as f64 * p[0] * p[2];
        }
        let g: f64 = w.chunks(3).map(|c| c[0] * c[c.len() - 1]).sum();
        a + b + c + e + f + g
    };
    let (value, _) = p64::models::chains_grad(&w, &ys, 2);
    assert!((value - by_std).abs() < 1e-12, "{value} vs {by_std}");
    assert_eq!(value, p64::models::chains(&w, &ys, 2));
}

/// A view's bounds are checked where it is made, as slicing checks them,
/// and a chunk size of zero is refused as `chunks(0)` refuses it.
#[test]
fn bounds_and_sizes_panic_as_slices_do() {
    let w = [0.3, -0.7, 0.45, 0.9, 0.2];
    // 5 elements in rows of 3: the primal's `w.len() / d` keeps one row
    let (v, _) = p64::models::rows_grad(&w, &[1.0, 2.0, 3.0], &[0.5], 3);
    assert_eq!(v, p64::models::rows(&w, &[1.0, 2.0, 3.0], &[0.5], 3));
    // `x` one element short: the helper reads past it in both
    let primal = std::panic::catch_unwind(|| p64::models::rows(&w, &[1.0, 2.0], &[0.5], 3));
    let grad = std::panic::catch_unwind(|| p64::models::rows_grad(&w, &[1.0, 2.0], &[0.5], 3));
    assert!(primal.is_err() && grad.is_err());
    let zero = std::panic::catch_unwind(|| generic_rows_grad::<f64>(&w, 0));
    assert!(zero.is_err(), "a chunk size of zero");
    // a split past the end
    let split = std::panic::catch_unwind(|| p64::models::split_grad(&w[..2], &[1.0, 2.0, 3.0]));
    assert!(split.is_err(), "split_at past the end");
    // a view's split past the view's end (`mid` holds 5 of 7)
    let w7 = [0.3, -0.7, 0.45, 0.9, 0.2, -0.15, 0.5];
    let primal = std::panic::catch_unwind(|| p64::models::parts(&w7, 6));
    let grad = std::panic::catch_unwind(|| p64::models::parts_grad(&w7, 6));
    assert!(
        primal.is_err() && grad.is_err(),
        "a view's split_at past its end"
    );
}
