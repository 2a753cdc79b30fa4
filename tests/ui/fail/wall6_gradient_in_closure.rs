use mica::tape;

#[tape]
fn main() {
    #[tracked]
    let a = 1.0_f64;
    tape! { let y = a * a; }
    backward!(y);
    let later = || gradient!(a);
    println!("{}", later());
}
