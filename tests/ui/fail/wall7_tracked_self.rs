use mica::tape;

struct Model {
    weight: f64,
}

impl Model {
    #[tape]
    fn loss(#[tracked] self, #[tracked] x: f64) -> f64 {
        self.weight * x
    }
}

fn main() {}
