//! Local arrays as users write them: nested literals of recorded values,
//! whole-array assignment (also inside loops), copies (`let v = u;`,
//! `.to_vec()`, `.clone()`, `.copy_from_slice(…)`), `.fill(x)`,
//! `.swap(i, j)`, `std::mem::swap` of two arrays (a stencil's double
//! buffer) and of two scalars, arrays that start constant and receive
//! recorded values later (by element, or whole inside a loop: a copy, a
//! part's copy, a borrowed slice, `clone_from`, `copy_from_slice`),
//! arrays swapped by a tuple, and tuples and arrays as the values of `if` and
//! `match`. Every program is written twice, as `#[tape]` and
//! as `#[tape(plain)]`, and checked in `f64` and `f32` against central
//! finite differences at several points and against its plain twin; some
//! against slopes derived by hand too. A window-form program checks the
//! same in the other form.
#![deny(warnings)]

mod fd;

macro_rules! programs {
    ($m:ident, $t:ty, $($mode:ident)?) => {
        pub mod $m {
            use mica::tape;

            /// `det [[a, b], [a·b, a + 1]] + Σ (M v)ᵢ` with `v = [b, 1]`.
            #[tape$(($mode))?]
            pub fn nested(#[tracked] w: &[$t]) -> $t {
                let (a, b) = (w[0], w[1]);
                let m = [[a, b], [a * b, a + 1.0]];
                let v = [b, 1.0];
                let mut mv = [0.0; 2];
                for i in 0..2 {
                    for j in 0..2 {
                        mv[i] += m[i][j] * v[j];
                    }
                }
                m[0][0] * m[1][1] - m[0][1] * m[1][0] + mv[0] + mv[1]
            }

            /// A two-term recurrence written as whole-array assignment:
            /// `r ← [r₀·w₀ + r₁, r₁·w₁]`, `n` times.
            #[tape$(($mode))?]
            pub fn recurrence(#[tracked] w: &[$t], n: usize) -> $t {
                let mut r = [w[2], 1.0];
                for _ in 0..n {
                    r = [r[0] * w[0] + r[1], r[1] * w[1]];
                }
                r[0] + 0.5 * r[1]
            }

            /// An explicit heat step on a ring, `steps` times, with a double
            /// buffer swapped by `std::mem::swap`.
            #[tape$(($mode))?]
            pub fn heat(#[tracked] w: &[$t], steps: usize) -> $t {
                let n = w.len();
                let mut u = w.to_vec();
                let mut next = vec![0.0; n];
                for _ in 0..steps {
                    for i in 0..n {
                        let left = u[(i + n - 1) % n];
                        let right = u[(i + 1) % n];
                        next[i] = u[i] + 0.25 * (left - 2.0 * u[i] + right) + 0.1 * u[i] * u[i];
                    }
                    std::mem::swap(&mut u, &mut next);
                }
                let mut total = 0.0;
                for i in 0..n {
                    total += u[i] * (i as $t + 1.0) + 0.01 * next[i];
                }
                total
            }

            /// A scratch array reset by `.fill(0.0)` in every iteration, and
            /// one filled with a recorded value.
            #[tape$(($mode))?]
            pub fn refilled(#[tracked] w: &[$t]) -> $t {
                let mut h = [0.0; 3];
                let mut total = 0.0;
                for k in 0..w.len() {
                    h.fill(0.0);
                    h[k % 3] = w[k] * w[k];
                    total += h[0] + 2.0 * h[1] + 3.0 * h[2];
                }
                let mut g = [0.0; 4];
                g.fill(w[1] * 0.5);
                g[2] = w[0];
                total + g[0] * g[1] + g[2] * g[3]
            }

            /// One bubble pass: neighbours out of order are swapped.
            #[tape$(($mode))?]
            pub fn bubble(#[tracked] w: &[$t]) -> $t {
                let mut h = [w[0], w[1] * w[1], w[2], w[3] + w[0]];
                for i in 0..3 {
                    if h[i] > h[i + 1] {
                        h.swap(i, i + 1);
                    }
                }
                h[0] + 2.0 * h[1] + 3.0 * h[2] + 4.0 * h[3] * h[3]
            }

            /// Copies are places of their own: writes to one do not reach
            /// the other's reads.
            #[tape$(($mode))?]
            pub fn copies(#[tracked] w: &[$t]) -> $t {
                let mut u = [w[0], 2.0 * w[1]];
                let mut nr = [w[2] * w[2], 1.0];
                let first = u[0] * u[1];
                u = nr;
                nr[0] = 5.0 * w[3];
                let v = u;
                u[0] = 3.0 * w[0];
                let mut c = v.clone();
                c[1] = c[0] * w[1];
                let mut d = [0.0; 2];
                d.copy_from_slice(&c);
                c[0] = 0.0;
                let mut e = w.to_vec();
                e[0] = e[1] * e[2];
                first + u[0] * u[1] + nr[0] * v[0] + c[1] * d[1] + d[0] + e[0] * e[3] + c[0]
            }

            /// Arrays that start constant and receive recorded values later,
            /// read before they are written in the same loop.
            #[tape$(($mode))?]
            pub fn late(#[tracked] w: &[$t]) -> $t {
                let mut h = [0.0; 2];
                let mut s = 0.0;
                for k in 0..w.len() {
                    s += h[0] * w[k] + h[1];
                    h[0] = s + w[k];
                    h[1] = h[0] * 0.5;
                }
                let mut z = [0.0; 2];
                z[1] = w[2];
                let q = z[1] * z[0];
                let p = w[0] * 3.0;
                z = [p, p * w[1]];
                s + h[1] + z[0] + z[1] + q
            }

            /// Tuples out of an `if` and a `match`, inside a loop.
            #[tape$(($mode))?]
            pub fn tuples_out_of_branches(#[tracked] w: &[$t]) -> $t {
                let mut s = 0.0;
                for i in 0..w.len() {
                    let (a, b) = if w[i] > 0.0 { (w[i], 1.0) } else { (1.0, w[i] * w[i]) };
                    let (c, d) = match i % 3 {
                        0 => (a * b, w[0]),
                        1 => (2.0, b),
                        _ => (a, 3.0),
                    };
                    s += a * b + c * d + 0.1 * s;
                }
                s
            }

            /// Arrays out of branches: literals, a constant, and names.
            #[tape$(($mode))?]
            pub fn arrays_out_of_branches(#[tracked] w: &[$t]) -> $t {
                let mut s = 0.0;
                for i in 0..w.len() {
                    let r = match i % 3 {
                        0 => [w[i], w[i] * w[i]],
                        1 => [0.5, 1.0],
                        _ => [w[i] + 1.0, 2.0 * w[0]],
                    };
                    s += r[0] * r[1];
                }
                let u = [w[0], w[1]];
                let v = [w[2] * w[2], w[3]];
                let r = if w[0] > w[1] { u } else { v };
                s + r[0] * r[1]
            }

            /// A local array borrowed by name (`let r = &h;`) and read
            /// through the borrow, a `Vec` too.
            #[tape$(($mode))?]
            pub fn borrowed(#[tracked] w: &[$t]) -> $t {
                let h = [w[0] * w[1], w[2].sin()];
                let r = &h;
                let v = vec![r[1] * w[3], w[0]];
                let s = &v;
                r[0] * 0.5 + r[1] * s[0] + s[1] * s[1]
            }

            /// A borrow in a block after an early `return` (the third
            /// point returns): the borrow ends with the block, and what
            /// the reverse keeps of it outlives the array.
            #[tape$(($mode))?]
            pub fn borrowed_after_return(#[tracked] w: &[$t]) -> $t {
                if w[0] > 1.0 {
                    return w[1] * w[2];
                }
                let h = [w[0] * w[1], w[2].sin(), w[3]];
                let t = {
                    let r = &h;
                    r[1] * r[2]
                };
                t + h[0] * w[3]
            }

            /// Arrays that hold constants where a loop starts and recorded
            /// arrays after its first iteration: a copy of data, a part
            /// of it, a borrowed slice, given `v.to_vec()`, `v[k..k + 2]
            /// .to_vec()` and `&v`. The value is a constant plus
            /// `2 v₀ v₁ + v₂ + v₂²`, `v = [sin w₀, w₁ w₂, w₃]`.
            #[tape$(($mode))?]
            pub fn carried_copies(#[tracked] w: &[$t], data: &[$t]) -> $t {
                let v = [w[0].sin(), w[1] * w[2], w[3]];
                let mut prev = data.to_vec();
                let mut part = data[1..3].to_vec();
                let mut seen: &[$t] = data;
                let mut s = 0.0;
                for k in 0..2 {
                    s += prev[0] * prev[1] + part[0] * part[1] + seen[2];
                    prev = v.to_vec();
                    part = v[k..k + 2].to_vec();
                    seen = &v;
                }
                s + prev[2] * part[1]
            }

            /// `clone_from` and `copy_from_slice` of a recorded `Vec` into
            /// `Vec`s of constants, in a loop: the value is ¼ (the
            /// constants, read in the first iteration) + sin w₀ · w₁w₂ +
            /// w₁w₂.
            #[tape$(($mode))?]
            pub fn cloned_into(#[tracked] w: &[$t]) -> $t {
                let v = vec![w[0].sin(), w[1] * w[2]];
                let mut a = vec![0.5, 0.25];
                let mut b = vec![0.75, 0.125];
                let mut s = 0.0;
                for _ in 0..2 {
                    s += a[0] * a[1] + b[1];
                    a.clone_from(&v);
                    b.copy_from_slice(&v);
                }
                s
            }

            /// Arrays swapped by a tuple, one recorded and one of
            /// constants: `(a, b) = (b, a);` and `let (p, q) = (b, a);`
            /// then assigned back, in a loop. The value is a constant plus
            /// `Σ` over the iterations where `a` holds the recorded array.
            #[tape$(($mode))?]
            pub fn tuple_swaps(#[tracked] w: &[$t]) -> $t {
                let mut a = vec![w[0].sin(), w[1] * w[2]];
                let mut b = vec![0.5, 0.25];
                let mut s = 0.0;
                for _ in 0..3 {
                    s += a[0] * b[1] + a[1];
                    (a, b) = (b, a);
                }
                let mut c = vec![w[3], w[0]];
                let mut d = vec![0.75, 0.125];
                for _ in 0..2 {
                    s += c[0] * d[1];
                    let (p, q) = (d, c);
                    c = p;
                    d = q;
                }
                s + b[0] * c[1]
            }

            /// Two scalars swapped, and a swap under a recorded condition.
            #[tape$(($mode))?]
            pub fn scalars(#[tracked] w: &[$t]) -> $t {
                let mut x = w[0] * w[0];
                let mut y = 3.0 * w[1];
                std::mem::swap(&mut x, &mut y);
                if x > y {
                    std::mem::swap(&mut x, &mut y);
                }
                x * 2.0 + y * w[2]
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
            &[0.3, -0.7, 0.45, 0.9],
            &[-0.55, 0.25, 0.8, -0.35],
            &[1.1, 0.6, -0.2, 0.15],
        ];
        for p in points {
            let (_, g) = nested_grad(p);
            let (a, b) = (p[0], p[1]);
            // d/da (a(a+1) - ab² + ab + b + ab² + a + 1) = 2a + 1 + b + 1
            // d/db (-ab² + ab + b + ab² + …) = a + 1
            let by_hand = [2.0 * a + 2.0 + b, a + 1.0, 0.0, 0.0];
            same(&g, &by_hand, "nested by hand");
            same(&g, &$q::nested_grad(p).1, "nested");
            agree("nested", &|v| nested(v), p, &g);

            for n in [0, 1, 4] {
                let (_, g) = recurrence_grad(p, n);
                same(&g, &$q::recurrence_grad(p, n).1, "recurrence");
                agree("recurrence", &|v| recurrence(v, n), p, &g);
            }
            for steps in [0, 1, 3] {
                let (_, g) = heat_grad(p, steps);
                same(&g, &$q::heat_grad(p, steps).1, "heat");
                agree("heat", &|v| heat(v, steps), p, &g);
            }
            let (_, g) = refilled_grad(p);
            same(&g, &$q::refilled_grad(p).1, "refilled");
            agree("refilled", &|v| refilled(v), p, &g);

            let (_, g) = bubble_grad(p);
            same(&g, &$q::bubble_grad(p).1, "bubble");
            agree("bubble", &|v| bubble(v), p, &g);

            let (_, g) = copies_grad(p);
            // u = [3w₀, 1], nr₀ = 5w₃, v = [w₂², 1], c = [0, w₂² w₁],
            // d = [w₂², w₂² w₁], e₀ = w₁ w₂, e₃ = w₃: the value is
            // 2w₀w₁ + 3w₀ + 5w₃w₂² + w₂⁴w₁² + w₂² + w₁w₂w₃
            let (w0, w1, w2, w3) = (p[0], p[1], p[2], p[3]);
            let by_hand = [
                2.0 * w1 + 3.0,
                2.0 * w0 + 2.0 * w2.powi(4) * w1 + w2 * w3,
                10.0 * w3 * w2 + 4.0 * w2.powi(3) * w1 * w1 + 2.0 * w2 + w1 * w3,
                5.0 * w2 * w2 + w1 * w2,
            ];
            same(&g, &by_hand, "copies by hand");
            same(&g, &$q::copies_grad(p).1, "copies");
            agree("copies", &|v| copies(v), p, &g);

            let (_, g) = late_grad(p);
            same(&g, &$q::late_grad(p).1, "late");
            agree("late", &|v| late(v), p, &g);

            let (_, g) = tuples_out_of_branches_grad(p);
            same(
                &g,
                &$q::tuples_out_of_branches_grad(p).1,
                "tuples_out_of_branches",
            );
            agree(
                "tuples_out_of_branches",
                &|v| tuples_out_of_branches(v),
                p,
                &g,
            );

            let (_, g) = arrays_out_of_branches_grad(p);
            same(
                &g,
                &$q::arrays_out_of_branches_grad(p).1,
                "arrays_out_of_branches",
            );
            agree(
                "arrays_out_of_branches",
                &|v| arrays_out_of_branches(v),
                p,
                &g,
            );

            let (_, g) = borrowed_grad(p);
            same(&g, &$q::borrowed_grad(p).1, "borrowed");
            agree("borrowed", &|v| borrowed(v), p, &g);

            let (_, g) = borrowed_after_return_grad(p);
            same(
                &g,
                &$q::borrowed_after_return_grad(p).1,
                "borrowed_after_return",
            );
            agree(
                "borrowed_after_return",
                &|v| borrowed_after_return(v),
                p,
                &g,
            );

            let data: [$t; 3] = [0.5, 0.25, 0.75];
            let (_, g) = carried_copies_grad(p, &data);
            let (w0, w1, w2, w3) = (p[0], p[1], p[2], p[3]);
            let by_hand = [
                2.0 * w0.cos() * w1 * w2,
                2.0 * w0.sin() * w2,
                2.0 * w0.sin() * w1,
                1.0 + 2.0 * w3,
            ];
            same(&g, &by_hand, "carried_copies by hand");
            same(&g, &$q::carried_copies_grad(p, &data).1, "carried_copies");
            agree("carried_copies", &|v| carried_copies(v, &data), p, &g);

            let (_, g) = cloned_into_grad(p);
            let (w0, w1, w2) = (p[0], p[1], p[2]);
            let by_hand = [
                w0.cos() * w1 * w2,
                (w0.sin() + 1.0) * w2,
                (w0.sin() + 1.0) * w1,
                0.0,
            ];
            same(&g, &by_hand, "cloned_into by hand");
            same(&g, &$q::cloned_into_grad(p).1, "cloned_into");
            agree("cloned_into", &|v| cloned_into(v), p, &g);

            let (_, g) = tuple_swaps_grad(p);
            // a holds [sin w₀, w₁w₂] in iterations 0 and 2, b after;
            // c = [w₃, w₀] in iteration 0, d = [w₃, w₀] in 1, c again
            // after: the value is ½ sin w₀ + 2.5 w₁w₂ + ¼ + ⅛ w₃ + ¾ w₀ +
            // w₀ sin w₀
            let (w0, w1, w2) = (p[0], p[1], p[2]);
            let by_hand = [
                0.5 * w0.cos() + 0.75 + w0.sin() + w0 * w0.cos(),
                2.5 * w2,
                2.5 * w1,
                0.125,
            ];
            same(&g, &by_hand, "tuple_swaps by hand");
            same(&g, &$q::tuple_swaps_grad(p).1, "tuple_swaps");
            agree("tuple_swaps", &|v| tuple_swaps(v), p, &g);

            let (_, g) = scalars_grad(p);
            same(&g, &$q::scalars_grad(p).1, "scalars");
            agree("scalars", &|v| scalars(v), p, &g);
        }
    }};
}

