// A helper generic over a `const` is written where it is called with the
// length of the array given for it, read where that array is bound; where
// it is not written there (a name bound twice, in a `tape!` window too, or
// a struct's field), the call is refused at the helper's name.
pub struct Body {
    pub pos: [f64; 3],
}

#[mica::tape]
mod norms {
    use super::Body;

    fn norm2<const N: usize>(v: &[f64; N]) -> f64 {
        let mut s = 0.0;
        for i in 0..N {
            s += v[i] * v[i];
        }
        s
    }

    pub fn shadowed(#[tracked] x: &[f64; 3]) -> f64 {
        let v = [x[0], x[1]];
        let s = norm2(&v);
        let v = [x[0], x[1], x[2], s];
        norm2(&v)
    }

    pub fn field(#[tracked] x: &[f64; 3], b: &Body) -> f64 {
        norm2(x) * norm2(&b.pos)
    }

    pub fn window(a: f64, b: f64) -> (f64, f64, f64) {
        let v = [1.0, 2.0, 3.0];
        let c = norm2(&v);
        #[tracked]
        let a = a;
        #[tracked]
        let b = b;
        tape! {
            let v = [a, b, a * b, b];
            let n = norm2(&v) + c;
        }
        backward!(n);
        (n, gradient!(a), gradient!(b))
    }
}

fn main() {}
