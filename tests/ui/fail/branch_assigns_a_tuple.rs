use mica::tape;

#[tape]
fn f(#[tracked] a: f64, #[tracked] b: f64) -> f64 {
    let mut p = (a, b);
    if a > b {
        p = (b, a * a);
    }
    p.0 * p.1
}

fn main() {}
