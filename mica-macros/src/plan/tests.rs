//! The plan's verdicts, and their reasons, on small programs.

use super::{Plan, Verdict};
use crate::record::Step;
use std::cell::RefCell;

/// One loop's verdicts, as text: `"yes"` or the reason.
#[derive(Clone, Debug, PartialEq)]
struct Said {
    var: Option<String>,
    fuse: String,
    forward: String,
    slices: String,
    select: String,
    carry: String,
}

thread_local! {
    static LAST: RefCell<Vec<Said>> = const { RefCell::new(Vec::new()) };
}

fn say<T>(v: &Verdict<T>) -> String {
    match v.miss() {
        None => "yes".to_string(),
        Some(miss) => {
            assert!(miss.span.is_some(), "a verdict with no place: {}", miss.why);
            miss.why.to_string()
        }
    }
}

/// Keeps the verdicts of the last plan made on this thread, loops in the
/// order they are written.
pub(super) fn keep(plan: &Plan, steps: &[Step]) {
    fn walk(plan: &Plan, steps: &[Step], out: &mut Vec<Said>) {
        for step in steps {
            match step {
                Step::Loop(l) => {
                    if let Some(p) = plan.of_loop(l) {
                        out.push(Said {
                            var: l.facts.var.clone(),
                            fuse: say(&p.fuse),
                            forward: say(&p.forward),
                            slices: say(&p.slices),
                            select: say(&p.select),
                            carry: say(&p.carry),
                        });
                    }
                    walk(plan, &l.steps, out);
                }
                Step::Branch(b) => {
                    for (_, arm) in &b.arms {
                        walk(plan, arm, out);
                    }
                }
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    walk(plan, steps, &mut out);
    LAST.with(|last| *last.borrow_mut() = out);
}

/// The verdicts on `f`'s loops, with `#[tape(args)]`.
fn verdicts(args: &str, f: &str) -> Vec<Said> {
    LAST.with(|last| last.borrow_mut().clear());
    let _ = crate::expand::tape(
        args.parse().expect("arguments"),
        f.parse().expect("a function"),
    );
    LAST.with(|last| last.borrow().clone())
}

/// A function whose inner loop over `j` has `body`, summing into `z`
/// (which starts from the knob `s`); `w` is a tracked slice.
pub(crate) fn inner_loop(body: &str) -> String {
    format!(
        "fn f(#[tracked] w: &[f64], #[tracked] s: f64) -> f64 {{
            let mut t = 0.0;
            for _ in 0..N2 {{
                let mut z = s;
                for j in 0..N2 {{
                    {body}
                }}
                t += z.sin();
            }}
            t
        }}"
    )
}

/// An inner product in a loop over rows: its inner loop is walked forward
/// and sliced.
pub(crate) const INNER_PRODUCT: &str = "fn f(#[tracked] w: &[f64], x: &[f64], n: usize) -> f64 {
        let d = w.len();
        let mut t = 0.0;
        for i in 0..n {
            let mut z = 0.5;
            for j in 0..d {
                z += w[j] * x[i * d + j];
            }
            t += z.tanh();
        }
        t
    }";

/// The one loop over `var`.
fn of(said: &[Said], var: &str) -> Said {
    let found: Vec<&Said> = said
        .iter()
        .filter(|s| s.var.as_deref() == Some(var))
        .collect();
    assert_eq!(found.len(), 1, "{said:?}");
    found[0].clone()
}

#[test]
fn the_recurrence_through_an_array_is_not_fused() {
    // the program of the fused-loop bug: `h[i - 1]` reaches the iteration
    // before
    let said = verdicts(
        "",
        "fn f(#[tracked] w: f64) -> f64 {
            let mut h = vec![0.0; 3];
            h[0] = w;
            let mut total = 0.0;
            for i in 1..N3 {
                h[i] = h[i - 1] * w;
                total += h[i];
            }
            total
        }",
    );
    assert_eq!(
        of(&said, "i").fuse,
        "its iterations pass values to each other through an array"
    );
}

