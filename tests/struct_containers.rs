//! Struct knobs whose fields hold structs in a `Vec` or an array
//! (`m.layers[l].w[i]`, SPEC 3.4), in every form, f32 and f64, against
//! finite differences and against one another.
#![allow(clippy::needless_range_loop)]

mod fd;

mod models {
    /// A dense layer stored the way hand-rolled networks store one: flat
    /// weights, row by row, and the width of its input.
    #[derive(Clone, Debug, mica::Knob)]
    pub struct Dense<T> {
        pub w: Vec<T>,
        pub b: Vec<T>,
        pub inputs: usize,
    }

    /// Any number of layers, an output scale, and a name.
    #[derive(Clone, Debug, mica::Knob)]
    pub struct Mlp<T> {
        pub layers: Vec<Dense<T>>,
        pub scale: T,
        #[knob(skip)]
        pub name: String,
    }

    #[derive(Clone, Debug, mica::Knob)]
    pub struct Inner {
        pub z: f64,
    }

    #[derive(Clone, Debug, mica::Knob)]
    pub struct Cell {
        pub a: [f64; 2],
        pub c: f64,
        pub inner: Inner,
    }

    /// An array of structs, and a `Vec` of structs that hold a `Vec` of
    /// structs.
    #[derive(Clone, Debug, mica::Knob)]
    pub struct Grid {
        pub cells: [Cell; 3],
        pub rows: Vec<Row>,
    }

    #[derive(Clone, Debug, mica::Knob)]
    pub struct Row {
        pub cells: Vec<Cell>,
        pub weight: f64,
    }
}

use mica::Real;
use models::*;

/// The layers one after another, as a loop over `m.layers` with the
/// activations in a `Vec` that each layer replaces.
#[mica::tape]
pub fn mlp<T: Real>(#[tracked] m: &Mlp<T>, x: &[T]) -> T {
    let mut h = x.to_vec();
    for l in 0..m.layers.len() {
        let n = m.layers[l].b.len();
        let mut next = vec![T::zero(); n];
        for o in 0..n {
            let mut z = m.layers[l].b[o];
            for i in 0..m.layers[l].inputs {
                z += m.layers[l].w[o * m.layers[l].inputs + i] * h[i];
            }
            next[o] = z.tanh();
        }
        h = next;
    }
    let mut total = T::zero();
    for v in h.iter() {
        total += *v;
    }
    total * m.scale
}

/// The same network with a helper that takes one layer.
#[mica::tape]
pub mod helped {
    use super::models::{Dense, Mlp};
    use mica::Real;

    fn unit<T: Real>(layer: &Dense<T>, h: &[T], o: usize) -> T {
        let mut z = layer.b[o];
        for i in 0..layer.inputs {
            z += layer.w[o * layer.inputs + i] * h[i];
        }
        z.tanh()
    }

    pub fn mlp<T: Real>(#[tracked] m: &Mlp<T>, x: &[T]) -> T {
        let mut h = x.to_vec();
        for l in 0..m.layers.len() {
            let mut next = vec![T::zero(); m.layers[l].b.len()];
            for o in 0..next.len() {
                next[o] = unit(&m.layers[l], &h, o);
            }
            h = next;
        }
        let mut total = T::zero();
        for v in h.iter() {
            total += *v;
        }
        total * m.scale
    }
}

/// The same network iterating over its layers (`for layer in &m.layers`,
/// `m.layers.iter()`, `m.layers.iter().enumerate()`), each read through a
/// helper that takes the layer.
#[mica::tape]
pub mod iterated {
    use super::models::{Dense, Mlp};
    use mica::Real;

    fn layer_out<T: Real>(layer: &Dense<T>, h: &[T]) -> Vec<T> {
        let mut next = vec![T::zero(); layer.b.len()];
        for o in 0..layer.b.len() {
            let mut z = layer.b[o];
            for i in 0..layer.inputs {
                z += layer.w[o * layer.inputs + i] * h[i];
            }
            next[o] = z.tanh();
        }
        next
    }

    pub fn mlp<T: Real>(#[tracked] m: &Mlp<T>, x: &[T]) -> T {
        let mut h = x.to_vec();
        for layer in &m.layers {
            h = layer_out(layer, &h);
        }
        let mut total = T::zero();
        for layer in m.layers.iter() {
            // each layer's first bias, once more
            total += layer.b[0] * T::from(0.5).unwrap();
        }
        for (l, layer) in m.layers.iter().enumerate() {
            // and weighed by its position
            let l = l + 1;
            total += layer.b[0] * T::from(0.25 * l as f64).unwrap();
        }
        for v in h.iter() {
            total += *v;
        }
        total * m.scale
    }
}

