use mica::tape;

#[tape(custom, plain)]
fn f(#[tracked] x: f64) -> f64 {
    x.sin()
}

fn f_backward(x: f64, seed: f64, d_x: &mut f64) -> f64 {
    *d_x += seed * x.cos();
    x.sin()
}

fn main() {}
