use mica::tape;

#[tape]
const fn loss(#[tracked] a: f64) -> f64 {
    a
}

fn main() {}
