use mica::tape;

#[tape]
fn loss(#[tracked] a: f64) -> f64 {
    let v = dbg!(a * 2.0);
    v * v
}

fn main() {}
