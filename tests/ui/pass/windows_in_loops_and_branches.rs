use mica::tape;

#[tape]
fn main() {
    #[tracked]
    let mut a = 0.0_f64;
    for step in 0..20 {
        if step % 2 == 0 {
            tape! { let y = (a - 3.0) * (a - 3.0); }
            backward!(y);
            a -= 0.5 * gradient!(a);
        } else {
            tape! { let y = (a - 3.0).powi(2) * 0.5; }
            backward!(y);
            a -= gradient!(a);
        }
    }
    let mut n = 0;
    while n < 2 {
        tape! { let y = a.sin(); }
        backward!(y);
        assert!((gradient!(a) - a.cos()).abs() < 1e-15);
        n += 1;
    }
    // each step is a Newton step on a parabola: exact
    assert_eq!(a, 3.0);
}