#[test]
fn a_sum_over_its_own_elements_is_fused_and_its_reasons_are_the_ones_met() {
    let sum = "fn f(#[tracked] w: &[f64], n: usize) -> f64 {
        let mut total = 0.0;
        for i in 0..n {
            total += w[i] * w[i];
        }
        total / n as f64
    }";
    let said = verdicts("", sum);
    assert_eq!(of(&said, "i").fuse, "yes");
    // the plain adjoint says no to everything, for that reason
    let plain = of(&verdicts("plain", sum), "i");
    for why in [
        plain.fuse,
        plain.forward,
        plain.slices,
        plain.select,
        plain.carry,
    ] {
        assert_eq!(why, "the plain adjoint takes no shortcut");
    }
    // the sum read non-linearly after the loop
    let said = verdicts("", &sum.replace("total / n as f64", "total * total"));
    assert_eq!(
        of(&said, "i").fuse,
        "the code after it does not read its sums linearly"
    );
    // a carried value that is not only summed
    let said = verdicts(
        "",
        &sum.replace("total += w[i] * w[i];", "total = total * w[i];"),
    );
    assert_eq!(
        of(&said, "i").fuse,
        "a binding it carries is not only summed"
    );
}

#[test]
fn inner_loops_read_non_linearly_are_not_fused_but_walked_forward_and_sliced() {
    let said = verdicts("", INNER_PRODUCT);
    let j = of(&said, "j");
    assert_eq!(j.fuse, "the code after it does not read its sums linearly");
    assert_eq!((j.forward.as_str(), j.slices.as_str()), ("yes", "yes"));
    let i = of(&said, "i");
    assert_eq!(i.fuse, "yes");
    assert_eq!(i.forward, "its body holds a loop, a branch or a fill");
}

/// A row's inner product, times the row's own element, summed: the inner
/// loop's sum is read linearly by a factor known before it (`w[i]`).
const QUADRATIC: &str = "fn f(#[tracked] w: &[f64], a: &[f64], n: usize) -> f64 {
    let mut q = 0.0;
    for i in 0..n {
        let mut z = 0.0;
        for j in 0..n {
            z += a[i * n + j] * w[j];
        }
        q += w[i] * z;
    }
    q
}";

#[test]
fn an_inner_sum_read_linearly_in_a_fused_loop_is_fused() {
    let said = verdicts("", QUADRATIC);
    assert_eq!(of(&said, "i").fuse, "yes");
    assert_eq!(of(&said, "j").fuse, "yes");
}

#[test]
fn loops_three_deep_are_fused_while_each_loop_around_is() {
    let deep = "fn f(#[tracked] w: &[f64], a: &[f64], n: usize) -> f64 {
        let mut q = 0.0;
        for b in 0..n {
            for o in 0..n {
                let mut z = 0.0;
                for i in 0..n {
                    z += w[i] * a[o * n + i] * a[b * n + i];
                }
                q += w[o] * z;
            }
        }
        q
    }";
    let said = verdicts("", deep);
    for var in ["b", "o", "i"] {
        assert_eq!(of(&said, var).fuse, "yes", "{var}");
    }
    // the middle loop not fused (its sum read non-linearly): nor the
    // innermost
    let said = verdicts(
        "",
        &deep.replace("q += w[o] * z;", "q += (w[o] * z).sin();"),
    );
    assert_eq!(of(&said, "b").fuse, "yes");
    assert_eq!(of(&said, "o").fuse, "yes");
    assert_eq!(
        of(&said, "i").fuse,
        "the code after it does not read its sums linearly"
    );
    let said = verdicts("", &deep.replace("    q\n    }", "    q * q\n    }"));
    assert_eq!(
        of(&said, "i").fuse,
        "only a loop of the function body's top level, or of a fused loop's body, is fused"
    );
}

