//! Loops, branches, arrays and early returns in whole programs: each
//! gradient checked against central finite differences (or algebra), each
//! value against the function itself.
#![deny(warnings)]
use mica::tape;

#[tape]
fn sq_loss(#[tracked] w: &[f64], #[tracked] b: f64, xs: &[f64], ys: &[f64]) -> f64 {
    let mut s = 0.0;
    for i in 0..xs.len() {
        let r = w[0] * xs[i] + w[1] * xs[i] * xs[i] + b - ys[i];
        s += r * r;
    }
    s / xs.len() as f64
}

#[tape]
fn iters(#[tracked] w: [f64; 3], xs: &[f64]) -> f64 {
    let mut s = 1.0;
    for (j, x) in w.iter().enumerate() {
        s = s * x + xs[j];
    }
    for (a, b) in w.iter().zip(xs) {
        s += a * b;
    }
    s
}

#[tape]
fn branches(#[tracked] x: f64, #[tracked] y: f64) -> f64 {
    let mut m = x;
    if y > m {
        m = y;
    }
    let z = if x > 0.0 { x * y } else { y.sin() };
    let k = match mica::detach(x * 10.0) as i32 {
        0 => 1.0,
        1 | 2 => x * 2.0,
        _ => y * y,
    };
    m * z + k
}

#[tape]
fn spring(#[tracked] k: f64, #[tracked] c: f64, steps: usize) -> f64 {
    let (mut x, mut v) = (1.0, 0.0);
    let dt = 0.01;
    let mut t = 0;
    while t < steps {
        let a = -k * x - c * v;
        v += dt * a;
        x += dt * v;
        t += 1;
    }
    x * x
}

#[tape]
fn matrix(#[tracked] w: &[[f64; 2]; 2], x: [f64; 2]) -> f64 {
    let mut s = 0.0;
    for row in w.iter() {
        let mut h = 0.0;
        for j in 0..2 {
            h += row[j] * x[j];
        }
        s += h.tanh();
    }
    s + w[1][0] * w[0][1]
}

#[tape]
fn window_arrays() -> ([f64; 3], f64) {
    #[tracked]
    let w = [0.5, -1.0, 2.0];
    #[tracked]
    let b = 0.25_f64;
    tape! {
        let mut s = 0.0;
        for x in w.iter() {
            s += x * x * b;
        }
    }
    backward!(s);
    (gradient!(w), gradient!(b))
}

#[tape]
fn layer(#[tracked] w: &[[f64; 3]; 2], #[tracked] b: [f64; 2], x: [f64; 3]) -> f64 {
    let mut h = [0.0; 2];
    for i in 0..2 {
        let mut z = b[i];
        for j in 0..3 {
            z += w[i][j] * x[j];
        }
        h[i] = z.tanh();
    }
    let mut out = vec![0.0; x.len() - 1];
    out[0] = h[0] * h[1];
    out[1] += h[1];
    out[1] *= 2.0;
    let lit = [h[0], 3.0, h[1] * h[1]];
    let rep = [b[0]; 4];
    out[0] + out[1] + lit[0] + lit[2] + rep[3] + rep[0]
}

#[tape]
fn early(#[tracked] x: f64, #[tracked] y: f64) -> f64 {
    if x < 0.0 {
        return y * 2.0;
    }
    let z = x * y;
    if z > 1.0 {
        let w = z.sqrt();
        if w > 1.5 {
            return w * x;
        }
        return w + y;
    }
    match mica::detach(y) as i32 {
        0 => return z * 3.0,
        1 => return z * 4.0,
        _ => {}
    }
    z + x.sin()
}

/// A loop over a literal range: its storage lives on the stack.
#[tape]
fn fixed_trips(#[tracked] x: f64) -> f64 {
    let mut s = x;
    for _ in 0..50 {
        s = (s * 0.9).sin() + x;
    }
    s
}

/// An outer range loop around an inner loop over a recorded slice.
#[tape]
fn nested(#[tracked] w: &[f64], rows: usize) -> f64 {
    let mut s = 0.0_f64;
    for i in 0..rows {
        for wj in w.iter() {
            s += (wj * (i + 1) as f64).sin() * s.cos();
        }
    }
    s
}

/// A `Vec` knob: `gradient!` hands out its gradient as a slice.
#[tape]
fn vec_knob(n: usize) -> (Vec<f64>, f64) {
    #[tracked]
    let mut v = vec![0.5; n];
    let mut last = 0.0;
    for round in 0..3 {
        tape! {
            let mut s = 0.0;
            for (k, x) in v.iter().enumerate() {
                s += x * x * (k + round) as f64;
            }
        }
        backward!(s);
        let slope: &[f64] = gradient!(v);
        last = slope[n - 1];
        for (x, g) in v.iter_mut().zip(slope) {
            *x -= 0.01 * g;
        }
    }
    (v, last)
}

