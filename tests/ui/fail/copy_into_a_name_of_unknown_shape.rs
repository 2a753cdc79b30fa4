use mica::tape;

fn start() -> Vec<f64> {
    vec![0.5, 0.25]
}

// A name first bound by a plain function's `Vec`, later given a copy of a
// recorded array: Mica does not know it as an array.
#[tape]
fn f(#[tracked] w: &[f64]) -> f64 {
    let mut h = w.to_vec();
    let mut v = start();
    let mut s = v[0];
    v = h.clone();
    h[0] = 2.0 * w[0];
    s += v[0] * h[0];
    s
}

fn main() {}
