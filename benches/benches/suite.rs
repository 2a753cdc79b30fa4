//! The benchmark suite: for each program the primal, the hand-written
//! adjoint, Mica's `_backward` (slots zeroed each time) and `_grad`, and the
//! peers that can express it. Every gradient is checked against the
//! hand-written one (1e-10 relative) before anything is timed.

use criterion::measurement::WallTime;
use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion};
use mica_benches::peers_ad_trait as adt;
use mica_benches::peers_candle as cdl;
use mica_benches::{
    advection, assert_close, assert_close_within, course, exits, factored, gmm, helmholtz,
    logistic, mlp, ode, peers, rosenbrock,
};
use std::hint::black_box;
use std::time::Duration;

/// A group with modest sampling: `samples` samples over `secs` seconds.
fn group<'a>(
    c: &'a mut Criterion,
    name: &str,
    samples: usize,
    secs: u64,
) -> BenchmarkGroup<'a, WallTime> {
    let mut g = c.benchmark_group(name);
    g.sample_size(samples)
        .measurement_time(Duration::from_secs(secs))
        .warm_up_time(Duration::from_millis(500));
    g
}

fn bench_course(c: &mut Criterion) {
    let a = 0.7;
    let mut hand = 0.0;
    course::course_hand(a, 1.0, &mut hand);
    let mut m = 0.0;
    course::course_backward(a, 1.0, &mut m);
    assert_close("course _backward", &[m], &[hand]);
    assert_close("course _grad", &[course::course_grad(a).1], &[hand]);
    assert_close("course reverse", &[peers::course_reverse(a)], &[hand]);
    assert_close("course num-dual", &[peers::course_dual(a)], &[hand]);
    assert_close("course ad_trait", &[adt::course(a)], &[hand]);
    assert_close("course candle", &[cdl::course(a).unwrap()], &[hand]);

    let mut g = group(c, "course", 50, 2);
    g.bench_function("primal", |b| b.iter(|| course::course(black_box(a))));
    g.bench_function("hand", |b| {
        b.iter(|| {
            let mut d = 0.0;
            let v = course::course_hand(black_box(a), 1.0, &mut d);
            (v, d)
        })
    });
    g.bench_function("mica_backward", |b| {
        b.iter(|| {
            let mut d = 0.0;
            let v = course::course_backward(black_box(a), 1.0, &mut d);
            (v, d)
        })
    });
    g.bench_function("mica_grad", |b| {
        b.iter(|| course::course_grad(black_box(a)))
    });
    g.bench_function("reverse", |b| {
        b.iter(|| peers::course_reverse(black_box(a)))
    });
    g.bench_function("num_dual", |b| b.iter(|| peers::course_dual(black_box(a))));
    g.bench_function("ad_trait", |b| b.iter(|| adt::course(black_box(a))));
    g.bench_function("candle", |b| b.iter(|| cdl::course(black_box(a)).unwrap()));
    g.finish();
}

