use mica::tape;

#[tape]
fn main() {
    #[tracked]
    let a = 1.0_f64;
    println!("{}", gradient!(a));
}
