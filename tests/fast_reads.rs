//! Forward-sweep reads through slices (`mica-macros/src/lower/fast.rs`).
//!
//! In a loop over a range, a `#[tape]` function's forward sweep reads
//! `x[j + e]` through a slice taken before the loop when every element of
//! the run is there, and the user's own read otherwise. The programs below
//! read tracked arrays, untracked slices, arrays and `Vec`s and a local
//! `vec!` at every shift form (`j`, `j + e`, `e + j`, `j - e`, literal
//! offsets), over ranges whose ends are known only at run time, and also as
//! places (borrowed, compared, a method's receiver). A loop nested in
//! another that only reads over a range not constant takes its runs only
//! from `mica::__private::LONG_RUN` (4) elements on: `shifts` runs such a
//! loop over 6 elements (through runs) and over 3 (as written). They are
//! checked in `f64` and `f32`:
//!
//! - the value equals the plain function's, and the gradient equals the
//!   same body recorded in a `tape!` window (which reads as written), bit
//!   for bit;
//! - the gradient agrees with central finite differences;
//! - where a read runs past the end, the gradient call panics with the
//!   primal's message; where the run is not all there but the loop reads
//!   only what is, it returns the same numbers.
//!
//! `layer` is a nest over named bounds read through its rows' starts
//! (`w[i * N3 + j]`), which takes one run for the whole nest
//! (`mica-macros/src/lower/nests.rs`).
#![deny(warnings)]
#![allow(clippy::needless_range_loop)]

#[macro_use]
mod twin;

/// In a suite: `$f`'s gradient call at the knobs `$w` and the other
/// arguments `$arg` returns the plain function's value and the window
/// form's value bit for bit, its gradient to the rounding of its sums'
/// order, and a gradient that agrees with finite differences.
macro_rules! agree {
    ($f:ident, $grad:ident, $window:ident, $w:expr; $($arg:expr),*) => {{
        let w = $w;
        let (value, dw) = $grad(w, $($arg),*);
        same("value", &[value], &[$f(w, $($arg),*)]);
        let (wv, (ww,)) = $window(w, $($arg),*);
        same("window value", &[wv], &[value]);
        same_sums("d/dw", &ww, &dw);
        check(|p: &[R]| $f(core::array::from_fn(|k| p[k]), $($arg),*), &w, &dw);
    }};
}

