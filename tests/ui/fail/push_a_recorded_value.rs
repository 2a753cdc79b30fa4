use mica::tape;

// A push that some iterations skip is not followed (its pushes are not the
// loop's iterations): the hint says where `push` is followed, and what to
// write otherwise.
#[tape]
fn positives(#[tracked] x: &[f64]) -> f64 {
    let mut out = Vec::new();
    for v in x {
        if *v > 0.0 {
            out.push(v * 2.0);
        }
    }
    out.iter().map(|o| o * o).sum()
}

fn main() {}
