use mica::tape;

#[tape]
fn main() {
    #[tracked]
    let a = 1.0_f64;
    let mut history = Vec::new();
    tape! {
        let y = a * a;
        history.push(1.0);
    }
    backward!(y);
    println!("{history:?}");
}
