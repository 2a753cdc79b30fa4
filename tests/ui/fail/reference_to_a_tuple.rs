use mica::tape;

/// An element and a scalar by reference are followed; a reference to a
/// tuple of recorded values is not.
#[tape]
fn f(#[tracked] x: &[f64]) -> f64 {
    let r = &x[0];
    let a = *r * 2.0;
    let t = &(a, x[1]);
    t.0 + t.1
}

fn main() {
    let _ = f(&[1.0, 2.0]);
}
