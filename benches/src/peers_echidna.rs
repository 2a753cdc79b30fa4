//! `echidna` 0.15 (reverse mode) on the outside programs (`src/outside/`)
//! and on Extended Rosenbrock, n = 1,000.
//!
//! Each program is written once, generic over echidna's `Scalar` the way
//! its documentation shows, following the primal line by line (the same
//! operations in the same order: at `f64` it gives the primal's value).
//! echidna has two reverse modes, both timed:
//!
//! - the bytecode tape (`echidna::record`, then `BytecodeTape::optimize`
//!   and `gradient_with_buf` per call): recorded once, re-evaluated at each
//!   call, its fastest mode for a repeated gradient. It replays the
//!   recorded path: a branch on a recorded value (k-means' selection, the
//!   Newton loop's exit, Huber's threshold) keeps the way it went when
//!   recorded. Here every call is at the recorded point, so the gradient is
//!   right, but such a tape is not a gradient of the program elsewhere.
//! - the eager tape (`echidna::grad` with `Reverse<f64>`): the program
//!   taped anew at each call, right everywhere.

// the programs follow the primals line by line, index loops included
#![allow(clippy::needless_range_loop, clippy::too_many_arguments)]

use crate::calls::Calls;
use crate::outside::{
    self, ba, chain, heat, helpers, kmeans, llsq, lse, lstm, model, newton, ode, rnn,
    rosenbrock as chained, Side,
};
use echidna::{BReverse, Reverse, Scalar};
use std::hint::black_box as bb;
use std::ops::{Add, AddAssign, Div, Mul, MulAssign, Sub, SubAssign};
use std::rc::Rc;

/// What the programs need of a number: echidna's `Scalar` over `f64`, the
/// compound assignments, and arithmetic with plain `f64` constants (which
/// `f64`, `Reverse<f64>` and `BReverse<f64>` all have).
pub trait Real:
    Scalar<Float = f64>
    + AddAssign
    + SubAssign
    + MulAssign
    + Add<f64, Output = Self>
    + Sub<f64, Output = Self>
    + Mul<f64, Output = Self>
    + Div<f64, Output = Self>
{
}

impl<T> Real for T where
    T: Scalar<Float = f64>
        + AddAssign
        + SubAssign
        + MulAssign
        + Add<f64, Output = T>
        + Sub<f64, Output = T>
        + Mul<f64, Output = T>
        + Div<f64, Output = T>
{
}

fn c<T: Real>(v: f64) -> T {
    T::from_f(v)
}

/// GradBench's `lse`.
pub fn lse_g<T: Real>(x: &[T]) -> T {
    let m = x.iter().cloned().fold(T::neg_infinity(), |a, b| a.max(b));
    let s = x.iter().fold(T::zero(), |s, &xi| s + (xi - m).exp());
    m + s.ln()
}

/// GradBench's `llsq`.
pub fn llsq_g<T: Real>(x: &[T], n: usize) -> T {
    let mut sum = T::zero();
    for i in 0..n {
        let ti = -1.0 + 2.0 * i as f64 / (n as f64 - 1.0);
        let mut inner = T::zero();
        let mut mul = 1.0;
        for xj in x {
            inner += *xj * mul;
            mul *= ti;
        }
        let r = c::<T>(ti.signum()) - inner;
        sum += r * r;
    }
    sum * 0.5
}

fn ode_fun<T: Real>(x: &[T], y: &[T], z: &mut [T]) {
    z[0] = x[0];
    for i in 1..x.len() {
        z[i] = x[i] * y[i - 1];
    }
}

/// GradBench's `ode`.
pub fn ode_g<T: Real>(x: &[T], s: usize) -> T {
    let n = x.len();
    let h = ode::TF / s as f64;
    let mut y = vec![T::zero(); n];
    let (mut k1, mut k2, mut k3, mut k4) = (y.clone(), y.clone(), y.clone(), y.clone());
    let mut tmp = y.clone();
    for _ in 0..s {
        ode_fun(x, &y, &mut k1);
        for i in 0..n {
            tmp[i] = y[i] + k1[i] * (h / 2.0);
        }
        ode_fun(x, &tmp, &mut k2);
        for i in 0..n {
            tmp[i] = y[i] + k2[i] * (h / 2.0);
        }
        ode_fun(x, &tmp, &mut k3);
        for i in 0..n {
            tmp[i] = y[i] + k3[i] * h;
        }
        ode_fun(x, &tmp, &mut k4);
        for i in 0..n {
            y[i] += (k1[i] + k2[i] * 2.0 + k3[i] * 2.0 + k4[i]) * (h / 6.0);
        }
    }
    y[n - 1]
}

