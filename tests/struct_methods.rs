//! Methods of struct models called on a tracked struct from outside their
//! block: a free function's `m.forward(x)`, a method of one `#[tape] impl`
//! calling a field's method from another (`self.head.forward(&h)`), a
//! `Vec` of layers indexed (`self.layers[k].forward(&h)`, the value
//! shrinking from layer to layer) and iterated (`for layer in
//! &self.layers`), a window's `#[tracked] let` of a model; methods with a
//! scalar, array, `Vec` and tuple out; forward mode (`tangent`, `jacobian`,
//! `hvp`) through the methods' own and through a free function given the
//! struct whole; a model declared in the `#[tape] mod` of its loss, its
//! method written for a trait. Also the calls these need of free functions: a struct
//! passed whole to a function with an array out, and an array a loop
//! reassigns, shorter, from a call.
//!
//! Every gradient against central finite differences over the model's
//! floats (flattened here by hand, field by field) at three models, the
//! free function against its `#[tape(plain)]` twin, and each value against
//! the primal's, in `f64` and `f32`; tangents against finite differences
//! along a direction, Hessian-vector products against those of the
//! gradient, the Jacobian's row against the gradient.
#![deny(warnings)]

mod fd;

macro_rules! models {
    ($m:ident, $t:ty) => {
        pub mod $m {
            use mica::tape;

            #[derive(Clone, Debug, mica::Knob)]
            pub struct Dense {
                pub w: Vec<$t>,
                pub b: Vec<$t>,
                pub gain: $t,
            }

            #[tape]
            impl Dense {
                /// tanh(gain · (W x + b)), `b.len()` outputs
                pub fn forward(#[tracked] &self, #[tracked] x: &[$t]) -> Vec<$t> {
                    let n = self.b.len();
                    let mut out = vec![0.0; n];
                    for i in 0..n {
                        let mut z = self.b[i];
                        for j in 0..x.len() {
                            z += self.w[i * x.len() + j] * x[j];
                        }
                        out[i] = (z * self.gain).tanh();
                    }
                    out
                }

                pub fn norm(#[tracked] &self) -> $t {
                    self.w.iter().map(|w| w * w).sum::<$t>() * self.gain
                }

                pub fn polar(#[tracked] &self) -> ($t, $t) {
                    let r = (self.b[0] * self.b[0] + self.gain * self.gain).sqrt();
                    (r, self.b[0].atan2(self.gain))
                }

                pub fn ends(#[tracked] &self) -> [$t; 2] {
                    [self.w[0] * self.gain, (self.b[0] + self.w[1]).sin()]
                }

                #[tape(tangent, hvp)]
                pub fn energy(#[tracked] &self, c: $t) -> $t {
                    let mut e = 0.0;
                    for k in 0..self.w.len() {
                        e += (self.w[k] * c).sin() * self.gain;
                    }
                    e * self.b[0]
                }

                #[tape(tangent)]
                pub fn pair_at(#[tracked] &self, c: $t) -> [$t; 2] {
                    [self.w[1] * self.w[0] * c, (self.gain * c).exp()]
                }
            }

            #[derive(Clone, Debug, mica::Knob)]
            pub struct Net {
                pub layers: Vec<Dense>,
                pub head: Dense,
                pub scale: $t,
            }

            #[tape]
            impl Net {
                pub fn loss(#[tracked] &self, x: &[$t], y: $t) -> $t {
                    let mut h = x.to_vec();
                    for k in 0..self.layers.len() {
                        h = self.layers[k].forward(&h);
                    }
                    let o = self.head.forward(&h);
                    let mut reg = 0.0;
                    for layer in &self.layers {
                        reg += layer.norm();
                    }
                    let (r, a) = self.head.polar();
                    let e = self.head.ends();
                    (o[0] - y) * (o[0] - y) * self.scale + 0.01 * reg + 0.1 * r * a + e[0] * e[1]
                }
            }

            pub mod fit {
                use super::{Dense, Net};
                use mica::tape;

                #[tape]
                pub fn loss(#[tracked] m: &Net, xs: &[Vec<$t>], ys: &[$t]) -> $t {
                    let mut total = 0.0;
                    for (x, y) in xs.iter().zip(ys) {
                        total += m.loss(x, *y);
                    }
                    total + m.head.norm() * m.scale + m.layers[1].ends()[1]
                }

                #[tape(plain)]
                pub fn loss_plain(#[tracked] m: &Net, xs: &[Vec<$t>], ys: &[$t]) -> $t {
                    let mut total = 0.0;
                    for (x, y) in xs.iter().zip(ys) {
                        total += m.loss(x, *y);
                    }
                    total + m.head.norm() * m.scale + m.layers[1].ends()[1]
                }

                /// a struct passed whole to a function with an array out
                #[tape]
                pub fn pair(#[tracked] d: &Dense, x: &[$t]) -> [$t; 2] {
                    [d.w[0] * x[0] + d.b[0], (d.w[1] * x[1]).cos() * d.gain]
                }

                #[tape]
                pub fn pairs(#[tracked] d: &Dense, x: &[$t]) -> $t {
                    let p = pair(d, x);
                    p[0] * p[1] + pair(d, &[x[1], x[0]])[0]
                }
            }

            /// Forward mode through the parts' own: a method of a field, of
            /// an element of a `Vec` of structs, one with an array out, and
            /// a free function given the struct whole.
            #[tape(tangent, jacobian, hvp)]
            pub fn smooth(#[tracked] m: &Net, c: $t) -> $t {
                let mut s = m.head.energy(c) * scaled(m, c);
                for k in 0..m.layers.len() {
                    s += m.layers[k].energy(c) * (k as $t + 1.0);
                }
                s
            }

            #[tape(tangent)]
            pub fn smooth_pairs(#[tracked] m: &Net, c: $t) -> $t {
                let p = m.layers[1].pair_at(c);
                p[0] * p[1] + smooth(m, c)
            }

            #[tape(tangent, hvp)]
            pub fn scaled(#[tracked] m: &Net, c: $t) -> $t {
                (m.scale * m.head.gain * c).tanh()
            }

            /// A window's model, its methods called in the window.
            #[tape]
            pub fn window(m0: &Net, x: &[$t]) -> ($t, Net) {
                #[tracked]
                let m: Net = m0.clone();
                tape! {
                    let (_, a0) = m.layers[0].polar();
                    let out = m.loss(x, 0.5) * m.head.norm() + a0;
                }
                backward!(out);
                (out, gradient!(m))
            }

            /// A layer as a free function, a loop passing its value on to
            /// the next, each shorter.
            #[tape]
            pub fn dense(#[tracked] w: &[$t], #[tracked] x: &[$t], n: usize) -> Vec<$t> {
                let mut out = vec![0.0; n];
                for i in 0..n {
                    let mut z = 0.0;
                    for j in 0..x.len() {
                        z += w[i * x.len() + j] * x[j];
                    }
                    out[i] = z.tanh();
                }
                out
            }

            #[tape]
            pub fn shrinking(#[tracked] w: &[$t], x: &[$t]) -> $t {
                let mut h = x.to_vec();
                for n in [3usize, 2, 1] {
                    h = dense(w, &h, n);
                }
                h[0] * h[0] + h[0]
            }

            fn dense_at(seed: usize, inputs: usize, outputs: usize) -> Dense {
                let v = |k: usize| ((seed * 31 + k * 17) % 23) as $t / 23.0 - 0.45;
                Dense {
                    w: (0..inputs * outputs).map(|k| v(k)).collect(),
                    b: (0..outputs).map(|k| v(k + 50)).collect(),
                    gain: 0.8 + v(90) * 0.5,
                }
            }

            pub fn net(seed: usize) -> Net {
                Net {
                    layers: vec![dense_at(seed, 3, 4), dense_at(seed + 1, 4, 2)],
                    head: dense_at(seed + 2, 2, 1),
                    scale: 1.0 + 0.1 * seed as $t,
                }
            }

            fn flat_dense(d: &Dense, out: &mut Vec<$t>) {
                out.extend(&d.w);
                out.extend(&d.b);
                out.push(d.gain);
            }

            fn set_dense(d: &mut Dense, v: &[$t], k: &mut usize) {
                for e in d.w.iter_mut().chain(d.b.iter_mut()) {
                    *e = v[*k];
                    *k += 1;
                }
                d.gain = v[*k];
                *k += 1;
            }

            pub fn flat(n: &Net) -> Vec<$t> {
                let mut out = Vec::new();
                for l in &n.layers {
                    flat_dense(l, &mut out);
                }
                flat_dense(&n.head, &mut out);
                out.push(n.scale);
                out
            }

            pub fn unflat(v: &[$t], like: &Net) -> Net {
                let mut n = like.clone();
                let mut k = 0;
                for l in &mut n.layers {
                    set_dense(l, v, &mut k);
                }
                set_dense(&mut n.head, v, &mut k);
                n.scale = v[k];
                n
            }

            pub fn flat_layer(d: &Dense) -> Vec<$t> {
                let mut out = Vec::new();
                flat_dense(d, &mut out);
                out
            }

            pub fn unflat_layer(v: &[$t], like: &Dense) -> Dense {
                let mut d = like.clone();
                set_dense(&mut d, v, &mut 0);
                d
            }

            pub fn data() -> (Vec<Vec<$t>>, Vec<$t>) {
                (
                    vec![
                        vec![0.5, -0.3, 0.8],
                        vec![-0.6, 0.2, 0.1],
                        vec![0.3, 0.9, -0.4],
                    ],
                    vec![0.2, -0.4, 0.1],
                )
            }
        }
    };
}

