use mica::tape;

#[tape]
fn main() {
    #[tracked]
    let a = 1.0_f64;
    tape! {
        #[tracked]
        let b = a * 2.0;
        let y = b * b;
    }
    backward!(y);
}
