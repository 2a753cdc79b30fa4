//! Fused loops: a top-level loop of the function form that only sums into
//! its carried bindings, whose sums the code after it uses linearly with
//! factors known before it, runs its reverse inside the forward loop and
//! stores nothing. These programs cover loops that are fused (a mean of a
//! nonlinear per-row loss, a carried start, two sums, factors computed before
//! the loop, two consecutive loops, a busy body, `zip`, `while`, a local
//! array made before the loop and at most read after it, sums in branch
//! arms, several `+=` in one iteration, `continue`) and loops that
//! must not be (the sum read in the body, by a term in an arm, started
//! again in an arm, used nonlinearly after, a divisor
//! bound after the loop, a local array written after the loop, or written
//! by the loop and read after it, a function with `return`). Every program is checked against central finite
//! differences in `f64` and `f32`; a counting allocator shows which loops
//! keep nothing.
#![deny(warnings)]

mod counting;
mod fd;

use counting::allocations;

macro_rules! programs {
    ($m:ident, $t:ty) => {
        pub mod $m {
            // `s = s + e` and `s = e + s` are the forms under test
            #![allow(clippy::assign_op_pattern)]

            use mica::tape;

            // ---- fused ----

            /// Logistic regression: the mean of a per-row loss, an inner
            /// dot product. Fused.
            #[tape]
            pub fn logistic(#[tracked] w: &[$t], #[tracked] b: $t, x: &[$t], y: &[$t]) -> $t {
                let d = w.len();
                let n = y.len();
                let mut total = 0.0;
                for i in 0..n {
                    let mut z = b;
                    for j in 0..d {
                        z += w[j] * x[i * d + j];
                    }
                    total += (1.0 + (-z * y[i]).exp()).ln();
                }
                total / n as $t
            }

            /// The sum starts from a tracked value. Fused.
            #[tape]
            pub fn carried_start(#[tracked] w: &[$t], #[tracked] b: $t, x: &[$t]) -> $t {
                let mut s = b;
                for i in 0..w.len() {
                    s += (w[i] * x[i]).tanh() * b;
                }
                s * 0.5 + b
            }

            /// Two sums in one loop, one of them subtracted from. Fused.
            #[tape]
            pub fn two_sums(#[tracked] w: &[$t], #[tracked] c: $t, x: &[$t]) -> $t {
                let mut s1 = 0.0;
                let mut s2 = 0.0;
                for i in 0..w.len() {
                    s1 += (w[i] * x[i]).exp();
                    s2 -= (w[i] - x[i]).tanh() / (1.0 + w[i] * w[i]);
                }
                0.5 * s1 - s2 * c
            }

            /// The sum times a value computed before the loop from knobs,
            /// the sum written `s = s + e`. Fused.
            #[tape]
            pub fn scaled(#[tracked] w: &[$t], x: &[$t]) -> $t {
                let a = w[0] * 2.0;
                let mut total = 0.0;
                for i in 0..w.len() {
                    total = total + (w[i] * x[i]).exp() * (w[i] * a).tanh();
                }
                total * a
            }

            /// As `scaled`, the sum written `s = e + s` and the factor
            /// on the left. Fused.
            #[tape]
            pub fn scaled_left(#[tracked] w: &[$t], x: &[$t]) -> $t {
                let a = w[0] * 2.0;
                let mut total = 0.0;
                for i in 0..w.len() {
                    total = (w[i] * a).tanh() / (1.0 + x[i] * x[i]) + total;
                }
                a * total - a
            }

            /// Two updates of the sum per iteration (the first sum is read
            /// by the second): only checked for its gradient.
            #[tape]
            pub fn twice(#[tracked] w: &[$t], x: &[$t]) -> $t {
                let mut total = 0.0;
                for i in 0..w.len() {
                    total = total + (w[i] * x[i]).exp();
                    total -= (w[i] - x[i]).tanh();
                }
                total * 3.0
            }

            /// Two consecutive fused loops reading the same value `a` made
            /// before them, `a` read after both too.
            #[tape]
            pub fn consecutive(#[tracked] w: &[$t], x: &[$t]) -> $t {
                let a = w[0].tanh();
                let mut s = 0.0;
                for i in 0..w.len() {
                    s += (w[i] * a * x[i]).exp();
                }
                let mut t = 0.0;
                for i in 0..w.len() {
                    t += (w[i] - a).tanh() * x[i];
                }
                s * a + t * 0.5 + a * a
            }

            /// The divisor a top-level `let` made before the loop. Fused.
            #[tape]
            pub fn divisor_before(#[tracked] w: &[$t], x: &[$t]) -> $t {
                let n = w.len();
                let k = n as $t * 0.5;
                let mut s = 0.0;
                for i in 0..n {
                    s += (w[i] * x[i]).exp();
                }
                s / k
            }

            /// A `#[tape]` function called from a fused body.
            #[tape]
            pub fn soft(#[tracked] z: $t) -> $t {
                (z * z + 1.0).sqrt()
            }

            /// A body with a branch on a recorded value, a call, `detach`,
            /// an inner loop (storing nothing: only top-level loops are
            /// fused) and a `vec!` made, written and read inside it. Fused.
            #[tape]
            pub fn busy(#[tracked] w: &[$t], x: &[$t]) -> $t {
                let n = w.len();
                let mut total = 0.0;
                for i in 0..n {
                    let z = w[i] * x[i];
                    let mut h = vec![0.0; 3];
                    for j in 0..3 {
                        h[j] = z * (j as $t + 1.0) + x[i];
                    }
                    let g = if z > 0.0 { soft(z) } else { z.exp() };
                    let d = mica::detach(z);
                    total += g * d + (h[0] * h[2]).tanh() - h[1];
                }
                total * 0.25
            }

            /// `busy` with the detached values given: its finite differences
            /// are `busy`'s slopes.
            pub fn busy_reference(w: &[$t], x: &[$t], detached: &[$t]) -> $t {
                let mut total = 0.0;
                for i in 0..w.len() {
                    let z = w[i] * x[i];
                    let h: Vec<$t> = (0..3).map(|j| z * (j as $t + 1.0) + x[i]).collect();
                    let g = if z > 0.0 {
                        (z * z + 1.0).sqrt()
                    } else {
                        z.exp()
                    };
                    total += g * detached[i] + (h[0] * h[2]).tanh() - h[1];
                }
                total * 0.25
            }

            /// As `busy`, its scratch a fixed-size array. Fused.
            #[tape]
            pub fn busy_array(#[tracked] w: &[$t], x: &[$t]) -> $t {
                let n = w.len();
                let mut total = 0.0;
                for i in 0..n {
                    let z = w[i] * x[i];
                    let mut h = [0.0; 3];
                    for j in 0..3 {
                        h[j] = z * (j as $t + 1.0) + x[i];
                    }
                    let g = if z > 0.0 { soft(z) } else { z.exp() };
                    let d = mica::detach(z);
                    total += g * d + (h[0] * h[2]).tanh() - h[1];
                }
                total * 0.25
            }

            /// A loop over `zip`, not a range. Fused.
            #[tape]
            pub fn zipped(#[tracked] w: &[$t], x: &[$t]) -> $t {
                let mut s = 0.0;
                for (wi, xi) in w.iter().zip(x) {
                    s += (wi * xi).tanh() + (wi * wi).exp();
                }
                s / x.len() as $t
            }

            /// A `while` loop with a counter. Fused.
            #[tape]
            pub fn counted(#[tracked] w: &[$t], #[tracked] b: $t, x: &[$t]) -> $t {
                let mut i = 0;
                let mut s = b * b;
                while i < w.len() {
                    s += (w[i] * x[i] + b).exp();
                    i += 1;
                }
                s * 2.0
            }

            /// The sum read twice after the loop, through a product with a
            /// value made before it, and subtracted. Fused.
            #[tape]
            pub fn read_twice(#[tracked] w: &[$t], x: &[$t]) -> $t {
                let a = w[1 % w.len()].exp();
                let mut s = 0.0;
                for i in 0..w.len() {
                    s += (w[i] * x[i]).exp();
                }
                let t = s * a;
                t / 3.0 + s * 0.5 - (a - s)
            }

            /// A `let mut` array written before the loop, never after, read
            /// in the divisor after the loop. Fused.
            #[tape]
            pub fn frozen_divisor(#[tracked] w: &[$t], x: &[$t]) -> $t {
                let n = w.len();
                let mut m = [0.0; 2];
                m[0] = n as $t;
                m[1] = 2.0;
                let mut s = 0.0;
                for i in 0..n {
                    s += (w[i] * x[i]).exp();
                }
                s / (m[0] * m[1])
            }

            // ---- whatever the loop becomes, these must stay right ----

            /// The divisor's name bound again after the loop.
            #[tape]
            pub fn shadowed_divisor(#[tracked] w: &[$t], x: &[$t]) -> $t {
                let n = w.len();
                let mut s = 0.0;
                for i in 0..n {
                    s += (w[i] * x[i]).exp();
                }
                let n = 2 * n + 1;
                s / n as $t
            }

            /// The divisor a counter the loop changes.
            #[tape]
            pub fn counted_divisor(#[tracked] w: &[$t], x: &[$t]) -> $t {
                let mut m = 1;
                let mut s = 0.0;
                for i in 0..w.len() {
                    s += (w[i] * x[i]).exp();
                    m += 2;
                }
                s / m as $t
            }

            /// The factor a `mut` parameter the loop changes.
            #[tape]
            pub fn changed_factor(#[tracked] w: &[$t], x: &[$t], mut c: $t) -> $t {
                let mut s = 0.0;
                for i in 0..w.len() {
                    s += (w[i] * x[i]).exp();
                    c *= 1.5;
                }
                s * c
            }

            /// A masked sum: `continue` past some elements, then `+=`.
            /// Fused.
            #[tape]
            pub fn masked(#[tracked] w: &[$t], x: &[$t]) -> $t {
                let mut total = 0.0;
                for i in 0..w.len() {
                    if x[i] < -0.2 {
                        continue;
                    }
                    total += (w[i] * x[i]).tanh();
                }
                total * 0.5
            }

            /// Sums in both arms of an `if`, one of them subtracted, the
            /// condition reading a knob. Fused.
            #[tape]
            pub fn in_arms(#[tracked] w: &[$t], x: &[$t]) -> $t {
                let mut total = 0.0;
                for i in 0..w.len() {
                    if w[i] > x[i] {
                        total += (w[i] * x[i]).sin();
                    } else {
                        total -= w[i] * w[i];
                    }
                }
                total
            }

            /// Two `+=` in one iteration, one of them in an arm, and a
            /// `match` whose arms add, subtract or leave the sum. Fused.
            #[tape]
            pub fn several(#[tracked] w: &[$t], x: &[$t]) -> $t {
                let mut total = 0.0;
                for i in 0..w.len() {
                    total += w[i].exp();
                    if x[i] > 0.0 {
                        total += x[i] * w[i];
                    }
                    match i % 3 {
                        0 => total -= w[i].cos(),
                        1 => {
                            total += 1.0;
                            total += w[i] * w[i] * 0.5;
                        }
                        _ => {}
                    }
                }
                total / 3.0
            }

            /// `continue` inside an arm, after a sum. Fused.
            #[tape]
            pub fn nested_continue(#[tracked] w: &[$t], x: &[$t]) -> $t {
                let mut total = 0.0;
                for i in 0..w.len() {
                    total += 0.1 * w[i];
                    if x[i] > -0.3 {
                        if w[i] > x[i] {
                            continue;
                        }
                        total += (w[i] - x[i]).powi(2);
                    }
                }
                total
            }

            // ---- not fused ----

            /// The sum read inside the body.
            #[tape]
            pub fn decayed(#[tracked] w: &[$t], x: &[$t]) -> $t {
                let mut s = 0.0;
                for i in 0..w.len() {
                    s = s * 0.9 + (w[i] * x[i]).exp();
                }
                s
            }

            /// The sum used through `sqrt` after the loop.
            #[tape]
            pub fn rooted(#[tracked] w: &[$t], x: &[$t]) -> $t {
                let mut s = 1.0;
                for i in 0..w.len() {
                    s += (w[i] * x[i]).exp();
                }
                s.sqrt()
            }

            /// The sum squared after the loop.
            #[tape]
            pub fn squared(#[tracked] w: &[$t], x: &[$t]) -> $t {
                let mut s = 0.0;
                for i in 0..w.len() {
                    s += (w[i] * x[i]).tanh();
                }
                s * s
            }

            /// The divisor bound by a `let` after the loop.
            #[tape]
            pub fn divisor_after(#[tracked] w: &[$t], x: &[$t]) -> $t {
                let n = w.len();
                let mut s = 0.0;
                for i in 0..n {
                    s += (w[i] * x[i]).exp();
                }
                let k = n as $t * 0.5;
                s / k
            }

            /// The loop reads a local `vec!` made before it, which nothing
            /// reads after it: fused, the vec's adjoint declared before it.
            #[tape]
            pub fn local_read(#[tracked] w: &[$t], x: &[$t]) -> $t {
                let n = w.len();
                let mut h = vec![0.0; n];
                for i in 0..n {
                    h[i] = w[i] * 2.0 + x[i];
                }
                let mut s = 0.0;
                for i in 0..n {
                    s += (h[i] * x[i]).exp();
                }
                s
            }

            /// The same, the local array read again after the summing loop:
            /// reads only add slopes, in any order, so it is fused too.
            #[tape]
            pub fn local_read_after(#[tracked] w: &[$t], x: &[$t]) -> $t {
                let n = w.len();
                let mut h = vec![0.0; n];
                for i in 0..n {
                    h[i] = w[i] * 2.0 + x[i];
                }
                let mut s = 0.0;
                for i in 0..n {
                    s += (h[i] * x[i]).exp();
                }
                s + h[0]
            }

            /// The local array written after the summing loop: that write's
            /// reverse must run before the loop's, so it is not fused.
            #[tape]
            pub fn local_written_after(#[tracked] w: &[$t], x: &[$t]) -> $t {
                let n = w.len();
                let mut h = vec![0.0; n];
                for i in 0..n {
                    h[i] = w[i] * 2.0 + x[i];
                }
                let mut s = 0.0;
                for i in 0..n {
                    s += (h[i] * x[i]).exp();
                }
                h[0] = w[0] * 3.0 + h[0];
                s + h[0]
            }

            /// The summing loop writes a local array the code after it
            /// reads: not fused.
            #[tape]
            pub fn scratch_read_after(#[tracked] w: &[$t], x: &[$t]) -> $t {
                let n = w.len();
                let mut h = vec![0.0; n];
                let mut s = 0.0;
                for i in 0..n {
                    h[i] = (w[i] * x[i]).tanh();
                    s += h[i].exp();
                }
                s * 0.5 + h[0]
            }

            /// The divisor after the loop made in a nested block, whose
            /// temporaries are declared at the top of the body: not
            /// evaluated again before the loop (found by the random
            /// programs, where it did not compile).
            #[tape]
            pub fn divisor_in_block(#[tracked] w: &[$t], x: &[$t]) -> $t {
                let w0 = w[0];
                let mut s = 0.5;
                for i in 0..w.len() {
                    s += (w[i] * x[i]).tanh() * 0.1;
                }
                let d = {
                    let u = (w0 - w0).tanh();
                    let u = u.sin() * 0.5 + 1.25;
                    u
                };
                s /= d;
                s + d
            }

            /// A sum left by `break` on a recorded condition. Not fused
            /// (a loop that may break is not).
            #[tape]
            pub fn broken_off(#[tracked] w: &[$t], x: &[$t]) -> $t {
                let mut total = 0.0;
                for i in 0..w.len() {
                    if w[i] > 0.35 {
                        break;
                    }
                    total += (w[i] * x[i] + 0.5).tanh();
                }
                total
            }

            /// A term reads the sum made so far in the iteration. Not
            /// fused.
            #[tape]
            pub fn term_reads_sum(#[tracked] w: &[$t], x: &[$t]) -> $t {
                let mut total = 0.0;
                for i in 0..w.len() {
                    total += w[i];
                    if x[i] > 0.0 {
                        total += (total * x[i]).sin();
                    }
                }
                total
            }

            /// An arm starts the sum again. Not fused.
            #[tape]
            pub fn arm_restarts(#[tracked] w: &[$t], x: &[$t]) -> $t {
                let mut total = 0.0;
                for i in 0..w.len() {
                    if x[i] > 0.2 {
                        total = w[i] * x[i];
                    } else {
                        total += w[i].sin();
                    }
                }
                total
            }

            /// A function with `return`.
            #[tape]
            pub fn returning(#[tracked] w: &[$t], x: &[$t]) -> $t {
                if x.is_empty() {
                    return 0.0;
                }
                let mut s = 0.0;
                for i in 0..w.len() {
                    s += (w[i] * x[i]).exp();
                }
                s * 0.5
            }
        }
    };
}

