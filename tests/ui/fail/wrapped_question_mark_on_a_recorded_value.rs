use mica::tape;

#[tape]
fn f(#[tracked] x: f64) -> Option<f64> {
    let y = Some(x * 2.0)?;
    Some(y * y)
}

fn main() {}
