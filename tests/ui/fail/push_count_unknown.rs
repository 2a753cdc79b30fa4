use mica::tape;

// Where the pushes are not bounded before the loop, the `Vec` is not made
// first: an inner loop whose range reads a value the outer body binds or
// changes, by a method or through a `mut` binding; and a loop whose
// pattern binds the name of the `Vec` again.
#[tape]
fn ragged(#[tracked] x: &[f64], widths: &[usize]) -> f64 {
    let mut r = Vec::new();
    let mut w = 0;
    for i in 0..widths.len() {
        w += widths[i];
        for j in 0..w {
            r.push(x[j] * x[i]);
        }
    }
    r.iter().sum()
}

#[tape]
fn rows_by_width(#[tracked] x: &[f64], widths: &[usize]) -> f64 {
    let mut r = Vec::new();
    for i in 0..widths.len() {
        let w = widths[i];
        for j in 0..w {
            r.push(x[j] * x[i]);
        }
    }
    r.iter().sum()
}

#[tape]
fn shrinking(#[tracked] x: f64, data: &[f64]) -> f64 {
    let mut ys = data.to_vec();
    let mut v = Vec::new();
    for _ in 0..3 {
        let _ = ys.split_off(ys.len() - 1);
        for j in 0..ys.len() {
            v.push(x * ys[j]);
        }
    }
    v.iter().sum()
}

#[tape]
fn rebound(#[tracked] x: &[f64]) -> f64 {
    let grid = vec![vec![1.0], vec![2.0]];
    let mut row = Vec::new();
    for mut row in grid {
        row.push(x[0]);
    }
    row.push(0.0);
    row.len() as f64
}

fn main() {}
