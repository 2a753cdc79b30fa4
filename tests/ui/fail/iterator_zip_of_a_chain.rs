use mica::tape;

// A filtered chain's elements are not at closed-form positions.
#[tape]
fn loss(#[tracked] w: &[f64], x: &[f64]) -> f64 {
    w.iter().zip(x.iter().filter(|v| **v > 0.0)).map(|(a, b)| a * b).sum()
}

fn main() {}