programs!(p64, f64);
programs!(p32, f32);

/// Checks every program's gradient against finite differences, for one
/// float type, at several points and input lengths (0, 1 and more).
macro_rules! check_all {
    ($m:ident, $t:ty, $tol:expr) => {{
        use $m::*;
        let check = |name: &str, f: &dyn Fn(&[$t]) -> $t, at: &[$t], g: &[$t]| {
            fd::agrees(&format!("{}::{name}", stringify!($m)), f, at, g, $tol)
        };
        for shift in [0.0 as $t, 0.3, -0.45, 0.13] {
            let w: Vec<$t> = (0..5).map(|k| 0.2 * k as $t - 0.37 + shift).collect();
            let x: Vec<$t> = (0..20).map(|k| ((k * 7 % 11) as $t) * 0.1 - 0.45).collect();
            let y: Vec<$t> = (0..4)
                .map(|k| if k % 2 == 0 { 1.0 } else { -1.0 })
                .collect();
            let b = 0.1 + shift;
            let wb: Vec<$t> = w.iter().copied().chain([b]).collect();
            let split = |p: &[$t]| (p[..p.len() - 1].to_vec(), p[p.len() - 1]);
            let join = |g: Vec<$t>, s: $t| -> Vec<$t> { g.into_iter().chain([s]).collect() };

            let (_, (gw, gb)) = logistic_grad(&w, b, &x, &y);
            check(
                "logistic",
                &|p| {
                    let (w, b) = split(p);
                    logistic(&w, b, &x, &y)
                },
                &wb,
                &join(gw, gb),
            );
            // every length of `w` (0, 1, …), a tracked start
            for len in 0..=w.len() {
                let wb: Vec<$t> = w[..len].iter().copied().chain([b]).collect();
                type ScalarGrad = fn(&[$t], $t, &[$t]) -> ($t, (Vec<$t>, $t));
                let with_scalar: [(&str, fn(&[$t], $t, &[$t]) -> $t, ScalarGrad); 3] = [
                    ("carried_start", carried_start, carried_start_grad),
                    ("counted", counted, counted_grad),
                    ("two_sums", two_sums, two_sums_grad),
                ];
                for (name, f, grad) in with_scalar {
                    let (_, (gw, gb)) = grad(&w[..len], b, &x);
                    check(
                        name,
                        &|p| {
                            let (w, b) = split(p);
                            f(&w, b, &x)
                        },
                        &wb,
                        &join(gw, gb),
                    );
                }
                if len == 0 {
                    // the programs below read `w[0]` or divide by the length
                    continue;
                }
                let w = &w[..len];
                let x = &x[..len];
                type Grad = fn(&[$t], &[$t]) -> ($t, Vec<$t>);
                let programs: [(&str, fn(&[$t], &[$t]) -> $t, Grad); 27] = [
                    ("masked", masked, masked_grad),
                    ("broken_off", broken_off, broken_off_grad),
                    ("in_arms", in_arms, in_arms_grad),
                    ("several", several, several_grad),
                    ("nested_continue", nested_continue, nested_continue_grad),
                    ("term_reads_sum", term_reads_sum, term_reads_sum_grad),
                    ("arm_restarts", arm_restarts, arm_restarts_grad),
                    ("scaled", scaled, scaled_grad),
                    ("scaled_left", scaled_left, scaled_left_grad),
                    ("twice", twice, twice_grad),
                    ("consecutive", consecutive, consecutive_grad),
                    ("divisor_before", divisor_before, divisor_before_grad),
                    ("zipped", zipped, zipped_grad),
                    ("read_twice", read_twice, read_twice_grad),
                    ("shadowed_divisor", shadowed_divisor, shadowed_divisor_grad),
                    ("counted_divisor", counted_divisor, counted_divisor_grad),
                    ("decayed", decayed, decayed_grad),
                    ("rooted", rooted, rooted_grad),
                    ("squared", squared, squared_grad),
                    ("divisor_after", divisor_after, divisor_after_grad),
                    ("local_read", local_read, local_read_grad),
                    ("local_read_after", local_read_after, local_read_after_grad),
                    (
                        "local_written_after",
                        local_written_after,
                        local_written_after_grad,
                    ),
                    (
                        "scratch_read_after",
                        scratch_read_after,
                        scratch_read_after_grad,
                    ),
                    ("returning", returning, returning_grad),
                    ("frozen_divisor", frozen_divisor, frozen_divisor_grad),
                    ("divisor_in_block", divisor_in_block, divisor_in_block_grad),
                ];
                for (name, f, grad) in programs {
                    check(name, &|p| f(p, x), w, &grad(w, x).1);
                }
                let detached: Vec<$t> = w.iter().zip(x).map(|(w, x)| w * x).collect();
                let reference = |p: &[$t]| busy_reference(p, x, &detached);
                check("busy", &reference, w, &busy_grad(w, x).1);
                check("busy_array", &reference, w, &busy_array_grad(w, x).1);
                assert_eq!(busy(w, x), reference(w));
                check(
                    "changed_factor",
                    &|p| changed_factor(p, x, 0.7),
                    w,
                    &changed_factor_grad(w, x, 0.7).1,
                );
            }
            // the empty sums: `zipped` over no pairs is 0 / 0, the others
            // have no slope to anything
            assert_eq!(two_sums_grad(&[], b, &x), (0.0, (vec![], 0.0)));
            assert_eq!(decayed_grad(&[], &x), (0.0, vec![]));
        }
    }};
}