fn bench_rosenbrock(c: &mut Criterion) {
    for (n, samples, secs) in [(10, 50, 2), (1000, 30, 2), (100_000, 15, 3)] {
        let x = rosenbrock::start(n);
        let mut hand = vec![0.0; n];
        rosenbrock::rosenbrock_hand(&x, 1.0, &mut hand);
        let mut m = vec![0.0; n];
        rosenbrock::rosenbrock_backward(&x, 1.0, &mut m);
        assert_close("rosenbrock _backward", &m, &hand);
        assert_close(
            "rosenbrock _grad",
            &rosenbrock::rosenbrock_grad(&x).1,
            &hand,
        );
        assert_close("rosenbrock reverse", &peers::rosenbrock_reverse(&x), &hand);
        assert_close("rosenbrock ad_trait", &adt::rosenbrock(&x), &hand);
        assert_close("rosenbrock candle", &cdl::rosenbrock(&x).unwrap(), &hand);
        if n <= 10 {
            assert_close("rosenbrock num-dual", &peers::rosenbrock_dual(&x), &hand);
        }

        let mut g = group(c, &format!("rosenbrock_n{n}"), samples, secs);
        g.bench_function("primal", |b| {
            b.iter(|| rosenbrock::rosenbrock(black_box(&x)))
        });
        g.bench_function("hand", |b| {
            b.iter(|| {
                m.fill(0.0);
                rosenbrock::rosenbrock_hand(black_box(&x), 1.0, &mut m)
            })
        });
        g.bench_function("mica_backward", |b| {
            b.iter(|| {
                m.fill(0.0);
                rosenbrock::rosenbrock_backward(black_box(&x), 1.0, &mut m)
            })
        });
        g.bench_function("mica_grad", |b| {
            b.iter(|| rosenbrock::rosenbrock_grad(black_box(&x)))
        });
        g.bench_function("reverse", |b| {
            b.iter(|| peers::rosenbrock_reverse(black_box(&x)))
        });
        if n <= 10 {
            g.bench_function("num_dual", |b| {
                b.iter(|| peers::rosenbrock_dual(black_box(&x)))
            });
        }
        g.bench_function("ad_trait", |b| b.iter(|| adt::rosenbrock(black_box(&x))));
        g.bench_function("candle", |b| {
            b.iter(|| cdl::rosenbrock(black_box(&x)).unwrap())
        });
        g.finish();
    }
}

fn bench_logistic(c: &mut Criterion) {
    for (n, d, samples, secs) in [(1000, 10, 30, 2), (10_000, 100, 10, 3)] {
        let p = logistic::problem(n, d);
        let flat = |w: &[f64], b: f64| {
            let mut v = w.to_vec();
            v.push(b);
            v
        };
        let (mut hw, mut hb) = (vec![0.0; d], 0.0);
        logistic::logistic_hand(&p.w, p.b, &p.x, &p.y, 1.0, &mut hw, &mut hb);
        let hand = flat(&hw, hb);
        let (mut mw, mut mb) = (vec![0.0; d], 0.0);
        logistic::logistic_backward(&p.w, p.b, &p.x, &p.y, 1.0, &mut mw, &mut mb);
        assert_close("logistic _backward", &flat(&mw, mb), &hand);
        let (_, (gw, gb)) = logistic::logistic_grad(&p.w, p.b, &p.x, &p.y);
        assert_close("logistic _grad", &flat(&gw, gb), &hand);
        assert_close("logistic reverse", &peers::logistic_reverse(&p), &hand);
        assert_close("logistic ad_trait", &adt::logistic(&p), &hand);
        let tensors = cdl::LogisticData::new(&p).unwrap();
        assert_close("logistic candle", &cdl::logistic(&tensors).unwrap(), &hand);
        if d <= 10 {
            assert_close("logistic num-dual", &peers::logistic_dual(&p), &hand);
        }

        let mut g = group(c, &format!("logistic_{n}x{d}"), samples, secs);
        g.bench_function("primal", |b| {
            b.iter(|| logistic::logistic(black_box(&p.w), p.b, &p.x, &p.y))
        });
        g.bench_function("hand", |b| {
            b.iter(|| {
                mw.fill(0.0);
                mb = 0.0;
                logistic::logistic_hand(black_box(&p.w), p.b, &p.x, &p.y, 1.0, &mut mw, &mut mb)
            })
        });
        g.bench_function("mica_backward", |b| {
            b.iter(|| {
                mw.fill(0.0);
                mb = 0.0;
                logistic::logistic_backward(black_box(&p.w), p.b, &p.x, &p.y, 1.0, &mut mw, &mut mb)
            })
        });
        g.bench_function("mica_grad", |b| {
            b.iter(|| logistic::logistic_grad(black_box(&p.w), p.b, &p.x, &p.y))
        });
        g.bench_function("reverse", |b| {
            b.iter(|| peers::logistic_reverse(black_box(&p)))
        });
        if d <= 10 {
            g.bench_function("num_dual", |b| {
                b.iter(|| peers::logistic_dual(black_box(&p)))
            });
        }
        g.bench_function("ad_trait", |b| b.iter(|| adt::logistic(black_box(&p))));
        g.bench_function("candle", |b| {
            b.iter(|| cdl::logistic(black_box(&tensors)).unwrap())
        });
        g.finish();
    }
}