#[test]
fn local_arrays_agree_with_finite_differences_hand_slopes_and_plain_adjoints() {
    check_all!(p64, q64, f64, 1e-6, 1e-12);
    check_all!(p32, q32, f32, 2e-2, 1e-5);
}

#[mica::tape]
fn window(a: f64, b: f64) -> (f64, f64, f64) {
    #[tracked]
    let a = a;
    #[tracked]
    let b = b;
    tape! {
        let m = [[a, b], [a * b, 1.0]];
        let mut u = [m[0][0], m[1][0]];
        let mut v = [0.0; 2];
        for _ in 0..2 {
            v = [u[0] * m[0][1] + u[1], u[1] * 0.5];
            std::mem::swap(&mut u, &mut v);
        }
        let total = u[0] + u[1] + v[0];
    }
    backward!(total);
    (total, gradient!(a), gradient!(b))
}

#[test]
fn the_window_form_has_them_too() {
    let f = |a: f64, b: f64| window(a, b).0;
    for (a, b) in [(0.4, -0.8), (1.2, 0.3), (-0.6, 0.9)] {
        let (_, ga, gb) = window(a, b);
        fd::agrees(
            "window",
            &|v: &[f64]| f(v[0], v[1]),
            &[a, b],
            &[ga, gb],
            1e-6,
        );
    }
}

