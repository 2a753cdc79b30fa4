//! Programs written by others: the way GradBench, ADBench and numerical
//! code write them, not adapted to what Mica does well. Each has its primal
//! (a `#[tape]` function, or an entry point of a `#[tape] mod` where its
//! authors factor it into helpers), a hand-written adjoint with the
//! signature of Mica's `_backward`, and deterministic data.
//!
//! [`calls`] gives each program's hand-written adjoint against Mica's
//! `_backward`, [`primal_calls`] the primal against Mica's `_backward`
//! (in the `hand` slot), in the same order, for `interleaved outside`.
//!
//! What Mica refused as written: in the LSTM's `predict`, `xp =
//! hidden[i * b..(i + 1) * b].to_vec();` ("no derivative rule for the
//! method `to_vec`"), written as a copy loop (see `lstm.rs`). Helpers that
//! take recorded values must be functions of a `#[tape] mod` (or `#[tape]`
//! themselves): a plain `fn sigmoid` called from a `#[tape]` function is
//! rustc's "cannot find module or crate `sigmoid` in this scope". Idioms
//! tried beside these programs and refused (each a compile error naming
//! it): `for (yi, xi) in y.iter_mut().zip(x) { *yi += … }` on a local
//! array, `min_by(|a, b| a.1.partial_cmp(&b.1).unwrap())` over
//! `(index, distance)` pairs, `split_at_mut` of a local array, `x.windows(2)
//! .map(…).sum()`, a row borrowed as `&mut v[i * n..(i + 1) * n]` and
//! written through, and `[f64; 3]::map`.

pub mod ba;
pub mod chain;
pub mod heat;
pub mod helpers;
pub mod kmeans;
pub mod llsq;
pub mod lse;
pub mod lstm;
pub mod model;
pub mod newton;
pub mod ode;
pub mod rnn;
pub mod rosenbrock;

use crate::calls::Calls;
use mica::Knob;
use std::hint::black_box as bb;

/// Which of a program's three calls.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Side {
    Primal,
    Hand,
    Mica,
}

/// One program: a name and a maker of each of its three calls, each a
/// closure owning its inputs and slots.
struct Program {
    name: &'static str,
    make: fn(Side) -> Box<dyn FnMut()>,
}

