use mica::tape;

#[tape]
fn scaled_rows(#[tracked] x: &[f64]) -> f64 {
    let m: Vec<Vec<f64>> = (0..3)
        .map(|i| x.iter().map(|v| v * (i as f64 + 1.0)).collect())
        .collect();
    m[2][1] * m[0][0]
}

#[tape]
fn pairs(#[tracked] x: &[f64]) -> f64 {
    let m: Vec<[f64; 2]> = x.iter().map(|v| [v * 2.0, v * v]).collect();
    m[2][1] * m[0][0]
}

fn main() {}