models!(m64, f64);
models!(m32, f32);

/// A model declared in the `#[tape] mod` that differentiates its loss (its
/// tables read from its own definition), its method written for a trait,
/// generic over its float.
#[mica::tape]
pub mod local {
    use mica::Real;

    pub trait Score<T> {
        fn score(&self, x: &[T]) -> T;
    }

    #[derive(Clone, Debug, mica::Knob)]
    pub struct Lin<T> {
        pub w: Vec<T>,
        pub b: T,
    }

    #[mica::tape]
    impl<T: Real> Lin<T> {
        pub fn forward(#[tracked] &self, x: &[T]) -> T {
            let mut z = self.b;
            for (j, xj) in x.iter().enumerate() {
                z += self.w[j] * *xj;
            }
            z.tanh()
        }
    }

    #[derive(Clone, Debug, mica::Knob)]
    pub struct Pair<T> {
        pub a: Lin<T>,
        pub s: T,
    }

    #[mica::tape]
    impl<T: Real> Score<T> for Pair<T> {
        fn score(#[tracked] &self, x: &[T]) -> T {
            self.a.forward(x) * self.s
        }
    }

    pub fn loss<T: Real>(#[tracked] p: &Pair<T>, x: &[T]) -> T {
        let h = p.score(x);
        h * h + p.a.forward(x) * p.a.b
    }
}