fn programs() -> Vec<Program> {
    vec![
        Program {
            name: "GradBench lse, n = 1,000",
            make: |side| {
                let x = lse::input(lse::N);
                let mut d = vec![0.0; x.len()];
                Box::new(move || match side {
                    Side::Primal => {
                        bb(lse::lse(bb(&x)));
                    }
                    Side::Hand => {
                        bb(lse::lse_hand(bb(&x), bb(1.0), &mut d));
                    }
                    Side::Mica => {
                        bb(lse::lse_backward(bb(&x), bb(1.0), &mut d));
                    }
                })
            },
        },
        Program {
            name: "GradBench llsq, n = 1,000, m = 32",
            make: |side| {
                let x = llsq::input(llsq::M);
                let mut d = vec![0.0; x.len()];
                Box::new(move || match side {
                    Side::Primal => {
                        bb(llsq::llsq(bb(&x), bb(llsq::N)));
                    }
                    Side::Hand => {
                        bb(llsq::llsq_hand(bb(&x), bb(llsq::N), bb(1.0), &mut d));
                    }
                    Side::Mica => {
                        bb(llsq::llsq_backward(bb(&x), bb(llsq::N), bb(1.0), &mut d));
                    }
                })
            },
        },
        Program {
            name: "GradBench ode (RK4), n = 10, 1,000 steps",
            make: |side| {
                let x = ode::input(ode::N);
                let mut d = vec![0.0; x.len()];
                Box::new(move || match side {
                    Side::Primal => {
                        bb(ode::ode(bb(&x), bb(ode::STEPS)));
                    }
                    Side::Hand => {
                        bb(ode::ode_hand(bb(&x), bb(ode::STEPS), bb(1.0), &mut d));
                    }
                    Side::Mica => {
                        bb(ode::ode_backward(bb(&x), bb(ode::STEPS), bb(1.0), &mut d));
                    }
                })
            },
        },
        Program {
            name: "ADBench LSTM, l = 2, b = 10, c = 20",
            make: |side| {
                let p = lstm::problem(lstm::L, lstm::C, lstm::B);
                let (mut dm, mut de) = (vec![0.0; p.main.len()], vec![0.0; p.extra.len()]);
                Box::new(move || match side {
                    Side::Primal => {
                        bb(lstm::objective(
                            bb(&p.main),
                            bb(&p.extra),
                            &p.state,
                            &p.sequence,
                            p.l,
                            p.c,
                            p.b,
                        ));
                    }
                    Side::Hand => {
                        bb(lstm::objective_hand(
                            bb(&p.main),
                            bb(&p.extra),
                            &p.state,
                            &p.sequence,
                            p.l,
                            p.c,
                            p.b,
                            bb(1.0),
                            &mut dm,
                            &mut de,
                        ));
                    }
                    Side::Mica => {
                        bb(lstm::objective_backward(
                            bb(&p.main),
                            bb(&p.extra),
                            &p.state,
                            &p.sequence,
                            p.l,
                            p.c,
                            p.b,
                            bb(1.0),
                            &mut dm,
                            &mut de,
                        ));
                    }
                })
            },
        },
        Program {
            name: "ADBench BA objective, 5 cameras, 40 points, 100 obs.",
            make: |side| {
                let s = ba::scene(5, 40, 100);
                let (mut dc, mut dx) = (vec![0.0; s.cams.len()], vec![0.0; s.x.len()]);
                Box::new(move || match side {
                    Side::Primal => {
                        bb(ba::objective(bb(&s.cams), bb(&s.x), &s.w, &s.obs, &s.feats));
                    }
                    Side::Hand => {
                        bb(ba::objective_hand(
                            bb(&s.cams),
                            bb(&s.x),
                            &s.w,
                            &s.obs,
                            &s.feats,
                            bb(1.0),
                            &mut dc,
                            &mut dx,
                        ));
                    }
                    Side::Mica => {
                        bb(ba::objective_backward(
                            bb(&s.cams),
                            bb(&s.x),
                            &s.w,
                            &s.obs,
                            &s.feats,
                            bb(1.0),
                            &mut dc,
                            &mut dx,
                        ));
                    }
                })
            },
        },
        Program {
            name: "k-means objective, K = 8, d = 2, n = 1,000",
            make: |side| {
                let (c, p) = kmeans::problem(kmeans::N, kmeans::K);
                let mut d = vec![0.0; c.len()];
                let (k, dim) = (kmeans::K, kmeans::D);
                Box::new(move || match side {
                    Side::Primal => {
                        bb(kmeans::kmeans(bb(&c), &p, k, dim));
                    }
                    Side::Hand => {
                        bb(kmeans::kmeans_hand(bb(&c), &p, k, dim, bb(1.0), &mut d));
                    }
                    Side::Mica => {
                        bb(kmeans::kmeans_backward(bb(&c), &p, k, dim, bb(1.0), &mut d));
                    }
                })
            },
        },
        Program {
            name: "2-D heat, 64 × 64, 200 steps, knobs u₀ and α",
            make: |side| {
                let u0 = heat::initial(heat::N);
                let (mut du, mut da) = (vec![0.0; u0.len()], 0.0);
                let (n, steps) = (heat::N, heat::STEPS);
                Box::new(move || match side {
                    Side::Primal => {
                        bb(heat::heat(bb(&u0), bb(heat::ALPHA), n, steps));
                    }
                    Side::Hand => {
                        bb(heat::heat_hand(
                            bb(&u0),
                            bb(heat::ALPHA),
                            n,
                            steps,
                            bb(1.0),
                            &mut du,
                            &mut da,
                        ));
                    }
                    Side::Mica => {
                        bb(heat::heat_backward(
                            bb(&u0),
                            bb(heat::ALPHA),
                            n,
                            steps,
                            bb(1.0),
                            &mut du,
                            &mut da,
                        ));
                    }
                })
            },
        },
        Program {
            name: "Chained Rosenbrock, n = 1,000",
            make: |side| {
                let x = rosenbrock::start(rosenbrock::N);
                let mut d = vec![0.0; x.len()];
                Box::new(move || match side {
                    Side::Primal => {
                        bb(rosenbrock::chained_rosenbrock(bb(&x)));
                    }
                    Side::Hand => {
                        bb(rosenbrock::chained_rosenbrock_hand(bb(&x), bb(1.0), &mut d));
                    }
                    Side::Mica => {
                        bb(rosenbrock::chained_rosenbrock_backward(
                            bb(&x),
                            bb(1.0),
                            &mut d,
                        ));
                    }
                })
            },
        },
        Program {
            name: "RNN scan, hidden 8, input 4, 50 steps",
            make: |side| {
                let (w, u, b, xs, target) = rnn::problem();
                let (mut dw, mut du, mut db) =
                    (vec![0.0; w.len()], vec![0.0; u.len()], vec![0.0; b.len()]);
                Box::new(move || match side {
                    Side::Primal => {
                        bb(rnn::rnn(bb(&w), bb(&u), bb(&b), &xs, &target));
                    }
                    Side::Hand => {
                        bb(rnn::rnn_hand(
                            bb(&w),
                            bb(&u),
                            bb(&b),
                            &xs,
                            &target,
                            bb(1.0),
                            &mut dw,
                            &mut du,
                            &mut db,
                        ));
                    }
                    Side::Mica => {
                        bb(rnn::rnn_backward(
                            bb(&w),
                            bb(&u),
                            bb(&b),
                            &xs,
                            &target,
                            bb(1.0),
                            &mut dw,
                            &mut du,
                            &mut db,
                        ));
                    }
                })
            },
        },
        Program {
            name: "Implicit fit by Newton (loop, break), n = 1,000",
            make: |side| {
                let (xs, ys) = newton::data(newton::N);
                let (mut da, mut dk) = (0.0, 0.0);
                Box::new(move || match side {
                    Side::Primal => {
                        bb(newton::implicit_fit(bb(0.4), bb(1.3), &xs, &ys));
                    }
                    Side::Hand => {
                        bb(newton::implicit_fit_hand(
                            bb(0.4),
                            bb(1.3),
                            &xs,
                            &ys,
                            bb(1.0),
                            &mut da,
                            &mut dk,
                        ));
                    }
                    Side::Mica => {
                        bb(newton::implicit_fit_backward(
                            bb(0.4),
                            bb(1.3),
                            &xs,
                            &ys,
                            bb(1.0),
                            &mut da,
                            &mut dk,
                        ));
                    }
                })
            },
        },
        Program {
            name: "Mean squared difference, one iterator chain, n = 10,000",
            make: |side| {
                let (x, y) = chain::input(chain::N);
                let mut d = vec![0.0; x.len()];
                Box::new(move || match side {
                    Side::Primal => {
                        bb(chain::mse(bb(&x), &y));
                    }
                    Side::Hand => {
                        bb(chain::mse_hand(bb(&x), &y, bb(1.0), &mut d));
                    }
                    Side::Mica => {
                        bb(chain::mse_backward(bb(&x), &y, bb(1.0), &mut d));
                    }
                })
            },
        },
        Program {
            name: "Huber regression through helpers, n = 1,000, d = 8",
            make: |side| {
                let (w, xs, ys) = helpers::problem(helpers::N, helpers::D);
                let mut d = vec![0.0; w.len()];
                let (delta, lambda) = (helpers::DELTA, helpers::LAMBDA);
                Box::new(move || match side {
                    Side::Primal => {
                        bb(helpers::robust_loss(bb(&w), &xs, &ys, delta, lambda));
                    }
                    Side::Hand => {
                        bb(helpers::robust_loss_hand(
                            bb(&w),
                            &xs,
                            &ys,
                            delta,
                            lambda,
                            bb(1.0),
                            &mut d,
                        ));
                    }
                    Side::Mica => {
                        bb(helpers::robust_loss_backward(
                            bb(&w),
                            &xs,
                            &ys,
                            delta,
                            lambda,
                            bb(1.0),
                            &mut d,
                        ));
                    }
                })
            },
        },
        Program {
            name: "Struct model (Knob), 4-8-1 tanh, batch 256",
            make: |side| {
                let m = model::Net::init(11);
                let (xs, ys) = model::data(model::N);
                let mut d = m.zeros_like();
                Box::new(move || match side {
                    Side::Primal => {
                        bb(model::net_loss(bb(&m), &xs, &ys));
                    }
                    Side::Hand => {
                        bb(model::net_loss_hand(bb(&m), &xs, &ys, bb(1.0), &mut d));
                    }
                    Side::Mica => {
                        bb(model::net_loss_backward(bb(&m), &xs, &ys, bb(1.0), &mut d));
                    }
                })
            },
        },
        Program {
            name: "Struct model through layer methods, 4-8-1 tanh, batch 256",
            make: |side| {
                let m = model::Layered::from_net(&model::Net::init(11));
                let (xs, ys) = model::data(model::N);
                let mut d = m.zeros_like();
                Box::new(move || match side {
                    Side::Primal => {
                        bb(bb(&m).loss(&xs, &ys));
                    }
                    Side::Hand => {
                        bb(model::layered_loss_hand(bb(&m), &xs, &ys, bb(1.0), &mut d));
                    }
                    Side::Mica => {
                        bb(bb(&m).loss_backward(&xs, &ys, bb(1.0), &mut d));
                    }
                })
            },
        },
    ]
}

