//! A multilayer perceptron: 16 inputs, two tanh hidden layers of 32, 10
//! classes, softmax cross-entropy; batch 128. Weights are row-major
//! (`w1[j * IN + i]` feeds input `i` to unit `j`).

// the programs are written in the vocabulary Mica records (index loops, `vec!` arrays)
#![allow(clippy::needless_range_loop, clippy::useless_vec)]

use crate::data::Lcg;
use mica::tape;

/// Inputs.
pub const IN: usize = 16;
/// Units in each hidden layer.
pub const HID: usize = 32;
/// Classes.
pub const OUT: usize = 10;
/// Examples in a batch.
pub const BATCH: usize = 128;

/// The loss of one example (the primal).
#[tape]
#[allow(clippy::too_many_arguments)]
pub fn example_loss(
    #[tracked] w1: &[f64],
    #[tracked] b1: &[f64],
    #[tracked] w2: &[f64],
    #[tracked] b2: &[f64],
    #[tracked] w3: &[f64],
    #[tracked] b3: &[f64],
    x: &[f64],
    label: usize,
) -> f64 {
    let mut h1 = vec![0.0; HID];
    for j in 0..HID {
        let mut s = b1[j];
        for i in 0..IN {
            s += w1[j * IN + i] * x[i];
        }
        h1[j] = s.tanh();
    }
    let mut h2 = vec![0.0; HID];
    for j in 0..HID {
        let mut s = b2[j];
        for i in 0..HID {
            s += w2[j * HID + i] * h1[i];
        }
        h2[j] = s.tanh();
    }
    let mut o = vec![0.0; OUT];
    for k in 0..OUT {
        let mut s = b3[k];
        for i in 0..HID {
            s += w3[k * HID + i] * h2[i];
        }
        o[k] = s;
    }
    // the shift is a constant: the log-sum-exp's slope does not depend on it
    let mut m = mica::detach(o[0]);
    for k in 1..OUT {
        let ok = mica::detach(o[k]);
        if ok > m {
            m = ok;
        }
    }
    let mut z = 0.0;
    for k in 0..OUT {
        z += (o[k] - m).exp();
    }
    m + z.ln() - o[label]
}

/// [`example_loss`] with its parameters tracked as one struct: the same
/// body reading `p.w1[…]`, for the benchmark of struct knobs against one
/// tracked parameter per field.
#[tape]
pub fn example_loss_struct(#[tracked] p: &Params, x: &[f64], label: usize) -> f64 {
    let mut h1 = vec![0.0; HID];
    for j in 0..HID {
        let mut s = p.b1[j];
        for i in 0..IN {
            s += p.w1[j * IN + i] * x[i];
        }
        h1[j] = s.tanh();
    }
    let mut h2 = vec![0.0; HID];
    for j in 0..HID {
        let mut s = p.b2[j];
        for i in 0..HID {
            s += p.w2[j * HID + i] * h1[i];
        }
        h2[j] = s.tanh();
    }
    let mut o = vec![0.0; OUT];
    for k in 0..OUT {
        let mut s = p.b3[k];
        for i in 0..HID {
            s += p.w3[k * HID + i] * h2[i];
        }
        o[k] = s;
    }
    // the shift is a constant: the log-sum-exp's slope does not depend on it
    let mut m = mica::detach(o[0]);
    for k in 1..OUT {
        let ok = mica::detach(o[k]);
        if ok > m {
            m = ok;
        }
    }
    let mut z = 0.0;
    for k in 0..OUT {
        z += (o[k] - m).exp();
    }
    m + z.ln() - o[label]
}

/// The parameters of the network: a struct of knobs, so
/// [`example_loss_struct`] tracks it whole.
#[derive(Clone, mica::Knob)]
pub struct Params {
    pub w1: Vec<f64>,
    pub b1: Vec<f64>,
    pub w2: Vec<f64>,
    pub b2: Vec<f64>,
    pub w3: Vec<f64>,
    pub b3: Vec<f64>,
}

