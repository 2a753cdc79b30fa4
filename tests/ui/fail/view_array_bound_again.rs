use mica::tape;

// A view reads the array it borrows; a new binding of that array's name
// while the view is in use would be read in its place.
#[tape]
fn head(#[tracked] w: &[f64]) -> f64 {
    let row = &w[0..2];
    let w = [1.0, 2.0];
    row[0] * w[0]
}

#[tape]
fn pairs(#[tracked] w: &[f64]) -> f64 {
    let mut s = 0.0;
    for c in w.chunks(2) {
        let w = c[0];
        s += w * c[c.len() - 1];
    }
    s
}

fn main() {}
