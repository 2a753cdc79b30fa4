//! Programs that once failed (found by the random differential tests), each
//! now compiled warning-free and checked against finite differences.
#![deny(warnings)]
// the programs are kept as they were found: the shadowing block, the `if`
// ending a match arm, a labelled `loop` left in its first pass, index loops,
// a `.clone()` of an array
#![allow(
    clippy::clone_on_copy,
    clippy::let_and_return,
    clippy::collapsible_match,
    clippy::useless_vec,
    clippy::never_loop,
    clippy::needless_range_loop
)]
use mica::tape;
#[tape]
pub fn a(#[tracked] x: f64) -> f64 {
    let t = {
        let u = x * 2.0;
        let u = u.sin() * 0.5 + x;
        u
    };
    t
}
#[tape]
pub fn b(#[tracked] w: &[f64; 3]) -> f64 {
    let mut s = 0.0_f64;
    for a in w.iter() {
        s += (*a).sin() + (*a).max(s);
    }
    s
}
#[tape]
pub fn c(#[tracked] x: f64, k: usize) -> f64 {
    let mut t = x;
    match k {
        0 => {
            if x > 0.0 {
                t *= x;
            }
        }
        1 => {
            for _ in 0..2 {
                t *= x;
            }
        }
        _ => {}
    }
    t
}
#[tape]
pub fn d(#[tracked] x: f64) -> f64 {
    let v = vec![0.5_f64, x.trunc()];
    let g = [0.5_f64, x.trunc()];
    let mut h = [0.0_f64; 2];
    h[1] = x.trunc();
    h[0] = if x > 0.5 { 0.07 } else { 1.0 };
    v[0] + v[1] + g[1] + h[0] + h[1] + x
}
#[tape]
pub fn e(#[tracked] w: &[f64; 2], c: f64) -> f64 {
    let mut t = c;
    let mut i = 0;
    while i < 2 {
        t *= (-w[i]).round();
        i += 1;
    }
    t + w[0]
}
#[tape]
pub fn two_way(#[tracked] x: f64, k: usize) -> f64 {
    let mut t = x;
    match k {
        0 => match k {
            0 => t += x,
            _ => t *= x,
        },
        _ => {
            if x > 0.5 {
                t *= x;
            } else {
                t += x;
            }
        }
    }
    t
}
pub struct P {
    s: f64,
}
impl P {
    #[tape]
    pub fn m(&self, #[tracked] a: f64, #[tracked] b: f64) -> f64 {
        a * b + self.s
    }
}
#[tape]
pub fn h(#[tracked] x: f64, o: &P) -> f64 {
    let mut t = x;
    for _ in 0..3 {
        t += o.m(t, x);
    }
    if x > 0.0 {
        t += o.m(x, t);
    }
    if x > 2.0 {
        return x;
    }
    t += o.m(x, x);
    t
}
#[tape]
pub fn i(#[tracked] x: f64) -> f64 {
    let v = vec![{
        let u = x;
        u.sin() * 0.5 + 1.0
    }];
    let h = [
        (-{
            let u = x;
            u.sin()
        })
        .tanh(),
        0.5,
    ];
    let mut w = [0.0_f64; 3];
    for a in v.iter() {
        w[0] += *a * 2.0;
    }
    v[0] + h[0] + h[1] + w[0]
}
/// Seed 618099952, programs 392 and 1309 of the 10,000-program run: a
/// constant block (a branch on a recorded value choosing constants, or a
/// `detach`) inside `vec!` left the branch's temporaries declared but never
/// set (E0282).
#[tape]
fn j(#[tracked] w: &[f64; 2], cp: f64) -> f64 {
    let t = w[0];
    let a = vec![{
        let u = if t > 0.39_f64 { -0.85_f64 } else { -0.95_f64 };
        let u = u.sin() * 0.5_f64 + (-0.5_f64);
        u
    }];
    let b = vec![{
        let u = cp;
        let u = u.sin() * 0.5_f64 + mica::detach(t).tanh();
        u
    }];
    t * a[0] + w[1] * b[0]
}

/// Found by the expansion-time measurement: a value read by thousands of
/// lines had its adjoint written as one `a + b + …` chain, nested deeper
/// than rustc can walk (a stack overflow). Past 32 parts the sum is now
/// added up in a local; `x` here has 37.
#[tape]
fn long_sum(#[tracked] x: f64, #[tracked] y: f64) -> f64 {
    let a = x * y + x * 2.0 + x * 3.0 + x * 4.0 + x * 5.0 + x * 6.0 + x * 7.0 + x * 8.0 + x * 9.0;
    let b = a + x * 11.0 + x * 12.0 + x * 13.0 + x * 14.0 + x * 15.0 + x * 16.0 + x * 17.0;
    let c = b + x * 21.0 + x * 22.0 + x * 23.0 + x * 24.0 + x * 25.0 + x * 26.0 + x * 27.0;
    let d = c + x * 31.0 + x * 32.0 + x * 33.0 + x * 34.0 + x * 35.0 + x * 36.0 + x * 37.0;
    let e = d + x.sin() + x.cos() + (x * 0.5).tanh() + x * x + x / (y + 2.0) + x * 41.0;
    e * y + x * 42.0 + x * 43.0
}

