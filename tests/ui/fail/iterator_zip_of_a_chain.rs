use mica::tape;

#[tape]
fn loss(#[tracked] w: &[f64], x: &[f64]) -> f64 {
    w.iter().zip(x.iter().map(|v| v * 2.0)).map(|(a, b)| a * b).sum()
}

fn main() {}
