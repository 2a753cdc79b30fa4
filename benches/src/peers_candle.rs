//! `candle-core` (f64 tensors on the CPU, reverse mode through
//! `Tensor::backward`): the programs written as array expressions.

use crate::logistic::Problem;
use crate::mlp::{Batch, Params, BATCH, HID, IN, OUT};
use candle_core::{Device, Result, Tensor, Var};

fn grad_of(loss: &Tensor, v: &Var) -> Result<Vec<f64>> {
    let g = loss.backward()?;
    g.get(v)
        .expect("a gradient for the knob")
        .flatten_all()?
        .to_vec1()
}

/// The course loss.
pub fn course(a: f64) -> Result<f64> {
    let dev = Device::Cpu;
    let a = Var::from_slice(&[a], 1, &dev)?;
    let k = Tensor::from_slice(&[1.0_f64, 2.0, 3.0], 3, &dev)?;
    let m = (a.broadcast_mul(&k)? - k.affine(2.0, 0.0)?)?;
    let loss = m.sqr()?.sum_all()?;
    Ok(grad_of(&loss, &a)?[0])
}

/// Extended Rosenbrock: `x` reshaped to `(n/2, 2)`.
pub fn rosenbrock(x: &[f64]) -> Result<Vec<f64>> {
    let dev = Device::Cpu;
    let xs = Var::from_slice(x, (x.len() / 2, 2), &dev)?;
    let a = xs.narrow(1, 0, 1)?;
    let b = xs.narrow(1, 1, 1)?;
    let t = (b - a.sqr()?)?;
    let u = a.affine(-1.0, 1.0)?;
    let f = (t.sqr()?.affine(100.0, 0.0)? + u.sqr()?)?.sum_all()?;
    grad_of(&f, &xs)
}

/// Logistic regression's data as tensors, made once.
pub struct LogisticData {
    x: Tensor,
    y: Tensor,
    w: Vec<f64>,
    b: f64,
}

impl LogisticData {
    /// Tensors of a problem.
    pub fn new(p: &Problem) -> Result<Self> {
        let dev = Device::Cpu;
        let d = p.w.len();
        Ok(LogisticData {
            x: Tensor::from_slice(&p.x, (p.y.len(), d), &dev)?,
            y: Tensor::from_slice(&p.y, (p.y.len(), 1), &dev)?,
            w: p.w.clone(),
            b: p.b,
        })
    }
}

/// Logistic regression: `(∂w, ∂b)` flattened.
pub fn logistic(data: &LogisticData) -> Result<Vec<f64>> {
    let dev = Device::Cpu;
    let d = data.w.len();
    let w = Var::from_slice(&data.w, (d, 1), &dev)?;
    let b = Var::from_slice(&[data.b], (1, 1), &dev)?;
    let z = data.x.matmul(&w)?.broadcast_add(&b)?;
    let p = z.neg()?.exp()?.affine(1.0, 1.0)?.recip()?;
    let one_minus_y = data.y.affine(-1.0, 1.0)?;
    let ll = ((&data.y * p.log()?)? + (one_minus_y * p.affine(-1.0, 1.0)?.log()?)?)?;
    let loss = ll.neg()?.mean_all()?;
    let g = loss.backward()?;
    let mut out: Vec<f64> = g.get(&w).expect("∂w").flatten_all()?.to_vec1()?;
    out.extend(g.get(&b).expect("∂b").flatten_all()?.to_vec1::<f64>()?);
    Ok(out)
}

/// The MLP's batch as tensors, made once.
pub struct MlpData {
    x: Tensor,
    labels: Tensor,
}

impl MlpData {
    /// Tensors of a batch.
    pub fn new(data: &Batch) -> Result<Self> {
        let dev = Device::Cpu;
        let labels: Vec<u32> = data.labels.iter().map(|&l| l as u32).collect();
        Ok(MlpData {
            x: Tensor::from_slice(&data.x, (BATCH, IN), &dev)?,
            labels: Tensor::from_slice(&labels, (BATCH, 1), &dev)?,
        })
    }
}

/// The MLP's batch gradient, flattened in block order.
pub fn mlp(p: &Params, data: &MlpData) -> Result<Vec<f64>> {
    let dev = Device::Cpu;
    let w1 = Var::from_slice(&p.w1, (HID, IN), &dev)?;
    let b1 = Var::from_slice(&p.b1, HID, &dev)?;
    let w2 = Var::from_slice(&p.w2, (HID, HID), &dev)?;
    let b2 = Var::from_slice(&p.b2, HID, &dev)?;
    let w3 = Var::from_slice(&p.w3, (OUT, HID), &dev)?;
    let b3 = Var::from_slice(&p.b3, OUT, &dev)?;
    let h1 = data.x.matmul(&w1.t()?)?.broadcast_add(&b1)?.tanh()?;
    let h2 = h1.matmul(&w2.t()?)?.broadcast_add(&b2)?.tanh()?;
    let o = h2.matmul(&w3.t()?)?.broadcast_add(&b3)?;
    let lse = o.log_sum_exp(1)?;
    let picked = o.gather(&data.labels, 1)?.squeeze(1)?;
    let loss = (lse - picked)?.mean_all()?;
    let g = loss.backward()?;
    let mut out = Vec::new();
    for v in [&w1, &b1, &w2, &b2, &w3, &b3] {
        out.extend(
            g.get(v)
                .expect("a gradient")
                .flatten_all()?
                .to_vec1::<f64>()?,
        );
    }
    Ok(out)
}

