//! `tangent`, `jacobian` and `hvp` of struct models and methods: a free
//! function of a `#[derive(Knob)]` network (a `Vec` of layers, a skipped
//! field, an integer field), methods with a tracked `&self`, a method whose
//! `self` only holds constants, and vector outputs of both. Each companion
//! against central finite differences (of the primal for tangents and
//! Jacobians, of `_grad` for Hessian-vector products) at several points, in
//! `f64` and `f32`; each struct is flattened here by hand, field by field,
//! in declaration order (the order `_jacobian` numbers its columns by).
#![deny(warnings)]

mod fd;

macro_rules! models {
    ($m:ident, $t:ty) => {
        pub mod $m {
            use mica::tape;

            #[derive(Clone, Debug, mica::Knob)]
            pub struct Layer {
                pub w: [[$t; 2]; 2],
                pub b: [$t; 2],
            }

            #[derive(Clone, Debug, mica::Knob)]
            pub struct Net {
                pub layers: Vec<Layer>,
                pub out: [$t; 2],
                pub bias: $t,
                #[knob(skip)]
                pub label: String,
                pub repeats: usize,
            }

            /// The network's output for one input.
            #[tape(tangent, jacobian)]
            pub fn predict(#[tracked] net: &Net, x: &[$t; 2]) -> [$t; 2] {
                let mut h = *x;
                for layer in &net.layers {
                    let mut next = [0.0; 2];
                    for i in 0..2 {
                        next[i] = (layer.w[i][0] * h[0] + layer.w[i][1] * h[1] + layer.b[i]).tanh();
                    }
                    h = next;
                }
                [h[0] * net.out[0] + net.bias, h[1] * net.out[1] - net.bias]
            }

            /// Mean squared error of a small network, read the way a
            /// model's loss is written.
            #[tape(tangent, jacobian, hvp)]
            pub fn loss(#[tracked] net: &Net, xs: &[[$t; 2]], ys: &[$t]) -> $t {
                let mut total = 0.0;
                for (x, y) in xs.iter().zip(ys) {
                    let mut h = *x;
                    for layer in &net.layers {
                        let mut next = [0.0; 2];
                        for i in 0..2 {
                            next[i] =
                                (layer.w[i][0] * h[0] + layer.w[i][1] * h[1] + layer.b[i]).tanh();
                        }
                        h = next;
                    }
                    let p = net.out[0] * h[0] + net.out[1] * h[1] + net.bias;
                    for _ in 0..net.repeats {
                        total += (p - y) * (p - y);
                    }
                }
                total / (xs.len() as $t)
            }

            /// A struct and a plain array, both tracked.
            #[tape(tangent, jacobian, hvp)]
            pub fn scaled(#[tracked] net: &Net, #[tracked] s: &[$t; 2]) -> $t {
                let a = net.out[0] * s[0] + net.bias * s[1] * s[1];
                let b = net.layers[0].w[1][0] * s[0].sin();
                a * b + net.layers[1].b[0].exp() * s[1]
            }

            #[derive(Clone, Debug, mica::Knob)]
            pub struct Spring {
                pub k: [$t; 2],
                pub rest: $t,
                #[knob(skip)]
                pub mass: $t,
            }

            #[tape]
            impl Spring {
                /// Energy of a stretched spring: the model and the point.
                #[tape(tangent, jacobian, hvp)]
                pub fn energy(#[tracked] &self, #[tracked] x: &[$t; 2]) -> $t {
                    let stretch = (x[0] * x[0] + x[1] * x[1]).sqrt() - self.rest;
                    0.5 * (self.k[0] + self.k[1] * stretch * stretch) * stretch * stretch
                        + self.mass * x[1]
                }

                /// The model's constants only: `self` is not tracked.
                #[tape(tangent, jacobian, hvp)]
                pub fn potential(&self, #[tracked] x: &[$t; 2]) -> $t {
                    self.k[0] * x[0].powi(2) * x[1] + self.k[1] * (x[1] - self.rest).powi(4)
                }

                /// A vector output of the model and the point.
                #[tape(tangent, jacobian)]
                pub fn force(#[tracked] &self, #[tracked] x: &[$t; 2]) -> [$t; 2] {
                    let r = (x[0] * x[0] + x[1] * x[1]).sqrt();
                    let f = self.k[0] * (r - self.rest) + self.k[1] * (r - self.rest).powi(3);
                    [-f * x[0] / r, -f * x[1] / r - self.mass]
                }
            }
        }
    };
}

