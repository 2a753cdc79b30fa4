use mica::tape;

#[tape]
fn f(#[tracked] w: &[f64]) -> f64 {
    let mut i = 0;
    let mut total = 0.0;
    let last = loop {
        total += w[i] * w[i];
        i += 1;
        if i == w.len() {
            break total;
        }
    };
    last
}

fn main() {}
