// A tracked struct's name bound again in the body.
#[derive(Clone, mica::Knob)]
pub struct Model {
    pub w: [f64; 2],
}

#[mica::tape]
pub fn loss(#[tracked] m: &Model, x: f64) -> f64 {
    let s = m.w[0] * x;
    let m = 2.0;
    s * m
}

fn main() {}
