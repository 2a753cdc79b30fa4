use mica::tape;

#[tape]
fn loss(a: f64) -> f64 {
    a * a
}

fn main() {}
