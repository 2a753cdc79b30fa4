//! ADBench's LSTM objective (the "diagonal" LSTM of ADBench and GradBench):
//! `l` layers of `b` cells, a sequence of `c` one-hot characters of a
//! vocabulary of `b`; each layer's gates are element-wise products
//! (`forget = σ(input ∘ w_f + b_f)`, `ingate = σ(hidden ∘ w_i + b_i)`,
//! `outgate = σ(input ∘ w_o + b_o)`, `change = tanh(hidden ∘ w_c + b_c)`),
//! `predict` runs the layers on one character and scales the top layer's
//! output, and `objective` is minus the mean log-likelihood of each next
//! character, with ADBench's `logsumexp` (`ln(Σ exp + 2)`, the `+ 2` as
//! ADBench has it). The helpers are functions of a `#[tape] mod`, as
//! ADBench factors them (Mica needs them there, or `#[tape]` themselves:
//! a recorded value passed to a plain function is a compile error).
//!
//! ADBench keeps the state as one array `[h_0, c_0, h_1, c_1, …]` and
//! hands `lstm_model` two pointers into it; Rust does not lend two `&mut`
//! borrows of one slice, so the state is copied into a `hidden` and a
//! `cell` array (the input layout is ADBench's), and the next layer's
//! input is a copy of this layer's hidden state. ADBench's hidden size
//! equals the vocabulary's: `b = 10` here, `l = 2`, `c = 20`.

// written as its authors write it, with index loops
#![allow(clippy::needless_range_loop, clippy::too_many_arguments)]

use crate::data::Lcg;

pub use adbench_lstm::{objective, objective_backward, objective_grad};

/// Layers.
pub const L: usize = 2;
/// Cells per layer, and the vocabulary.
pub const B: usize = 10;
/// Characters in the sequence.
pub const C: usize = 20;

#[mica::tape]
pub mod adbench_lstm {
    pub fn sigmoid(x: f64) -> f64 {
        1.0 / (1.0 + (-x).exp())
    }

    /// `ln(Σ exp(v_i) + 2)`, as ADBench writes it.
    pub fn logsumexp(v: &[f64]) -> f64 {
        let mut sum = 0.0;
        for i in 0..v.len() {
            sum += v[i].exp();
        }
        sum += 2.0;
        sum.ln()
    }

