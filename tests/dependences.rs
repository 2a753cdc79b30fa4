//! Loops whose iterations reach each other through an array.
//!
//! A top-level loop that sums into a carried binding may run its reverse
//! inside its forward sweep only when no iteration reads or writes an
//! element another iteration writes. These programs pass values from one
//! iteration to the next through an array made before the loop (a flow
//! dependence, `h[i] = h[i - 1] * w`), read an element before a later
//! iteration overwrites it (an anti dependence), add into one element every
//! iteration, start recurrences from `vec![w; n]`, step a simulation in
//! place, and solve a triangular system while summing its solution's
//! squares. Beside them, loops that touch one element per iteration, or
//! renew a scratch array made before them at the top of each iteration,
//! which may still be fused (and the edges of that renewal, which may not), and arrays handed to `#[tape]` callees: one array
//! passed to two tracked parameters, and one passed by reference in a loop
//! that changes it afterwards.
//!
//! Every program is written twice, as `#[tape]` and as `#[tape(plain)]`
//! (every shortcut off), and checked against central finite differences at
//! several points in `f64` and `f32`, against its plain twin, and the
//! shortest against slopes derived by hand.
#![deny(warnings)]

mod fd;

macro_rules! programs {
    ($m:ident, $t:ty, $($mode:ident)?) => {
        pub mod $m {
            use mica::tape;

            /// The program: `h[i] = h[i - 1] * w`, summed.
            /// `total = w² + w³`.
            #[tape$(($mode))?]
            pub fn recurrence(#[tracked] w: $t) -> $t {
                let mut h = vec![0.0; 3];
                h[0] = w;
                let mut total = 0.0;
                for i in 1..3 {
                    h[i] = h[i - 1] * w;
                    total += h[i];
                }
                total
            }

            /// The program over a named bound, which stays a loop
            /// (over `1..3` the loop is written out, and nothing is fused).
            #[tape$(($mode))?]
            pub fn recurrence_named(#[tracked] w: $t) -> $t {
                const LAST: usize = 3;
                let mut h = vec![0.0; LAST];
                h[0] = w;
                let mut total = 0.0;
                for i in 1..LAST {
                    h[i] = h[i - 1] * w;
                    total += h[i];
                }
                total
            }

            /// A scalar carried in `acc[0]`.
            #[tape$(($mode))?]
            pub fn carried_in_element(#[tracked] w: $t, x: &[$t]) -> $t {
                let mut acc = vec![0.0; 1];
                acc[0] = w;
                let mut total = 0.0;
                for i in 0..x.len() {
                    acc[0] = acc[0] * x[i] + w;
                    total += acc[0];
                }
                total
            }

            /// `h[0] += …` every iteration, its running value summed.
            #[tape$(($mode))?]
            pub fn increment_one(#[tracked] w: &[$t]) -> $t {
                let mut h = [0.0; 2];
                let mut total = 0.0;
                for i in 0..w.len() {
                    h[0] += w[i] * w[i];
                    total += h[0].sin();
                }
                total
            }

            /// A recurrence started from `vec![w; n]`.
            #[tape$(($mode))?]
            pub fn from_vec_of_knob(#[tracked] w: $t, n: usize) -> $t {
                let mut h = vec![w; n];
                let mut total = 0.0;
                for i in 1..n {
                    h[i] = h[i - 1] * h[i] * 0.5 + 0.1;
                    total += h[i] * h[i];
                }
                total
            }

            /// An anti dependence: `h[i + 1]` is read before iteration
            /// `i + 1` overwrites it.
            #[tape$(($mode))?]
            pub fn anti(#[tracked] w: &[$t]) -> $t {
                let n = w.len();
                let mut h = vec![0.0; n];
                for i in 0..n {
                    h[i] = w[i];
                }
                let mut total = 0.0;
                for i in 0..n - 1 {
                    let t = h[i + 1];
                    h[i] = t * w[i];
                    total += h[i] * t;
                }
                total
            }

            /// An explicit scheme stepped in place, its cost summed per step.
            #[tape$(($mode))?]
            pub fn time_steps(#[tracked] u0: &[$t], r: $t, steps: usize) -> $t {
                let n = u0.len();
                let mut u = vec![0.0; n];
                for j in 0..n {
                    u[j] = u0[j];
                }
                let mut cost = 0.0;
                for _ in 0..steps {
                    for j in 1..n - 1 {
                        u[j] = u[j] + r * (u[j - 1] - 2.0 * u[j] + u[j + 1]);
                    }
                    cost += u[n / 2] * u[n / 2];
                }
                cost
            }

            /// Forward substitution `L x = b`, summing `x[i]²` as it goes.
            #[tape$(($mode))?]
            pub fn substitution(#[tracked] b: &[$t], l: &[$t]) -> $t {
                let n = b.len();
                let mut x = vec![0.0; n];
                let mut total = 0.0;
                for i in 0..n {
                    let mut s = b[i];
                    for j in 0..i {
                        s -= l[i * n + j] * x[j];
                    }
                    x[i] = s / l[i * n + i];
                    total += x[i] * x[i];
                }
                total
            }

            /// The same element in every access of an iteration: no
            /// iteration reaches another.
            #[tape$(($mode))?]
            pub fn own_element(#[tracked] w: &[$t]) -> $t {
                let n = w.len();
                let mut h = vec![0.0; n];
                let mut total = 0.0;
                for i in 0..n {
                    h[i] = w[i].sin() * w[i];
                    total += h[i] * h[i];
                }
                total
            }

            /// A row per iteration, written and read at the same column.
            #[tape$(($mode))?]
            pub fn own_row(#[tracked] w: &[$t]) -> $t {
                let n = w.len();
                let mut h = vec![[0.0; 2]; n];
                let mut total = 0.0;
                for i in 0..n {
                    h[i][0] = w[i] * 2.0;
                    h[i][1] = h[i][0] * w[i];
                    total += h[i][1] + h[i][0];
                }
                total
            }

            /// Scratch arrays made before the loop and renewed at the top
            /// of each iteration, then added into over a triangle (the shape
            /// of a mixture model's objective).
            #[tape$(($mode))?]
            pub fn renewed_scratch(#[tracked] w: &[$t], x: &[$t]) -> $t {
                let d = w.len();
                let mut xc = vec![0.0; d];
                let mut main = vec![0.0; 2];
                let mut total = 0.0;
                for i in 0..x.len() {
                    for c in 0..2 {
                        for j in 0..d {
                            xc[j] = x[i] - w[j] * (c as $t + 1.0);
                        }
                        for a in 0..d {
                            for b in a + 1..d {
                                let t = xc[a];
                                xc[b] += t * 0.5;
                            }
                        }
                        let mut sq = 0.0;
                        for j in 0..d {
                            sq += xc[j] * xc[j];
                        }
                        main[c] = -0.5 * sq;
                    }
                    total += (main[0].exp() + main[1].exp()).ln();
                }
                total
            }

            /// The scratch array read before its renewal: the previous
            /// iteration's value reaches this one.
            #[tape$(($mode))?]
            pub fn read_before_renewal(#[tracked] w: &[$t], x: &[$t]) -> $t {
                let mut s = vec![0.0; 3];
                // (`w` has 3 elements: a renewal over `0..3` would be
                // written out, and then be no loop)
                let d = w.len();
                let mut total = 0.0;
                for i in 0..x.len() {
                    let prev = s[0];
                    for j in 0..d {
                        s[j] = (w[j] * x[i]).sin() + prev * 0.5;
                    }
                    total += s[1] * s[2];
                }
                total
            }

            /// Renewed over `1..3` only; `s[0]`, written after the renewal,
            /// is read in the next iteration.
            #[tape$(($mode))?]
            pub fn partly_renewed(#[tracked] w: &[$t], x: &[$t]) -> $t {
                let mut s = [0.0; 3];
                let d = w.len();
                let mut total = 0.0;
                for i in 0..x.len() {
                    for j in 1..d {
                        s[j] = w[j] * x[i];
                    }
                    total += (s[0] * s[1]).tanh();
                    s[0] = s[2] + w[0];
                }
                total
            }

            /// Renewed over `1..3` only, then added into over `0..3` by a
            /// loop: `s[0]` carries its sum to the next iteration.
            #[tape$(($mode))?]
            pub fn partly_renewed_added(#[tracked] w: &[$t], x: &[$t]) -> $t {
                let mut s = [0.0; 3];
                let d = w.len();
                let mut total = 0.0;
                for i in 0..x.len() {
                    for j in 1..d {
                        s[j] = w[j] * x[i];
                    }
                    for k in 0..d {
                        s[k] += (w[0] * x[i]).sin() * 0.5;
                    }
                    total += s[0] * s[0];
                }
                total
            }

            /// Renewed by an inner loop for its own iterations, and read
            /// before that loop by the outer iteration: the previous outer
            /// iteration's value reaches this one.
            #[tape$(($mode))?]
            pub fn renewed_inside_read_outside(#[tracked] w: &[$t], x: &[$t]) -> $t {
                let mut s: [$t; 3] = [0.0; 3];
                let d = w.len();
                let mut total = 0.0;
                for i in 0..x.len() {
                    let prev = s[0];
                    for _c in 0..2 {
                        for j in 0..d {
                            s[j] = w[j] * x[i] + prev.sin();
                        }
                    }
                    total += prev * s[1];
                }
                total
            }

            /// One element written by every iteration: only the last
            /// write's value survives.
            #[tape$(($mode))?]
            pub fn overwritten(#[tracked] w: &[$t]) -> $t {
                let mut h = [0.0; 3];
                for j in 0..w.len() {
                    h[1] = w[j] * 0.7;
                }
                h[1] * h[1]
            }

            /// A carried value that decays: its adjoint changes every
            /// iteration, though the loop keeps nothing.
            #[tape$(($mode))?]
            pub fn decayed(#[tracked] w: &[$t]) -> $t {
                let mut z = w[0] * 0.25;
                for j in 0..w.len() {
                    z = z * 0.6 + w[j];
                }
                z
            }

            #[tape$(($mode))?]
            pub fn dot(#[tracked] a: &[$t; 3], #[tracked] b: &[$t; 3]) -> $t {
                a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
            }

            #[tape$(($mode))?]
            pub fn norm2(#[tracked] a: &[$t; 3]) -> $t {
                a[0] * a[0] + a[1] * a[1] + a[2] * a[2]
            }

            /// One array passed to both tracked parameters of a callee.
            /// `14 w²`.
            #[tape$(($mode))?]
            pub fn passed_twice(#[tracked] w: $t) -> $t {
                let h = [w, w * 2.0, w * 3.0];
                dot(&h, &h)
            }

            /// A local array passed by reference in a loop that then
            /// changes it. `2 w² + w⁴`.
            #[tape$(($mode))?]
            pub fn changed_after_call(#[tracked] w: $t) -> $t {
                let mut h = [w, 0.0, 0.0];
                let mut total = 0.0;
                for i in 1..3 {
                    total += norm2(&h);
                    h[i] = h[i - 1] * w;
                }
                total
            }

            /// An array of zeros that only a later array, itself recorded
            /// by a write below it, makes recorded.
            #[tape$(($mode))?]
            pub fn written_from_later_array(#[tracked] w: &[$t]) -> $t {
                let mut a = [0.0; 3];
                let mut b = vec![0.0; 3];
                b[0] = w[0] * w[1];
                a[1] = b[0].sin();
                a[1] + b[0]
            }

            /// The loop variable shadowed inside the body: `h[i]` below the
            /// `let` is `h[i + 1]` of the loop's variable.
            #[tape$(($mode))?]
            pub fn shadowed_index(#[tracked] w: &[$t]) -> $t {
                let n = w.len();
                let mut h = vec![0.0; n + 1];
                h[0] = 1.0;
                let mut total = 0.0;
                for i in 0..n {
                    let prev = h[i];
                    let i = i + 1;
                    h[i] = prev * w[i - 1];
                    total += h[i];
                }
                total
            }
        }
    };
}