fn bench_mlp(c: &mut Criterion) {
    let p = mlp::Params::init(7);
    let data = mlp::batch();
    let mut hand = mlp::Params::zeros();
    mlp::batch_hand(&p, &data, &mut hand);
    let mut m = mlp::Params::zeros();
    mlp::batch_mica(&p, &data, &mut m);
    assert_close("mlp _backward", &m.flat(), &hand.flat());
    assert_close(
        "mlp _grad",
        &mlp::batch_mica_grad(&p, &data).1.flat(),
        &hand.flat(),
    );
    assert_close("mlp reverse", &peers::mlp_reverse(&p, &data), &hand.flat());
    assert_close("mlp ad_trait", &adt::mlp(&p, &data), &hand.flat());
    let tensors = cdl::MlpData::new(&data).unwrap();
    assert_close("mlp candle", &cdl::mlp(&p, &tensors).unwrap(), &hand.flat());

    let mut g = group(c, "mlp_b128", 20, 3);
    g.bench_function("primal", |b| {
        b.iter(|| mlp::batch_loss(black_box(&p), &data))
    });
    g.bench_function("hand", |b| {
        b.iter(|| {
            m.clear();
            mlp::batch_hand(black_box(&p), &data, &mut m)
        })
    });
    g.bench_function("mica_backward", |b| {
        b.iter(|| {
            m.clear();
            mlp::batch_mica(black_box(&p), &data, &mut m)
        })
    });
    g.bench_function("mica_grad", |b| {
        b.iter(|| mlp::batch_mica_grad(black_box(&p), &data))
    });
    g.bench_function("reverse", |b| {
        b.iter(|| peers::mlp_reverse(black_box(&p), &data))
    });
    g.bench_function("ad_trait", |b| b.iter(|| adt::mlp(black_box(&p), &data)));
    g.bench_function("candle", |b| {
        b.iter(|| cdl::mlp(black_box(&p), &tensors).unwrap())
    });
    g.finish();
}

type Scheme = fn(&[f64], usize, f64) -> f64;
type SchemeAdjoint = fn(&[f64], usize, f64, f64, &mut [f64]) -> f64;
type SchemePeer = fn(&[f64], usize, f64) -> Vec<f64>;

fn lax_wendroff_candle(q0: &[f64], nt: usize, c: f64) -> Vec<f64> {
    cdl::lax_wendroff(q0, nt, c).unwrap()
}

fn bench_advection(c: &mut Criterion) {
    let q0 = advection::initial();
    let (nt, cn) = (advection::NT, advection::COURANT);
    #[allow(clippy::type_complexity)]
    let schemes: [(
        &str,
        Scheme,
        SchemeAdjoint,
        SchemeAdjoint,
        SchemePeer,
        SchemePeer,
        Option<SchemePeer>,
    ); 2] = [
        (
            "lax_wendroff",
            advection::lax_wendroff,
            advection::lax_wendroff_hand,
            advection::lax_wendroff_backward,
            peers::lax_wendroff_reverse,
            adt::lax_wendroff,
            Some(lax_wendroff_candle),
        ),
        (
            "toon",
            advection::toon,
            advection::toon_hand,
            advection::toon_backward,
            peers::toon_reverse,
            adt::toon,
            None,
        ),
    ];
    for (name, primal, hand_fn, backward, reverse, ad_trait, candle) in schemes {
        let mut hand = vec![0.0; q0.len()];
        hand_fn(&q0, nt, cn, 1.0, &mut hand);
        let mut m = vec![0.0; q0.len()];
        backward(&q0, nt, cn, 1.0, &mut m);
        assert_close(&format!("{name} mica"), &m, &hand);
        // Toon's flux `(e − 1) ab / (a − b)` cancels as neighbours converge:
        // over 2,000 steps any two correct evaluation orders (and finite
        // differences) agree only to about 1e-5, so the peer is held to 1e-4
        let tol = if name == "toon" { 1e-4 } else { 1e-10 };
        assert_close_within(
            &format!("{name} reverse"),
            &reverse(&q0, nt, cn),
            &hand,
            tol,
        );
        assert_close_within(
            &format!("{name} ad_trait"),
            &ad_trait(&q0, nt, cn),
            &hand,
            tol,
        );
        if let Some(candle) = candle {
            assert_close_within(&format!("{name} candle"), &candle(&q0, nt, cn), &hand, tol);
        }

        let mut g = group(c, &format!("{name}_nx100_nt2000"), 15, 3);
        g.bench_function("primal", |b| b.iter(|| primal(black_box(&q0), nt, cn)));
        g.bench_function("hand", |b| {
            b.iter(|| {
                m.fill(0.0);
                hand_fn(black_box(&q0), nt, cn, 1.0, &mut m)
            })
        });
        g.bench_function("mica_backward", |b| {
            b.iter(|| {
                m.fill(0.0);
                backward(black_box(&q0), nt, cn, 1.0, &mut m)
            })
        });
        g.bench_function("reverse", |b| b.iter(|| reverse(black_box(&q0), nt, cn)));
        g.bench_function("ad_trait", |b| b.iter(|| ad_trait(black_box(&q0), nt, cn)));
        if let Some(candle) = candle {
            g.bench_function("candle", |b| b.iter(|| candle(black_box(&q0), nt, cn)));
        }
        g.finish();
    }
}

