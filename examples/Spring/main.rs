//! A differentiable simulation: a damped spring `x'' = -k·x - c·x'` is
//! stepped 1,000 times (semi-implicit Euler), and its stiffness `k` and
//! damping `c` are fitted to an observed trajectory by gradient descent
//! through all 1,000 steps. The gradient comes from one `#[tape]` function;
//! the loop's state (`x`, `v`, the running loss) is carried from step to
//! step, and its adjoint walks the steps backward.
//!
//! Run it with `make -C examples/Spring run`.

use mica::tape;

const STEPS: usize = 1_000;
const DT: f64 = 0.01;
/// The constants the observations are made with; the fit should find them.
const TRUE_K: f64 = 4.0;
const TRUE_C: f64 = 0.5;

/// The positions of a spring released at `x = 1` from rest.
fn simulate(k: f64, c: f64) -> Vec<f64> {
    let (mut x, mut v) = (1.0, 0.0);
    (0..STEPS)
        .map(|_| {
            v += DT * (-k * x - c * v);
            x += DT * v;
            x
        })
        .collect()
}

/// Mean squared distance between the simulated and observed positions.
#[tape]
fn trajectory_loss(#[tracked] k: f64, #[tracked] c: f64, observed: &[f64]) -> f64 {
    let mut x = 1.0;
    let mut v = 0.0;
    let mut total = 0.0;
    for target in observed.iter() {
        let a = -k * x - c * v;
        v += DT * a;
        x += DT * v;
        let r = x - target;
        total += r * r;
    }
    total / observed.len() as f64
}

/// Adam on `(k, c)`: returns the fitted constants and the loss curve.
fn fit(observed: &[f64], start: (f64, f64), rounds: usize) -> ((f64, f64), Vec<f64>) {
    let (rate, beta1, beta2) = (0.05, 0.9, 0.999);
    let mut p = [start.0, start.1];
    let (mut m, mut s) = ([0.0; 2], [0.0; 2]);
    let mut curve = Vec::with_capacity(rounds);
    for t in 1..=rounds {
        let (loss, (d_k, d_c)) = trajectory_loss_grad(p[0], p[1], observed);
        curve.push(loss);
        for (i, g) in [d_k, d_c].into_iter().enumerate() {
            m[i] = beta1 * m[i] + (1.0 - beta1) * g;
            s[i] = beta2 * s[i] + (1.0 - beta2) * g * g;
            let m_hat = m[i] / (1.0 - beta1.powi(t as i32));
            let s_hat = s[i] / (1.0 - beta2.powi(t as i32));
            p[i] -= rate * m_hat / (s_hat.sqrt() + 1e-12);
        }
    }
    ((p[0], p[1]), curve)
}

fn main() {
    let observed = simulate(TRUE_K, TRUE_C);
    let ((k, c), curve) = fit(&observed, (2.5, 0.2), 400);
    println!("a damped spring fitted to {STEPS} observed steps");
    for (round, loss) in curve.iter().enumerate().filter(|(r, _)| r % 50 == 0) {
        println!("  round {round:3}: loss {loss:.3e}");
    }
    println!("  fitted k = {k:.4} (true {TRUE_K}), c = {c:.4} (true {TRUE_C})");
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The adjoint of `trajectory_loss`, written by hand: the forward pass
    /// keeps every step's state, the reverse walks the steps backward.
    fn by_hand(k: f64, c: f64, observed: &[f64]) -> (f64, f64) {
        let n = observed.len();
        let (mut xs, mut vs) = (vec![1.0], vec![0.0]);
        for _ in 0..n {
            let (x, v) = (xs[xs.len() - 1], vs[vs.len() - 1]);
            let v_next = v + DT * (-k * x - c * v);
            vs.push(v_next);
            xs.push(x + DT * v_next);
        }
        let (mut gx, mut gv, mut gk, mut gc) = (0.0, 0.0, 0.0, 0.0);
        for t in (0..n).rev() {
            // x[t+1] = x[t] + DT v[t+1];  v[t+1] = v[t] + DT (-k x[t] - c v[t])
            gx += 2.0 * (xs[t + 1] - observed[t]) / n as f64;
            let g_v_next = gv + DT * gx;
            gk += g_v_next * DT * -xs[t];
            gc += g_v_next * DT * -vs[t];
            gv = g_v_next * (1.0 - DT * c);
            gx += g_v_next * DT * -k;
        }
        (gk, gc)
    }

    #[test]
    fn the_generated_adjoint_matches_the_hand_written_one() {
        let observed = simulate(TRUE_K, TRUE_C);
        for (k, c) in [(2.5, 0.2), (4.0, 0.5), (6.0, 1.5)] {
            let (value, (d_k, d_c)) = trajectory_loss_grad(k, c, &observed);
            assert_eq!(value, trajectory_loss(k, c, &observed));
            let (h_k, h_c) = by_hand(k, c, &observed);
            assert!(
                (d_k - h_k).abs() <= 1e-9 * (1.0 + h_k.abs()),
                "{d_k} vs {h_k}"
            );
            assert!(
                (d_c - h_c).abs() <= 1e-9 * (1.0 + h_c.abs()),
                "{d_c} vs {h_c}"
            );
            let f = |p: &[f64]| trajectory_loss(p[0], p[1], &observed);
            mica::check::check_gradient(f, &[k, c], &[d_k, d_c]).unwrap();
        }
    }

    #[test]
    fn the_fit_finds_the_true_constants() {
        let observed = simulate(TRUE_K, TRUE_C);
        let ((k, c), curve) = fit(&observed, (2.5, 0.2), 400);
        assert!(curve[curve.len() - 1] < curve[0] * 1e-4);
        assert!(
            (k - TRUE_K).abs() < 0.01 && (c - TRUE_C).abs() < 0.01,
            "k = {k}, c = {c}"
        );
    }
}
