//! One gradient call per program, hand-written and Mica's, with inputs and
//! slots made beforehand: what `src/bin/memory.rs` (peak heap),
//! `src/bin/instructions.rs` (instruction counts), and the turns and
//! windows of `src/bin/interleaved.rs` and `src/bin/drift.rs` measure.

use crate::peers_ad_trait as adt;
use crate::{
    advection, course, exits, factored, gmm, helmholtz, logistic, mlp, ode, peers, rosenbrock,
};
use std::hint::black_box as bb;
use std::time::{Duration, Instant};

/// Nanoseconds per call over `reps` calls of `f`.
pub fn block(f: &mut dyn FnMut(), reps: u32) -> f64 {
    let start = Instant::now();
    for _ in 0..reps {
        f();
    }
    start.elapsed().as_nanos() as f64 / f64::from(reps)
}

/// How many calls of `f` take about `length`: the first power of two whose
/// block takes at least that long.
pub fn calibrate(f: &mut dyn FnMut(), length: Duration) -> u32 {
    let mut reps = 1u32;
    while block(f, reps) * f64::from(reps) < length.as_nanos() as f64 {
        reps = reps.saturating_mul(2);
    }
    reps
}

/// A program's two gradient calls, each a closure owning its inputs.
pub struct Calls {
    pub name: &'static str,
    pub hand: Box<dyn FnMut()>,
    pub mica: Box<dyn FnMut()>,
}

fn calls(name: &'static str, hand: impl FnMut() + 'static, mica: impl FnMut() + 'static) -> Calls {
    Calls {
        name,
        hand: Box::new(hand),
        mica: Box::new(mica),
    }
}

