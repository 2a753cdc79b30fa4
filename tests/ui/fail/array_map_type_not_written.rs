use mica::tape;

// the array's type is not written where it is bound (a tuple's element)
#[tape]
fn squares(#[tracked] p: &[f64; 3]) -> f64 {
    let (w, scale) = (*p, 2.0);
    let q = w.map(|v| v * v * scale);
    q[0] + q[1] + q[2]
}

fn main() {}
