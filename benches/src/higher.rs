//! Forward mode and Hessian-vector products on the suite's programs:
//! `_tangent` against the primal and `_hvp` against `_backward`, each pair
//! a `Calls` whose `hand` is the denominator (what `interleaved higher`
//! times in turns). Then the peers' Hessian-vector products against
//! Mica's (`hvp_peers`), and the bundle-adjustment Jacobian block by Mica
//! against the one written by hand (`ba_jacobians`).

use crate::calls::Calls;
use crate::peers_higher as ph;
use crate::{
    advection, assert_close_within, ba, course, exits, helmholtz, logistic, ode, rosenbrock,
};
use std::hint::black_box as bb;

fn pair(name: &'static str, base: impl FnMut() + 'static, higher: impl FnMut() + 'static) -> Calls {
    Calls {
        name,
        hand: Box::new(base),
        mica: Box::new(higher),
    }
}

/// A direction: alternating signs, decreasing.
pub fn direction(n: usize) -> Vec<f64> {
    (0..n)
        .map(|i| if i % 2 == 0 { 1.0 } else { -0.5 } / (1.0 + i as f64 * 0.01))
        .collect()
}

/// `_tangent` (hand: the primal).
pub fn tangents() -> Vec<Calls> {
    let mut out = Vec::new();
    out.push(pair(
        "Course loss (1 knob)",
        || {
            bb(course::course(bb(0.7)));
        },
        || {
            bb(course::course_tangent(bb(0.7), bb(1.0)));
        },
    ));
    let (x, v) = (rosenbrock::start(1000), direction(1000));
    let x2 = x.clone();
    out.push(pair(
        "Extended Rosenbrock, n = 1,000",
        move || {
            bb(rosenbrock::rosenbrock(bb(&x)));
        },
        move || {
            bb(rosenbrock::rosenbrock_tangent(bb(&x2), &v));
        },
    ));
    let (p, q) = (logistic::problem(1000, 10), logistic::problem(1000, 10));
    let v = direction(10);
    out.push(pair(
        "Logistic regression, 1,000 × 10",
        move || {
            bb(logistic::logistic(bb(&p.w), bb(p.b), &p.x, &p.y));
        },
        move || {
            bb(logistic::logistic_tangent(
                bb(&q.w),
                bb(q.b),
                &q.x,
                &q.y,
                &v,
                0.5,
            ));
        },
    ));
    for (name, primal, tangent) in [
        (
            "Advection, Lax–Wendroff, NX 100, 2,000 steps",
            advection::lax_wendroff as fn(&[f64], usize, f64) -> f64,
            advection::lax_wendroff_tangent as fn(&[f64], usize, f64, &[f64]) -> (f64, f64),
        ),
        (
            "Advection, Toon, NX 100, 2,000 steps",
            advection::toon,
            advection::toon_tangent,
        ),
    ] {
        let (q0, q1) = (advection::initial(), advection::initial());
        let v = direction(q0.len());
        out.push(pair(
            name,
            move || {
                bb(primal(bb(&q0), bb(2000), bb(0.125)));
            },
            move || {
                bb(tangent(bb(&q1), bb(2000), bb(0.125), &v));
            },
        ));
    }
    let (obs, obs2) = (ode::observations(), ode::observations());
    out.push(pair(
        "Damped oscillator, 1,000 steps, 2 knobs",
        move || {
            bb(ode::oscillator(bb(4.0), bb(0.2), &obs));
        },
        move || {
            bb(ode::oscillator_tangent(bb(4.0), bb(0.2), &obs2, 1.0, -0.5));
        },
    ));
    let (m0, m1) = (exits::anomalies(1000), exits::anomalies(1000));
    let v = direction(1000);
    out.push(pair(
        "Kepler's equation by Newton (loop, break), n = 1,000",
        move || {
            bb(exits::kepler(bb(0.3), bb(&m0)));
        },
        move || {
            bb(exits::kepler_tangent(bb(0.3), bb(&m1), 1.0, &v));
        },
    ));
    let (hx, ha, hb) = helmholtz::problem(100);
    let (mx, ma, mb) = helmholtz::problem(100);
    let v = direction(100);
    out.push(pair(
        "Helmholtz free energy, n = 100",
        move || {
            bb(helmholtz::helmholtz(bb(&hx), &ha, &hb));
        },
        move || {
            bb(helmholtz::helmholtz_tangent(bb(&mx), &ma, &mb, &v));
        },
    ));
    out
}

