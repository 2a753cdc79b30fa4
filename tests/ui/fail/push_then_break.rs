use mica::tape;

// A loop that may stop before its end pushes an unknown number of times:
// refused at the `push`, with the same hint.
#[tape]
fn until_large(#[tracked] x: &[f64]) -> f64 {
    let mut out = Vec::with_capacity(x.len());
    for i in 0..x.len() {
        out.push(x[i] * x[i]);
        if x[i] > 10.0 {
            break;
        }
    }
    let mut total = 0.0;
    for o in out.iter() {
        total += o.sqrt();
    }
    total
}

// A macro of the user's may leave the loop by what its definition holds:
// refused the same way.
macro_rules! skip_odd {
    ($i:expr) => {
        if $i % 2 == 1 {
            continue;
        }
    };
}

#[tape]
fn even_squares(#[tracked] x: &[f64]) -> f64 {
    let mut out = Vec::new();
    for (i, a) in x.iter().enumerate() {
        skip_odd!(i);
        out.push(a * a);
    }
    out.iter().product()
}

fn main() {}