#[test]
fn inner_loops_are_fused_only_where_their_reverse_may_move() {
    for (from, to, why) in [
        // the loop around is not fused
        (
            "    q\n}",
            "    q * q\n}",
            "only a loop of the function body's top level, or of a fused loop's body, is fused",
        ),
        // in a nested block of the body
        (
            "        let mut z = 0.0;\n        for j in 0..n {\n            z += a[i * n + j] * w[j];\n        }",
            "        let mut z = 0.0;\n        {\n        for j in 0..n {\n            z += a[i * n + j] * w[j];\n        }\n        }",
            "a loop inside a fused loop is fused only as a statement of its body",
        ),
        // the factor is made after the loop from a value not known before
        (
            "q += w[i] * z;",
            "q += (w[i] * z) * z.sin();",
            "the code after it does not read its sums linearly",
        ),
        (
            "q += w[i] * z;",
            "let mut y = 0.0; for k in 0..n { y += w[k]; } q += y * z;",
            "the slope of the code after it reads a value not known before it",
        ),
        // a factor evaluated again before the loop
        (
            "q += w[i] * z;",
            "let c = w[i].sin(); q += c * z;",
            "yes",
        ),
        // a value a branch of the body gives, read by the loop
        (
            "        let mut z = 0.0;\n        for j in 0..n {\n            z += a[i * n + j] * w[j];",
            "        let mut z = 0.0;\n        let mut v = 1.0;\n        if i > 1 { v = w[i] * 2.0; }\n        for j in 0..n {\n            z += a[i * n + j] * w[j] * v;",
            "yes",
        ),
    ] {
        assert!(QUADRATIC.contains(from), "{from}");
        let f = QUADRATIC.replace(from, to);
        let said = verdicts("", &f);
        assert_eq!(of(&said, "j").fuse, why, "{f}");
    }
}

#[test]
fn elements_touched_twice_are_not_walked_forward() {
    for (body, why) in [
        (
            "z += w[j / 2];",
            "two of its iterations may touch one element",
        ),
        ("z += w[0] * w[j];", "an index is not read again"),
        (
            "z += w[j] * s;",
            "its body reads a recorded value made outside it",
        ),
        ("z = z * w[j];", "a binding it carries is not only summed"),
    ] {
        assert_eq!(
            of(&verdicts("", &inner_loop(body)), "j").forward,
            why,
            "{body}"
        );
    }
}

#[test]
fn a_while_loop_is_neither_walked_forward_nor_sliced() {
    let said = verdicts(
        "",
        "fn f(#[tracked] w: f64) -> f64 {
            let mut x = w;
            let mut k = 0;
            while k < 3 {
                x = x * w;
                k += 1;
            }
            x
        }",
    );
    assert_eq!(said.len(), 1);
    assert_eq!(said[0].forward, "it is not a loop over a range");
}

/// A loop over `i` whose body is `body`, summing into `total`.
fn summing(body: &str) -> String {
    format!(
        "fn f(#[tracked] w: &[f64], x: &[f64], mask: &[bool]) -> f64 {{
            let mut total = 0.0;
            for i in 0..w.len() {{
                {body}
            }}
            total
        }}"
    )
}

#[test]
fn sums_through_arms_continues_and_several_adds_are_fused() {
    for body in [
        "if !mask[i] { continue; } total += (w[i] * x[i]).tanh();",
        "total += w[i]; total -= 0.5 * w[i] * w[i];",
        "if mask[i] { total += w[i].sin(); } else { total -= w[i].cos(); }",
        "total += w[i]; if mask[i] { total += x[i] * w[i]; }",
        "if w[i] > 0.0 { total += w[i]; }",
        "match i % 3 { 0 => total += w[i], 1 => { total -= w[i]; total += 1.0; } _ => {} }",
        "if mask[i] { if w[i] > x[i] { continue; } total += w[i]; }",
    ] {
        assert_eq!(of(&verdicts("", &summing(body)), "i").fuse, "yes", "{body}");
    }
}

