//! The course loss: `m_k = a·k − 2k` for `k = 1..3`, `loss = Σ m_k²`.

use mica::tape;

/// The primal.
#[tape(tangent, hvp)]
pub fn course(#[tracked] a: f64) -> f64 {
    let m1 = a * 1.0 - 2.0;
    let m2 = a * 2.0 - 4.0;
    let m3 = a * 3.0 - 6.0;
    m1 * m1 + m2 * m2 + m3 * m3
}

/// The hand-written adjoint: `d/da Σ m_k² = Σ 2 m_k k`.
pub fn course_hand(a: f64, seed: f64, d_a: &mut f64) -> f64 {
    let m1 = a * 1.0 - 2.0;
    let m2 = a * 2.0 - 4.0;
    let m3 = a * 3.0 - 6.0;
    *d_a += seed * (2.0 * m1 + 4.0 * m2 + 6.0 * m3);
    m1 * m1 + m2 * m2 + m3 * m3
}
