//! Programs that once failed (found by the random differential tests), each
//! now compiled warning-free and checked against finite differences.
#![deny(warnings)]
// the shadowing block and the `if` ending a match arm are the point
#![allow(clippy::let_and_return, clippy::collapsible_match, clippy::useless_vec)]
use mica::tape;
#[tape]
pub fn a(#[tracked] x: f64) -> f64 {
    let t = {
        let u = x * 2.0;
        let u = u.sin() * 0.5 + x;
        u
    };
    t
}
#[tape]
pub fn b(#[tracked] w: &[f64; 3]) -> f64 {
    let mut s = 0.0_f64;
    for a in w.iter() {
        s += (*a).sin() + (*a).max(s);
    }
    s
}
#[tape]
pub fn c(#[tracked] x: f64, k: usize) -> f64 {
    let mut t = x;
    match k {
        0 => {
            if x > 0.0 {
                t *= x;
            }
        }
        1 => {
            for _ in 0..2 {
                t *= x;
            }
        }
        _ => {}
    }
    t
}
#[tape]
pub fn d(#[tracked] x: f64) -> f64 {
    let v = vec![0.5_f64, x.trunc()];
    let g = [0.5_f64, x.trunc()];
    let mut h = [0.0_f64; 2];
    h[1] = x.trunc();
    h[0] = if x > 0.5 { 0.07 } else { 1.0 };
    v[0] + v[1] + g[1] + h[0] + h[1] + x
}
#[tape]
pub fn e(#[tracked] w: &[f64; 2], c: f64) -> f64 {
    let mut t = c;
    let mut i = 0;
    while i < 2 {
        t *= (-w[i]).round();
        i += 1;
    }
    t + w[0]
}
#[test]
fn found_by_random_programs() {
    let f = |p: &[f64]| a(p[0]);
    mica::check::check_gradient(f, &[0.3], &[a_grad(0.3).1]).unwrap();
    let (v, g) = b_grad(&[0.3, -0.2, 0.9]);
    assert_eq!(v, b(&[0.3, -0.2, 0.9]));
    mica::check::check_gradient(|p: &[f64]| b(&[p[0], p[1], p[2]]), &[0.3, -0.2, 0.9], &g).unwrap();
    for k in 0..3 {
        let (v, g) = c_grad(0.7, k);
        assert_eq!(v, c(0.7, k));
        mica::check::check_gradient(|p: &[f64]| c(p[0], k), &[0.7], &[g]).unwrap();
    }
    assert_eq!(d_grad(1.3), (d(1.3), 1.0));
    assert_eq!(e_grad(&[0.3, 1.6], 2.0), (e(&[0.3, 1.6], 2.0), [1.0, 0.0]));
}
