use mica::tape;

#[tape]
fn main() {
    #[tracked]
    let a = 1.0_f64;
    tape! { let y = a * a; }
    backward!(y);
    tape! { let z = a * 3.0; }
    let stale = gradient!(a);
    backward!(z);
    println!("{stale}");
}
