use mica::tape;

#[tape]
fn loss(#[tracked] n: i32, #[tracked] x: f64) -> f64 {
    x * f64::from(n)
}

fn main() {}
