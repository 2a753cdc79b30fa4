//! Calls between `#[tape]` functions that return tuples: `let (r, a) =
//! polar(p);`, a wildcard for an element not read (an array among them),
//! a recurrence carried through a tuple-returning step. Each gradient and
//! tangent against central finite differences at several points, in `f64`
//! and `f32`; `hvp` through a tuple-returning helper of a `#[tape]` module
//! (what its error for a call says to write) against differences of the
//! gradient.
#![deny(warnings)]

mod fd;

macro_rules! programs {
    ($m:ident, $t:ty) => {
        pub mod $m {
            use mica::tape;

            #[tape(tangent)]
            pub fn polar(#[tracked] p: &[$t; 2]) -> ($t, $t) {
                (p[0].hypot(p[1]), p[1].atan2(p[0]))
            }

            #[tape(tangent)]
            pub fn area(#[tracked] p: &[$t; 2]) -> $t {
                let (r, a) = polar(p);
                r * r * a + a.sin()
            }

            /// An energy and its terms: the caller reads the energy only.
            #[tape(tangent)]
            pub fn terms(#[tracked] x: $t, k: $t) -> ($t, [$t; 2]) {
                let a = k * x * x;
                let b = x.cos();
                (a + b, [a, b])
            }

            #[tape(tangent)]
            pub fn uses_energy(#[tracked] w: &[$t; 2]) -> $t {
                let (mut e, _) = terms(w[0] * w[1], 0.5);
                e += w[1];
                let (_, _) = terms(w[1], 2.0);
                e * e
            }

            /// One step of a two-state recurrence.
            #[tape(tangent)]
            pub fn step(#[tracked] u: $t, #[tracked] v: $t, #[tracked] c: $t) -> ($t, $t) {
                (u + 0.1 * v, v - 0.1 * c * u.sin())
            }

            #[tape(tangent)]
            pub fn orbit(#[tracked] s: &[$t; 2], #[tracked] c: $t) -> $t {
                let mut u = s[0];
                let mut v = s[1];
                for _ in 0..20 {
                    let (a, b) = step(u, v, c);
                    u = a;
                    v = b;
                }
                u * u + v
            }
        }
    };
}

/// The orbit with its step a helper of a `#[tape]` module, which `hvp`
/// follows.
#[mica::tape]
mod helper {
    fn step(u: f64, v: f64, c: f64) -> (f64, f64) {
        (u + 0.1 * v, v - 0.1 * c * u.sin())
    }

    #[tape(hvp)]
    pub fn orbit(#[tracked] s: &[f64; 2], #[tracked] c: f64) -> f64 {
        let mut u = s[0];
        let mut v = s[1];
        for _ in 0..20 {
            let (a, b) = step(u, v, c);
            u = a;
            v = b;
        }
        u * u + v
    }
}

programs!(p64, f64);
programs!(p32, f32);

macro_rules! checks {
    ($name:ident, $m:ident, $t:ty, $tol:expr) => {
        #[test]
        fn $name() {
            use $m as p;
            for x in [[0.7, 0.4], [-1.2, 0.5], [0.3, -0.9]] {
                let (_, g) = p::area_grad(&x);
                fd::agrees("area", &|v: &[$t]| p::area(&[v[0], v[1]]), &x, &g, $tol);
                let (_, g) = p::uses_energy_grad(&x);
                fd::agrees(
                    "uses_energy",
                    &|v: &[$t]| p::uses_energy(&[v[0], v[1]]),
                    &x,
                    &g,
                    $tol,
                );
                let c = x[0] * 0.5 + 1.0;
                let (_, (gs, gc)) = p::orbit_grad(&x, c);
                let all = [gs[0], gs[1], gc];
                let at = [x[0], x[1], c];
                fd::agrees(
                    "orbit",
                    &|v: &[$t]| p::orbit(&[v[0], v[1]], v[2]),
                    &at,
                    &all,
                    $tol,
                );
                // tangents along a direction, against the gradient read
                // along it
                let d = [0.3, -0.8];
                let (y, t) = p::area_tangent(&x, &d);
                let (y2, g) = p::area_grad(&x);
                fd::close("area value", y, y2, $tol);
                fd::close("area tangent", t, g[0] * d[0] + g[1] * d[1], $tol);
                let (_, t) = p::uses_energy_tangent(&x, &d);
                let (_, g) = p::uses_energy_grad(&x);
                fd::close("uses_energy tangent", t, g[0] * d[0] + g[1] * d[1], $tol);
                let (_, t) = p::orbit_tangent(&x, c, &d, 0.5);
                fd::close(
                    "orbit tangent",
                    t,
                    gs[0] * d[0] + gs[1] * d[1] + gc * 0.5,
                    $tol,
                );
            }
        }
    };
}

