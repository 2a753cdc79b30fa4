//! Tuples of knobs as tracked parameters and window knobs (SPEC 3.4):
//! `#[tracked] p: &(f64, [f64; 3])`, read `p.0`, `p.1[i]`; the gradient is
//! a tuple of the same type. Against finite differences, f64 and f32.

mod fd;

use mica::Real;
#[derive(Clone, Debug, mica::Knob)]
pub struct Line {
    pub w: [f64; 2],
    pub b: f64,
}

#[mica::tape]
pub fn fit(#[tracked] p: &(f64, [f64; 3]), x: f64) -> f64 {
    (p.0 * x).sin() + p.1[0] * p.1[2] + p.1[1] * x
}

#[mica::tape]
pub fn mixed(#[tracked] p: (Line, f64, Vec<f64>), x: f64) -> f64 {
    let mut s = p.0.w[0] * x + p.0.b;
    for k in 0..p.2.len() {
        s += p.2[k] * p.1;
    }
    s * s
}

/// Generic, for `f32` too.
#[mica::tape]
pub fn generic<T: Real>(#[tracked] p: &(T, [T; 2]), x: T) -> T {
    (p.0 * x).tanh() * p.1[1] + p.1[0]
}

#[mica::tape]
pub fn calls(#[tracked] p: &(f64, [f64; 3]), x: f64) -> f64 {
    fit(p, x) * x
}

#[mica::tape]
pub fn window(start: (f64, [f64; 3]), x: f64) -> (f64, (f64, [f64; 3])) {
    #[tracked]
    let p: (f64, [f64; 3]) = start;
    tape! {
        let y = (p.0 * x).sin() + p.1[0] * p.1[2] + p.1[1] * x;
    }
    backward!(y);
    (y, gradient!(p))
}

#[test]
fn tuples_of_knobs_in_every_form() {
    let p = (0.3, [0.5, -0.2, 0.8]);
    let flat = |p: &(f64, [f64; 3])| vec![p.0, p.1[0], p.1[1], p.1[2]];
    let un = |v: &[f64]| (v[0], [v[1], v[2], v[3]]);
    for x in [0.7, -1.2] {
        let (_, g) = fit_grad(&p, x);
        fd::agrees("fit", &|v| fit(&un(v), x), &flat(&p), &flat(&g), 1e-6);
        let (_, g2) = calls_grad(&p, x);
        fd::agrees("calls", &|v| calls(&un(v), x), &flat(&p), &flat(&g2), 1e-6);
        let (_, g3) = window(p, x);
        fd::same("window", &flat(&g3), &flat(&g), 1e-12);
        let q = (
            Line {
                w: [0.4, 0.1],
                b: -0.3,
            },
            0.6,
            vec![0.2, -0.5],
        );
        let (_, gq) = mixed_grad(q.clone(), x);
        let fq = |q: &(Line, f64, Vec<f64>)| vec![q.0.w[0], q.0.w[1], q.0.b, q.1, q.2[0], q.2[1]];
        let uq = |v: &[f64]| {
            (
                Line {
                    w: [v[0], v[1]],
                    b: v[2],
                },
                v[3],
                vec![v[4], v[5]],
            )
        };
        fd::agrees("mixed", &|v| mixed(uq(v), x), &fq(&q), &fq(&gq), 1e-6);
    }
    let mut d = (0.0, [0.0; 3]);
    fit_backward(&p, 0.7, 2.0, &mut d);
    let (_, g) = fit_grad(&p, 0.7);
    fd::same(
        "backward",
        &flat(&d),
        &flat(&g).iter().map(|v| 2.0 * v).collect::<Vec<_>>(),
        1e-12,
    );
    let mut stepped = p;
    mica::Knob::add_scaled(&mut stepped, &g, -0.5);
    assert_eq!(stepped.0, p.0 - 0.5 * g.0);
    let p32 = (0.3f32, [0.5f32, -0.2]);
    for x in [0.7f32, -1.2] {
        let (_, g) = generic_grad(&p32, x);
        fd::agrees(
            "generic f32",
            &|v| generic(&(v[0], [v[1], v[2]]), x),
            &[p32.0, p32.1[0], p32.1[1]],
            &[g.0, g.1[0], g.1[1]],
            2e-2,
        );
        let (_, g) = generic_grad(&(0.3f64, [0.5, -0.2]), x as f64);
        fd::agrees(
            "generic f64",
            &|v| generic(&(v[0], [v[1], v[2]]), x as f64),
            &[0.3, 0.5, -0.2],
            &[g.0, g.1[0], g.1[1]],
            1e-6,
        );
    }
}

/// A tuple binding made before a branch that an arm gives a new tuple:
/// merged field by field (`b a²` where `a > b`, `a b` elsewhere).
macro_rules! branch_tuple {
    ($m:ident, $t:ty) => {
        pub mod $m {
            #[mica::tape]
            pub fn f(#[tracked] a: $t, #[tracked] b: $t) -> $t {
                let mut p = (a, b);
                if a > b {
                    p = (b, a * a);
                }
                p.0 * p.1
            }

            #[mica::tape(plain)]
            pub fn q(#[tracked] a: $t, #[tracked] b: $t) -> $t {
                let mut p = (a, b);
                if a > b {
                    p = (b, a * a);
                }
                p.0 * p.1
            }
        }
    };
}
branch_tuple!(branch_tuple64, f64);
branch_tuple!(branch_tuple32, f32);

#[test]
fn a_tuple_a_branch_assigns() {
    for (a, b) in [(0.7, -0.3), (-0.4, 0.9), (1.5, 1.2)] {
        let by_hand = if a > b { (2.0 * a * b, a * a) } else { (b, a) };
        let (v, g) = branch_tuple64::f_grad(a, b);
        assert_eq!(v, branch_tuple64::f(a, b), "the value");
        fd::close("by hand, a", g.0, by_hand.0, 1e-12);
        fd::close("by hand, b", g.1, by_hand.1, 1e-12);
        let q = branch_tuple64::q_grad(a, b).1;
        fd::close("plain twin, a", g.0, q.0, 1e-12);
        fd::close("plain twin, b", g.1, q.1, 1e-12);
        fd::agrees(
            "f64",
            &|v: &[f64]| branch_tuple64::f(v[0], v[1]),
            &[a, b],
            &[g.0, g.1],
            1e-6,
        );
        let (a32, b32) = (a as f32, b as f32);
        let (_, g32) = branch_tuple32::f_grad(a32, b32);
        fd::agrees(
            "f32",
            &|v: &[f32]| branch_tuple32::f(v[0], v[1]),
            &[a32, b32],
            &[g32.0, g32.1],
            2e-2,
        );
        let q32 = branch_tuple32::q_grad(a32, b32).1;
        fd::close("plain twin f32, a", g32.0, q32.0, 1e-5);
        fd::close("plain twin f32, b", g32.1, q32.1, 1e-5);
    }
}
