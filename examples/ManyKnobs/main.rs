//! Many knobs at once: a linear model `y ≈ w·x + b` fitted to a batch of 64
//! examples by gradient descent, twice — once with the whole batch recorded
//! in a window, once with the function form's `_backward` called per
//! example (fan-out sums across calls). Both give the same gradients, and
//! the fit finds the weights the data was made with.
//!
//! Run it with `make -C examples/ManyKnobs run`.

use mica::tape;

const N: usize = 64;
const RATE: f64 = 0.1;
const ROUNDS: usize = 300;
/// The weights the data is made with; the fit should find them.
const TRUE_W: [f64; 3] = [2.0, -3.0, 0.5];
const TRUE_B: f64 = 0.25;

/// A deterministic batch: inputs in [-1, 1), targets with a little noise.
fn batch() -> (Vec<[f64; 3]>, Vec<f64>) {
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    let mut uniform = move || {
        seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    };
    let xs: Vec<[f64; 3]> = (0..N).map(|_| [uniform(), uniform(), uniform()]).collect();
    let ys = xs
        .iter()
        .map(|x| TRUE_W[0] * x[0] + TRUE_W[1] * x[1] + TRUE_W[2] * x[2] + TRUE_B + 0.01 * uniform())
        .collect();
    (xs, ys)
}

/// One example's squared error: the function form.
#[tape]
fn example_loss(#[tracked] w: &[f64; 3], #[tracked] b: f64, x: &[f64; 3], y: f64) -> f64 {
    let mut prediction = b;
    for j in 0..3 {
        prediction += w[j] * x[j];
    }
    let r = prediction - y;
    r * r
}

/// The batch's mean squared error recorded in a window; returns the fitted
/// knobs and the loss curve.
#[tape]
fn fit_in_a_window(xs: &[[f64; 3]], ys: &[f64]) -> ([f64; 3], f64, Vec<f64>) {
    #[tracked]
    let mut w = [0.0_f64; 3];
    #[tracked]
    let mut b = 0.0_f64;
    let mut curve = Vec::new();
    for _ in 0..ROUNDS {
        tape! {
            let mut total = 0.0;
            for (x, y) in xs.iter().zip(ys) {
                let prediction = w[0] * x[0] + w[1] * x[1] + w[2] * x[2] + b;
                let r = prediction - y;
                total += r * r;
            }
            let loss = total / xs.len() as f64;
        }
        backward!(loss);
        let slope = gradient!(w);
        for j in 0..3 {
            w[j] -= RATE * slope[j];
        }
        b -= RATE * gradient!(b);
        curve.push(loss);
    }
    (w, b, curve)
}

/// The same descent with `example_loss_backward` summing the batch.
fn fit_by_examples(xs: &[[f64; 3]], ys: &[f64]) -> ([f64; 3], f64) {
    let (mut w, mut b) = ([0.0; 3], 0.0);
    for _ in 0..ROUNDS {
        let (mut d_w, mut d_b) = ([0.0; 3], 0.0);
        let seed = 1.0 / xs.len() as f64;
        for (x, &y) in xs.iter().zip(ys) {
            example_loss_backward(&w, b, x, y, seed, &mut d_w, &mut d_b);
        }
        for j in 0..3 {
            w[j] -= RATE * d_w[j];
        }
        b -= RATE * d_b;
    }
    (w, b)
}

fn main() {
    let (xs, ys) = batch();
    let (w, b, curve) = fit_in_a_window(&xs, &ys);
    println!("many knobs: a linear model fitted to {N} examples");
    for (round, loss) in curve.iter().enumerate().filter(|(r, _)| r % 50 == 0) {
        println!("  round {round:3}: loss {loss:.6}");
    }
    println!(
        "  window form:   w = [{:.4}, {:.4}, {:.4}], b = {:.4}",
        w[0], w[1], w[2], b
    );
    let (w2, b2) = fit_by_examples(&xs, &ys);
    println!(
        "  function form: w = [{:.4}, {:.4}, {:.4}], b = {:.4}",
        w2[0], w2[1], w2[2], b2
    );
    let error = w
        .iter()
        .zip(&TRUE_W)
        .map(|(a, t)| (a - t).abs())
        .fold((b - TRUE_B).abs(), f64::max);
    let agree = w
        .iter()
        .zip(&w2)
        .map(|(a, c)| (a - c).abs())
        .fold((b - b2).abs(), f64::max);
    println!("  largest distance to the true weights: {error:.4}");
    println!("  largest difference between the forms: {agree:.1e}");
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The adjoint of `example_loss`, written by hand.
    fn by_hand(w: &[f64; 3], b: f64, x: &[f64; 3], y: f64) -> ([f64; 3], f64) {
        let r = w[0] * x[0] + w[1] * x[1] + w[2] * x[2] + b - y;
        ([2.0 * r * x[0], 2.0 * r * x[1], 2.0 * r * x[2]], 2.0 * r)
    }

    #[test]
    fn the_generated_adjoint_matches_the_hand_written_one() {
        let (xs, ys) = batch();
        let w = [0.3, -0.2, 0.9];
        for (x, &y) in xs.iter().zip(&ys).take(10) {
            let (value, (d_w, d_b)) = example_loss_grad(&w, 0.1, x, y);
            assert_eq!(value, example_loss(&w, 0.1, x, y));
            let (h_w, h_b) = by_hand(&w, 0.1, x, y);
            for j in 0..3 {
                assert!((d_w[j] - h_w[j]).abs() <= 1e-12 * (1.0 + h_w[j].abs()));
            }
            assert!((d_b - h_b).abs() <= 1e-12 * (1.0 + h_b.abs()));
        }
    }

    #[test]
    fn both_forms_fit_the_true_weights() {
        let (xs, ys) = batch();
        let (w, b, curve) = fit_in_a_window(&xs, &ys);
        let (w2, b2) = fit_by_examples(&xs, &ys);
        assert!(
            curve.windows(2).all(|p| p[1] <= p[0]),
            "the loss falls every round"
        );
        for j in 0..3 {
            assert!((w[j] - TRUE_W[j]).abs() < 0.01);
            assert!((w[j] - w2[j]).abs() < 1e-9);
        }
        assert!((b - TRUE_B).abs() < 0.01 && (b - b2).abs() < 1e-9);
    }
}
