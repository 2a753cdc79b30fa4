//! Operations written inside their consumers (`mica-macros/src/lower/inline.rs`)
//! and elements read once per statement.
//!
//! The function form writes an operation the reverse sweep never reads
//! inside the expression that consumes it, with the parentheses its position
//! needs. Each program below puts such operations in every position (either
//! side of `+ - * /` at equal and lower precedence, under unary `-`, as a
//! method's receiver and argument, on the right of a compound assignment, at
//! the top level and in loop bodies) and is checked three ways, in `f64` and
//! `f32`:
//!
//! - the value `_grad` returns is bit-identical to the plain function's (a
//!   misplaced parenthesis changes it);
//! - the gradient equals the same body recorded in a `tape!` window (which
//!   keeps every temporary) bit for bit;
//! - the gradient agrees with central finite differences.
#![deny(warnings)]
#![allow(clippy::needless_range_loop, double_negations, clippy::precedence)]

#[macro_use]
mod twin;

macro_rules! suite {
    ($m:ident, $r:ident, $tol:expr) => {
        mod $m {
            // `tape`, `R` and the finite-difference `check`
            suite_prelude!($r, $tol);

            const N4: usize = 4;

            fn same(what: &str, a: R, b: R) {
                assert_eq!(a.to_bits(), b.to_bits(), "{what}: {a} vs {b}");
            }

            /// points away from the programs' poles (`/ (b - c)` and friends)
            const POINTS: [[f64; 3]; 4] = [
                [0.7, -0.4, 1.3],
                [-1.1, 0.9, 0.35],
                [0.45, 1.6, -0.8],
                [1.9, -1.2, 0.6],
            ];

            twin! {
                fn places, places_window
                (a: R => R, b: R => R, c: R => R; k: R) -> loss
                {
                    // right of an operator of equal precedence: parentheses kept
                    let r1 = a - (b - c) + a / (b * c) - a * (b * c) / (c / b);
                    // left of one: none needed
                    let r2 = (a - b) - c + (a * b) / c + (a + b) * c;
                    // under `-`, as a receiver, as an argument
                    let r3 = -(a * b) - -(b - c) + -(a.sin()) + (a * b).exp() + (-c).exp();
                    let r4 = (a + b).sin().cos() + a.mul_add(b, c * k) + k.powf(a * b);
                    // a user's binding of an operation, read by the reverse
                    let e = (a * c).exp();
                    let mut s = e * r1 + r2 * r3 / (1.0 + r4 * r4);
                    // the right of compound assignments
                    s -= a - b * c;
                    s /= 2.0 + (a * b) * (a * b);
                    s *= k - c * b;
                    let loss = s + e;
                }
            }

            #[test]
            fn operations_in_every_place() {
                let k = 0.8 as R;
                for p in POINTS {
                    let [a, b, c] = p.map(|v| v as R);
                    let (value, (da, db, dc)) = places_grad(a, b, c, k);
                    same("value", value, places(a, b, c, k));
                    let (wv, (wa, wb, wc)) = places_window(a, b, c, k);
                    same("window value", wv, value);
                    same("d/da", wa, da);
                    same("d/db", wb, db);
                    same("d/dc", wc, dc);
                    check(|p| places(p[0], p[1], p[2], k), &[a, b, c], &[da, db, dc]);
                }
            }

            twin! {
                fn looped, looped_window
                (w: [R; 4] => [R; 4], v: R => R; x: [R; 4]) -> loss
                {
                    let mut s = 0.0;
                    let mut q = [0.0; 4];
                    // named bounds keep these loops (a literal range would be
                    // written out, its reads shared across the lines)
                    for i in 0..N4 {
                        // inlined inside a loop body, and one element read
                        // three times in one statement
                        q[i] = (w[i] * x[i] - v) * (w[i] - v * v) + w[i] / (1.0 + x[i] * x[i]);
                        let t = q[i] * q[i];
                        s = s * 0.5 + t.tanh() - (v - t) * (v - t);
                    }
                    for i in 1..N4 {
                        // a read, then a write of the same element: the next
                        // statement reads the new value
                        q[i] = q[i] * q[i - 1] + q[i];
                        s = s * 0.9 + q[i] * (q[i] - w[i]);
                    }
                    let loss = s;
                }
            }

            #[test]
            fn loop_bodies_and_repeated_reads() {
                let x = [0.3, -0.7, 1.1, 0.5];
                for p in POINTS {
                    let w = [p[0], p[1], p[2], p[0] * p[1]].map(|v| v as R);
                    let v = p[2] as R;
                    let (value, (dw, dv)) = looped_grad(w, v, x.map(|v| v as R));
                    same("value", value, looped(w, v, x.map(|v| v as R)));
                    let (wv, (ww, wvg)) = looped_window(w, v, x.map(|v| v as R));
                    same("window value", wv, value);
                    for j in 0..4 {
                        same("d/dw", ww[j], dw[j]);
                    }
                    same("d/dv", wvg, dv);
                    let mut at = w.to_vec();
                    at.push(v);
                    let mut g = dw.to_vec();
                    g.push(dv);
                    let xr = x.map(|v| v as R);
                    check(|p| looped([p[0], p[1], p[2], p[3]], p[4], xr), &at, &g);
                }
            }
        }
    };
}

suite!(f64s, f64, 1e-6);
suite!(f32s, f32, 2e-2);

/// `mica::sigmoid`, `mica::relu` and `mica::softplus` are recorded as rules:
/// their slopes are bit for bit those their own `_grad` gives, in `f64` and
/// `f32`, and the forward value is read back, not computed again.
mod runtime_functions {
    use mica::tape;

    /// `#[tape] fn $name(#[tracked] x: $t) -> $t { $call(x) }`, the call's
    /// path passed as written (`mica::…` or `::mica::…`)
    macro_rules! one_call {
        ($($name:ident: $t:ty => [$($call:tt)+];)+) => {
            $(
                #[tape]
                fn $name(#[tracked] x: $t) -> $t {
                    $($call)+(x)
                }
            )+
        };
    }

    one_call! {
        s64: f64 => [mica::sigmoid];
        r64: f64 => [mica::relu];
        p64: f64 => [::mica::softplus];
        s32: f32 => [mica::sigmoid];
        r32: f32 => [mica::relu];
        p32: f32 => [::mica::softplus];
    }

    /// Each tape function's `(value, slope)` at `x` against the runtime's
    /// own `_grad`, bit for bit.
    macro_rules! same_as_runtime {
        ($x:expr, $($tape:ident == $runtime:ident),+) => {
            $(
                let (got, want) = ($tape($x), mica::$runtime($x));
                assert_eq!(got.0.to_bits(), want.0.to_bits(), "{} value at {}", stringify!($tape), $x);
                assert_eq!(got.1.to_bits(), want.1.to_bits(), "{} slope at {}", stringify!($tape), $x);
            )+
        };
    }

    #[test]
    fn slopes_are_the_functions_own() {
        for x in [-30.0, -2.5, -0.3, 0.0, 0.4, 1.7, 25.0, f64::NAN] {
            same_as_runtime!(
                x,
                s64_grad == sigmoid_grad,
                r64_grad == relu_grad,
                p64_grad == softplus_grad
            );
            let x = x as f32;
            same_as_runtime!(
                x,
                s32_grad == sigmoid_grad,
                r32_grad == relu_grad,
                p32_grad == softplus_grad
            );
        }
    }
}