/// A sum whose only recorded addend is an element of an array made and
/// written inside the loop (was rejected: the array's activity was not
/// seen by the carried-binding analysis).
#[tape]
fn k(#[tracked] w: &[f64]) -> f64 {
    let mut total = 0.0;
    for x in w.iter() {
        let mut h = [0.0; 2];
        h[1] = x * x;
        total += h[1];
    }
    let mut i = 0;
    while i < w.len() {
        let mut h = vec![0.0; 1];
        h[0] = w[i].sin();
        total += h[0];
        i += 1;
    }
    total
}

/// Seed 998079704, program 265: a call of a `#[tape]` method whose every
/// argument is a constant (`detach` of a recorded value) was recorded as an
/// operation, so `vec![…]` of it was taken for an array of recorded values
/// made by `let` (a wall). It is a constant.
#[tape]
fn l(#[tracked] m: &[[f64; 2]; 3], o: &P) -> f64 {
    let v = vec![o.m(-0.4, mica::detach(m[2][0])).tanh()];
    v[0] * m[0][1]
}

/// A constant-start array assigned, in a loop, a block whose value is an
/// array written element by element, after a nested literal in a block
/// (found by inlining helpers: `t = matmul(&t, &rot(q[j]));`).
#[tape]
fn block_arrays(#[tracked] q: &[f64; 2]) -> f64 {
    let mut t = [[1.0, 0.5], [0.25, 1.0]];
    for j in 0..2 {
        t = {
            let b = {
                let th: f64 = q[j];
                [[th, 0.0], [0.0, th * th]]
            };
            let mut c = [[0.0; 2]; 2];
            for i in 0..2 {
                for k in 0..2 {
                    c[i][k] += t[i][0] * b[0][k] + t[i][1] * b[1][k];
                }
            }
            c
        };
    }
    t[0][0] + t[1][1] * t[0][1]
}

/// `break 'label value` from a loop inside the labelled `loop` (an early
/// `return` of a helper inside its `for`).
#[tape]
fn left_from_inside(#[tracked] w: &[f64]) -> f64 {
    let a = 'found: loop {
        for v in w.iter() {
            if *v > 0.0 {
                break 'found 0.5 * v * w[0];
            }
        }
        let t = w[0];
        break 'found t * t;
    };
    a
}

/// An array an `if` gives, constant in one arm or both, that later
/// lines write recorded values into (found by the long run, seed
/// 20261201).
#[tape]
fn branch_array(#[tracked] w: &[f64; 3], #[tracked] x: f64, k: usize) -> f64 {
    let t = 0.5_f64;
    let mut h = if x < -0.36 {
        [t.tanh(), t, 0.2]
    } else {
        [
            0.1,
            match k {
                0 => 0.53,
                1 => t,
                _ => 0.8,
            },
            -0.97,
        ]
    };
    for j in 0..3 {
        h[0] = w[j] * x;
    }
    let mut g = if x < 0.0 {
        [w[0], x, 0.2]
    } else {
        [0.1, 0.3, w[1]]
    };
    g[2] += w[2] * x;
    h[0] + h[1] * x + g[0] + g[1] * x + g[2]
}

/// A block inside an array literal whose loop changes a parameter (the
/// inlined helper of `u(x)` in `[0.96, u(x)]`), in one arm of an `if`: the
/// look that decides whether the literal is recorded left the parameter
/// bound to the loop's value, so the real lowering started the loop from
/// a value nothing read, and the slope was silently zero (found by the
/// generator's block helpers, seed 41, program 56).
#[tape]
fn literal_block_loop(#[tracked] mut x: f64, cp: f64) -> f64 {
    let h = if cp < 0.2 {
        [0.22, 0.3]
    } else {
        [0.96, {
            let mut s = 0.0;
            for _ in 0..3 {
                x += 0.1;
                s += x.tanh();
            }
            s
        }]
    };
    h[1] + x
}

/// The same, an element that is constant but changes the parameter.
#[tape]
fn literal_block_shift(#[tracked] mut x: f32, cp: f32) -> f32 {
    let h = if cp < 0.2 {
        [0.22, 0.3]
    } else {
        [0.96, {
            for _ in 0..3 {
                x += 0.1;
            }
            0.5
        }]
    };
    h[1] + x * x
}

/// The helper's own `mut x` shadowing the tracked `x` inside that loop.
#[tape]
fn literal_block_shadow(#[tracked] x: f64, cp: f64) -> f64 {
    let h = if cp < 0.2 {
        [0.22, 0.3]
    } else {
        [0.96, {
            let mut s = [0.0; 3];
            for _ in 0..3 {
                let mut x: f64 = 0.42;
                x += 0.1;
                s[0] += x.tanh();
            }
            s[0]
        }]
    };
    h[1] + x
}

/// A loop over `0..h.len()` in a branch arm: its range, kept for the
/// reverse, had no starting value before the arm (a build failure; found
/// by the generator's block helpers).
#[tape]
fn len_loop_in_a_branch(#[tracked] v: &[f64]) -> f64 {
    let mut h = [v[0], 0.5, v[2]];
    if v[1] < 0.0 {
        for i in 0..h.len() {
            h[i] *= v[1];
        }
    }
    h[0] + h[1] * h[2]
}

