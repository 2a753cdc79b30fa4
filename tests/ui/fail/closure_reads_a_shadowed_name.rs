use mica::tape;

#[tape]
fn loss(#[tracked] a: f64, k: f64) -> f64 {
    let scale = |v: f64| v * k;
    let k = 2.0;
    scale(a) + k
}

fn main() {}
