// Structs in a `Vec` (or an array) are followed; structs in a `Vec` of
// arrays are not yet.
#[derive(Clone, mica::Knob)]
pub struct Layer {
    pub w: Vec<f64>,
}

#[derive(Clone, mica::Knob)]
pub struct Net {
    pub blocks: Vec<[Layer; 2]>,
    pub out: f64,
}

#[mica::tape]
pub fn loss(#[tracked] n: &Net, x: f64) -> f64 {
    n.out * x
}

fn main() {}
