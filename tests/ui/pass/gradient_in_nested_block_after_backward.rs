use mica::tape;

#[tape]
fn main() {
    #[tracked]
    let a = 2.0_f64;
    tape! { let y = a * a; }
    backward!(y);
    {
        let inner = {
            if gradient!(a) > 0.0 { gradient!(a) } else { 0.0 }
        };
        assert_eq!(inner, 4.0);
    }
    assert_eq!(y, 4.0);
}
