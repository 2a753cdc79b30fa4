use mica::tape;

// Recorded values held in a struct that is not a knob, or in an array of
// tuples, are not followed: each is refused at the value, with a hint to
// hold them in names or arrays.
#[derive(Clone, Copy)]
pub struct V2 {
    pub x: f64,
    pub y: f64,
}

#[tape]
fn in_a_struct(#[tracked] a: f64) -> f64 {
    let p = V2 { x: a, y: 2.0 * a };
    p.x * p.y
}

#[tape]
fn in_tuples(#[tracked] x: f64) -> f64 {
    let pts = [(x, 1.0), (2.0, x)];
    let mut s = 0.0;
    for (p, q) in pts.iter() {
        s += p * q;
    }
    s
}

fn main() {}
