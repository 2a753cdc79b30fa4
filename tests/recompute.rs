//! Reading again instead of storing: inside loops of the function form, the
//! reverse sweep evaluates pure constants (indices, elements of untracked
//! inputs, loop-invariant factors) again and walks ranges backward. These
//! programs are built around the cases where reading again would be wrong
//! (a name shadowed later or inside the body, a read guarded by a branch, a
//! mutable counter, a range whose ends call a function, an array changed
//! after the loop that reads it) and are checked
//! against central finite differences in `f64` and `f32`. A counting
//! allocator shows what is no longer stored.
#![deny(warnings)]

mod counting;
mod fd;

use counting::{allocations, bytes};

macro_rules! programs {
    ($m:ident, $t:ty) => {
        pub mod $m {
            use mica::tape;

            /// Rows of an untracked matrix against tracked weights.
            #[tape]
            pub fn rows(#[tracked] w: &[$t], #[tracked] b: $t, x: &[$t], y: &[$t]) -> $t {
                let d = w.len();
                let n = y.len();
                let mut total = 0.0;
                for i in 0..n {
                    let mut z = b;
                    for j in 0..d {
                        z += w[j] * x[i * d + j];
                    }
                    total += (z - y[i]) * (z - y[i]);
                }
                total / n as $t
            }

            /// The same, its mean used through `sqrt`: the loop's sum has
            /// no adjoint before the loop ends, so the loop is not fused and
            /// its reverse runs after the forward sweep.
            #[tape]
            pub fn rows_root(#[tracked] w: &[$t], #[tracked] b: $t, x: &[$t], y: &[$t]) -> $t {
                let d = w.len();
                let n = y.len();
                let mut total = 0.0;
                for i in 0..n {
                    let mut z = b;
                    for j in 0..d {
                        z += w[j] * x[i * d + j];
                    }
                    total += (z - y[i]) * (z - y[i]);
                }
                (total / n as $t).sqrt()
            }

            /// `k` is bound twice, so it is never read again: the second
            /// binding would hide the first where the reverse sweep runs.
            #[tape]
            pub fn shadowed(#[tracked] w: &[$t], x: &[$t]) -> $t {
                let k = 2;
                let mut s = 0.0;
                for i in 0..w.len() {
                    s += w[i] * x[i * k] * w[i];
                }
                let k = 3;
                for i in 0..w.len() {
                    s += w[i] * x[i + k];
                }
                s
            }

            /// The loop variable shadowed inside the body.
            #[tape]
            pub fn reversed(#[tracked] w: &[$t], x: &[$t]) -> $t {
                let n = w.len();
                let mut s = 0.0;
                for i in 0..n {
                    let i = n - 1 - i;
                    s += w[i] * w[i] * x[i];
                }
                s
            }

            /// `x[i + 1]` is read only when `i + 1 < n`.
            #[tape]
            pub fn guarded(#[tracked] w: &[$t], x: &[$t]) -> $t {
                let n = w.len();
                let mut s = 0.0;
                for i in 0..n {
                    if i + 1 < n {
                        s += w[i] * w[i + 1] * x[i + 1];
                    } else {
                        s += w[i] * x[0];
                    }
                }
                s
            }

            /// A triangle of nested ranges (the inner one ends at the outer
            /// variable), a closed range, and `_`.
            #[tape]
            pub fn triangle(#[tracked] w: &[$t], x: &[$t]) -> $t {
                let n = w.len();
                let mut s = 0.0;
                for i in 0..n {
                    for j in 0..=i {
                        s += w[j] * w[i] * x[i * n + j];
                    }
                }
                for _ in 0..2 {
                    s = s * 0.5 + w[0] * s;
                }
                s
            }

            /// A mutable counter: what it indexes is stored, not read again.
            #[tape]
            pub fn counter(#[tracked] w: &[$t], x: &[$t]) -> $t {
                let mut k = 0;
                let mut s = 0.0;
                for i in 0..w.len() {
                    s += (w[i] * x[k]).sin();
                    k += 2;
                }
                s
            }

            fn half(n: usize) -> usize {
                n / 2
            }

            /// A range whose end calls a function: kept, not evaluated again.
            #[tape]
            pub fn kept(#[tracked] w: &[$t], x: &[$t]) -> $t {
                let mut s = 0.0;
                for i in 0..half(w.len()) {
                    s += w[2 * i] * w[2 * i + 1] * x[i];
                }
                s
            }

            /// A method reading its receiver's fields again.
            pub struct Model {
                pub x: Vec<$t>,
            }

            impl Model {
                #[tape]
                pub fn loss(&self, #[tracked] w: &[$t]) -> $t {
                    let mut s = 0.0;
                    for i in 0..w.len() {
                        s += (w[i] - self.x[i]) * (w[i] - self.x[i]) * self.x[i];
                    }
                    s
                }
            }

            /// `h` is written by the first loop and only read after it: the
            /// second loop reads it again.
            #[tape]
            pub fn frozen(#[tracked] w: &[$t], x: &[$t]) -> $t {
                let n = w.len();
                let mut h = vec![0.0; n];
                for i in 0..n {
                    h[i] = (w[i] * x[i]).tanh();
                }
                let mut s = 0.0;
                for i in 0..n {
                    for j in 0..n {
                        s += h[i] * h[j] * w[(i + j) % n];
                    }
                }
                s + h[1] * w[0]
            }

            /// As `frozen`, but `h` changes after the loop that reads it, so
            /// that loop stores what it read.
            #[tape]
            pub fn thawed(#[tracked] w: &[$t], x: &[$t]) -> $t {
                let n = w.len();
                let mut h = vec![0.0; n];
                for i in 0..n {
                    h[i] = (w[i] * x[i]).tanh();
                }
                let mut s = 0.0;
                for i in 0..n {
                    for j in 0..n {
                        s += h[i] * h[j] * w[(i + j) % n];
                    }
                }
                h[1] = s * h[0];
                let mut t = h[1];
                for i in 0..n {
                    t += h[i] * x[i];
                    h[i] = t;
                }
                t + h[1] * w[0]
            }

            /// A `while` loop with a loop-invariant factor.
            #[tape]
            pub fn invariant(#[tracked] a: $t, c: $t, steps: usize) -> $t {
                let mut q = a;
                let mut t = 0;
                while t < steps {
                    q = q * (0.5 * c) + (q * c).sin();
                    t += 1;
                }
                q
            }
        }
    };
}

