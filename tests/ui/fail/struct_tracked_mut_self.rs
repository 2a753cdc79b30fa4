// A tracked `self` is read, not changed.
#[derive(Clone, mica::Knob)]
pub struct Line {
    pub slope: f64,
}

#[mica::tape]
impl Line {
    pub fn loss(#[tracked] &mut self, x: f64) -> f64 {
        self.slope * x
    }
}

fn main() {}