macro_rules! suite {
    ($m:ident, $r:ident, $tol:expr) => {
        mod $m {
            // `tape`, `R` and the finite-difference `check`
            suite_prelude!($r, $tol);

            // `same` (bit for bit), `same_sums` and `POINTS`
            slice_checks!();

            // named bounds: a short loop over a literal range is written
            // out, and these programs are about the reads' runs
            const N2: usize = 2;
            const N3: usize = 3;
            const N4: usize = 4;
            const N5: usize = 5;

            twin! {
                fn shifts, shifts_window
                (w: [R; 6] => [R; 6];
                 x: &[$r], y: [$r; 12], v: Vec<$r>, lo: usize, hi: usize, o: usize) -> loss
                {
                    let h = vec![0.5, -0.25, 1.0, 2.0, 0.75, -1.5];
                    let mut loss = 0.0;
                    for r in 0..N2 {
                        let mut z = 0.5;
                        // run-time ends; `j`, `j + e`, `e + j`, `j - e`
                        for j in lo..hi {
                            z += w[j] * x[j + o] - y[o + j] * w[j - lo] + v[j - lo];
                        }
                        // literal offsets, a row of `y`, a local `vec!`
                        for j in 1..N5 {
                            z += x[j - 1] * w[j + 1] + y[r * 6 + j] * h[j] - w[j] * h[j + 1];
                        }
                        loss = loss * 0.5 + z.sin();
                    }
                }
            }

            twin! {
                fn places, places_window
                (w: [R; 6] => [R; 6]; x: &[$r], o: usize) -> loss
                {
                    let mut loss = 0.0;
                    for j in 0..N4 {
                        // borrowed, compared, a receiver, a cast, a call's
                        // argument, and read only on some iterations
                        let b = &x[j];
                        let s = if x[j + 1] > *b { w[j] } else { w[j + 1] };
                        let m = x[j].max(x[j + o]) as R;
                        let t = R::abs(x[j + 2]);
                        if j < 2 {
                            loss += w[j + o] * x[j + o];
                        }
                        loss += s * m * t;
                    }
                }
            }

            twin! {
                fn guarded, guarded_window
                (w: [R; 6] => [R; 6]; x: &[$r], k: usize, n: usize) -> loss
                {
                    let mut loss = 0.0;
                    for j in 0..N3 {
                        // `(k - 1) * 3` is never worked out when `k` is 0
                        if k > 0 {
                            loss += w[j] * x[(k - 1) * 3 + j];
                        }
                        loss += w[j + 3] * w[j];
                    }
                    // nor `(k - 1) * n` when the loop is empty
                    for j in 0..n {
                        loss += w[j] * x[(k - 1) * n + j];
                    }
                }
            }

            twin! {
                fn layer, layer_window
                (w: [R; 6] => [R; 6]; x: &[$r], a: &[$r]) -> loss
                {
                    // a nest over named bounds read through its rows'
                    // starts: one run of `w` and one of `a` for all of it
                    let mut loss = 0.0;
                    for i in 0..N2 {
                        let mut z = 0.25;
                        for j in 0..N3 {
                            z += w[i * N3 + j] * x[j] + a[j + N4 * i] * w[j];
                        }
                        loss += z.tanh();
                    }
                }
            }

            #[test]
            fn a_nest_of_constant_loops_reads_through_one_run() {
                let (x, _, _) = data();
                // `a`'s rows are 4 apart: it reaches `a[6]`; with 7 and
                // more elements the run is all there
                for a in [&x[..7], &x[..]] {
                    for p in POINTS {
                        agree!(layer, layer_grad, layer_window, p.map(|v| v as R); &x, a);
                    }
                }
                // with 6, the last row's read runs past the end where the
                // primal's does
                let w = POINTS[0].map(|v| v as R);
                let primal = panic_message(|| {
                    layer(w, &x, &x[..6]);
                });
                let grad = panic_message(|| {
                    layer_grad(w, &x, &x[..6]);
                });
                assert!(primal.contains("index out of bounds"), "{primal}");
                assert_eq!(grad, primal);
            }

            /// A shift held by reference.
            #[tape]
            pub fn by_ref(#[tracked] w: [R; 6], x: &[$r], o: &usize) -> R {
                let mut t = 0.0;
                for j in 0..N3 {
                    t += w[j + o] * x[j + 2 * o] * w[j];
                }
                t
            }

            #[test]
            fn a_shift_held_by_reference() {
                let (x, _, _) = data();
                for o in [0, 1, 3] {
                    for p in POINTS {
                        let w = p.map(|v| v as R);
                        let (value, dw) = by_ref_grad(w, &x, &o);
                        same("value", &[value], &[by_ref(w, &x, &o)]);
                        let f = |p: &[R]| by_ref(core::array::from_fn(|k| p[k]), &x, &o);
                        check(f, &w, &dw);
                    }
                }
            }

            fn data() -> (Vec<R>, [R; 12], Vec<R>) {
                let x: Vec<R> = (0..12).map(|k| ((k as f64 * 0.37).sin()) as R).collect();
                let y: [R; 12] = core::array::from_fn(|k| ((k as f64 * 0.61).cos()) as R);
                let v: Vec<R> = (0..6).map(|k| (0.3 * k as f64 - 0.7) as R).collect();
                (x, y, v)
            }

            #[test]
            fn every_shift_form_matches_the_window_and_finite_differences() {
                let (x, y, v) = data();
                for (lo, hi, o) in [(0, 6, 0), (1, 4, 3), (2, 2, 1), (4, 1, 0), (0, 6, 6)] {
                    for p in POINTS {
                        agree!(shifts, shifts_grad, shifts_window, p.map(|v| v as R); &x, y, v.clone(), lo, hi, o);
                    }
                }
            }

            #[test]
            fn reads_that_are_places_or_skipped_stay_as_written() {
                let (x, _, _) = data();
                // `o = 4`: the run of `w[j + o]` passes `w`'s end, and the
                // loop reads it only while `j < 2`, as written
                for o in [0, 2, 4] {
                    for p in POINTS {
                        agree!(places, places_grad, places_window, p.map(|v| v as R); &x, o);
                    }
                }
            }

            #[test]
            fn a_shift_is_worked_out_only_where_the_primal_works_it_out() {
                let (x, _, _) = data();
                for (k, n) in [(0, 0), (1, 0), (2, 3), (3, 2)] {
                    for p in POINTS {
                        agree!(guarded, guarded_grad, guarded_window, p.map(|v| v as R); &x, k, n);
                    }
                }
            }

            /// The message `f` panics with.
            fn panic_message(f: impl FnOnce() + std::panic::UnwindSafe) -> String {
                let hook = std::panic::take_hook();
                std::panic::set_hook(Box::new(|_| {}));
                let caught = std::panic::catch_unwind(f);
                std::panic::set_hook(hook);
                let payload = caught.expect_err("the call did not panic");
                payload
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default()
            }

            #[test]
            fn a_run_past_the_end_panics_as_the_primal_does() {
                let (x, y, v) = data();
                let w = POINTS[0].map(|v| v as R);
                // `x[j + o]` and `v[j - lo]` past the end, `w[j]` past the end
                for (lo, hi, o) in [(0, 6, 7), (0, 7, 0), (0, 6, 12)] {
                    let primal = panic_message(|| {
                        shifts(w, &x, y, v.clone(), lo, hi, o);
                    });
                    let grad = panic_message(|| {
                        shifts_grad(w, &x, y, v.clone(), lo, hi, o);
                    });
                    assert!(primal.contains("index out of bounds"), "{primal}");
                    assert_eq!(grad, primal, "lo {lo}, hi {hi}, o {o}");
                }
                // `j - lo` below zero never happens; `x[j + o]` with `o` near
                // `usize::MAX` overflows in the primal (debug) or runs out of
                // bounds (release), and the gradient call does the same
                let o = usize::MAX - 1;
                let primal = panic_message(|| {
                    shifts(w, &x, y, v.clone(), 0, 6, o);
                });
                let grad = panic_message(|| {
                    shifts_grad(w, &x, y, v.clone(), 0, 6, o);
                });
                assert_eq!(grad, primal);
                // `x[j + o]` in `places` past the end on the first iteration
                let primal = panic_message(|| {
                    places(w, &x, 11);
                });
                let grad = panic_message(|| {
                    places_grad(w, &x, 11);
                });
                assert_eq!(grad, primal);
            }
        }
    };
}

suite!(f64s, f64, 1e-6);
suite!(f32s, f32, 2e-2);
