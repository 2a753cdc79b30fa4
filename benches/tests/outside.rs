//! The outside programs (`src/outside/`): each hand-written adjoint against
//! finite differences, then Mica's `_backward` against the hand-written
//! adjoint, and every returned value against the primal's.
//!
//! Finite differences here are five-point central differences (error
//! `O(h⁴)`) with `h = 1e-5 (1 + |x_i|)`, so that a slope is held to `1e-6`
//! relative; rounding in the differences, about `ε |f| / h`, is allowed
//! for by an absolute floor of `1e-9 · max(1, |f|)`. Each program is checked
//! coordinate by coordinate (on a sample of coordinates for the 4,097 knobs
//! of the heat equation) and along one direction that moves every knob at
//! once, against the gradient's dot product with it.

use mica_benches::data::Lcg;
use mica_benches::outside::{
    ba, chain, heat, helpers, kmeans, llsq, lse, lstm, model, newton, ode, rnn, rosenbrock,
};

/// Five-point central difference of `f` at `at` along `dir` with step `h`.
fn slope_along(f: &dyn Fn(&[f64]) -> f64, at: &[f64], dir: &[f64], h: f64) -> f64 {
    let at_s = |s: f64| {
        let x: Vec<f64> = at.iter().zip(dir).map(|(a, d)| a + s * d).collect();
        f(&x)
    };
    (at_s(-2.0 * h) - 8.0 * at_s(-h) + 8.0 * at_s(h) - at_s(2.0 * h)) / (12.0 * h)
}

/// Checks `claimed` (the gradient of `f` at `at`) against finite
/// differences: at the coordinates `which` (all when `None`), and along a
/// direction with every component in `[-1, 1)`.
fn check_fd(
    what: &str,
    f: &dyn Fn(&[f64]) -> f64,
    at: &[f64],
    claimed: &[f64],
    which: Option<Vec<usize>>,
) {
    assert_eq!(at.len(), claimed.len(), "{what}: lengths");
    let tol = 1e-6;
    let floor = 1e-9 * f(at).abs().max(1.0);
    let idx = which.unwrap_or_else(|| (0..at.len()).collect());
    for i in idx {
        let mut e = vec![0.0; at.len()];
        e[i] = 1.0;
        let fd = slope_along(f, at, &e, 1e-5 * (1.0 + at[i].abs()));
        let c = claimed[i];
        assert!(
            (c - fd).abs() <= tol * c.abs().max(fd.abs()) + floor,
            "{what}: slope {i} is {c:e}, finite differences give {fd:e}"
        );
    }
    let mut g = Lcg::new(at.len() as u64);
    let dir = g.vec(at.len(), -1.0, 1.0);
    let scale = at.iter().fold(0.0_f64, |m, a| m.max(a.abs())) + 1.0;
    let fd = slope_along(f, at, &dir, 1e-5 * scale);
    let c: f64 = claimed.iter().zip(&dir).map(|(a, b)| a * b).sum();
    let size: f64 = claimed.iter().zip(&dir).map(|(a, b)| (a * b).abs()).sum();
    assert!(
        (c - fd).abs() <= tol * size.max(fd.abs()) + floor,
        "{what}: the slope along a direction is {c:e}, finite differences give {fd:e}"
    );
}

/// Asserts `|a_i − b_i| ≤ tol · max_k |b_k|` for every `i`: relative to the
/// gradient's largest slope, so that small gradients are held as tightly
/// as large ones.
fn assert_agree(what: &str, a: &[f64], b: &[f64], tol: f64) {
    assert_eq!(a.len(), b.len(), "{what}: lengths");
    let top = b.iter().fold(0.0_f64, |m, v| m.max(v.abs()));
    assert!(top > 0.0, "{what}: a zero gradient");
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert!(
            (x - y).abs() <= tol * top,
            "{what}: slope {i} is {x:e} against {y:e} (largest slope {top:e})"
        );
    }
}

/// Asserts two values agree to `1e-12` relative.
fn same_value(what: &str, a: f64, b: f64) {
    assert!(
        (a - b).abs() <= 1e-12 * a.abs().max(b.abs()).max(1e-300),
        "{what}: value {a:e} against the primal's {b:e}"
    );
}