macro_rules! local_tests {
    ($name:ident, $t:ty, $tol:expr, $rel:expr) => {
        #[test]
        fn $name() {
            use local::{Lin, Pair};
            let (agree, _) = crate::fd::checks::<$t>($tol, $rel);
            let x: [$t; 3] = [0.5, -0.3, 0.8];
            for seed in 0..3 {
                let v = |k: usize| ((seed * 13 + k * 7) % 11) as $t / 11.0 - 0.45;
                let p = Pair {
                    a: Lin {
                        w: vec![v(0), v(1), v(2)],
                        b: v(3),
                    },
                    s: 0.9 + v(4),
                };
                let (value, g) = local::loss_grad(&p, &x);
                crate::fd::close("value", value, local::loss(&p, &x), $rel);
                let make = |q: &[$t]| Pair {
                    a: Lin {
                        w: q[..3].to_vec(),
                        b: q[3],
                    },
                    s: q[4],
                };
                let f = |q: &[$t]| local::loss(&make(q), &x);
                let at = [p.a.w[0], p.a.w[1], p.a.w[2], p.a.b, p.s];
                let claimed = [g.a.w[0], g.a.w[1], g.a.w[2], g.a.b, g.s];
                agree("local::loss", &f, &at, &claimed);
            }
        }
    };
}

local_tests!(a_model_declared_in_its_block_f64, f64, 1e-6, 1e-10);
local_tests!(a_model_declared_in_its_block_f32, f32, 2e-2, 1e-4);

