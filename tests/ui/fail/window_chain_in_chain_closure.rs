// In a `tape!` window, an iterator chain inside another chain's closure
// is not lowered yet: Mica says to write the loop.
use mica::tape;

#[tape]
fn nested(v_in: &[f64]) -> f64 {
    #[tracked]
    let v: Vec<f64> = v_in.to_vec();
    tape! {
        let t = v.iter().map(|&a| [0.5, 1.0].iter().map(|&b| a * b).sum::<f64>()).sum::<f64>();
    }
    backward!(t);
    gradient!(v)[0]
}

fn main() {}