#[test]
fn gradbench_lse() {
    let x = lse::input(lse::N);
    let mut hand = vec![0.0; x.len()];
    let v = lse::lse_hand(&x, 1.0, &mut hand);
    same_value("lse hand", v, lse::lse(&x));
    check_fd("lse hand", &lse::lse, &x, &hand, None);
    let mut m = vec![0.0; x.len()];
    same_value("lse mica", lse::lse_backward(&x, 1.0, &mut m), v);
    // Mica also carries the maximum's slope, 1 − Σ softmax: zero up to rounding
    assert_agree("lse _backward", &m, &hand, 1e-10);
}

#[test]
fn gradbench_llsq() {
    let x = llsq::input(llsq::M);
    let mut hand = vec![0.0; x.len()];
    let v = llsq::llsq_hand(&x, llsq::N, 1.0, &mut hand);
    same_value("llsq hand", v, llsq::llsq(&x, llsq::N));
    check_fd("llsq hand", &|x| llsq::llsq(x, llsq::N), &x, &hand, None);
    let mut m = vec![0.0; x.len()];
    same_value(
        "llsq mica",
        llsq::llsq_backward(&x, llsq::N, 1.0, &mut m),
        v,
    );
    assert_agree("llsq _backward", &m, &hand, 1e-10);
}

#[test]
fn gradbench_ode() {
    let x = ode::input(ode::N);
    for steps in [10, ode::STEPS] {
        let mut hand = vec![0.0; x.len()];
        let v = ode::ode_hand(&x, steps, 1.0, &mut hand);
        same_value("ode hand", v, ode::ode(&x, steps));
        check_fd("ode hand", &|x| ode::ode(x, steps), &x, &hand, None);
        let mut m = vec![0.0; x.len()];
        same_value("ode mica", ode::ode_backward(&x, steps, 1.0, &mut m), v);
        assert_agree("ode _backward", &m, &hand, 1e-10);
    }
}

#[test]
fn adbench_lstm() {
    for (l, c, b) in [(lstm::L, lstm::C, lstm::B), (3, 5, 4)] {
        let p = lstm::problem(l, c, b);
        let (mut hm, mut he) = (vec![0.0; p.main.len()], vec![0.0; p.extra.len()]);
        let v = lstm::objective_hand(
            &p.main,
            &p.extra,
            &p.state,
            &p.sequence,
            l,
            c,
            b,
            1.0,
            &mut hm,
            &mut he,
        );
        same_value(
            "lstm hand",
            v,
            lstm::objective(&p.main, &p.extra, &p.state, &p.sequence, l, c, b),
        );
        let nm = p.main.len();
        let at = [p.main.clone(), p.extra.clone()].concat();
        let hand = [hm.clone(), he.clone()].concat();
        let f = |v: &[f64]| lstm::objective(&v[..nm], &v[nm..], &p.state, &p.sequence, l, c, b);
        check_fd("lstm hand", &f, &at, &hand, None);
        let (mut mm, mut me) = (vec![0.0; p.main.len()], vec![0.0; p.extra.len()]);
        let w = lstm::objective_backward(
            &p.main,
            &p.extra,
            &p.state,
            &p.sequence,
            l,
            c,
            b,
            1.0,
            &mut mm,
            &mut me,
        );
        same_value("lstm mica", w, v);
        assert_agree("lstm _backward", &[mm, me].concat(), &hand, 1e-10);
        // the second hand adjoint, its gates' slopes as `σ² exp(−x)`
        let (mut am, mut ae) = (vec![0.0; p.main.len()], vec![0.0; p.extra.len()]);
        let u = lstm::objective_hand_accurate(
            &p.main,
            &p.extra,
            &p.state,
            &p.sequence,
            l,
            c,
            b,
            1.0,
            &mut am,
            &mut ae,
        );
        same_value("lstm hand, accurate form", u, v);
        let accurate = [am, ae].concat();
        check_fd("lstm hand, accurate form", &f, &at, &accurate, None);
        assert_agree("lstm hand, accurate form", &accurate, &hand, 1e-10);
    }
}

