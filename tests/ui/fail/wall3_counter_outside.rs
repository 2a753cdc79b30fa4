use mica::tape;

#[tape]
fn main() {
    #[tracked]
    let a = 1.0_f64;
    let mut calls = 0;
    tape! {
        calls += 1;
        let y = a * a;
    }
    backward!(y);
    println!("{calls}");
}