/// A copy of an untracked parameter (`x.to_vec()`) that a loop replaces
/// with recorded values, layer after layer.
#[mica::tape]
pub fn relayed(#[tracked] w: &[f64], x: &[f64]) -> f64 {
    let mut h = x.to_vec();
    for _layer in 0..3 {
        let mut next = vec![0.0; 2];
        for o in 0..2 {
            let mut z = 0.0;
            for i in 0..2 {
                z += w[o * 2 + i] * h[i];
            }
            next[o] = z.tanh();
        }
        h = next;
    }
    h[0] + 2.0 * h[1]
}

/// A `Vec` of `Vec`s, tracked: ragged rows.
#[mica::tape]
#[allow(clippy::needless_range_loop)] // rows and columns, as the math reads
pub fn ragged(#[tracked] rows: &[Vec<f64>], x: &[f64]) -> f64 {
    let mut total = 0.0;
    for r in 0..rows.len() {
        let mut s = 0.0;
        for k in 0..rows[r].len() {
            s += rows[r][k] * x[k];
        }
        total += s.sin() * rows[r][0];
    }
    total
}

#[test]
fn a_copied_parameter_becomes_recorded_and_vecs_of_vecs_are_knobs() {
    let w = [0.3, -0.5, 0.8, 0.2];
    for x in [[0.5, -1.0], [1.5, 0.25], [-0.7, 0.9]] {
        let (v, g) = relayed_grad(&w, &x);
        assert_eq!(v, relayed(&w, &x));
        fd::agrees("relayed", &|p| relayed(p, &x), &w, &g, 1e-6);
    }
    let rows = vec![vec![0.3, 0.5, 0.7], vec![1.1], vec![-0.4, 0.2]];
    let flat: Vec<f64> = rows.iter().flatten().copied().collect();
    let shape = |p: &[f64]| vec![p[0..3].to_vec(), p[3..4].to_vec(), p[4..6].to_vec()];
    for x in [[0.9, 1.3, -0.6], [-0.2, 0.4, 1.7]] {
        let (_, g) = ragged_grad(&rows, &x);
        let claimed: Vec<f64> = g.iter().flatten().copied().collect();
        fd::agrees("ragged", &|p| ragged(&shape(p), &x), &flat, &claimed, 1e-6);
    }
}

