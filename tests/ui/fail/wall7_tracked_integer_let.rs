use mica::tape;

#[tape]
fn main() {
    #[tracked]
    let steps = 10_u32;
    #[tracked]
    let a = 1.0_f64;
    tape! { let y = a * a; }
    backward!(y);
    println!("{steps}");
}
