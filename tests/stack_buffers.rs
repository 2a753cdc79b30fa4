//! Arrays made with `vec![x; N]` of a constant `N` (a literal, or a `const`
//! item named in capitals) get their adjoint buffer on the stack, up to
//! 1,024 elements, and on the heap past that. These programs cover a
//! literal length, a `const` length, a length past the inline limit, a
//! `let` named in capitals and a `const` generic parameter (neither is a
//! `const` item: their buffers are on the heap), a buffer inside a loop
//! and one that a recorded fill writes whole; each is checked against
//! central finite differences in `f64` and `f32`, and a counting allocator
//! shows which buffers reach the heap.
#![deny(warnings)]

mod counting;
mod fd;

use counting::allocations;

const WIDTH: usize = 6;
const WIDE: usize = 1_500;

macro_rules! programs {
    ($m:ident, $t:ty) => {
        pub mod $m {
            use super::{WIDE, WIDTH};
            use mica::tape;

            /// Two layers through arrays of a `const` and a literal length.
            #[tape]
            pub fn layers(#[tracked] w: &[$t], x: &[$t]) -> $t {
                let mut h = vec![0.0; WIDTH];
                for j in 0..WIDTH {
                    let mut s = 0.0;
                    for i in 0..x.len() {
                        s += w[j * x.len() + i] * x[i];
                    }
                    h[j] = s.tanh();
                }
                let mut o = vec![0.0; 3];
                for k in 0..3 {
                    o[k] = h[k] * h[k + 3] + h[k].sin();
                }
                o[0] * o[1] - o[2] * o[2]
            }

            /// An array longer than the inline limit: its buffer spills to
            /// the heap.
            #[tape]
            pub fn wide(#[tracked] w: &[$t]) -> $t {
                let mut h = vec![0.0; WIDE];
                for j in 0..WIDE {
                    h[j] = w[j % w.len()] * (j as $t * 0.001).cos();
                }
                let mut s = 0.0;
                for j in 0..WIDE {
                    s += h[j] * h[WIDE - 1 - j];
                }
                s
            }

            /// A length named in capitals that is a `let`, not a `const`:
            /// the array, and the loop's tape, stay on the heap.
            #[tape]
            #[allow(non_snake_case)]
            pub fn capitals(#[tracked] w: &[$t]) -> $t {
                let N = w.len();
                let mut h = vec![0.0; N];
                for j in 0..N {
                    h[j] = w[j].sin() * w[N - 1 - j];
                }
                let mut s = 0.0;
                for j in 0..N {
                    s += h[j] * h[j];
                }
                s.sqrt()
            }

            /// A `const` generic length, named in capitals too: an array
            /// length computed from it may not read it, so the buffer and
            /// the loop's tape stay on the heap.
            #[tape]
            pub fn generic<const N: usize>(#[tracked] w: &[$t; N]) -> $t {
                let mut h = vec![0.0; N];
                for j in 0..N {
                    h[j] = (w[j] * w[j]).sin();
                }
                let mut s = 1.0;
                for j in 0..N {
                    s = s * h[j] + w[j].exp();
                }
                s
            }

            /// The same in a window: the slope of `generic` at `x0`.
            #[tape]
            pub fn window_generic<const N: usize>(x0: [$t; N]) -> [$t; N] {
                #[tracked]
                let x: [$t; N] = x0;
                tape! {
                    let mut h = vec![0.0; N];
                    for j in 0..N {
                        h[j] = (x[j] * x[j]).sin();
                    }
                    let mut s = 1.0;
                    for j in 0..N {
                        s = s * h[j] + x[j].exp();
                    }
                }
                backward!(s);
                gradient!(x)
            }

            /// A buffer made anew in each iteration of a loop, filled whole
            /// by a recorded value.
            #[tape]
            pub fn per_row(#[tracked] w: &[$t], rows: usize) -> $t {
                let mut total = 0.0;
                for r in 0..rows {
                    let base = w[r % w.len()] * 0.5;
                    let mut h = vec![base; WIDTH];
                    for j in 0..WIDTH {
                        h[j] = h[j] * w[j % w.len()] + (r as $t) * 0.1;
                    }
                    for j in 0..WIDTH {
                        total += h[j].exp();
                    }
                }
                total
            }
        }
    };
}

