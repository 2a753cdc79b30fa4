use mica::tape;

// A tuple of recorded values that Mica follows as one value (a call's, or
// one carried through a loop) is refused where a field, a pattern or a
// branch's merge reads it: its slope would be lost. The hint: read a call's tuple where it is
// made, and carry a loop's values in names of their own.
#[tape]
fn pair(#[tracked] x: f64) -> (f64, f64) {
    (x * x, x.sin())
}

#[tape]
fn by_field(#[tracked] x: f64) -> f64 {
    let t = pair(x);
    t.0 + t.1
}

#[tape]
fn in_a_branch(#[tracked] x: f64) -> f64 {
    let (a, b) = if x > 0.0 { pair(x) } else { (x, x) };
    a + b
}

#[tape]
fn carried(#[tracked] x: &[f64]) -> f64 {
    let mut st = (0.0, 0.0);
    for v in x {
        st = (st.0 + v, st.1 + v * v);
    }
    let (a, b) = st;
    a * b
}

fn main() {}
