use mica::tape;

#[tape]
fn f(#[tracked] w: &[f64]) -> f64 {
    let mut total = 0.0;
    'rows: for i in 0..w.len() {
        for j in 0..w.len() {
            let x = if j > i { continue 'rows } else { w[j] };
            total += w[i] * x;
        }
    }
    total
}

fn main() {}
