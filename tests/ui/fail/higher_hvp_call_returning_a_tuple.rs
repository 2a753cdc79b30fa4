use mica::tape;

#[tape(tangent)]
fn polar(#[tracked] p: &[f64; 2]) -> (f64, f64) {
    (p[0].hypot(p[1]), p[1].atan2(p[0]))
}

#[tape(hvp)]
fn area(#[tracked] p: &[f64; 2]) -> f64 {
    let (r, a) = polar(p);
    r * r * a
}

fn main() {}
