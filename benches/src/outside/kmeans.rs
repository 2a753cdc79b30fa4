//! The k-means objective `Σ_i min_k ‖p_i − c_k‖²`, written as a k-means
//! step is: each point's nearest centre found by selection (`if dist <
//! best { best = dist; nearest = c; }`), then the squared distance to it
//! added up. Knobs: the centres (`K × D`, row-major).

// written as its authors write it, with index loops
#![allow(clippy::needless_range_loop)]

use crate::data::Lcg;
use mica::tape;

/// Centres.
pub const K: usize = 8;
/// Dimension.
pub const D: usize = 2;
/// Points.
pub const N: usize = 1000;

/// The primal.
#[tape]
pub fn kmeans(#[tracked] centres: &[f64], points: &[f64], k: usize, d: usize) -> f64 {
    let n = points.len() / d;
    let mut total = 0.0;
    for i in 0..n {
        let mut best = f64::INFINITY;
        let mut nearest = 0;
        for c in 0..k {
            let mut dist = 0.0;
            for j in 0..d {
                let diff = points[i * d + j] - centres[c * d + j];
                dist += diff * diff;
            }
            if dist < best {
                best = dist;
                nearest = c;
            }
        }
        for j in 0..d {
            let diff = points[i * d + j] - centres[nearest * d + j];
            total += diff * diff;
        }
    }
    total
}

/// The hand-written adjoint: one pass; the nearest centre's distance is the
/// one the selection found (the same sums in the same order), and its slope
/// `−2 (p − c)` goes to that centre only.
pub fn kmeans_hand(
    centres: &[f64],
    points: &[f64],
    k: usize,
    d: usize,
    seed: f64,
    d_centres: &mut [f64],
) -> f64 {
    assert_eq!(d_centres.len(), centres.len());
    let mut total = 0.0;
    let g = -2.0 * seed;
    for p in points.chunks_exact(d) {
        let mut best = f64::INFINITY;
        let mut nearest = 0;
        for (c, centre) in centres.chunks_exact(d).enumerate().take(k) {
            let mut dist = 0.0;
            for (pj, cj) in p.iter().zip(centre) {
                let diff = pj - cj;
                dist += diff * diff;
            }
            if dist < best {
                best = dist;
                nearest = c;
            }
        }
        total += best;
        let centre = &centres[nearest * d..(nearest + 1) * d];
        let slot = &mut d_centres[nearest * d..(nearest + 1) * d];
        for ((s, pj), cj) in slot.iter_mut().zip(p).zip(centre) {
            *s += g * (pj - cj);
        }
    }
    total
}

/// Points around `k` cluster centres in the plane (`d = 2` only), and
/// starting centres near (not at) the clusters.
pub fn problem(n: usize, k: usize) -> (Vec<f64>, Vec<f64>) {
    let mut g = Lcg::new((n * 13 + k) as u64);
    let truth: Vec<f64> = g.vec(2 * k, -5.0, 5.0);
    let mut points = Vec::with_capacity(2 * n);
    for i in 0..n {
        let c = i % k;
        points.push(truth[2 * c] + g.range(-1.0, 1.0));
        points.push(truth[2 * c + 1] + g.range(-1.0, 1.0));
    }
    let centres = truth.iter().map(|t| t + g.range(-0.7, 0.7)).collect();
    (centres, points)
}
