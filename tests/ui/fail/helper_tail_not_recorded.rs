// A helper's value outside the recorded vocabulary, read by a tuple
// `let` in a window: the one error points at the helper's token, and
// nothing else is said.
#[mica::tape]
mod spread {
    fn ends(s: &[f64]) -> (f64, f64) {
        (s[0], s[1].to_bits() as f64)
    }

    pub fn slope(at: f64) -> f64 {
        #[tracked]
        let x = at;
        tape! {
            let w = [x, 2.0 * x];
            let (first, least) = ends(&w);
            let loss = first * least;
        }
        backward!(loss);
        gradient!(x)
    }
}

fn main() {}