/// A copy of a local array of constants (`let mut v = h;`, what a helper's
/// by-value array parameter called with `h` is) that later lines write
/// recorded values into, swap with a recorded array, or hand to a helper
/// that writes a sub-slice of it: was refused as a write of a recorded
/// value into a constant array.
#[tape]
fn copied_array(#[tracked] x: f64) -> f64 {
    let h = [0.0; 3];
    let mut v = h;
    v[1] = x.tanh();
    let mut u = h.clone();
    let mut g = [0.5; 3];
    g[1] = x * x;
    std::mem::swap(&mut u, &mut g);
    v[0] + v[1] + u[1] * v[1] + g[1]
}

#[tape]
mod copied {
    fn write(x: f32, z: &mut [f32]) {
        for i in 0..z.len() {
            z[i] = x.tanh();
        }
    }
    fn outer(x: f32, mut v: [f32; 3]) -> f32 {
        write(x, &mut v[1..2]);
        v[0] + v[1] * x
    }
    pub fn f(#[tracked] x: f32) -> f32 {
        let h = [0.25; 3];
        outer(x, h)
    }
}

/// A window's loop that a `break` may leave, where a block's own `let mut
/// x` (an inlined helper's parameter) is changed and a later `let x`
/// shadows the tracked `x`: the block's assignment was taken for one of the
/// tracked `x` (refused as a value carried in a way Mica cannot follow).
#[tape]
fn shadowed_in_a_window(x_in: f64) -> (f64, f64) {
    #[tracked]
    let x: f64 = x_in;
    tape! {
        let mut t = 0.5;
        let s = t * x;
        for _ in 0..2 {
            if s > -0.21 {
                break;
            }
            {
                let mut x: f64 = 0.5;
                x /= 2.0;
                t += x.tanh();
            }
            let x = x * 0.5 + 0.5;
            t += x.tanh() * 0.1;
        }
        let out = t;
    }
    backward!(out);
    (out, gradient!(x))
}

/// An arm's own `let` of a name bound before the branch (an inlined
/// helper's `mut x` parameter, in a `match` arm): the merge after the branch
/// read the arm's binding for the outer one, and the outer `x` lost its
/// slope in that arm, silently (found by the generator's block helpers,
/// seed 942739588, program 196).
#[tape]
fn arm_shadow(#[tracked] x: f64, k: usize) -> f64 {
    let t = match k {
        0 => 1.0,
        _ => {
            let mut x = 0.5;
            x -= 0.1;
            x
        }
    };
    t + x * x
}

/// The outer `x` changed in the arm, then shadowed there.
#[tape]
fn arm_assign_then_shadow(#[tracked] mut x: f32, k: usize) -> f32 {
    let t = if k == 0 {
        x *= 2.0;
        let x = 0.5;
        x
    } else {
        1.0
    };
    t + x * x
}

/// The same in a window.
#[tape]
fn arm_shadow_window(x_in: f64, k: usize) -> (f64, f64) {
    #[tracked]
    let x: f64 = x_in;
    tape! {
        let t = match k {
            0 => 1.0,
            _ => {
                let mut x = 0.5;
                x -= 0.1;
                x
            }
        };
        let out = t + x * x;
    }
    backward!(out);
    (out, gradient!(x))
}

#[test]
fn found_by_the_block_helpers() {
    for x in [-1.26, 0.4] {
        // the arm that loops: Σₖ tanh(x + 0.1k)′ + 1; the other arm: 1
        let by_hand: f64 = (1..=3)
            .map(|k| 1.0 - (x + 0.1 * k as f64).tanh().powi(2))
            .sum::<f64>()
            + 1.0;
        let (v, g) = literal_block_loop_grad(x, 0.5);
        assert_eq!(v, literal_block_loop(x, 0.5));
        assert!((g - by_hand).abs() < 1e-12, "{g} vs {by_hand}");
        assert_eq!(literal_block_loop_grad(x, 0.1).1, 1.0);
        // (x + 0.3)² in the arm that loops, x² in the other
        let xf = x as f32;
        let (v, g) = literal_block_shift_grad(xf, 0.5);
        assert_eq!(v, literal_block_shift(xf, 0.5));
        assert!((g - 2.0 * (xf + 0.3)).abs() < 1e-5, "{g}");
        assert_eq!(literal_block_shift_grad(xf, 0.1).1, 2.0 * xf);
        for cp in [0.1, 0.5] {
            assert_eq!(literal_block_shadow_grad(x, cp).1, 1.0);
        }
    }
    for x in [-0.8, 0.3, 1.4] {
        // tanh x + x² tanh x + 0: the swap gives u the recorded row, g h's
        let (value, g) = copied_array_grad(x);
        assert_eq!(value, copied_array(x));
        let sech2 = 1.0 - x.tanh().powi(2);
        let by_hand = sech2 + 2.0 * x * x.tanh() + x * x * sech2;
        assert!((g - by_hand).abs() < 1e-12, "{g} vs {by_hand}");
        // 0.25 + x tanh x
        let xf = x as f32;
        let (value, g) = copied::f_grad(xf);
        assert_eq!(value, copied::f(xf));
        let by_hand = xf.tanh() + xf * (1.0 - xf.tanh().powi(2));
        assert!((g - by_hand).abs() < 1e-5, "{g} vs {by_hand}");
    }
    for x in [-3.0, -1.0, 0.5, 2.0] {
        // two trips of 0.1 tanh(0.5x + 0.5) below the break, none above
        let (value, g) = shadowed_in_a_window(x);
        let by_hand = if 0.5 * x > -0.21 {
            0.0
        } else {
            2.0 * 0.1 * 0.5 * (1.0 - (0.5 * x + 0.5).tanh().powi(2))
        };
        assert!((g - by_hand).abs() < 1e-12, "{g} vs {by_hand}");
        mica::check::check_gradient(|p: &[f64]| shadowed_in_a_window(p[0]).0, &[x], &[g]).unwrap();
        let by_hand = if 0.5 * x > -0.21 {
            0.5
        } else {
            0.5 + 2.0 * (0.25_f64.tanh() + 0.1 * (0.5 * x + 0.5).tanh())
        };
        assert!((value - by_hand).abs() < 1e-12, "{value} vs {by_hand}");
    }
    for x in [0.3, -1.2] {
        for k in 0..3 {
            // d/dx (t + x²) = 2x in every arm
            let (value, g) = arm_shadow_grad(x, k);
            assert_eq!(value, arm_shadow(x, k));
            assert_eq!(g, 2.0 * x);
            let (value, g) = arm_shadow_window(x, k);
            assert_eq!(value, arm_shadow(x, k));
            assert_eq!(g, 2.0 * x);
            // (2x)² in the arm that doubles x, x² in the other
            let xf = x as f32;
            let (value, g) = arm_assign_then_shadow_grad(xf, k);
            assert_eq!(value, arm_assign_then_shadow(xf, k));
            let by_hand = if k == 0 { 8.0 * xf } else { 2.0 * xf };
            assert!((g - by_hand).abs() < 1e-5, "{g} vs {by_hand}");
        }
    }
    for v in [[0.3, -0.7, 0.45], [0.3, 0.7, 0.45]] {
        let (value, g) = len_loop_in_a_branch_grad(&v);
        assert_eq!(value, len_loop_in_a_branch(&v));
        mica::check::check_gradient(|p: &[f64]| len_loop_in_a_branch(p), &v, &g).unwrap();
    }
}

