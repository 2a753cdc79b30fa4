// A tracked struct's field of structs (`Vec<Layer>`) is not followed yet.
#[derive(Clone, mica::Knob)]
pub struct Layer {
    pub w: Vec<f64>,
}

#[derive(Clone, mica::Knob)]
pub struct Net {
    pub layers: Vec<Layer>,
    pub out: f64,
}

#[mica::tape]
pub fn loss(#[tracked] n: &Net, x: f64) -> f64 {
    n.out * x
}

fn main() {}
