use mica::tape;

#[tape]
fn terms(#[tracked] x: f64) -> (f64, [f64; 2]) {
    let (a, b) = (x * x, x.sin());
    (a + b, [a, b])
}

#[tape]
fn loss(#[tracked] x: f64) -> f64 {
    let (e, parts) = terms(x);
    e + parts[0]
}

fn main() {}
