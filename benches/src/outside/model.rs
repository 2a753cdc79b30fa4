//! A model as a struct: a one-hidden-layer tanh network with its weights in
//! a `#[derive(Clone, mica::Knob)]` struct, read as `m.w1[i * IN + j]`,
//! fitted by the mean squared error over a batch.

// written as its authors write it, with index loops
#![allow(clippy::needless_range_loop)]

use crate::data::Lcg;
use mica::tape;

/// Inputs.
pub const IN: usize = 4;
/// Hidden units.
pub const HID: usize = 8;
/// Examples.
pub const N: usize = 256;

/// The network: `w1` is `HID × IN`, row-major.
#[derive(Clone, Debug, mica::Knob)]
pub struct Net {
    pub w1: Vec<f64>,
    pub b1: Vec<f64>,
    pub w2: Vec<f64>,
    pub b2: f64,
}

impl Net {
    /// A network with weights in `[-0.5, 0.5)`.
    pub fn init(seed: u64) -> Net {
        let mut g = Lcg::new(seed);
        Net {
            w1: g.vec(HID * IN, -0.5, 0.5),
            b1: g.vec(HID, -0.1, 0.1),
            w2: g.vec(HID, -0.5, 0.5),
            b2: 0.05,
        }
    }

    /// Every weight, field by field.
    pub fn flat(&self) -> Vec<f64> {
        let mut v = self.w1.clone();
        v.extend(&self.b1);
        v.extend(&self.w2);
        v.push(self.b2);
        v
    }

    /// The network from [`Net::flat`]'s order.
    pub fn from_flat(v: &[f64]) -> Net {
        let (w1, rest) = v.split_at(HID * IN);
        let (b1, rest) = rest.split_at(HID);
        let (w2, rest) = rest.split_at(HID);
        Net {
            w1: w1.to_vec(),
            b1: b1.to_vec(),
            w2: w2.to_vec(),
            b2: rest[0],
        }
    }
}

/// The primal: `xs` is row-major, `n × IN`.
#[tape]
pub fn net_loss(#[tracked] m: &Net, xs: &[f64], ys: &[f64]) -> f64 {
    let n = ys.len();
    let mut total = 0.0;
    for s in 0..n {
        let mut out = m.b2;
        for i in 0..HID {
            let mut z = m.b1[i];
            for j in 0..IN {
                z += m.w1[i * IN + j] * xs[s * IN + j];
            }
            out += m.w2[i] * z.tanh();
        }
        let r = out - ys[s];
        total += r * r;
    }
    total / n as f64
}

/// The hand-written adjoint: per example, the hidden layer on the stack,
/// then its reverse into the gradient struct.
pub fn net_loss_hand(m: &Net, xs: &[f64], ys: &[f64], seed: f64, d_m: &mut Net) -> f64 {
    let weights = (&m.w1[..], &m.b1[..], &m.w2[..], m.b2);
    let slots = (
        &mut d_m.w1[..],
        &mut d_m.b1[..],
        &mut d_m.w2[..],
        &mut d_m.b2,
    );
    hand(weights, xs, ys, seed, slots)
}

/// The hand-written adjoint of either model, on its weights `(W₁, b₁, w₂,
/// b₂)` and their slots.
#[inline(always)]
fn hand(
    (w1, b1, w2, b2): (&[f64], &[f64], &[f64], f64),
    xs: &[f64],
    ys: &[f64],
    seed: f64,
    (dw1, db1, dw2, d_b2): (&mut [f64], &mut [f64], &mut [f64], &mut f64),
) -> f64 {
    let n = ys.len();
    let (w1, b1, w2) = (&w1[..HID * IN], &b1[..HID], &w2[..HID]);
    let (dw1, db1, dw2) = (&mut dw1[..HID * IN], &mut db1[..HID], &mut dw2[..HID]);
    let c = 2.0 * seed / n as f64;
    let mut total = 0.0;
    let mut db2 = 0.0;
    for (x, y) in xs.chunks_exact(IN).zip(ys) {
        let mut hid = [0.0; HID];
        let mut out = b2;
        for i in 0..HID {
            let mut z = b1[i];
            for j in 0..IN {
                z += w1[i * IN + j] * x[j];
            }
            hid[i] = z.tanh();
            out += w2[i] * hid[i];
        }
        let r = out - y;
        total += r * r;
        let g = c * r;
        db2 += g;
        for i in 0..HID {
            dw2[i] += g * hid[i];
            let dz = g * w2[i] * (1.0 - hid[i] * hid[i]);
            db1[i] += dz;
            for j in 0..IN {
                dw1[i * IN + j] += dz * x[j];
            }
        }
    }
    *d_b2 += db2;
    total / n as f64
}

