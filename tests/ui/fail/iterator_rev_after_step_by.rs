use mica::tape;

#[tape]
fn loss(#[tracked] w: &[f64]) -> f64 {
    w.iter().step_by(2).rev().fold(0.0, |acc, s| acc * 0.5 + s)
}

fn main() {}