programs!(p64, f64,);
programs!(p32, f32,);
// the same programs with every shortcut off
programs!(q64, f64, plain);
programs!(q32, f32, plain);

macro_rules! check_all {
    ($m:ident, $q:ident, $t:ty, $tol:expr, $close:expr) => {{
        use $m::*;
        let agree = |name: &str, f: &dyn Fn(&[$t]) -> $t, at: &[$t], g: &[$t]| {
            fd::agrees(&format!("{}::{name}", stringify!($m)), f, at, g, $tol)
        };
        let close = |a: $t, b: $t, what: &str| {
            fd::close(&format!("{}: {what}", stringify!($m)), a, b, $close)
        };
        let same = |g: &[$t], gq: &[$t], what: &str| {
            let what = format!("{}: {what} against its plain adjoint", stringify!($m));
            fd::same(&what, g, gq, $close)
        };
        let points: [&[$t]; 3] = [
            &[0.3, -0.7, 0.45, 0.9],
            &[-0.55, 0.25, 0.8, -0.35],
            &[1.1, 0.6, -0.2, 0.15],
        ];
        let x: [$t; 4] = [0.9, -0.6, 1.2, 0.4];
        // a lower triangle with a strong diagonal
        let mut l = [0.0 as $t; 16];
        for i in 0..4 {
            for j in 0..=i {
                l[i * 4 + j] = if i == j {
                    2.0 + i as $t * 0.5
                } else {
                    0.3 - 0.1 * j as $t
                };
            }
        }
        for p in points {
            let w = p[0];
            // by hand: d(w² + w³)/dw
            let (value, g) = recurrence_named_grad(w);
            close(value, w * w + w * w * w, "recurrence_named value");
            close(g, 2.0 * w + 3.0 * w * w, "recurrence_named slope by hand");
            let (value, g) = recurrence_grad(w);
            close(value, w * w + w * w * w, "recurrence value");
            close(g, 2.0 * w + 3.0 * w * w, "recurrence slope by hand");
            agree("recurrence", &|v| recurrence(v[0]), &[w], &[g]);
            close(
                g,
                $q::recurrence_grad(w).1,
                "recurrence against its plain adjoint",
            );

            // by hand: acc_k = acc_{k-1} x_k + w with acc_0 = w, so
            // d acc_k = d acc_{k-1} x_k + 1
            let (_, g) = carried_in_element_grad(w, &x);
            let (mut d, mut slope) = (1.0 as $t, 0.0 as $t);
            for xi in x {
                d = d * xi + 1.0;
                slope += d;
            }
            close(g, slope, "carried_in_element slope by hand");
            same(
                &[g],
                &[$q::carried_in_element_grad(w, &x).1],
                "carried_in_element",
            );
            agree(
                "carried_in_element",
                &|v| carried_in_element(v[0], &x),
                &[w],
                &[g],
            );

            let (_, g) = increment_one_grad(p);
            agree("increment_one", &|v| increment_one(v), p, &g);
            same(&g, &$q::increment_one_grad(p).1, "increment_one");

            let (_, g) = from_vec_of_knob_grad(w, 5);
            agree(
                "from_vec_of_knob",
                &|v| from_vec_of_knob(v[0], 5),
                &[w],
                &[g],
            );

            let (_, g) = anti_grad(p);
            agree("anti", &|v| anti(v), p, &g);
            same(&g, &$q::anti_grad(p).1, "anti");

            let (_, g) = time_steps_grad(p, 0.2, 3);
            agree("time_steps", &|v| time_steps(v, 0.2, 3), p, &g);
            let (_, gq) = $q::time_steps_grad(p, 0.2, 3);
            for k in 0..4 {
                close(g[k], gq[k], "time_steps against its plain adjoint");
            }

            let (_, g) = substitution_grad(p, &l);
            agree("substitution", &|v| substitution(v, &l), p, &g);
            let (_, gq) = $q::substitution_grad(p, &l);
            for k in 0..4 {
                close(g[k], gq[k], "substitution against its plain adjoint");
            }

            let (_, g) = own_element_grad(p);
            agree("own_element", &|v| own_element(v), p, &g);
            same(&g, &$q::own_element_grad(p).1, "own_element");
            let (_, g) = own_row_grad(p);
            agree("own_row", &|v| own_row(v), p, &g);
            same(&g, &$q::own_row_grad(p).1, "own_row");
            let (value, g) = passed_twice_grad(w);
            close(value, 14.0 * w * w, "passed_twice value");
            close(g, 28.0 * w, "passed_twice slope by hand");
            let (value, g) = changed_after_call_grad(w);
            close(
                value,
                2.0 * w * w + w * w * w * w,
                "changed_after_call value",
            );
            close(
                g,
                4.0 * w + 4.0 * w * w * w,
                "changed_after_call slope by hand",
            );
            let (_, g) = written_from_later_array_grad(p);
            agree(
                "written_from_later_array",
                &|v| written_from_later_array(v),
                p,
                &g,
            );
            for (name, f, grad, plain) in [
                (
                    "renewed_scratch",
                    renewed_scratch as fn(&[$t], &[$t]) -> $t,
                    renewed_scratch_grad as fn(&[$t], &[$t]) -> ($t, Vec<$t>),
                    $q::renewed_scratch_grad as fn(&[$t], &[$t]) -> ($t, Vec<$t>),
                ),
                (
                    "read_before_renewal",
                    read_before_renewal,
                    read_before_renewal_grad,
                    $q::read_before_renewal_grad,
                ),
                (
                    "partly_renewed",
                    partly_renewed,
                    partly_renewed_grad,
                    $q::partly_renewed_grad,
                ),
                (
                    "partly_renewed_added",
                    partly_renewed_added,
                    partly_renewed_added_grad,
                    $q::partly_renewed_added_grad,
                ),
                (
                    "renewed_inside_read_outside",
                    renewed_inside_read_outside,
                    renewed_inside_read_outside_grad,
                    $q::renewed_inside_read_outside_grad,
                ),
            ] {
                let at = &p[..3];
                let (_, g) = grad(at, &x);
                agree(name, &|v| f(v, &x), at, &g);
                same(&g, &plain(at, &x).1, name);
            }
            let (_, g) = shadowed_index_grad(p);
            agree("shadowed_index", &|v| shadowed_index(v), p, &g);
            same(&g, &$q::shadowed_index_grad(p).1, "shadowed_index");
            for (name, f, grad, plain) in [
                (
                    "overwritten",
                    overwritten as fn(&[$t]) -> $t,
                    overwritten_grad as fn(&[$t]) -> ($t, Vec<$t>),
                    $q::overwritten_grad as fn(&[$t]) -> ($t, Vec<$t>),
                ),
                ("decayed", decayed, decayed_grad, $q::decayed_grad),
            ] {
                let (_, g) = grad(p);
                agree(name, &|v| f(v), p, &g);
                same(&g, &plain(p).1, name);
            }
            same(
                &written_from_later_array_grad(p).1,
                &$q::written_from_later_array_grad(p).1,
                "written_from_later_array",
            );
            let scalars = [
                (
                    from_vec_of_knob_grad(w, 5).1,
                    $q::from_vec_of_knob_grad(w, 5).1,
                ),
                (passed_twice_grad(w).1, $q::passed_twice_grad(w).1),
                (
                    changed_after_call_grad(w).1,
                    $q::changed_after_call_grad(w).1,
                ),
            ];
            for (g, gq) in scalars {
                same(&[g], &[gq], "a scalar knob's program");
            }
        }
    }};
}

#[test]
fn loops_through_arrays_agree_with_finite_differences_and_plain_adjoints() {
    check_all!(p64, q64, f64, 1e-6, 1e-12);
    check_all!(p32, q32, f32, 2e-2, 1e-5);
}
