use mica::tape;

#[tape]
fn main() {
    #[tracked]
    let a = 3.0_f64;
    tape! {
        let doubled = a * 2.0;
        let (sq, cube) = (a * a, a * a * a);
        let y = doubled + sq + cube;
    }
    backward!(y);
    let total = doubled + sq + cube;
    assert_eq!(total, y);
    assert_eq!(gradient!(a), 2.0 + 6.0 + 27.0);
}
