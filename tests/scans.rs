//! Recurrent scans over a local state `h: [T; N]` read in a loop nested in
//! one that does not change it: the reverse reads a copy of `h` taken where
//! that loop starts instead of keeping each element per read. Beside the
//! scan as an RNN writes it, its edges: the inner loop over `0..h.len()`,
//! the state changed inside the loop over `i` (after the inner loop, or by
//! a method), read by another index, a `while` loop around, a step that
//! may stop early, and a generic float.
//!
//! Beside them, indices built from names an outer loop changes but the
//! loops inside it do not (`nearest * d + j` after a selection, a `while`
//! loop's counter, a length taken each step): the reverse evaluates them
//! again from copies taken where those loops start, and must not where a
//! loop inside changes the name.
//!
//! Every program is written twice, as `#[tape]` and as `#[tape(plain)]`
//! (every shortcut off), and checked at several points against central
//! finite differences and against its plain twin, in `f64` and `f32`.
#![deny(warnings)]
#![allow(clippy::needless_range_loop)]

mod fd;

const H: usize = 3;

macro_rules! programs {
    ($m:ident, $t:ty, $($mode:ident)?) => {
        pub mod $m {
            use super::H;
            use mica::tape;

            /// The scan as an RNN writes it.
            #[tape$(($mode))?]
            pub fn rnn(#[tracked] w: &[$t], #[tracked] b: &[$t], steps: usize) -> $t {
                let mut h = [0.0; H];
                for _ in 0..steps {
                    let mut next = [0.0; H];
                    for i in 0..H {
                        let mut z = b[i];
                        for j in 0..H {
                            z += w[i * H + j] * h[j];
                        }
                        next[i] = z.tanh();
                    }
                    h = next;
                }
                h[0] + 2.0 * h[1] - h[2]
            }

            /// The inner loop over `0..h.len()` (a method on `h` in the loop
            /// around: no copy), the state started from a knob and read
            /// after each step too.
            #[tape$(($mode))?]
            pub fn by_len(#[tracked] w: &[$t], #[tracked] s: $t, steps: usize) -> $t {
                let mut h = [s; H];
                let mut total = 0.0;
                for t in 0..steps {
                    let mut next = [0.0; H];
                    for i in 0..H {
                        let mut z = 0.1 * t as $t;
                        for j in 0..h.len() {
                            z += w[(i + j) % w.len()] * h[j];
                        }
                        next[i] = z.sin();
                    }
                    h = next;
                    total += h[1] * h[1];
                }
                total
            }

            /// The state changed inside the loop over `i`, after the inner
            /// loop read it: no copy may be read.
            #[tape$(($mode))?]
            pub fn changed_inside(#[tracked] w: &[$t], steps: usize) -> $t {
                let mut h = [0.5; H];
                for _ in 0..steps {
                    for i in 0..H {
                        let mut z = w[i];
                        for j in 0..H {
                            z += w[(i + j) % w.len()] * h[j];
                        }
                        h[i] = z.tanh();
                    }
                }
                h[0] * h[2]
            }

            /// The state changed by a method inside the loop over `i`.
            #[tape$(($mode))?]
            pub fn swapped_inside(#[tracked] w: &[$t], steps: usize) -> $t {
                let mut h = [0.25; H];
                for _ in 0..steps {
                    let mut next = [0.0; H];
                    for i in 0..H {
                        let mut z = w[i];
                        for j in 0..H {
                            z += w[j] * h[j];
                        }
                        h.swap(0, 2);
                        next[i] = (z * 0.5).tanh();
                    }
                    h = next;
                }
                h[0] - h[1] * h[2]
            }

            /// Read by another index than the inner loop's variable.
            #[tape$(($mode))?]
            pub fn shifted(#[tracked] w: &[$t], steps: usize) -> $t {
                let mut h = [0.3; H];
                for _ in 0..steps {
                    let mut next = [0.0; H];
                    for i in 0..H {
                        let mut z = w[i];
                        for j in 0..H {
                            z += w[j] * h[(j + i) % H];
                        }
                        next[i] = z.tanh();
                    }
                    h = next;
                }
                h[0] + h[1] + h[2]
            }

            /// The nearest of the rows of `c` to `p`, then its distance:
            /// `nearest` changes in the selection, not in the loop after.
            #[tape$(($mode))?]
            pub fn nearest(#[tracked] c: &[$t], p: &[$t], d: usize) -> $t {
                let mut total = 0.0;
                for q in 0..p.len() / d {
                    let mut best = <$t>::INFINITY;
                    let mut nearest = 0;
                    for r in 0..c.len() / d {
                        let mut dist = 0.0;
                        for j in 0..d {
                            let diff = p[q * d + j] - c[r * d + j];
                            dist += diff * diff;
                        }
                        if dist < best {
                            best = dist;
                            nearest = r;
                        }
                    }
                    for j in 0..d {
                        let diff = p[q * d + j] - c[nearest * d + j];
                        total += diff * diff * (1.0 + 0.1 * j as $t);
                    }
                    total = total.sin() + total;
                }
                total
            }

            /// A counter an outer loop moves between two inner loops, and
            /// one a loop inside moves itself.
            #[tape$(($mode))?]
            pub fn moving_offset(#[tracked] w: &[$t], steps: usize) -> $t {
                let n = w.len();
                let mut k = 0;
                let mut m = 1;
                let mut z = 0.5;
                let mut t = 0;
                while t < steps {
                    for i in 0..3 {
                        z = (z * w[(k + i) % n]).sin() + w[(m * i) % n];
                    }
                    k += 2;
                    for i in 0..2 {
                        z = z * w[(k + i) % n] + 0.1;
                        m += 1;
                        z = (z + w[(m + i) % n]).tanh();
                    }
                    t += 1;
                }
                z
            }

            /// An offset changed by a destructuring assignment, and one
            /// read through a reference: neither is copied.
            #[tape$(($mode))?]
            pub fn destructured(#[tracked] w: &[$t], steps: usize) -> $t {
                let n = w.len();
                let offsets = [0usize, 1, 2, 3];
                let mut k = 0usize;
                let mut z = 0.5;
                for t in 0..steps {
                    let r = &offsets[t % 4];
                    for i in 0..3 {
                        z = (z * w[(k + i) % n]).sin() + w[(*r + i) % n];
                    }
                    (k, _) = (k + 2, 0);
                }
                z
            }

            /// A length taken each step of a slice reassigned every step.
            #[tape$(($mode))?]
            pub fn lengths(#[tracked] w: &[$t], rows: &[$t], width: usize) -> $t {
                let mut row = &rows[0..width];
                let mut total = 0.0;
                for t in 1..rows.len() / width {
                    let b = row.len();
                    for i in 0..2 {
                        for j in 0..b {
                            total += (w[i * b + j] * row[j]).sin();
                        }
                    }
                    row = &rows[t * width..(t + 1) * width];
                }
                total
            }

            /// A length taken in a helper of a `#[tape] mod`, inlined
            /// into the loop over steps (its body a block there).
            #[tape$(($mode))?]
            pub mod layered {
                pub fn layer(w: &[$t], state: &mut [$t], x: &[$t]) {
                    let b = x.len();
                    for i in 0..state.len() {
                        let mut z = state[i];
                        for j in 0..b {
                            z += w[i * b + j] * x[j];
                        }
                        state[i] = z.tanh();
                    }
                }

                pub fn run(#[tracked] w: &[$t], xs: &[$t], width: usize) -> $t {
                    let mut state = vec![0.1; 2];
                    let mut x = &xs[0..width];
                    for t in 1..xs.len() / width {
                        layer(w, &mut state, x);
                        x = &xs[t * width..(t + 1) * width];
                    }
                    state[0] + state[1] * 0.5
                }
            }

            /// A `while` loop around the scan, and a loop over `i` that
            /// may stop early.
            #[tape$(($mode))?]
            pub fn stopping(#[tracked] w: &[$t], steps: usize) -> $t {
                let mut h = [0.2; H];
                let mut t = 0;
                while t < steps {
                    let mut next = [0.0; H];
                    for i in 0..H {
                        let mut z = w[i];
                        for j in 0..H {
                            z += w[(i * H + j) % w.len()] * h[j];
                        }
                        next[i] = z.tanh();
                        if z > 1.5 {
                            break;
                        }
                    }
                    h = next;
                    t += 1;
                }
                h[0] + h[1] * 0.5
            }
        }
    };
}

