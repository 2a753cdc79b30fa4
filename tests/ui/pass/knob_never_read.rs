use mica::tape;

#[tape]
fn main() {
    #[tracked]
    let a = 2.0_f64;
    #[tracked]
    let idle = 7.0_f32;
    tape! { let y = a * 3.0; }
    backward!(y);
    assert_eq!(gradient!(idle), 0.0);
    assert_eq!(gradient!(a), 3.0);
}
