use mica::tape;

#[tape]
fn main() {
    #[tracked]
    let (a, b) = (1.0_f64, 2.0_f64);
    tape! { let y = a * b; }
    backward!(y);
}
