use mica::tape;

// An array out of a branch whose arm also changes a binding made before
// it: the directional derivative cannot write the branch twice (the
// change would run twice), and the reverse takes arrays out of branches
// as values only. A compile error, never a number.
#[tape(hvp)]
fn effectful(#[tracked] x: &[f64; 2]) -> f64 {
    let mut s = x[0] * x[1];
    let h = if x[1] > -5.0 {
        s += x[0].sin();
        [s * x[1], s]
    } else {
        [x[0], x[1]]
    };
    h[0] * h[1] + s * s
}

fn main() {}