/// Layers of different widths, each output replacing the last: the array
/// `h` holds 2, then 3, then 1 elements.
#[mica::tape]
#[allow(clippy::needless_range_loop)] // layers by number, as the math reads
pub fn widths(#[tracked] w: &[f64], x: &[f64]) -> f64 {
    let sizes = [2, 3, 1];
    let mut h = x.to_vec();
    let mut at = 0;
    for l in 1..3 {
        let mut next = vec![0.0; sizes[l]];
        for o in 0..sizes[l] {
            let mut z = 0.0;
            for i in 0..h.len() {
                z += w[at + o * h.len() + i] * h[i];
            }
            next[o] = z.tanh();
        }
        at += sizes[l] * h.len();
        h = next;
    }
    let mut total = 0.0;
    for v in h.iter() {
        total += v * v;
    }
    total
}

/// [`widths`] in `f32`, its layers growing then shrinking the other way.
#[mica::tape]
#[allow(clippy::needless_range_loop)]
pub fn widths32(#[tracked] w: &[f32], x: &[f32]) -> f32 {
    let sizes = [1, 3, 2];
    let mut h = x.to_vec();
    let mut at = 0;
    for l in 1..3 {
        let mut next = vec![0.0; sizes[l]];
        for o in 0..sizes[l] {
            let mut z = 0.0;
            for i in 0..h.len() {
                z += w[at + o * h.len() + i] * h[i];
            }
            next[o] = z.sin();
        }
        at += sizes[l] * h.len();
        h = next;
    }
    let mut total = h[0] * h[1];
    // a constant of another length, then recorded values again
    h = vec![0.5; 4];
    for i in 0..4 {
        h[i] *= w[i];
    }
    for v in h.iter() {
        total += v * v;
    }
    total
}

