//! Second derivatives and Jacobians from Mica, in two classic solvers.
//!
//! 1. **Newton–CG** on the extended Rosenbrock function in 1,000
//!    dimensions. Each Newton step solves `H d = -g` by conjugate
//!    gradients, which only ever need `H` times a vector: the function's
//!    `#[tape(hvp)]` companion `rosenbrock_hvp(x, v) -> (f, g, H·v)` gives
//!    that at the cost of a few gradients, without forming the 1,000 ×
//!    1,000 Hessian. Gradient descent (argmin's steepest descent with a
//!    Moré–Thuente line search, on Mica's gradient) runs beside it.
//! 2. **Levenberg–Marquardt** fitting a damped oscillation to 60 samples:
//!    the residuals are a `#[tape(jacobian)]` function returning a
//!    `Vec<f64>`; `residuals_jacobian` gives the 60 × 4 Jacobian by four
//!    forward-mode sweeps (fewer inputs than outputs).
//!
//! Run it with `make -C examples/Newton run`.

use argmin::core::{CostFunction, Error, Executor, Gradient, State};
use argmin::solver::gradientdescent::SteepestDescent;
use argmin::solver::linesearch::MoreThuenteLineSearch;
use mica::tape;

/// The extended Rosenbrock function: over the pairs (x₂ᵢ, x₂ᵢ₊₁),
/// Σ 100 (x₂ᵢ₊₁ − x₂ᵢ²)² + (1 − x₂ᵢ)².
#[tape(hvp)]
pub fn rosenbrock(#[tracked] x: &[f64]) -> f64 {
    let mut f = 0.0;
    for i in 0..x.len() / 2 {
        let a = x[2 * i];
        let b = x[2 * i + 1];
        let t = b - a * a;
        let u = 1.0 - a;
        f += 100.0 * t * t + u * u;
    }
    f
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// What a minimisation came to.
pub struct Outcome {
    pub iterations: usize,
    pub value: f64,
    pub gradient_norm: f64,
    /// Hessian-vector products asked for
    pub products: usize,
    pub x: Vec<f64>,
}

/// Newton–CG (truncated Newton): conjugate gradients on `(H + λI) d = −g`,
/// stopped at a relative residual of min(0.5, √‖g‖); where the curvature
/// along a search direction is not positive, λ grows and the solve starts
/// again (λ shrinks after each step); then a backtracking line search.
#[allow(clippy::needless_range_loop)] // the vectors' updates, as the method reads
pub fn newton_cg(x0: &[f64], tolerance: f64, report: bool) -> Outcome {
    let mut x = x0.to_vec();
    let mut products = 0;
    let mut lambda: f64 = 0.0;
    for k in 0..200 {
        let (f, g) = rosenbrock_grad(&x);
        let norm = dot(&g, &g).sqrt();
        if report {
            println!("  {k:3}   {f:12.6e}   {norm:9.3e}   {products:5}   {lambda:8.1e}");
        }
        if norm < tolerance {
            return Outcome {
                iterations: k,
                value: f,
                gradient_norm: norm,
                products,
                x,
            };
        }
        let n = x.len();
        let eta = 0.5f64.min(norm.sqrt());
        let d = 'solve: loop {
            let mut d = vec![0.0; n];
            let mut r: Vec<f64> = g.iter().map(|v| -v).collect();
            let mut p = r.clone();
            let mut rr = dot(&r, &r);
            for _ in 0..n {
                let (_, _, mut hp) = rosenbrock_hvp(&x, &p);
                products += 1;
                for i in 0..n {
                    hp[i] += lambda * p[i];
                }
                let curvature = dot(&p, &hp);
                if curvature <= 0.0 {
                    lambda = if lambda == 0.0 { 1.0 } else { lambda * 4.0 };
                    continue 'solve;
                }
                let alpha = rr / curvature;
                for i in 0..n {
                    d[i] += alpha * p[i];
                    r[i] -= alpha * hp[i];
                }
                let next = dot(&r, &r);
                if next.sqrt() <= eta * norm {
                    break;
                }
                let beta = next / rr;
                rr = next;
                for i in 0..n {
                    p[i] = r[i] + beta * p[i];
                }
            }
            break d;
        };
        lambda = if lambda < 1e-6 { 0.0 } else { lambda * 0.25 };
        // backtracking (Armijo) along d
        let slope = dot(&g, &d);
        let mut step = 1.0;
        loop {
            let trial: Vec<f64> = x.iter().zip(&d).map(|(a, b)| a + step * b).collect();
            if rosenbrock(&trial) <= f + 1e-4 * step * slope || step < 1e-12 {
                x = trial;
                break;
            }
            step *= 0.5;
        }
    }
    let (f, g) = rosenbrock_grad(&x);
    Outcome {
        iterations: 200,
        value: f,
        gradient_norm: dot(&g, &g).sqrt(),
        products,
        x,
    }
}