    /// One layer, one step: updates `hidden` and `cell` in place.
    pub fn lstm_model(
        weight: &[f64],
        bias: &[f64],
        hidden: &mut [f64],
        cell: &mut [f64],
        input: &[f64],
    ) {
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

    /// All layers on one input; returns the prediction.
    pub fn predict(
        w: &[f64],
        w2: &[f64],
        hidden: &mut [f64],
        cell: &mut [f64],
        x: &[f64],
        l: usize,
    ) -> Vec<f64> {
        let b = x.len();
        let mut xp = vec![0.0; b];
        for i in 0..b {
            xp[i] = x[i] * w2[i];
        }
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
        let mut ypred = vec![0.0; b];
        for i in 0..b {
            ypred[i] = xp[i] * w2[b + i] + w2[2 * b + i];
        }
        ypred
    }

    /// The primal: `main_params` holds each layer's `4b` weights then its
    /// `4b` biases, `extra_params` the input scale, output scale and output
    /// bias (`b` each), `state` ADBench's `[h_0, c_0, h_1, c_1, …]`.
    pub fn objective(
        #[tracked] main_params: &[f64],
        #[tracked] extra_params: &[f64],
        state: &[f64],
        sequence: &[f64],
        l: usize,
        c: usize,
        b: usize,
    ) -> f64 {
        let mut hidden = vec![0.0; l * b];
        let mut cell = vec![0.0; l * b];
        for i in 0..l {
            for j in 0..b {
                hidden[i * b + j] = state[2 * i * b + j];
                cell[i * b + j] = state[(2 * i + 1) * b + j];
            }
        }
        let mut total = 0.0;
        let mut count = 0;
        let mut input = &sequence[0..b];
        for t in 0..c - 1 {
            let ypred = predict(main_params, extra_params, &mut hidden, &mut cell, input, l);
            let lse = logsumexp(&ypred);
            let ygold = &sequence[(t + 1) * b..(t + 2) * b];
            for i in 0..b {
                total += ygold[i] * (ypred[i] - lse);
            }
            count += b;
            input = ygold;
        }
        -total / count as f64
    }
}

fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// What one cell keeps for the reverse sweep at one step of one layer.
#[derive(Clone, Copy, Default)]
struct Kept {
    input: f64,
    hidden: f64,
    cell: f64,
    forget: f64,
    ingate: f64,
    outgate: f64,
    change: f64,
    tanh_cell: f64,
}

/// The hand-written adjoint. The forward pass keeps, per step, layer and
/// cell, the cell's inputs and gates (eight values), and per step the
/// softmax of the prediction; the reverse sweep walks the steps backward,
/// carrying each layer's hidden and cell adjoints.
pub fn objective_hand(
    main_params: &[f64],
    extra_params: &[f64],
    state: &[f64],
    sequence: &[f64],
    l: usize,
    c: usize,
    b: usize,
    seed: f64,
    d_main: &mut [f64],
    d_extra: &mut [f64],
) -> f64 {
    assert_eq!(d_main.len(), main_params.len());
    assert_eq!(d_extra.len(), extra_params.len());
    let steps = c - 1;
    let w2 = extra_params;
    let mut hidden = vec![0.0; l * b];
    let mut cell = vec![0.0; l * b];
    for i in 0..l {
        hidden[i * b..(i + 1) * b].copy_from_slice(&state[2 * i * b..(2 * i + 1) * b]);
        cell[i * b..(i + 1) * b].copy_from_slice(&state[(2 * i + 1) * b..(2 * i + 2) * b]);
    }
    let mut kept = vec![Kept::default(); steps * l * b];
    // per step: the top layer's output and the softmax (with the `+ 2`)
    let mut top = vec![0.0; steps * b];
    let mut soft = vec![0.0; steps * b];
    let mut xp = vec![0.0; b];
    let mut ypred = vec![0.0; b];
    let mut total = 0.0;
    for t in 0..steps {
        let x = &sequence[t * b..(t + 1) * b];
        for i in 0..b {
            xp[i] = x[i] * w2[i];
        }
        for li in 0..l {
            let weight = &main_params[2 * li * 4 * b..(2 * li + 1) * 4 * b];
            let bias = &main_params[(2 * li + 1) * 4 * b..(2 * li + 2) * 4 * b];
            let k = &mut kept[(t * l + li) * b..(t * l + li + 1) * b];
            for i in 0..b {
                let (inp, hid, cel) = (xp[i], hidden[li * b + i], cell[li * b + i]);
                let forget = sigmoid(inp * weight[i] + bias[i]);
                let ingate = sigmoid(hid * weight[b + i] + bias[b + i]);
                let outgate = sigmoid(inp * weight[2 * b + i] + bias[2 * b + i]);
                let change = (hid * weight[3 * b + i] + bias[3 * b + i]).tanh();
                let new_cell = cel * forget + ingate * change;
                let tanh_cell = new_cell.tanh();
                let new_hidden = outgate * tanh_cell;
                k[i] = Kept {
                    input: inp,
                    hidden: hid,
                    cell: cel,
                    forget,
                    ingate,
                    outgate,
                    change,
                    tanh_cell,
                };
                cell[li * b + i] = new_cell;
                hidden[li * b + i] = new_hidden;
                xp[i] = new_hidden;
            }
        }
        top[t * b..(t + 1) * b].copy_from_slice(&xp);
        let e = &mut soft[t * b..(t + 1) * b];
        let mut sum = 0.0;
        for i in 0..b {
            ypred[i] = xp[i] * w2[b + i] + w2[2 * b + i];
            e[i] = ypred[i].exp();
            sum += e[i];
        }
        sum += 2.0;
        let lse = sum.ln();
        let ygold = &sequence[(t + 1) * b..(t + 2) * b];
        let inv = 1.0 / sum;
        for i in 0..b {
            total += ygold[i] * (ypred[i] - lse);
            e[i] *= inv;
        }
    }
    let count = steps * b;
    let loss = -total / count as f64;

    // reverse
    let scale = -seed / count as f64;
    let mut d_hidden = vec![0.0; l * b];
    let mut d_cell = vec![0.0; l * b];
    for t in (0..steps).rev() {
        let ygold = &sequence[(t + 1) * b..(t + 2) * b];
        let gold: f64 = ygold.iter().sum();
        // ∂/∂ypred_i of Σ_j ygold_j (ypred_j − lse), times the scale
        for i in 0..b {
            let dy = scale * (ygold[i] - gold * soft[t * b + i]);
            d_extra[b + i] += dy * top[t * b + i];
            d_extra[2 * b + i] += dy;
            d_hidden[(l - 1) * b + i] += dy * w2[b + i];
        }
        for li in (0..l).rev() {
            let weight = &main_params[2 * li * 4 * b..(2 * li + 1) * 4 * b];
            let (dw, db) = d_main[2 * li * 4 * b..(2 * li + 2) * 4 * b].split_at_mut(4 * b);
            let k = &kept[(t * l + li) * b..(t * l + li + 1) * b];
            for i in 0..b {
                let g = k[i];
                let dh = d_hidden[li * b + i];
                let d_out = dh * g.tanh_cell;
                let dc = d_cell[li * b + i] + dh * g.outgate * (1.0 - g.tanh_cell * g.tanh_cell);
                let a_f = dc * g.cell * g.forget * (1.0 - g.forget);
                let a_i = dc * g.change * g.ingate * (1.0 - g.ingate);
                let a_o = d_out * g.outgate * (1.0 - g.outgate);
                let a_c = dc * g.ingate * (1.0 - g.change * g.change);
                dw[i] += a_f * g.input;
                dw[b + i] += a_i * g.hidden;
                dw[2 * b + i] += a_o * g.input;
                dw[3 * b + i] += a_c * g.hidden;
                db[i] += a_f;
                db[b + i] += a_i;
                db[2 * b + i] += a_o;
                db[3 * b + i] += a_c;
                d_cell[li * b + i] = dc * g.forget;
                d_hidden[li * b + i] = a_i * weight[b + i] + a_c * weight[3 * b + i];
                let d_in = a_f * weight[i] + a_o * weight[2 * b + i];
                if li > 0 {
                    d_hidden[(li - 1) * b + i] += d_in;
                } else {
                    d_extra[i] += d_in * sequence[t * b + i];
                }
            }
        }
    }
    loss
}

/// What [`objective_hand_accurate`] keeps: [`Kept`] and each gate's
/// `exp(−x)`.
#[derive(Clone, Copy, Default)]
struct KeptExp {
    input: f64,
    hidden: f64,
    cell: f64,
    forget: f64,
    ingate: f64,
    outgate: f64,
    change: f64,
    tanh_cell: f64,
    e_forget: f64,
    e_ingate: f64,
    e_outgate: f64,
}

/// [`objective_hand`] with each gate's slope in the accurate form Mica's
/// adjoint computes from `1 / (1 + exp(−x))`: `σ² · exp(−x)`, the
/// exponentials kept (eleven values a cell and step, as Mica keeps), where
/// `σ(1 − σ)` is 0 once `σ` rounds to 1 (`x` above about 37). Not part of
/// the suite: it measures what that form costs a hand adjoint. A copy
/// rather than a shared generic body, which changed the machine code of
/// the suite's hand adjoint (253.0 k → 276.5 k instructions).
pub fn objective_hand_accurate(
    main_params: &[f64],
    extra_params: &[f64],
    state: &[f64],
    sequence: &[f64],
    l: usize,
    c: usize,
    b: usize,
    seed: f64,
    d_main: &mut [f64],
    d_extra: &mut [f64],
) -> f64 {
    assert_eq!(d_main.len(), main_params.len());
    assert_eq!(d_extra.len(), extra_params.len());
    let steps = c - 1;
    let w2 = extra_params;
    let mut hidden = vec![0.0; l * b];
    let mut cell = vec![0.0; l * b];
    for i in 0..l {
        hidden[i * b..(i + 1) * b].copy_from_slice(&state[2 * i * b..(2 * i + 1) * b]);
        cell[i * b..(i + 1) * b].copy_from_slice(&state[(2 * i + 1) * b..(2 * i + 2) * b]);
    }
    let mut kept = vec![KeptExp::default(); steps * l * b];
    // per step: the top layer's output and the softmax (with the `+ 2`)
    let mut top = vec![0.0; steps * b];
    let mut soft = vec![0.0; steps * b];
    let mut xp = vec![0.0; b];
    let mut ypred = vec![0.0; b];
    let mut total = 0.0;
    for t in 0..steps {
        let x = &sequence[t * b..(t + 1) * b];
        for i in 0..b {
            xp[i] = x[i] * w2[i];
        }
        for li in 0..l {
            let weight = &main_params[2 * li * 4 * b..(2 * li + 1) * 4 * b];
            let bias = &main_params[(2 * li + 1) * 4 * b..(2 * li + 2) * 4 * b];
            let k = &mut kept[(t * l + li) * b..(t * l + li + 1) * b];
            for i in 0..b {
                let (inp, hid, cel) = (xp[i], hidden[li * b + i], cell[li * b + i]);
                let e_forget = (-(inp * weight[i] + bias[i])).exp();
                let e_ingate = (-(hid * weight[b + i] + bias[b + i])).exp();
                let e_outgate = (-(inp * weight[2 * b + i] + bias[2 * b + i])).exp();
                let forget = 1.0 / (1.0 + e_forget);
                let ingate = 1.0 / (1.0 + e_ingate);
                let outgate = 1.0 / (1.0 + e_outgate);
                let change = (hid * weight[3 * b + i] + bias[3 * b + i]).tanh();
                let new_cell = cel * forget + ingate * change;
                let tanh_cell = new_cell.tanh();
                let new_hidden = outgate * tanh_cell;
                k[i] = KeptExp {
                    e_forget,
                    e_ingate,
                    e_outgate,
                    input: inp,
                    hidden: hid,
                    cell: cel,
                    forget,
                    ingate,
                    outgate,
                    change,
                    tanh_cell,
                };
                cell[li * b + i] = new_cell;
                hidden[li * b + i] = new_hidden;
                xp[i] = new_hidden;
            }
        }
        top[t * b..(t + 1) * b].copy_from_slice(&xp);
        let e = &mut soft[t * b..(t + 1) * b];
        let mut sum = 0.0;
        for i in 0..b {
            ypred[i] = xp[i] * w2[b + i] + w2[2 * b + i];
            e[i] = ypred[i].exp();
            sum += e[i];
        }
        sum += 2.0;
        let lse = sum.ln();
        let ygold = &sequence[(t + 1) * b..(t + 2) * b];
        let inv = 1.0 / sum;
        for i in 0..b {
            total += ygold[i] * (ypred[i] - lse);
            e[i] *= inv;
        }
    }
    let count = steps * b;
    let loss = -total / count as f64;

    // reverse
    let scale = -seed / count as f64;
    let mut d_hidden = vec![0.0; l * b];
    let mut d_cell = vec![0.0; l * b];
    for t in (0..steps).rev() {
        let ygold = &sequence[(t + 1) * b..(t + 2) * b];
        let gold: f64 = ygold.iter().sum();
        // ∂/∂ypred_i of Σ_j ygold_j (ypred_j − lse), times the scale
        for i in 0..b {
            let dy = scale * (ygold[i] - gold * soft[t * b + i]);
            d_extra[b + i] += dy * top[t * b + i];
            d_extra[2 * b + i] += dy;
            d_hidden[(l - 1) * b + i] += dy * w2[b + i];
        }
        for li in (0..l).rev() {
            let weight = &main_params[2 * li * 4 * b..(2 * li + 1) * 4 * b];
            let (dw, db) = d_main[2 * li * 4 * b..(2 * li + 2) * 4 * b].split_at_mut(4 * b);
            let k = &kept[(t * l + li) * b..(t * l + li + 1) * b];
            for i in 0..b {
                let g = k[i];
                let dh = d_hidden[li * b + i];
                let d_out = dh * g.tanh_cell;
                let dc = d_cell[li * b + i] + dh * g.outgate * (1.0 - g.tanh_cell * g.tanh_cell);
                let a_f = dc * g.cell * g.forget * g.forget * g.e_forget;
                let a_i = dc * g.change * g.ingate * g.ingate * g.e_ingate;
                let a_o = d_out * g.outgate * g.outgate * g.e_outgate;
                let a_c = dc * g.ingate * (1.0 - g.change * g.change);
                dw[i] += a_f * g.input;
                dw[b + i] += a_i * g.hidden;
                dw[2 * b + i] += a_o * g.input;
                dw[3 * b + i] += a_c * g.hidden;
                db[i] += a_f;
                db[b + i] += a_i;
                db[2 * b + i] += a_o;
                db[3 * b + i] += a_c;
                d_cell[li * b + i] = dc * g.forget;
                d_hidden[li * b + i] = a_i * weight[b + i] + a_c * weight[3 * b + i];
                let d_in = a_f * weight[i] + a_o * weight[2 * b + i];
                if li > 0 {
                    d_hidden[(li - 1) * b + i] += d_in;
                } else {
                    d_extra[i] += d_in * sequence[t * b + i];
                }
            }
        }
    }
    loss
}

/// An ADBench-style problem: parameters and state uniform in `[-1, 1)`,
/// a sequence of `c` one-hot characters.
pub struct Problem {
    pub main: Vec<f64>,
    pub extra: Vec<f64>,
    pub state: Vec<f64>,
    pub sequence: Vec<f64>,
    pub l: usize,
    pub c: usize,
    pub b: usize,
}

/// A deterministic problem of `l` layers, `c` characters, `b` cells.
pub fn problem(l: usize, c: usize, b: usize) -> Problem {
    let mut g = Lcg::new((l * 1000 + c * 10 + b) as u64);
    let main = g.vec(2 * l * 4 * b, -1.0, 1.0);
    let extra = g.vec(3 * b, -1.0, 1.0);
    let state = g.vec(2 * l * b, -1.0, 1.0);
    let mut sequence = vec![0.0; c * b];
    for t in 0..c {
        let k = ((g.uniform() * b as f64) as usize).min(b - 1);
        sequence[t * b + k] = 1.0;
    }
    Problem {
        main,
        extra,
        state,
        sequence,
        l,
        c,
        b,
    }
}
