// A tracked struct is followed through its fields; read whole, as a value
// of its own, it is refused where it is read.
#[derive(Clone, mica::Knob)]
pub struct Model {
    pub w: [f64; 2],
}

#[mica::tape]
pub fn loss(#[tracked] m: &Model, x: f64) -> f64 {
    let copy = m;
    copy.w[0] * x + copy.w[1]
}

fn main() {}
