use mica::tape;

#[tape]
fn f(#[tracked] w: &[f64]) -> f64 {
    let mut total = 0.0;
    'rows: for i in 0..w.len() {
        for j in 0..w.len() {
            total += w[i] * w[j];
            if total > 1.0 {
                break 'rows;
            }
        }
    }
    total
}

fn main() {}
