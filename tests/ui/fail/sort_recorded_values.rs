use mica::tape;

// Sorting recorded values is not followed, nor an ordering that reads them;
// the hint sorts positions by detached copies (`tests/idioms.rs`, `median`).
#[tape]
fn median(#[tracked] x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

#[tape]
fn smallest_first(#[tracked] x: &[f64]) -> f64 {
    let mut order: Vec<usize> = (0..x.len()).collect();
    order.sort_by(|&i, &j| x[i].total_cmp(&x[j]));
    x[order[0]]
}

fn main() {}