#[test]
fn found_by_the_long_run() {
    for (w, x) in [([0.3, -0.7, 0.2], 0.4), ([0.3, -0.7, 0.2], -0.5)] {
        for k in 0..3 {
            let (v, (gw, gx)) = branch_array_grad(&w, x, k);
            assert_eq!(v, branch_array(&w, x, k));
            let mut all = gw.to_vec();
            all.push(gx);
            let f = |p: &[f64]| branch_array(&[p[0], p[1], p[2]], p[3], k);
            mica::check::check_gradient(f, &[w[0], w[1], w[2], x], &all).unwrap();
        }
    }
}

#[test]
fn found_by_inlining_helpers() {
    // the first positive element v gives 0.5 v w₀; none gives w₀²
    for (w, by_hand) in [
        (vec![-0.3, 0.7, 0.2], vec![0.35, -0.15, 0.0]),
        (vec![0.4, -0.7, 0.2], vec![0.4, 0.0, 0.0]),
        (vec![-0.3, -0.7, -0.2], vec![-0.6, 0.0, 0.0]),
    ] {
        let (v, g) = left_from_inside_grad(&w);
        assert_eq!(v, left_from_inside(&w));
        assert_eq!(g, by_hand);
    }
    for q in [[0.3, -0.7], [1.2, 0.4]] {
        let (v, g) = block_arrays_grad(&q);
        assert_eq!(v, block_arrays(&q));
        mica::check::check_gradient(|p: &[f64]| block_arrays(&[p[0], p[1]]), &q, &g).unwrap();
        // t ends as T₀·B(q₀)·B(q₁), B(x) = diag(x, x²): its (0,0) is
        // t₀₀ q₀ q₁, its (1,1) t₁₁ q₀² q₁², its (0,1) t₀₁ q₀² q₁²
        let (a, b) = (q[0], q[1]);
        let by_hand = [
            b + 0.5 * 4.0 * a.powi(3) * b.powi(4),
            a + 0.5 * 4.0 * a.powi(4) * b.powi(3),
        ];
        for (x, y) in g.iter().zip(&by_hand) {
            assert!((x - y).abs() < 1e-12, "{g:?} vs {by_hand:?}");
        }
    }
}

