use mica::tape;

#[tape]
fn loss(#[tracked] a: f64) -> f64 {
    let clip = |v: f64| {
        if v > 1.0 {
            return 1.0;
        }
        v
    };
    clip(a * a)
}

fn main() {}
