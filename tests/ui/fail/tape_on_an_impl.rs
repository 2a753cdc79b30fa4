struct Spring {
    k: f64,
}

#[mica::tape]
impl Spring {
    fn energy(&self, #[tracked] x: f64) -> f64 {
        0.5 * self.k * x * x
    }
}

fn main() {}
