use mica::tape;

#[tape]
fn main() {
    #[tracked]
    let a = 1.0_f64;
    let b = 2.0_f64;
    tape! { let y = a * b; }
    backward!(y);
    println!("{}", gradient!(b));
}
