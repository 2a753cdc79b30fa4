use mica::tape;

#[derive(Clone, Copy)]
struct Spring {
    k: f64,
}

#[tape]
impl Spring {
    #[tape(tangent)]
    fn energy(self, #[tracked] x: f64) -> f64 {
        0.5 * self.k * x * x
    }
}

fn main() {}
