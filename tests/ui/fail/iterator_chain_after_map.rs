use mica::tape;

// `x.iter().chain(y.iter())` over recorded values is followed, then adapted
// as any chain; a `chain` after an adapter (`map`, `filter`, …) or of
// something other than an array or a part of one is not.
#[tape]
fn both(#[tracked] x: &[f64], y: &[f64]) -> f64 {
    let scaled: f64 = x.iter().map(|v| v * 2.0).chain(y.iter().copied()).sum();
    let more: f64 = x.iter().copied().chain(y.iter().map(|v| v * 3.0)).sum();
    scaled + more
}

fn main() {}
