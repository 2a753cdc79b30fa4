//! Struct knobs (`#[derive(mica::Knob)]`, SPEC 3.4): each checked against
//! finite differences or by hand, and against the same function written
//! with one tracked parameter per field.
#![allow(clippy::needless_range_loop)]

mod fd;

mod models {
    #[derive(Clone, Debug, PartialEq, mica::Knob)]
    pub struct Affine {
        pub w: [[f64; 2]; 3],
        pub b: Vec<f64>,
        pub scale: f64,
        #[knob(skip)]
        pub name: String,
        pub steps: usize,
    }
}

use models::Affine;

#[mica::tape]
pub fn loss(#[tracked] m: &Affine, x: &[f64; 2]) -> f64 {
    let mut total = 0.0;
    for i in 0..3 {
        let row = &m.w[i];
        let z = row[0] * x[0] + m.w[i][1] * x[1] + m.b[i];
        total += (z * m.scale).tanh();
    }
    total + m.name.len() as f64 * 0.0 + m.steps as f64
}

/// [`loss`] with one tracked parameter per field.
#[mica::tape]
pub fn loss_fields(
    #[tracked] w: &[[f64; 2]; 3],
    #[tracked] b: &[f64],
    #[tracked] scale: f64,
    x: &[f64; 2],
) -> f64 {
    let mut total = 0.0;
    for i in 0..3 {
        let row = &w[i];
        let z = row[0] * x[0] + w[i][1] * x[1] + b[i];
        total += (z * scale).tanh();
    }
    total + 2.0
}

/// [`loss`] with every shortcut off, the fields named once by `let`.
#[mica::tape(plain)]
pub fn loss_plain(#[tracked] m: &Affine, x: &[f64; 2]) -> f64 {
    let w = &m.w;
    let scale = m.scale;
    let mut total = 0.0;
    for i in 0..3 {
        let z = w[i][0] * x[0] + w[i][1] * x[1] + m.b[i];
        total += (z * scale).tanh();
    }
    total + m.steps as f64
}

#[test]
fn an_affine_struct_agrees_with_finite_differences() {
    let m = Affine {
        w: [[0.1, -0.2], [0.3, 0.4], [-0.5, 0.6]],
        b: vec![0.1, 0.2, -0.3],
        scale: 0.7,
        name: "a".into(),
        steps: 2,
    };
    let x = [0.5, -1.5];
    let (v, g) = loss_grad(&m, &x);
    assert_eq!(v, loss(&m, &x));
    assert_eq!(g.name, "a");
    let flat = |m: &Affine| {
        let mut v: Vec<f64> = m.w.iter().flatten().copied().collect();
        v.extend(&m.b);
        v.push(m.scale);
        v
    };
    let unflat = |v: &[f64]| {
        let mut m2 = m.clone();
        for i in 0..3 {
            m2.w[i] = [v[2 * i], v[2 * i + 1]];
        }
        m2.b = v[6..9].to_vec();
        m2.scale = v[9];
        m2
    };
    fd::agrees(
        "affine",
        &|v| loss(&unflat(v), &x),
        &flat(&m),
        &flat(&g),
        1e-6,
    );
}

mod nested {
    #[derive(Clone, Debug, mica::Knob)]
    pub struct Layer<T> {
        pub w: Vec<[T; 2]>,
        pub b: [T; 2],
    }

    #[derive(Clone, Debug, mica::Knob)]
    pub struct Net<T> {
        pub hidden: Layer<T>,
        pub out: [T; 2],
        pub bias: T,
    }
}

#[mica::tape]
pub mod net {
    use super::nested::{Layer, Net};
    use mica::Real;

    fn dot<T: Real>(a: &[T; 2], b: &[T; 2]) -> T {
        a[0] * b[0] + a[1] * b[1]
    }

    fn layer<T: Real>(l: &Layer<T>, x: &[T; 2]) -> [T; 2] {
        [
            (dot(&l.w[0], x) + l.b[0]).tanh(),
            (dot(&l.w[1], x) + l.b[1]).tanh(),
        ]
    }

    pub fn predict<T: Real>(#[tracked] net: &Net<T>, x: &[T; 2]) -> T {
        let h = layer(&net.hidden, x);
        dot(&net.out, &h) + net.bias
    }

    /// calls another entry point, passing the struct whole
    pub fn total<T: Real>(#[tracked] net: &Net<T>, xs: &[[T; 2]]) -> T {
        let mut s = T::zero();
        for x in xs {
            s += predict(net, x) * predict(net, x);
        }
        s
    }

    pub fn batch<T: Real>(#[tracked] net: Net<T>, #[tracked] k: T, xs: &[[T; 2]]) -> T {
        let mut s = T::zero();
        for x in xs {
            let h = layer(&net.hidden, x);
            let e = dot(&net.out, &h) + net.bias - k;
            s += e * e;
        }
        s
    }
}

