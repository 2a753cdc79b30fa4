// A tracked struct passed whole to a function that is not `#[tape]`: its
// slopes would be lost, so the call is refused.
#[derive(Clone, mica::Knob)]
pub struct Model {
    pub w: [f64; 2],
}

fn norm(m: &Model) -> f64 {
    m.w[0] * m.w[0]
}

#[mica::tape]
pub fn loss(#[tracked] m: &Model, x: f64) -> f64 {
    norm(m) * x
}

fn main() {}
