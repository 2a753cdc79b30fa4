//! Every hand-written adjoint against finite differences (`mica::check`),
//! and Mica's `_backward` and `_grad` against the hand-written adjoint.

use mica::check::check_gradient;
use mica_benches::{advection, assert_close, course, logistic, mlp, ode, rosenbrock};

#[test]
fn course_loss() {
    let a = 0.7;
    let mut hand = 0.0;
    course::course_hand(a, 1.0, &mut hand);
    check_gradient(|v: &[f64]| course::course(v[0]), &[a], &[hand]).unwrap();
    let mut m = 0.0;
    course::course_backward(a, 1.0, &mut m);
    assert_close("course _backward", &[m], &[hand]);
    assert_close("course _grad", &[course::course_grad(a).1], &[hand]);
}

#[test]
fn extended_rosenbrock() {
    for n in [10, 1000] {
        let x = rosenbrock::start(n);
        let mut hand = vec![0.0; n];
        rosenbrock::rosenbrock_hand(&x, 1.0, &mut hand);
        check_gradient(rosenbrock::rosenbrock, &x, &hand).unwrap();
        let mut m = vec![0.0; n];
        rosenbrock::rosenbrock_backward(&x, 1.0, &mut m);
        assert_close("rosenbrock _backward", &m, &hand);
        assert_close(
            "rosenbrock _grad",
            &rosenbrock::rosenbrock_grad(&x).1,
            &hand,
        );
    }
}

#[test]
fn logistic_regression() {
    let p = logistic::problem(200, 10);
    let mut hw = vec![0.0; 10];
    let mut hb = 0.0;
    logistic::logistic_hand(&p.w, p.b, &p.x, &p.y, 1.0, &mut hw, &mut hb);
    let mut at = p.w.clone();
    at.push(p.b);
    let mut hand = hw.clone();
    hand.push(hb);
    check_gradient(
        |v: &[f64]| logistic::logistic(&v[..10], v[10], &p.x, &p.y),
        &at,
        &hand,
    )
    .unwrap();
    let mut mw = vec![0.0; 10];
    let mut mb = 0.0;
    logistic::logistic_backward(&p.w, p.b, &p.x, &p.y, 1.0, &mut mw, &mut mb);
    mw.push(mb);
    assert_close("logistic _backward", &mw, &hand);
    let (_, (gw, gb)) = logistic::logistic_grad(&p.w, p.b, &p.x, &p.y);
    let mut g = gw;
    g.push(gb);
    assert_close("logistic _grad", &g, &hand);
}

#[test]
fn mlp_batch() {
    let p = mlp::Params::init(7);
    let data = mlp::batch();
    let mut hand = mlp::Params::zeros();
    let lh = mlp::batch_hand(&p, &data, &mut hand);
    assert!((lh - mlp::batch_loss(&p, &data)).abs() < 1e-12);
    check_gradient(
        |v: &[f64]| mlp::batch_loss(&mlp::Params::from_flat(v), &data),
        &p.flat(),
        &hand.flat(),
    )
    .unwrap();
    let mut m = mlp::Params::zeros();
    mlp::batch_mica(&p, &data, &mut m);
    assert_close("mlp _backward", &m.flat(), &hand.flat());
    assert_close(
        "mlp _grad",
        &mlp::batch_mica_grad(&p, &data).1.flat(),
        &hand.flat(),
    );
    let mut s = mlp::Params::zeros();
    mlp::batch_mica_struct(&p, &data, &mut s);
    assert_close("mlp, the struct tracked whole", &s.flat(), &hand.flat());
}

#[test]
fn advection_schemes() {
    let q0 = advection::initial();
    let nt = 200; // finite differences over 2,000 steps are slow in debug
    type Hand = fn(&[f64], usize, f64, f64, &mut [f64]) -> f64;
    type Primal = fn(&[f64], usize, f64) -> f64;
    type Backward = fn(&[f64], usize, f64, f64, &mut [f64]) -> f64;
    let schemes: [(&str, Primal, Hand, Backward); 2] = [
        (
            "lax_wendroff",
            advection::lax_wendroff,
            advection::lax_wendroff_hand,
            advection::lax_wendroff_backward,
        ),
        (
            "toon",
            advection::toon,
            advection::toon_hand,
            advection::toon_backward,
        ),
    ];
    for (name, primal, hand_fn, backward) in schemes {
        let mut hand = vec![0.0; q0.len()];
        let j = hand_fn(&q0, nt, advection::COURANT, 1.0, &mut hand);
        assert!((j - primal(&q0, nt, advection::COURANT)).abs() <= 1e-12 * j.abs());
        check_gradient(|v: &[f64]| primal(v, nt, advection::COURANT), &q0, &hand).unwrap();
        let mut m = vec![0.0; q0.len()];
        backward(&q0, nt, advection::COURANT, 1.0, &mut m);
        assert_close(name, &m, &hand);
    }
}