macro_rules! nested_check {
    ($t:ty, $tol:expr) => {{
        use nested::{Layer, Net};
        let n: Net<$t> = Net {
            hidden: Layer {
                w: vec![[0.3, -0.2], [0.5, 0.1]],
                b: [0.05, -0.1],
            },
            out: [0.7, -0.4],
            bias: 0.2,
        };
        let flat = |n: &Net<$t>| {
            let mut v: Vec<$t> = n.hidden.w.iter().flatten().copied().collect();
            v.extend(n.hidden.b);
            v.extend(n.out);
            v.push(n.bias);
            v
        };
        let unflat = |v: &[$t]| Net {
            hidden: Layer {
                w: vec![[v[0], v[1]], [v[2], v[3]]],
                b: [v[4], v[5]],
            },
            out: [v[6], v[7]],
            bias: v[8],
        };
        for x in [[0.4, -0.9], [1.2, 0.3], [-0.6, 0.8]] {
            let (_, g) = net::predict_grad(&n, &x);
            fd::agrees(
                "nested",
                &|v| net::predict(&unflat(v), &x),
                &flat(&n),
                &flat(&g),
                $tol,
            );
        }
        let xs = [[0.4, -0.9], [1.2, 0.3]];
        let (_, g) = net::total_grad(&n, &xs);
        fd::agrees(
            "an entry calling an entry",
            &|v| net::total(&unflat(v), &xs),
            &flat(&n),
            &flat(&g),
            $tol,
        );
        let (_, (g, gk)) = net::batch_grad(n.clone(), 0.3, &xs);
        let mut at = flat(&n);
        at.push(0.3);
        let mut claimed = flat(&g);
        claimed.push(gk);
        fd::agrees(
            "by value",
            &|v| net::batch(unflat(v), v[9], &xs),
            &at,
            &claimed,
            $tol,
        );
        // `_backward` adds seed × gradient into the slots
        let mut d = mica::Knob::zeros_like(&n);
        let mut dk = 0.0;
        net::batch_backward(n.clone(), 0.3, &xs, 2.0, &mut d, &mut dk);
        net::batch_backward(n.clone(), 0.3, &xs, 1.0, &mut d, &mut dk);
        fd::same(
            "backward accumulates",
            &flat(&d),
            &flat(&g).iter().map(|g| 3.0 * g).collect::<Vec<_>>(),
            1e-5,
        );
        // one descent step with `add_scaled`
        let mut stepped = n.clone();
        mica::Knob::add_scaled(&mut stepped, &g, -0.1);
        let want: Vec<$t> = flat(&n)
            .iter()
            .zip(flat(&g))
            .map(|(a, b)| a - 0.1 * b)
            .collect();
        fd::same("add_scaled", &flat(&stepped), &want, 1e-6);
    }};
}

#[test]
fn a_nested_generic_struct_in_the_module_form() {
    nested_check!(f64, 1e-6);
    nested_check!(f32, 2e-2);
}

/// A model whose loss is its own method: `#[tracked] &self`.
#[derive(Clone, Debug, mica::Knob)]
pub struct Line {
    pub slope: f64,
    pub offset: [f64; 1],
    #[knob(skip)]
    pub weight: f64,
}

#[mica::tape]
impl Line {
    // an inner attribute stays the block's
    #![allow(clippy::needless_range_loop)]

    fn predict(&self, x: f64) -> f64 {
        self.slope * x + self.offset[0]
    }

    /// the weighted squared error over the points, plus `ridge · slope²`
    pub fn loss(#[tracked] &self, xs: &[f64], ys: &[f64], #[tracked] ridge: f64) -> f64 {
        let mut total = 0.0;
        for i in 0..xs.len() {
            let e = self.predict(xs[i]) - ys[i];
            total += self.weight * e * e;
        }
        total + ridge * self.slope * self.slope
    }
}

#[test]
fn a_method_tracks_its_own_struct() {
    let line = Line {
        slope: 0.7,
        offset: [-0.2],
        weight: 1.5,
    };
    let (xs, ys) = ([0.0, 1.0, 2.0], [0.1, 0.9, 2.2]);
    let (v, (g, gr)) = line.loss_grad(&xs, &ys, 0.3);
    assert_eq!(v, line.loss(&xs, &ys, 0.3));
    assert_eq!(g.weight, 1.5);
    assert_eq!(line.predict(2.0), 1.2);
    // by hand: e_i = s x_i + o - y_i; ∂/∂s = 2 w Σ e_i x_i + 2 r s
    let e: Vec<f64> = (0..3).map(|i| 0.7 * xs[i] - 0.2 - ys[i]).collect();
    let ds = 2.0 * 1.5 * (0..3).map(|i| e[i] * xs[i]).sum::<f64>() + 2.0 * 0.3 * 0.7;
    let d_o = 2.0 * 1.5 * e.iter().sum::<f64>();
    fd::same(
        "self by hand",
        &[g.slope, g.offset[0], gr],
        &[ds, d_o, 0.49],
        1e-12,
    );
    let mut d = mica::Knob::zeros_like(&line);
    let mut dr = 0.0;
    line.loss_backward(&xs, &ys, 0.3, 2.0, &mut d, &mut dr);
    fd::same(
        "self backward",
        &[d.slope, d.offset[0], dr],
        &[2.0 * ds, 2.0 * d_o, 0.98],
        1e-12,
    );
}

