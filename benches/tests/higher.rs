//! The peers' Hessian-vector products on Extended Rosenbrock against
//! Mica's `rosenbrock_hvp` and against central finite differences of
//! Mica's `rosenbrock_grad`; the bundle-adjustment Jacobian block, Mica's
//! and the hand-written one, against central finite differences of the
//! primal and against each other.

use mica_benches::higher::{check_hvp, direction};
use mica_benches::peers_higher as ph;
use mica_benches::{assert_close_within, ba, rosenbrock};

/// `H·v` by central differences of Mica's gradient along `v`.
fn hvp_by_differences(x: &[f64], v: &[f64]) -> Vec<f64> {
    let h = 1e-5;
    let at = |s: f64| {
        let y: Vec<f64> = x.iter().zip(v).map(|(a, b)| a + s * b).collect();
        rosenbrock::rosenbrock_grad(&y).1
    };
    let (plus, minus) = (at(h), at(-h));
    plus.iter()
        .zip(&minus)
        .map(|(p, m)| (p - m) / (2.0 * h))
        .collect()
}

/// Points for Extended Rosenbrock: the suite's start, and two shifted.
fn points(n: usize) -> Vec<Vec<f64>> {
    let start = rosenbrock::start(n);
    let mut out = vec![start.clone()];
    for (k, shift) in [0.3, -0.45].into_iter().enumerate() {
        out.push(
            start
                .iter()
                .enumerate()
                .map(|(i, x)| x + shift * (((i + k) % 5) as f64 / 4.0 - 0.5))
                .collect(),
        );
    }
    out
}

#[test]
fn hvp_peers_against_mica_and_differences() {
    type Peer = fn(&[f64], &[f64]) -> (f64, Vec<f64>, Vec<f64>);
    let peers: [(&str, Peer); 2] = [
        ("num-dual HyperDual64", ph::hvp_num_dual),
        ("ad_trait HyperAD_ADR<1>", ph::hvp_ad_trait),
    ];
    for n in [10, 1000] {
        for x in points(n) {
            let v = direction(n);
            let fd = hvp_by_differences(&x, &v);
            let (value, grad, hv) = rosenbrock::rosenbrock_hvp(&x, &v);
            assert_close_within("Mica H·v against differences", &hv, &fd, 1e-6);
            assert_close_within("Mica value", &[value], &[rosenbrock::rosenbrock(&x)], 1e-14);
            assert_close_within(
                "Mica gradient",
                &grad,
                &rosenbrock::rosenbrock_grad(&x).1,
                1e-12,
            );
            for (name, peer) in peers {
                let out = peer(&x, &v);
                assert_close_within(name, &out.2, &fd, 1e-6);
                check_hvp(name, out, &x, &v);
            }
            if n == 10 {
                let engine = ph::hessian_engine(n);
                let out = ph::hvp_ad_trait_hessian(&engine, &x, &v);
                assert_close_within("ad_trait Hessian·v", &out.2, &fd, 1e-6);
                check_hvp("ad_trait Hessian·v", out, &x, &v);
            }
        }
    }
}

/// The peers' generic functions give the primal's value on plain `f64`.
#[test]
fn peers_generic_functions_are_the_primal() {
    let x = rosenbrock::start(10);
    let f = rosenbrock::rosenbrock(&x);
    assert_close_within(
        "num-dual on f64",
        &[ph::rosenbrock_num_dual(&x)],
        &[f],
        1e-14,
    );
    assert_close_within("ad_trait on f64", &[ph::rosenbrock_ad(&x)], &[f], 1e-14);
}

/// The 15 inputs of one observation, flattened: camera, point, weight.
fn flatten(cam: &[f64; 11], x: &[f64; 3], w: f64) -> [f64; 15] {
    let mut p = [0.0; 15];
    p[..11].copy_from_slice(cam);
    p[11..14].copy_from_slice(x);
    p[14] = w;
    p
}

fn residual(p: &[f64; 15], feat: &[f64; 2]) -> [f64; 2] {
    let cam: [f64; 11] = p[..11].try_into().unwrap();
    let x: [f64; 3] = p[11..14].try_into().unwrap();
    ba::reproject(&cam, &x, p[14], feat)
}

/// The Jacobian by central differences of the primal, `J[i][j]`.
fn jacobian_by_differences(p: &[f64; 15], feat: &[f64; 2]) -> [[f64; 15]; 2] {
    let mut jac = [[0.0; 15]; 2];
    for j in 0..15 {
        let h = 1e-6 * p[j].abs().max(1.0);
        let (mut up, mut down) = (*p, *p);
        up[j] += h;
        down[j] -= h;
        let (a, b) = (residual(&up, feat), residual(&down, feat));
        for i in 0..2 {
            jac[i][j] = (a[i] - b[i]) / (up[j] - down[j]);
        }
    }
    jac
}

#[test]
fn bundle_adjustment_jacobian() {
    // eight observations; the fifth has a camera not turned at all
    for (k, (cam, x, w, feat)) in ba::observations(8).into_iter().enumerate() {
        let (out, jac) = ba::reproject_jacobian(&cam, &x, w, &feat);
        let (h_out, h_jac) = ba::reproject_jacobian_hand(&cam, &x, w, &feat);
        let rows = ba::reproject_jacobian_by_rows(&cam, &x, w, &feat);
        let primal = ba::reproject(&cam, &x, w, &feat);
        assert_eq!(out, primal, "Mica's residual is the primal's");
        assert_close_within("hand residual", &h_out, &primal, 1e-13);
        let fd = jacobian_by_differences(&flatten(&cam, &x, w), &feat);
        assert_eq!(jac.len(), 2);
        for i in 0..2 {
            assert_eq!(jac[i].len(), 15);
            let what = format!("observation {k}, row {i}");
            assert_close_within(
                &format!("{what}: Mica against differences"),
                &jac[i],
                &fd[i],
                1e-6,
            );
            assert_close_within(
                &format!("{what}: hand against differences"),
                &h_jac[i],
                &fd[i],
                1e-6,
            );
            assert_close_within(
                &format!("{what}: Mica against hand"),
                &jac[i],
                &h_jac[i],
                1e-10,
            );
            assert_close_within(
                &format!("{what}: Mica's rows by `_backward` against hand"),
                &rows[i],
                &h_jac[i],
                1e-10,
            );
        }
    }
}
