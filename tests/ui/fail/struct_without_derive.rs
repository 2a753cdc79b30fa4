// A tracked struct needs `#[derive(mica::Knob)]` on its definition.
pub struct Model {
    pub w: [f64; 2],
}

#[mica::tape]
pub fn loss(#[tracked] m: &Model, x: f64) -> f64 {
    m.w[0] * x + m.w[1]
}

fn main() {}