/// A rule written by hand for a struct knob: `#[tape(custom)]` writes
/// `_grad` around the hand-written `_backward`, whose slot is the struct.
#[mica::tape(custom)]
pub fn spring_energy(#[tracked] s: &Line, x: f64) -> f64 {
    0.5 * s.slope * x * x + s.offset[0]
}

pub fn spring_energy_backward(s: &Line, x: f64, seed: f64, d_s: &mut Line) -> f64 {
    d_s.slope += seed * 0.5 * x * x;
    d_s.offset[0] += seed;
    spring_energy(s, x)
}

#[test]
fn a_custom_rule_takes_the_struct_slot() {
    let s = Line {
        slope: 2.0,
        offset: [0.5],
        weight: 1.0,
    };
    let (v, g) = spring_energy_grad(&s, 3.0);
    assert_eq!(v, 9.5);
    assert_eq!((g.slope, g.offset[0], g.weight), (4.5, 1.0, 1.0));
}

/// The window form: `#[tracked] let` of a struct, `gradient!` of it.
#[mica::tape]
pub fn line_window(start: &Line, xs: &[f64], ys: &[f64]) -> (f64, Line) {
    #[tracked]
    let line: Line = start.clone();
    tape! {
        let mut total = 0.0;
        for i in 0..xs.len() {
            let e = line.slope * xs[i] + line.offset[0] - ys[i];
            total += line.weight * e * e;
        }
    }
    backward!(total);
    (total, gradient!(line))
}

#[test]
fn a_window_tracks_a_struct() {
    let line = Line {
        slope: 0.7,
        offset: [-0.2],
        weight: 1.5,
    };
    let (xs, ys) = ([0.0, 1.0, 2.0], [0.1, 0.9, 2.2]);
    let (v, g) = line_window(&line, &xs, &ys);
    let (w, (h, _)) = line.loss_grad(&xs, &ys, 0.0);
    assert_eq!(v, w);
    assert_eq!((g.slope, g.offset, g.weight), (h.slope, h.offset, 1.5));
}

/// A linear model whose method ends in an iterator chain with no type
/// written (`….sum()`), its type the method's return type: called in a
/// difference with a borrowed target (`self.predict(x) - y`). Once the
/// method's body stood in the loss, nothing gave `sum` its type, and the
/// crate did not compile ("type annotations needed" at the `sum`).
macro_rules! summed_model {
    ($m:ident, $t:ty) => {
        pub mod $m {
            #[derive(Clone, Debug, mica::Knob)]
            pub struct Fit {
                pub w: Vec<$t>,
                pub b: $t,
            }

            #[mica::tape]
            impl Fit {
                fn predict(&self, x: &[$t]) -> $t {
                    self.w.iter().zip(x).map(|(a, v)| a * v * (0.5 + v)).sum()
                }
                fn squares(&self) -> Vec<$t> {
                    self.w.iter().map(|a| a * a).collect()
                }
                pub fn loss(#[tracked] &self, xs: &[Vec<$t>], ys: &[$t]) -> $t {
                    let mut l = 0.0;
                    for (x, y) in xs.iter().zip(ys) {
                        let d = self.predict(x) - y + self.b;
                        l += d * d;
                    }
                    l + self.squares()[0]
                }
            }
        }
    };
}
summed_model!(summed64, f64);
summed_model!(summed32, f32);