#[test]
fn found_by_random_programs() {
    let f = |p: &[f64]| a(p[0]);
    mica::check::check_gradient(f, &[0.3], &[a_grad(0.3).1]).unwrap();
    let (v, g) = b_grad(&[0.3, -0.2, 0.9]);
    assert_eq!(v, b(&[0.3, -0.2, 0.9]));
    mica::check::check_gradient(|p: &[f64]| b(&[p[0], p[1], p[2]]), &[0.3, -0.2, 0.9], &g).unwrap();
    for k in 0..3 {
        let (v, g) = c_grad(0.7, k);
        assert_eq!(v, c(0.7, k));
        mica::check::check_gradient(|p: &[f64]| c(p[0], k), &[0.7], &[g]).unwrap();
    }
    assert_eq!(d_grad(1.3), (d(1.3), 1.0));
    assert_eq!(e_grad(&[0.3, 1.6], 2.0), (e(&[0.3, 1.6], 2.0), [1.0, 0.0]));
    for k in 0..2 {
        for x in [0.3, 0.7] {
            let (v, dx) = two_way_grad(x, k);
            assert_eq!(v, two_way(x, k));
            mica::check::check_gradient(|p: &[f64]| two_way(p[0], k), &[x], &[dx]).unwrap();
        }
    }
    let o = P { s: 0.25 };
    for x in [-0.4, 0.6, 2.5] {
        let (v, dx) = h_grad(x, &o);
        assert_eq!(v, h(x, &o));
        mica::check::check_gradient(|p: &[f64]| h(p[0], &o), &[x], &[dx]).unwrap();
    }
    let (v, dx) = i_grad(0.4);
    assert_eq!(v, i(0.4));
    mica::check::check_gradient(|p: &[f64]| i(p[0]), &[0.4], &[dx]).unwrap();
    for (x, y) in [(0.3, 0.7), (-1.2, 0.4)] {
        let (v, (gx, gy)) = long_sum_grad(x, y);
        assert_eq!(v, long_sum(x, y));
        let f = |p: &[f64]| long_sum(p[0], p[1]);
        mica::check::check_gradient(f, &[x, y], &[gx, gy]).unwrap();
    }
    // `detach` makes `b[0]` a constant, so the slopes are by algebra:
    // ∂/∂w0 = a[0] (piecewise constant), ∂/∂w1 = b[0]
    for w in [[1.08, -0.82], [0.1, 0.5]] {
        let (v, g) = j_grad(&w, 0.75);
        assert_eq!(v, j(&w, 0.75));
        let a0 = (if w[0] > 0.39 { -0.85_f64 } else { -0.95 }).sin() * 0.5 - 0.5;
        let b0 = 0.75_f64.sin() * 0.5 + w[0].tanh();
        assert!(
            (g[0] - a0).abs() < 1e-15 && (g[1] - b0).abs() < 1e-15,
            "{g:?}"
        );
    }
    // `v[0]` is a constant: the only slope is to `m[0][1]`, which is `v[0]`
    let m = [[0.3, -1.1], [0.7, 0.2], [1.4, -0.6]];
    let (v, g) = l_grad(&m, &o);
    assert_eq!(v, l(&m, &o));
    let v0 = o.m(-0.4, 1.4).tanh();
    assert_eq!(g, [[0.0, v0], [0.0, 0.0], [0.0, 0.0]]);
    for w in [[0.3, -1.2, 2.0], [1.5, 0.25, -0.5]] {
        let (v, g) = k_grad(&w);
        assert_eq!(v, k(&w));
        mica::check::check_gradient(|p: &[f64]| k(p), &w, &g).unwrap();
    }
}

/// A `#[tape]` function of an array, called with it in a branch arm.
#[tape]
pub fn arm_callee(#[tracked] w: &[f64; 3], c: f64) -> f64 {
    (w[0] * c).sin() + w[2] * w[1]
}

/// A `#[tape]` function of an array and a constant table.
#[tape]
pub fn arm_table(#[tracked] w: &[f64; 3], table: &[f64; 2]) -> f64 {
    w[1] * table[0] + (w[2] * table[1]).cos()
}

/// Calls in an arm and after an early return, with a tracked parameter, a
/// local array and a by-value parameter borrowed (found by the generator
/// once it passed struct fields to another function).
#[tape]
pub fn calls_in_arms(#[tracked] w: &[f64; 3], #[tracked] v: [f64; 3], c: f64) -> f64 {
    let h = [w[0] * v[1], w[1].tanh(), c];
    let table = [c, 2.0 * c];
    let mut total = 0.0;
    if c > 0.0 {
        total += arm_callee(w, c) + arm_callee(&h, 0.5) + arm_table(&v, &table);
    } else {
        total += arm_callee(&v, c);
    }
    if w[0] > 1.0 {
        return total;
    }
    total + arm_callee(w, 2.0 * c) * arm_callee(&v, 0.3)
}

#[test]
fn found_by_passing_struct_fields() {
    for (w, v, c) in [
        ([0.3, -0.7, 0.2], [0.5, 0.1, -0.4], 0.4),
        ([0.3, -0.7, 0.2], [0.5, 0.1, -0.4], -0.6),
        ([1.3, 0.2, 0.9], [-0.5, 0.8, 0.4], 0.7),
    ] {
        let (value, (gw, gv)) = calls_in_arms_grad(&w, v, c);
        assert_eq!(value, calls_in_arms(&w, v, c));
        let mut all = gw.to_vec();
        all.extend(gv);
        let f = |p: &[f64]| calls_in_arms(&[p[0], p[1], p[2]], [p[3], p[4], p[5]], c);
        let at = [w[0], w[1], w[2], v[0], v[1], v[2]];
        mica::check::check_gradient(f, &at, &all).unwrap();
    }
}

// Found by seed 904567356, program 251: a chain with `filter` (whose loop
// skips by `continue`) in the test of an `if` that leaves a `loop` by
// `break`, and in a `match`'s scrutinee. The loop's exits were rewritten
// into flags, but the chain's own loop inside the test was not, and its
// `continue` was refused as Mica's own.
#[tape]
pub fn filtered_test(#[tracked] x: &[f64], n: usize) -> f64 {
    let mut i = 0;
    let mut s = 0.0;
    loop {
        if x.iter()
            .filter(|v| **v > 0.0)
            .map(|v| v * 2.0)
            .fold(s, |a, b| a * 0.5 + b)
            .is_sign_negative()
        {
            break;
        }
        s += x[0] * x[1];
        i += 1;
        match x.iter().filter(|v| **v < 0.0).count() {
            0 => s += x[2],
            _ => s -= x[2],
        }
        if i >= n {
            break;
        }
    }
    s
}

