use mica::tape;

#[tape]
fn loss(#[tracked] a: f64, text: &str) -> f64 {
    let scale: f64 = text.parse().ok()?;
    a * scale
}

fn main() {}
