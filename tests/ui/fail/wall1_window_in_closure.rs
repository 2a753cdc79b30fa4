use mica::tape;

#[tape]
fn main() {
    #[tracked]
    let a = 1.0_f64;
    let run = || {
        tape! { let y = a * a; }
    };
    run();
}
