use mica::tape;

// Recorded values pushed onto a `Vec` are not followed: the hint collects
// them, or writes the elements of a `Vec` made first.
#[tape]
fn doubled(#[tracked] x: &[f64]) -> f64 {
    let mut out = Vec::new();
    for v in x {
        out.push(v * 2.0);
    }
    out.iter().map(|o| o * o).sum()
}

fn main() {}
