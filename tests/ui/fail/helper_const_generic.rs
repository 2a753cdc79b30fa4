#[mica::tape]
mod norms {
    fn norm2<const N: usize>(v: &[f64; N]) -> f64 {
        let mut s = 0.0;
        for i in 0..N {
            s += v[i] * v[i];
        }
        s
    }

    pub fn loss(#[tracked] x: &[f64; 3]) -> f64 {
        norm2(x)
    }
}

fn main() {}
