use mica::tape;

#[tape]
fn main() {
    #[tracked]
    let a = 1.0_f64;
    for _ in 0..3 {
        tape! {
            let y = a * a;
            if y > 1.0 {
                break;
            }
        }
        backward!(y);
    }
}
