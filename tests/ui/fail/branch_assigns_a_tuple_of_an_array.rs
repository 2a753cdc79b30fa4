use mica::tape;

// A tuple binding that holds an array, given a new tuple by a branch, is
// refused (a tuple of scalars is merged field by field).
#[tape]
fn f(#[tracked] a: f64, #[tracked] b: f64) -> f64 {
    let mut p = (a, [a, b]);
    if a > b {
        p = (b, [b, a * a]);
    }
    p.0 * p.1[1]
}

fn main() {}
