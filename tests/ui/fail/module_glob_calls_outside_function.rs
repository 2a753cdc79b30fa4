// With a glob import in the block, Mica writes no fallback of its own (two
// globs could offer one name), and rustc reports the call to a function
// that is not `#[tape]` in its own words, at the function's name.
mod outside {
    pub fn scale(x: f64) -> f64 {
        2.0 * x
    }
}

#[mica::tape]
mod model {
    use super::outside::*;

    pub fn loss(#[tracked] a: f64) -> f64 {
        scale(a) * a
    }
}

fn main() {}