#[test]
fn fused_and_unfused_loops_agree_with_finite_differences() {
    check_all!(p64, f64, 1e-6);
    check_all!(p32, f32, 2e-2);
}

/// `_backward` adds `seed × slope` into pre-filled slots and returns the
/// value, for fused loops as for the rest.
macro_rules! check_backward {
    ($m:ident, $t:ty, $tol:expr) => {{
        use $m::*;
        let close = |a: $t, b: $t, what: &str| {
            assert!(
                (a - b).abs() <= $tol * (1.0 as $t).max(a.abs()).max(b.abs()),
                "{}: {what}: {a} vs {b}",
                stringify!($m)
            );
        };
        let w: Vec<$t> = vec![0.3, -0.2, 0.5, 0.1];
        let x: Vec<$t> = (0..12).map(|k| (k % 5) as $t * 0.2 - 0.3).collect();
        let y: Vec<$t> = vec![1.0, -1.0, 1.0];
        let seed: $t = 1.7;
        let pre: Vec<$t> = vec![0.25, -0.5, 1.0, 2.0];
        let pre_b: $t = -0.75;

        let (value, (gw, gb)) = logistic_grad(&w, 0.2, &x, &y);
        close(value, logistic(&w, 0.2, &x, &y), "logistic value");
        let (mut d_w, mut d_b) = (pre.clone(), pre_b);
        let v = logistic_backward(&w, 0.2, &x, &y, seed, &mut d_w, &mut d_b);
        close(v, value, "logistic backward value");
        for k in 0..w.len() {
            close(d_w[k], pre[k] + seed * gw[k], "logistic d_w");
        }
        close(d_b, pre_b + seed * gb, "logistic d_b");

        let (value, (gw, gc)) = two_sums_grad(&w, 0.6, &x);
        let (mut d_w, mut d_c) = (pre.clone(), pre_b);
        let v = two_sums_backward(&w, 0.6, &x, seed, &mut d_w, &mut d_c);
        close(v, value, "two_sums backward value");
        for k in 0..w.len() {
            close(d_w[k], pre[k] + seed * gw[k], "two_sums d_w");
        }
        close(d_c, pre_b + seed * gc, "two_sums d_c");

        for (name, grad, backward) in [
            (
                "consecutive",
                consecutive_grad as fn(&[$t], &[$t]) -> ($t, Vec<$t>),
                consecutive_backward as fn(&[$t], &[$t], $t, &mut [$t]) -> $t,
            ),
            ("busy", busy_grad, busy_backward),
            ("zipped", zipped_grad, zipped_backward),
            ("decayed", decayed_grad, decayed_backward),
        ] {
            let (value, g) = grad(&w, &x);
            let mut d_w = pre.clone();
            close(backward(&w, &x, seed, &mut d_w), value, name);
            for k in 0..w.len() {
                close(d_w[k], pre[k] + seed * g[k], name);
            }
        }
    }};
}

