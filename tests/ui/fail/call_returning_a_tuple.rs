use mica::tape;

#[tape]
fn polar(#[tracked] p: &[f64; 2]) -> (f64, f64) {
    (p[0].hypot(p[1]), p[1].atan2(p[0]))
}

#[tape]
fn loss(#[tracked] p: &[f64; 2]) -> f64 {
    let (r, a) = polar(p);
    r * a
}

fn main() {}