fn bench_ode(c: &mut Criterion) {
    let obs = ode::observations();
    let (k, cc) = (4.0, 0.2);
    let (mut hk, mut hc) = (0.0, 0.0);
    ode::oscillator_hand(k, cc, &obs, 1.0, &mut hk, &mut hc);
    let hand = [hk, hc];
    let (mut mk, mut mc) = (0.0, 0.0);
    ode::oscillator_backward(k, cc, &obs, 1.0, &mut mk, &mut mc);
    assert_close("oscillator _backward", &[mk, mc], &hand);
    let (_, (gk, gc)) = ode::oscillator_grad(k, cc, &obs);
    assert_close("oscillator _grad", &[gk, gc], &hand);
    assert_close(
        "oscillator reverse",
        &peers::oscillator_reverse(k, cc, &obs),
        &hand,
    );
    assert_close(
        "oscillator num-dual",
        &peers::oscillator_dual(k, cc, &obs),
        &hand,
    );
    assert_close("oscillator ad_trait", &adt::oscillator(k, cc, &obs), &hand);

    let mut g = group(c, "oscillator_1000", 30, 2);
    g.bench_function("primal", |b| {
        b.iter(|| ode::oscillator(black_box(k), cc, &obs))
    });
    g.bench_function("hand", |b| {
        b.iter(|| {
            let (mut dk, mut dc) = (0.0, 0.0);
            let v = ode::oscillator_hand(black_box(k), cc, &obs, 1.0, &mut dk, &mut dc);
            (v, dk, dc)
        })
    });
    g.bench_function("mica_backward", |b| {
        b.iter(|| {
            let (mut dk, mut dc) = (0.0, 0.0);
            let v = ode::oscillator_backward(black_box(k), cc, &obs, 1.0, &mut dk, &mut dc);
            (v, dk, dc)
        })
    });
    g.bench_function("mica_grad", |b| {
        b.iter(|| ode::oscillator_grad(black_box(k), cc, &obs))
    });
    g.bench_function("reverse", |b| {
        b.iter(|| peers::oscillator_reverse(black_box(k), cc, &obs))
    });
    g.bench_function("num_dual", |b| {
        b.iter(|| peers::oscillator_dual(black_box(k), cc, &obs))
    });
    g.bench_function("ad_trait", |b| {
        b.iter(|| adt::oscillator(black_box(k), cc, &obs))
    });
    g.finish();
}

