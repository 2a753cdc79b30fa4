use mica::tape;

#[tape]
fn loss(#[tracked] w: f64) -> f64 {
    let bits = w.to_bits();
    w * (bits % 2) as f64
}

fn main() {}
