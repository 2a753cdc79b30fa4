// A block tracking a struct, calling a function outside it with a
// recorded value: Mica's message at the call.
#[derive(Clone, mica::Knob)]
pub struct Model {
    pub w: [f64; 2],
}

fn scale(x: f64) -> f64 {
    2.0 * x
}

#[mica::tape]
pub mod fit {
    use super::{scale, Model};

    pub fn loss(#[tracked] m: &Model, x: f64) -> f64 {
        scale(m.w[0] * x) + m.w[1]
    }
}

fn main() {}
