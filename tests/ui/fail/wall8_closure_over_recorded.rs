use mica::tape;

#[tape]
fn loss(#[tracked] a: f64) -> f64 {
    let square = |v: f64| v * v;
    square(a)
}

fn main() {}
