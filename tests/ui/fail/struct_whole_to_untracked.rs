// A tracked struct passed whole to a `#[tape]` function whose parameter
// is not tracked: its slopes would be lost, so it is refused; so is a
// recorded value passed beside it to a parameter that is not tracked.
#[derive(Clone, mica::Knob)]
pub struct Model {
    pub w: [f64; 2],
    pub b: f64,
}

#[mica::tape]
pub fn predict(m: &Model, #[tracked] x: f64) -> f64 {
    m.w[0] * x + m.b
}

#[mica::tape]
pub fn scaled(#[tracked] m: &Model, x: f64) -> f64 {
    m.w[1] * x
}

#[mica::tape]
pub fn loss(#[tracked] m: &Model, #[tracked] x: f64) -> f64 {
    predict(m, x) + scaled(m, x * x)
}

fn main() {}
