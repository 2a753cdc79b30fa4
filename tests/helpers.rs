//! The block form (`#[tape] mod`): helpers without marks, called with
//! recorded arguments from the block's entry points. Helpers take scalars,
//! arrays by value, `&[T; N]`, slices (`&w`, `&w[a..b]`), the same array
//! twice and `&mut` out-parameters they write, return scalars, arrays and
//! tuples, call other helpers, leave early with `return`, and are called
//! inside loops, with constants and as the source of iterator chains. The
//! everyday spellings of the float methods (`f64::max(a, b)`,
//! `f64::powi(x, 3)`, `sin_cos`, `to_radians`) are in the same programs.
//! Every block is written twice, as `#[tape]` and `#[tape(plain)]`, and
//! checked in `f64` and `f32` against central finite differences at
//! several points and against its plain twin, and one program against
//! slopes derived by hand. A window-form function of a block checks the
//! other form.
#![deny(warnings)]

mod fd;

macro_rules! programs {
    ($m:ident, $t:ty, $($mode:ident)?) => {
        #[mica::tape$(($mode))?]
        pub mod $m {
            type Mat = [[$t; 3]; 3];

            pub fn dot(a: &[$t; 3], b: &[$t; 3]) -> $t {
                a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
            }
            pub fn sub(a: &[$t; 3], b: &[$t; 3]) -> [$t; 3] {
                [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
            }
            fn cross(a: &[$t; 3], b: &[$t; 3]) -> [$t; 3] {
                [
                    a[1] * b[2] - a[2] * b[1],
                    a[2] * b[0] - a[0] * b[2],
                    a[0] * b[1] - a[1] * b[0],
                ]
            }
            fn sq(x: $t) -> $t {
                x * x
            }
            /// a helper calling a helper, over a slice
            fn norm2(v: &[$t]) -> $t {
                let mut s = 0.0;
                for i in 0..v.len() {
                    s += sq(v[i]);
                }
                s
            }
            /// an out-parameter
            fn scale_into(v: &[$t], k: $t, out: &mut [$t]) {
                for i in 0..v.len() {
                    out[i] = v[i] * k;
                }
            }
            fn split(a: $t, b: $t) -> ($t, $t) {
                (a + b, a * b)
            }
            /// an early `return`
            fn clip(x: $t) -> $t {
                if x > 1.0 {
                    return 1.0 + 0.1 * x;
                }
                x
            }
            /// a tuple left early from inside a loop
            fn first_above(v: [$t; 3], s: $t) -> ($t, $t) {
                for a in v.iter() {
                    if *a * s > 0.4 {
                        return (0.5 * a * s, 0.5);
                    }
                }
                let t = 0.5 * s;
                (t, mica::sigmoid(-t))
            }
            /// sub-slices of a slice, passed on
            fn inner_norm(v: &[$t]) -> $t {
                norm2(&v[1..3]) + norm2(&v[2..])
            }
            /// an array left early, from inside a loop or after it
            fn reflected(v: &[$t], s: $t) -> [$t; 3] {
                for i in 0..v.len() {
                    if v[i] * s > 0.5 {
                        return [v[i] * s, -v[i], s];
                    }
                }
                if s < 0.0 {
                    return [s, s * s, 0.5];
                }
                [v[0] * v[1], s, 0.25]
            }
            /// a borrowed array passed on by value
            fn passed_on(a: &[$t; 3]) -> $t {
                let b = bumped(*a, 0.25);
                b[0] * b[1] + a[2]
            }
            /// a by-value array the helper changes
            fn bumped(mut v: [$t; 3], by: $t) -> [$t; 3] {
                v[1] += by;
                v
            }
            fn rot(theta: $t) -> Mat {
                let (s, c) = theta.sin_cos();
                [[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]]
            }
            fn trans(x: $t) -> Mat {
                [[1.0, 0.0, x], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
            }
            fn matmul(a: &Mat, b: &Mat) -> Mat {
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
            /// Rodrigues' rotation of `x` by the axis-angle `r`, with the
            /// small-angle branch
            fn rodrigues(r: &[$t; 3], x: &[$t; 3]) -> [$t; 3] {
                let theta2 = dot(r, r);
                if theta2 > 1e-8 {
                    let theta = theta2.sqrt();
                    let (s, c) = (theta.sin(), theta.cos());
                    let w = [r[0] / theta, r[1] / theta, r[2] / theta];
                    let wx = cross(&w, x);
                    let wdx = dot(&w, x);
                    let mut out = [0.0; 3];
                    for i in 0..3 {
                        out[i] = x[i] * c + wx[i] * s + w[i] * wdx * (1.0 - c);
                    }
                    out
                } else {
                    let rx = cross(r, x);
                    [x[0] + rx[0], x[1] + rx[1], x[2] + rx[2]]
                }
            }

            /// SPEC 3.3's example: `½ k |x − rest|²`.
            pub fn energy(#[tracked] x: &[$t; 3], rest: &[$t; 3], k: $t) -> $t {
                let d = sub(x, rest);
                0.5 * k * dot(&d, &d)
            }

            /// `|x × f|` with a constant `f`, and a tracked `f` too.
            pub fn torque(#[tracked] x: &[$t; 3], #[tracked] f: &[$t; 3]) -> $t {
                let t = cross(x, f);
                dot(&t, &t).sqrt() + dot(&bumped(*x, 0.5), f) + passed_on(f) + passed_on(&*x)
            }

            /// Chains over what helpers return (`sub(&a, &b).iter()…`),
            /// one of them a helper that leaves early.
            pub fn walked(#[tracked] v: &[$t]) -> $t {
                let a = [v[0], v[1], v[2]];
                let b = [v[3], v[4], v[5]];
                let d: $t = sub(&a, &b).iter().map(|x| x * x).sum();
                d + cross(&a, &b).iter().zip(&b).map(|(c, w)| c * w.sin()).sum::<$t>()
                    + reflected(v, 0.7).into_iter().fold(0.0, |acc, x| 0.5 * acc + x)
            }

            /// Out-parameters, slices, tuples, an early return, a helper
            /// called with a constant where another call records.
            pub fn mixed(#[tracked] w: &[$t], k: $t) -> $t {
                let mut tmp = vec![0.0; w.len()];
                scale_into(w, k, &mut tmp);
                let (s, p) = split(w[0], w[1]);
                let c = split(k, 2.0).1;
                let (e, f) = first_above([w[0], w[1], 0.45], w[2] * 4.0);
                let (g, h) = first_above([0.5, 0.5, 0.5], 0.1);
                let r = reflected(&w[1..], k * w[0]);
                // a helper's constant result, copied into a parameter that
                // receives a recorded value
                let c0 = bumped([0.5, 0.5, 0.5], 0.1);
                let d = bumped(c0, w[0]);
                norm2(&tmp) + norm2(&w[1..3]) + s * p + clip(w[2]) + clip(w[3] * 4.0) + c * sq(w[0])
                    + e + f * w[0] + g * h + r[0] + r[1] * r[2] + inner_norm(&w[1..]) + d[1] * d[2]
            }

            /// A planar arm: the tip of three joints through rotation and
            /// translation matrices, against a target.
            pub fn arm(#[tracked] q: &[$t; 3], lengths: &[$t; 3], target: &[$t; 2]) -> $t {
                let mut t = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
                for j in 0..3 {
                    t = matmul(&t, &rot(q[j]));
                    t = matmul(&t, &trans(lengths[j]));
                }
                let dx = t[0][2] - target[0];
                let dy = t[1][2] - target[1];
                dx * dx + dy * dy
            }

            /// A reprojection error: points rotated by an axis-angle and
            /// divided by their depth.
            pub fn reprojection(
                #[tracked] cam: &[$t; 6],
                #[tracked] pts: &[[$t; 3]],
                obs: &[[$t; 2]],
            ) -> $t {
                let mut total = 0.0;
                for i in 0..pts.len() {
                    let r = [cam[0], cam[1], cam[2]];
                    let p = rodrigues(&r, &pts[i]);
                    let z = p[2] + cam[5];
                    let ex = (p[0] + cam[3]) / z - obs[i][0];
                    let ey = (p[1] + cam[4]) / z - obs[i][1];
                    total += ex * ex + ey * ey;
                }
                total
            }

            /// The path spellings of the float methods.
            pub fn spelled(#[tracked] w: &[$t]) -> $t {
                <$t>::max(w[0], w[1]) + <$t>::powi(w[2], 3) + <$t>::sin(w[3])
                    + w[0].to_radians() * w[1].to_degrees()
                    + <$t>::hypot(w[1], w[2])
            }

            /// The window form inside a block.
            pub fn window(a: $t, b: $t) -> ($t, $t, $t) {
                #[tracked]
                let a = a;
                #[tracked]
                let b = b;
                tape! {
                    let v = [a, b, a * b];
                    let total = dot(&v, &cross(&v, &[1.0, 2.0, 3.0])) + norm2(&v);
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
        let three = |v: &[$t]| [v[0], v[1], v[2]];
        let points: [&[$t]; 3] = [
            &[0.3, -0.7, 0.45, 0.9, 0.2, -0.1],
            &[-0.55, 0.25, 0.8, -0.35, 0.6, 0.3],
            &[1.1, 0.6, -0.2, 0.15, -0.4, 0.25],
        ];
        for p in points {
            let rest: [$t; 3] = [0.3, -0.2, 0.5];
            let (_, g) = energy_grad(&three(p), &rest, 2.0);
            // ∂/∂x ½k|x − rest|² = k (x − rest)
            let by_hand: Vec<$t> = (0..3).map(|i| 2.0 * (p[i] - rest[i])).collect();
            same(&g, &by_hand, "energy by hand");
            same(&g, &$q::energy_grad(&three(p), &rest, 2.0).1, "energy");
            agree("energy", &|v| energy(&three(v), &rest, 2.0), &p[..3], &g);

            let f = [p[3], p[4], p[5]];
            let (_, (gx, gf)) = torque_grad(&three(p), &f);
            let (_, (hx, hf)) = $q::torque_grad(&three(p), &f);
            same(&gx, &hx, "torque x");
            same(&gf, &hf, "torque f");
            agree("torque x", &|v| torque(&three(v), &f), &p[..3], &gx);
            agree("torque f", &|v| torque(&three(p), &three(v)), &p[3..], &gf);

            for k in [1.5, -0.5] {
                let (_, g) = mixed_grad(p, k);
                same(&g, &$q::mixed_grad(p, k).1, "mixed");
                agree("mixed", &|v| mixed(v, k), p, &g);
            }

            let (lengths, target) = ([1.0, 0.8, 0.5], [1.2, 0.9]);
            let (_, g) = arm_grad(&three(p), &lengths, &target);
            same(&g, &$q::arm_grad(&three(p), &lengths, &target).1, "arm");
            agree("arm", &|v| arm(&three(v), &lengths, &target), &p[..3], &g);

            let pts = vec![[0.5, 0.2, 1.0], [-0.3, 0.4, 0.7], [p[0], p[1], 1.5]];
            let obs = vec![[0.1, 0.05], [-0.07, 0.09], [0.2, 0.1]];
            // an axis-angle away from zero, and one on the small-angle branch
            for scale in [0.3, 0.0] {
                let cam = [p[0] * scale, p[1] * scale, p[2] * scale, p[3], p[4], 5.0];
                let (_, (gc, gp)) = reprojection_grad(&cam, &pts, &obs);
                let (_, (hc, hp)) = $q::reprojection_grad(&cam, &pts, &obs);
                same(&gc, &hc, "reprojection cam");
                same(&gp.concat(), &hp.concat(), "reprojection pts");
                let at_cam =
                    |v: &[$t]| reprojection(&[v[0], v[1], v[2], v[3], v[4], v[5]], &pts, &obs);
                // (at zero, differences of 1e-6 stay on the small-angle branch)
                agree("reprojection cam", &at_cam, &cam, &gc);
                let at_pts = |v: &[$t]| {
                    let pts: Vec<[$t; 3]> = v.chunks(3).map(|c| [c[0], c[1], c[2]]).collect();
                    reprojection(&cam, &pts, &obs)
                };
                agree("reprojection pts", &at_pts, &pts.concat(), &gp.concat());
            }

            let (_, g) = walked_grad(p);
            same(&g, &$q::walked_grad(p).1, "walked");
            agree("walked", &|v| walked(v), p, &g);

            let (_, g) = spelled_grad(p);
            same(&g, &$q::spelled_grad(p).1, "spelled");
            agree("spelled", &|v| spelled(v), p, &g);

            let (total, da, db) = window(p[0], p[1]);
            let (_, ha, hb) = $q::window(p[0], p[1]);
            same(&[da, db], &[ha, hb], "window");
            agree("window", &|v| window(v[0], v[1]).0, &p[..2], &[da, db]);
            let _ = total;
        }
    }};
}

#[test]
fn helpers_agree_with_finite_differences_hand_slopes_and_plain_adjoints() {
    check_all!(p64, q64, f64, 1e-6, 1e-12);
    check_all!(p32, q32, f32, 2e-2, 1e-5);
}

/// The helpers stay plain functions the user may call.
#[test]
fn helpers_stay_callable() {
    assert_eq!(p64::dot(&[1.0, 2.0, 3.0], &[4.0, 5.0, 6.0]), 32.0);
    assert_eq!(
        p64::sub(&[1.0, 2.0, 3.0], &[1.0, 1.0, 1.0]),
        [0.0, 1.0, 2.0]
    );
}

/// The impl forms: methods and associated functions of an inherent `impl`
/// as helpers and entry points, and a trait's `impl` whose companions go
/// into an inherent `impl` beside it.
mod impls {
    pub struct Spring {
        pub k: f64,
        pub rest: [f64; 3],
    }

    #[mica::tape]
    impl Spring {
        fn stretch(&self, x: &[f64; 3]) -> [f64; 3] {
            [
                x[0] - self.rest[0],
                x[1] - self.rest[1],
                x[2] - self.rest[2],
            ]
        }
        fn dot(a: &[f64; 3], b: &[f64; 3]) -> f64 {
            a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
        }
        /// `½ k |x − rest|²`
        pub fn energy(&self, #[tracked] x: &[f64; 3]) -> f64 {
            let d = self.stretch(x);
            0.5 * self.k * Self::dot(&d, &d)
        }
        /// the same, of another spring, as an associated function
        pub fn energy_of(spring: &Spring, #[tracked] x: &[f64; 3]) -> f64 {
            let d = spring.stretch(x);
            0.5 * spring.k * Self::dot(&d, &d)
        }
    }

    pub trait Objective {
        fn value(&self, x: &[f64]) -> f64;
    }

    pub struct Quartic {
        pub scale: f64,
    }

    #[mica::tape]
    impl Objective for Quartic {
        /// `s Σ xᵢ⁴`
        fn value(&self, #[tracked] x: &[f64]) -> f64 {
            let mut total = 0.0;
            for v in x.iter() {
                total += self.scale * v.powi(4);
            }
            total
        }
    }
}

#[test]
fn impl_blocks_agree_with_slopes_by_hand_and_finite_differences() {
    use impls::*;
    let spring = Spring {
        k: 2.0,
        rest: [0.0, 0.0, 1.0],
    };
    for x in [[1.0, 2.0, 3.0], [-0.5, 0.25, 0.75]] {
        let (e, g) = spring.energy_grad(&x);
        assert_eq!(e, spring.energy(&x));
        // k (x − rest)
        let by_hand: Vec<f64> = (0..3).map(|i| 2.0 * (x[i] - spring.rest[i])).collect();
        fd::same("spring", &g, &by_hand, 1e-12);
        let (_, h) = Spring::energy_of_grad(&spring, &x);
        fd::same("spring of", &h, &by_hand, 1e-12);
        fd::agrees(
            "spring",
            &|v: &[f64]| spring.energy(&[v[0], v[1], v[2]]),
            &x,
            &g,
            1e-6,
        );
    }
    let q = Quartic { scale: 0.5 };
    let x = [0.3, -1.2, 2.0];
    // trait method as written; its companions beside it
    assert_eq!(q.value(&x), q.value_grad(&x).0);
    let g = q.value_grad(&x).1;
    let by_hand: Vec<f64> = x.iter().map(|v| 2.0 * v.powi(3)).collect();
    fd::same("quartic", &g, &by_hand, 1e-12);
}

/// Functions outside a block, imported by name: a `#[tape]` one (also
/// renamed) is differentiated through; a plain one may take constants.
mod outer {
    use mica::tape;

    #[tape]
    pub fn sq(#[tracked] x: f64) -> f64 {
        x * x
    }

    #[tape]
    pub fn sq32(#[tracked] x: f32) -> f32 {
        x * x
    }

    pub fn scale(k: f64) -> f64 {
        2.0 * k
    }
}

#[mica::tape]
mod importing {
    use super::outer::sq as square;
    use super::outer::{scale, sq, sq32};

    fn helper(x: f64) -> f64 {
        sq(x) + square(x * 0.5)
    }

    pub fn loss(#[tracked] a: f64, k: f64) -> f64 {
        helper(a) * scale(k) + sq(a.sin())
    }

    pub fn loss32(#[tracked] a: f32) -> f32 {
        sq32(a) * 3.0
    }
}

/// The same through a glob import.
#[mica::tape]
mod importing_all {
    use super::outer::*;

    pub fn loss(#[tracked] a: f64, k: f64) -> f64 {
        sq(a) * scale(k)
    }
}

#[test]
fn blocks_call_tape_functions_they_import() {
    for a in [-1.2, -0.3, 0.4, 2.1] {
        for k in [0.5, -1.5] {
            let (v, g) = importing::loss_grad(a, k);
            assert_eq!(v, importing::loss(a, k));
            // (a² + a²/4)·2k + sin²a
            let by_hand = (2.0 * a + 0.5 * a) * 2.0 * k + 2.0 * a.sin() * a.cos();
            fd::close("imported, by hand", g, by_hand, 1e-12);
            fd::agrees(
                "imported",
                &|p: &[f64]| importing::loss(p[0], k),
                &[a],
                &[g],
                1e-6,
            );
        }
        let (_, g) = importing_all::loss_grad(a, 0.5);
        fd::close("glob-imported, by hand", g, 2.0 * a, 1e-12);
        let a = a as f32;
        let (_, g) = importing::loss32_grad(a);
        fd::close("imported f32, by hand", g, 6.0 * a, 1e-6);
        fd::agrees(
            "imported f32",
            &|p: &[f32]| importing::loss32(p[0]),
            &[a],
            &[g],
            2e-2,
        );
    }
}

/// A helper binding a reference into a constant slice argument
/// (`let r = &s[1];`) and reading it in a branch's arm, called with an
/// array literal: the reverse kept the reference, which outlived the
/// array the inlined helper's block made (E0716, "temporary value dropped
/// while borrowed": seed 311554528, program 25). It is kept by value.
#[mica::tape]
mod borrowed_element {
    fn lower(x: f64, s: &[f64]) -> f64 {
        let r = &s[1];
        let mut t = 0.5;
        if x > 0.0 {
            t += x;
        } else {
            t -= r.min(x);
        }
        t
    }

    pub fn f(#[tracked] x: f64, c: f64) -> f64 {
        lower(x, &[c, -0.28]) * x
    }
}

#[test]
fn a_reference_into_a_constant_argument_read_in_an_arm() {
    // f = (0.5 + x) x for x > 0; (0.5 − min(−0.28, x)) x otherwise
    for (x, slope) in [
        (0.4_f64, 0.5 + 2.0 * 0.4),
        (-0.1, 0.5 + 0.28),
        (-0.5, 0.5 + 2.0 * 0.5),
    ] {
        let (value, g) = borrowed_element::f_grad(x, 0.3);
        assert_eq!(value, borrowed_element::f(x, 0.3));
        assert!((g - slope).abs() < 1e-12, "at {x}: {g} against {slope}");
        let h = 1e-6;
        let fd = (borrowed_element::f(x + h, 0.3) - borrowed_element::f(x - h, 0.3)) / (2.0 * h);
        assert!(
            (g - fd).abs() < 1e-6,
            "at {x}: {g} against differences {fd}"
        );
    }
}
