//! A model struct fitted with a real optimiser: a small `tanh` network
//! (10 inputs, 6 hidden units, one output) predicting disease progression
//! from the 442 patients of the diabetes data set (it ships inside the
//! `linfa-datasets` crate), by the L-BFGS method of the `argmin` crate.
//!
//! The model is a `#[derive(mica::Knob)]` struct tracked whole by one
//! `#[tape]` function, the mean squared error over the data set plus a
//! small ridge penalty; argmin asks for the cost through its
//! `CostFunction` trait and for the gradient through `Gradient`, which
//! calls the function's `_grad`. argmin works on a flat `Vec<f64>`; the
//! model goes to and from it in `flat` and `from_flat`.
//!
//! Run it with `make -C examples/Fit run`.

use argmin::core::observers::{Observe, ObserverMode};
use argmin::core::{CostFunction, Error, Executor, Gradient, State, KV};
use argmin::solver::linesearch::MoreThuenteLineSearch;
use argmin::solver::quasinewton::LBFGS;
use mica::{tape, Knob};

const FEATURES: usize = 10;
const HIDDEN: usize = 6;
/// L-BFGS iterations.
const ITERATIONS: u64 = 60;

/// A dense layer from `I` inputs to `O` units.
#[derive(Clone, Debug, Knob)]
struct Layer<const I: usize, const O: usize> {
    w: [[f64; I]; O],
    b: [f64; O],
}

/// The model: its gradient is a `Model` too.
#[derive(Clone, Debug, Knob)]
struct Model {
    hidden: Layer<FEATURES, HIDDEN>,
    out: Layer<HIDDEN, 1>,
}

/// Mean squared error over the patients, plus `ridge` times the squared
/// weights.
#[tape]
#[allow(clippy::needless_range_loop)] // the layers' loops, written as the math reads
fn loss(#[tracked] m: &Model, xs: &[[f64; FEATURES]], ys: &[f64], ridge: f64) -> f64 {
    let mut total = 0.0;
    for n in 0..xs.len() {
        let mut p = m.out.b[0];
        for i in 0..HIDDEN {
            let mut s = m.hidden.b[i];
            for j in 0..FEATURES {
                s += m.hidden.w[i][j] * xs[n][j];
            }
            p += m.out.w[0][i] * s.tanh();
        }
        let e = p - ys[n];
        total += e * e;
    }
    let mut penalty = 0.0;
    for i in 0..HIDDEN {
        for j in 0..FEATURES {
            penalty += m.hidden.w[i][j] * m.hidden.w[i][j];
        }
        penalty += m.out.w[0][i] * m.out.w[0][i];
    }
    total / xs.len() as f64 + ridge * penalty
}

impl Model {
    /// Every knob, flattened in field order: what argmin works on.
    fn flat(&self) -> Vec<f64> {
        let mut v: Vec<f64> = self.hidden.w.iter().flatten().copied().collect();
        v.extend(self.hidden.b);
        v.extend(self.out.w.iter().flatten());
        v.extend(self.out.b);
        v
    }

    /// The model of a flat vector in [`Model::flat`]'s order.
    fn from_flat(v: &[f64]) -> Model {
        let mut at = v.iter().copied();
        let mut next = move || at.next().unwrap_or(0.0);
        Model {
            hidden: Layer {
                w: core::array::from_fn(|_| core::array::from_fn(|_| next())),
                b: core::array::from_fn(|_| next()),
            },
            out: Layer {
                w: core::array::from_fn(|_| core::array::from_fn(|_| next())),
                b: core::array::from_fn(|_| next()),
            },
        }
    }
}

/// The fitting problem argmin sees.
struct Fit {
    xs: Vec<[f64; FEATURES]>,
    ys: Vec<f64>,
    ridge: f64,
}

impl CostFunction for Fit {
    type Param = Vec<f64>;
    type Output = f64;
    fn cost(&self, p: &Vec<f64>) -> Result<f64, Error> {
        Ok(loss(&Model::from_flat(p), &self.xs, &self.ys, self.ridge))
    }
}

impl Gradient for Fit {
    type Param = Vec<f64>;
    type Gradient = Vec<f64>;
    fn gradient(&self, p: &Vec<f64>) -> Result<Vec<f64>, Error> {
        let (_, g) = loss_grad(&Model::from_flat(p), &self.xs, &self.ys, self.ridge);
        Ok(g.flat())
    }
}

/// Prints the optimiser's progress every few iterations.
struct Progress;

