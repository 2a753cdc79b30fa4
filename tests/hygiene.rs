//! Names the expansion introduces never collide with the user's: a body
//! full of `seed`, `d_a`, `value`, `__mica_t1`, `__adj`… differentiates as
//! if they were any other names.
#![deny(warnings)]

use mica::tape;

#[tape]
fn colliding(#[tracked] seed: f64, #[tracked] d_seed: f64, value: f64) -> f64 {
    let __adj = seed * d_seed;
    let __mica_t1 = __adj + value;
    let __mica_a2 = __mica_t1 * seed;
    let d_a = __mica_a2.sin();
    let slot0 = d_a * 2.0;
    let scratch0 = slot0 + 1.0;
    scratch0 * scratch0
}

#[tape]
fn adjoint(#[tracked] arg0: f64, #[tracked] d0: f64) -> f64 {
    // a function named like the adapter, parameters named like its locals
    colliding(arg0, d0, 0.5) + arg0
}

#[tape]
fn window_names(x: f64) -> (f64, f64) {
    let __mica_g1 = 10.0;
    #[tracked]
    let seed = x;
    tape! {
        let __mica_v1 = seed * seed;
        let value = __mica_v1 * __mica_g1;
    }
    backward!(value);
    (value, gradient!(seed))
}

#[test]
fn user_names_that_look_internal_are_just_names() {
    let f = |p: &[f64]| colliding(p[0], p[1], 0.25);
    for (s, d) in [
        (0.3, 0.9),
        (-1.0, 0.5),
        (2.0, -0.3),
        (0.7, 0.7),
        (-0.4, -1.6),
    ] {
        let (value, (ds, dd)) = colliding_grad(s, d, 0.25);
        assert_eq!(value, colliding(s, d, 0.25));
        mica::check::check_gradient(f, &[s, d], &[ds, dd]).unwrap();
        let (value, (da, db)) = adjoint_grad(s, d);
        assert_eq!(value, adjoint(s, d));
        mica::check::check_gradient(|p: &[f64]| adjoint(p[0], p[1]), &[s, d], &[da, db]).unwrap();
    }
    assert_eq!(window_names(3.0), (90.0, 60.0));
}