/// [`iterated::mlp`] as it reads: the extra term by hand.
fn iterated_by_hand<T: Real>(m: &Mlp<T>, x: &[T]) -> (T, Mlp<T>) {
    let (v, mut g) = mlp_grad(m, x);
    let half = T::from(0.5).unwrap();
    let mut extra = T::zero();
    for (l, layer) in m.layers.iter().enumerate() {
        let weight = half + T::from(0.25 * (l + 1) as f64).unwrap();
        extra += layer.b[0] * weight;
        g.layers[l].b[0] += weight * m.scale;
    }
    g.scale += extra;
    (v + extra * m.scale, g)
}

/// The network's loss as its own method.
#[mica::tape]
impl<T: Real> Mlp<T> {
    pub fn output(#[tracked] &self, x: &[T]) -> T {
        let mut h = x.to_vec();
        for l in 0..self.layers.len() {
            let mut next = vec![T::zero(); self.layers[l].b.len()];
            for o in 0..next.len() {
                let mut z = self.layers[l].b[o];
                for i in 0..self.layers[l].inputs {
                    z += self.layers[l].w[o * self.layers[l].inputs + i] * h[i];
                }
                next[o] = z.tanh();
            }
            h = next;
        }
        let mut total = T::zero();
        for v in h.iter() {
            total += *v;
        }
        total * self.scale
    }
}

/// The window form, two layers written out.
#[mica::tape]
pub fn two_layers_window(start: &Mlp<f64>, x: &[f64; 2]) -> (f64, Mlp<f64>) {
    #[tracked]
    let m: Mlp<f64> = start.clone();
    tape! {
        let mut total = 0.0;
        let mut h = [0.0; 2];
        for o in 0..2 {
            let mut z = m.layers[0].b[o];
            for i in 0..2 {
                z += m.layers[0].w[o * 2 + i] * x[i];
            }
            h[o] = z.tanh();
        }
        for i in 0..2 {
            total += m.layers[1].w[i] * h[i];
        }
        let loss = (total + m.layers[1].b[0]).tanh() * m.scale;
    }
    backward!(loss);
    (loss, gradient!(m))
}

fn network<T: Real>() -> Mlp<T> {
    let c = |v: f64| T::from(v).unwrap();
    Mlp {
        layers: vec![
            Dense {
                w: [0.1, -0.2, 0.3, 0.4].map(c).to_vec(),
                b: [0.1, 0.2].map(c).to_vec(),
                inputs: 2,
            },
            Dense {
                w: [0.7, -0.3, 0.5, 0.1].map(c).to_vec(),
                b: [0.05, -0.15].map(c).to_vec(),
                inputs: 2,
            },
            Dense {
                w: [0.9, -0.4, -0.6, 0.35].map(c).to_vec(),
                b: [0.25, -0.5].map(c).to_vec(),
                inputs: 2,
            },
        ],
        scale: c(1.3),
        name: "two".into(),
    }
}

fn flat<T: Real>(m: &Mlp<T>) -> Vec<T> {
    let mut v = Vec::new();
    for l in &m.layers {
        v.extend(&l.w);
        v.extend(&l.b);
    }
    v.push(m.scale);
    v
}

fn unflat<T: Real>(shape: &Mlp<T>, v: &[T]) -> Mlp<T> {
    let mut m = shape.clone();
    let mut k = 0;
    for l in &mut m.layers {
        for w in l.w.iter_mut().chain(l.b.iter_mut()) {
            *w = v[k];
            k += 1;
        }
    }
    m.scale = v[k];
    m
}

macro_rules! mlp_check {
    ($t:ty, $tol:expr, $same:expr) => {{
        let m: Mlp<$t> = network();
        for x in [[0.5, -1.5], [1.25, 0.5], [-0.75, 2.0]] {
            let (v, g) = mlp_grad(&m, &x);
            assert_eq!(v, mlp(&m, &x));
            assert_eq!(g.name, "two");
            assert_eq!(g.layers[1].inputs, 2);
            assert_eq!(g.layers.len(), 3);
            fd::agrees(
                "a Vec of layers",
                &|p| mlp(&unflat(&m, p), &x),
                &flat(&m),
                &flat(&g),
                $tol,
            );
            // the helper, the method: the same slopes
            let (vh, gh) = helped::mlp_grad(&m, &x);
            let (vm, gm) = m.output_grad(&x);
            fd::close("helper value", vh, v, $same);
            fd::close("method value", vm, v, $same);
            fd::same("helper", &flat(&gh), &flat(&g), $same);
            fd::same("method", &flat(&gm), &flat(&g), $same);
            let (vi, gi) = iterated::mlp_grad(&m, &x);
            let (vb, gb) = iterated_by_hand(&m, &x);
            fd::close("iterated value", vi, vb, $same);
            fd::same("iterated", &flat(&gi), &flat(&gb), $same);
            fd::agrees(
                "iterated",
                &|p| iterated::mlp(&unflat(&m, p), &x),
                &flat(&m),
                &flat(&gi),
                $tol,
            );
            // `_backward` adds seed × gradient into the slots
            let mut d = mica::Knob::zeros_like(&m);
            mlp_backward(&m, &x, 2.0, &mut d);
            mlp_backward(&m, &x, 1.0, &mut d);
            let want: Vec<$t> = flat(&g).iter().map(|g| 3.0 * g).collect();
            fd::same("backward accumulates", &flat(&d), &want, $same);
        }
    }};
}