/// `_hvp` (hand: `_backward`).
pub fn hvps() -> Vec<Calls> {
    let mut out = Vec::new();
    let mut dh = 0.0;
    out.push(pair(
        "Course loss (1 knob)",
        move || {
            course::course_backward(bb(0.7), bb(1.0), &mut dh);
        },
        || {
            bb(course::course_hvp(bb(0.7), bb(1.0)));
        },
    ));
    let (x, v) = (rosenbrock::start(1000), direction(1000));
    let x2 = x.clone();
    let mut dx = vec![0.0; 1000];
    out.push(pair(
        "Extended Rosenbrock, n = 1,000",
        move || {
            rosenbrock::rosenbrock_backward(bb(&x), bb(1.0), &mut dx);
        },
        move || {
            bb(rosenbrock::rosenbrock_hvp(bb(&x2), &v));
        },
    ));
    let (p, q) = (logistic::problem(1000, 10), logistic::problem(1000, 10));
    let v = direction(10);
    let (mut hw, mut hb) = (vec![0.0; 10], 0.0);
    out.push(pair(
        "Logistic regression, 1,000 × 10",
        move || {
            logistic::logistic_backward(bb(&p.w), bb(p.b), &p.x, &p.y, bb(1.0), &mut hw, &mut hb);
        },
        move || {
            bb(logistic::logistic_hvp(
                bb(&q.w),
                bb(q.b),
                &q.x,
                &q.y,
                &v,
                0.5,
            ));
        },
    ));
    type Backward = fn(&[f64], usize, f64, f64, &mut [f64]) -> f64;
    type Hvp = fn(&[f64], usize, f64, &[f64]) -> (f64, Vec<f64>, Vec<f64>);
    let schemes: [(&str, Backward, Hvp); 2] = [
        (
            "Advection, Lax–Wendroff, NX 100, 2,000 steps",
            advection::lax_wendroff_backward,
            advection::lax_wendroff_hvp,
        ),
        (
            "Advection, Toon, NX 100, 2,000 steps",
            advection::toon_backward,
            advection::toon_hvp,
        ),
    ];
    for (name, backward, hvp) in schemes {
        let (q0, q1) = (advection::initial(), advection::initial());
        let v = direction(q0.len());
        let mut d = vec![0.0; q0.len()];
        out.push(pair(
            name,
            move || {
                backward(bb(&q0), bb(2000), bb(0.125), bb(1.0), &mut d);
            },
            move || {
                bb(hvp(bb(&q1), bb(2000), bb(0.125), &v));
            },
        ));
    }
    let (obs, obs2) = (ode::observations(), ode::observations());
    let (mut hk, mut hc) = (0.0, 0.0);
    out.push(pair(
        "Damped oscillator, 1,000 steps, 2 knobs",
        move || {
            ode::oscillator_backward(bb(4.0), bb(0.2), &obs, bb(1.0), &mut hk, &mut hc);
        },
        move || {
            bb(ode::oscillator_hvp(bb(4.0), bb(0.2), &obs2, 1.0, -0.5));
        },
    ));
    let (m0, m1) = (exits::anomalies(1000), exits::anomalies(1000));
    let v = direction(1000);
    let (mut he, mut hm) = (0.0, vec![0.0; 1000]);
    out.push(pair(
        "Kepler's equation by Newton (loop, break), n = 1,000",
        move || {
            exits::kepler_backward(bb(0.3), bb(&m0), bb(1.0), &mut he, &mut hm);
        },
        move || {
            bb(exits::kepler_hvp(bb(0.3), bb(&m1), 1.0, &v));
        },
    ));
    let (hx, ha, hb) = helmholtz::problem(100);
    let (mx, ma, mb) = helmholtz::problem(100);
    let v = direction(100);
    let mut d = vec![0.0; 100];
    out.push(pair(
        "Helmholtz free energy, n = 100",
        move || {
            helmholtz::helmholtz_backward(bb(&hx), &ha, &hb, bb(1.0), &mut d);
        },
        move || {
            bb(helmholtz::helmholtz_hvp(bb(&mx), &ma, &mb, &v));
        },
    ));
    out
}