models!(m64, f64);
models!(m32, f32);

macro_rules! checks {
    ($name:ident, $m:ident, $t:ty, $h:expr, $rel:expr) => {
        mod $name {
            use super::$m::{self as p, Layer, Net, Spring};
            use crate::fd::close;
            use mica::Knob;

            type T = $t;
            const H: T = $h;
            const REL: T = $rel;

            fn net(seed: usize) -> Net {
                let v = |k: usize| -> T { (((seed * 7 + k * 13) % 17) as T) / 17.0 - 0.45 };
                Net {
                    layers: (0..2)
                        .map(|l| Layer {
                            w: [[v(l * 6), v(l * 6 + 1)], [v(l * 6 + 2), v(l * 6 + 3)]],
                            b: [v(l * 6 + 4), v(l * 6 + 5)],
                        })
                        .collect(),
                    out: [v(20) + 0.5, v(21) - 0.5],
                    bias: v(22),
                    label: "net".to_string(),
                    repeats: 2,
                }
            }

            /// The network's floats, field by field in declaration order.
            fn flat_net(n: &Net) -> Vec<T> {
                let mut out = Vec::new();
                for l in &n.layers {
                    out.extend(l.w.iter().flatten());
                    out.extend(l.b);
                }
                out.extend(n.out);
                out.push(n.bias);
                out
            }

            fn spring(seed: usize) -> Spring {
                let s = seed as T;
                Spring {
                    k: [1.0 + 0.3 * s, 0.5 - 0.1 * s],
                    rest: 0.8 + 0.05 * s,
                    mass: 0.25,
                }
            }

            fn flat_spring(s: &Spring) -> Vec<T> {
                vec![s.k[0], s.k[1], s.rest]
            }

            fn data() -> (Vec<[T; 2]>, Vec<T>) {
                (
                    vec![[0.3, -0.7], [1.1, 0.4], [-0.5, 0.9]],
                    vec![0.2, -0.4, 0.7],
                )
            }

            /// `a + h·d` for a struct.
            fn moved<K: Clone + Knob<Grad = K> + Step>(a: &K, d: &K, h: T) -> K {
                let mut a = a.clone();
                a.step(d, h);
                a
            }

            /// The step `a += h·d` of the test's two models.
            trait Step {
                fn step(&mut self, d: &Self, h: T);
            }
            impl Step for Net {
                fn step(&mut self, d: &Self, h: T) {
                    self.add_scaled(d, h as f64);
                }
            }
            impl Step for Spring {
                fn step(&mut self, d: &Self, h: T) {
                    self.add_scaled(d, h as f64);
                }
            }

            #[test]
            fn tangent_of_a_network_loss() {
                let (xs, ys) = data();
                for seed in 0..3 {
                    let (n, d) = (net(seed), net(seed + 5));
                    let (value, dot) = p::loss_tangent(&n, &xs, &ys, &d);
                    close("value", value, p::loss(&n, &xs, &ys), 1e-5);
                    let fd = (p::loss(&moved(&n, &d, H), &xs, &ys)
                        - p::loss(&moved(&n, &d, -H), &xs, &ys))
                        / (2.0 * H);
                    close("tangent", dot, fd, REL);
                    // a tangent is the gradient read along the direction
                    let (_, g) = p::loss_grad(&n, &xs, &ys);
                    let along: T = flat_net(&g)
                        .iter()
                        .zip(flat_net(&d))
                        .map(|(a, b)| a * b)
                        .sum();
                    close("tangent vs gradient", dot, along, 1e-4);
                }
            }

            #[test]
            fn hvp_of_a_network_loss() {
                let (xs, ys) = data();
                for seed in 0..3 {
                    let (n, v) = (net(seed), net(seed + 3));
                    let (value, g, hv) = p::loss_hvp(&n, &xs, &ys, &v);
                    let (value2, g2) = p::loss_grad(&n, &xs, &ys);
                    close("value", value, value2, 1e-5);
                    for (a, b) in flat_net(&g).iter().zip(flat_net(&g2)) {
                        close("gradient", *a, b, 1e-5);
                    }
                    let gp = flat_net(&p::loss_grad(&moved(&n, &v, H), &xs, &ys).1);
                    let gm = flat_net(&p::loss_grad(&moved(&n, &v, -H), &xs, &ys).1);
                    for (j, h) in flat_net(&hv).iter().enumerate() {
                        close("H·v", *h, (gp[j] - gm[j]) / (2.0 * H), REL);
                    }
                    // symmetric: u·Hv = v·Hu
                    let u = net(seed + 8);
                    let (_, _, hu) = p::loss_hvp(&n, &xs, &ys, &u);
                    let dot = |a: &Net, b: &Net| -> T {
                        flat_net(a)
                            .iter()
                            .zip(flat_net(b))
                            .map(|(x, y)| x * y)
                            .sum()
                    };
                    close("symmetry", dot(&u, &hv), dot(&v, &hu), 1e-4);
                }
            }

            #[test]
            fn jacobians_of_a_network() {
                let (xs, ys) = data();
                let x = [0.4, -0.2];
                for seed in 0..3 {
                    let n = net(seed);
                    // a scalar: one row, the gradient
                    let (value, j) = p::loss_jacobian(&n, &xs, &ys);
                    close("value", value, p::loss(&n, &xs, &ys), 1e-5);
                    assert_eq!(j.len(), 1);
                    let g = flat_net(&p::loss_grad(&n, &xs, &ys).1);
                    assert_eq!(j[0].len(), g.len());
                    for (a, b) in j[0].iter().zip(&g) {
                        close("row", *a, *b, 1e-5);
                    }
                    // two outputs of 15 inputs: by rows, each against finite
                    // differences along each input
                    let (out, j) = p::predict_jacobian(&n, &x);
                    assert_eq!(out, p::predict(&n, &x));
                    assert_eq!((j.len(), j[0].len()), (2, 15));
                    let width = flat_net(&n).len();
                    for col in 0..width {
                        let mut unit = n.zeros_like();
                        let mut k = col;
                        let mut set = |v: &mut T| {
                            if k == 0 {
                                *v = 1.0;
                            }
                            k = k.wrapping_sub(1);
                        };
                        for l in &mut unit.layers {
                            l.w.iter_mut().flatten().for_each(&mut set);
                            l.b.iter_mut().for_each(&mut set);
                        }
                        unit.out.iter_mut().for_each(&mut set);
                        set(&mut unit.bias);
                        let plus = p::predict(&moved(&n, &unit, H), &x);
                        let minus = p::predict(&moved(&n, &unit, -H), &x);
                        let (_, dot) = p::predict_tangent(&n, &x, &unit);
                        for row in 0..2 {
                            let fd = (plus[row] - minus[row]) / (2.0 * H);
                            close("J", j[row][col], fd, REL);
                            close("tangent is a column", dot[row], j[row][col], 1e-5);
                        }
                    }
                }
            }

            #[test]
            fn two_tracked_parameters_one_a_struct() {
                for seed in 0..3 {
                    let n = net(seed);
                    let s = [0.3 + 0.2 * seed as T, -0.6];
                    let (vn, vs) = (net(seed + 2), [0.5, -0.25]);
                    let (value, dot) = p::scaled_tangent(&n, &s, &vn, &vs);
                    close("value", value, p::scaled(&n, &s), 1e-5);
                    let at =
                        |h: T| p::scaled(&moved(&n, &vn, h), &[s[0] + h * vs[0], s[1] + h * vs[1]]);
                    close("tangent", dot, (at(H) - at(-H)) / (2.0 * H), REL);
                    let (_, (gn, gs), (hn, hs)) = p::scaled_hvp(&n, &s, &vn, &vs);
                    let (_, (gn2, gs2)) = p::scaled_grad(&n, &s);
                    close("gradient", gs[1], gs2[1], 1e-5);
                    close("gradient", flat_net(&gn)[12], flat_net(&gn2)[12], 1e-5);
                    let grad = |h: T| {
                        let (_, (a, b)) = p::scaled_grad(
                            &moved(&n, &vn, h),
                            &[s[0] + h * vs[0], s[1] + h * vs[1]],
                        );
                        let mut all = flat_net(&a);
                        all.extend(b);
                        all
                    };
                    let (gp, gm) = (grad(H), grad(-H));
                    let mut hv = flat_net(&hn);
                    hv.extend(hs);
                    for (j, h) in hv.iter().enumerate() {
                        close("H·v", *h, (gp[j] - gm[j]) / (2.0 * H), REL);
                    }
                    let (_, j) = p::scaled_jacobian(&n, &s);
                    let mut g = flat_net(&gn2);
                    g.extend(gs2);
                    assert_eq!(j[0].len(), g.len());
                    for (a, b) in j[0].iter().zip(&g) {
                        close("row", *a, *b, 1e-5);
                    }
                }
            }

            #[test]
            fn methods_of_a_tracked_self() {
                for seed in 0..3 {
                    let m = spring(seed);
                    let x = [0.9 + 0.1 * seed as T, -0.4];
                    let (dm, dx) = (spring(seed + 4), [0.3, 0.7]);
                    let at = |h: T| moved(&m, &dm, h).energy(&[x[0] + h * dx[0], x[1] + h * dx[1]]);
                    let (value, dot) = m.energy_tangent(&x, &dm, &dx);
                    close("value", value, m.energy(&x), 1e-5);
                    close("tangent", dot, (at(H) - at(-H)) / (2.0 * H), REL);

                    let (value, (gm, gx), (hm, hx)) = m.energy_hvp(&x, &dm, &dx);
                    let (value2, (gm2, gx2)) = m.energy_grad(&x);
                    close("value", value, value2, 1e-5);
                    close("gradient", gm.k[1], gm2.k[1], 1e-5);
                    close("gradient", gx[0], gx2[0], 1e-5);
                    let grad = |h: T| {
                        let (_, (a, b)) =
                            moved(&m, &dm, h).energy_grad(&[x[0] + h * dx[0], x[1] + h * dx[1]]);
                        let mut all = flat_spring(&a);
                        all.extend(b);
                        all
                    };
                    let (gp, gn) = (grad(H), grad(-H));
                    let mut hv = flat_spring(&hm);
                    hv.extend(hx);
                    for (j, h) in hv.iter().enumerate() {
                        close("H·v", *h, (gp[j] - gn[j]) / (2.0 * H), REL);
                    }

                    let (_, j) = m.energy_jacobian(&x);
                    let mut g = flat_spring(&gm2);
                    g.extend(gx2);
                    assert_eq!(j[0].len(), 5);
                    for (a, b) in j[0].iter().zip(&g) {
                        close("row", *a, *b, 1e-5);
                    }

                    // a vector output: each column against finite differences
                    let (f, j) = m.force_jacobian(&x);
                    assert_eq!(f, m.force(&x));
                    assert_eq!((j.len(), j[0].len()), (2, 5));
                    for col in 0..5 {
                        let mut um = m.zeros_like();
                        let mut ux = [0.0; 2];
                        match col {
                            0 | 1 => um.k[col] = 1.0,
                            2 => um.rest = 1.0,
                            _ => ux[col - 3] = 1.0,
                        }
                        let plus = moved(&m, &um, H).force(&[x[0] + H * ux[0], x[1] + H * ux[1]]);
                        let minus = moved(&m, &um, -H).force(&[x[0] - H * ux[0], x[1] - H * ux[1]]);
                        let (_, dot) = m.force_tangent(&x, &um, &ux);
                        for row in 0..2 {
                            close("J", j[row][col], (plus[row] - minus[row]) / (2.0 * H), REL);
                            close("tangent is a column", dot[row], j[row][col], 1e-5);
                        }
                    }
                }
            }

            #[test]
            fn methods_of_an_untracked_self() {
                for seed in 0..3 {
                    let m = spring(seed);
                    let x = [0.6 - 0.2 * seed as T, 1.1];
                    let v = [0.4, -0.9];
                    let at = |h: T| m.potential(&[x[0] + h * v[0], x[1] + h * v[1]]);
                    let (value, dot) = m.potential_tangent(&x, &v);
                    close("value", value, m.potential(&x), 1e-5);
                    close("tangent", dot, (at(H) - at(-H)) / (2.0 * H), REL);
                    let (_, g, hv) = m.potential_hvp(&x, &v);
                    let g2 = m.potential_grad(&x).1;
                    let gp = m.potential_grad(&[x[0] + H * v[0], x[1] + H * v[1]]).1;
                    let gn = m.potential_grad(&[x[0] - H * v[0], x[1] - H * v[1]]).1;
                    for j in 0..2 {
                        close("gradient", g[j], g2[j], 1e-5);
                        close("H·v", hv[j], (gp[j] - gn[j]) / (2.0 * H), REL);
                    }
                    let (_, jac) = m.potential_jacobian(&x);
                    close("row", jac[0][0], g2[0], 1e-5);
                    close("row", jac[0][1], g2[1], 1e-5);
                }
            }
        }
    };
}

checks!(f64_checks, m64, f64, 1e-5, 1e-5);
checks!(f32_checks, m32, f32, 1e-2, 3e-2);