#[test]
fn a_vec_of_layers_in_the_function_and_module_forms_and_a_method() {
    mlp_check!(f64, 1e-6, 1e-12);
    mlp_check!(f32, 2e-2, 1e-5);
}

#[test]
fn a_window_tracks_a_struct_with_a_vec_of_structs() {
    let m: Mlp<f64> = network();
    for x in [[0.5, -1.5], [1.25, 0.5]] {
        let (v, g) = two_layers_window(&m, &x);
        assert_eq!(g.name, "two");
        fd::agrees(
            "window",
            &|p| two_layers_window(&unflat(&m, p), &x).0,
            &flat(&m),
            &flat(&g),
            1e-6,
        );
        assert_eq!(v, two_layers_window(&m, &x).0);
    }
}

/// Slopes of a gathered field go back to the right element.
#[test]
#[should_panic(expected = "the slot of `m.layers` has 2 slopes for its 3 elements")]
fn a_slot_with_another_number_of_layers_is_refused() {
    let m: Mlp<f64> = network();
    let mut d = mica::Knob::zeros_like(&m);
    d.layers.pop();
    mlp_backward(&m, &[0.5, -1.5], 1.0, &mut d);
}

#[mica::tape]
pub fn grid_energy(#[tracked] g: &Grid, x: f64) -> f64 {
    let mut s = 0.0;
    for k in 0..3 {
        let c = g.cells[k].a[0] * x + g.cells[k].a[1] * g.cells[k].c;
        s += c * g.cells[k].inner.z;
    }
    for r in 0..g.rows.len() {
        for k in 0..g.rows[r].cells.len() {
            let t = g.rows[r].cells[k].a[k % 2] * g.rows[r].cells[k].inner.z;
            s += g.rows[r].weight * t.sin() + g.rows[r].cells[k].c;
        }
    }
    s * s
}

fn grid_flat(g: &Grid) -> Vec<f64> {
    let cell = |c: &Cell| [c.a[0], c.a[1], c.c, c.inner.z];
    let mut v: Vec<f64> = g.cells.iter().flat_map(cell).collect();
    for r in &g.rows {
        v.extend(r.cells.iter().flat_map(cell));
        v.push(r.weight);
    }
    v
}

fn grid_unflat(shape: &Grid, v: &[f64]) -> Grid {
    let mut g = shape.clone();
    let mut next = v.iter().copied();
    let mut take = || next.next().unwrap();
    let cell = |c: &mut Cell, take: &mut dyn FnMut() -> f64| {
        c.a = [take(), take()];
        c.c = take();
        c.inner.z = take();
    };
    for c in &mut g.cells {
        cell(c, &mut take);
    }
    for r in &mut g.rows {
        for c in &mut r.cells {
            cell(c, &mut take);
        }
        r.weight = take();
    }
    g
}

#[test]
fn arrays_and_vecs_of_structs_nested() {
    let cell = |a: f64, b: f64, c: f64, z: f64| Cell {
        a: [a, b],
        c,
        inner: Inner { z },
    };
    let g = Grid {
        cells: [
            cell(0.1, 0.2, 0.3, 0.9),
            cell(0.4, -0.2, 0.7, 1.1),
            cell(-0.1, 0.9, 0.2, -0.4),
        ],
        rows: vec![
            Row {
                cells: vec![cell(0.3, 0.1, -0.2, 0.5), cell(0.6, 0.2, 0.1, 0.8)],
                weight: 0.7,
            },
            Row {
                cells: vec![cell(-0.5, 0.4, 0.3, 1.2)],
                weight: -1.1,
            },
        ],
    };
    assert_eq!(grid_flat(&grid_unflat(&g, &grid_flat(&g))), grid_flat(&g));
    for x in [0.7, -1.3, 2.1] {
        let (v, d) = grid_energy_grad(&g, x);
        assert_eq!(v, grid_energy(&g, x));
        fd::agrees(
            "arrays and Vecs of structs",
            &|p| grid_energy(&grid_unflat(&g, p), x),
            &grid_flat(&g),
            &grid_flat(&d),
            1e-6,
        );
    }
}