fn sigmoid<T: Real>(x: T) -> T {
    c::<T>(1.0) / (c::<T>(1.0) + (-x).exp())
}

fn logsumexp<T: Real>(v: &[T]) -> T {
    let mut sum = T::zero();
    for i in 0..v.len() {
        sum += v[i].exp();
    }
    sum = sum + 2.0;
    sum.ln()
}

fn lstm_model<T: Real>(weight: &[T], bias: &[T], hidden: &mut [T], cell: &mut [T], input: &[T]) {
    let h = hidden.len();
    for i in 0..h {
        let forget = sigmoid(input[i] * weight[i] + bias[i]);
        let ingate = sigmoid(hidden[i] * weight[h + i] + bias[h + i]);
        let outgate = sigmoid(input[i] * weight[2 * h + i] + bias[2 * h + i]);
        let change = (hidden[i] * weight[3 * h + i] + bias[3 * h + i]).tanh();
        cell[i] = cell[i] * forget + ingate * change;
        hidden[i] = outgate * cell[i].tanh();
    }
}

fn predict<T: Real>(
    w: &[T],
    w2: &[T],
    hidden: &mut [T],
    cell: &mut [T],
    x: &[f64],
    l: usize,
) -> Vec<T> {
    let b = x.len();
    let mut xp: Vec<T> = (0..b).map(|i| w2[i] * x[i]).collect();
    for i in 0..l {
        lstm_model(
            &w[2 * i * 4 * b..(2 * i + 1) * 4 * b],
            &w[(2 * i + 1) * 4 * b..(2 * i + 2) * 4 * b],
            &mut hidden[i * b..(i + 1) * b],
            &mut cell[i * b..(i + 1) * b],
            &xp,
        );
        xp = hidden[i * b..(i + 1) * b].to_vec();
    }
    (0..b).map(|i| xp[i] * w2[b + i] + w2[2 * b + i]).collect()
}

/// ADBench's LSTM objective; `p` holds the main then the extra parameters.
pub fn lstm_g<T: Real>(
    p: &[T],
    n_main: usize,
    state: &[f64],
    sequence: &[f64],
    l: usize,
    cc: usize,
    b: usize,
) -> T {
    let (main_params, extra_params) = p.split_at(n_main);
    let mut hidden = vec![T::zero(); l * b];
    let mut cell = vec![T::zero(); l * b];
    for i in 0..l {
        for j in 0..b {
            hidden[i * b + j] = c(state[2 * i * b + j]);
            cell[i * b + j] = c(state[(2 * i + 1) * b + j]);
        }
    }
    let mut total = T::zero();
    let mut count = 0;
    let mut input = &sequence[0..b];
    for t in 0..cc - 1 {
        let ypred = predict(main_params, extra_params, &mut hidden, &mut cell, input, l);
        let lse = logsumexp(&ypred);
        let ygold = &sequence[(t + 1) * b..(t + 2) * b];
        for i in 0..b {
            total += (ypred[i] - lse) * ygold[i];
        }
        count += b;
        input = ygold;
    }
    -total / count as f64
}

