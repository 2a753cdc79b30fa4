// A helper of a `#[tape]` block passes a recorded value to a function
// outside the block that is not `#[tape]`: rustc reports it at the
// function's name (see the README, "The walls").
mod outside {
    pub fn scale(x: f64) -> f64 {
        2.0 * x
    }
}

#[mica::tape]
mod model {
    use super::outside::scale;

    fn helper(x: f64) -> f64 {
        scale(x) + 1.0
    }

    pub fn loss(#[tracked] a: f64) -> f64 {
        helper(a) * a
    }
}

fn main() {}
