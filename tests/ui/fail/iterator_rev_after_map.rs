use mica::tape;

#[tape]
fn loss(#[tracked] w: &[f64]) -> f64 {
    w.iter().map(|v| v * v).rev().fold(0.0, |acc, s| acc * 0.5 + s)
}

fn main() {}