fn cross<T: Real>(a: &[T], b: &[T]) -> [T; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn rodrigues_rotate_point<T: Real>(rot: &[T], pt: &[T]) -> [T; 3] {
    let sqtheta = rot[0] * rot[0] + rot[1] * rot[1] + rot[2] * rot[2];
    if sqtheta != T::zero() {
        let theta = sqtheta.sqrt();
        let costheta = theta.cos();
        let sintheta = theta.sin();
        let theta_inverse = c::<T>(1.0) / theta;
        let w = [
            rot[0] * theta_inverse,
            rot[1] * theta_inverse,
            rot[2] * theta_inverse,
        ];
        let w_cross_pt = cross(&w, pt);
        let tmp = (w[0] * pt[0] + w[1] * pt[1] + w[2] * pt[2]) * (c::<T>(1.0) - costheta);
        let mut out = [T::zero(); 3];
        for i in 0..3 {
            out[i] = pt[i] * costheta + w_cross_pt[i] * sintheta + w[i] * tmp;
        }
        out
    } else {
        let rot_cross_pt = cross(rot, pt);
        [
            pt[0] + rot_cross_pt[0],
            pt[1] + rot_cross_pt[1],
            pt[2] + rot_cross_pt[2],
        ]
    }
}

fn project<T: Real>(cam: &[T], x: &[T]) -> [T; 2] {
    let xo = [x[0] - cam[3], x[1] - cam[4], x[2] - cam[5]];
    let xcam = rodrigues_rotate_point(&cam[0..3], &xo);
    let p = [xcam[0] / xcam[2], xcam[1] / xcam[2]];
    let rsq = p[0] * p[0] + p[1] * p[1];
    let l = c::<T>(1.0) + cam[9] * rsq + cam[10] * rsq * rsq;
    [p[0] * l * cam[6] + cam[7], p[1] * l * cam[6] + cam[8]]
}

/// ADBench's bundle-adjustment objective; `p` holds the cameras then the
/// points.
pub fn ba_g<T: Real>(p: &[T], n_cams: usize, w: &[f64], obs: &[usize], feats: &[f64]) -> T {
    let (cams, x) = p.split_at(n_cams * ba::NCAM);
    let mut total = T::zero();
    for i in 0..w.len() {
        let (cm, pt) = (obs[2 * i], obs[2 * i + 1]);
        let proj = project(&cams[cm * 11..(cm + 1) * 11], &x[pt * 3..(pt + 1) * 3]);
        let e0 = (proj[0] - feats[2 * i]) * w[i];
        let e1 = (proj[1] - feats[2 * i + 1]) * w[i];
        total += e0 * e0 + e1 * e1;
    }
    total
}

/// The k-means objective, by selection.
pub fn kmeans_g<T: Real>(centres: &[T], points: &[f64], k: usize, d: usize) -> T {
    let n = points.len() / d;
    let mut total = T::zero();
    for i in 0..n {
        let mut best = T::infinity();
        let mut nearest = 0;
        for cc in 0..k {
            let mut dist = T::zero();
            for j in 0..d {
                let diff = c::<T>(points[i * d + j]) - centres[cc * d + j];
                dist += diff * diff;
            }
            if dist < best {
                best = dist;
                nearest = cc;
            }
        }
        for j in 0..d {
            let diff = c::<T>(points[i * d + j]) - centres[nearest * d + j];
            total += diff * diff;
        }
    }
    total
}

/// The 2-D heat equation; `p` holds the initial field then `α`.
pub fn heat_g<T: Real>(p: &[T], n: usize, steps: usize) -> T {
    let (u0, alpha) = (&p[..n * n], p[n * n]);
    let mut u = u0.to_vec();
    let mut v = u0.to_vec();
    for _ in 0..steps {
        for i in 1..n - 1 {
            for j in 1..n - 1 {
                let p = i * n + j;
                v[p] = u[p] + alpha * (u[p - 1] + u[p + 1] + u[p - n] + u[p + n] - u[p] * 4.0);
            }
        }
        std::mem::swap(&mut u, &mut v);
    }
    let mut loss = T::zero();
    for p in 0..n * n {
        loss += u[p] * u[p];
    }
    loss
}

/// The chained Rosenbrock function.
pub fn chained_rosenbrock_g<T: Real>(x: &[T]) -> T {
    let mut f = T::zero();
    for i in 0..x.len() - 1 {
        f += (x[i + 1] - x[i] * x[i]).powi(2) * 100.0 + (c::<T>(1.0) - x[i]).powi(2);
    }
    f
}

/// Extended Rosenbrock (`src/rosenbrock.rs`).
pub fn rosenbrock_g<T: Real>(x: &[T]) -> T {
    let mut f = T::zero();
    for i in 0..x.len() / 2 {
        let a = x[2 * i];
        let b = x[2 * i + 1];
        let t = b - a * a;
        let u = c::<T>(1.0) - a;
        f += t * 100.0 * t + u * u;
    }
    f
}

/// The RNN scan; `p` holds `W`, `U` and `b`.
pub fn rnn_g<T: Real>(p: &[T], xs: &[f64], target: &[f64]) -> T {
    use rnn::{H, I, STEPS};
    let (w, rest) = p.split_at(H * H);
    let (u, b) = rest.split_at(H * I);
    let mut h = [T::zero(); H];
    for t in 0..STEPS {
        let mut next = [T::zero(); H];
        for i in 0..H {
            let mut z = b[i];
            for j in 0..H {
                z += w[i * H + j] * h[j];
            }
            for j in 0..I {
                z += u[i * I + j] * xs[t * I + j];
            }
            next[i] = z.tanh();
        }
        h = next;
    }
    let mut loss = T::zero();
    for i in 0..H {
        let r = h[i] - target[i];
        loss += r * r;
    }
    loss * 0.5
}

/// The implicit fit by Newton's iteration; `p` is `(a, k)`.
pub fn newton_g<T: Real>(p: &[T], xs: &[f64], ys: &[f64]) -> T {
    let (a, k) = (p[0], p[1]);
    let mut loss = T::zero();
    for i in 0..xs.len() {
        let rhs = k * xs[i];
        let mut z = rhs;
        let mut iter = 0;
        loop {
            let f = z + a * z * z * z - rhs;
            let step = f / (c::<T>(1.0) + a * 3.0 * z * z);
            z -= step;
            iter += 1;
            if step.abs() < c(newton::TOL) || iter == 50 {
                break;
            }
        }
        let r = z - ys[i];
        loss += r * r;
    }
    loss
}

/// The mean squared difference, as a chain (a fold: echidna's types have
/// no `Sum`).
pub fn mse_g<T: Real>(x: &[T], y: &[f64]) -> T {
    let s = x
        .iter()
        .zip(y)
        .map(|(a, b)| (*a - *b).powi(2))
        .fold(T::zero(), |s, v| s + v);
    s / x.len() as f64
}

fn predict_linear<T: Real>(w: &[T], x: &[f64]) -> T {
    let mut s = w[0];
    for j in 0..x.len() {
        s += w[j + 1] * x[j];
    }
    s
}

fn huber<T: Real>(r: T, delta: f64) -> T {
    if r.abs() <= c(delta) {
        r * 0.5 * r
    } else {
        (r.abs() - 0.5 * delta) * delta
    }
}

fn l2<T: Real>(w: &[T]) -> T {
    w.iter().fold(T::zero(), |s, v| s + *v * *v)
}

/// The Huber regression through its helpers.
pub fn robust_g<T: Real>(w: &[T], xs: &[f64], ys: &[f64], delta: f64, lambda: f64) -> T {
    let d = w.len() - 1;
    let n = ys.len();
    let mut total = T::zero();
    for i in 0..n {
        let r = predict_linear(w, &xs[i * d..(i + 1) * d]) - ys[i];
        total += huber(r, delta);
    }
    total / n as f64 + l2(w) * lambda
}

/// The struct model's loss, its weights flattened (`Net::flat`'s order).
pub fn net_g<T: Real>(p: &[T], xs: &[f64], ys: &[f64]) -> T {
    use model::{HID, IN};
    let (w1, rest) = p.split_at(HID * IN);
    let (b1, rest) = rest.split_at(HID);
    let (w2, rest) = rest.split_at(HID);
    let b2 = rest[0];
    let n = ys.len();
    let mut total = T::zero();
    for s in 0..n {
        let mut out = b2;
        for i in 0..HID {
            let mut z = b1[i];
            for j in 0..IN {
                z += w1[i * IN + j] * xs[s * IN + j];
            }
            out += w2[i] * z.tanh();
        }
        let r = out - ys[s];
        total += r * r;
    }
    total / n as f64
}

/// A program of the flattened knobs.
pub type Program = Box<dyn Fn(&[f64]) -> f64>;

/// A gradient of the flattened knobs.
pub type Gradient = Box<dyn FnMut(&[f64]) -> Vec<f64>>;

/// One program for echidna.
pub struct Peer {
    /// the outside program's name (or Extended Rosenbrock's)
    pub name: &'static str,
    /// the knobs, flattened in the order of the hand-written adjoint's slots
    pub x: Vec<f64>,
    /// the primal's value at `x`
    pub value: f64,
    /// the program as written for echidna, at `f64`
    pub plain: Program,
    /// the hand-written adjoint's gradient at `x`, flattened
    pub hand: Vec<f64>,
    /// the bytecode tape, recorded at `x`, optimized, re-evaluated per call
    pub tape: Gradient,
    /// the eager tape, `echidna::grad`, taped anew per call
    pub eager: Gradient,
}

/// A peer of `name` from one generic program: `$f(v, &data)` with `v` the
/// knobs.
macro_rules! peer {
    ($name:expr, $x:expr, $value:expr, $hand:expr, $data:expr, |$v:ident, $d:ident| $body:expr) => {{
        let data = Rc::new($data);
        let x: Vec<f64> = $x;
        let (d1, d2) = (data.clone(), data.clone());
        let plain = move |$v: &[f64]| {
            let $d = &*d2;
            $body
        };
        let (mut tape, _) = {
            let $d = &*data;
            echidna::record(|$v: &[BReverse<f64>]| $body, &x)
        };
        tape.optimize();
        let mut buf = Vec::new();
        Peer {
            name: $name,
            value: $value,
            hand: $hand,
            plain: Box::new(plain),
            tape: Box::new(move |at: &[f64]| tape.gradient_with_buf(at, &mut buf)),
            eager: Box::new(move |at: &[f64]| {
                let $d = &*d1;
                echidna::grad(|$v: &[Reverse<f64>]| $body, at)
            }),
            x,
        }
    }};
}

/// The name of Extended Rosenbrock's peer row.
pub const EXTENDED_ROSENBROCK: &str = "Extended Rosenbrock, n = 1,000";

fn mica(name: &str) -> Box<dyn FnMut()> {
    outside::call(name, Side::Mica)
}

/// Every program echidna is given: all the outside programs, in their
/// order, then Extended Rosenbrock, n = 1,000.
pub fn peers() -> Vec<Peer> {
    let names = outside::names();
    let mut out = Vec::new();

    let x = lse::input(lse::N);
    let mut hand = vec![0.0; x.len()];
    let value = lse::lse_hand(&x, 1.0, &mut hand);
    out.push(peer!(names[0], x, value, hand, (), |v, _d| lse_g(v)));

    let x = llsq::input(llsq::M);
    let mut hand = vec![0.0; x.len()];
    let value = llsq::llsq_hand(&x, llsq::N, 1.0, &mut hand);
    out.push(peer!(names[1], x, value, hand, (), |v, _d| llsq_g(
        v,
        llsq::N
    )));

    let x = ode::input(ode::N);
    let mut hand = vec![0.0; x.len()];
    let value = ode::ode_hand(&x, ode::STEPS, 1.0, &mut hand);
    out.push(peer!(names[2], x, value, hand, (), |v, _d| ode_g(
        v,
        ode::STEPS
    )));

    let p = lstm::problem(lstm::L, lstm::C, lstm::B);
    let (mut hm, mut he) = (vec![0.0; p.main.len()], vec![0.0; p.extra.len()]);
    let value = lstm::objective_hand(
        &p.main,
        &p.extra,
        &p.state,
        &p.sequence,
        p.l,
        p.c,
        p.b,
        1.0,
        &mut hm,
        &mut he,
    );
    let x = [p.main.clone(), p.extra.clone()].concat();
    out.push(peer!(names[3], x, value, [hm, he].concat(), p, |v, p| {
        lstm_g(v, p.main.len(), &p.state, &p.sequence, p.l, p.c, p.b)
    }));

    let s = ba::scene(5, 40, 100);
    let (mut hc, mut hx) = (vec![0.0; s.cams.len()], vec![0.0; s.x.len()]);
    let value = ba::objective_hand(&s.cams, &s.x, &s.w, &s.obs, &s.feats, 1.0, &mut hc, &mut hx);
    let x = [s.cams.clone(), s.x.clone()].concat();
    out.push(peer!(
        names[4],
        x,
        value,
        [hc, hx].concat(),
        s,
        |v, s| ba_g(v, s.cams.len() / ba::NCAM, &s.w, &s.obs, &s.feats)
    ));

    let (x, points) = kmeans::problem(kmeans::N, kmeans::K);
    let mut hand = vec![0.0; x.len()];
    let value = kmeans::kmeans_hand(&x, &points, kmeans::K, kmeans::D, 1.0, &mut hand);
    out.push(peer!(names[5], x, value, hand, points, |v, points| {
        kmeans_g(v, points, kmeans::K, kmeans::D)
    }));

    let u0 = heat::initial(heat::N);
    let (mut du, mut da) = (vec![0.0; u0.len()], 0.0);
    let value = heat::heat_hand(
        &u0,
        heat::ALPHA,
        heat::N,
        heat::STEPS,
        1.0,
        &mut du,
        &mut da,
    );
    du.push(da);
    let mut x = u0;
    x.push(heat::ALPHA);
    out.push(peer!(names[6], x, value, du, (), |v, _d| heat_g(
        v,
        heat::N,
        heat::STEPS
    )));

    let x = chained::start(chained::N);
    let mut hand = vec![0.0; x.len()];
    let value = chained::chained_rosenbrock_hand(&x, 1.0, &mut hand);
    out.push(peer!(names[7], x, value, hand, (), |v, _d| {
        chained_rosenbrock_g(v)
    }));

    let (w, u, b, xs, target) = rnn::problem();
    let (mut hw, mut hu, mut hb) = (vec![0.0; w.len()], vec![0.0; u.len()], vec![0.0; b.len()]);
    let value = rnn::rnn_hand(&w, &u, &b, &xs, &target, 1.0, &mut hw, &mut hu, &mut hb);
    out.push(peer!(
        names[8],
        [w, u, b].concat(),
        value,
        [hw, hu, hb].concat(),
        (xs, target),
        |v, d| rnn_g(v, &d.0, &d.1)
    ));

    let (xs, ys) = newton::data(newton::N);
    let (mut ha, mut hk) = (0.0, 0.0);
    let value = newton::implicit_fit_hand(0.4, 1.3, &xs, &ys, 1.0, &mut ha, &mut hk);
    out.push(peer!(
        names[9],
        vec![0.4, 1.3],
        value,
        vec![ha, hk],
        (xs, ys),
        |v, d| newton_g(v, &d.0, &d.1)
    ));

    let (x, y) = chain::input(chain::N);
    let mut hand = vec![0.0; x.len()];
    let value = chain::mse_hand(&x, &y, 1.0, &mut hand);
    out.push(peer!(names[10], x, value, hand, y, |v, y| mse_g(v, y)));

    let (w, xs, ys) = helpers::problem(helpers::N, helpers::D);
    let mut hand = vec![0.0; w.len()];
    let (delta, lambda) = (helpers::DELTA, helpers::LAMBDA);
    let value = helpers::robust_loss_hand(&w, &xs, &ys, delta, lambda, 1.0, &mut hand);
    out.push(peer!(names[11], w, value, hand, (xs, ys), |v, d| robust_g(
        v,
        &d.0,
        &d.1,
        helpers::DELTA,
        helpers::LAMBDA
    )));

    let net = model::Net::init(11);
    let (xs, ys) = model::data(model::N);
    let mut g = {
        use mica::Knob;
        net.zeros_like()
    };
    let value = model::net_loss_hand(&net, &xs, &ys, 1.0, &mut g);
    out.push(peer!(
        names[12],
        net.flat(),
        value,
        g.flat(),
        (xs, ys),
        |v, d| net_g(v, &d.0, &d.1)
    ));

    let x = crate::rosenbrock::start(1000);
    let mut hand = vec![0.0; x.len()];
    let value = crate::rosenbrock::rosenbrock_hand(&x, 1.0, &mut hand);
    out.push(peer!(EXTENDED_ROSENBROCK, x, value, hand, (), |v, _d| {
        rosenbrock_g(v)
    }));

    out
}

/// echidna against Mica's `_backward`, in turns: per program, first the
/// bytecode tape (in the `hand` slot), then the eager tape.
pub fn calls() -> Vec<(Calls, Calls)> {
    let mut out = Vec::new();
    for p in peers() {
        let Peer {
            name,
            x,
            mut tape,
            mut eager,
            ..
        } = p;
        let y = x.clone();
        let tape_calls = Calls {
            name,
            hand: Box::new(move || {
                bb(tape(bb(&x)));
            }),
            mica: mica_of(name),
        };
        let eager_calls = Calls {
            name,
            hand: Box::new(move || {
                bb(eager(bb(&y)));
            }),
            mica: mica_of(name),
        };
        out.push((tape_calls, eager_calls));
    }
    out
}

fn mica_of(name: &str) -> Box<dyn FnMut()> {
    if name == EXTENDED_ROSENBROCK {
        let x = crate::rosenbrock::start(1000);
        let mut d = vec![0.0; x.len()];
        Box::new(move || {
            crate::rosenbrock::rosenbrock_backward(bb(&x), bb(1.0), &mut d);
        })
    } else {
        mica(name)
    }
}
