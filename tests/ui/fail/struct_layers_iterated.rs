// `for layer in &n.layers` is followed (as a loop by index), and so is
// `for (k, layer) in n.layers.iter().enumerate()`; other ways of walking a
// tracked struct's structs are refused, not read as constants.
#[derive(Clone, mica::Knob)]
pub struct Layer {
    pub w: Vec<f64>,
    pub b: f64,
}

#[derive(Clone, mica::Knob)]
pub struct Net {
    pub layers: Vec<Layer>,
}

#[mica::tape]
pub fn loss(#[tracked] n: &Net, x: f64) -> f64 {
    let mut total = 0.0;
    for layer in n.layers.iter().rev() {
        total += layer.b * x;
    }
    let _first = n.layers.first();
    total
}

fn main() {}
