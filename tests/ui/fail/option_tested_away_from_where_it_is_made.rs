use mica::tape;

// An `Option` of recorded values is followed where the test makes it; a
// block that binds a name the arms also read is not taken apart.
#[tape]
fn shadowed(#[tracked] x: f64) -> f64 {
    let q = 3.0;
    match {
        let q = x * 2.0;
        if q > 0.0 { Some(q) } else { None }
    } {
        Some(v) => v * q,
        None => q,
    }
}

// Held in a name first, then matched.
#[tape]
fn held(#[tracked] x: f64) -> f64 {
    let o = if x > 0.0 { Some(x.sqrt()) } else { None };
    match o {
        Some(v) => v,
        None => 0.0,
    }
}



// A helper's `Option` tested with a guard.
#[tape]
mod guarded {
    fn safe_div(a: f64, b: f64) -> Option<f64> {
        if b.abs() < 1e-3 {
            None
        } else {
            Some(a / b)
        }
    }

    pub fn f(#[tracked] x: f64, y: f64) -> f64 {
        match safe_div(x, y) {
            Some(q) if q > 1.0 => q,
            _ => 0.0,
        }
    }
}
fn main() {}
