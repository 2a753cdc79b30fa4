use mica::tape;

#[tape]
fn f(#[tracked] a: f64) -> f64 {
    let m = [[a * 2.0; 2]; 2];
    m[0][1] + m[1][0]
}

fn main() {}
