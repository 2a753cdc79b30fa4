use mica::tape;

#[tape(reverse)]
fn loss(#[tracked] a: f64) -> f64 {
    a * a
}

fn main() {}