/// Lax–Wendroff: each step as slices and a concatenation of the field.
pub fn lax_wendroff(q0: &[f64], nt: usize, c: f64) -> Result<Vec<f64>> {
    let dev = Device::Cpu;
    let nx = q0.len();
    let (ca, cb) = (0.5 * c * (1.0 + c), 0.5 * c * (1.0 - c));
    let leaves = Var::from_slice(q0, nx, &dev)?;
    let mut q: Tensor = leaves.as_tensor().clone();
    for _ in 0..nt {
        let flux = (q.narrow(0, 0, nx - 1)?.affine(ca, 0.0)?
            + q.narrow(0, 1, nx - 1)?.affine(cb, 0.0)?)?;
        let inner = ((q.narrow(0, 1, nx - 2)? + flux.narrow(0, 0, nx - 2)?)?
            - flux.narrow(0, 1, nx - 2)?)?;
        let first = inner.narrow(0, nx - 3, 1)?;
        let last = inner.narrow(0, 0, 1)?;
        q = Tensor::cat(&[&first, &inner, &last], 0)?;
    }
    let j = q.sqr()?.sum_all()?.affine(0.5, 0.0)?;
    grad_of(&j, &leaves)
}

/// The GMM's data as a tensor, made once.
pub struct GmmData {
    x: Tensor,
    n: usize,
}

impl GmmData {
    /// The points of a problem as an `n × d` tensor.
    pub fn new(p: &crate::gmm::Problem) -> Result<Self> {
        let n = p.x.len() / p.d;
        Ok(GmmData {
            x: Tensor::from_slice(&p.x, (n, p.d), &Device::Cpu)?,
            n,
        })
    }
}

/// The GMM objective: `(∂α, ∂μ, ∂icf)` flattened. Every point against every
/// component as `n × k` tensors, one per coordinate of `Q(x − μ)` (a loop
/// over `d` and the lower triangle); `log_sum_exp` over the components.
// index loops over the lower triangle, as ADBench's `Qtimesx`
#[allow(clippy::needless_range_loop)]
pub fn gmm(p: &crate::gmm::Problem, data: &GmmData) -> Result<Vec<f64>> {
    let dev = Device::Cpu;
    let (k, d, n) = (p.k, p.d, data.n);
    let isz = d * (d + 1) / 2;
    let alphas = Var::from_slice(&p.alphas, k, &dev)?;
    let means = Var::from_slice(&p.means, (k, d), &dev)?;
    let icf = Var::from_slice(&p.icf, (k, isz), &dev)?;
    let q = icf.narrow(1, 0, d)?;
    let sum_q = q.sum(1)?;
    let qdiag = q.exp()?;
    // column j as a 1 × k row
    let row = |t: &Tensor, j: usize| t.narrow(1, j, 1)?.t();
    let xc: Vec<Tensor> = (0..d)
        .map(|j| data.x.narrow(1, j, 1)?.broadcast_sub(&row(&means, j)?))
        .collect::<Result<_>>()?;
    let mut qx: Vec<Tensor> = (0..d)
        .map(|j| xc[j].broadcast_mul(&row(&qdiag, j)?))
        .collect::<Result<_>>()?;
    let mut li = d;
    for a in 0..d {
        for b in a + 1..d {
            qx[b] = (&qx[b] + xc[a].broadcast_mul(&row(&icf, li)?)?)?;
            li += 1;
        }
    }
    let mut sq = qx[0].sqr()?;
    for t in &qx[1..] {
        sq = (sq + t.sqr()?)?;
    }
    let main = sq
        .affine(-0.5, 0.0)?
        .broadcast_add(&(alphas.as_tensor() + &sum_q)?)?;
    let slse = main.log_sum_exp(1)?.sum_all()?;
    let lse_alphas = alphas.log_sum_exp(0)?;
    let frob = (qdiag.sqr()?.sum_all()? + icf.narrow(1, d, isz - d)?.sqr()?.sum_all()?)?;
    let prior =
        (frob.affine(0.5 * p.gamma * p.gamma, 0.0)? - sum_q.sum_all()?.affine(p.m, 0.0)?)?;
    let c = crate::gmm::constant(n, k, d, p.gamma, p.m);
    let f = ((slse - lse_alphas.affine(n as f64, 0.0)?)? + prior)?.affine(1.0, c)?;
    let g = f.backward()?;
    let mut out = Vec::new();
    for v in [&alphas, &means, &icf] {
        out.extend(
            g.get(v)
                .expect("a gradient")
                .flatten_all()?
                .to_vec1::<f64>()?,
        );
    }
    Ok(out)
}
