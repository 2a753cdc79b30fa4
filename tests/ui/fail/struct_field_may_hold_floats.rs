// A field whose type may hold floats (`Option`, `Box`, a tuple) is not
// copied silently: it is a knob, or marked `#[knob(skip)]`.
#[derive(Clone, mica::Knob)]
pub struct Model {
    pub w: [f64; 2],
    pub extra: Option<f64>,
}

fn main() {}
