use mica::tape;

// `.unwrap_or(d)` of an element's `Option` is followed
// (`x.get(i).copied().unwrap_or(d)`, `x.first()`, `x.last()`); of an
// `Option` an iterator gives, not: the hint names the element's form.
#[tape]
fn head(#[tracked] x: &[f64]) -> f64 {
    x.iter().next().copied().unwrap_or(0.0)
}

// nor `unwrap_or_else` of an element's: the same hint
#[tape]
fn second(#[tracked] x: &[f64]) -> f64 {
    x.get(1).copied().unwrap_or_else(|| x[0])
}

// of an `Option` held in a name: tested where it is made
#[tape]
fn positive(#[tracked] x: &[f64]) -> f64 {
    let o = if x[0] > 0.0 { Some(x[0]) } else { None };
    o.unwrap_or(1.0)
}

fn main() {}
