// A window's tracked struct needs its type written: `#[tracked] let m:
// Model = …;` is how Mica sees it is a struct.
#[derive(Clone, mica::Knob)]
pub struct Model {
    pub w: [f64; 2],
}

#[mica::tape]
pub fn fit(start: &Model, x: f64) -> (f64, Model) {
    #[tracked]
    let m = start.clone();
    tape! {
        let y = m.w[0] * x + m.w[1];
    }
    backward!(y);
    (y, gradient!(m))
}

fn main() {}
