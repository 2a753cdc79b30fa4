use mica::tape;

// Pushes in a `while` loop are not followed (its iterations are not
// counted before it), nor pushes of pairs (the `Vec` is not one of
// floats): the hint says where `push` is followed, and what to write
// otherwise.
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
