use mica::tape;

#[tape]
fn main() {
    #[tracked]
    let a = 1.0_f64;
    let mut log = String::new();
    tape! {
        let y = a * a;
        let sink = &mut log;
        sink.push('x');
    }
    backward!(y);
}
