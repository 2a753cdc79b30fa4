// The arm's forward kinematics and loss, as helpers of a `#[tape] mod`:
// included by `main.rs`, and by the benchmarks (`benches/src/factored.rs`),
// which measure it against the same lines written inline.

#[mica::tape]
pub mod arm {
    /// A pose in the plane: rotation and translation as one 3×3 matrix.
    pub type Pose = [[f64; 3]; 3];

    pub fn rot(theta: f64) -> Pose {
        let (s, c) = theta.sin_cos();
        [[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]]
    }

    pub fn trans(length: f64) -> Pose {
        [[1.0, 0.0, length], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    }

    pub fn matmul(a: &Pose, b: &Pose) -> Pose {
        let mut c = [[0.0; 3]; 3];
        for i in 0..3 {
            for j in 0..3 {
                for k in 0..3 {
                    c[i][j] += a[i][k] * b[k][j];
                }
            }
        }
        c
    }

    /// The tip of the arm: each joint turns, then its link reaches out.
    pub fn tip(q: &[f64], lengths: &[f64]) -> (f64, f64) {
        let mut pose = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
        for j in 0..q.len() {
            pose = matmul(&pose, &rot(q[j]));
            pose = matmul(&pose, &trans(lengths[j]));
        }
        (pose[0][2], pose[1][2])
    }

    /// Squared distance from the tip to the target, and a small pull
    /// towards the rest pose so the answer is unique.
    pub fn reach(#[tracked] q: &[f64], lengths: &[f64], target: &[f64; 2]) -> f64 {
        let (x, y) = tip(q, lengths);
        let (dx, dy) = (x - target[0], y - target[1]);
        let mut rest = 0.0;
        for angle in q.iter() {
            rest += angle * angle;
        }
        dx * dx + dy * dy + 1e-3 * rest
    }
}
