use mica::tape;

// A view is bound once: a `let mut` view, moved to another part later, is
// not read as one.
#[tape]
fn window(#[tracked] w: &[f64], shift: bool) -> f64 {
    let mut part = &w[0..2];
    if shift {
        part = &w[1..3];
    }
    part[0] * part[1]
}

fn main() {}