programs!(p64, f64);
programs!(p32, f32);

/// Sums with an operand written inside them, and a sum of five changing
/// elements, as `#[tape]` and as `#[tape(plain)]` (every shortcut off, the
/// oracle).
macro_rules! sums {
    ($m:ident, $t:ty, $($mode:ident)?) => {
        pub mod $m {
            use mica::tape;

            /// Sums with an operand written inside them (`s - (w + s * w)`,
            /// `-(s + w)`, `1.0 + 3.0 * s * s`), read by the reverse: each
            /// is evaluated again with its operands in their order and
            /// grouping, not kept.
            #[tape$(($mode))?]
            pub fn grouped(#[tracked] w: &[$t], steps: usize) -> $t {
                let mut s = 0.5;
                for t in 0..steps {
                    let wt = w[t % w.len()];
                    let d = s - (wt + s * wt);
                    let e = -(s + wt);
                    let g = 1.0 + 3.0 * s * s;
                    s = (d * e).sin() + 0.25 * d * wt + wt / g;
                }
                s
            }

            /// A sum of five elements of an array the loop changes later:
            /// evaluated again, it would keep five elements where keeping
            /// the sum keeps one.
            #[tape$(($mode))?]
            pub fn five(#[tracked] w: &[$t], steps: usize) -> $t {
                let mut u = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6];
                for k in 0..6 {
                    u[k] += w[k % w.len()];
                }
                let mut total = 0.0;
                for t in 0..steps {
                    let v = u[0] + u[1] - u[2] + u[3] + u[4] - (u[5] + 1.0);
                    total += v * v * w[t % w.len()];
                    u[t % 6] = (v * 0.3).sin();
                }
                total
            }
        }
    };
}

sums!(s64, f64,);
sums!(q64, f64, plain);
sums!(s32, f32,);
sums!(q32, f32, plain);

