use mica::tape;

#[tape]
fn f(#[tracked] w: &[f64]) -> f64 {
    let mut total = 0.0;
    for i in 0..w.len() {
        let x = if w[i] < 0.0 { continue } else { w[i] };
        total += x * x;
    }
    total
}

fn main() {}
