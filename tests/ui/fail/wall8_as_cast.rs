use mica::tape;

#[tape]
fn loss(#[tracked] a: f64) -> f64 {
    let n = a as i64;
    a * n as f64
}

fn main() {}
