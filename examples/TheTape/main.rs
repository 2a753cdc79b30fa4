//! The course's descent: one knob, a window that records the loss, and the
//! slope read back from the tape. Run it with `make -C examples/TheTape run`.

use mica::tape;

const RATE: f64 = 0.03125;

#[tape]
fn main() {
    println!("the descent, slopes by tape");
    #[tracked]
    let mut a = 0.0_f64;
    for round in 1..=6 {
        tape! {
            let m1 = a * 1.0 - 2.0;
            let m2 = a * 2.0 - 4.0;
            let m3 = a * 3.0 - 6.0;
            let loss = m1 * m1 + m2 * m2 + m3 * m3;
        }
        backward!(loss);
        let slope = gradient!(a);
        a -= RATE * slope;
        println!("  round {round}: a={a:.6}, slope {slope:.6}, loss {loss:.6}");
    }
}