macro_rules! check_summed {
    ($m:ident, $t:ty, $tol:expr, $rel:expr) => {{
        use $m::Fit;
        let xs: Vec<Vec<$t>> = vec![vec![1.0, 2.0], vec![-0.5, 0.4], vec![0.3, -1.1]];
        let ys: [$t; 3] = [0.5, 1.0, -0.2];
        for (w, b) in [([0.3, -0.7], 0.1), ([-1.2, 0.4], -0.6), ([0.8, 0.25], 0.9)] {
            let fit = Fit { w: w.to_vec(), b };
            let (value, g) = fit.loss_grad(&xs, &ys);
            assert_eq!(value, fit.loss(&xs, &ys));
            // by hand: d = b + Σ aᵢ(½vᵢ + vᵢ²) − y; ∂/∂aᵢ = Σ 2d(½vᵢ + vᵢ²) + [i = 0] 2a₀
            let mut by_hand = vec![0.0 as $t; 3];
            for (x, y) in xs.iter().zip(&ys) {
                let d = b + (0..2).map(|i| w[i] * (0.5 * x[i] + x[i] * x[i])).sum::<$t>() - y;
                for i in 0..2 {
                    by_hand[i] += 2.0 * d * (0.5 * x[i] + x[i] * x[i]);
                }
                by_hand[2] += 2.0 * d;
            }
            by_hand[0] += 2.0 * w[0];
            let claimed = [g.w[0], g.w[1], g.b];
            fd::same("summed by hand", &claimed, &by_hand, $rel);
            let at = [w[0], w[1], b];
            fd::agrees(
                "summed",
                &|v: &[$t]| Fit { w: v[..2].to_vec(), b: v[2] }.loss(&xs, &ys),
                &at,
                &claimed,
                $tol,
            );
        }
    }};
}

#[test]
fn a_method_ending_in_an_untyped_sum_builds_and_agrees() {
    check_summed!(summed64, f64, 1e-6, 1e-12);
    check_summed!(summed32, f32, 2e-2, 1e-5);
}

/// The same model generic over its float, `impl<T: Real>`: a method ending
/// in an untyped `sum` (and one in `.sum::<T>()`), a method returning the
/// `Vec<T>` an untyped `collect` makes, and a chain over a method's value
/// (`self.squares().iter()`). The chains' loops took the `impl`'s `T` for
/// an integer, and the untyped consumers had no type once written in.
mod generic_fit {
    use mica::Real;

    #[derive(Clone, Debug, mica::Knob)]
    pub struct Fit<T> {
        pub w: Vec<T>,
        pub b: T,
    }

    #[mica::tape]
    impl<T: Real> Fit<T> {
        fn predict(&self, x: &[T]) -> T {
            self.w.iter().zip(x).map(|(a, v)| *a * *v * *v).sum()
        }
        fn offset(&self, x: &[T]) -> T {
            x.iter().map(|v| *v * self.b).sum::<T>()
        }
        fn squares(&self) -> Vec<T> {
            self.w.iter().map(|a| *a * *a).collect()
        }
        pub fn loss(#[tracked] &self, xs: &[Vec<T>], ys: &[T]) -> T {
            let mut l = T::zero();
            for (x, y) in xs.iter().zip(ys) {
                let d = self.predict(x) + self.offset(x) - *y;
                l += d * d;
            }
            l + self.squares().iter().sum::<T>()
        }
    }
}

macro_rules! check_generic_fit {
    ($t:ty, $tol:expr, $rel:expr) => {{
        use generic_fit::Fit;
        let xs: Vec<Vec<$t>> = vec![vec![1.0, 2.0], vec![-0.5, 0.4], vec![0.3, -1.1]];
        let ys: [$t; 3] = [0.5, 1.0, -0.2];
        for (w, b) in [([0.3, -0.7], 0.1), ([-1.2, 0.4], -0.6), ([0.8, 0.25], 0.9)] {
            let fit: Fit<$t> = Fit { w: w.to_vec(), b };
            let (value, g) = fit.loss_grad(&xs, &ys);
            assert_eq!(value, fit.loss(&xs, &ys));
            // by hand: d = Σ aᵢvᵢ² + b Σ vᵢ − y; ∂/∂aᵢ = Σ 2d vᵢ² + 2aᵢ,
            // ∂/∂b = Σ 2d Σ vᵢ
            let mut by_hand = vec![0.0 as $t; 3];
            for (x, y) in xs.iter().zip(&ys) {
                let s: $t = x.iter().sum();
                let d = (0..2).map(|i| w[i] * x[i] * x[i]).sum::<$t>() + b * s - y;
                for i in 0..2 {
                    by_hand[i] += 2.0 * d * x[i] * x[i];
                }
                by_hand[2] += 2.0 * d * s;
            }
            by_hand[0] += 2.0 * w[0];
            by_hand[1] += 2.0 * w[1];
            let claimed = [g.w[0], g.w[1], g.b];
            fd::same("generic fit by hand", &claimed, &by_hand, $rel);
            let at = [w[0], w[1], b];
            fd::agrees(
                "generic fit",
                &|v: &[$t]| {
                    let f: Fit<$t> = Fit {
                        w: v[..2].to_vec(),
                        b: v[2],
                    };
                    f.loss(&xs, &ys)
                },
                &at,
                &claimed,
                $tol,
            );
        }
    }};
}

#[test]
fn a_generic_impl_with_untyped_sums_and_a_chain_over_a_method_builds_and_agrees() {
    check_generic_fit!(f64, 1e-6, 1e-12);
    check_generic_fit!(f32, 2e-2, 1e-5);
}