/// Every program of the suite, in the report's order.
pub fn all() -> Vec<Calls> {
    let mut out = Vec::new();

    let (mut dh, mut dm) = (0.0, 0.0);
    out.push(calls(
        "Course loss (1 knob)",
        move || {
            course::course_hand(bb(0.7), bb(1.0), &mut dh);
        },
        move || {
            course::course_backward(bb(0.7), bb(1.0), &mut dm);
        },
    ));

    for (n, name) in [
        (10, "Extended Rosenbrock, n = 10"),
        (1000, "Extended Rosenbrock, n = 1,000"),
        (100_000, "Extended Rosenbrock, n = 100,000"),
    ] {
        let (x, y) = (rosenbrock::start(n), rosenbrock::start(n));
        let (mut dh, mut dm) = (vec![0.0; n], vec![0.0; n]);
        out.push(calls(
            name,
            move || {
                rosenbrock::rosenbrock_hand(bb(&x), bb(1.0), &mut dh);
            },
            move || {
                rosenbrock::rosenbrock_backward(bb(&y), bb(1.0), &mut dm);
            },
        ));
    }

    for (n, d, name) in [
        (1000, 10, "Logistic regression, 1,000 × 10"),
        (10_000, 100, "Logistic regression, 10,000 × 100"),
    ] {
        let (p, q) = (logistic::problem(n, d), logistic::problem(n, d));
        let (mut hw, mut hb, mut mw, mut mb) = (vec![0.0; d], 0.0, vec![0.0; d], 0.0);
        out.push(calls(
            name,
            move || {
                logistic::logistic_hand(bb(&p.w), bb(p.b), &p.x, &p.y, bb(1.0), &mut hw, &mut hb);
            },
            move || {
                logistic::logistic_backward(
                    bb(&q.w),
                    bb(q.b),
                    &q.x,
                    &q.y,
                    bb(1.0),
                    &mut mw,
                    &mut mb,
                );
            },
        ));
    }

    let (p, data) = (mlp::Params::init(7), mlp::batch());
    let (q, data2) = (mlp::Params::init(7), mlp::batch());
    let (mut gh, mut gm) = (mlp::Params::zeros(), mlp::Params::zeros());
    out.push(calls(
        "MLP 16-32-32-10, tanh, softmax CE, batch 128",
        move || {
            mlp::batch_hand(bb(&p), &data, &mut gh);
        },
        move || {
            mlp::batch_mica(bb(&q), &data2, &mut gm);
        },
    ));

    let (p, data) = (mlp::Params::init(7), mlp::batch());
    let (q, data2) = (mlp::Params::init(7), mlp::batch());
    let (mut gh, mut gm) = (mlp::Params::zeros(), mlp::Params::zeros());
    out.push(calls(
        "MLP 16-32-32-10, its parameters one tracked struct",
        move || {
            mlp::batch_hand(bb(&p), &data, &mut gh);
        },
        move || {
            mlp::batch_mica_struct(bb(&q), &data2, &mut gm);
        },
    ));

    type Scheme = fn(&[f64], usize, f64, f64, &mut [f64]) -> f64;
    let schemes: [(&str, Scheme, Scheme); 2] = [
        (
            "Advection, Lax–Wendroff, NX 100, 2,000 steps",
            advection::lax_wendroff_hand,
            advection::lax_wendroff_backward,
        ),
        (
            "Advection, Toon, NX 100, 2,000 steps",
            advection::toon_hand,
            advection::toon_backward,
        ),
    ];
    for (name, hand, mica) in schemes {
        let (q0, q1) = (advection::initial(), advection::initial());
        let (mut dh, mut dm) = (vec![0.0; q0.len()], vec![0.0; q1.len()]);
        out.push(calls(
            name,
            move || {
                hand(bb(&q0), bb(2000), bb(0.125), bb(1.0), &mut dh);
            },
            move || {
                mica(bb(&q1), bb(2000), bb(0.125), bb(1.0), &mut dm);
            },
        ));
    }

    let (obs, obs2) = (ode::observations(), ode::observations());
    let (mut hk, mut hc, mut mk, mut mc) = (0.0, 0.0, 0.0, 0.0);
    out.push(calls(
        "Damped oscillator, 1,000 steps, 2 knobs",
        move || {
            ode::oscillator_hand(bb(4.0), bb(0.2), &obs, bb(1.0), &mut hk, &mut hc);
        },
        move || {
            ode::oscillator_backward(bb(4.0), bb(0.2), &obs2, bb(1.0), &mut mk, &mut mc);
        },
    ));

    let (m0, m1) = (exits::anomalies(1000), exits::anomalies(1000));
    let (mut he, mut hm, mut me, mut mm) = (0.0, vec![0.0; 1000], 0.0, vec![0.0; 1000]);
    out.push(calls(
        "Kepler's equation by Newton (loop, break), n = 1,000",
        move || {
            exits::kepler_hand(bb(0.3), bb(&m0), bb(1.0), &mut he, &mut hm);
        },
        move || {
            exits::kepler_backward(bb(0.3), bb(&m1), bb(1.0), &mut me, &mut mm);
        },
    ));

    let ((w0, x0, k0), (w1, x1, k1)) =
        (exits::masked_problem(10_000), exits::masked_problem(10_000));
    let (mut dh, mut dm) = (vec![0.0; 10_000], vec![0.0; 10_000]);
    out.push(calls(
        "Masked sum (continue), n = 10,000",
        move || {
            exits::masked_hand(bb(&w0), &x0, &k0, bb(1.0), &mut dh);
        },
        move || {
            exits::masked_backward(bb(&w1), &x1, &k1, bb(1.0), &mut dm);
        },
    ));

    // bundle adjustment through helpers, then written inline: one hand adjoint
    for (name, inline) in [
        (
            "Bundle adjustment, helpers (rodrigues, project), 2,000 obs.",
            false,
        ),
        ("Bundle adjustment, written inline, 2,000 obs.", true),
    ] {
        let (h, m) = (factored::scene(20, 500, 4), factored::scene(20, 500, 4));
        let (mut hc, mut hp) = (vec![[0.0; 9]; 20], vec![[0.0; 3]; 500]);
        let (mut mc, mut mp) = (vec![[0.0; 9]; 20], vec![[0.0; 3]; 500]);
        out.push(calls(
            name,
            move || {
                factored::reprojection_hand(
                    bb(&h.cams),
                    &h.points,
                    &h.seen,
                    &h.pixels,
                    bb(1.0),
                    &mut hc,
                    &mut hp,
                );
            },
            move || {
                if inline {
                    factored::reprojection_inline_backward(
                        bb(&m.cams),
                        &m.points,
                        &m.seen,
                        &m.pixels,
                        bb(1.0),
                        &mut mc,
                        &mut mp,
                    );
                } else {
                    factored::ba::reprojection_backward(
                        bb(&m.cams),
                        &m.points,
                        &m.seen,
                        &m.pixels,
                        bb(1.0),
                        &mut mc,
                        &mut mp,
                    );
                }
            },
        ));
    }

    // a 7-joint arm through helpers, then written inline: one hand adjoint
    for (name, inline) in [
        ("Robot arm, helpers (rot, trans, matmul), 7 joints", false),
        ("Robot arm, written inline, 7 joints", true),
    ] {
        let ((hq, hl, ht), (mq, ml, mt)) = (factored::arm(7), factored::arm(7));
        let (mut dh, mut dm) = (vec![0.0; 7], vec![0.0; 7]);
        out.push(calls(
            name,
            move || {
                factored::reach_hand(bb(&hq), &hl, &ht, bb(1.0), &mut dh);
            },
            move || {
                if inline {
                    factored::reach_inline_backward(bb(&mq), &ml, &mt, bb(1.0), &mut dm);
                } else {
                    factored::arm::reach_backward(bb(&mq), &ml, &mt, bb(1.0), &mut dm);
                }
            },
        ));
    }

    let (x, y) = (rosenbrock::start(10_000), rosenbrock::start(10_000));
    let (mut dh, mut dm) = (vec![0.0; 10_000], vec![0.0; 10_000]);
    out.push(calls(
        "Rosenbrock as an iterator chain, n = 10,000",
        move || {
            rosenbrock::rosenbrock_hand(bb(&x), bb(1.0), &mut dh);
        },
        move || {
            factored::rosenbrock_chain_backward(bb(&y), bb(1.0), &mut dm);
        },
    ));

    let (hx, ha, hb) = helmholtz::problem(100);
    let (mx, ma, mb) = helmholtz::problem(100);
    let (mut dh, mut dm) = (vec![0.0; hx.len()], vec![0.0; mx.len()]);
    out.push(calls(
        "Helmholtz free energy, n = 100",
        move || {
            helmholtz::helmholtz_hand(bb(&hx), &ha, &hb, bb(1.0), &mut dh);
        },
        move || {
            helmholtz::helmholtz_backward(bb(&mx), &ma, &mb, bb(1.0), &mut dm);
        },
    ));

    let (p, q) = (gmm::problem(), gmm::problem());
    let slots = |p: &gmm::Problem| (vec![0.0; p.k], vec![0.0; p.k * p.d], vec![0.0; p.icf.len()]);
    let ((mut ha, mut hm, mut hi), (mut ma, mut mm, mut mi)) = (slots(&p), slots(&q));
    out.push(calls(
        "ADBench GMM, d = 2, K = 5, n = 1,000",
        move || {
            let (k, d) = (p.k, p.d);
            gmm::gmm_hand(
                bb(&p.alphas),
                &p.means,
                &p.icf,
                &p.x,
                k,
                d,
                p.gamma,
                p.m,
                bb(1.0),
                &mut ha,
                &mut hm,
                &mut hi,
            );
        },
        move || {
            let (k, d) = (q.k, q.d);
            gmm::gmm_backward(
                bb(&q.alphas),
                &q.means,
                &q.icf,
                &q.x,
                k,
                d,
                q.gamma,
                q.m,
                bb(1.0),
                &mut ma,
                &mut mm,
                &mut mi,
            );
        },
    ));

    out
}

