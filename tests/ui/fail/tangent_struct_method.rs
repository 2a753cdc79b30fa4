// Forward mode follows a model's method through the method's own forward
// mode: a method without `tangent` is named at the call.
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

#[mica::tape]
pub fn energy(#[tracked] m: &Model) -> f64 {
    m.w[0] * m.w[1]
}

#[mica::tape(tangent)]
pub fn loss(#[tracked] m: &Model, x: f64) -> f64 {
    m.predict(x).powi(2) + energy(m)
}

fn main() {}