/// Each outside program's hand-written adjoint (`hand`) against Mica's
/// `_backward` (`mica`).
pub fn calls() -> Vec<Calls> {
    programs()
        .into_iter()
        .map(|p| Calls {
            name: p.name,
            hand: (p.make)(Side::Hand),
            mica: (p.make)(Side::Mica),
        })
        .collect()
}

/// Each outside program's primal (in the `hand` slot) against Mica's
/// `_backward`, in the order of [`calls`].
pub fn primal_calls() -> Vec<Calls> {
    programs()
        .into_iter()
        .map(|p| Calls {
            name: p.name,
            hand: (p.make)(Side::Primal),
            mica: (p.make)(Side::Mica),
        })
        .collect()
}

/// The Newton fit's second hand-written adjoint, the iterations reversed
/// (`newton::implicit_fit_iterations_hand`), against Mica's `_backward`.
pub fn newton_iterations_calls() -> Calls {
    let (xs, ys) = newton::data(newton::N);
    let (xs2, ys2) = (xs.clone(), ys.clone());
    let (mut da, mut dk, mut ma, mut mk) = (0.0, 0.0, 0.0, 0.0);
    Calls {
        name: "Implicit fit by Newton, against the iterations reversed by hand",
        hand: Box::new(move || {
            bb(newton::implicit_fit_iterations_hand(
                bb(0.4),
                bb(1.3),
                &xs,
                &ys,
                bb(1.0),
                &mut da,
                &mut dk,
            ));
        }),
        mica: Box::new(move || {
            bb(newton::implicit_fit_backward(
                bb(0.4),
                bb(1.3),
                &xs2,
                &ys2,
                bb(1.0),
                &mut ma,
                &mut mk,
            ));
        }),
    }
}

