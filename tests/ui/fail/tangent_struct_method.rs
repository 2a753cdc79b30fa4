// Forward mode does not follow a model's method called from outside its
// block yet: Mica's message at the call, with what to write instead.
#[derive(Clone, mica::Knob)]
pub struct Model {
    pub w: [f64; 2],
}

#[mica::tape]
impl Model {
    pub fn predict(#[tracked] &self, x: f64) -> f64 {
        self.w[0] * x + self.w[1]
    }
}

#[mica::tape(tangent)]
pub fn loss(#[tracked] m: &Model, x: f64) -> f64 {
    m.predict(x).powi(2)
}

fn main() {}
