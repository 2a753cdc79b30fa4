// A method called on a tracked struct is followed when it is written in a
// `#[tape] impl` with `#[tracked] &self`. Without the mark (`energy`), or
// outside such a block (`predict`), the call names the item the mark
// writes, at the method.
#[derive(Clone, mica::Knob)]
pub struct Model {
    pub w: [f64; 2],
}

impl Model {
    pub fn predict(&self, x: f64) -> f64 {
        self.w[0] * x + self.w[1]
    }
}

#[mica::tape]
impl Model {
    pub fn energy(&self) -> f64 {
        self.w[0] * self.w[0]
    }
}

#[mica::tape]
pub fn loss(#[tracked] m: &Model, x: f64) -> f64 {
    m.predict(x) + m.energy()
}

fn main() {}
