// `#[knob(…)]` knows one argument: `skip`.
#[derive(mica::Knob)]
pub struct Model {
    pub w: [f64; 2],
    #[knob(frozen)]
    pub b: f64,
}

fn main() {}
