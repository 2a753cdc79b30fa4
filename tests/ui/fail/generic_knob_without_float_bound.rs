// A knob whose type is a type parameter with no float bound: Mica asks
// for `T: mica::Real` at the parameter's type.
use mica::tape;

#[tape]
pub fn double<T: Copy + std::ops::Add<Output = T>>(#[tracked] x: T) -> T {
    x + x
}

fn main() {}
