//! Inverse kinematics of a planar arm, written the way robotics code is:
//! the pose of each link is a homogeneous 3×3 matrix made by small helpers
//! (`rot`, `trans`, `matmul`), the tip is their product, and the joint
//! angles are fitted to a target by gradient descent. Only the loss is an
//! entry point (`#[tracked]` angles); the helpers carry no marks, and the
//! gradient flows through them because they live in the same `#[tape] mod`.
//!
//! Run it with `make -C examples/Robot run`.

include!("arm.rs");

/// The same gradient derived by hand: the tip is `Σ lⱼ (cos φⱼ, sin φⱼ)`
/// with `φⱼ = q₀ + … + qⱼ`, so `∂/∂qᵢ` sums over the links from `i` on.
#[cfg(test)]
fn reach_by_hand(q: &[f64], lengths: &[f64], target: &[f64; 2]) -> Vec<f64> {
    let n = q.len();
    let mut phi = vec![0.0; n];
    let (mut x, mut y, mut angle) = (0.0, 0.0, 0.0);
    for j in 0..n {
        angle += q[j];
        phi[j] = angle;
        x += lengths[j] * angle.cos();
        y += lengths[j] * angle.sin();
    }
    let (gx, gy) = (2.0 * (x - target[0]), 2.0 * (y - target[1]));
    // the slope of φⱼ, carried from the last link to the first
    let mut carried = 0.0;
    let mut grad = vec![0.0; n];
    for j in (0..n).rev() {
        carried += lengths[j] * (-phi[j].sin() * gx + phi[j].cos() * gy);
        grad[j] = carried + 2e-3 * q[j];
    }
    grad
}

/// Gradient descent from `q`: the final angles and the loss every `every`
/// steps.
fn fit(
    mut q: Vec<f64>,
    lengths: &[f64],
    target: &[f64; 2],
    steps: usize,
    every: usize,
) -> (Vec<f64>, Vec<(usize, f64)>) {
    let rate = 0.05;
    let mut log = Vec::new();
    for step in 0..=steps {
        let (loss, grad) = arm::reach_grad(&q, lengths, target);
        if step % every == 0 {
            log.push((step, loss));
        }
        for (qj, gj) in q.iter_mut().zip(&grad) {
            *qj -= rate * gj;
        }
    }
    (q, log)
}

fn main() {
    let lengths = [1.0, 0.8, 0.6, 0.4];
    let target = [1.2, 1.5];
    let start = vec![0.1, 0.1, 0.1, 0.1];
    let (q, log) = fit(start, &lengths, &target, 400, 50);
    println!(
        "a 4-joint planar arm reaching for ({}, {})",
        target[0], target[1]
    );
    println!("{:>6}  {:>12}", "step", "loss");
    for (step, loss) in &log {
        println!("{step:>6}  {loss:>12.6}");
    }
    let (x, y) = arm::tip(&q, &lengths);
    let angles: Vec<String> = q.iter().map(|a| format!("{:.3}", a.to_degrees())).collect();
    println!("joint angles (degrees): [{}]", angles.join(", "));
    println!("tip: ({x:.4}, {y:.4})");
}

#[cfg(test)]
mod tests {
    use super::*;

    const LENGTHS: [f64; 4] = [1.0, 0.8, 0.6, 0.4];
    const TARGET: [f64; 2] = [1.2, 1.5];

    #[test]
    fn gradient_matches_the_hand_written_adjoint_and_finite_differences() {
        for q in [
            vec![0.1, 0.1, 0.1, 0.1],
            vec![0.7, -0.4, 1.2, 0.3],
            vec![-1.1, 0.5, -0.2, 2.0],
        ] {
            let (_, grad) = arm::reach_grad(&q, &LENGTHS, &TARGET);
            let hand = reach_by_hand(&q, &LENGTHS, &TARGET);
            for (g, h) in grad.iter().zip(&hand) {
                assert!((g - h).abs() < 1e-12, "{grad:?} vs {hand:?}");
            }
            mica::check::check_gradient(|v| arm::reach(v, &LENGTHS, &TARGET), &q, &grad)
                .expect("finite differences");
        }
    }

    #[test]
    fn the_arm_reaches_the_target() {
        let (q, log) = fit(vec![0.1; 4], &LENGTHS, &TARGET, 400, 50);
        let (x, y) = arm::tip(&q, &LENGTHS);
        assert!(log.last().unwrap().1 < 0.01 * log[0].1, "{log:?}");
        assert!((x - TARGET[0]).abs() < 0.05 && (y - TARGET[1]).abs() < 0.05);
    }
}
