use mica::tape;

#[tape]
fn f(#[tracked] x: f64) -> Option<f64> {
    let o = if x > 0.0 { Some(x.sqrt()) } else { None };
    o
}

fn main() {}