fn bench_helmholtz(c: &mut Criterion) {
    let (x, a, bv) = helmholtz::problem(100);
    let mut hand = vec![0.0; 100];
    helmholtz::helmholtz_hand(&x, &a, &bv, 1.0, &mut hand);
    let mut m = vec![0.0; 100];
    helmholtz::helmholtz_backward(&x, &a, &bv, 1.0, &mut m);
    assert_close("helmholtz _backward", &m, &hand);
    assert_close(
        "helmholtz _grad",
        &helmholtz::helmholtz_grad(&x, &a, &bv).1,
        &hand,
    );
    assert_close(
        "helmholtz reverse",
        &peers::helmholtz_reverse(&x, &a, &bv),
        &hand,
    );
    assert_close("helmholtz ad_trait", &adt::helmholtz(&x, &a, &bv), &hand);

    let mut g = group(c, "helmholtz_n100", 30, 2);
    g.bench_function("primal", |b| {
        b.iter(|| helmholtz::helmholtz(black_box(&x), &a, &bv))
    });
    g.bench_function("hand", |b| {
        b.iter(|| {
            m.fill(0.0);
            helmholtz::helmholtz_hand(black_box(&x), &a, &bv, 1.0, &mut m)
        })
    });
    g.bench_function("mica_backward", |b| {
        b.iter(|| {
            m.fill(0.0);
            helmholtz::helmholtz_backward(black_box(&x), &a, &bv, 1.0, &mut m)
        })
    });
    g.bench_function("mica_grad", |b| {
        b.iter(|| helmholtz::helmholtz_grad(black_box(&x), &a, &bv))
    });
    g.bench_function("reverse", |b| {
        b.iter(|| peers::helmholtz_reverse(black_box(&x), &a, &bv))
    });
    g.bench_function("ad_trait", |b| {
        b.iter(|| adt::helmholtz(black_box(&x), &a, &bv))
    });
    g.finish();
}

fn bench_gmm(c: &mut Criterion) {
    let p = gmm::problem();
    let (k, d) = (p.k, p.d);
    let hand = p.hand();
    assert_close("gmm _backward", &p.mica(), &hand);
    assert_close("gmm _grad", &p.mica_grad(), &hand);
    assert_close("gmm reverse", &peers::gmm_reverse(&p), &hand);
    assert_close("gmm ad_trait", &adt::gmm(&p), &hand);
    let tensors = cdl::GmmData::new(&p).unwrap();
    assert_close("gmm candle", &cdl::gmm(&p, &tensors).unwrap(), &hand);
    // num-dual: 30 inputs, so not run (one forward pass per input)

    let (mut da, mut dm, mut di) = (vec![0.0; k], vec![0.0; k * d], vec![0.0; p.icf.len()]);
    let mut g = group(c, "gmm_d2_k5_n1000", 30, 2);
    g.bench_function("primal", |b| {
        b.iter(|| {
            gmm::gmm(
                black_box(&p.alphas),
                &p.means,
                &p.icf,
                &p.x,
                k,
                d,
                p.gamma,
                p.m,
            )
        })
    });
    g.bench_function("hand", |b| {
        b.iter(|| {
            da.fill(0.0);
            dm.fill(0.0);
            di.fill(0.0);
            gmm::gmm_hand(
                black_box(&p.alphas),
                &p.means,
                &p.icf,
                &p.x,
                k,
                d,
                p.gamma,
                p.m,
                1.0,
                &mut da,
                &mut dm,
                &mut di,
            )
        })
    });
    g.bench_function("mica_backward", |b| {
        b.iter(|| {
            da.fill(0.0);
            dm.fill(0.0);
            di.fill(0.0);
            gmm::gmm_backward(
                black_box(&p.alphas),
                &p.means,
                &p.icf,
                &p.x,
                k,
                d,
                p.gamma,
                p.m,
                1.0,
                &mut da,
                &mut dm,
                &mut di,
            )
        })
    });
    g.bench_function("mica_grad", |b| {
        b.iter(|| {
            gmm::gmm_grad(
                black_box(&p.alphas),
                &p.means,
                &p.icf,
                &p.x,
                k,
                d,
                p.gamma,
                p.m,
            )
        })
    });
    g.bench_function("reverse", |b| b.iter(|| peers::gmm_reverse(black_box(&p))));
    g.bench_function("ad_trait", |b| b.iter(|| adt::gmm(black_box(&p))));
    g.bench_function("candle", |b| {
        b.iter(|| cdl::gmm(black_box(&p), &tensors).unwrap())
    });
    g.finish();
}

