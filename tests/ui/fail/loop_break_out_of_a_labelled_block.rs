use mica::tape;

#[tape]
fn f(#[tracked] w: &[f64]) -> f64 {
    let mut total = 0.0;
    'sum: {
        for i in 0..w.len() {
            if total > 1.0 {
                break 'sum;
            }
            total += w[i] * w[i];
        }
    }
    total
}

fn main() {}