#[test]
fn an_array_replaced_by_one_of_another_length() {
    let w: Vec<f64> = (0..9).map(|k| 0.3 - 0.11 * k as f64).collect();
    for x in [[0.5, -1.0], [1.5, 0.25], [-0.7, 0.9]] {
        let (v, g) = widths_grad(&w, &x);
        assert_eq!(v, widths(&w, &x));
        fd::agrees("widths", &|p| widths(p, &x), &w, &g, 1e-6);
    }
    let w: Vec<f32> = (0..9).map(|k| 0.4 - 0.07 * k as f32).collect();
    for x in [[0.5], [-1.25]] {
        let (_, g) = widths32_grad(&w, &x);
        fd::agrees("widths f32", &|p| widths32(p, &x), &w, &g, 2e-2);
    }
}

/// A copy of a recorded array given to a name first bound to a copy of a
/// helper's constant result, the copied array written afterwards: the
/// name once stood for the copied array, so the later write reached its
/// reads and the slope was wrong (10 where it is 6.4 at 0.7). The helper
/// is given a literal (`&[-0.13]`), whose type its parameter's says.
macro_rules! copy_after_a_helper {
    ($m:ident, $t:ty, $($mode:ident)?) => {
        #[mica::tape$(($mode))?]
        pub mod $m {
            pub fn three(s: &[$t]) -> [$t; 3] {
                [s[0] * 0.5, 0.2, 0.5]
            }

            /// `tanh 0.5 + x² + 5x`.
            pub fn f(#[tracked] x: $t) -> $t {
                let mut h = [x.sin(), x, x * x];
                let r = three(&[-0.13]);
                let mut v = r[0..3].to_vec();
                let mut t: $t = v[2].tanh();
                v = h.to_vec();
                h[2] = 5.0 * x;
                t += v[2] + h[2];
                t
            }
        }
    };
}
copy_after_a_helper!(after64, f64,);
copy_after_a_helper!(after_plain64, f64, plain);
copy_after_a_helper!(after32, f32,);

