use mica::tape;

// `x.get(i)` in an `if let` on recorded values: the hint tests the index.
#[tape]
fn tail(#[tracked] x: &[f64], i: usize) -> f64 {
    let mut s = 0.0;
    if let Some(v) = x.get(i) {
        s += v;
    }
    s
}

fn main() {}
