use mica::tape;

#[tape]
fn f(#[tracked] a: f64) -> f64 {
    let mut m = [[a, 1.0], [2.0, a * a]];
    m[1].fill(a);
    m[0][0] + m[1][1]
}

fn main() {}
