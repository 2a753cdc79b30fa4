use mica::tape;

#[tape]
extern "C" fn loss(#[tracked] a: f64) -> f64 {
    a * a
}

fn main() {}