#[test]
fn a_loop_that_may_break_is_not_fused() {
    // its rewrite for the forward sweep (`exits.rs`) puts it in a block
    for body in [
        "if w[i] > 0.35 { break; } total += w[i].tanh();",
        "total += w[i]; if x[i] > 0.0 { break; }",
    ] {
        assert_eq!(
            of(&verdicts("", &summing(body)), "i").fuse,
            "only a loop of the function body's top level is fused",
            "{body}"
        );
    }
}

#[test]
fn a_version_of_the_sum_read_by_a_term_or_replaced_is_not_fused() {
    for body in [
        // a term reads the sum made so far
        "total += w[i]; total += total.sin();",
        "if mask[i] { total += w[i] * total; }",
        // the sum is subtracted from a term, or scaled
        "total = w[i] - total;",
        "if mask[i] { total = total * w[i]; } else { total += w[i]; }",
        // an arm starts it again
        "if mask[i] { total = w[i]; } else { total += w[i]; }",
        "if mask[i] { total = 0.0; } total += w[i];",
        // twice in one add
        "total = total + total + w[i];",
    ] {
        assert_eq!(
            of(&verdicts("", &summing(body)), "i").fuse,
            "a binding it carries is not only summed",
            "{body}"
        );
    }
}

#[test]
fn a_loop_keeping_its_largest_value_is_a_selection() {
    let fold = "fn f(#[tracked] x: &[f64], #[tracked] c: f64) -> f64 {
        let mut m = f64::NEG_INFINITY;
        for i in 0..x.len() {
            BODY
        }
        m
    }";
    for body in [
        "m = m.max(x[i]);",
        "m = m.min(x[i] - c);",
        "m = f64::max(x[i] + c, m);",
        "m = (-x[i]).max(m);",
    ] {
        let said = verdicts("", &fold.replace("BODY", body));
        assert_eq!(of(&said, "i").select, "yes", "{body}");
    }
    for (body, why) in [
        (
            "m = m.max(x[i] * c);",
            "an operation of its body has a slope other than ±1",
        ),
        (
            "m = m.max(x[i].sin());",
            "an operation of its body has a slope other than ±1",
        ),
        (
            "m = m.max(x[i] - m);",
            "its body reads the binding it carries elsewhere",
        ),
        (
            "m = c.max(x[i]);",
            "the binding it carries is not its `max` or `min`",
        ),
        (
            "m = m * 0.5 + x[i];",
            "an operation of its body has a slope other than ±1",
        ),
        (
            "m = x[i] - m;",
            "the binding it carries is not its `max` or `min`",
        ),
        (
            "if x[i] > 0.0 { m = m.max(x[i]); }",
            "its body holds a loop, a branch or a write",
        ),
        (
            // its rewrite for the forward sweep puts it in a block
            "m = m.max(x[i]); if x[i] > 2.0 { break; }",
            "only a loop of the function body's top level keeps its winner alone",
        ),
    ] {
        let said = verdicts("", &fold.replace("BODY", body));
        let i = said
            .iter()
            .find(|s| s.var.as_deref() == Some("i") || s.var.is_none());
        assert_eq!(i.map(|i| i.select.as_str()), Some(why), "{body}: {said:?}");
    }
    // the iterator form, after its rewrite into a loop
    let said = verdicts(
        "",
        "fn f(#[tracked] x: &[f64]) -> f64 {
            x.iter().cloned().fold(f64::NEG_INFINITY, f64::max)
        }",
    );
    assert_eq!(said.len(), 1);
    assert_eq!(said[0].select, "yes");
    // inside another loop
    let said = verdicts(
        "",
        "fn f(#[tracked] x: &[f64]) -> f64 {
            let mut t = 0.0;
            for r in 0..N2 {
                let mut m = 0.0;
                for j in 0..x.len() {
                    m = m.max(x[j] + r as f64);
                }
                t += m;
            }
            t
        }",
    );
    assert_eq!(
        of(&said, "j").select,
        "only a loop of the function body's top level keeps its winner alone"
    );
    // a fused loop is fused
    let said = verdicts(
        "",
        "fn f(#[tracked] x: &[f64]) -> f64 {
            let mut t = 0.0;
            for i in 0..x.len() {
                t += x[i];
            }
            t
        }",
    );
    assert_eq!(of(&said, "i").select, "it is fused");
}

