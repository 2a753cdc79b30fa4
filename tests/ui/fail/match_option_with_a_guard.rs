use mica::tape;

// A `match` on `x.first()` (or `x.get(i)`, `x.last()`) of recorded values is
// followed when it has a `Some(v)` arm and a `None` (or `_`) arm; a guard on
// an arm is not: the hint says to test inside the arm.
#[tape]
fn positive_head(#[tracked] x: &[f64]) -> f64 {
    match x.first() {
        Some(v) if *v > 0.0 => v.sin(),
        _ => 0.0,
    }
}

// nor a pattern the `if let` does not take (`Some(ref v)`): the same hint
#[tape]
fn head_by_ref(#[tracked] x: &[f64]) -> f64 {
    match x.get(0) {
        Some(ref v) => v.sin(),
        None => 0.0,
    }
}

fn main() {}
