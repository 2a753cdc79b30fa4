use mica::tape;

#[tape]
fn doubled(#[tracked] p: &[f64; 3]) -> f64 {
    let q = p.map(|v| v * 2.0);
    q[0] * q[1] + q[2]
}

#[tape]
fn rolled(#[tracked] p: &[f64; 3]) -> f64 {
    let q: [f64; 3] = std::array::from_fn(|i| p[i] * p[(i + 1) % 3]);
    q[0] + q[1] + q[2]
}

fn main() {}