#[test]
fn backward_adds_seed_times_slope_into_slots() {
    check_backward!(p64, f64, 1e-12);
    check_backward!(p32, f32, 1e-5);
}

/// The `_backward` of a program of `w` and `x`.
type Backward = fn(&[f64], &[f64], f64, &mut [f64]) -> f64;

// one test function for every allocation count
#[test]
fn fused_loops_store_nothing() {
    use p64::*;
    let mut sink = 0.0;
    let mut busy_per_iteration = None;
    for n in [2, 7, 40] {
        let d = 3;
        let w: Vec<f64> = (0..n).map(|k| 0.01 * k as f64 - 0.1).collect();
        let x: Vec<f64> = (0..n * d).map(|k| (k % 7) as f64 * 0.1 - 0.3).collect();
        let y: Vec<f64> = (0..n)
            .map(|k| if k % 3 == 0 { 1.0 } else { -1.0 })
            .collect();
        let mut d_w = vec![0.0; n];
        let mut d_s = 0.0;

        // fused: nothing kept
        let fused: [(&str, Backward); 12] = [
            ("masked", masked_backward),
            ("in_arms", in_arms_backward),
            ("several", several_backward),
            ("nested_continue", nested_continue_backward),
            ("read_twice", read_twice_backward),
            ("scaled", scaled_backward),
            ("scaled_left", scaled_left_backward),
            ("consecutive", consecutive_backward),
            ("divisor_before", divisor_before_backward),
            ("busy_array", busy_array_backward),
            ("zipped", zipped_backward),
            ("frozen_divisor", frozen_divisor_backward),
        ];
        for (name, backward) in fused {
            let count = allocations(|| sink += backward(&w, &x, 1.0, &mut d_w));
            assert_eq!(count, 0, "{name}, n = {n}: fused, yet allocated");
        }
        // `n` rows of `d` features
        let mut d_v = [0.0; 3];
        let count = allocations(|| {
            sink += logistic_backward(&[0.1, -0.2, 0.3], 0.2, &x, &y, 1.0, &mut d_v, &mut d_s);
        });
        assert_eq!(count, 0, "logistic, n = {n}: fused, yet allocated");
        let count = allocations(|| {
            sink += carried_start_backward(&w, 0.2, &x, 1.0, &mut d_w, &mut d_s);
        });
        assert_eq!(count, 0, "carried_start, n = {n}: fused, yet allocated");
        let count = allocations(|| {
            sink += two_sums_backward(&w, 0.2, &x, 1.0, &mut d_w, &mut d_s);
        });
        assert_eq!(count, 0, "two_sums, n = {n}: fused, yet allocated");
        let count = allocations(|| {
            sink += counted_backward(&w, 0.2, &x, 1.0, &mut d_w, &mut d_s);
        });
        assert_eq!(count, 0, "counted, n = {n}: fused, yet allocated");
        // `busy` allocates its `vec!` per iteration, in the primal as in the
        // gradient (its adjoint too); fused, no tape on top of that: the
        // same count per iteration for every `n`, nothing once per call
        let primal = allocations(|| sink += busy(&w, &x));
        let count = allocations(|| sink += busy_backward(&w, &x, 1.0, &mut d_w));
        assert_eq!(primal, n, "busy, n = {n}");
        assert_eq!(
            count % n,
            0,
            "busy, n = {n}: {count} is no per-iteration count"
        );
        let per = *busy_per_iteration.get_or_insert(count / n);
        assert_eq!(count / n, per, "busy, n = {n}: {count} allocations");

        // not fused: the loop's tape
        let unfused: [(&str, Backward); 9] = [
            ("broken_off", broken_off_backward),
            ("term_reads_sum", term_reads_sum_backward),
            ("arm_restarts", arm_restarts_backward),
            ("decayed", decayed_backward),
            ("rooted", rooted_backward),
            ("squared", squared_backward),
            ("divisor_after", divisor_after_backward),
            ("scratch_read_after", scratch_read_after_backward),
            ("returning", returning_backward),
        ];
        for (name, backward) in unfused {
            let unseeded = allocations(|| sink += backward(&w, &x, 0.0, &mut d_w));
            let count = allocations(|| sink += backward(&w, &x, 1.0, &mut d_w));
            assert_eq!(count, unseeded, "{name}: the same allocations for any seed");
            assert!(
                count >= 1,
                "{name}, n = {n}: not fused, yet allocated nothing"
            );
        }
        // these allocate their `vec!` (as the primal does) and the vec's
        // adjoint buffer; fused, nothing else: the summing loop reads an
        // array made before it, which the code after it at most reads.
        // `local_written_after` writes the array after the loop, so its
        // loop keeps a tape on top of that
        let primal = allocations(|| sink += local_read(&w, &x));
        let count = allocations(|| sink += local_read_backward(&w, &x, 1.0, &mut d_w));
        assert_eq!(count, primal + 1, "local_read, n = {n}: fused");
        let count = allocations(|| sink += local_read_after_backward(&w, &x, 1.0, &mut d_w));
        assert_eq!(count, primal + 1, "local_read_after, n = {n}: fused");
        let primal = allocations(|| sink += local_written_after(&w, &x));
        let count = allocations(|| sink += local_written_after_backward(&w, &x, 1.0, &mut d_w));
        assert!(
            count >= primal + 2,
            "local_written_after, n = {n}: {count} allocations"
        );
        let primal = allocations(|| sink += scratch_read_after(&w, &x));
        let count = allocations(|| sink += scratch_read_after_backward(&w, &x, 1.0, &mut d_w));
        assert!(
            count >= primal + 2,
            "scratch_read_after, n = {n}: {count} allocations"
        );
    }
    assert!(sink.is_finite());
}