#[test]
fn adbench_ba_objective() {
    let s = ba::scene(5, 40, 100);
    let (mut hc, mut hx) = (vec![0.0; s.cams.len()], vec![0.0; s.x.len()]);
    let v = ba::objective_hand(&s.cams, &s.x, &s.w, &s.obs, &s.feats, 1.0, &mut hc, &mut hx);
    same_value(
        "ba hand",
        v,
        ba::objective(&s.cams, &s.x, &s.w, &s.obs, &s.feats),
    );
    let nc = s.cams.len();
    let at = [s.cams.clone(), s.x.clone()].concat();
    let hand = [hc.clone(), hx.clone()].concat();
    let f = |v: &[f64]| ba::objective(&v[..nc], &v[nc..], &s.w, &s.obs, &s.feats);
    // camera 0 is not turned: its rotation's differences cross into the
    // other branch, whose first-order slope is the same
    check_fd("ba hand", &f, &at, &hand, None);
    let (mut mc, mut mx) = (vec![0.0; s.cams.len()], vec![0.0; s.x.len()]);
    let w = ba::objective_backward(&s.cams, &s.x, &s.w, &s.obs, &s.feats, 1.0, &mut mc, &mut mx);
    same_value("ba mica", w, v);
    assert_agree("ba _backward", &[mc, mx].concat(), &hand, 1e-10);
}

#[test]
fn kmeans_objective() {
    let (c, p) = kmeans::problem(kmeans::N, kmeans::K);
    let (k, d) = (kmeans::K, kmeans::D);
    let mut hand = vec![0.0; c.len()];
    let v = kmeans::kmeans_hand(&c, &p, k, d, 1.0, &mut hand);
    same_value("kmeans hand", v, kmeans::kmeans(&c, &p, k, d));
    check_fd(
        "kmeans hand",
        &|c| kmeans::kmeans(c, &p, k, d),
        &c,
        &hand,
        None,
    );
    let mut m = vec![0.0; c.len()];
    same_value(
        "kmeans mica",
        kmeans::kmeans_backward(&c, &p, k, d, 1.0, &mut m),
        v,
    );
    assert_agree("kmeans _backward", &m, &hand, 1e-10);
}

#[test]
fn heat_equation() {
    for (n, steps) in [(6, 7), (heat::N, heat::STEPS)] {
        let u0 = heat::initial(n);
        let a = heat::ALPHA;
        let (mut du, mut da) = (vec![0.0; u0.len()], 0.0);
        let v = heat::heat_hand(&u0, a, n, steps, 1.0, &mut du, &mut da);
        same_value("heat hand", v, heat::heat(&u0, a, n, steps));
        let mut at = u0.clone();
        at.push(a);
        let mut hand = du.clone();
        hand.push(da);
        let nn = n * n;
        let f = |v: &[f64]| heat::heat(&v[..nn], v[nn], n, steps);
        // all of a small grid; on the large one, α, the corners and edges
        // and every 61st point
        let which = if n > 8 {
            let mut w: Vec<usize> = (0..nn).step_by(61).collect();
            w.extend([0, 1, n - 1, n, n + 1, 2 * n - 1, nn - 1, nn]);
            Some(w)
        } else {
            None
        };
        check_fd("heat hand", &f, &at, &hand, which);
        let (mut mu, mut ma) = (vec![0.0; u0.len()], 0.0);
        same_value(
            "heat mica",
            heat::heat_backward(&u0, a, n, steps, 1.0, &mut mu, &mut ma),
            v,
        );
        mu.push(ma);
        assert_agree("heat _backward", &mu, &hand, 1e-10);
    }
}

#[test]
fn chained_rosenbrock() {
    let x = rosenbrock::start(rosenbrock::N);
    let mut hand = vec![0.0; x.len()];
    let v = rosenbrock::chained_rosenbrock_hand(&x, 1.0, &mut hand);
    same_value("rosenbrock hand", v, rosenbrock::chained_rosenbrock(&x));
    check_fd(
        "rosenbrock hand",
        &rosenbrock::chained_rosenbrock,
        &x,
        &hand,
        None,
    );
    let mut m = vec![0.0; x.len()];
    same_value(
        "rosenbrock mica",
        rosenbrock::chained_rosenbrock_backward(&x, 1.0, &mut m),
        v,
    );
    assert_agree("rosenbrock _backward", &m, &hand, 1e-10);
}