/// Rosenbrock's function as argmin sees it.
struct Problem;

impl CostFunction for Problem {
    type Param = Vec<f64>;
    type Output = f64;
    fn cost(&self, x: &Vec<f64>) -> Result<f64, Error> {
        Ok(rosenbrock(x))
    }
}

impl Gradient for Problem {
    type Param = Vec<f64>;
    type Gradient = Vec<f64>;
    fn gradient(&self, x: &Vec<f64>) -> Result<Vec<f64>, Error> {
        Ok(rosenbrock_grad(x).1)
    }
}

/// Steepest descent with a Moré–Thuente line search, from `x0`.
pub fn gradient_descent(x0: &[f64], iterations: u64) -> Result<Outcome, Error> {
    let line_search = MoreThuenteLineSearch::new().with_c(1e-4, 0.9)?;
    let solver = SteepestDescent::new(line_search);
    let result = Executor::new(Problem, solver)
        .configure(|s| s.param(x0.to_vec()).max_iters(iterations))
        .run()?;
    let state = result.state();
    let x = state.get_best_param().cloned().unwrap_or_default();
    let (f, g) = rosenbrock_grad(&x);
    Ok(Outcome {
        iterations: state.get_iter() as usize,
        value: f,
        gradient_norm: dot(&g, &g).sqrt(),
        products: 0,
        x,
    })
}

/// The model's residuals at the samples: a·e^(−b t)·cos(c t + d) − y.
#[tape(jacobian)]
pub fn residuals(#[tracked] p: &[f64; 4], ts: &[f64], ys: &[f64]) -> Vec<f64> {
    let mut r = vec![0.0; ts.len()];
    for i in 0..ts.len() {
        r[i] = p[0] * (-p[1] * ts[i]).exp() * (p[2] * ts[i] + p[3]).cos() - ys[i];
    }
    r
}

/// Solves the 4 × 4 system `a x = b` by elimination with partial pivoting.
#[allow(clippy::needless_range_loop)] // written as the elimination reads
fn solve4(mut a: [[f64; 4]; 4], mut b: [f64; 4]) -> [f64; 4] {
    for c in 0..4 {
        let pivot = (c..4)
            .max_by(|&i, &j| a[i][c].abs().total_cmp(&a[j][c].abs()))
            .unwrap_or(c);
        a.swap(c, pivot);
        b.swap(c, pivot);
        for r in c + 1..4 {
            let m = a[r][c] / a[c][c];
            for k in c..4 {
                a[r][k] -= m * a[c][k];
            }
            b[r] -= m * b[c];
        }
    }
    let mut x = [0.0; 4];
    for c in (0..4).rev() {
        let s: f64 = (c + 1..4).map(|k| a[c][k] * x[k]).sum();
        x[c] = (b[c] - s) / a[c][c];
    }
    x
}

/// Levenberg–Marquardt: `(JᵀJ + λ diag JᵀJ) δ = −Jᵀr`, λ shrunk after a
/// step that lowers the cost and grown after one that does not.
#[allow(clippy::needless_range_loop)]
pub fn levenberg_marquardt(
    p0: [f64; 4],
    ts: &[f64],
    ys: &[f64],
    report: bool,
) -> ([f64; 4], f64, usize) {
    let cost = |p: &[f64; 4]| residuals(p, ts, ys).iter().map(|r| r * r).sum::<f64>() / 2.0;
    let (mut p, mut lambda) = (p0, 1e-3);
    for k in 0..100 {
        let (r, j) = residuals_jacobian(&p, ts, ys);
        let c = r.iter().map(|v| v * v).sum::<f64>() / 2.0;
        let mut jtj = [[0.0; 4]; 4];
        let mut jtr = [0.0; 4];
        for (row, ri) in j.iter().zip(&r) {
            for a in 0..4 {
                jtr[a] += row[a] * ri;
                for b in 0..4 {
                    jtj[a][b] += row[a] * row[b];
                }
            }
        }
        let gradient_norm = dot(&jtr, &jtr).sqrt();
        if report {
            println!("  {k:3}   {c:12.6e}   {gradient_norm:9.3e}   {lambda:8.1e}");
        }
        if gradient_norm < 1e-10 {
            return (p, c, k);
        }
        loop {
            let mut a = jtj;
            for (i, row) in a.iter_mut().enumerate() {
                row[i] += lambda * jtj[i][i];
            }
            let delta = solve4(a, jtr.map(|v| -v));
            let trial: [f64; 4] = core::array::from_fn(|i| p[i] + delta[i]);
            if cost(&trial) < c {
                p = trial;
                lambda = (lambda / 3.0).max(1e-12);
                break;
            }
            lambda *= 4.0;
            if lambda > 1e12 {
                return (p, c, k);
            }
        }
    }
    let c = cost(&p);
    (p, c, 100)
}

