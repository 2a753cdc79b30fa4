use mica::tape;

#[tape]
fn main() {
    #[tracked]
    let a = 1.0_f64;
    let mut total = 0.0;
    tape! {
        let y = a * a;
        total = y;
    }
    backward!(y);
    println!("{total}");
}
