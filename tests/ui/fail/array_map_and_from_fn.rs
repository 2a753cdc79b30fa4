use mica::tape;

// a test of each element makes no floats
#[tape]
fn masked(#[tracked] p: &[f64; 3]) -> f64 {
    let mask = p.map(|v| v > 0.0);
    let mut t = 0.0;
    for i in 0..3 {
        if mask[i] {
            t += p[i] * p[i];
        }
    }
    t
}

fn first(q: [f64; 3]) -> f64 {
    q[0]
}

// the length is not written where the array is made
#[tape]
fn rolled(#[tracked] p: &[f64; 3]) -> f64 {
    let q = std::array::from_fn(|i| p[i] * p[(i + 1) % 3]);
    first(mica::detach(q))
}

fn main() {}