/// Inputs and targets from a smooth function: `(xs, ys)`.
pub fn data(n: usize) -> (Vec<f64>, Vec<f64>) {
    let mut g = Lcg::new(0x4e7 + n as u64);
    let xs = g.vec(n * IN, -1.0, 1.0);
    let ys = xs
        .chunks_exact(IN)
        .map(|x| (x[0] * x[1]).sin() + 0.5 * x[2] - 0.3 * x[3] * x[3])
        .collect();
    (xs, ys)
}

/// A layer of [`Layered`]: `w` is `b.len() × inputs`, row-major.
#[derive(Clone, Debug, mica::Knob)]
pub struct Dense {
    pub w: Vec<f64>,
    pub b: Vec<f64>,
}

#[tape]
impl Dense {
    /// `W x + b`.
    pub fn forward(#[tracked] &self, #[tracked] x: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; self.b.len()];
        for i in 0..self.b.len() {
            let mut z = self.b[i];
            for j in 0..x.len() {
                z += self.w[i * x.len() + j] * x[j];
            }
            out[i] = z;
        }
        out
    }
}

/// The same network written as its parts, as a model is usually written:
/// each layer's code with the layer, the loss calling the layers'.
#[derive(Clone, Debug, mica::Knob)]
pub struct Layered {
    pub hidden: Dense,
    pub out: Dense,
}

#[tape]
impl Layered {
    /// The mean squared error of [`net_loss`], through the layers.
    pub fn loss(#[tracked] &self, xs: &[f64], ys: &[f64]) -> f64 {
        let n = ys.len();
        let mut total = 0.0;
        for s in 0..n {
            let z = self.hidden.forward(&xs[s * IN..(s + 1) * IN]);
            let h: Vec<f64> = z.iter().map(|v| v.tanh()).collect();
            let o = self.out.forward(&h);
            let r = o[0] - ys[s];
            total += r * r;
        }
        total / n as f64
    }
}

impl Layered {
    /// [`Net`]'s weights, as layers.
    pub fn from_net(m: &Net) -> Layered {
        Layered {
            hidden: Dense {
                w: m.w1.clone(),
                b: m.b1.clone(),
            },
            out: Dense {
                w: m.w2.clone(),
                b: vec![m.b2],
            },
        }
    }

    /// Every weight, in [`Net::flat`]'s order.
    pub fn flat(&self) -> Vec<f64> {
        let mut v = self.hidden.w.clone();
        v.extend(&self.hidden.b);
        v.extend(&self.out.w);
        v.extend(&self.out.b);
        v
    }
}

/// The hand-written adjoint of [`Layered::loss`]: [`net_loss_hand`]'s, on
/// the layers' fields.
pub fn layered_loss_hand(m: &Layered, xs: &[f64], ys: &[f64], seed: f64, d_m: &mut Layered) -> f64 {
    let (h, o) = (&m.hidden, &m.out);
    let weights = (&h.w[..], &h.b[..], &o.w[..], o.b[0]);
    let (dh, dout) = (&mut d_m.hidden, &mut d_m.out);
    let slots = (
        &mut dh.w[..],
        &mut dh.b[..],
        &mut dout.w[..],
        &mut dout.b[0],
    );
    hand(weights, xs, ys, seed, slots)
}
