//! Loops fused inside fused loops: a loop that is a statement of a fused
//! loop's body, only sums, and whose sums the rest of that body reads
//! linearly with factors known before it, runs its reverse inside its own
//! forward sweep, as the loop around does. These programs are written as
//! such loops are: a row's inner product times the row's element (a
//! quadratic form), a nearest centre's squared distance added into the
//! outer sum, factors made in the body before the inner loop or at the top
//! level before the outer one, two inner loops in one body, a factor made
//! after the inner loop and evaluated again before it, a local array made
//! before the outer loop, an inner loop left by `break`, a `while` loop,
//! three loops deep;
//! and inner loops that must not be fused: the sum read non-linearly, the
//! loop in a nested block, an array made in the body and read by the inner
//! loop, two inner sums multiplied.
//!
//! Each program is written twice, as `#[tape]` and as `#[tape(plain)]`
//! (every slope as its rule says, no loop fused), and Mica's gradient is
//! checked against central finite differences and against the plain one,
//! at three points, in `f64` and `f32`.
#![deny(warnings)]
// index loops are the form under test
#![allow(clippy::needless_range_loop)]

mod fd;

/// The programs' common shape: knobs `w` (length `N`), data `a` (`N × N`).
const N: usize = 5;

macro_rules! programs {
    ($m:ident, $t:ty, $attr:meta) => {
        pub mod $m {
            #![allow(clippy::needless_range_loop)]
            use super::N;

            /// `Σ_i w_i Σ_j a_ij w_j`: the inner product's reverse adds
            /// `k w_i a_ij` into `w_j` as the product is formed.
            #[$attr]
            pub fn quadratic(#[tracked] w: &[$t], a: &[$t]) -> $t {
                let mut q = 0.0;
                for i in 0..N {
                    let mut z = 0.0;
                    for j in 0..N {
                        z += a[i * N + j] * w[j];
                    }
                    q += w[i] * z;
                }
                q * 0.5
            }

            /// Each row's nearest knob by selection, then squared
            /// distances added straight into the outer sum.
            #[$attr]
            pub fn nearest(#[tracked] w: &[$t], a: &[$t]) -> $t {
                let mut total = 0.0;
                for i in 0..N {
                    let mut best = <$t>::INFINITY;
                    let mut near = 0;
                    for c in 0..N {
                        // (the row's own knob wins by a margin finite
                        // differences do not cross)
                        let d = (a[i * N + c] - w[c]).abs() + 2.0 * (c as $t - i as $t).abs();
                        if d < best {
                            best = d;
                            near = c;
                        }
                    }
                    for j in 0..N {
                        let diff = a[i * N + j] - w[near] * (j as $t + 1.0);
                        total += diff * diff;
                    }
                }
                total
            }

            /// A factor made in the body before the inner loop, read in
            /// it: its slope is gathered from the inner loop's reverse.
            #[$attr]
            pub fn factor_in_body(#[tracked] w: &[$t], a: &[$t]) -> $t {
                let mut q = 0.0;
                for i in 0..N {
                    let v = (w[i] * 0.5).exp();
                    let mut z = 0.0;
                    for j in 0..N {
                        z += v * w[j] * a[i * N + j];
                    }
                    q += z;
                }
                q
            }

            /// A factor made from knobs before the outer loop, read in the
            /// inner one.
            #[$attr]
            pub fn factor_at_top(#[tracked] w: &[$t], a: &[$t]) -> $t {
                let c = w[0] * w[1] + 1.0;
                let mut q = 0.0;
                for i in 0..N {
                    let mut z = 0.0;
                    for j in 0..N {
                        z += (c * a[i * N + j] - w[j]).sin();
                    }
                    q -= 0.5 * z * a[i];
                }
                q * c
            }

            /// Two inner loops in one body, their sums read with factors
            /// known before them.
            #[$attr]
            pub fn two_inner(#[tracked] w: &[$t], a: &[$t]) -> $t {
                let mut q = 0.0;
                for i in 0..N {
                    let mut z1 = 0.0;
                    for j in 0..N {
                        z1 += a[i * N + j] * w[j] * w[j];
                    }
                    let mut z2 = 0.0;
                    for j in 0..N {
                        z2 += (w[j] - a[j * N + i]).tanh();
                    }
                    q += z1 * w[i] + 2.0 * z2;
                }
                q
            }

            /// The factor is made after the inner loop, from a knob: it is
            /// evaluated again before the loop.
            #[$attr]
            pub fn factor_after(#[tracked] w: &[$t], a: &[$t]) -> $t {
                let mut q = 0.0;
                for i in 0..N {
                    let mut z = 0.0;
                    for j in 0..N {
                        z += a[i * N + j] / (1.0 + w[j] * w[j]);
                    }
                    let c = w[i].sin();
                    q += c * z;
                }
                q
            }

            /// A local array made before the outer loop, read by the inner
            /// one.
            #[$attr]
            pub fn local_array(#[tracked] w: &[$t], a: &[$t]) -> $t {
                let mut h = vec![0.0; N];
                for k in 0..N {
                    h[k] = w[k] * w[k] + 0.25;
                }
                let mut q = 0.0;
                for i in 0..N {
                    let mut z = 0.0;
                    for j in 0..N {
                        z += h[j].sqrt() * a[i * N + j];
                    }
                    q += z * a[i];
                }
                q
            }

            /// An inner loop left by `break`, and a `while` loop.
            #[$attr]
            pub fn early_exits(#[tracked] w: &[$t], a: &[$t]) -> $t {
                let mut q = 0.0;
                for i in 0..N {
                    let mut z = 0.0;
                    for j in 0..N {
                        if a[i * N + j] > 0.8 {
                            break;
                        }
                        z += w[j] * a[i * N + j];
                    }
                    let mut k = 0;
                    let mut y = 0.0;
                    while k < i {
                        y += w[k].exp();
                        k += 1;
                    }
                    q += w[i] * z + y;
                }
                q
            }

            /// Three loops deep: a batch of rows, each output's inner
            /// product read linearly (`Σ_b Σ_o c_o z_bo`, `z_bo = Σ_i
            /// a_oi x_bi`, the weights `w` in both).
            #[$attr]
            pub fn three_deep(#[tracked] w: &[$t], a: &[$t]) -> $t {
                let mut loss = 0.0;
                for b in 0..N {
                    for o in 0..N {
                        let mut z = w[o];
                        for i in 0..N {
                            z += w[i] * a[o * N + i] * a[b * N + i];
                        }
                        loss += (w[o] * 0.5 + a[b]) * z;
                    }
                }
                loss
            }

            // ---- not fused ----

            /// The inner sum read non-linearly.
            #[$attr]
            pub fn nonlinear(#[tracked] w: &[$t], a: &[$t]) -> $t {
                let mut q = 0.0;
                for i in 0..N {
                    let mut z = 0.0;
                    for j in 0..N {
                        z += a[i * N + j] * w[j];
                    }
                    q += z.tanh();
                }
                q
            }

            /// The inner loop in a nested block of the body, starting from
            /// a knob and reading a factor made before the block.
            #[$attr]
            pub fn in_block(#[tracked] w: &[$t], a: &[$t]) -> $t {
                let mut q = 0.0;
                for i in 0..N {
                    let v = w[i].cos();
                    let mut z = w[i];
                    {
                        for j in 0..N {
                            z += a[i * N + j] * w[j] * v;
                        }
                    }
                    q += a[i] * z;
                }
                q
            }

            /// An array made in the body, written by one inner loop and
            /// read by the next.
            #[$attr]
            pub fn body_array(#[tracked] w: &[$t], a: &[$t]) -> $t {
                let mut q = 0.0;
                for i in 0..N {
                    let mut r = vec![0.0; N];
                    for j in 0..N {
                        r[j] = w[j] * a[i * N + j];
                    }
                    let mut z = 0.0;
                    for j in 0..N {
                        z += r[j] * w[j];
                    }
                    q += z;
                }
                q
            }

            /// Two inner sums multiplied: neither factor is known before
            /// the other's loop.
            #[$attr]
            pub fn product(#[tracked] w: &[$t], a: &[$t]) -> $t {
                let mut q = 0.0;
                for i in 0..N {
                    let mut z1 = 0.0;
                    for j in 0..N {
                        z1 += a[i * N + j] * w[j];
                    }
                    let mut z2 = 0.0;
                    for j in 0..N {
                        z2 += a[j * N + i] * w[j];
                    }
                    q += z1 * z2;
                }
                q
            }
        }
    };
}

