use mica::tape;

// A borrowed slice may be rebound to all of another array (`seen = &v;`),
// not to a part of one: the hint copies the part into a `Vec`.
#[tape]
fn window(#[tracked] x: &[f64]) -> f64 {
    let data = vec![0.5_f64; 3];
    let mut seen: &[f64] = &data;
    let mut t = 0.0;
    for i in 0..2 {
        t += seen[1].tanh();
        let middle = &x[i..i + 3];
        seen = middle;
    }
    t + seen[0]
}

fn main() {}