#[test]
fn rnn_scan() {
    let (w, u, b, xs, target) = rnn::problem();
    let (mut hw, mut hu, mut hb) = (vec![0.0; w.len()], vec![0.0; u.len()], vec![0.0; b.len()]);
    let v = rnn::rnn_hand(&w, &u, &b, &xs, &target, 1.0, &mut hw, &mut hu, &mut hb);
    same_value("rnn hand", v, rnn::rnn(&w, &u, &b, &xs, &target));
    let (nw, nu) = (w.len(), u.len());
    let at = [w.clone(), u.clone(), b.clone()].concat();
    let hand = [hw, hu, hb].concat();
    let f = |v: &[f64]| rnn::rnn(&v[..nw], &v[nw..nw + nu], &v[nw + nu..], &xs, &target);
    check_fd("rnn hand", &f, &at, &hand, None);
    let (mut mw, mut mu, mut mb) = (vec![0.0; w.len()], vec![0.0; u.len()], vec![0.0; b.len()]);
    let m = rnn::rnn_backward(&w, &u, &b, &xs, &target, 1.0, &mut mw, &mut mu, &mut mb);
    same_value("rnn mica", m, v);
    assert_agree("rnn _backward", &[mw, mu, mb].concat(), &hand, 1e-10);
}

#[test]
fn newton_implicit_fit() {
    let (xs, ys) = newton::data(newton::N);
    let (a, k) = (0.4, 1.3);
    let (mut ha, mut hk) = (0.0, 0.0);
    let v = newton::implicit_fit_hand(a, k, &xs, &ys, 1.0, &mut ha, &mut hk);
    same_value("newton hand", v, newton::implicit_fit(a, k, &xs, &ys));
    let f = |p: &[f64]| newton::implicit_fit(p[0], p[1], &xs, &ys);
    check_fd("newton hand", &f, &[a, k], &[ha, hk], None);
    let (mut ma, mut mk) = (0.0, 0.0);
    let w = newton::implicit_fit_backward(a, k, &xs, &ys, 1.0, &mut ma, &mut mk);
    same_value("newton mica", w, v);
    // Mica differentiates the iterations, the hand adjoint the equation at
    // the last iterate: they differ by about the last step (below 1e-12)
    assert_agree("newton _backward", &[ma, mk], &[ha, hk], 1e-9);
    // the iterations reversed by hand: what Mica differentiates, closely
    let (mut ia, mut ik) = (0.0, 0.0);
    let u = newton::implicit_fit_iterations_hand(a, k, &xs, &ys, 1.0, &mut ia, &mut ik);
    same_value("newton iterations hand", u, v);
    check_fd("newton iterations hand", &f, &[a, k], &[ia, ik], None);
    assert_agree("newton _backward, iterations", &[ma, mk], &[ia, ik], 1e-12);
    // and scaled by a seed
    let (mut sa, mut sk) = (0.0, 0.0);
    newton::implicit_fit_iterations_hand(a, k, &xs, &ys, -2.5, &mut sa, &mut sk);
    assert_agree(
        "newton iterations hand, seed",
        &[sa, sk],
        &[-2.5 * ia, -2.5 * ik],
        1e-12,
    );
}

#[test]
fn iterator_chain() {
    let (x, y) = chain::input(chain::N);
    let mut hand = vec![0.0; x.len()];
    let v = chain::mse_hand(&x, &y, 1.0, &mut hand);
    same_value("chain hand", v, chain::mse(&x, &y));
    check_fd("chain hand", &|x| chain::mse(x, &y), &x, &hand, None);
    let mut m = vec![0.0; x.len()];
    same_value("chain mica", chain::mse_backward(&x, &y, 1.0, &mut m), v);
    assert_agree("chain _backward", &m, &hand, 1e-10);
}