programs!(m64, f64, mica::tape);
programs!(p64, f64, mica::tape(plain));
programs!(m32, f32, mica::tape);
programs!(p32, f32, mica::tape(plain));

macro_rules! check {
    ($m:ident, $p:ident, $t:ty, $fd_tol:expr, $rel:expr) => {{
        type Primal = fn(&[$t], &[$t]) -> $t;
        type Backward = fn(&[$t], &[$t], $t, &mut [$t]) -> $t;
        let programs: [(&str, Primal, Backward, Backward); 13] = [
            (
                "quadratic",
                $m::quadratic,
                $m::quadratic_backward,
                $p::quadratic_backward,
            ),
            (
                "nearest",
                $m::nearest,
                $m::nearest_backward,
                $p::nearest_backward,
            ),
            (
                "factor_in_body",
                $m::factor_in_body,
                $m::factor_in_body_backward,
                $p::factor_in_body_backward,
            ),
            (
                "factor_at_top",
                $m::factor_at_top,
                $m::factor_at_top_backward,
                $p::factor_at_top_backward,
            ),
            (
                "two_inner",
                $m::two_inner,
                $m::two_inner_backward,
                $p::two_inner_backward,
            ),
            (
                "factor_after",
                $m::factor_after,
                $m::factor_after_backward,
                $p::factor_after_backward,
            ),
            (
                "local_array",
                $m::local_array,
                $m::local_array_backward,
                $p::local_array_backward,
            ),
            (
                "early_exits",
                $m::early_exits,
                $m::early_exits_backward,
                $p::early_exits_backward,
            ),
            (
                "three_deep",
                $m::three_deep,
                $m::three_deep_backward,
                $p::three_deep_backward,
            ),
            (
                "nonlinear",
                $m::nonlinear,
                $m::nonlinear_backward,
                $p::nonlinear_backward,
            ),
            (
                "in_block",
                $m::in_block,
                $m::in_block_backward,
                $p::in_block_backward,
            ),
            (
                "body_array",
                $m::body_array,
                $m::body_array_backward,
                $p::body_array_backward,
            ),
            (
                "product",
                $m::product,
                $m::product_backward,
                $p::product_backward,
            ),
        ];
        let (agree, same) = fd::checks::<$t>($fd_tol, $rel);
        let a: Vec<$t> = (0..N * N)
            .map(|k| 0.5 + 0.45 * (1.7 * k as $t + 0.3).sin())
            .collect();
        for (name, primal, mica, plain) in programs {
            for start in [0.1, 0.45, -0.3] {
                let w: Vec<$t> = (0..N)
                    .map(|k| start + 0.37 * (k as $t) - 0.05 * (k * k) as $t)
                    .collect();
                let (mut g, mut h) = ([0.0; N], [0.0; N]);
                let v = mica(&w, &a, 1.0, &mut g);
                let vp = plain(&w, &a, 1.0, &mut h);
                fd::close(name, v, primal(&w, &a), $rel);
                fd::close(name, vp, v, $rel);
                let f = |x: &[$t]| primal(x, &a);
                agree(name, &f, &w, &g);
                same(&g, &h, &format!("{name}, against the plain adjoint"));
                // a second call adds seed times the slope into the slots
                let mut twice = g;
                mica(&w, &a, 2.0, &mut twice);
                for (t, s) in twice.iter().zip(&g) {
                    fd::close(name, *t, 3.0 * s, $rel);
                }
            }
        }
    }};
}

#[test]
fn loops_fused_inside_fused_loops_agree_with_finite_differences_and_the_plain_adjoint() {
    check!(m64, p64, f64, 1e-6, 1e-10);
    check!(m32, p32, f32, 2e-2, 1e-4);
}
