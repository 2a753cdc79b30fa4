//! How long the expansion itself takes, on synthetic bodies of growing size.
//! Not a test: `benches/run.sh` runs it (in release) and puts criterion's
//! medians into `BENCHMARKS.md`:
//!
//! ```text
//! cargo test -p mica-macros --release expansion_time -- --ignored --nocapture
//! ```

use proc_macro2::TokenStream;
use std::fmt::Write as _;
use std::time::Duration;

/// A straight-line function of `n` statements over two tracked scalars,
/// cycling through arithmetic and methods.
fn straight_line(n: usize) -> TokenStream {
    let mut body = String::from("let v0 = x * y;\n");
    for k in 1..n {
        let p = k - 1;
        let q = k / 2;
        let line = match k % 4 {
            0 => format!("let v{k} = v{p} * v{q} + x;"),
            1 => format!("let v{k} = v{p}.sin() - y * 0.5;"),
            2 => format!("let v{k} = (v{p} + v{q}) * 0.25;"),
            _ => format!("let v{k} = v{p}.tanh() * y + v{q};"),
        };
        writeln!(body, "{line}").unwrap();
    }
    let last = n - 1;
    format!("fn f(#[tracked] x: f64, #[tracked] y: f64) -> f64 {{ {body} v{last} }}")
        .parse()
        .unwrap()
}

/// A function of `n` statements in loops: blocks of a nested loop over a
/// tracked slice, an array write loop and a `while` with carried values.
fn loop_heavy(n: usize) -> TokenStream {
    let mut body = String::from("let n = w.len(); let mut s0 = 0.0;\n");
    let blocks = n.div_ceil(10);
    for k in 1..=blocks {
        let p = k - 1;
        writeln!(
            body,
            "let mut s{k} = s{p} * 0.5;
             for i in 0..n {{
                 for j in 0..n {{
                     s{k} += w[i] * w[j] * x[i * n + j];
                 }}
                 s{k} = s{k}.tanh();
             }}
             let mut h{k} = vec![0.0; n];
             for i in 0..n {{ h{k}[i] = w[i] * s{k}; }}
             let mut t = 0;
             while t < 3 {{ s{k} = s{k} * h{k}[t % n] + 0.1; t += 1; }}"
        )
        .unwrap();
    }
    format!("fn g(#[tracked] w: &[f64], x: &[f64]) -> f64 {{ {body} s{blocks} }}")
        .parse()
        .unwrap()
}

#[test]
#[ignore = "a measurement, run by benches/run.sh"]
fn expansion_time() {
    // the 10,000-line body as a source file, for the build-time comparison
    if let Some(dir) = std::env::var_os("MICA_EXPANSION_SOURCE_DIR") {
        let source = format!("use mica::tape;\n#[tape]\npub {}\n", straight_line(10_000));
        std::fs::write(std::path::Path::new(&dir).join("straight.rs"), source).unwrap();
    }
    let mut c = criterion::Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2))
        .without_plots();
    for n in [1_000, 10_000, 50_000] {
        let input = straight_line(n);
        c.bench_function(&format!("expansion/straight_line/{n}"), |b| {
            b.iter(|| crate::expand::tape(TokenStream::new(), input.clone()))
        });
    }
    for n in [1_000, 5_000] {
        let input = loop_heavy(n);
        c.bench_function(&format!("expansion/loop_heavy/{n}"), |b| {
            b.iter(|| crate::expand::tape(TokenStream::new(), input.clone()))
        });
    }
}

/// The synthetic bodies expand without errors (so the measurement times a
/// real expansion).
#[test]
fn synthetic_bodies_expand_cleanly() {
    for input in [straight_line(50), loop_heavy(50)] {
        let out = crate::expand::tape(TokenStream::new(), input).to_string();
        assert!(!out.contains("compile_error"), "{out}");
        assert!(out.contains("_backward"));
    }
}

/// One expansion of a 2,000-line straight-line body (or, with
/// `MICA_PROFILE_BODY=loops`, a 1,000-line loop-heavy one; another size with
/// `MICA_PROFILE_STATEMENTS=n`), to run under a profiler:
///
/// ```text
/// CARGO_PROFILE_RELEASE_DEBUG=true cargo test -p mica-macros --release --lib --no-run
/// valgrind --tool=callgrind target/release/deps/mica_macros-… --ignored --exact \
///     expansion_time::expansion_profile_target
/// ```
#[test]
#[ignore = "a profiling target"]
fn expansion_profile_target() {
    let statements = |default| {
        std::env::var("MICA_PROFILE_STATEMENTS")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(default)
    };
    let input = match std::env::var("MICA_PROFILE_BODY").as_deref() {
        Ok("loops") => loop_heavy(statements(1_000)),
        _ => straight_line(statements(2_000)),
    };
    let out = crate::expand::tape(TokenStream::new(), input);
    assert!(!out.is_empty());
}
