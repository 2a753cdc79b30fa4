use mica::tape;

#[tape]
fn loss(#[tracked] w: &[f64]) -> f64 {
    let kept: Vec<f64> = w.iter().filter(|v| **v > 0.0).map(|v| v.ln()).collect();
    kept[0]
}

fn main() {}
