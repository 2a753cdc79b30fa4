//! `Option<T>` and `Result<T, E>` returns: `?` on values that do not
//! depend on a knob, `return None;` / `Err(…)` anywhere, `Some(…)` /
//! `Ok(…)` where the function ends or returns. `_grad` gives
//! `Option<(T, G)>` / `Result<(T, G), E>`; `_backward` gives the `Option` /
//! `Result` of the value and adds nothing to a slot on `None` / `Err`, also
//! after a loop whose reverse could otherwise run early. Every program is
//! written twice, as `#[tape]` and as `#[tape(plain)]`, and checked in
//! `f64` and `f32` against central finite differences at several points,
//! against its plain twin and against slopes derived by hand.
#![deny(warnings)]

mod fd;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Problem {
    Empty,
    Negative,
}

macro_rules! programs {
    ($m:ident, $t:ty, $($mode:ident)?) => {
        pub mod $m {
            use super::Problem;
            use mica::tape;

            /// `x² · table[k]`, if the table has a `k`-th entry that is not
            /// negative; `x` itself past 10.
            #[tape$(($mode))?]
            pub fn scaled(#[tracked] x: $t, table: &[$t], k: usize) -> Option<$t> {
                let s = *table.get(k)?;
                if s < 0.0 {
                    return None;
                }
                if x > 10.0 {
                    return Some(x);
                }
                Some(x * x * s)
            }

            /// `1.5 Σ wᵢ²`, if `text` is a count; `None` when it does not
            /// parse, decided after the loop (whose reverse could run
            /// inside its forward sweep, were it not for the `?`).
            #[tape$(($mode))?]
            pub fn parsed(#[tracked] w: &[$t], text: &str) -> Option<$t> {
                let mut total = 0.0;
                for i in 0..w.len() {
                    total += w[i] * w[i];
                }
                let _count: usize = text.parse().ok()?;
                Some(total * 1.5)
            }

            /// `√(Σ wᵢ²)`, or why there is none.
            #[tape$(($mode))?]
            pub fn norm(#[tracked] w: &[$t]) -> Result<$t, Problem> {
                if w.is_empty() {
                    return Err(Problem::Empty);
                }
                let mut total = 0.0;
                for i in 0..w.len() {
                    if w[i] < -100.0 {
                        return Err(Problem::Negative);
                    }
                    total += w[i] * w[i];
                }
                if total > 1.0 {
                    Ok(total.sqrt())
                } else {
                    Ok(total)
                }
            }
        }
    };
}

programs!(p64, f64,);
programs!(q64, f64, plain);
programs!(p32, f32,);
programs!(q32, f32, plain);

macro_rules! check_all {
    ($p:ident, $q:ident, $t:ty, $tol:expr, $rel:expr) => {{
        use $p::*;
        for x in [0.4 as $t, -1.3, 2.2, 11.0] {
            let table: [$t; 3] = [1.5, -2.0, 0.5];
            for k in [0, 2] {
                let (v, g) = scaled_grad(x, &table, k).expect("a value");
                let s = table[k];
                let (want, slope) = if x > 10.0 {
                    (x, 1.0)
                } else {
                    (x * x * s, 2.0 * x * s)
                };
                fd::close("scaled value", v, want, $rel);
                fd::close("scaled by hand", g, slope, $rel);
                fd::close(
                    "scaled plain",
                    g,
                    $q::scaled_grad(x, &table, k).unwrap().1,
                    $rel,
                );
                fd::agrees(
                    "scaled",
                    &|v: &[$t]| scaled(v[0], &table, k).unwrap(),
                    &[x],
                    &[g],
                    $tol,
                );
            }
            // no entry, a negative one: nothing, and nothing added
            for k in [1, 7] {
                assert_eq!(scaled_grad(x, &table, k), None);
                let mut slot = 0.25 as $t;
                assert_eq!(scaled_backward(x, &table, k, 1.0, &mut slot), None);
                assert_eq!(slot, 0.25);
            }
        }
        let points: [&[$t]; 3] = [&[0.3, -0.7, 0.45], &[0.1, 0.2, -0.3], &[1.1, 0.6, -0.2]];
        for p in points {
            let (v, g) = parsed_grad(p, "15").expect("a value");
            let by_hand: Vec<$t> = p.iter().map(|w| 3.0 * w).collect();
            fd::close(
                "parsed value",
                v,
                1.5 * p.iter().map(|w| w * w).sum::<$t>(),
                $rel,
            );
            fd::same("parsed by hand", &g, &by_hand, $rel);
            fd::same(
                "parsed plain",
                &g,
                &$q::parsed_grad(p, "15").unwrap().1,
                $rel,
            );
            fd::agrees("parsed", &|v: &[$t]| parsed(v, "15").unwrap(), p, &g, $tol);
            // the loop ran, then the text did not parse: the slots keep
            // what they held
            let mut slot = vec![0.5 as $t; p.len()];
            assert_eq!(parsed_backward(p, "many", 1.0, &mut slot), None);
            assert!(slot.iter().all(|s| *s == 0.5), "{slot:?}");

            let (_, g) = norm_grad(p).expect("a value");
            fd::same("norm plain", &g, &$q::norm_grad(p).unwrap().1, $rel);
            fd::agrees("norm", &|v: &[$t]| norm(v).unwrap(), p, &g, $tol);
        }
        assert_eq!(norm_grad(&[]), Err(Problem::Empty));
        assert_eq!(norm_grad(&[1.0, -200.0]), Err(Problem::Negative));
        let mut slot = vec![0.0 as $t; 2];
        assert_eq!(
            norm_backward(&[1.0, -200.0], 1.0, &mut slot),
            Err(Problem::Negative)
        );
        assert_eq!(slot, vec![0.0; 2]);
    }};
}

#[test]
fn option_and_result_returns_agree_with_finite_differences_and_add_nothing_when_empty() {
    check_all!(p64, q64, f64, 1e-6, 1e-12);
    check_all!(p32, q32, f32, 2e-2, 1e-5);
}
