//! An element of an array the program writes, read in several lines, is
//! one recorded value only while nothing can change it between the reads
//! (`mica-macros/src/lower/repeated.rs`): a cell's state read twice and
//! then written in place, as a recurrent cell writes it; and every way a
//! line between two reads may change the element, each of which must make
//! the second read a value of its own: a compound write, a write in a
//! branch arm, a loop writing the array, a helper writing through a
//! mutable borrow (handed on by `&mut` and by a borrow the caller already
//! holds), the array bound anew, the index changed, a view written, and a
//! write inside the same expression. An element written and read in the
//! next line is the value written (`c[i] = …;` then `c[i].tanh()`), after
//! `*=` too, and where the value moves the index on; after `+=` the
//! element is read again. A write's value is evaluated before its place
//! and, for `op=`, before the element or name it updates (Rust's order).
//!
//! Each program is written twice, as `#[tape]` and as `#[tape(plain)]`
//! (each element read where it is written), and Mica's gradient is checked
//! against central finite differences and against the plain one, at three
//! points, in `f64` and `f32`, with the value against the primal's.
#![deny(warnings)]
// index loops are the form under test
#![allow(clippy::needless_range_loop)]

mod fd;

/// The knobs' count.
const N: usize = 4;

macro_rules! programs {
    ($m:ident, $t:ty, $attr:meta) => {
        #[$attr]
        pub mod $m {
            // an inner attribute stays the module's
            #![allow(clippy::needless_range_loop)]
            use super::N;

            /// Multiplies a row in place.
            pub fn scale(v: &mut [$t], k: $t) {
                for j in 0..v.len() {
                    v[j] *= k;
                }
            }

            /// Reads `h[0]`, hands its borrow on to [`scale`], reads
            /// `h[0]` again.
            pub fn around(h: &mut [$t], k: $t) -> $t {
                let a = h[0] * h[0];
                scale(h, k);
                a + h[0] * k
            }

            /// One step of a cell: the state read twice, then written.
            pub fn cell(hidden: &mut [$t], input: &[$t], w: &[$t]) {
                for i in 0..hidden.len() {
                    let f = (input[i] * w[i]).tanh();
                    let g = hidden[i] * w[i] + input[i];
                    let c = (hidden[i] * 0.5 + f * g).sin();
                    hidden[i] = c * input[i] + f;
                }
            }

            /// A recurrence written in place: `h[i]` read in three lines,
            /// then written, each step.
            pub fn in_place(#[tracked] w: &[$t]) -> $t {
                let mut h = vec![0.0; N];
                for i in 0..N {
                    h[i] = w[i] * 0.5 + 0.1;
                }
                for _step in 0..3 {
                    for i in 0..N {
                        let f = (h[i] * w[i]).tanh();
                        let g = h[i] * h[i] + f;
                        h[i] = g * 0.5 + h[i] * f;
                    }
                }
                let mut s = 0.0;
                for i in 0..N {
                    s += h[i];
                }
                s
            }

            /// The cell through a helper, its input a copy of the state.
            pub fn through_helper(#[tracked] w: &[$t]) -> $t {
                let mut hidden = vec![0.0; N];
                for i in 0..N {
                    hidden[i] = w[i] * w[i];
                }
                let mut x = w.to_vec();
                for _step in 0..2 {
                    cell(&mut hidden, &x, w);
                    x = hidden.clone();
                }
                let mut s = 0.0;
                for i in 0..N {
                    s += x[i] * hidden[i];
                }
                s
            }

            /// `h[i]` read, written by `+=`, read again.
            pub fn compound(#[tracked] w: &[$t]) -> $t {
                let mut h = w.to_vec();
                let mut s = 0.0;
                for i in 0..N {
                    let a = h[i] * w[i];
                    h[i] += a;
                    let b = h[i] * h[i];
                    s += a + b;
                }
                s
            }

            /// `h[i]` read, perhaps written in a branch arm, read again.
            pub fn in_arm(#[tracked] w: &[$t]) -> $t {
                let mut h = w.to_vec();
                let mut s = 0.0;
                for i in 0..N {
                    let a = h[i].sin();
                    if w[i] > 0.0 {
                        h[i] = w[i] * 3.0;
                    }
                    s += a * h[i];
                }
                s
            }

            /// `h[0]` read, the array written by a loop, read again.
            pub fn loop_between(#[tracked] w: &[$t]) -> $t {
                let mut h = w.to_vec();
                let a = h[0] * h[1];
                for j in 0..N {
                    h[j] *= w[j];
                }
                a + h[0] * h[1]
            }

            /// `h[1]` read, the array handed to a helper by `&mut`, read
            /// again; then through a helper that hands its own borrow on.
            pub fn helper_between(#[tracked] w: &[$t]) -> $t {
                let mut h = w.to_vec();
                let a = h[1] * h[1];
                scale(&mut h, w[0]);
                let b = a + h[1];
                let c = around(&mut h, w[2]);
                b * h[1] + c
            }

            /// `h[0]` read, `h` bound to a new array, read again.
            pub fn bound_anew(#[tracked] w: &[$t]) -> $t {
                let mut h = vec![0.0; N];
                for i in 0..N {
                    h[i] = w[i] * 2.0;
                }
                let a = h[0] * w[1];
                h = w.to_vec();
                a * h[0]
            }

            /// `h[k]` read, `k` moved on, `h[k]` read again.
            pub fn index_moves(#[tracked] w: &[$t]) -> $t {
                let h = w.to_vec();
                let mut k = 0;
                let mut s = 0.0;
                for _i in 0..N {
                    let a = h[k];
                    k = (k + 1) % N;
                    s += a * h[k];
                }
                s
            }

            /// `h[1]` read, written through a view, read again.
            pub fn view_between(#[tracked] w: &[$t]) -> $t {
                let mut h = w.to_vec();
                let a = h[1].exp();
                let v = &mut h[1..3];
                v[0] = w[3] * w[3];
                a * h[1]
            }

            /// A cell's state written, then read in the next line (the
            /// value written), as a recurrent cell writes it.
            pub fn written_then_read(#[tracked] w: &[$t]) -> $t {
                let mut c = w.to_vec();
                let mut h = vec![0.0; N];
                for _step in 0..2 {
                    for i in 0..N {
                        let f = (w[i] * 0.5).tanh();
                        c[i] = c[i] * f + w[(i + 1) % N];
                        h[i] = f * c[i].tanh() + c[i];
                    }
                }
                let mut s = 0.0;
                for i in 0..N {
                    s += h[i] * c[i];
                }
                s
            }

            /// `h[i] *= …` and `h[i] += …`, each read right after.
            pub fn updated_then_read(#[tracked] w: &[$t]) -> $t {
                let mut h = w.to_vec();
                let mut s = 0.0;
                for i in 0..N {
                    h[i] *= w[(i + 2) % N];
                    s += h[i] * h[i];
                    h[i] += w[i];
                    s += h[i].sin();
                }
                s
            }

            /// `h[k] = …` whose value moves `k` on: the element written,
            /// and read after, is the one `k` names once moved.
            pub fn index_moved_by_write(#[tracked] w: &[$t]) -> $t {
                let mut h = w.to_vec();
                let mut k = 0;
                let mut s = 0.0;
                for _i in 0..N {
                    h[k] = {
                        k = (k + 1) % N;
                        w[k] * 2.0
                    };
                    s += h[k] * w[0];
                }
                s
            }

            /// `s *= { s = …; … }` and `h[0] *= { h[0] = …; … }`: the
            /// value is evaluated first, then the place read, as Rust does.
            pub fn value_first(#[tracked] w: &[$t]) -> $t {
                let mut s = w[0];
                let first = s * s;
                s *= {
                    s = w[1] * 2.0;
                    w[2] + 1.0
                };
                let mut h = w.to_vec();
                h[0] *= {
                    h[0] = w[3] * w[3];
                    w[1] - 0.5
                };
                first + s + h[0] * w[2]
            }

            /// `h[0]` read, written and read again inside one expression.
            pub fn one_expression(#[tracked] w: &[$t]) -> $t {
                let mut h = w.to_vec();
                let s = h[0] * {
                    h[0] = w[1] * 2.0;
                    h[0]
                } + h[0];
                s * w[2]
            }
        }
    };
}

