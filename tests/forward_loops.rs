//! Reverse loops walked first to last (`mica-macros/src/reverse/forward.rs`),
//! over slices taken before the loop (`mica-macros/src/reverse/slices.rs`).
//!
//! A loop whose iterations pass no adjoint back to earlier ones, and touch
//! distinct elements, has its reverse walked in the order the iterations
//! ran; a loop over a range indexing arrays by its shifted variable reads
//! and adds through slices. Each program below has such inner loops (an
//! inner product, shifted indices, a row of a two-dimensional array,
//! element writes and increments, ranges whose ends are known only at run
//! time, empty or reversed, neighbours at literal offsets, layers read
//! again from parameters and a local `vec!`) next to inner loops that must
//! still run backward, and is checked three ways, in `f64` and `f32`:
//!
//! - the gradient equals the same body recorded in a `tape!` window, whose
//!   loops all run backward, to the rounding of its sums' order (a
//!   neighbour's slope may wait in a register, `analyze/carry.rs`);
//! - the value equals the plain function's bit for bit;
//! - the gradient agrees with central finite differences.
#![deny(warnings)]
#![allow(clippy::needless_range_loop)]

#[macro_use]
mod twin;

macro_rules! suite {
    ($m:ident, $r:ident, $tol:expr) => {
        mod $m {
            // `tape`, `R` and the finite-difference `check`
            suite_prelude!($r, $tol);

            // `same` (bit for bit), `same_sums` and `POINTS`
            slice_checks!();

            // named bounds: a short loop over a literal range is written
            // out, and these programs are about the loops' shortcuts
            const N2: usize = 2;
            const N3: usize = 3;
            const N4: usize = 4;

            twin! {
                fn sums, sums_window
                (w: [R; 6] => [R; 6], m: [[R; 3]; 2] => [[R; 3]; 2]; x: [R; 12], o: usize) -> loss
                {
                    let mut loss = 0.0;
                    for i in 0..N2 {
                        // an inner product: forward
                        let mut z = 0.25;
                        for j in 0..6 {
                            z += w[j] * x[i * 6 + j];
                        }
                        // shifted indices and a row: forward
                        for j in 0..N3 {
                            z -= w[j + o] * w[j + o] - m[i][j].sin();
                        }
                        for j in 1..N4 {
                            z += (w[o + j] * x[j - 1]).cos();
                        }
                        // backward: the carried adjoint changes; `w[o]`
                        // every time; `w` at `j` and `j + 1`; `u` is made
                        // outside the loop
                        for j in 0..N3 {
                            z = z * 0.5 + w[j + 1] * m[i][j];
                        }
                        for j in 0..12 {
                            z += w[o] * x[j] * x[j];
                        }
                        for j in 0..5 {
                            z += w[j] * w[j + 1] * x[j];
                        }
                        let u = m[i][0] * m[i][2];
                        for j in 0..N3 {
                            z += w[j] * u;
                        }
                        // not fused (see `fuse.rs`): its reverse runs after it
                        loss = loss * 0.5 + z.tanh() * z;
                    }
                }
            }

            twin! {
                fn rows, rows_window
                (w: [R; 6] => [R; 6], v: R => R; x: [R; 12], o: usize) -> loss
                {
                    let mut loss = v;
                    for r in 0..N2 {
                        let mut h = [0.0; 4];
                        // writes, then increments: forward
                        for j in 0..N4 {
                            h[j] = (w[j] * x[r * 4 + j]).sin();
                        }
                        for j in 0..N4 {
                            h[j] += w[j + o] * w[j + o];
                        }
                        let mut s = 0.0;
                        for j in 0..N4 {
                            s += h[j] * h[j] - x[j];
                        }
                        // the reads of `h` are kept per iteration, and
                        // `v` is made outside the loop: backward
                        for j in 0..N4 {
                            s += h[j] * v;
                        }
                        loss = loss * 0.75 + s;
                    }
                }
            }

            twin! {
                fn ranges, ranges_window
                (w: [R; 6] => [R; 6]; x: [R; 12], lo: usize, hi: usize) -> loss
                {
                    let mut loss = 0.0;
                    for r in 0..N2 {
                        // ends known only at run time: empty, reversed or
                        // not starting at zero
                        let mut z = 0.5;
                        for j in lo..hi {
                            z += w[j] * w[j].sin();
                        }
                        for j in lo..hi {
                            z -= w[j + 1] * x[r + j];
                        }
                        loss = loss * 0.5 + z * z;
                    }
                }
            }

            twin! {
                fn stencil, stencil_window
                (q0: [R; 8] => [R; 8]; c: R, lo: usize) -> loss
                {
                    // neighbours at literal offsets: one slice per buffer
                    let mut q = [0.0; 8];
                    for i in 0..8 {
                        q[i] = q0[i];
                    }
                    let mut flux = [0.0; 7];
                    for _step in 0..N3 {
                        for i in 0..7 {
                            flux[i] = 0.5 * c * (q[i] + q[i + 1] + c * (q[i] - q[i + 1]));
                        }
                        for i in 1..7 {
                            q[i] += flux[i - 1] - flux[i] * q[i - 1].sin();
                        }
                        for i in lo..7 {
                            q[i + 1] -= 0.25 * q[i] * q[i + 1];
                        }
                        q[0] = q[6];
                    }
                    let mut loss = 0.0;
                    for i in 0..8 {
                        loss += 0.5 * q[i] * q[i];
                    }
                }
            }

            twin! {
                fn layers, layers_window
                (w: [R; 12] => [R; 12], v: [R; 4] => [R; 4]; x: [R; 3]) -> loss
                {
                    // a layer into a local `vec!`, read by the next layer:
                    // the reverse reads `w` and `h` again through slices
                    let mut h = vec![0.0; 4];
                    for j in 0..N4 {
                        let mut s = v[j];
                        for i in 0..N3 {
                            s += w[j * 3 + i] * x[i];
                        }
                        h[j] = s.tanh();
                    }
                    let mut loss = 0.0;
                    for k in 0..N3 {
                        let mut s = 0.0;
                        for i in 0..N4 {
                            s += w[k * 4 + i] * h[i];
                        }
                        loss = loss * 0.5 + s * s;
                    }
                }
            }

            #[test]
            fn layers_read_again_through_slices() {
                let x = [0.4, -0.8, 1.1].map(|v| v as R);
                for p in POINTS {
                    let w: [R; 12] =
                        core::array::from_fn(|k| (p[k % 6] * (0.5 + 0.1 * k as f64)) as R);
                    let v: [R; 4] = core::array::from_fn(|k| p[k + 1] as R);
                    let (value, (dw, dv)) = layers_grad(w, v, x);
                    same("value", &[value], &[layers(w, v, x)]);
                    let (wv, (ww, wvg)) = layers_window(w, v, x);
                    same("window value", &[wv], &[value]);
                    same_sums("d/dw", &ww, &dw);
                    same_sums("d/dv", &wvg, &dv);
                    let mut at = w.to_vec();
                    at.extend(v);
                    let mut g = dw.to_vec();
                    g.extend(dv);
                    let f = |p: &[R]| {
                        layers(
                            core::array::from_fn(|k| p[k]),
                            core::array::from_fn(|k| p[12 + k]),
                            x,
                        )
                    };
                    check(f, &at, &g);
                }
            }

            #[test]
            fn neighbours_at_literal_offsets() {
                for lo in [0, 1, 3, 7, 9] {
                    for p in POINTS {
                        let q0: [R; 8] = core::array::from_fn(|k| (p[k % 6] + 0.1 * k as f64) as R);
                        let c = 0.4 as R;
                        let (value, dq) = stencil_grad(q0, c, lo);
                        same("value", &[value], &[stencil(q0, c, lo)]);
                        let (wv, (wq,)) = stencil_window(q0, c, lo);
                        same("window value", &[wv], &[value]);
                        same_sums("d/dq0", &wq, &dq);
                        let f = |p: &[R]| stencil(core::array::from_fn(|k| p[k]), c, lo);
                        check(f, &q0, &dq);
                    }
                }
            }

            #[test]
            fn ranges_of_any_ends() {
                let x: [R; 12] = core::array::from_fn(|k| ((k as f64 * 0.61).cos()) as R);
                for (lo, hi) in [(0, 5), (2, 2), (4, 1), (1, 4), (3, 5)] {
                    for p in POINTS {
                        let w = p.map(|v| v as R);
                        let (value, dw) = ranges_grad(w, x, lo, hi);
                        same("value", &[value], &[ranges(w, x, lo, hi)]);
                        let (wv, (ww,)) = ranges_window(w, x, lo, hi);
                        same("window value", &[wv], &[value]);
                        same_sums("d/dw", &ww, &dw);
                        let f = |p: &[R]| ranges(core::array::from_fn(|k| p[k]), x, lo, hi);
                        check(f, &w, &dw);
                    }
                }
            }

            #[test]
            fn inner_loops_match_the_window_and_finite_differences() {
                let x: [R; 12] = core::array::from_fn(|k| ((k as f64 * 0.37).sin()) as R);
                let o = 2;
                for p in POINTS {
                    let w = p.map(|v| v as R);
                    let m = [[p[1], p[3], p[5]], [p[0], p[2], p[4]]].map(|r| r.map(|v| v as R));
                    let (value, (dw, dm)) = sums_grad(w, m, x, o);
                    same("value", &[value], &[sums(w, m, x, o)]);
                    let (wv, (ww, wm)) = sums_window(w, m, x, o);
                    same("window value", &[wv], &[value]);
                    same_sums("d/dw", &ww, &dw);
                    same_sums("d/dm", wm.as_flattened(), dm.as_flattened());
                    let mut at = w.to_vec();
                    at.extend(m.as_flattened());
                    let mut g = dw.to_vec();
                    g.extend(dm.as_flattened());
                    let f = |p: &[R]| {
                        let w: [R; 6] = core::array::from_fn(|k| p[k]);
                        let m = [[p[6], p[7], p[8]], [p[9], p[10], p[11]]];
                        sums(w, m, x, o)
                    };
                    check(f, &at, &g);

                    let v = p[2] as R;
                    let (value, (dw, dv)) = rows_grad(w, v, x, o);
                    same("value", &[value], &[rows(w, v, x, o)]);
                    let (wv, (ww, wvg)) = rows_window(w, v, x, o);
                    same("window value", &[wv], &[value]);
                    same_sums("d/dw", &ww, &dw);
                    same_sums("d/dv", &[wvg], &[dv]);
                    let mut at = w.to_vec();
                    at.push(v);
                    let mut g = dw.to_vec();
                    g.push(dv);
                    let f = |p: &[R]| rows(core::array::from_fn(|k| p[k]), p[6], x, o);
                    check(f, &at, &g);
                }
            }
        }
    };
}

suite!(f64s, f64, 1e-6);
suite!(f32s, f32, 2e-2);
