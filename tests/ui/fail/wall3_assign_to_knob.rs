use mica::tape;

#[tape]
fn main() {
    #[tracked]
    let mut a = 1.0_f64;
    tape! {
        let y = a * a;
        a = y;
    }
    backward!(y);
}
