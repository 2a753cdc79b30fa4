use mica::tape;

#[tape]
fn main() {
    #[tracked]
    let a = 1.0_f64;
    tape! { let y = a * a; }
    let early = gradient!(a);
    backward!(y);
    println!("{early}");
}
