//! A small neural network trained with Mica: 4 inputs, one hidden layer of
//! 8 `tanh` units, 3 outputs with softmax cross-entropy, on Fisher's iris
//! data set (150 flowers, 3 species; the data ships inside the
//! `linfa-datasets` crate). The network is a `Vec` of layers in a struct
//! with `#[derive(mica::Knob)]`, tracked whole; the loss of one flower is a
//! function of a `#[tape]` module that runs the layers in a loop (a helper
//! computes one, each layer's output replaces the last), and the batch
//! gradient is its `_backward` called once per flower into one gradient
//! network, every weight collecting one honest total gradient. A descent
//! step is `net.add_scaled(&g, -RATE)`.
//!
//! Run it with `make -C examples/Iris run`.

use mica::{tape, Knob};
use model::flower_loss_backward;
#[cfg(test)]
use model::{flower_loss, flower_loss_grad};

const INPUTS: usize = 4;
const HIDDEN: usize = 8;
const CLASSES: usize = 3;
const EPOCHS: usize = 300;
const RATE: f64 = 0.5;

/// A dense layer: `w[o][i]` from input `i` to unit `o`, and `b[o]`.
#[derive(Clone, Knob)]
pub struct Layer {
    w: Vec<Vec<f64>>,
    b: Vec<f64>,
}

/// The network's knobs, its layers in order: its gradient is a `Net` too.
#[derive(Clone, Knob)]
pub struct Net {
    layers: Vec<Layer>,
}

#[tape]
#[allow(clippy::needless_range_loop)] // the layers' loops, written as the math reads
mod model {
    use super::{Layer, Net, INPUTS};

    /// `W x + b` of one layer.
    fn affine(layer: &Layer, x: &[f64]) -> Vec<f64> {
        let mut out = vec![0.0; layer.b.len()];
        for o in 0..layer.b.len() {
            let mut s = layer.b[o];
            for i in 0..x.len() {
                s += layer.w[o][i] * x[i];
            }
            out[o] = s;
        }
        out
    }

    /// Softmax cross-entropy of one flower: `log Σ exp(z) − z[label]`,
    /// with the largest logit subtracted first so `exp` cannot overflow.
    pub fn flower_loss(#[tracked] net: &Net, x: &[f64; INPUTS], label: usize) -> f64 {
        // every layer but the last is followed by `tanh`
        let mut h = x.to_vec();
        let last = net.layers.len() - 1;
        for l in 0..last {
            let s = affine(&net.layers[l], &h);
            h = s.iter().map(|v| v.tanh()).collect();
        }
        let z = affine(&net.layers[last], &h);
        let mut largest = z[0];
        for v in z.iter() {
            if *v > largest {
                largest = *v;
            }
        }
        let mut total = 0.0;
        for v in z.iter() {
            total += (v - largest).exp();
        }
        total.ln() + largest - z[label]
    }
}

/// The hidden layer and the logits, in plain Rust (no tape).
fn forward(net: &Net, x: &[f64; INPUTS]) -> (Vec<f64>, Vec<f64>) {
    let affine = |layer: &Layer, x: &[f64]| -> Vec<f64> {
        let rows = layer.w.iter().zip(&layer.b);
        rows.map(|(w, b)| b + w.iter().zip(x).map(|(w, x)| w * x).sum::<f64>())
            .collect()
    };
    let h: Vec<f64> = affine(&net.layers[0], x).iter().map(|s| s.tanh()).collect();
    let z = affine(&net.layers[1], &h);
    (h, z)
}

/// The species the network predicts.
fn predict(net: &Net, x: &[f64; INPUTS]) -> usize {
    let (_, z) = forward(net, x);
    (0..CLASSES).fold(0, |best, k| if z[k] > z[best] { k } else { best })
}

/// The iris flowers with standardized features, and their species.
fn flowers() -> (Vec<[f64; INPUTS]>, Vec<usize>) {
    let data = linfa_datasets::iris();
    let (records, targets) = (data.records(), data.targets());
    let n = records.nrows() as f64;
    let mut xs: Vec<[f64; INPUTS]> = records
        .rows()
        .into_iter()
        .map(|r| [r[0], r[1], r[2], r[3]])
        .collect();
    for j in 0..INPUTS {
        let mean = xs.iter().map(|x| x[j]).sum::<f64>() / n;
        let sd = (xs.iter().map(|x| (x[j] - mean).powi(2)).sum::<f64>() / n).sqrt();
        for x in &mut xs {
            x[j] = (x[j] - mean) / sd;
        }
    }
    (xs, targets.iter().copied().collect())
}

