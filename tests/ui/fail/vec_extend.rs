use mica::tape;

#[tape]
fn twice(#[tracked] x: &[f64]) -> f64 {
    let mut v = x.to_vec();
    v.extend_from_slice(x);
    v[0] * v[v.len() - 1]
}

#[tape]
fn appended(#[tracked] x: &[f64]) -> f64 {
    let mut v = vec![1.0, 2.0];
    v.extend_from_slice(x);
    v[0] * v[v.len() - 1]
}

fn main() {}