#[test]
fn damped_oscillator() {
    let obs = ode::observations();
    let (k, c) = (4.0, 0.2);
    let (mut hk, mut hc) = (0.0, 0.0);
    ode::oscillator_hand(k, c, &obs, 1.0, &mut hk, &mut hc);
    check_gradient(
        |v: &[f64]| ode::oscillator(v[0], v[1], &obs),
        &[k, c],
        &[hk, hc],
    )
    .unwrap();
    let (mut mk, mut mc) = (0.0, 0.0);
    ode::oscillator_backward(k, c, &obs, 1.0, &mut mk, &mut mc);
    assert_close("oscillator _backward", &[mk, mc], &[hk, hc]);
    let (_, (gk, gc)) = ode::oscillator_grad(k, c, &obs);
    assert_close("oscillator _grad", &[gk, gc], &[hk, hc]);
}

#[test]
fn helmholtz_energy() {
    use mica_benches::helmholtz;
    let (x, a, b) = helmholtz::problem(100);
    let mut hand = vec![0.0; 100];
    let v = helmholtz::helmholtz_hand(&x, &a, &b, 1.0, &mut hand);
    assert!((v - helmholtz::helmholtz(&x, &a, &b)).abs() <= 1e-12 * v.abs().max(1.0));
    check_gradient(|v: &[f64]| helmholtz::helmholtz(v, &a, &b), &x, &hand).unwrap();
    let mut m = vec![0.0; 100];
    helmholtz::helmholtz_backward(&x, &a, &b, 1.0, &mut m);
    assert_close("helmholtz _backward", &m, &hand);
    assert_close(
        "helmholtz _grad",
        &helmholtz::helmholtz_grad(&x, &a, &b).1,
        &hand,
    );
}

#[test]
fn gmm_objective() {
    use mica_benches::gmm;
    for p in [gmm::problem(), gmm::problem_sized(50, 3, 4)] {
        let (k, d) = (p.k, p.d);
        let hand = p.hand();
        let mut da = vec![0.0; k];
        let mut dm = vec![0.0; k * d];
        let mut di = vec![0.0; p.icf.len()];
        let v = gmm::gmm_hand(
            &p.alphas, &p.means, &p.icf, &p.x, k, d, p.gamma, p.m, 1.0, &mut da, &mut dm, &mut di,
        );
        let primal = gmm::gmm(&p.alphas, &p.means, &p.icf, &p.x, k, d, p.gamma, p.m);
        assert!((v - primal).abs() <= 1e-12 * v.abs().max(1.0));
        check_gradient(|v: &[f64]| p.at(v), &p.flat(), &hand).unwrap();
        assert_close("gmm _backward", &p.mica(), &hand);
        assert_close("gmm _grad", &p.mica_grad(), &hand);
    }
    // the Wishart hyperparameters enter the value and the gradient
    let mut p = gmm::problem_sized(20, 2, 3);
    (p.gamma, p.m) = (1.5, 2.0);
    let hand = p.hand();
    check_gradient(|v: &[f64]| p.at(v), &p.flat(), &hand).unwrap();
    assert_close("gmm _backward (γ, m)", &p.mica(), &hand);
}

#[test]
fn gmm_value_matches_direct_formula() {
    // d = 1, k = 1: the objective by the textbook formula, constants included
    use mica_benches::gmm;
    use std::f64::consts::PI;
    let (alpha, mu, q): (f64, f64, f64) = (0.3, 0.2, -0.4);
    let x = [0.5, -0.1, 1.2];
    let (gamma, m) = (1.3, 1.0);
    let s = q.exp();
    let mut want = 0.0;
    for xi in x {
        // log of a normal density with precision s², log-weight 0
        want += q - 0.5 * (s * (xi - mu)).powi(2) - 0.5 * (2.0 * PI).ln();
    }
    // Wishart (d = 1, n_w = 3): ½γ²s² − m q − [3(ln γ − ½ln2) − ln Γ(3/2)]
    let lgamma_15 = 0.5 * PI.ln() - 2.0_f64.ln();
    want +=
        0.5 * gamma * gamma * s * s - m * q - (3.0 * (gamma.ln() - 0.5 * 2.0_f64.ln()) - lgamma_15);
    let got = gmm::gmm(&[alpha], &[mu], &[q], &x, 1, 1, gamma, m);
    assert!((got - want).abs() < 1e-12, "{got} vs {want}");
}

#[test]
fn kepler_newton() {
    use mica_benches::exits;
    let m = exits::anomalies(50);
    let e = 0.3;
    let mut he = 0.0;
    let mut hm = vec![0.0; m.len()];
    let v = exits::kepler_hand(e, &m, 1.0, &mut he, &mut hm);
    assert!((v - exits::kepler(e, &m)).abs() <= 1e-12 * v.abs());
    let mut all = vec![he];
    all.extend(&hm);
    let mut at = vec![e];
    at.extend(&m);
    check_gradient(|v: &[f64]| exits::kepler(v[0], &v[1..]), &at, &all).unwrap();
    let mut me = 0.0;
    let mut mm = vec![0.0; m.len()];
    exits::kepler_backward(e, &m, 1.0, &mut me, &mut mm);
    let mut mica = vec![me];
    mica.extend(&mm);
    assert_close("kepler _backward", &mica, &all);
}

