// A field of a type that is no knob is marked `#[knob(skip)]`.
#[derive(Clone)]
pub struct Config {
    pub rate: f64,
}

#[derive(mica::Knob)]
pub struct Model {
    pub w: [f64; 2],
    pub config: Config,
}

fn main() {}
