use mica::tape;

// A helper left early by `return`, its `Option` tested where an arm
// `continue`s the loop around the call, or gives no value: the arms are
// written inside the helper's body, which `return` leaves by a loop of its
// own, as the values it leaves with.
#[tape]
mod roots {
    fn root(a: f64, b: f64, c: f64) -> Option<f64> {
        let d = b * b - 4.0 * a * c;
        if d < 0.0 {
            return None;
        }
        Some((-b + d.sqrt()) / (2.0 * a))
    }

    pub fn skipped(#[tracked] x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() {
            match root(x[i], 1.0, 0.5) {
                Some(t) => s += t,
                None => continue,
            }
            s *= 0.5;
        }
        s
    }

    pub fn flagged(#[tracked] x: &[f64]) -> f64 {
        let mut s = 0.0;
        for i in 0..x.len() {
            let mut skip = false;
            match root(x[i], 1.0, -0.5) {
                Some(t) => s += t,
                None => skip = true,
            }
            if skip {
                continue;
            }
            s *= 0.5;
        }
        s
    }
}

fn main() {}
