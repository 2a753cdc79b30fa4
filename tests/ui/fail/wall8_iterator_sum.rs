use mica::tape;

#[tape]
fn loss(#[tracked] w: &[f64; 3], xs: &[f64; 3]) -> f64 {
    w.iter().zip(xs).map(|(w, x)| w * x).sum()
}

fn main() {}