/// The peers' value, gradient and `H·v` on Extended Rosenbrock against
/// Mica's `rosenbrock_hvp`: `hand` holds the peer's call, `mica` Mica's.
/// Each peer's result is checked against Mica's before it is timed.
pub fn hvp_peers() -> Vec<Calls> {
    type Peer = fn(&[f64], &[f64]) -> (f64, Vec<f64>, Vec<f64>);
    let mut out = Vec::new();
    for (n, names) in [
        (
            10,
            [
                "`num-dual` `HyperDual64`, one pass per input, n = 10",
                "`ad_trait` `HyperAD_ADR<1>`, forward over reverse, n = 10",
            ],
        ),
        (
            1000,
            [
                "`num-dual` `HyperDual64`, one pass per input, n = 1,000",
                "`ad_trait` `HyperAD_ADR<1>`, forward over reverse, n = 1,000",
            ],
        ),
    ] {
        let peers: [Peer; 2] = [ph::hvp_num_dual, ph::hvp_ad_trait];
        for (name, peer) in names.into_iter().zip(peers) {
            let (x, v) = (rosenbrock::start(n), direction(n));
            check_hvp(name, peer(&x, &v), &x, &v);
            let (y, w) = (x.clone(), v.clone());
            out.push(pair(
                name,
                move || {
                    bb(peer(bb(&x), bb(&v)));
                },
                move || {
                    bb(rosenbrock::rosenbrock_hvp(bb(&y), bb(&w)));
                },
            ));
        }
        if n == 10 {
            let name =
                "`ad_trait` `FunctionEngine::hessian` (`HessianAD_FOR<10>`), then H·v, n = 10";
            let engine = ph::hessian_engine(n);
            let (x, v) = (rosenbrock::start(n), direction(n));
            check_hvp(name, ph::hvp_ad_trait_hessian(&engine, &x, &v), &x, &v);
            let (y, w) = (x.clone(), v.clone());
            out.push(pair(
                name,
                move || {
                    bb(ph::hvp_ad_trait_hessian(&engine, bb(&x), bb(&v)));
                },
                move || {
                    bb(rosenbrock::rosenbrock_hvp(bb(&y), bb(&w)));
                },
            ));
        }
    }
    out
}

/// Asserts that a peer's value, gradient and `H·v` agree with Mica's
/// `rosenbrock_hvp` within `1e-10` relative.
pub fn check_hvp(name: &str, (value, grad, hv): (f64, Vec<f64>, Vec<f64>), x: &[f64], v: &[f64]) {
    let (m_value, m_grad, m_hv) = rosenbrock::rosenbrock_hvp(x, v);
    assert_close_within(&format!("{name}: value"), &[value], &[m_value], 1e-10);
    assert_close_within(&format!("{name}: gradient"), &grad, &m_grad, 1e-10);
    assert_close_within(&format!("{name}: H·v"), &hv, &m_hv, 1e-10);
}

/// The bundle-adjustment residual's 2 × 15 Jacobian: Mica's
/// `reproject_jacobian`, and the rows from two calls of Mica's
/// `reproject_backward`, against the hand-written one (`hand`), and the
/// hand-written one and Mica's `_jacobian` against the primal (`hand`).
/// Mica's Jacobians are checked against the hand-written one before they
/// are timed.
pub fn ba_jacobians() -> Vec<Calls> {
    let obs = ba::observations(1)[0];
    let (cam, x, w, feat) = obs;
    let (out, jac) = ba::reproject_jacobian(&cam, &x, w, &feat);
    let (h_out, h_jac) = ba::reproject_jacobian_hand(&cam, &x, w, &feat);
    assert_close_within("BA residual", &out, &h_out, 1e-12);
    for (m, h) in jac.iter().zip(&h_jac) {
        assert_close_within("BA Jacobian row", m, h, 1e-10);
    }
    let mica = move || {
        bb(ba::reproject_jacobian(bb(&cam), bb(&x), bb(w), &feat));
    };
    let hand = move || {
        bb(ba::reproject_jacobian_hand(bb(&cam), bb(&x), bb(w), &feat));
    };
    let rows = ba::reproject_jacobian_by_rows(&cam, &x, w, &feat);
    for (m, h) in rows.iter().zip(&h_jac) {
        assert_close_within("BA Jacobian row by `_backward`", m, h, 1e-10);
    }
    let by_rows = move || {
        bb(ba::reproject_jacobian_by_rows(
            bb(&cam),
            bb(&x),
            bb(w),
            &feat,
        ));
    };
    let primal = move || {
        bb(ba::reproject(bb(&cam), bb(&x), bb(w), &feat));
    };
    vec![
        pair("Mica `_jacobian` / hand-written Jacobian", hand, mica),
        pair(
            "Mica `_backward` once per row / hand-written Jacobian",
            hand,
            by_rows,
        ),
        pair("hand-written Jacobian / primal", primal, hand),
        pair("Mica `_jacobian` / primal", primal, mica),
    ]
}