/// The truth, and 60 samples of it with a small deterministic wobble.
pub fn samples() -> ([f64; 4], Vec<f64>, Vec<f64>) {
    let truth = [2.0, 0.3, 1.7, 0.4];
    let ts: Vec<f64> = (0..60).map(|i| i as f64 * 0.1).collect();
    let ys = ts
        .iter()
        .enumerate()
        .map(|(i, t)| {
            truth[0] * (-truth[1] * t).exp() * (truth[2] * t + truth[3]).cos()
                + 0.01 * ((i * 7919 % 13) as f64 / 6.0 - 1.0)
        })
        .collect();
    (truth, ts, ys)
}

fn main() -> Result<(), Error> {
    let n = 1000;
    let x0: Vec<f64> = (0..n)
        .map(|i| if i % 2 == 0 { -1.2 } else { 1.0 })
        .collect();
    println!("Extended Rosenbrock, n = {n}, from (-1.2, 1, -1.2, 1, …)");
    println!("Newton–CG with rosenbrock_hvp:");
    println!("  iter  f              |g|         H·v so far   λ");
    let newton = newton_cg(&x0, 1e-8, true);
    let distance = newton.x.iter().map(|v| (v - 1.0).abs()).fold(0.0, f64::max);
    println!(
        "  converged in {} iterations ({} Hessian-vector products): f = {:.3e}, |g| = {:.3e}, max |x - 1| = {:.1e}",
        newton.iterations, newton.products, newton.value, newton.gradient_norm, distance
    );
    for iterations in [newton.iterations as u64, 1000, 5000] {
        let descent = gradient_descent(&x0, iterations)?;
        println!(
            "Gradient descent (argmin, Moré–Thuente), {:5} iterations: f = {:.3e}, |g| = {:.3e}",
            descent.iterations, descent.value, descent.gradient_norm
        );
    }

    let (truth, ts, ys) = samples();
    println!();
    println!("Levenberg–Marquardt, y = a·exp(-b t)·cos(c t + d), 60 samples, Jacobian from residuals_jacobian:");
    println!("  iter  cost           |Jᵀr|       λ");
    let (p, cost, iterations) = levenberg_marquardt([1.0, 0.1, 1.5, 0.0], &ts, &ys, true);
    println!("  {iterations} iterations, cost {cost:.4e}");
    println!(
        "  fitted (a, b, c, d) = ({:.4}, {:.4}, {:.4}, {:.4})",
        p[0], p[1], p[2], p[3]
    );
    println!(
        "  truth  (a, b, c, d) = ({:.4}, {:.4}, {:.4}, {:.4})",
        truth[0], truth[1], truth[2], truth[3]
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Newton–CG reaches the minimum at (1, …, 1) in a few dozen steps.
    #[test]
    fn newton_cg_converges() {
        let x0: Vec<f64> = (0..200)
            .map(|i| if i % 2 == 0 { -1.2 } else { 1.0 })
            .collect();
        let out = newton_cg(&x0, 1e-8, false);
        assert!(out.iterations < 100, "{} iterations", out.iterations);
        assert!(out.x.iter().all(|v| (v - 1.0).abs() < 1e-6));
    }

    /// The fit recovers the oscillation it was sampled from.
    #[test]
    fn levenberg_marquardt_fits() {
        let (truth, ts, ys) = samples();
        let (p, _, _) = levenberg_marquardt([1.0, 0.1, 1.5, 0.0], &ts, &ys, false);
        for i in 0..4 {
            assert!((p[i] - truth[i]).abs() < 0.05, "{p:?} vs {truth:?}");
        }
    }
}
