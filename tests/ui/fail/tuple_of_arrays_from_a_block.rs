// A tuple holding recorded arrays, bound from a block's value: each part
// would be another name for the array it was moved from, so Mica asks
// for the tuple written out, which it binds part by part.
#[mica::tape]
fn loss(#[tracked] x: f64) -> f64 {
    let mut a = vec![x.sin(), x * x];
    let mut b = vec![0.5, 0.25];
    let mut s = 0.0;
    for _ in 0..3 {
        s += a[0] * b[1];
        let (p, q) = { (b, a) };
        a = p;
        b = q;
    }
    s
}

fn main() {}
