//! Reverse loops that run forward.
//!
//! A loop's reverse walks its iterations from the last to the first, because
//! in general iteration `i`'s adjoints need what iteration `i + 1` passed
//! back. Some loops pass nothing back: the inner product
//!
//! ```text
//! for j in 0..d {
//!     z += w[j] * x[i * d + j];
//! }
//! ```
//!
//! gives every iteration the same adjoint of `z` (the one `z` has after the
//! loop), and iteration `j` adds into `d_w[j]` alone. Walking such a loop
//! backward or forward adds the same numbers into the same places in the same
//! order per element, so the results are bit for bit the same. Forward, the
//! compiler sees an ordinary counting loop over a range, which it unrolls and
//! vectorises more readily than a reversed one.
//!
//! Which loops run forward is the plan's verdict (`plan/access.rs`): a
//! loop over a range whose body is straight-line code read again, whose
//! carried bindings are only summed, which reads no recorded value made
//! outside it and touches no element in two iterations; the reverse takes
//! it when it keeps nothing per iteration (`walk.rs`).

#[cfg(test)]
mod tests {
    /// How the reverse of `f`'s loop over `j` walks it: `Some(true)` first
    /// to last, `Some(false)` last to first.
    fn forward(f: &str) -> Option<bool> {
        let code = &crate::expand::backward_of(f);
        // the forward sweep's loop comes first, then the reverse's
        // (a reverse that takes back what the loop kept walks it with its
        // items, `for (j, (…)) in zip_back(rev(…), …)`)
        let first = code.find("for j in ")?;
        let last = code.rfind("for j in ").max(code.rfind("for (j , ("))?;
        assert!(first < last, "a loop with no reverse of its own: {code}");
        let rest = &code[last..];
        Some(
            !(rest.starts_with("for j in :: core :: iter :: Iterator :: rev")
                || rest.starts_with("for (j , (")),
        )
    }

    #[test]
    fn inner_products_run_forward() {
        let f = crate::plan::tests::INNER_PRODUCT;
        assert_eq!(forward(f), Some(true));
    }

    #[test]
    fn shifted_indices_and_rows_run_forward() {
        for (index, range) in [
            ("w[j + o]", "0..N4"),
            ("w[o + j]", "0..N4"),
            ("w[j - 1]", "1..N5"),
            ("w[2 * j]", "0..N2"),
        ] {
            let f = format!(
                "fn f(#[tracked] w: &[f64], o: usize) -> f64 {{
                    let mut t = 0.0;
                    for _ in 0..N2 {{
                        let mut z = 0.0;
                        for j in {range} {{
                            z += {index} * {index};
                        }}
                        t += z.sin();
                    }}
                    t
                }}"
            );
            assert_eq!(forward(&f), Some(true), "{index}");
        }
        let f = "fn f(#[tracked] m: [[f64; 3]; 2]) -> f64 {
            let mut t = 0.0;
            for i in 0..N2 {
                let mut z = 0.0;
                for j in 0..N3 {
                    z -= m[i][j].sin();
                }
                t += z * z;
            }
            t
        }";
        assert_eq!(forward(f), Some(true));
    }

    #[test]
    fn loops_that_pass_adjoints_back_run_backward() {
        for (body, why) in [
            ("z = z * w[j];", "the carried adjoint changes"),
            ("z += w[j] * z;", "the carried value is read again"),
            ("z += w[0] * w[j];", "every iteration reads `w[0]`"),
            (
                "z += w[j / 2];",
                "two iterations read one element of `w[j / 2]`",
            ),
            ("z += w[j] * w[j + 1];", "`w` indexed two ways"),
            ("z += w[j] * s;", "`s` is made outside the loop"),
        ] {
            let f = crate::plan::tests::inner_loop(body);
            assert_eq!(forward(&f), Some(false), "{why}");
        }
    }

    #[test]
    fn loops_with_nothing_to_walk_back_have_no_reverse() {
        // the running maximum is a constant (`detach`): its loop has no
        // reverse at all
        let code = crate::expand::backward_of(
            "fn f(#[tracked] w: &[f64], n: usize) -> f64 {
                let mut t = 0.0;
                for i in 0..n {
                    let mut m = mica::detach(w[0]);
                    for c in 1..w.len() {
                        let v = mica::detach(w[c]);
                        if v > m {
                            m = v;
                        }
                    }
                    let mut z = 0.0;
                    for c in 0..w.len() {
                        z += (w[c] - m + i as f64).exp();
                    }
                    t += z.ln() + m;
                }
                t
            }",
        );
        assert!(!code.contains("for _ in"), "{code}");
        // two loops forward (the second written twice, with runs for a
        // long range and without), one reverse
        let walks = code.matches("for c in").count() + code.matches("for (c , (").count();
        assert_eq!(walks, 4, "{code}");
        assert_eq!(code.matches("for (c , (").count(), 1, "{code}");
    }
}
