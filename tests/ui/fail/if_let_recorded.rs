use mica::tape;

// `if let` on a recorded value: Mica records comparisons, not patterns.
#[tape]
fn pick(#[tracked] x: f64) -> f64 {
    let scaled = if x > 0.0 { Some(x * 2.0) } else { None };
    if let Some(v) = scaled {
        v
    } else {
        0.0
    }
}

fn main() {}
