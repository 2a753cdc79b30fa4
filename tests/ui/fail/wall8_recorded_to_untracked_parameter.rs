use mica::tape;

#[tape]
fn scaled(#[tracked] x: f64, scale: f64) -> f64 {
    x * scale
}

#[tape]
fn loss(#[tracked] a: f64) -> f64 {
    scaled(2.0, a)
}

fn main() {}