macro_rules! tests {
    ($name:ident, $m:ident, $t:ty, $tol:expr, $rel:expr) => {
        mod $name {
            use super::$m::*;

            #[test]
            fn a_free_function_calls_the_models_methods() {
                let (agree, same) = crate::fd::checks::<$t>($tol, $rel);
                let (xs, ys) = data();
                for seed in 0..3 {
                    let m = net(seed);
                    let (v, g) = fit::loss_grad(&m, &xs, &ys);
                    crate::fd::close("value", v, fit::loss(&m, &xs, &ys), $rel);
                    let f = |p: &[$t]| fit::loss(&unflat(p, &m), &xs, &ys);
                    agree("fit::loss", &f, &flat(&m), &flat(&g));
                    let (vq, gq) = fit::loss_plain_grad(&m, &xs, &ys);
                    crate::fd::close("plain value", v, vq, $rel);
                    same(&flat(&g), &flat(&gq), "fit::loss against its plain twin");
                }
            }

            #[test]
            fn a_method_calls_its_fields_methods() {
                let (agree, _) = crate::fd::checks::<$t>($tol, $rel);
                let (xs, ys) = data();
                for seed in 0..3 {
                    let m = net(seed);
                    let (v, g) = m.loss_grad(&xs[seed], ys[seed]);
                    crate::fd::close("value", v, m.loss(&xs[seed], ys[seed]), $rel);
                    let f = |p: &[$t]| unflat(p, &m).loss(&xs[seed], ys[seed]);
                    agree("Net::loss", &f, &flat(&m), &flat(&g));
                    // `_backward` adds into the slot it is given
                    let mut d = g.clone();
                    let again = m.loss_backward(&xs[seed], ys[seed], 2.0, &mut d);
                    crate::fd::close("backward's value", again, v, $rel);
                    for (a, b) in flat(&d).iter().zip(flat(&g)) {
                        crate::fd::close("3 × the gradient", *a, 3.0 * b, $rel);
                    }
                }
            }

            #[test]
            fn forward_mode_follows_the_parts_own() {
                let (agree, same) = crate::fd::checks::<$t>($tol, $rel);
                for seed in 0..3 {
                    let m = net(seed);
                    let c = 0.7 - 0.2 * seed as $t;
                    let at = flat(&m);
                    let dir: Vec<$t> = (0..at.len())
                        .map(|k| ((k * 7 + seed) % 5) as $t / 5.0 - 0.4)
                        .collect();
                    let dm = unflat(&dir, &m);
                    let along = |s: $t| -> Net {
                        let p: Vec<$t> = at.iter().zip(&dir).map(|(a, d)| a + s * d).collect();
                        unflat(&p, &m)
                    };
                    // tangents: the slope along `dir`
                    let t = smooth_tangent(&m, c, &dm);
                    crate::fd::close("tangent's value", t.0, smooth(&m, c), $rel);
                    agree(
                        "smooth_tangent",
                        &|s: &[$t]| smooth(&along(s[0]), c),
                        &[0.0],
                        &[t.1],
                    );
                    let t = smooth_pairs_tangent(&m, c, &dm);
                    crate::fd::close("tangent's value", t.0, smooth_pairs(&m, c), $rel);
                    let f = |s: &[$t]| smooth_pairs(&along(s[0]), c);
                    agree("smooth_pairs_tangent", &f, &[0.0], &[t.1]);
                    // the Jacobian's one row is the gradient
                    let (_, j) = smooth_jacobian(&m, c);
                    let (_, g) = smooth_grad(&m, c);
                    same(&j[0], &flat(&g), "smooth's Jacobian and gradient");
                    // Hessian-vector products: the gradient's slope along `dir`
                    let (v, g2, hv) = smooth_hvp(&m, c, &dm);
                    crate::fd::close("hvp's value", v, smooth(&m, c), $rel);
                    same(&flat(&g2), &flat(&g), "hvp's gradient");
                    for k in 0..at.len() {
                        let gk = |s: &[$t]| flat(&smooth_grad(&along(s[0]), c).1)[k];
                        agree("smooth_hvp", &gk, &[0.0], &[flat(&hv)[k]]);
                    }
                }
            }

            #[test]
            fn a_window_calls_the_models_methods() {
                let (agree, _) = crate::fd::checks::<$t>($tol, $rel);
                let (xs, _) = data();
                for seed in 0..3 {
                    let m = net(seed);
                    let (v, g) = window(&m, &xs[1]);
                    let f = |p: &[$t]| {
                        let n = unflat(p, &m);
                        n.loss(&xs[1], 0.5) * n.head.norm() + n.layers[0].polar().1
                    };
                    crate::fd::close("value", v, f(&flat(&m)), $rel);
                    agree("window", &f, &flat(&m), &flat(&g));
                }
            }

            #[test]
            fn a_struct_passed_whole_to_a_function_with_an_array_out() {
                let (agree, _) = crate::fd::checks::<$t>($tol, $rel);
                let (xs, _) = data();
                for seed in 0..3 {
                    let d = net(seed).layers[0].clone();
                    let (v, g) = fit::pairs_grad(&d, &xs[seed]);
                    crate::fd::close("value", v, fit::pairs(&d, &xs[seed]), $rel);
                    let f = |p: &[$t]| fit::pairs(&unflat_layer(p, &d), &xs[seed]);
                    agree("fit::pairs", &f, &flat_layer(&d), &flat_layer(&g));
                }
            }

            #[test]
            fn a_loop_reassigns_an_array_shorter_from_a_call() {
                let (agree, _) = crate::fd::checks::<$t>($tol, $rel);
                let (xs, _) = data();
                for seed in 0..3 {
                    let w: Vec<$t> = (0..9)
                        .map(|k| ((seed * 7 + k * 5) % 11) as $t / 11.0 - 0.4)
                        .collect();
                    let (v, g) = shrinking_grad(&w, &xs[seed]);
                    crate::fd::close("value", v, shrinking(&w, &xs[seed]), $rel);
                    let f = |p: &[$t]| shrinking(p, &xs[seed]);
                    agree("shrinking", &f, &w, &g);
                }
            }
        }
    };
}

tests!(f64_models, m64, f64, 1e-6, 1e-10);
tests!(f32_models, m32, f32, 2e-2, 1e-4);
