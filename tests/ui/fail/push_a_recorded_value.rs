use mica::tape;

// A push that some iterations skip is not followed (its pushes are not the
// loop's iterations): the hint says where `push` is followed, and what to
// write otherwise.
#[tape]
fn positives(#[tracked] x: &[f64]) -> f64 {
    let mut out = Vec::new();
    for v in x {
        if *v > 0.0 {
            out.push(v * 2.0);
        }
    }
    out.iter().map(|o| o * o).sum()
}

// Nor are pushes in a `while` loop, whose iterations are not counted
// before it, nor of pairs (the `Vec` is not one of floats).
#[tape]
fn halving(#[tracked] x: f64) -> f64 {
    let mut steps = Vec::new();
    let mut h = 1.0;
    while h > 0.1 {
        steps.push(x * h);
        h *= 0.5;
    }
    let mut pairs = Vec::new();
    for k in 0..3 {
        pairs.push((x, k as f64 * x));
    }
    steps.iter().sum::<f64>() + pairs[0].1
}

fn main() {}
