use mica::tape;

#[tape]
fn main() {
    #[tracked]
    let a = 1.0_f64;
    fn helper(a: f64) {
        tape! { let y = a * a; }
    }
    tape! { let y = a * 2.0; }
    backward!(y);
    helper(a);
}
