// A `Vec` made by a plain function, given a recorded array inside a loop:
// Mica cannot tell it is an array where it is bound, and says how to
// bind it so that it can.
fn zeros(n: usize) -> Vec<f64> {
    vec![0.0; n]
}

#[mica::tape]
fn loss(#[tracked] x: f64, steps: usize) -> f64 {
    let w = vec![x.sin(), x.cos(), x * x];
    let mut prev = zeros(3);
    let mut s = 0.0;
    for _ in 0..steps {
        s += prev[0] * prev[1];
        prev = w.clone();
    }
    s
}

fn main() {}