impl Params {
    /// Zeros of the network's shape.
    pub fn zeros() -> Self {
        Params {
            w1: vec![0.0; HID * IN],
            b1: vec![0.0; HID],
            w2: vec![0.0; HID * HID],
            b2: vec![0.0; HID],
            w3: vec![0.0; OUT * HID],
            b3: vec![0.0; OUT],
        }
    }

    /// Deterministic small random weights.
    pub fn init(seed: u64) -> Self {
        let mut g = Lcg::new(seed);
        let s1 = 1.0 / (IN as f64).sqrt();
        let s2 = 1.0 / (HID as f64).sqrt();
        Params {
            w1: g.vec(HID * IN, -s1, s1),
            b1: g.vec(HID, -0.1, 0.1),
            w2: g.vec(HID * HID, -s2, s2),
            b2: g.vec(HID, -0.1, 0.1),
            w3: g.vec(OUT * HID, -s2, s2),
            b3: g.vec(OUT, -0.1, 0.1),
        }
    }

    /// Sets every entry to zero.
    pub fn clear(&mut self) {
        for v in self.slices_mut() {
            v.fill(0.0);
        }
    }

    /// The six blocks, in order.
    pub fn slices(&self) -> [&[f64]; 6] {
        [&self.w1, &self.b1, &self.w2, &self.b2, &self.w3, &self.b3]
    }

    /// The six blocks, mutable, in order.
    pub fn slices_mut(&mut self) -> [&mut Vec<f64>; 6] {
        [
            &mut self.w1,
            &mut self.b1,
            &mut self.w2,
            &mut self.b2,
            &mut self.w3,
            &mut self.b3,
        ]
    }

    /// All entries, flattened in block order.
    pub fn flat(&self) -> Vec<f64> {
        self.slices().concat()
    }

    /// Parameters from a flat vector in block order.
    pub fn from_flat(v: &[f64]) -> Self {
        let mut p = Params::zeros();
        let mut at = 0;
        for block in p.slices_mut() {
            let n = block.len();
            block.copy_from_slice(&v[at..at + n]);
            at += n;
        }
        p
    }
}

/// A batch: `BATCH × IN` inputs and labels.
pub struct Batch {
    pub x: Vec<f64>,
    pub labels: Vec<usize>,
}

/// A deterministic batch.
pub fn batch() -> Batch {
    let mut g = Lcg::new(128);
    let x = g.vec(BATCH * IN, -1.0, 1.0);
    let labels = (0..BATCH)
        .map(|_| (g.uniform() * OUT as f64) as usize % OUT)
        .collect();
    Batch { x, labels }
}

/// The primal: the mean loss over the batch.
pub fn batch_loss(p: &Params, data: &Batch) -> f64 {
    let mut total = 0.0;
    for (x, &label) in data.x.chunks_exact(IN).zip(&data.labels) {
        total += example_loss(&p.w1, &p.b1, &p.w2, &p.b2, &p.w3, &p.b3, x, label);
    }
    total / BATCH as f64
}

/// Mica: `example_loss_backward` once per example, seed `1 / BATCH`.
pub fn batch_mica(p: &Params, data: &Batch, g: &mut Params) -> f64 {
    let seed = 1.0 / BATCH as f64;
    let mut total = 0.0;
    for (x, &label) in data.x.chunks_exact(IN).zip(&data.labels) {
        total += example_loss_backward(
            &p.w1, &p.b1, &p.w2, &p.b2, &p.w3, &p.b3, x, label, seed, &mut g.w1, &mut g.b1,
            &mut g.w2, &mut g.b2, &mut g.w3, &mut g.b3,
        );
    }
    total / BATCH as f64
}

/// Mica with the struct tracked whole: `example_loss_struct_backward` once
/// per example, adding into the struct `g`.
pub fn batch_mica_struct(p: &Params, data: &Batch, g: &mut Params) -> f64 {
    let seed = 1.0 / BATCH as f64;
    let mut total = 0.0;
    for (x, &label) in data.x.chunks_exact(IN).zip(&data.labels) {
        total += example_loss_struct_backward(p, x, label, seed, g);
    }
    total / BATCH as f64
}