#[test]
fn a_copy_does_not_stand_for_the_array_it_copies() {
    for x in [0.7_f64, -1.3, 2.2] {
        let (value, g) = after64::f_grad(x);
        fd::close("value", value, 0.5_f64.tanh() + x * x + 5.0 * x, 1e-12);
        fd::close("slope by hand", g, 2.0 * x + 5.0, 1e-12);
        fd::close("plain twin", g, after_plain64::f_grad(x).1, 1e-12);
        let e = 1e-6;
        fd::close(
            "finite differences",
            g,
            (after64::f(x + e) - after64::f(x - e)) / (2.0 * e),
            1e-6,
        );
        let (_, g32) = after32::f_grad(x as f32);
        fd::close("f32", g32, (2.0 * x + 5.0) as f32, 1e-5);
    }
}

/// What the hint of a tuple of arrays out of a branch says to write
/// (`tests/ui/fail/tuple_of_arrays_from_a_branch`): each array declared
/// before the branch and assigned whole in every arm.
macro_rules! declared_then_assigned {
    ($m:ident, $t:ty, $($mode:ident)?) => {
        pub mod $m {
            /// flipped: `3 x₁ + 2 x₀ + x₀ x₁`; else `2 x₀ + x₁ + x₀²`.
            #[allow(unused_assignments)]
            #[mica::tape$(($mode))?]
            pub fn pick(#[tracked] x: &[$t; 2], flip: bool) -> $t {
                let mut a = [0.0; 2];
                let mut b = [0.0; 2];
                if flip {
                    a = [x[1], x[0]];
                    b = [3.0, 2.0 + x[1]];
                } else {
                    a = [x[0], x[1]];
                    b = [2.0 + x[0], 1.0];
                }
                a[0] * b[0] + a[1] * b[1]
            }
        }
    };
}
declared_then_assigned!(declared64, f64,);
declared_then_assigned!(declared_plain64, f64, plain);
declared_then_assigned!(declared32, f32,);

#[test]
fn arrays_declared_before_a_branch_and_assigned_in_its_arms() {
    for x in [[0.7_f64, -1.3], [2.2, 0.4]] {
        for flip in [true, false] {
            let by_hand = if flip {
                [2.0 + x[1], 3.0 + x[0]]
            } else {
                [2.0 + 2.0 * x[0], 1.0]
            };
            let (_, g) = declared64::pick_grad(&x, flip);
            let (_, twin) = declared_plain64::pick_grad(&x, flip);
            let (_, g32) = declared32::pick_grad(&x.map(|v| v as f32), flip);
            for i in 0..2 {
                fd::close("slope by hand", g[i], by_hand[i], 1e-12);
                fd::close("plain twin", g[i], twin[i], 1e-12);
                fd::close("f32", g32[i], by_hand[i] as f32, 1e-5);
            }
            fd::agrees(
                "pick",
                &|p| declared64::pick(&[p[0], p[1]], flip),
                &x,
                &g,
                1e-6,
            );
        }
    }
}
