use mica::tape;

#[tape]
fn loss(#[tracked] a: &mut f64) -> f64 {
    *a * 2.0
}

fn main() {}
