// In a function generic over its float, converting a recorded value with
// `T::from` or `.to_f64()` would lose its slope: Mica refuses it at the
// conversion and says to use the value as it is.
use mica::tape;
use num_traits::Float;

#[tape]
pub fn f<T: Float>(#[tracked] x: T) -> T {
    let y: T = T::from(x).unwrap();
    y * y
}

#[tape]
pub fn g<T: Float>(#[tracked] x: T) -> T {
    let y = x.to_f64().unwrap();
    T::from(y * y).unwrap()
}

fn main() {}
