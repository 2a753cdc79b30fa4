use mica::tape;

#[tape]
async fn loss(#[tracked] a: f64) -> f64 {
    a * a
}

fn main() {}