/// Free `#[tape]` functions passing the network whole to one another.
#[mica::tape]
pub fn unit_out<T: Real>(#[tracked] m: &Mlp<T>, l: usize, o: usize, #[tracked] h: &[T]) -> T {
    let mut z = m.layers[l].b[o];
    for i in 0..m.layers[l].inputs {
        z += m.layers[l].w[o * m.layers[l].inputs + i] * h[i];
    }
    z.tanh()
}

#[mica::tape]
pub fn mlp_by_calls<T: Real>(#[tracked] m: &Mlp<T>, x: &[T]) -> T {
    let mut h = x.to_vec();
    for l in 0..m.layers.len() {
        let mut next = vec![T::zero(); m.layers[l].b.len()];
        for o in 0..next.len() {
            next[o] = unit_out(m, l, o, &h);
        }
        h = next;
    }
    let mut total = T::zero();
    for v in h.iter() {
        total += *v;
    }
    total * m.scale
}

/// By value, passing `&m` on, twice per call.
#[mica::tape]
pub fn twice(#[tracked] m: Mlp<f64>, #[tracked] k: f64, x: &[f64]) -> f64 {
    let a = mlp_by_calls(&m, x);
    let b = unit_out(&m, 0, 1, x);
    a * k + b * b
}

#[test]
fn free_functions_pass_a_struct_whole() {
    let m: Mlp<f64> = network();
    for x in [[0.5, -1.5], [1.25, 0.5]] {
        let (v, g) = mlp_by_calls_grad(&m, &x);
        let (w, h) = mlp_grad(&m, &x);
        fd::close("value", v, w, 1e-12);
        fd::same("by calls", &flat(&g), &flat(&h), 1e-12);
        let (_, (g, gk)) = twice_grad(m.clone(), 0.7, &x);
        let mut at = flat(&m);
        at.push(0.7);
        let mut claimed = flat(&g);
        claimed.push(gk);
        fd::agrees(
            "twice",
            &|p| twice(unflat(&m, p), p[p.len() - 1], &x),
            &at,
            &claimed,
            1e-6,
        );
    }
    let m: Mlp<f32> = network();
    let x = [0.5f32, -1.5];
    let (_, g) = mlp_by_calls_grad(&m, &x);
    fd::agrees(
        "by calls f32",
        &|p| mlp_by_calls(&unflat(&m, p), &x),
        &flat(&m),
        &flat(&g),
        2e-2,
    );
}

mod elsewhere {
    use super::models::{Dense, Mlp};

    /// In another module, reached by its path.
    #[mica::tape]
    pub fn first_bias(#[tracked] m: &Mlp<f64>, #[tracked] c: f64) -> f64 {
        (m.layers[0].b[0] * c).sin() + m.scale
    }
}

/// A window passing its struct knob whole, and a block's function passing
/// it to a free function in another module.
#[mica::tape]
pub fn window_calls(start: &Mlp<f64>, x: &[f64; 2]) -> (f64, Mlp<f64>) {
    #[tracked]
    let m: Mlp<f64> = start.clone();
    tape! {
        let loss = mlp_by_calls(&m, x) + elsewhere::first_bias(&m, x[0]);
    }
    backward!(loss);
    (loss, gradient!(m))
}

#[mica::tape]
pub mod calls_out {
    use super::models::{Dense, Mlp};

    pub fn both(#[tracked] m: &Mlp<f64>, x: f64) -> f64 {
        super::elsewhere::first_bias(m, x) * x
    }
}

#[test]
fn a_window_and_a_block_pass_a_struct_to_free_functions() {
    let m: Mlp<f64> = network();
    for x in [[0.5, -1.5], [1.25, 0.5]] {
        let (_, g) = window_calls(&m, &x);
        fd::agrees(
            "window",
            &|p| window_calls(&unflat(&m, p), &x).0,
            &flat(&m),
            &flat(&g),
            1e-6,
        );
        let (_, g) = calls_out::both_grad(&m, x[1]);
        fd::agrees(
            "block",
            &|p| calls_out::both(&unflat(&m, p), x[1]),
            &flat(&m),
            &flat(&g),
            1e-6,
        );
    }
}