programs!(p64, f64,);
programs!(q64, f64, plain);
programs!(p32, f32,);
programs!(q32, f32, plain);

macro_rules! generic {
    ($name:ident, $($mode:ident)?) => {
        /// The scan over a generic float.
        #[mica::tape$(($mode))?]
        pub fn $name<T: mica::Real>(#[tracked] w: &[T], steps: usize) -> T {
            let mut h = [T::zero(); H];
            for _ in 0..steps {
                let mut next = [T::zero(); H];
                for i in 0..H {
                    let mut z = w[i];
                    for j in 0..H {
                        z += w[i * H + j] * h[j];
                    }
                    next[i] = z.tanh();
                }
                h = next;
            }
            h[0] + h[1] + h[1] - h[2]
        }
    };
}

generic!(generic,);
generic!(generic_plain, plain);

macro_rules! checks {
    ($name:ident, $p:ident, $q:ident, $t:ty, $tol:expr, $rel:expr) => {
        #[test]
        fn $name() {
            use $p as p;
            use $q as q;
            for seed in 0..3 {
                let w: Vec<$t> = (0..H * H)
                    .map(|k| (((k * 7 + seed * 5) % 11) as $t) / 9.0 - 0.5)
                    .collect();
                let b: Vec<$t> = (0..H).map(|k| 0.1 * k as $t - 0.15 * seed as $t).collect();
                let s = 0.2 + 0.1 * seed as $t;
                for steps in [0, 1, 4] {
                    let (_, (gw, gb)) = p::rnn_grad(&w, &b, steps);
                    let f = |v: &[$t]| p::rnn(&v[..H * H], &v[H * H..], steps);
                    let at: Vec<$t> = w.iter().chain(&b).cloned().collect();
                    let claimed: Vec<$t> = gw.iter().chain(&gb).cloned().collect();
                    fd::agrees("rnn", &f, &at, &claimed, $tol);
                    let (_, (hw, hb)) = q::rnn_grad(&w, &b, steps);
                    fd::same("rnn, plain", &gw, &hw, $rel);
                    fd::same("rnn, plain", &gb, &hb, $rel);

                    let (_, (gw, gs)) = p::by_len_grad(&w, s, steps);
                    let f = |v: &[$t]| p::by_len(&v[..H * H], v[H * H], steps);
                    let mut at = w.clone();
                    at.push(s);
                    let mut claimed = gw.clone();
                    claimed.push(gs);
                    fd::agrees("by len", &f, &at, &claimed, $tol);
                    let (_, (hw, hs)) = q::by_len_grad(&w, s, steps);
                    fd::same("by len, plain", &gw, &hw, $rel);
                    fd::close("by len, plain", gs, hs, $rel);

                    for (what, f, gf, hf) in [
                        (
                            "changed inside",
                            p::changed_inside as fn(&[$t], usize) -> $t,
                            p::changed_inside_grad as fn(&[$t], usize) -> ($t, Vec<$t>),
                            q::changed_inside_grad as fn(&[$t], usize) -> ($t, Vec<$t>),
                        ),
                        (
                            "swapped inside",
                            p::swapped_inside,
                            p::swapped_inside_grad,
                            q::swapped_inside_grad,
                        ),
                        ("shifted", p::shifted, p::shifted_grad, q::shifted_grad),
                        ("stopping", p::stopping, p::stopping_grad, q::stopping_grad),
                        (
                            "moving offset",
                            p::moving_offset,
                            p::moving_offset_grad,
                            q::moving_offset_grad,
                        ),
                        (
                            "destructured",
                            p::destructured,
                            p::destructured_grad,
                            q::destructured_grad,
                        ),
                    ] {
                        let g = gf(&w, steps).1;
                        fd::agrees(what, &|v| f(v, steps), &w, &g, $tol);
                        fd::same(what, &g, &hf(&w, steps).1, $rel);
                    }
                }
                // irregular, so that no point is as far from two rows (a
                // tie, where the objective jumps)
                let points: Vec<$t> = (0..12)
                    .map(|k| (((k * 5 + seed * 3) % 13) as $t) / 6.1 - 0.93 + 0.017 * (k * k) as $t)
                    .collect();
                let c: Vec<$t> = (0..6)
                    .map(|k| w[k] + 0.031 * (k * k + seed) as $t)
                    .collect();
                let (_, g) = p::nearest_grad(&c, &points, 2);
                fd::agrees("nearest", &|v| p::nearest(v, &points, 2), &c, &g, $tol);
                fd::same(
                    "nearest, plain",
                    &g,
                    &q::nearest_grad(&c, &points, 2).1,
                    $rel,
                );
                let rows: Vec<$t> = (0..12).map(|k| 0.2 * k as $t - 1.0).collect();
                let (_, g) = p::layered::run_grad(&w[..6], &rows, 3);
                fd::agrees(
                    "layered",
                    &|v| p::layered::run(v, &rows, 3),
                    &w[..6],
                    &g,
                    $tol,
                );
                fd::same(
                    "layered, plain",
                    &g,
                    &q::layered::run_grad(&w[..6], &rows, 3).1,
                    $rel,
                );
                let (_, g) = p::lengths_grad(&w[..6], &rows, 3);
                fd::agrees("lengths", &|v| p::lengths(v, &rows, 3), &w[..6], &g, $tol);
                fd::same(
                    "lengths, plain",
                    &g,
                    &q::lengths_grad(&w[..6], &rows, 3).1,
                    $rel,
                );
            }
        }
    };
}

checks!(scans_f64, p64, q64, f64, 1e-6, 1e-12);
checks!(scans_f32, p32, q32, f32, 3e-2, 1e-5);

#[test]
fn a_generic_scan_agrees_in_f64_and_f32() {
    let w: Vec<f64> = (0..H * H).map(|k| 0.11 * k as f64 - 0.4).collect();
    let (_, g) = generic_grad(&w, 3);
    fd::agrees("generic", &|v| generic(v, 3), &w, &g, 1e-6);
    fd::same("generic, plain", &g, &generic_plain_grad(&w, 3).1, 1e-12);
    let w32: Vec<f32> = w.iter().map(|&v| v as f32).collect();
    let (_, g32) = generic_grad(&w32, 3);
    fd::agrees("generic f32", &|v| generic(v, 3), &w32, &g32, 3e-2);
    fd::same(
        "generic f32, plain",
        &g32,
        &generic_plain_grad(&w32, 3).1,
        1e-5,
    );
}
