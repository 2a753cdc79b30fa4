use mica::tape;

#[tape]
fn loss(#[tracked] a: f64) -> f64 {
    a.next_up() * 2.0
}

fn main() {}
