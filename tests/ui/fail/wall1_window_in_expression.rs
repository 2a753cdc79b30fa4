use mica::tape;

#[tape]
fn main() {
    #[tracked]
    let a = 1.0_f64;
    let x = tape! { let y = a * a; };
    backward!(y);
}
fn _f() {
}
