use mica::tape;

#[tape]
fn loss(#[tracked] (a, b): (f64, f64)) -> f64 {
    a * b
}

fn main() {}
