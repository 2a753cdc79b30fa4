use mica::tape;

use std::collections::HashMap;

#[tape]
fn main() {
    #[tracked]
    let a = 1.5_f64;
    let table = [1.0, 2.0, 3.0];
    tape! {
        let mut weights = HashMap::new();
        weights.insert("w", table.iter().sum::<f64>());
        let mut scratch = Vec::new();
        scratch.push(4.0_f64);
        let label = format!("{} items", scratch.len());
        let scale = weights["w"] * scratch[0] / label.len() as f64;
        let clamp = if scale > 2.0 { 2.0 } else { scale };
        let y = a * clamp + (a * 2.0).floor();
        println!("{label}: {y}");
    }
    backward!(y);
    assert_eq!(gradient!(a), 2.0);
}