/// Mica's `_grad` per example, summed (allocates per call).
pub fn batch_mica_grad(p: &Params, data: &Batch) -> (f64, Params) {
    let mut g = Params::zeros();
    let mut total = 0.0;
    for (x, &label) in data.x.chunks_exact(IN).zip(&data.labels) {
        let (v, (g1, c1, g2, c2, g3, c3)) =
            example_loss_grad(&p.w1, &p.b1, &p.w2, &p.b2, &p.w3, &p.b3, x, label);
        total += v;
        for (dst, src) in g.slices_mut().into_iter().zip([g1, c1, g2, c2, g3, c3]) {
            for (d, s) in dst.iter_mut().zip(src) {
                *d += s / BATCH as f64;
            }
        }
    }
    (total / BATCH as f64, g)
}

/// The hand-written adjoint of one example, adding `seed ×` its gradient.
pub fn example_hand(p: &Params, x: &[f64], label: usize, seed: f64, g: &mut Params) -> f64 {
    let mut h1 = [0.0; HID];
    for (j, h) in h1.iter_mut().enumerate() {
        let row = &p.w1[j * IN..(j + 1) * IN];
        *h = (p.b1[j] + row.iter().zip(x).map(|(a, b)| a * b).sum::<f64>()).tanh();
    }
    let mut h2 = [0.0; HID];
    for (j, h) in h2.iter_mut().enumerate() {
        let row = &p.w2[j * HID..(j + 1) * HID];
        *h = (p.b2[j] + row.iter().zip(&h1).map(|(a, b)| a * b).sum::<f64>()).tanh();
    }
    let mut o = [0.0; OUT];
    for (k, ok) in o.iter_mut().enumerate() {
        let row = &p.w3[k * HID..(k + 1) * HID];
        *ok = p.b3[k] + row.iter().zip(&h2).map(|(a, b)| a * b).sum::<f64>();
    }
    let m = o.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let mut e = [0.0; OUT];
    let mut z = 0.0;
    for (ek, ok) in e.iter_mut().zip(&o) {
        *ek = (ok - m).exp();
        z += *ek;
    }
    let loss = m + z.ln() - o[label];
    // reverse
    let mut d_o = [0.0; OUT];
    for k in 0..OUT {
        d_o[k] = seed * (e[k] / z - if k == label { 1.0 } else { 0.0 });
    }
    let mut d_h2 = [0.0; HID];
    for k in 0..OUT {
        g.b3[k] += d_o[k];
        let row = &p.w3[k * HID..(k + 1) * HID];
        let grow = &mut g.w3[k * HID..(k + 1) * HID];
        for i in 0..HID {
            grow[i] += d_o[k] * h2[i];
            d_h2[i] += d_o[k] * row[i];
        }
    }
    let mut d_h1 = [0.0; HID];
    for j in 0..HID {
        let da = d_h2[j] * (1.0 - h2[j] * h2[j]);
        g.b2[j] += da;
        let row = &p.w2[j * HID..(j + 1) * HID];
        let grow = &mut g.w2[j * HID..(j + 1) * HID];
        for i in 0..HID {
            grow[i] += da * h1[i];
            d_h1[i] += da * row[i];
        }
    }
    for j in 0..HID {
        let da = d_h1[j] * (1.0 - h1[j] * h1[j]);
        g.b1[j] += da;
        let grow = &mut g.w1[j * IN..(j + 1) * IN];
        for i in 0..IN {
            grow[i] += da * x[i];
        }
    }
    loss
}

/// The hand-written adjoint of the batch's mean loss.
pub fn batch_hand(p: &Params, data: &Batch, g: &mut Params) -> f64 {
    let seed = 1.0 / BATCH as f64;
    let mut total = 0.0;
    for (x, &label) in data.x.chunks_exact(IN).zip(&data.labels) {
        total += example_hand(p, x, label, seed, g);
    }
    total / BATCH as f64
}