programs!(a64, f64, mica::tape);
programs!(b64, f64, mica::tape(plain));
programs!(a32, f32, mica::tape);
programs!(b32, f32, mica::tape(plain));

macro_rules! check_all {
    ($p:ident, $q:ident, $t:ty, $tol:expr, $rel:expr) => {{
        let (agree, same) = fd::checks::<$t>($tol, $rel);
        let points: [[$t; N]; 3] = [
            [0.3, -0.7, 1.1, 0.4],
            [-1.2, 0.7, 0.1, -0.3],
            [0.5, 0.25, -0.2, 0.9],
        ];
        macro_rules! check {
            ($f:ident, $grad:ident) => {
                for x in points {
                    let (value, g) = $p::$grad(&x);
                    assert_eq!(value, $p::$f(&x), "{}: the value", stringify!($f));
                    same(&g, &$q::$grad(&x).1, stringify!($f));
                    agree(stringify!($f), &|v| $p::$f(v), &x, &g);
                }
            };
        }
        check!(in_place, in_place_grad);
        check!(through_helper, through_helper_grad);
        check!(compound, compound_grad);
        check!(in_arm, in_arm_grad);
        check!(loop_between, loop_between_grad);
        check!(helper_between, helper_between_grad);
        check!(bound_anew, bound_anew_grad);
        check!(index_moves, index_moves_grad);
        check!(view_between, view_between_grad);
        check!(one_expression, one_expression_grad);
        check!(written_then_read, written_then_read_grad);
        check!(updated_then_read, updated_then_read_grad);
        check!(index_moved_by_write, index_moved_by_write_grad);
        check!(value_first, value_first_grad);
    }};
}

#[test]
fn reads_of_written_arrays_agree_with_finite_differences_and_plain_adjoints() {
    check_all!(a64, b64, f64, 1e-6, 1e-12);
    check_all!(a32, b32, f32, 2e-2, 1e-5);
}
