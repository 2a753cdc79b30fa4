use mica::tape;

#[tape]
fn f(#[tracked] a: f64) -> f64 {
    let mut u = [a, 2.0 * a];
    let mut v = [a * a, 1.0];
    std::mem::swap(&mut u[0], &mut v[1]);
    u[0] * 3.0 + v[1]
}

fn main() {}
