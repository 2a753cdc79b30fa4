#[mica::tape]
mod series {
    fn power(x: f64, n: u32) -> f64 {
        if n == 0 {
            1.0
        } else {
            x * power(x, n - 1)
        }
    }

    pub fn loss(#[tracked] x: f64) -> f64 {
        power(x, 3)
    }
}

fn main() {}
