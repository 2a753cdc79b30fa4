// A tracked struct is followed through its fields; passed whole to a
// function or a method, it is refused where it is passed.
#[derive(Clone, mica::Knob)]
pub struct Model {
    pub w: [f64; 2],
}

impl Model {
    pub fn predict(&self, x: f64) -> f64 {
        self.w[0] * x + self.w[1]
    }
}

fn norm(m: &Model) -> f64 {
    m.w[0] * m.w[0]
}

#[mica::tape]
pub fn loss(#[tracked] m: &Model, x: f64) -> f64 {
    m.predict(x) + norm(m)
}

fn main() {}
