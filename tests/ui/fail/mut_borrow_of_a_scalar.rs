use mica::tape;

/// A `&mut` borrow of a recorded scalar, written through.
#[tape]
fn f(#[tracked] x: &[f64]) -> f64 {
    let mut b = x[0] * 2.0;
    let r = &mut b;
    *r += 1.0;
    b
}

fn main() {
    let _ = f(&[1.0, 2.0]);
}
