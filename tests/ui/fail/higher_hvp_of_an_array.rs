use mica::tape;

#[tape(hvp)]
fn step(#[tracked] x: &[f64; 2]) -> [f64; 2] {
    [x[0] * x[1], x[1]]
}

fn main() {}