#[test]
fn found_by_a_filter_in_a_test() {
    for x in [[0.3, -0.7, 0.2], [0.5, 0.4, 1.1], [-0.3, -0.2, 0.6]] {
        for n in [1, 3] {
            let (v, g) = filtered_test_grad(&x, n);
            assert_eq!(v, filtered_test(&x, n));
            mica::check::check_gradient(|p: &[f64]| filtered_test(p, n), &x, &g).unwrap();
        }
    }
    // by hand, every value positive and two steps: s = 2 (x₀ x₁ + x₂)
    let x = [0.5, 0.4, 1.1];
    let (_, g) = filtered_test_grad(&x, 2);
    let by_hand = [2.0 * x[1], 2.0 * x[0], 2.0];
    for k in 0..3 {
        assert!((g[k] - by_hand[k]).abs() < 1e-12, "{g:?} vs {by_hand:?}");
    }
}

// Found by seed 424242, program 43: a constant array handed to a helper by
// `&mut` may be written with recorded values (the helper is written in
// later), so a copy of its part was written out element by element; that
// copy, replaced in a loop by a copy of a knob's part, was refused as an
// array "Mica does not know".
#[tape]
pub mod part_of_a_lent_array {
    pub fn lend(a: &[f64; 3], _z: &mut [f64]) -> f64 {
        a[0] * 0.5
    }

    pub fn lent(w_in: &[f64], n: usize) -> (f64, Vec<f64>) {
        #[tracked]
        let w: Vec<f64> = w_in.to_vec();
        tape! {
            let mut h = [0.25_f64; 3];
            let t = lend(&[w[0], 2.0, w[1]], &mut h);
            let mut s = 0.5_f64;
            let mut v = h[0..2].to_vec();
            for _ in 0..n {
                s += v[1] * v[0];
                v = w[1..3].to_vec();
            }
            let out = t + s;
        }
        backward!(out);
        (out, gradient!(w).to_vec())
    }
}

fn part_of_a_lent_array_value(w: &[f64], n: usize) -> f64 {
    let h = [0.25; 3];
    let t = w[0] * 0.5;
    let mut s = 0.5;
    let mut v = h[0..2].to_vec();
    for _ in 0..n {
        s += v[1] * v[0];
        v = w[1..3].to_vec();
    }
    t + s
}

#[test]
fn found_by_a_part_of_a_lent_array() {
    use part_of_a_lent_array::lent;
    for w in [[0.3, -0.7, 1.1], [0.5, 0.4, -1.2], [-0.3, 0.9, 0.6]] {
        for n in [0, 1, 3] {
            let (v, g) = lent(&w, n);
            assert!((v - part_of_a_lent_array_value(&w, n)).abs() < 1e-12);
            mica::check::check_gradient(|p: &[f64]| part_of_a_lent_array_value(p, n), &w, &g)
                .unwrap();
        }
    }
    // by hand, three steps: out = w₀ / 2 + ½ + h₁ h₀ + 2 w₁ w₂, h₀ = h₁ = ¼
    let w = [0.5, 0.4, -1.2];
    let (_, g) = lent(&w, 3);
    let by_hand = [0.5, 2.0 * w[2], 2.0 * w[1]];
    for k in 0..3 {
        assert!((g[k] - by_hand[k]).abs() < 1e-12, "{g:?} vs {by_hand:?}");
    }
}

// Found by seed 8080, program 233: an element read inside a block whose
// value is a constant (a chain's sum of constants) was taken again by a
// later element of the same array literal. The block stays inside the
// literal, but the later element's lines go before the statement, so they
// read the shared value before the block had made it: rustc refused the
// generated code (a binding used before it is set).
#[tape]
pub fn read_again_after_a_constant_block(#[tracked] v: &[f64], #[tracked] x: f64, c: f64) -> f64 {
    let h = [
        [v[1], x]
            .iter()
            .take(1)
            .filter(|a| **a > 0.41)
            .map(|_| -0.31)
            .sum::<f64>(),
        v[2] * v[1],
        c,
    ];
    h[0] + h[1] * h[2]
}

#[test]
fn found_by_a_read_in_a_constant_block() {
    for (v, x, c) in [
        ([0.3, 0.7, -1.1], 0.2, 1.5),
        ([0.3, 0.1, 0.4], -0.6, -0.5),
        ([-1.0, 2.0, 0.5], 0.9, 0.25),
    ] {
        let (value, (gv, gx)) = read_again_after_a_constant_block_grad(&v, x, c);
        assert_eq!(value, read_again_after_a_constant_block(&v, x, c));
        // by hand: h₀ is a constant, h₁ h₂ = v₂ v₁ c
        let by_hand = [0.0, v[2] * c, v[1] * c];
        for k in 0..3 {
            assert!((gv[k] - by_hand[k]).abs() < 1e-12, "{gv:?} vs {by_hand:?}");
        }
        assert_eq!(gx, 0.0);
        let mut p = v.to_vec();
        p.push(x);
        let g: Vec<f64> = gv.iter().copied().chain([gx]).collect();
        mica::check::check_gradient(
            |p: &[f64]| read_again_after_a_constant_block(&p[..3], p[3], c),
            &p,
            &g,
        )
        .unwrap();
    }
}