#[test]
fn masked_sum() {
    use mica_benches::exits;
    let (w, x, mask) = exits::masked_problem(200);
    let mut hand = vec![0.0; w.len()];
    let v = exits::masked_hand(&w, &x, &mask, 1.0, &mut hand);
    assert!((v - exits::masked(&w, &x, &mask)).abs() <= 1e-12 * v.abs().max(1.0));
    check_gradient(|v: &[f64]| exits::masked(v, &x, &mask), &w, &hand).unwrap();
    let mut m = vec![0.0; w.len()];
    exits::masked_backward(&w, &x, &mask, 1.0, &mut m);
    assert_close("masked _backward", &m, &hand);
    assert_close("masked _grad", &exits::masked_grad(&w, &x, &mask).1, &hand);
}

#[test]
fn bundle_adjustment_factored_inline_and_by_hand() {
    use mica_benches::factored::{self, ba};
    let s = factored::scene(4, 12, 3);
    let mut hc = vec![[0.0; 9]; s.cams.len()];
    let mut hp = vec![[0.0; 3]; s.points.len()];
    let v = factored::reprojection_hand(
        &s.cams, &s.points, &s.seen, &s.pixels, 1.0, &mut hc, &mut hp,
    );
    assert!(
        (v - ba::reprojection(&s.cams, &s.points, &s.seen, &s.pixels)).abs() <= 1e-12 * v.abs()
    );
    let points = s.points.clone();
    let at_cams = |v: &[f64]| {
        let cams: Vec<[f64; 9]> = v
            .chunks(9)
            .map(|c| [c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8]])
            .collect();
        ba::reprojection(&cams, &points, &s.seen, &s.pixels)
    };
    check_gradient(at_cams, &s.cams.concat(), &hc.concat()).unwrap();
    let at_points = |v: &[f64]| {
        let points: Vec<[f64; 3]> = v.chunks(3).map(|c| [c[0], c[1], c[2]]).collect();
        ba::reprojection(&s.cams, &points, &s.seen, &s.pixels)
    };
    check_gradient(at_points, &s.points.concat(), &hp.concat()).unwrap();
    let (_, (fc, fp)) = ba::reprojection_grad(&s.cams, &s.points, &s.seen, &s.pixels);
    assert_close("factored cameras", &fc.concat(), &hc.concat());
    assert_close("factored points", &fp.concat(), &hp.concat());
    let (_, (ic, ip)) = factored::reprojection_inline_grad(&s.cams, &s.points, &s.seen, &s.pixels);
    assert_close("inline cameras", &ic.concat(), &hc.concat());
    assert_close("inline points", &ip.concat(), &hp.concat());
}

#[test]
fn rosenbrock_as_a_chain() {
    use mica_benches::{factored, rosenbrock};
    let x = rosenbrock::start(40);
    let mut hand = vec![0.0; x.len()];
    rosenbrock::rosenbrock_hand(&x, 1.0, &mut hand);
    let (v, g) = factored::rosenbrock_chain_grad(&x);
    assert!((v - rosenbrock::rosenbrock(&x)).abs() <= 1e-12 * v.abs());
    assert_close("chain", &g, &hand);
}

#[test]
fn robot_arm_factored_inline_and_by_hand() {
    use mica_benches::factored::{self, arm};
    for n in [1, 3, 7] {
        let (q, lengths, target) = factored::arm(n);
        for shift in [0.0, 0.4, -1.3] {
            let q: Vec<f64> = q
                .iter()
                .enumerate()
                .map(|(j, a)| a + shift * (j as f64 + 1.0).cos())
                .collect();
            let mut hand = vec![0.0; n];
            let v = factored::reach_hand(&q, &lengths, &target, 1.0, &mut hand);
            assert!((v - arm::reach(&q, &lengths, &target)).abs() <= 1e-12 * v.abs().max(1.0));
            check_gradient(|v: &[f64]| arm::reach(v, &lengths, &target), &q, &hand).unwrap();
            let (_, g) = arm::reach_grad(&q, &lengths, &target);
            assert_close("factored arm", &g, &hand);
            let (w, g) = factored::reach_inline_grad(&q, &lengths, &target);
            assert!((w - v).abs() <= 1e-12 * v.abs().max(1.0));
            assert_close("inline arm", &g, &hand);
            // a seed scales the slopes
            let mut scaled = vec![0.0; n];
            factored::reach_hand(&q, &lengths, &target, 2.5, &mut scaled);
            let twice: Vec<f64> = hand.iter().map(|h| 2.5 * h).collect();
            assert_close("seeded arm", &scaled, &twice);
        }
    }
}