/// The four variants of a program without peers: the primal, the
/// hand-written adjoint, Mica's `_backward` (each adjoint clearing its
/// slots first) and `_grad`.
fn variants<A, B, C, D>(
    g: &mut BenchmarkGroup<'_, WallTime>,
    mut primal: impl FnMut() -> A,
    mut hand: impl FnMut() -> B,
    mut backward: impl FnMut() -> C,
    mut grad: impl FnMut() -> D,
) {
    g.bench_function("primal", |b| b.iter(&mut primal));
    g.bench_function("hand", |b| b.iter(&mut hand));
    g.bench_function("mica_backward", |b| b.iter(&mut backward));
    g.bench_function("mica_grad", |b| b.iter(&mut grad));
}

/// Loops that end early: Kepler's equation by Newton (`loop`, `break`) and
/// a masked sum (`continue`).
fn bench_exits(c: &mut Criterion) {
    let m = exits::anomalies(1000);
    let (mut he, mut hm) = (0.0, vec![0.0; m.len()]);
    exits::kepler_hand(0.3, &m, 1.0, &mut he, &mut hm);
    let (_, (ge, gm)) = exits::kepler_grad(0.3, &m);
    assert_close("kepler _grad e", &[ge], &[he]);
    assert_close("kepler _grad m", &gm, &hm);
    let mut dm = hm.clone();
    let mut g = group(c, "kepler_n1000", 30, 2);
    variants(
        &mut g,
        || exits::kepler(black_box(0.3), &m),
        || {
            let mut de = 0.0;
            hm.fill(0.0);
            exits::kepler_hand(black_box(0.3), &m, 1.0, &mut de, &mut hm)
        },
        || {
            let mut de = 0.0;
            dm.fill(0.0);
            exits::kepler_backward(black_box(0.3), &m, 1.0, &mut de, &mut dm)
        },
        || exits::kepler_grad(black_box(0.3), &m),
    );
    g.finish();

    let (w, x, mask) = exits::masked_problem(10_000);
    let mut dh = vec![0.0; w.len()];
    exits::masked_hand(&w, &x, &mask, 1.0, &mut dh);
    assert_close("masked _grad", &exits::masked_grad(&w, &x, &mask).1, &dh);
    let mut dm = dh.clone();
    let mut g = group(c, "masked_n10000", 30, 2);
    variants(
        &mut g,
        || exits::masked(black_box(&w), &x, &mask),
        || {
            dh.fill(0.0);
            exits::masked_hand(black_box(&w), &x, &mask, 1.0, &mut dh)
        },
        || {
            dm.fill(0.0);
            exits::masked_backward(black_box(&w), &x, &mask, 1.0, &mut dm)
        },
        || exits::masked_grad(black_box(&w), &x, &mask),
    );
    g.finish();
}