checks!(tuple_calls_f64, p64, f64, 1e-6);
checks!(tuple_calls_f32, p32, f32, 2e-2);

#[test]
fn hvp_through_a_tuple_returning_helper() {
    let h = 1e-5;
    for (s, c) in [([0.7, 0.4], 1.3), ([-0.2, 0.9], 0.6), ([1.1, -0.5], 2.0)] {
        for v in [[1.0, 0.0, 0.0], [0.0, 0.5, -1.0]] {
            let (_, (gs, gc), (hs, hc)) = helper::orbit_hvp(&s, c, &[v[0], v[1]], v[2]);
            let (_, (gs2, gc2)) = helper::orbit_grad(&s, c);
            fd::close("gradient", gs[0], gs2[0], 1e-9);
            fd::close("gradient", gc, gc2, 1e-9);
            let at = |e: f64| {
                let (_, (a, b)) =
                    helper::orbit_grad(&[s[0] + e * v[0], s[1] + e * v[1]], c + e * v[2]);
                [a[0], a[1], b]
            };
            let (p, m) = (at(h), at(-h));
            let hv = [hs[0], hs[1], hc];
            for j in 0..3 {
                fd::close("H·v", hv[j], (p[j] - m[j]) / (2.0 * h), 1e-5);
            }
        }
    }
}

/// A tuple call in a loop's block whose scalars the reverse once read again
/// by a name the forward sweep bound inside the loop (seed 44, program 262).
#[mica::tape]
pub fn looped_t(#[tracked] a: [f64; 3]) -> (f64, f64, f64) {
    let w = a[0] * a[1] - 0.5;
    (w, (a[2] * 0.5).sin(), w.tanh() + a[2] * a[0])
}

#[rustfmt::skip]
#[allow(clippy::all)]
#[mica::tape]
pub fn found_by_random_programs(#[tracked] v0: &[f64], _cp: f64, k: usize) -> f64 {
    let mut t3 = v0[0].tanh() + (v0[0] * 0.25_f64);
    let mut h4 = [0.0_f64; 3];
    let mut t5 = (-0.85_f64) + (v0[0] * 0.25_f64);
    match k {
        0 => {
            t3 = (t3 + ((-0.1_f64) * 0.5_f64)).tanh();
            for i6 in 0..1 {
                if (i6 as f64) > 1.66_f64 {
                    break;
                }
                t5 += (((if t3.min(-0.2_f64) < h4.iter().rev().skip(1).filter(|x| **x > -0.26_f64).map(|&_v7| 0.16_f64).sum::<f64>() { t5.sin() } else { t3 }) * (if t3.min(-0.2_f64) < h4.iter().rev().skip(1).filter(|x| **x > -0.26_f64).map(|&_v7| 0.16_f64).sum::<f64>() { t5.sin() } else { t3 })) + 0.5_f64).recip().tanh() * 0.1_f64;
                h4[i6] = ({ let u10 = -t3; let u10 = u10.sin() * 0.5_f64 + ((t3 * t3) + 0.5_f64).cbrt(); u10 }).tanh();
            }
        }
        _ => {
            t3 = (t3 + ({ let (_, q1, mut q2) = looped_t(h4); q2 -= q1; q2 }.tanh() * 0.5_f64)).tanh();
            t3 -= ((mica::softplus(-0.8_f64) - (((match k { 0 => t3, _ => 0.01_f64, }).tanh() * (match k { 0 => t3, _ => 0.01_f64, }).tanh()) + 0.5_f64).powf((t3.tanh() * (-0.16_f64)).tanh())).tanh() * 0.1_f64) - (t3 * 0.05_f64);
        }
    }
    for i11 in 0..3 {
        let t12 = { let (q0, q1, q2) = looped_t(h4); q0 + q1 * q2 };
        if (t5 * t3.tanh()) < (-0.12_f64) {
            continue;
        }
        t3 += t12.tanh() * 0.1_f64;
        let t12 = t12 * 0.5_f64 + ((v0[i11 % v0.len()] + (-0.66_f64)) + t5).tanh();
        t5 += t12.tanh() * 0.1_f64;
    }
    for j13 in 1..3 {
        h4[j13] = (h4[j13] * 0.21_f64) + (h4[j13 - 1] * 0.59_f64);
    }
    let t14 = h4[2];
    ((t3 + h4[0]) + t5) + t14
}

#[test]
fn a_tuple_call_in_a_loop() {
    for v in [[0.3, -0.2], [1.1, 0.7], [-0.8, 0.4]] {
        for k in 0..2 {
            let mut g = [0.0; 2];
            found_by_random_programs_backward(&v, 0.3, k, 1.0, &mut g);
            let f = |p: &[f64]| found_by_random_programs(p, 0.3, k);
            fd::agrees("looped", &f, &v, &g, 1e-6);
        }
    }
}