/// A dense layer's first unit: a tape function taking recorded arrays.
#[tape]
fn unit(#[tracked] w: &[f64; 3], #[tracked] x: &[f64; 3]) -> f64 {
    let mut s = 0.0;
    for (a, b) in w.iter().zip(x.iter()) {
        s += a * b;
    }
    s.tanh()
}

#[tape]
fn total_of(#[tracked] v: &[f64]) -> f64 {
    let mut s = 0.0;
    for x in v.iter() {
        s += x * x;
    }
    s
}

/// Calls passing whole arrays, rows of a matrix, a local array and a slice.
#[tape]
fn composed(#[tracked] m: &[[f64; 3]; 2], #[tracked] x: [f64; 3], #[tracked] v: &[f64]) -> f64 {
    let mut h = [0.0; 3];
    for j in 0..3 {
        h[j] = x[j] * 2.0;
    }
    unit(&m[0], &x) + unit(&m[1], &h) * unit(&x, &h) + total_of(v)
}

#[tape]
fn composed_in_a_window(m0: [[f64; 3]; 2], x0: [f64; 3]) -> ([[f64; 3]; 2], [f64; 3]) {
    #[tracked]
    let m: [[f64; 3]; 2] = m0;
    #[tracked]
    let x: [f64; 3] = x0;
    tape! {
        let y = unit(&m[0], &x) + unit(&m[1], &x) * 3.0;
    }
    backward!(y);
    (gradient!(m), gradient!(x))
}

const STEPS: usize = 40;

/// A loop bounded by a `const` item: its storage lives on the stack.
#[tape]
fn const_trips(#[tracked] x: f64) -> f64 {
    let mut s = x;
    for _ in 0..=STEPS {
        s = (s * 0.9).sin() + x;
    }
    s
}

/// `return` from inside loops: the first element past a threshold.
#[tape]
fn first_past(#[tracked] w: &[f64], limit: f64) -> f64 {
    let mut s = 0.0;
    for (i, x) in w.iter().enumerate() {
        s += x * x;
        if s > limit {
            return s * (i + 1) as f64;
        }
    }
    let mut k = 0;
    while k < w.len() {
        if w[k] < -0.5 {
            return w[k] * s;
        }
        k += 1;
    }
    s.sqrt()
}

fn check(f: impl Fn(&[f64]) -> f64, at: &[f64], g: &[f64]) {
    mica::check::check_gradient(f, at, g).unwrap();
}