/// Checks every program's gradient against finite differences at `points`
/// (weights), for one float type.
macro_rules! check_all {
    ($m:ident, $s:ident, $q:ident, $t:ty, $tol:expr) => {{
        use $m::*;
        let check = |f: &dyn Fn(&[$t]) -> $t, at: &[$t], g: &[$t]| {
            fd::agrees(stringify!($m), f, at, g, $tol)
        };
        for shift in [0.0 as $t, 0.3, -0.45] {
            let w: Vec<$t> = (0..6).map(|k| 0.2 * k as $t - 0.5 + shift).collect();
            let x: Vec<$t> = (0..40).map(|k| ((k * 7 % 11) as $t) * 0.1 - 0.4).collect();
            let y: Vec<$t> = (0..4).map(|k| k as $t * 0.3 - 0.2).collect();
            let wb: Vec<$t> = w.iter().copied().chain([shift + 0.1]).collect();
            let (_, (gw, gb)) = rows_grad(&w, wb[6], &x, &y);
            let g: Vec<$t> = gw.iter().copied().chain([gb]).collect();
            check(&|p: &[$t]| rows(&p[..6], p[6], &x, &y), &wb, &g);
            let (_, (gw, gb)) = rows_root_grad(&w, wb[6], &x, &y);
            let g: Vec<$t> = gw.iter().copied().chain([gb]).collect();
            check(&|p: &[$t]| rows_root(&p[..6], p[6], &x, &y), &wb, &g);
            check(&|p: &[$t]| shadowed(p, &x), &w, &shadowed_grad(&w, &x).1);
            check(&|p: &[$t]| reversed(p, &x), &w, &reversed_grad(&w, &x).1);
            check(&|p: &[$t]| guarded(p, &x), &w, &guarded_grad(&w, &x).1);
            check(&|p: &[$t]| triangle(p, &x), &w, &triangle_grad(&w, &x).1);
            check(&|p: &[$t]| counter(p, &x), &w, &counter_grad(&w, &x).1);
            check(&|p: &[$t]| kept(p, &x), &w, &kept_grad(&w, &x).1);
            check(&|p: &[$t]| frozen(p, &x), &w, &frozen_grad(&w, &x).1);
            check(&|p: &[$t]| thawed(p, &x), &w, &thawed_grad(&w, &x).1);
            let model = Model { x: x.clone() };
            check(&|p: &[$t]| model.loss(p), &w, &model.loss_grad(&w).1);
            for steps in [0, 1, 5] {
                let at = &w[..3];
                let g = $s::grouped_grad(at, steps).1;
                fd::same("grouped, plain", &g, &$q::grouped_grad(at, steps).1, 1e-5);
                check(&|p: &[$t]| $s::grouped(p, steps), at, &g);
                let g = $s::five_grad(at, steps).1;
                fd::same("five, plain", &g, &$q::five_grad(at, steps).1, 1e-5);
                check(&|p: &[$t]| $s::five(p, steps), at, &g);
            }
            let c = 0.9 + shift;
            check(
                &|p: &[$t]| invariant(p[0], c, 7),
                &[w[1]],
                &[invariant_grad(w[1], c, 7).1],
            );
        }
    }};
}

#[test]
fn programs_that_read_again_agree_with_finite_differences() {
    check_all!(p64, s64, q64, f64, 1e-6);
    check_all!(p32, s32, q32, f32, 2e-2);
}

/// `rows_root`'s inner loop (`n × d` iterations) stores nothing: the
/// gradient allocates only the outer loop's tape, once, whatever `d` and `n`.
/// `rows`, whose outer loop is fused, allocates nothing at all.
#[test]
fn an_inner_loop_of_constant_reads_stores_nothing() {
    for (n, d) in [(3, 2), (50, 40), (200, 7)] {
        let w = vec![0.1; d];
        let x = vec![0.5; n * d];
        let y = vec![1.0; n];
        let mut d_w = vec![0.0; d];
        let mut d_b = 0.0;
        let count = allocations(|| {
            p64::rows_root_backward(&w, 0.2, &x, &y, 1.0, &mut d_w, &mut d_b);
        });
        assert_eq!(count, 1, "n = {n}, d = {d}");
        let count = allocations(|| {
            p64::rows_backward(&w, 0.2, &x, &y, 1.0, &mut d_w, &mut d_b);
        });
        assert_eq!(count, 0, "n = {n}, d = {d}, fused");
    }
}

/// `five`'s sum of five elements of an array the loop changes is kept, one
/// value a step, not evaluated again from five kept elements; `grouped`'s
/// sums, evaluated again from what the step keeps anyway, add nothing.
#[test]
fn a_sum_is_kept_rather_than_five_of_its_inputs() {
    let w = [0.2, -0.1, 0.3];
    let mut d_w = [0.0; 3];
    for steps in [100, 1000] {
        let kept = bytes(|| {
            s64::five_backward(&w, steps, 1.0, &mut d_w);
        });
        // the sum and `u[t % 6]`'s index or old value: at most three values
        assert!(kept <= 3 * 8 * steps + 256, "{steps} steps: {kept} bytes");
        let kept = bytes(|| {
            s64::grouped_backward(&w, steps, 1.0, &mut d_w);
        });
        let plain = bytes(|| {
            q64::grouped_backward(&w, steps, 1.0, &mut d_w);
        });
        assert!(kept < plain, "{steps} steps: {kept} bytes, plain {plain}");
    }
}
