use mica::tape;

#[tape]
fn loss(#[tracked] a: f64) -> f64 {
    tape! { let y = a * a; }
    a
}

fn main() {}
