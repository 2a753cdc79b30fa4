use mica::tape;

// `x.get(i)` in an `if let` on recorded values is followed as `Some(v)` or
// `Some(&v)`, a part by `get(a..b)` as `Some(part)`; a range written
// `a..=b` is not: the hint says how to write it.
#[tape]
fn tail(#[tracked] x: &[f64], i: usize) -> f64 {
    let mut s = 0.0;
    if let Some(v) = x.get(i) {
        s += v;
    }
    if let Some(part) = x.get(i..i + 2) {
        s += part[0] * part[1];
    }
    if let Some(part) = x.get(i..=i + 1) {
        s += part[0] * part[1];
    }
    s
}

fn main() {}