#[test]
fn programs_with_loops_branches_and_arrays() {
    let xs = [0.5, 1.0, -2.0];
    let ys = [1.0, 0.0, 3.0];
    let (v, (dw, db)) = sq_loss_grad(&[0.3, -0.2], 0.1, &xs, &ys);
    assert_eq!(v, sq_loss(&[0.3, -0.2], 0.1, &xs, &ys));
    check(
        |p| sq_loss(&p[..2], p[2], &xs, &ys),
        &[0.3, -0.2, 0.1],
        &[dw[0], dw[1], db],
    );
    let (v, dw) = iters_grad([0.3, -0.7, 1.1], &xs);
    assert_eq!(v, iters([0.3, -0.7, 1.1], &xs));
    check(|p| iters([p[0], p[1], p[2]], &xs), &[0.3, -0.7, 1.1], &dw);
    for (x, y) in [
        (0.05, 0.3),
        (0.15, -0.4),
        (0.5, 0.7),
        (-0.3, 0.2),
        (0.25, 0.1),
    ] {
        let (v, (dx, dy)) = branches_grad(x, y);
        assert_eq!(v, branches(x, y));
        check(|p| branches(p[0], p[1]), &[x, y], &[dx, dy]);
    }
    let (v, (dk, dc)) = spring_grad(2.0, 0.3, 500);
    assert_eq!(v, spring(2.0, 0.3, 500));
    check(|p| spring(p[0], p[1], 500), &[2.0, 0.3], &[dk, dc]);
    let w = [[0.2, -0.4], [0.7, 0.1]];
    let (v, dw) = matrix_grad(&w, [1.5, -0.5]);
    assert_eq!(v, matrix(&w, [1.5, -0.5]));
    check(
        |p| matrix(&[[p[0], p[1]], [p[2], p[3]]], [1.5, -0.5]),
        &[0.2, -0.4, 0.7, 0.1],
        &[dw[0][0], dw[0][1], dw[1][0], dw[1][1]],
    );
    let w = [[0.2, -0.4, 0.1], [0.7, 0.1, -0.3]];
    let (v, (dw, db)) = layer_grad(&w, [0.05, -0.1], [1.0, 2.0, -1.5]);
    assert_eq!(v, layer(&w, [0.05, -0.1], [1.0, 2.0, -1.5]));
    let flat = |p: &[f64]| {
        layer(
            &[[p[0], p[1], p[2]], [p[3], p[4], p[5]]],
            [p[6], p[7]],
            [1.0, 2.0, -1.5],
        )
    };
    let mut g: Vec<f64> = dw.iter().flatten().copied().collect();
    g.extend(db);
    check(flat, &[0.2, -0.4, 0.1, 0.7, 0.1, -0.3, 0.05, -0.1], &g);
    for (x, y) in [
        (-1.0, 0.5),
        (0.5, 0.4),
        (2.0, 0.9),
        (3.0, 1.0),
        (0.3, 2.5),
        (0.2, 0.7),
    ] {
        let (v, (dx, dy)) = early_grad(x, y);
        assert_eq!(v, early(x, y));
        check(|p| early(p[0], p[1]), &[x, y], &[dx, dy]);
    }
    for x in [-1.0, -0.2, 0.3, 0.8, 2.0] {
        let (v, slope) = fixed_trips_grad(x);
        assert_eq!(v, fixed_trips(x));
        check(|p| fixed_trips(p[0]), &[x], &[slope]);
    }
    let (v, d_w) = nested_grad(&[0.3, -0.6, 0.9], 4);
    assert_eq!(v, nested(&[0.3, -0.6, 0.9], 4));
    check(|p| nested(p, 4), &[0.3, -0.6, 0.9], &d_w);
    // by algebra: d/dx_k Σ x_k² (k + r) = 2 x_k (k + r)
    let mut v = vec![0.5; 4];
    let mut last = 0.0;
    for round in 0..3 {
        let slope: Vec<f64> = v
            .iter()
            .enumerate()
            .map(|(k, x)| 2.0 * x * (k + round) as f64)
            .collect();
        last = slope[3];
        for (x, g) in v.iter_mut().zip(&slope) {
            *x -= 0.01 * g;
        }
    }
    assert_eq!(vec_knob(4), (v, last));
    let m = [[0.2, -0.4, 0.1], [0.7, 0.1, -0.3]];
    let (x, v) = ([0.5, -1.0, 0.25], vec![0.3, -0.2]);
    let (value, (dm, dx, dv)) = composed_grad(&m, x, &v);
    assert_eq!(value, composed(&m, x, &v));
    let flat = |p: &[f64]| {
        composed(
            &[[p[0], p[1], p[2]], [p[3], p[4], p[5]]],
            [p[6], p[7], p[8]],
            &p[9..],
        )
    };
    let mut g: Vec<f64> = dm.iter().flatten().copied().collect();
    g.extend(dx);
    g.extend(&dv);
    check(
        flat,
        &[0.2, -0.4, 0.1, 0.7, 0.1, -0.3, 0.5, -1.0, 0.25, 0.3, -0.2],
        &g,
    );
    let (wm, wx) = composed_in_a_window(m, x);
    let by_function = |p: &[f64]| {
        unit(&[p[0], p[1], p[2]], &[p[6], p[7], p[8]])
            + unit(&[p[3], p[4], p[5]], &[p[6], p[7], p[8]]) * 3.0
    };
    let mut g: Vec<f64> = wm.iter().flatten().copied().collect();
    g.extend(wx);
    check(
        by_function,
        &[0.2, -0.4, 0.1, 0.7, 0.1, -0.3, 0.5, -1.0, 0.25],
        &g,
    );
    for x in [-1.0, 0.3, 2.0] {
        let (v, slope) = const_trips_grad(x);
        assert_eq!(v, const_trips(x));
        check(|p| const_trips(p[0]), &[x], &[slope]);
    }
    for (w, limit) in [
        (vec![0.3, 0.9, -0.2], 0.5),
        (vec![0.1, -0.7, 0.2], 5.0),
        (vec![0.1, 0.2, 0.3], 5.0),
    ] {
        let (v, d_w) = first_past_grad(&w, limit);
        assert_eq!(v, first_past(&w, limit));
        check(|p| first_past(p, limit), &w, &d_w);
    }
    assert_eq!(window_arrays(), ([0.25, -0.5, 1.0], 0.25 + 1.0 + 4.0));
}
