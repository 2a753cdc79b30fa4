use mica::tape;

#[tape]
fn loss(#[tracked] w: &[f64]) -> f64 {
    w.iter()
        .rev()
        .enumerate()
        .rev()
        .fold(0.0, |acc, (k, s)| acc * 0.5 + k as f64 * s)
}

fn main() {}