/// The MLP with its parameters tracked as one `#[derive(Knob)]` struct
/// (the `mica` side) against one tracked parameter per field (the `hand`
/// side): what struct knobs cost.
pub fn structs() -> Vec<Calls> {
    let (p, data) = (mlp::Params::init(7), mlp::batch());
    let (q, data2) = (mlp::Params::init(7), mlp::batch());
    let (mut gf, mut gs) = (mlp::Params::zeros(), mlp::Params::zeros());
    vec![calls(
        "MLP 16-32-32-10, batch 128: struct / one parameter per field",
        move || {
            mlp::batch_mica(bb(&p), &data, &mut gf);
        },
        move || {
            mlp::batch_mica_struct(bb(&q), &data2, &mut gs);
        },
    )]
}

/// The runtime-tape peers against Mica's `_backward` on Extended
/// Rosenbrock, n = 1,000: `hand` holds the peer's call, `mica` Mica's.
pub fn peers() -> Vec<Calls> {
    let n = 1000;
    let mut out = Vec::new();
    type Peer = fn(&[f64]) -> Vec<f64>;
    let peer_calls: [(&'static str, Peer); 2] = [
        (
            "`reverse`, Extended Rosenbrock, n = 1,000",
            peers::rosenbrock_reverse,
        ),
        (
            "`ad_trait`, Extended Rosenbrock, n = 1,000",
            adt::rosenbrock,
        ),
    ];
    for (name, peer) in peer_calls {
        let (x, y) = (rosenbrock::start(n), rosenbrock::start(n));
        let mut dm = vec![0.0; n];
        out.push(calls(
            name,
            move || {
                bb(peer(bb(&x)));
            },
            move || {
                rosenbrock::rosenbrock_backward(bb(&y), bb(1.0), &mut dm);
            },
        ));
    }
    out
}
