// A function generic over its float, asked for a gradient at `i32`:
// the companions need `mica::Real`, which the integers are not.
use mica::tape;
use num_traits::Float;

#[tape]
pub fn square<T: Float>(#[tracked] x: T) -> T {
    x * x
}

fn main() {
    let _ = square(3.0_f64);
    let _ = square_grad(3_i32);
}