#[test]
fn helpers_huber() {
    let (w, xs, ys) = helpers::problem(helpers::N, helpers::D);
    let (delta, lambda) = (helpers::DELTA, helpers::LAMBDA);
    let mut hand = vec![0.0; w.len()];
    let v = helpers::robust_loss_hand(&w, &xs, &ys, delta, lambda, 1.0, &mut hand);
    same_value(
        "huber hand",
        v,
        helpers::robust_loss(&w, &xs, &ys, delta, lambda),
    );
    let f = |w: &[f64]| helpers::robust_loss(w, &xs, &ys, delta, lambda);
    check_fd("huber hand", &f, &w, &hand, None);
    let mut m = vec![0.0; w.len()];
    let mv = helpers::robust_loss_backward(&w, &xs, &ys, delta, lambda, 1.0, &mut m);
    same_value("huber mica", mv, v);
    assert_agree("huber _backward", &m, &hand, 1e-10);
}

#[test]
fn struct_model() {
    use mica::Knob;
    let net = model::Net::init(11);
    let (xs, ys) = model::data(model::N);
    let mut hand = net.zeros_like();
    let v = model::net_loss_hand(&net, &xs, &ys, 1.0, &mut hand);
    same_value("net hand", v, model::net_loss(&net, &xs, &ys));
    let f = |p: &[f64]| model::net_loss(&model::Net::from_flat(p), &xs, &ys);
    check_fd("net hand", &f, &net.flat(), &hand.flat(), None);
    let mut m = net.zeros_like();
    same_value(
        "net mica",
        model::net_loss_backward(&net, &xs, &ys, 1.0, &mut m),
        v,
    );
    assert_agree("net _backward", &m.flat(), &hand.flat(), 1e-10);
}

#[test]
fn struct_model_through_layer_methods() {
    use mica::Knob;
    let net = model::Net::init(11);
    let m = model::Layered::from_net(&net);
    let (xs, ys) = model::data(model::N);
    let mut hand = m.zeros_like();
    let v = model::layered_loss_hand(&m, &xs, &ys, 1.0, &mut hand);
    same_value("layered hand", v, m.loss(&xs, &ys));
    same_value(
        "layered against the net",
        v,
        model::net_loss(&net, &xs, &ys),
    );
    // the same network's gradient, field by field
    let mut of_net = net.zeros_like();
    model::net_loss_hand(&net, &xs, &ys, 1.0, &mut of_net);
    assert_agree("layered hand", &hand.flat(), &of_net.flat(), 1e-12);
    let f = |p: &[f64]| model::net_loss(&model::Net::from_flat(p), &xs, &ys);
    check_fd("layered hand", &f, &net.flat(), &hand.flat(), None);
    let mut d = m.zeros_like();
    same_value("layered mica", m.loss_backward(&xs, &ys, 1.0, &mut d), v);
    assert_agree("layered _backward", &d.flat(), &hand.flat(), 1e-10);
}

#[test]
fn seeds_scale_and_slots_accumulate() {
    // a seed multiplies every slope, and slots are added into, not
    // overwritten, by the hand adjoints as by Mica
    let x = rosenbrock::start(50);
    let mut once = vec![0.0; 50];
    rosenbrock::chained_rosenbrock_hand(&x, 1.0, &mut once);
    let mut twice = vec![0.0; 50];
    rosenbrock::chained_rosenbrock_hand(&x, 2.5, &mut twice);
    rosenbrock::chained_rosenbrock_hand(&x, 0.5, &mut twice);
    let want: Vec<f64> = once.iter().map(|g| 3.0 * g).collect();
    assert_agree("seeded", &twice, &want, 1e-14);
    let u0 = heat::initial(5);
    let (mut d1, mut a1) = (vec![0.0; 25], 0.0);
    heat::heat_hand(&u0, 0.2, 5, 3, 1.0, &mut d1, &mut a1);
    let (mut d2, mut a2) = (vec![0.0; 25], 0.0);
    heat::heat_hand(&u0, 0.2, 5, 3, -2.0, &mut d2, &mut a2);
    d1.push(a1);
    d2.push(a2);
    let want: Vec<f64> = d1.iter().map(|g| -2.0 * g).collect();
    assert_agree("seeded heat", &d2, &want, 1e-14);
}