/// The LSTM's second hand-written adjoint, its gates' slopes in the
/// accurate form Mica's adjoint computes (`lstm::objective_hand_accurate`),
/// against Mica's `_backward`.
pub fn lstm_accurate_calls() -> Calls {
    let lstm = programs()
        .into_iter()
        .find(|p| p.name.starts_with("ADBench LSTM"))
        .expect("the LSTM is an outside program");
    let p = lstm::problem(lstm::L, lstm::C, lstm::B);
    let (mut dm, mut de) = (vec![0.0; p.main.len()], vec![0.0; p.extra.len()]);
    Calls {
        name: "ADBench LSTM, against the gates' slopes as σ² exp(−x) by hand",
        hand: Box::new(move || {
            bb(lstm::objective_hand_accurate(
                bb(&p.main),
                bb(&p.extra),
                &p.state,
                &p.sequence,
                p.l,
                p.c,
                p.b,
                bb(1.0),
                &mut dm,
                &mut de,
            ));
        }),
        mica: (lstm.make)(Side::Mica),
    }
}

/// One call of the outside program named `name`: its primal, its
/// hand-written adjoint or Mica's `_backward`, with its inputs and slots.
///
/// # Panics
///
/// If no outside program has that name.
pub fn call(name: &str, side: Side) -> Box<dyn FnMut()> {
    let p = programs()
        .into_iter()
        .find(|p| p.name == name)
        .unwrap_or_else(|| panic!("no outside program named {name:?}"));
    (p.make)(side)
}

/// The outside programs' names, in the report's order.
pub fn names() -> Vec<&'static str> {
    programs().into_iter().map(|p| p.name).collect()
}
