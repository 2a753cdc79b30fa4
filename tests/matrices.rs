//! Chains of small matrix products over local `[[T; n]; n]` arrays, as a
//! robot arm or a transform chain writes them: the reverse reads a copy of
//! a whole matrix taken where the loops that read it start, when nothing
//! in those loops changes it, instead of keeping each element per read.
//!
//! Beside the chain written inline and through helpers of a `#[tape] mod`
//! (taking `&[[T; 3]; 3]` and returning matrices), its edges: a constant
//! matrix made by a block, the matrix changed inside the loops that read
//! it, a constant index, a name shadowed in an inner block and read after
//! it, matrices made of knobs, and a generic float; and matrices the
//! reverse makes again from their literals instead of keeping a copy, and
//! those it may not (bound again, changed in place).
//!
//! Every program is written twice, as `#[tape]` and as `#[tape(plain)]`
//! (every shortcut off), and checked at several points against central
//! finite differences and against its plain twin, in `f64` and `f32`.
#![deny(warnings)]
#![allow(clippy::needless_range_loop)]

mod fd;

macro_rules! programs {
    ($m:ident, $t:ty, $($mode:ident)?) => {
        pub mod $m {
            use mica::tape;

            /// A planar arm: each joint turns, then a link translates.
            #[tape$(($mode))?]
            pub fn arm(#[tracked] q: &[$t], #[tracked] lengths: &[$t]) -> $t {
                let mut pose = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
                for j in 0..q.len() {
                    let (s, c) = q[j].sin_cos();
                    let turn = [[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]];
                    let mut turned = [[0.0; 3]; 3];
                    for a in 0..3 {
                        for b in 0..3 {
                            for k in 0..3 {
                                turned[a][b] += pose[a][k] * turn[k][b];
                            }
                        }
                    }
                    let link = [[1.0, 0.0, lengths[j]], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
                    let mut next = [[0.0; 3]; 3];
                    for a in 0..3 {
                        for b in 0..3 {
                            for k in 0..3 {
                                next[a][b] += turned[a][k] * link[k][b];
                            }
                        }
                    }
                    pose = next;
                }
                let (dx, dy) = (pose[0][2] - 0.8, pose[1][2] - 1.1);
                dx * dx + dy * dy
            }

            /// The same arm through helpers, as it is usually factored.
            #[tape$(($mode))?]
            pub mod factored {
                type Pose = [[$t; 3]; 3];

                fn rot(angle: $t) -> Pose {
                    let (s, c) = angle.sin_cos();
                    [[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]]
                }

                fn trans(l: $t) -> Pose {
                    [[1.0, 0.0, l], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
                }

                fn matmul(a: &Pose, b: &Pose) -> Pose {
                    let mut c = [[0.0; 3]; 3];
                    for i in 0..3 {
                        for j in 0..3 {
                            for k in 0..3 {
                                c[i][j] += a[i][k] * b[k][j];
                            }
                        }
                    }
                    c
                }

                pub fn reach(#[tracked] q: &[$t], lengths: &[$t]) -> $t {
                    let mut pose = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
                    for j in 0..q.len() {
                        pose = matmul(&matmul(&pose, &rot(q[j])), &trans(lengths[j]));
                    }
                    let (dx, dy) = (pose[0][2] + 0.3, pose[1][2] - 0.9);
                    dx * dx + dy * dy
                }
            }

            /// A constant matrix made by a block, a state matrix of knobs,
            /// and a product read in the swapped loop order.
            #[tape$(($mode))?]
            pub fn constant_block(#[tracked] w: &[$t], steps: usize) -> $t {
                let m = {
                    let d = 0.5;
                    [[d, 0.25], [-0.25, d]]
                };
                let mut p = [[w[0], w[1]], [w[2], w[3]]];
                for _ in 0..steps {
                    let mut next = [[0.0; 2]; 2];
                    for b in 0..2 {
                        for a in 0..2 {
                            for k in 0..2 {
                                next[a][b] += (p[a][k] * m[k][b]).sin();
                            }
                        }
                    }
                    p = next;
                }
                p[0][0] * p[1][1] - p[0][1] * p[1][0] + p[0][1]
            }

            /// The matrix changed inside the loops that read it, an
            /// element another row's reads see: no copy may be read.
            #[tape$(($mode))?]
            pub fn changed_inside(#[tracked] w: &[$t], steps: usize) -> $t {
                let mut p = [[w[0], w[1]], [w[2], w[3]]];
                for _ in 0..steps {
                    let mut next = [[0.0; 2]; 2];
                    for a in 0..2 {
                        for b in 0..2 {
                            for k in 0..2 {
                                next[a][b] += (p[a][k] * p[k][b]).tanh();
                            }
                            p[b][a] *= 0.5 + w[a];
                        }
                    }
                    p = next;
                }
                p[0][0] + p[1][0] * p[0][1] - p[1][1]
            }

            /// Reads at a constant index and at another loop's index.
            #[tape$(($mode))?]
            pub fn constant_index(#[tracked] w: &[$t], steps: usize) -> $t {
                let mut p = [[w[0], w[1]], [w[2], w[3]]];
                let mut total = 0.0;
                for t in 0..steps {
                    let mut next = [[0.0; 2]; 2];
                    for a in 0..2 {
                        for b in 0..2 {
                            next[a][b] = (p[0][b] * p[a][1] + p[b][a]).sin() + 0.1 * t as $t;
                        }
                    }
                    p = next;
                    total += p[1][0];
                }
                total + p[0][1]
            }

            /// Matrices the reverse makes again from their literals rather
            /// than keep: one of recorded values and expressions of them,
            /// one at a block's end whose constants the block binds (read
            /// back from the array), and a row `[x; n]` of one value.
            #[tape$(($mode))?]
            pub fn made_again(#[tracked] w: &[$t], steps: usize) -> $t {
                let mut p = [[w[0], w[1]], [w[2], w[3]]];
                let mut total = 0.0;
                for t in 0..steps {
                    let (s, c) = (w[0] * t as $t).sin_cos();
                    let r = [[c, -s * w[1]], [s, c + 0.5]];
                    let m = {
                        let d: $t = 0.5 + 0.1 * t as $t;
                        [[0.25, d * 2.0], [d, w[2] * c]]
                    };
                    let v = [p[1][0].tanh(); 2];
                    let mut next = [[0.0; 2]; 2];
                    for a in 0..2 {
                        for b in 0..2 {
                            for k in 0..2 {
                                next[a][b] += (p[a][k] * r[k][b]).sin() + m[k][b] * v[b] * p[k][a];
                            }
                        }
                    }
                    p = next;
                    total += p[0][1];
                }
                total + p[1][1] * p[0][0]
            }

            /// A matrix bound again by a literal that reads the first, `let
            /// mut` and changed in place before the loops that read it: the
            /// reverse may make neither literal again.
            #[tape$(($mode))?]
            pub fn bound_again(#[tracked] w: &[$t], steps: usize) -> $t {
                let mut p = [[w[0], w[1]], [w[2], w[3]]];
                for _ in 0..steps {
                    let r = [[w[1], 0.5], [0.25, w[0]]];
                    let mut r = [[r[0][0] * p[1][1], w[2]], [0.5, r[1][1]]];
                    r[1][0] = p[0][0].cos();
                    let mut next = [[0.0; 2]; 2];
                    for a in 0..2 {
                        for b in 0..2 {
                            for k in 0..2 {
                                next[a][b] += (p[a][k] * r[k][b]).tanh();
                            }
                        }
                    }
                    p = next;
                }
                p[0][0] - p[1][0] * p[0][1] + p[1][1]
            }

            /// Elements of literals read at literal indices outside any
            /// nest: literal zeros a product reads (no slope), recorded
            /// elements (their slopes straight to them), a row `[x; 2]` of
            /// one value, and a name bound again in an inner block, whose
            /// reads there are the inner literal's and after it the outer's.
            #[tape$(($mode))?]
            pub fn literal_reads(#[tracked] w: &[$t], steps: usize) -> $t {
                let mut total = 0.0;
                for t in 0..steps {
                    let (s, c) = (w[0] + 0.1 * t as $t).sin_cos();
                    let m = [[c, 0.0, -s], [0.0, 1.0, w[1] * s], [s, 0.0, c]];
                    let v = [w[2].tanh(); 2];
                    let inner = {
                        let m = [[w[3], 0.0], [0.5, w[2]]];
                        m[0][0] * m[1][1] + m[0][1] * w[1] + m[1][0]
                    };
                    total += m[0][0] * w[2] + m[0][1] * w[3] + m[1][2] * m[2][2]
                        + w[1] * m[2][1]
                        + v[1] * m[1][1]
                        + inner * m[0][2];
                }
                total + w[0] * w[1]
            }

            /// Products with a literal zero under a square root, whose slope
            /// at zero is infinite: as written, and as elements of a literal
            /// read in a nest written out (`p[0][1]` is `w0·0 + 0·w1`).
            #[tape$(($mode))?]
            pub fn zero_under_root(#[tracked] w: &[$t]) -> $t {
                let m = [[w[0], 0.0], [0.0, w[1]]];
                let mut p = [[0.0; 2]; 2];
                for a in 0..2 {
                    for b in 0..2 {
                        for k in 0..2 {
                            p[a][b] += m[a][k] * m[k][b];
                        }
                    }
                }
                p[0][1].sqrt() + (w[0] * 0.0).sqrt() + p[1][1]
            }

            /// A name bound again in an inner block (a matrix of another
            /// size) and read after the block, where the outer one is
            /// visible again.
            #[tape$(($mode))?]
            pub fn shadowed(#[tracked] w: &[$t], steps: usize) -> $t {
                let m = [[w[0], 0.5, w[1]], [0.25, w[2], 0.0], [w[3], 0.0, 1.0]];
                let mut v = [0.3, -0.2, 0.1];
                for _ in 0..steps {
                    let inner = {
                        let m = [[w[1], w[0]], [w[3], w[2]]];
                        let mut z = 0.0;
                        for a in 0..2 {
                            for b in 0..2 {
                                z += m[a][b] * v[b];
                            }
                        }
                        z
                    };
                    let mut next = [0.0; 3];
                    for a in 0..3 {
                        for b in 0..3 {
                            next[a] += m[a][b] * v[b];
                        }
                        next[a] = (next[a] + inner).tanh();
                    }
                    v = next;
                }
                v[0] - v[1] + 2.0 * v[2]
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
        /// The arm over a generic float, its pose a `[[T; 3]; 3]`.
        #[mica::tape$(($mode))?]
        pub fn $name<T: mica::Real>(#[tracked] q: &[T], l: T) -> T {
            let (one, zero) = (T::one(), T::zero());
            let mut pose = [[one, zero, zero], [zero, one, zero], [zero, zero, one]];
            for j in 0..q.len() {
                let (s, c) = q[j].sin_cos();
                let turn = [[c, -s, l], [s, c, zero], [zero, zero, one]];
                let mut next = [[zero; 3]; 3];
                for a in 0..3 {
                    for b in 0..3 {
                        for k in 0..3 {
                            next[a][b] += pose[a][k] * turn[k][b];
                        }
                    }
                }
                pose = next;
            }
            pose[0][2] * pose[0][2] + pose[1][2]
        }
    };
}

generic!(generic_arm,);
generic!(generic_arm_plain, plain);

macro_rules! checks {
    ($name:ident, $p:ident, $q:ident, $t:ty, $tol:expr, $rel:expr) => {
        #[test]
        fn $name() {
            use $p as p;
            use $q as q;
            for seed in 0..3 {
                let angles: Vec<$t> = (0..5)
                    .map(|k| 0.3 * ((k as $t) * 1.7 + seed as $t).sin())
                    .collect();
                let lengths: Vec<$t> = (0..5)
                    .map(|k| 1.0 / (1.0 + k as $t) + 0.1 * seed as $t)
                    .collect();

                let (_, (gq, gl)) = p::arm_grad(&angles, &lengths);
                let f = |v: &[$t]| p::arm(&v[..5], &v[5..]);
                let at: Vec<$t> = angles.iter().chain(&lengths).cloned().collect();
                let claimed: Vec<$t> = gq.iter().chain(&gl).cloned().collect();
                fd::agrees("arm", &f, &at, &claimed, $tol);
                let (_, (hq, hl)) = q::arm_grad(&angles, &lengths);
                fd::same("arm, plain", &gq, &hq, $rel);
                fd::same("arm, plain", &gl, &hl, $rel);

                let (_, g) = p::factored::reach_grad(&angles, &lengths);
                let f = |v: &[$t]| p::factored::reach(v, &lengths);
                fd::agrees("factored", &f, &angles, &g, $tol);
                let h = q::factored::reach_grad(&angles, &lengths).1;
                fd::same("factored, plain", &g, &h, $rel);

                let w: Vec<$t> = (0..4)
                    .map(|k| (((k * 7 + seed * 5) % 11) as $t) / 9.0 - 0.4)
                    .collect();
                for steps in [0, 1, 3] {
                    for (what, f, gf, hf) in [
                        (
                            "constant block",
                            p::constant_block as fn(&[$t], usize) -> $t,
                            p::constant_block_grad as fn(&[$t], usize) -> ($t, Vec<$t>),
                            q::constant_block_grad as fn(&[$t], usize) -> ($t, Vec<$t>),
                        ),
                        (
                            "changed inside",
                            p::changed_inside,
                            p::changed_inside_grad,
                            q::changed_inside_grad,
                        ),
                        (
                            "constant index",
                            p::constant_index,
                            p::constant_index_grad,
                            q::constant_index_grad,
                        ),
                        ("shadowed", p::shadowed, p::shadowed_grad, q::shadowed_grad),
                        (
                            "literal reads",
                            p::literal_reads,
                            p::literal_reads_grad,
                            q::literal_reads_grad,
                        ),
                        (
                            "made again",
                            p::made_again,
                            p::made_again_grad,
                            q::made_again_grad,
                        ),
                        (
                            "bound again",
                            p::bound_again,
                            p::bound_again_grad,
                            q::bound_again_grad,
                        ),
                    ] {
                        let g = gf(&w, steps).1;
                        fd::agrees(what, &|v| f(v, steps), &w, &g, $tol);
                        fd::same(what, &g, &hf(&w, steps).1, $rel);
                    }
                }
            }
        }
    };
}

checks!(matrices_f64, p64, q64, f64, 1e-6, 1e-12);
checks!(matrices_f32, p32, q32, f32, 3e-2, 1e-5);

/// `zero_under_root` is `w1²` wherever it is defined: its square roots are
/// of products with a literal zero, the constant zero. Mica gives those
/// products no slope, as a hand-written adjoint does, and the gradient is
/// the calculus's, `(0, 2·w1)`; the plain adjoint multiplies the square
/// roots' infinite slopes by the zeros, as IEEE arithmetic says, and gives
/// NaN.
#[test]
fn a_product_with_a_literal_zero_has_no_slope() {
    for w in [[0.0, 1.5], [0.25, -0.5], [-2.0, 0.75]] {
        let (value, g) = p64::zero_under_root_grad(&w);
        assert_eq!(value, w[1] * w[1]);
        assert_eq!(g, vec![0.0, 2.0 * w[1]]);
        fd::agrees("zero under root", &p64::zero_under_root, &w, &g, 1e-6);
        let (_, plain) = q64::zero_under_root_grad(&w);
        assert!(
            plain.iter().all(|v| v.is_nan()),
            "the plain adjoint: {plain:?}"
        );
        let w32 = [w[0] as f32, w[1] as f32];
        let (_, g32) = p32::zero_under_root_grad(&w32);
        assert_eq!(g32, vec![0.0, 2.0 * w32[1]]);
        assert!(q32::zero_under_root_grad(&w32).1[0].is_nan());
    }
}

#[test]
fn a_generic_arm_agrees_in_f64_and_f32() {
    let q: Vec<f64> = (0..4).map(|k| 0.4 * k as f64 - 0.5).collect();
    for l in [0.5, 1.25] {
        let (_, g) = generic_arm_grad(&q, l);
        fd::agrees("generic", &|v| generic_arm(v, l), &q, &g, 1e-6);
        fd::same(
            "generic, plain",
            &g,
            &generic_arm_plain_grad(&q, l).1,
            1e-12,
        );
        let q32: Vec<f32> = q.iter().map(|&v| v as f32).collect();
        let l32 = l as f32;
        let (_, g32) = generic_arm_grad(&q32, l32);
        fd::agrees("generic f32", &|v| generic_arm(v, l32), &q32, &g32, 3e-2);
        fd::same(
            "generic f32, plain",
            &g32,
            &generic_arm_plain_grad(&q32, l32).1,
            1e-5,
        );
    }
}
