use mica::tape;

// A call that gives an array, passed straight to another call, is read as
// a number: Mica asks for the array bound first, its type written.
#[tape]
fn axpy(a: f64, #[tracked] x: [f64; 2], #[tracked] y: [f64; 2]) -> [f64; 2] {
    [y[0] + a * x[0], y[1] + a * x[1]]
}

#[tape]
fn norm(#[tracked] v: [f64; 2]) -> f64 {
    (v[0] * v[0] + v[1] * v[1]).sqrt()
}

#[tape]
fn loss(#[tracked] x: [f64; 2], y: [f64; 2]) -> f64 {
    norm(axpy(0.5, x, y))
}

fn main() {}