/// A stencil step, `v[p] = u[p] + a * (…neighbours…)`, through the named
/// index `p` of a grid's rows of `n`, with `body` as the row loop's body.
fn stencil(body: &str) -> String {
    format!(
        "fn f(#[tracked] u0: &[f64], n: usize, steps: usize) -> f64 {{
            let mut u = u0.to_vec();
            let mut v = u0.to_vec();
            for _ in 0..steps {{
                for i in 1..n - 1 {{
                    for j in 1..n - 1 {{
                        {body}
                    }}
                }}
                std::mem::swap(&mut u, &mut v);
            }}
            u[0] * u[n + 1]
        }}"
    )
}

#[test]
fn neighbours_read_only_have_their_slopes_wait_in_registers() {
    let five = "let p = i * n + j;
        v[p] = u[p] + 0.2 * (u[p - 1] + u[p + 1] + u[p - n] + u[p + n] - 4.0 * u[p]);";
    assert_eq!(of(&verdicts("", &stencil(five)), "j").carry, "yes");
    // the plain adjoint: no
    assert_eq!(
        of(&verdicts("plain", &stencil(five)), "j").carry,
        "the plain adjoint takes no shortcut"
    );
    let none = "no array it only reads is read at neighbouring elements";
    for (body, why) in [
        // two neighbours are enough; two apart are not
        ("v[i * n + j] = u[i * n + j] * u[i * n + j + 1];", "yes"),
        ("v[i * n + j] = u[i * n + j - 1] * u[i * n + j + 1];", none),
        // an array the loop writes, even elsewhere
        ("v[j] = v[j - 1] + v[j] + u[j]; ", none),
        ("v[j] = u[j] + u[j + 1]; u[0] = 1.0;", none),
        // the neighbours only in an arm
        ("if j > 2 { v[j] = u[j] + u[j + 1]; }", none),
    ] {
        assert_eq!(of(&verdicts("", &stencil(body)), "j").carry, why, "{body}");
    }
}

#[test]
fn an_array_made_in_the_loop_or_shared_keeps_its_slopes_in_memory() {
    let none = "no array it only reads is read at neighbouring elements";
    // made in the body: a new buffer in every iteration
    let made = "fn f(#[tracked] w: &[f64], n: usize) -> f64 {
        let mut t = 0.0;
        for i in 0..n {
            let h = vec![w[0] * 2.0; n + 1];
            for j in 0..N2 {
                t += h[j] * h[j + 1];
            }
            t += h[i] * h[i + 1];
        }
        t
    }";
    let said = verdicts("", made);
    assert_eq!(of(&said, "j").carry, "yes");
    assert_eq!(of(&said, "i").carry, none);
    // a fused loop's registers are made before its forward sweep, where
    // only a parameter's buffer is sure to be
    let fused = "fn f(#[tracked] w: &[f64], n: usize) -> f64 {
        let mut h = w.to_vec();
        h[0] *= 2.0;
        let mut t = 0.0;
        for i in 0..n - 1 {
            t += h[i] * h[i + 1];
        }
        t
    }";
    let i = of(&verdicts("", fused), "i");
    assert_eq!((i.fuse.as_str(), i.carry.as_str()), ("yes", none));
    let i = of(
        &verdicts(
            "",
            &fused.replace("t += h[", "t += w[").replace("* h[", "* w["),
        ),
        "i",
    );
    assert_eq!((i.fuse.as_str(), i.carry.as_str()), ("yes", "yes"));
}
