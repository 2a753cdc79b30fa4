// A tracked tuple is followed through its elements; destructured whole,
// it is refused where it is read.
#[mica::tape]
pub fn loss(#[tracked] p: &(f64, [f64; 2]), x: f64) -> f64 {
    let (a, b) = *p;
    a * x + b[0]
}

fn main() {}
