use mica::tape;

fn plain(x: f64) -> f64 {
    x * x
}

#[tape]
fn loss(#[tracked] a: f64) -> f64 {
    plain(a) + 1.0
}

fn main() {}
