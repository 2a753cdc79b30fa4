use mica::tape;

fn main() {
    let a = 1.0_f64;
    tape! {
        let y = a * a;
    }
}