/// A helper's slice that is a part of a view (`&c[2..4]` of a window `c`):
/// its length, `(lo + 4) - (lo + 2)`, was written without the parentheses
/// around the start, so the helper's loop ran over `lo + 4 - lo + 2`
/// elements (found by the random programs, where it read past the end).
#[tape]
pub mod part_of_a_view {
    pub fn walk(x: f64, s: &[f64]) -> f64 {
        let mut t = x;
        for i in 0..s.len() {
            t = t * 0.5 + (s[i] * t).sin();
        }
        t
    }

    pub fn windowed(#[tracked] w: &[f64], #[tracked] x: f64) -> f64 {
        let mut total = 0.0;
        for c in w.windows(4) {
            total += walk(x, &c[2..4]) + walk(0.3, &c[1..]);
        }
        total
    }
}

#[tape]
pub mod part_of_a_view32 {
    pub fn walk(x: f32, s: &[f32]) -> f32 {
        let mut t = x;
        for i in 0..s.len() {
            t = t * 0.5 + (s[i] * t).sin();
        }
        t
    }

    pub fn windowed(#[tracked] w: &[f32], #[tracked] x: f32) -> f32 {
        let mut total = 0.0;
        for c in w.windows(4) {
            total += walk(x, &c[2..4]) + walk(0.3, &c[1..]);
        }
        total
    }
}

#[test]
fn found_by_a_helper_given_part_of_a_view() {
    // plain Rust, as written: the windows' parts are 2 and 3 elements long
    fn walk(x: f64, s: &[f64]) -> f64 {
        s.iter().fold(x, |t, v| t * 0.5 + (v * t).sin())
    }
    let by_hand = |w: &[f64], x: f64| -> f64 {
        w.windows(4)
            .map(|c| walk(x, &c[2..4]) + walk(0.3, &c[1..]))
            .sum()
    };
    for (w, x) in [
        (vec![0.4, -0.3, 0.9, 0.2, -0.7, 0.5, 0.1], 0.8),
        (vec![-0.2, 0.6, 0.3, -0.8, 0.4], -0.5),
    ] {
        let (v, (gw, gx)) = part_of_a_view::windowed_grad(&w, x);
        assert!(
            (v - by_hand(&w, x)).abs() < 1e-12,
            "{v} vs {}",
            by_hand(&w, x)
        );
        let n = w.len();
        let mut at = w.clone();
        at.push(x);
        let mut g = gw.clone();
        g.push(gx);
        let f = |p: &[f64]| part_of_a_view::windowed(&p[..n], p[n]);
        mica::check::check_gradient(f, &at, &g).unwrap();
        // f32: the same program, checked against its own differences
        let w32: Vec<f32> = w.iter().map(|&a| a as f32).collect();
        let (v32, (gw32, gx32)) = part_of_a_view32::windowed_grad(&w32, x as f32);
        assert!((v32 as f64 - v).abs() < 1e-4, "{v32} vs {v}");
        let mut at32 = w32.clone();
        at32.push(x as f32);
        let mut g32 = gw32.clone();
        g32.push(gx32);
        let f32_ = |p: &[f32]| part_of_a_view32::windowed(&p[..n], p[n]);
        mica::check::check_gradient_with(f32_, &at32, &g32, 2e-2).unwrap();
    }
}

/// A helper called in its own argument (`pick(pick(x, &c), &w)`): the
/// inner body's names are renamed where the outer one's use them, and the
/// arms' `None` was renamed with them, to a name that matches anything, so
/// the `Some` arm never ran: the value was the `None` arm's, the slope
/// zero, or the `get` refused (found by the random programs).
macro_rules! nested_pick {
    ($m:ident, $t:ty) => {
        #[tape]
        pub mod $m {
            pub const FAR: usize = 7;

            pub fn pick(x: $t, a: &[$t; 3], k: usize) -> $t {
                let mut t = match a.get(k).copied() {
                    None => 100.0,
                    Some(r) => r * x,
                };
                match k {
                    FAR => t += 50.0,
                    _ => t += 0.25 * x,
                }
                match a.get(k + 2).copied() {
                    Some(r) => t += r.tanh() * 0.1,
                    None => t += 0.0,
                }
                t
            }

            pub fn f(#[tracked] x: $t, #[tracked] w: &[$t; 3]) -> $t {
                let c = [1.0, 2.0, 3.0];
                pick(pick(x, &c, 1), w, 0) + pick(pick(w[1], w, 2), &c, 0)
            }
        }
    };
}
nested_pick!(nested_pick64, f64);
nested_pick!(nested_pick32, f32);

#[test]
fn found_by_a_helper_called_in_its_own_argument() {
    // plain Rust, as written
    fn pick(x: f64, a: &[f64; 3], k: usize) -> f64 {
        let mut t = match a.get(k).copied() {
            None => 100.0,
            Some(r) => r * x,
        };
        t += if k == 7 { 50.0 } else { 0.25 * x };
        if let Some(r) = a.get(k + 2).copied() {
            t += r.tanh() * 0.1;
        }
        t
    }
    let by_hand = |x: f64, w: &[f64; 3]| {
        let c = [1.0, 2.0, 3.0];
        pick(pick(x, &c, 1), w, 0) + pick(pick(w[1], w, 2), &c, 0)
    };
    for (x, w) in [(0.5, [0.3, -0.7, 1.1]), (-1.2, [0.9, 0.4, -0.2])] {
        let (v, (gx, gw)) = nested_pick64::f_grad(x, &w);
        assert!(
            (v - by_hand(x, &w)).abs() < 1e-12,
            "{v} vs {}",
            by_hand(x, &w)
        );
        let at = [x, w[0], w[1], w[2]];
        let g = [gx, gw[0], gw[1], gw[2]];
        let f = |p: &[f64]| nested_pick64::f(p[0], &[p[1], p[2], p[3]]);
        mica::check::check_gradient(f, &at, &g).unwrap();
        let w32 = w.map(|a| a as f32);
        let (v32, (gx32, gw32)) = nested_pick32::f_grad(x as f32, &w32);
        assert!((v32 as f64 - v).abs() < 1e-4, "{v32} vs {v}");
        let at32 = at.map(|a| a as f32);
        let g32 = [gx32, gw32[0], gw32[1], gw32[2]];
        let f32_ = |p: &[f32]| nested_pick32::f(p[0], &[p[1], p[2], p[3]]);
        mica::check::check_gradient_with(f32_, &at32, &g32, 2e-2).unwrap();
    }
}

