use mica::tape;

// Where the number of pushes is not the loop's iterations counted before
// it, the `Vec` is not made first: a loop that reads the `Vec` it pushes
// onto (its length grows as it runs), in the push or in a statement of its
// own, and an inner loop whose range reads a value the outer body changes.
#[tape]
fn growing(#[tracked] x: &[f64]) -> f64 {
    let mut r = Vec::new();
    for i in 0..x.len() {
        r.push(x[i] * r.len() as f64);
    }
    r.iter().sum()
}

#[tape]
fn counted(#[tracked] x: &[f64]) -> f64 {
    let mut r = Vec::new();
    let mut scale = 1.0;
    for i in 0..x.len() {
        r.push(x[i] * x[i]);
        scale *= r.len() as f64;
    }
    r.iter().sum::<f64>() * scale
}

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

fn main() {}
