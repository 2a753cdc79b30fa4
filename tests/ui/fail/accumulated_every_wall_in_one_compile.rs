use mica::tape;

#[tape]
fn main() {
    #[tracked]
    let mut a = 1.0_f64;
    let mut log = Vec::new();
    tape! {
        let y = a.next_up();
        a = y;
        log.push(y);
        let z = y as f32;
    }
    backward!(q);
    println!("{}", gradient!(log));
}