programs!(p64, f64);
programs!(p32, f32);

macro_rules! check_all {
    ($m:ident, $t:ty, $tol:expr) => {{
        use $m::*;
        let check = |what: &str, f: &dyn Fn(&[$t]) -> $t, at: &[$t], g: &[$t]| {
            fd::agrees(&format!("{}::{what}", stringify!($m)), f, at, g, $tol)
        };
        for shift in [0.0 as $t, 0.3, -0.45] {
            let x: Vec<$t> = (0..4).map(|k| 0.25 * k as $t - 0.3 + shift).collect();
            let w: Vec<$t> = (0..24)
                .map(|k| ((k * 7 % 11) as $t) * 0.08 - 0.35 + shift)
                .collect();
            let (value, g) = layers_grad(&w, &x);
            assert_eq!(value, layers(&w, &x));
            check("layers", &|p| layers(p, &x), &w, &g);
            let (value, g) = wide_grad(&w[..5]);
            assert_eq!(value, wide(&w[..5]));
            check("wide", &|p| wide(p), &w[..5], &g);
            let (value, g) = capitals_grad(&w[..5]);
            assert_eq!(value, capitals(&w[..5]));
            check("capitals", &|p| capitals(p), &w[..5], &g);
            let four: [$t; 4] = [w[0], w[1], w[2], w[3]];
            let (value, g) = generic_grad(&four);
            assert_eq!(value, generic(&four));
            check(
                "generic",
                &|p| generic(&[p[0], p[1], p[2], p[3]]),
                &four,
                &g,
            );
            assert_eq!(window_generic(four), g);
            for rows in [0, 1, 4] {
                let (value, g) = per_row_grad(&w[..7], rows);
                assert_eq!(value, per_row(&w[..7], rows));
                check("per_row", &|p| per_row(p, rows), &w[..7], &g);
            }
        }
    }};
}

#[test]
fn constant_length_buffers_agree_with_finite_differences() {
    check_all!(p64, f64, 1e-6);
    check_all!(p32, f32, 2e-2);
}

/// The gradient allocates what the user's own `vec!`s allocate and nothing
/// more while the arrays fit the inline limit; past it, one buffer more.
#[test]
fn constant_length_buffers_stay_on_the_stack() {
    let x = [0.1, -0.2, 0.3, 0.4];
    let w = vec![0.2; 24];
    let mut d_w = vec![0.0; 24];
    let user = allocations(|| {
        p64::layers(&w, &x);
    });
    assert_eq!(user, 2, "the primal's two vec!s");
    let gradient = allocations(|| {
        p64::layers_backward(&w, &x, 1.0, &mut d_w);
    });
    assert_eq!(gradient, user);
    // a buffer made in each row: the gradient's allocations beyond the
    // rows' own vec!s (its tapes, sized once) do not grow with the rows
    let extra: Vec<usize> = [1, 5, 50]
        .into_iter()
        .map(|rows| {
            let gradient = allocations(|| {
                p64::per_row_backward(&w, rows, 1.0, &mut d_w);
            });
            let user = allocations(|| {
                p64::per_row(&w, rows);
            });
            assert_eq!(user, rows);
            gradient - user
        })
        .collect();
    assert!(extra.iter().all(|&e| e == extra[0]), "{extra:?}");
    let gradient = allocations(|| {
        p64::wide_backward(&w[..5], 1.0, &mut d_w[..5]);
    });
    // the vec!, its buffer, and the first loop's tape, which spills past
    // the same limit
    assert_eq!(gradient, 3);
}