/// Small deterministic starting weights.
fn start() -> Net {
    let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
    let mut small = move || {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((seed >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 0.5
    };
    let mut layer = |inputs: usize, units: usize| Layer {
        w: (0..units)
            .map(|_| (0..inputs).map(|_| small()).collect())
            .collect(),
        b: vec![0.0; units],
    };
    Net {
        layers: vec![layer(INPUTS, HIDDEN), layer(HIDDEN, CLASSES)],
    }
}

/// Full-batch gradient descent; returns the network and its mean loss per
/// epoch.
fn train(xs: &[[f64; INPUTS]], labels: &[usize], epochs: usize) -> (Net, Vec<f64>) {
    let mut net = start();
    let mut curve = Vec::with_capacity(epochs);
    let seed = 1.0 / xs.len() as f64;
    for _ in 0..epochs {
        let mut g = net.zeros_like();
        let mut loss = 0.0;
        for (x, &label) in xs.iter().zip(labels) {
            loss += seed * flower_loss_backward(&net, x, label, seed, &mut g);
        }
        curve.push(loss);
        net.add_scaled(&g, -RATE);
    }
    (net, curve)
}

fn accuracy(net: &Net, xs: &[[f64; INPUTS]], labels: &[usize]) -> f64 {
    let right = xs
        .iter()
        .zip(labels)
        .filter(|(x, &label)| predict(net, x) == label)
        .count();
    right as f64 / xs.len() as f64
}

fn main() {
    let (xs, labels) = flowers();
    let (net, curve) = train(&xs, &labels, EPOCHS);
    println!("a 4-{HIDDEN}-3 tanh network on {} iris flowers", xs.len());
    for (epoch, loss) in curve.iter().enumerate().filter(|(e, _)| e % 50 == 0) {
        println!("  epoch {epoch:3}: loss {loss:.4}");
    }
    println!("  final loss {:.4}", curve[curve.len() - 1]);
    println!("  accuracy {:.1}%", 100.0 * accuracy(&net, &xs, &labels));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The gradient of `flower_loss`, written by hand (backpropagation).
    fn by_hand(net: &Net, x: &[f64; INPUTS], label: usize) -> Net {
        let (h, z) = forward(net, x);
        let largest = z.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let total: f64 = z.iter().map(|v| (v - largest).exp()).sum();
        let dz: Vec<f64> = (0..CLASSES)
            .map(|k| (z[k] - largest).exp() / total - if k == label { 1.0 } else { 0.0 })
            .collect();
        let mut g = net.zeros_like();
        let (hidden, out) = (&mut g.layers[0], &net.layers[1]);
        for (i, &hi) in h.iter().enumerate() {
            let dh: f64 = (0..CLASSES).map(|k| dz[k] * out.w[k][i]).sum();
            let ds = dh * (1.0 - hi * hi);
            hidden.b[i] = ds;
            for (w, &xj) in hidden.w[i].iter_mut().zip(x) {
                *w = ds * xj;
            }
        }
        let out = &mut g.layers[1];
        for (k, &d) in dz.iter().enumerate() {
            out.b[k] = d;
            for (w, &hi) in out.w[k].iter_mut().zip(&h) {
                *w = d * hi;
            }
        }
        g
    }

    /// Every weight and bias of a network, layer by layer.
    fn flat(net: &Net) -> Vec<f64> {
        let mut v = Vec::new();
        for layer in &net.layers {
            v.extend(layer.w.iter().flatten());
            v.extend(&layer.b);
        }
        v
    }

    #[test]
    fn the_generated_adjoint_matches_the_hand_written_one() {
        let (xs, labels) = flowers();
        let net = start();
        for (x, &label) in xs.iter().zip(&labels).step_by(17) {
            let (value, g) = flower_loss_grad(&net, x, label);
            assert_eq!(value, flower_loss(&net, x, label));
            let (g, h) = (flat(&g), flat(&by_hand(&net, x, label)));
            assert_eq!(g.len(), 4 * HIDDEN + HIDDEN + HIDDEN * CLASSES + CLASSES);
            let pairs = g.iter().zip(&h);
            for (mica, hand) in pairs {
                assert!(
                    (mica - hand).abs() <= 1e-12 * (1.0 + hand.abs()),
                    "{mica} vs {hand}"
                );
            }
        }
    }

    #[test]
    fn training_reaches_the_stated_accuracy() {
        let (xs, labels) = flowers();
        let (net, curve) = train(&xs, &labels, EPOCHS);
        assert!(curve[curve.len() - 1] < curve[0] / 5.0);
        assert!(accuracy(&net, &xs, &labels) >= 0.95);
    }
}
