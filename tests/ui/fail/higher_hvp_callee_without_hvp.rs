use mica::tape;

#[tape(tangent)]
fn square(#[tracked] x: f64) -> f64 {
    x * x
}

#[tape(hvp)]
fn loss(#[tracked] x: f64) -> f64 {
    square(x) + 1.0
}

fn main() {}