/// Code factored into helpers, against the same lines written inline and
/// one hand adjoint: bundle adjustment and the robot arm; and Rosenbrock as
/// an iterator chain.
fn bench_factored(c: &mut Criterion) {
    let s = factored::scene(20, 500, 4);
    let (mut hc, mut hp) = (vec![[0.0; 9]; 20], vec![[0.0; 3]; 500]);
    factored::reprojection_hand(
        &s.cams, &s.points, &s.seen, &s.pixels, 1.0, &mut hc, &mut hp,
    );
    let (_, (fc, fp)) = factored::ba::reprojection_grad(&s.cams, &s.points, &s.seen, &s.pixels);
    assert_close("ba helpers cameras", &fc.concat(), &hc.concat());
    assert_close("ba helpers points", &fp.concat(), &hp.concat());
    let (_, (ic, ip)) = factored::reprojection_inline_grad(&s.cams, &s.points, &s.seen, &s.pixels);
    assert_close("ba inline cameras", &ic.concat(), &hc.concat());
    assert_close("ba inline points", &ip.concat(), &hp.concat());
    let (mut mc, mut mp) = (hc.clone(), hp.clone());
    let mut hand = || {
        hc.fill([0.0; 9]);
        hp.fill([0.0; 3]);
        factored::reprojection_hand(
            black_box(&s.cams),
            &s.points,
            &s.seen,
            &s.pixels,
            1.0,
            &mut hc,
            &mut hp,
        )
    };
    let mut g = group(c, "ba_helpers_2000", 30, 2);
    variants(
        &mut g,
        || factored::ba::reprojection(black_box(&s.cams), &s.points, &s.seen, &s.pixels),
        &mut hand,
        || {
            mc.fill([0.0; 9]);
            mp.fill([0.0; 3]);
            factored::ba::reprojection_backward(
                black_box(&s.cams),
                &s.points,
                &s.seen,
                &s.pixels,
                1.0,
                &mut mc,
                &mut mp,
            )
        },
        || factored::ba::reprojection_grad(black_box(&s.cams), &s.points, &s.seen, &s.pixels),
    );
    g.finish();
    let mut g = group(c, "ba_inline_2000", 30, 2);
    variants(
        &mut g,
        || factored::reprojection_inline(black_box(&s.cams), &s.points, &s.seen, &s.pixels),
        &mut hand,
        || {
            mc.fill([0.0; 9]);
            mp.fill([0.0; 3]);
            factored::reprojection_inline_backward(
                black_box(&s.cams),
                &s.points,
                &s.seen,
                &s.pixels,
                1.0,
                &mut mc,
                &mut mp,
            )
        },
        || factored::reprojection_inline_grad(black_box(&s.cams), &s.points, &s.seen, &s.pixels),
    );
    g.finish();

    let (q, lengths, target) = factored::arm(7);
    let mut dh = vec![0.0; 7];
    factored::reach_hand(&q, &lengths, &target, 1.0, &mut dh);
    assert_close(
        "arm helpers",
        &factored::arm::reach_grad(&q, &lengths, &target).1,
        &dh,
    );
    assert_close(
        "arm inline",
        &factored::reach_inline_grad(&q, &lengths, &target).1,
        &dh,
    );
    let mut dm = dh.clone();
    let mut hand = || {
        dh.fill(0.0);
        factored::reach_hand(black_box(&q), &lengths, &target, 1.0, &mut dh)
    };
    let mut g = group(c, "robot_helpers_7", 30, 2);
    variants(
        &mut g,
        || factored::arm::reach(black_box(&q), &lengths, &target),
        &mut hand,
        || {
            dm.fill(0.0);
            factored::arm::reach_backward(black_box(&q), &lengths, &target, 1.0, &mut dm)
        },
        || factored::arm::reach_grad(black_box(&q), &lengths, &target),
    );
    g.finish();
    let mut g = group(c, "robot_inline_7", 30, 2);
    variants(
        &mut g,
        || factored::reach_inline(black_box(&q), &lengths, &target),
        &mut hand,
        || {
            dm.fill(0.0);
            factored::reach_inline_backward(black_box(&q), &lengths, &target, 1.0, &mut dm)
        },
        || factored::reach_inline_grad(black_box(&q), &lengths, &target),
    );
    g.finish();

    let x = rosenbrock::start(10_000);
    let mut dh = vec![0.0; x.len()];
    rosenbrock::rosenbrock_hand(&x, 1.0, &mut dh);
    assert_close("chain _grad", &factored::rosenbrock_chain_grad(&x).1, &dh);
    let mut dm = dh.clone();
    let mut g = group(c, "rosenbrock_chain_n10000", 30, 2);
    variants(
        &mut g,
        || factored::rosenbrock_chain(black_box(&x)),
        || {
            dh.fill(0.0);
            rosenbrock::rosenbrock_hand(black_box(&x), 1.0, &mut dh)
        },
        || {
            dm.fill(0.0);
            factored::rosenbrock_chain_backward(black_box(&x), 1.0, &mut dm)
        },
        || factored::rosenbrock_chain_grad(black_box(&x)),
    );
    g.finish();
}

criterion_group!(
    suite,
    bench_course,
    bench_rosenbrock,
    bench_logistic,
    bench_mlp,
    bench_advection,
    bench_ode,
    bench_helmholtz,
    bench_gmm,
    bench_exits,
    bench_factored
);
criterion_main!(suite);