impl<I: State<Float = f64>> Observe<I> for Progress {
    fn observe_iter(&mut self, state: &I, _kv: &KV) -> Result<(), Error> {
        if state.get_iter().is_multiple_of(10) {
            println!(
                "  iteration {:3}: loss {:.4}",
                state.get_iter(),
                state.get_cost()
            );
        }
        Ok(())
    }
}

/// The patients' standardized features and standardized progression.
fn patients() -> (Vec<[f64; FEATURES]>, Vec<f64>) {
    let data = linfa_datasets::diabetes();
    let (records, targets) = (data.records(), data.targets());
    let mut xs: Vec<[f64; FEATURES]> = records
        .rows()
        .into_iter()
        .map(|r| core::array::from_fn(|j| r[j]))
        .collect();
    let standardize = |v: &mut [f64]| {
        let n = v.len() as f64;
        let mean = v.iter().sum::<f64>() / n;
        let sd = (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n).sqrt();
        for x in v {
            *x = (*x - mean) / sd;
        }
    };
    for j in 0..FEATURES {
        let mut column: Vec<f64> = xs.iter().map(|x| x[j]).collect();
        standardize(&mut column);
        for (x, c) in xs.iter_mut().zip(column) {
            x[j] = c;
        }
    }
    let mut ys: Vec<f64> = targets.iter().copied().collect();
    standardize(&mut ys);
    (xs, ys)
}

/// Small deterministic starting weights.
fn start() -> Model {
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    let flat: Vec<f64> = (0..Model::from_flat(&[]).flat().len())
        .map(|_| {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((seed >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 0.6
        })
        .collect();
    Model::from_flat(&flat)
}

/// Fits the model by L-BFGS; returns it and its final loss.
fn fit(problem: Fit, iterations: u64, report: bool) -> Result<(Model, f64), Error> {
    let line_search = MoreThuenteLineSearch::new().with_c(1e-4, 0.9)?;
    let solver = LBFGS::new(line_search, 7);
    let mut executor =
        Executor::new(problem, solver).configure(|s| s.param(start().flat()).max_iters(iterations));
    if report {
        executor = executor.add_observer(Progress, ObserverMode::Always);
    }
    let result = executor.run()?;
    let state = result.state();
    let best = state.get_best_param().cloned().unwrap_or_default();
    Ok((Model::from_flat(&best), state.get_best_cost()))
}

fn main() -> Result<(), Error> {
    let (xs, ys) = patients();
    let n = xs.len();
    println!("a {FEATURES}-{HIDDEN}-1 tanh network on {n} patients, fitted by argmin's L-BFGS");
    let problem = Fit {
        xs: xs.clone(),
        ys: ys.clone(),
        ridge: 1e-3,
    };
    let first = problem.cost(&start().flat())?;
    println!("  start: loss {first:.4}");
    let (model, last) = fit(problem, ITERATIONS, true)?;
    // the share of the progression's variance the model explains
    let mse = loss(&model, &xs, &ys, 0.0);
    println!("  final loss {last:.4}, R² {:.3}", 1.0 - mse);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gradient_agrees_with_finite_differences() {
        let (xs, ys) = patients();
        let (xs, ys) = (&xs[..40], &ys[..40]);
        let m = start();
        let (value, g) = loss_grad(&m, xs, ys, 1e-3);
        assert_eq!(value, loss(&m, xs, ys, 1e-3));
        mica::check::check_gradient(
            |v: &[f64]| loss(&Model::from_flat(v), xs, ys, 1e-3),
            &m.flat(),
            &g.flat(),
        )
        .unwrap();
    }

    #[test]
    fn flat_and_back_is_the_identity() {
        let m = start();
        assert_eq!(Model::from_flat(&m.flat()).flat(), m.flat());
        assert_eq!(m.flat().len(), FEATURES * HIDDEN + HIDDEN + HIDDEN + 1);
    }

    #[test]
    fn l_bfgs_fits_the_data() {
        let (xs, ys) = patients();
        let problem = Fit {
            xs: xs.clone(),
            ys: ys.clone(),
            ridge: 1e-3,
        };
        let first = problem.cost(&start().flat()).unwrap();
        let (model, last) = fit(problem, ITERATIONS, false).unwrap();
        assert!(last < first / 2.0, "{last} vs {first}");
        // a linear model explains about half the variance; the network more
        assert!(1.0 - loss(&model, &xs, &ys, 0.0) > 0.5);
    }
}
