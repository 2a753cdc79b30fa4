use mica::tape;

// A branch's arms give tuples of scalars; a tuple holding an array is not
// followed: the hint declares the array before the branch and assigns it
// in each arm, which is.
#[tape]
fn pick(#[tracked] x: &[f64; 2], flip: bool) -> f64 {
    let (a, b) = if flip {
        ([x[1], x[0]], [1.0, 2.0])
    } else {
        ([x[0], x[1]], [2.0, 1.0])
    };
    a[0] * b[0] + a[1] * b[1]
}

fn main() {}
