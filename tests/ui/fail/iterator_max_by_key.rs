use mica::tape;

#[tape]
fn loss(#[tracked] w: &[f64]) -> f64 {
    let top = w.iter().max_by(|a, b| (a.abs()).partial_cmp(&b.abs()).unwrap()).unwrap();
    top * 2.0
}

fn main() {}