/// Found by trying a fold into a tuple as a user writes it: a tuple a
/// `#[tape]` function returns, read by field or given by a branch's arm,
/// had the right value and no slope (its fields were taken for
/// constants). Those forms are refused now (trybuild
/// `tuple_followed_as_one_value`); the forms the message asks for give the
/// slopes.
macro_rules! tuple_reads {
    ($m:ident, $t:ty) => {
        pub mod $m {
            use mica::tape;

            #[tape]
            pub fn pair(#[tracked] x: $t) -> ($t, $t) {
                (x * x, x.sin())
            }

            /// `x² + sin x` where `x > 0`, `2x` elsewhere, through the
            /// tuple read where it is made, in an arm and on its own.
            #[tape]
            pub fn f(#[tracked] x: $t) -> $t {
                let (a, b) = if x > 0.0 {
                    let (p, q) = pair(x);
                    (p, q)
                } else {
                    (x, x)
                };
                let (p, q) = pair(x);
                a + b + p * q
            }
        }
    };
}
tuple_reads!(tuple_reads64, f64);
tuple_reads!(tuple_reads32, f32);

#[test]
fn found_by_a_tuple_read_by_field() {
    for x in [0.5, -0.7, 1.3] {
        let (a, b) = if x > 0.0 {
            (x * x, f64::sin(x))
        } else {
            (x, x)
        };
        let (p, q) = (x * x, f64::sin(x));
        let value = a + b + p * q;
        let da_db = if x > 0.0 { 2.0 * x + x.cos() } else { 2.0 };
        let by_hand = da_db + 2.0 * x * q + p * x.cos();
        let (v, g) = tuple_reads64::f_grad(x);
        assert!((v - value).abs() < 1e-12, "{v} vs {value}");
        assert!((g - by_hand).abs() < 1e-12, "{g} vs {by_hand}");
        mica::check::check_gradient(|p: &[f64]| tuple_reads64::f(p[0]), &[x], &[g]).unwrap();
        let (v32, g32) = tuple_reads32::f_grad(x as f32);
        assert!((v32 as f64 - value).abs() < 1e-5, "{v32} vs {value}");
        assert!((g32 as f64 - by_hand).abs() < 1e-4, "{g32} vs {by_hand}");
    }
}

/// Seed 424243's program 276: chunks of a `split_at` half (or a view),
/// their closure reading the array split through a float method
/// (`h[2].tanh()`), once refused as a `.sum()` Mica could not write.
#[tape]
fn half_chunks(#[tracked] w: &[f64; 3]) -> f64 {
    let h = [w[0].tanh(), w[1] * 2.0, w[2].sin()];
    let (_, v) = h.split_at(1);
    v.chunks_exact(2)
        .map(|c| (c[0].tanh() * 0.5) + (h[2].tanh() * 0.8))
        .sum::<f64>()
        .tanh()
}

#[tape]
fn view_chunks(#[tracked] w: &[f64; 3]) -> f64 {
    let h = [w[0].tanh(), w[1] * 2.0, w[2].sin()];
    let v = &h[1..];
    v.chunks_exact(2).map(|c| c[1] * h[0].exp()).sum::<f64>()
}

#[test]
fn found_by_the_chunks_of_a_half() {
    for w in [[0.3, 0.5, -0.7], [-0.9, 0.2, 1.1]] {
        let (v, g) = half_chunks_grad(&w);
        assert_eq!(v, half_chunks(&w));
        // by hand: tanh(0.5 tanh(2 w₁) + 0.8 tanh(sin w₂))
        let (a, b) = ((2.0 * w[1]).tanh(), w[2].sin().tanh());
        let s = 1.0 - (0.5 * a + 0.8 * b).tanh().powi(2);
        let by_hand = [
            0.0,
            s * 0.5 * (1.0 - a * a) * 2.0,
            s * 0.8 * (1.0 - b * b) * w[2].cos(),
        ];
        for (x, y) in g.iter().zip(by_hand) {
            assert!((x - y).abs() < 1e-12, "{g:?} vs {by_hand:?}");
        }
        let f = |p: &[f64]| half_chunks(&[p[0], p[1], p[2]]);
        mica::check::check_gradient(f, &w, &g).unwrap();
        let (v, g) = view_chunks_grad(&w);
        assert_eq!(v, view_chunks(&w));
        let f = |p: &[f64]| view_chunks(&[p[0], p[1], p[2]]);
        mica::check::check_gradient(f, &w, &g).unwrap();
    }
}
