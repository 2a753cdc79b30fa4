//! Proof by many programs: random differential testing of `#[tape]`.
//!
//! A generator (`differential/gen.rs`, deterministic from a `u64` seed)
//! writes random `#[tape]` programs over Mica's recorded vocabulary: float
//! methods kept inside their domains, knobs of several shapes (`f64`,
//! `&[f64; N]`, `&[f64]`, `&[[f64; 2]; R]` read as `m[i][j]`), array reads
//! and writes, array literals and `vec!` whose elements may all have slope 0,
//! tuples, blocks with a shadowing `let` (as values, and `let x = x * 0.5 +
//! …;` shadowing an outer name inside a nested block), nested `for`/`while`
//! loops with loop-carried values, `for` over `.iter()`, `.enumerate()` and
//! `.zip(…)` with the element read as `*a`, as a receiver both `a.sin()` and
//! `(*a).sin()`, value-dependent branches, `if` and `match` as values and as
//! statements (control flow, `return` included, nested in match arms),
//! `return` (function form), calls to a generated `#[tape]` helper (scalar
//! and array arguments), calls to a generated `#[tape]` method
//! (`o.m(a, b)` on `&self`, reading a field of its receiver `o`, an
//! untracked parameter), a `#[tape(custom)]` rule and `mica::detach`, in
//! both the function form and the window form.
//!
//! About one program in seven is written entirely in `f32` (parameters,
//! knobs, literals, the helper, the method, the custom rule).
//!
//! Every program is written twice: as Mica code, and as a plain function over
//! the forward-mode dual numbers of `differential/dual.rs` (`Dual`, or
//! `Dual32` for `f32`; they share nothing with Mica). N programs go into ONE
//! generated crate under `target/differential/<seed>/` (its own
//! `[workspace]`, `#![deny(warnings)]`, built with
//! `CARGO_TARGET_DIR=target/differential/target` so dependencies are
//! compiled once), whose `main` checks each program
//! (`differential/harness.rs`):
//!
//! - the value of `_grad` (and of `_backward`) is bit-identical to the plain
//!   function's, and so is the dual numbers' forward value (in the program's
//!   own float type: for `f32`, bit-identical `f32` values);
//! - Mica's gradient equals the dual numbers' within 1e-9 relative (`f32`:
//!   1e-3, compared in `f64`; both sides carry slopes in `f32`, summed in
//!   different orders);
//! - `_backward` adds `seed × slope` into pre-filled slots (within 1e-12
//!   relative; `f32`: 1e-6, one `f32` rounding);
//! - Mica's gradient equals central finite differences within 1e-5 relative,
//!   at points at least 1e-3 away from every kink, jump or branch flip (the
//!   dual evaluation measures that margin). `f32` programs are
//!   differentiated in `f32` (step `∛ε (1 + |x|) ≈ 5e-3 (1 + |x|)`), held to
//!   1e-2 relative, at points at least 0.1 away.
//!
//! A failing program is shrunk (statement deletion, expression
//! simplification, control-flow unwrapping; candidates compiled in batches)
//! and printed.
//!
//! The seed is fresh each run (from the clock) unless `MICA_DIFF_SEED` is set;
//! it is printed. `MICA_DIFF_PROGRAMS` sets the number of programs (default
//! 300). Long mode:
//!
//! ```text
//! MICA_DIFF_PROGRAMS=10000 cargo test --test differential -- --nocapture
//! ```
//!
//! (programs are compiled in crates of at most `MICA_DIFF_BATCH`, default
//! 1000, programs each). On 2 cores the default run takes about a minute once
//! the generated crate's dependencies are compiled (they are, once, into
//! `target/differential/target`); 10,000 programs take about 40 minutes.
//! Values that come out non-finite (the generator bounds them, so this is
//! rare) are counted as skipped, not failed.
//!
//! Bugs found by this harness are kept at the bottom as regression tests;
//! those not fixed yet are `#[ignore]`d, and the generator steers around
//! exactly their pattern (the comments in `differential/gen.rs` that point
//! at the regression tests).
#![deny(warnings)]

#[path = "differential/gen.rs"]
mod gen;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

const DUAL_RS: &str = include_str!("differential/dual.rs");
const HARNESS_RS: &str = include_str!("differential/harness.rs");

/// The crate-wide custom rule every program may call, in `f64` and in `f32`.
const CUSTOM: &str = r#"
#[tape(custom)]
pub fn custom(#[tracked] x: f64) -> f64 {
    x.sin() + 0.25 * x
}

pub fn custom_backward(x: f64, seed: f64, d_x: &mut f64) -> f64 {
    *d_x += seed * (x.cos() + 0.25);
    x.sin() + 0.25 * x
}

pub fn custom_d(x: Dual) -> Dual {
    x.sin() + cst(0.25) * x
}

#[tape(custom)]
pub fn custom32(#[tracked] x: f32) -> f32 {
    x.sin() + 0.25 * x
}

pub fn custom32_backward(x: f32, seed: f32, d_x: &mut f32) -> f32 {
    *d_x += seed * (x.cos() + 0.25);
    x.sin() + 0.25 * x
}

pub fn custom32_d(x: Dual32) -> Dual32 {
    x.sin() + cst32(0.25) * x
}
"#;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|s| s.trim().parse().ok())
}

/// Writes a crate holding `programs` (numbered by position) into `dir`.
/// Returns each program's first line in `src/lib.rs`.
fn write_crate(dir: &Path, programs: &[gen::Program]) -> Vec<usize> {
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let manifest = format!(
        "[package]\nname = \"mica-differential\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\
         publish = false\n\n[dependencies]\nmica = {{ path = {:?} }}\n\n[workspace]\n\n\
         [profile.release]\nopt-level = 0\ndebug = false\nincremental = false\n",
        root().display().to_string()
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    std::fs::write(dir.join("src/dual.rs"), DUAL_RS).unwrap();
    std::fs::write(dir.join("src/harness.rs"), HARNESS_RS).unwrap();
    let mut lib = String::from(
        "//! Generated by mica's tests/differential.rs: do not edit.\n#![deny(warnings)]\n\
         #![allow(clippy::all)]\n\npub mod dual;\npub mod harness;\n\nuse dual::*;\n\
         use mica::tape;\n",
    );
    lib.push_str(CUSTOM);
    let mut starts = Vec::new();
    for (i, p) in programs.iter().enumerate() {
        lib.push('\n');
        starts.push(lib.lines().count() + 1);
        lib.push_str(&gen::render(p, i));
    }
    let _ = writeln!(lib, "\npub type Run = fn() -> Result<bool, String>;\n");
    let _ = writeln!(lib, "pub const PROGRAMS: [Run; {}] = [", programs.len());
    for i in 0..programs.len() {
        let _ = writeln!(lib, "    p{i}_run,");
    }
    lib.push_str("];\n");
    std::fs::write(dir.join("src/lib.rs"), lib).unwrap();
    let main = r#"//! Generated by mica's tests/differential.rs: do not edit.
#![deny(warnings)]

fn main() {
    std::panic::set_hook(Box::new(|_| {}));
    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    for (i, run) in mica_differential::PROGRAMS.iter().enumerate() {
        match std::panic::catch_unwind(run) {
            Ok(Ok(true)) => passed += 1,
            Ok(Ok(false)) => skipped += 1,
            Ok(Err(e)) => {
                failed += 1;
                println!("FAIL {i}: {e}");
            }
            Err(p) => {
                failed += 1;
                let msg = p
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                println!("FAIL {i}: panic: {msg}");
            }
        }
    }
    println!("{passed} passed, {failed} failed ({skipped} skipped: values not finite)");
}
"#;
    std::fs::write(dir.join("src/main.rs"), main).unwrap();
    starts
}

/// The programs a compiler's diagnostics point into, each with its first
/// error message.
fn blame(stderr: &str, starts: &[usize]) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = Vec::new();
    let mut msg = String::new();
    for line in stderr.lines() {
        if line.starts_with("error") {
            msg = line.to_string();
        }
        let Some(rest) = line.trim_start().strip_prefix("--> src/lib.rs:") else {
            continue;
        };
        let Some(n) = rest.split(':').next().and_then(|n| n.parse::<usize>().ok()) else {
            continue;
        };
        let Some(i) = starts.iter().rposition(|&s| s <= n) else {
            continue;
        };
        if !out.iter().any(|(j, _)| *j == i) {
            out.push((i, msg.clone()));
        }
    }
    out
}

enum Outcome {
    /// (passed, skipped, failures: index and message)
    Ran(usize, usize, Vec<(usize, String)>),
    /// the compiler's diagnostics
    NoBuild(String),
}

/// `cargo VERB --release` on a generated crate, sharing one target folder.
fn cargo(verb: &str, dir: &Path) -> std::process::Output {
    Command::new(env!("CARGO"))
        .args([verb, "--release", "--quiet", "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        .env(
            "CARGO_TARGET_DIR",
            root().join("target/differential/target"),
        )
        .env_remove("RUSTFLAGS")
        .output()
        .expect("cargo runs")
}

fn build_and_run(dir: &Path) -> Outcome {
    let out = cargo("run", dir);
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    let Some(last) = stdout.lines().rev().find(|l| l.contains(" passed, ")) else {
        return Outcome::NoBuild(stderr);
    };
    let n: Vec<usize> = last
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|s| s.parse().ok())
        .collect();
    let fails = stdout
        .lines()
        .filter_map(|l| l.strip_prefix("FAIL "))
        .map(|l| {
            let (i, msg) = l.split_once(": ").unwrap();
            (i.parse().unwrap(), msg.to_string())
        })
        .collect();
    Outcome::Ran(n[0], n[2], fails)
}

/// The kind of a failure: the message up to its first colon.
fn kind(msg: &str) -> String {
    msg.split(':').next().unwrap_or("").to_string()
}

/// Shrinks a program that fails with `msg` (a run-time failure, or a
/// compile error when `compile` is set), keeping the failure's kind, by
/// building all one-step-smaller candidates at once and keeping the smallest
/// that still fails; stops after `rounds` rounds.
fn shrink(
    dir: &Path,
    p: &gen::Program,
    msg: &str,
    compile: bool,
    rounds: usize,
) -> (gen::Program, String) {
    let mut best = (p.clone(), msg.to_string());
    for _ in 0..rounds {
        let mut cands = gen::shrink_candidates(&best.0);
        cands.sort_by_key(gen::size);
        cands.truncate(150);
        if cands.is_empty() {
            break;
        }
        let starts = write_crate(dir, &cands);
        let fails = match (build_and_run(dir), compile) {
            (Outcome::Ran(_, _, fails), false) => fails,
            (Outcome::NoBuild(err), true) => blame(&err, &starts),
            _ => Vec::new(),
        };
        let hit = fails
            .iter()
            .filter(|(_, m)| {
                if compile {
                    m.get(..25) == best.1.get(..25)
                } else {
                    kind(m) == kind(&best.1)
                }
            })
            .min_by_key(|(i, _)| gen::size(&cands[*i]));
        match hit {
            Some((i, m)) if gen::size(&cands[*i]) < gen::size(&best.0) => {
                best = (cands[*i].clone(), m.clone())
            }
            _ => break,
        }
    }
    best
}

/// Runs `programs` (numbered from `first`); programs that do not compile are
/// set aside into `no_build` and the rest rebuilt.
fn run_batch(
    dir: &Path,
    programs: &[gen::Program],
    first: usize,
    no_build: &mut Vec<(usize, String)>,
) -> (usize, usize, Vec<(usize, String)>) {
    let mut live: Vec<usize> = (0..programs.len()).collect();
    loop {
        let ps: Vec<gen::Program> = live.iter().map(|&i| programs[i].clone()).collect();
        let starts = write_crate(dir, &ps);
        match build_and_run(dir) {
            Outcome::Ran(p, s, f) => {
                let f = f.into_iter().map(|(i, m)| (live[i] + first, m)).collect();
                return (p, s, f);
            }
            Outcome::NoBuild(err) => {
                let bad = blame(&err, &starts);
                if bad.is_empty() {
                    panic!("the generated crate does not compile, outside any program:\n{err}");
                }
                eprintln!("{} programs do not compile; setting them aside", bad.len());
                for (i, m) in &bad {
                    no_build.push((live[*i] + first, m.clone()));
                }
                let bad: Vec<usize> = bad.iter().map(|b| b.0).collect();
                live = (0..live.len())
                    .filter(|j| !bad.contains(j))
                    .map(|j| live[j])
                    .collect();
            }
        }
    }
}

#[test]
fn random_programs_agree_with_two_oracles() {
    let start = std::time::Instant::now();
    let seed = env_u64("MICA_DIFF_SEED").unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64
            % 1_000_000_007
    });
    let n = env_u64("MICA_DIFF_PROGRAMS").unwrap_or(300) as usize;
    let batch = env_u64("MICA_DIFF_BATCH").unwrap_or(1000).max(1) as usize;
    println!("differential: seed {seed} (MICA_DIFF_SEED={seed}), {n} programs");
    let programs: Vec<gen::Program> = (0..n)
        .map(|i| gen::generate(seed.wrapping_mul(1_000_003).wrapping_add(i as u64)))
        .collect();
    let base = root().join("target/differential");
    let (mut passed, mut skipped) = (0, 0);
    let mut failures: Vec<(usize, String)> = Vec::new();
    let mut no_build: Vec<(usize, String)> = Vec::new();
    for (b, chunk) in programs.chunks(batch).enumerate() {
        let dir = base.join(format!("{seed}-{b}"));
        let (p, s, f) = run_batch(&dir, chunk, b * batch, &mut no_build);
        passed += p;
        skipped += s;
        failures.extend(f);
    }
    let shrink_dir = base.join(format!("{seed}-shrink"));
    for (k, (i, msg)) in no_build.iter().enumerate() {
        println!("NO BUILD: program {i} (seed {seed}): {msg}");
        if k < 3 {
            let (small, m) = shrink(&shrink_dir, &programs[*i], msg, true, 40);
            println!(
                "minimal program that does not compile ({m}):\n{}\n",
                gen::listing(&small)
            );
        }
    }
    for (k, (i, msg)) in failures.iter().enumerate() {
        println!("FAIL: program {i} (seed {seed}): {msg}");
        if k < 3 {
            let (small, m) = shrink(&shrink_dir, &programs[*i], msg, false, 40);
            println!("minimal failing program ({m}):\n{}\n", gen::listing(&small));
        }
    }
    println!(
        "differential: seed {seed}: {passed} passed, {} failed, {} did not compile, {skipped} \
         skipped (values not finite), in {:.1?}",
        failures.len(),
        no_build.len(),
        start.elapsed()
    );
    assert!(
        failures.is_empty() && no_build.is_empty(),
        "differential testing failed; rerun with MICA_DIFF_SEED={seed}"
    );
}

// ------------------------------------------------------------ regressions
//
// Bugs the generator found, each as the minimal program the shrinker (and a
// little hand work) left. Each builds a one-file crate with
// `#![deny(warnings)]` and asserts it compiles; the generator steers around
// each `#[ignore]`d one (see the comments that point here in
// `differential/gen.rs`).

/// Builds `src` (after `#![deny(warnings)] use mica::tape;`) as a library;
/// `Err` holds the diagnostics.
fn build_snippet(name: &str, src: &str) -> Result<(), String> {
    let dir = root().join("target/differential/regressions").join(name);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let manifest = format!(
        "[package]\nname = \"regression-{name}\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\
         publish = false\n\n[dependencies]\nmica = {{ path = {:?} }}\n\n[workspace]\n",
        root().display().to_string()
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    let lib = format!("#![deny(warnings)]\nuse mica::tape;\n\n{src}");
    std::fs::write(dir.join("src/lib.rs"), lib).unwrap();
    let out = cargo("build", &dir);
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).to_string())
    }
}

fn assert_builds(name: &str, src: &str) {
    if let Err(e) = build_snippet(name, src) {
        panic!("{name} does not compile:\n{src}\n{e}");
    }
}

#[test]
fn regression_shadowing_in_a_block_warns_unused_variable() {
    // (fixed) plain Rust: no warning. Was: `error: unused variable: `u``
    // (denied warning) pointing at the second `let u`.
    assert_builds(
        "shadow_in_block",
        "#[tape]\npub fn f(#[tracked] x: f64) -> f64 {\n    \
         let t = {\n        let u = x * 2.0;\n        let u = u.sin() * 0.5 + x;\n        u\n    };\n    \
         t\n}\n",
    );
}

#[test]
fn regression_method_call_on_dereferenced_iter_element() {
    // (fixed) Expected: compiles (`*a * 2.0` and `a.sin()` do). Observed:
    // error[E0614]: type `f64` cannot be dereferenced, at `#[tape]`.
    assert_builds(
        "deref_receiver",
        "#[tape]\npub fn f(#[tracked] w: &[f64; 3]) -> f64 {\n    let mut s = 0.0_f64;\n    \
         for a in w.iter() {\n        s += (*a).sin() + (*a).max(s);\n    }\n    s\n}\n",
    );
}

#[test]
fn regression_control_flow_at_the_end_of_a_match_arm() {
    // (fixed) Expected: compiles (it does with a `;` after the `if`, or another
    // statement after it). Observed: `error: expected expression, found `;``
    // at `#[tape]`, for each of the three.
    assert_builds(
        "flow_ends_match_arm",
        "#[tape]\npub fn f(#[tracked] x: f64, k: usize) -> f64 {\n    let mut t = x;\n    \
         match k {\n        0 => {\n            if x > 0.0 {\n                t *= x;\n            }\n        }\n        \
         _ => {}\n    }\n    t\n}\n\n\
         #[tape]\npub fn g(#[tracked] x: f64, k: usize) -> f64 {\n    let mut t = x;\n    \
         match k {\n        0 => {\n            t += x;\n            for _ in 0..2 {\n                t *= x;\n            }\n        }\n        \
         _ => {}\n    }\n    t\n}\n\n\
         #[tape]\npub fn h(#[tracked] x: f64, k: usize) -> f64 {\n    let mut t = x;\n    \
         match k {\n        0 => {\n            if t > 0.5 {\n                return t;\n            }\n        }\n        \
         _ => {\n            t += 1.0;\n        }\n    }\n    t\n}\n",
    );
}

#[test]
fn regression_arrays_of_slope_zero_recorded_values() {
    // (fixed) Expected: compiles, slope 0 (`trunc` has slope 0; `[x, x.trunc()]`
    // compiles). Observed, one per function:
    // - `a recorded value is passed to the macro `vec!`, which is outside the
    //   recorded vocabulary`
    // - `this expression on a recorded value is outside the recorded
    //   vocabulary`
    // - `a recorded value is written into an array made inside the window`
    //   (twice; in the function form, where there is no window)
    assert_builds(
        "slope_zero_arrays",
        "#[tape]\npub fn f(#[tracked] x: f64) -> f64 {\n    let v = vec![0.5_f64, x.trunc()];\n    \
         v[0] + v[1]\n}\n\n\
         #[tape]\npub fn g(#[tracked] x: f64) -> f64 {\n    let v = [0.5_f64, x.trunc()];\n    \
         v[0] + v[1] + x\n}\n\n\
         #[tape]\npub fn h(#[tracked] x: f64) -> f64 {\n    let mut h = [0.0_f64; 2];\n    \
         h[1] = x.trunc();\n    h[0] + h[1] + x\n}\n\n\
         #[tape]\npub fn i(#[tracked] x: f64) -> f64 {\n    let mut h = [0.0_f64; 3];\n    \
         h[0] = if x > 0.5 { 0.07 } else { 1.0 };\n    h[0] + x\n}\n",
    );
}

#[test]
fn regression_loop_carried_from_untracked_start_times_slope_zero() {
    // Observed: `t` carries a recorded value from one iteration to the next
    // in a way Mica cannot follow; start it from a recorded value before the
    // loop. The README does not list this wall; `t *= w[i]` compiles.
    assert_builds(
        "loop_carried_slope_zero",
        "#[tape]\npub fn f(#[tracked] w: &[f64; 2], c: f64) -> f64 {\n    let mut t = c;\n    \
         let mut i = 0;\n    while i < 2 {\n        t *= (-w[i]).round();\n        i += 1;\n    }\n    \
         t\n}\n",
    );
}

#[test]
fn regression_two_way_branch_at_the_end_of_a_branch() {
    // (fixed) Expected: compiles (it does with a `;` after the inner statement, or a
    // statement after it; an `if` without `else` or a loop there compiles).
    // Observed: `error[E0282]: type annotations needed` at `#[tape]`, for a
    // `match` ending a match arm (`f`), for a `match` ending both blocks of
    // an `if`/`else` (`g`; ending only one of them compiles), and for an
    // `if`/`else` ending a match arm (`h`).
    assert_builds(
        "match_ends_branch",
        "#[tape]\npub fn f(#[tracked] x: f64, k: usize) -> f64 {\n    let mut t = x;\n    \
         match k {\n        0 => {\n            match k {\n                0 => {\n                    t += x;\n                }\n                \
         _ => {\n                    t *= x;\n                }\n            }\n        }\n        \
         _ => {\n            t -= x;\n        }\n    }\n    t\n}\n\n\
         #[tape]\npub fn g(#[tracked] x: f64, k: usize) -> f64 {\n    let mut t = x;\n    \
         if x > 0.0 {\n        match k {\n            0 => t += x,\n            _ => {}\n        }\n    \
         } else {\n        match k {\n            0 => t *= x,\n            _ => {}\n        }\n    }\n    t\n}\n\n\
         #[tape]\npub fn h(#[tracked] x: f64, k: usize) -> f64 {\n    let mut t = x;\n    \
         match k {\n        0 => {\n            if x > 0.5 {\n                t *= x;\n            } else {\n                \
         t += x;\n            }\n        }\n        _ => {}\n    }\n    t\n}\n",
    );
}

#[test]
fn regression_method_call_inside_a_loop_or_a_branch() {
    // (fixed) Expected: compiles (the same call outside the loop or the branch
    // does, and so does a free `#[tape]` function's). Observed:
    // - in a `for` or `while` body: `error[E0425]: cannot find value
    //   `__mica_c8` in this scope` at `#[tape]`;
    // - in an `if` or `match` (statement or value): `error[E0277]: the trait
    //   bound `&&P: mica::__private::Placeholder` is not satisfied` (`&P`
    //   when the receiver is passed by value), and likewise after an
    //   `if … { return …; }` (the call then runs only if the `return` was
    //   not taken).
    let method = "pub struct P {\n    s: f64,\n}\n\nimpl P {\n    #[tape]\n    \
                  pub fn m(&self, #[tracked] a: f64, #[tracked] b: f64) -> f64 {\n        \
                  a * b + self.s\n    }\n}\n\n";
    assert_builds(
        "method_in_loop",
        &format!(
            "{method}#[tape]\npub fn f(#[tracked] x: f64, o: &P) -> f64 {{\n    let mut t = x;\n    \
             for _ in 0..3 {{\n        t += o.m(t, x);\n    }}\n    t\n}}\n"
        ),
    );
    assert_builds(
        "method_in_branch",
        &format!(
            "{method}#[tape]\npub fn f(#[tracked] x: f64, o: &P) -> f64 {{\n    let mut t = x;\n    \
             if x > 0.0 {{\n        t += o.m(x, x);\n    }}\n    t\n}}\n"
        ),
    );
    assert_builds(
        "method_after_return",
        &format!(
            "{method}#[tape]\npub fn f(#[tracked] x: f64, o: &P) -> f64 {{\n    let mut t = x;\n    \
             if x > 0.5 {{\n        return x;\n    }}\n    t += o.m(x, x);\n    t\n}}\n"
        ),
    );
}

#[test]
fn regression_block_with_a_let_inside_an_array() {
    // (fixed) Expected: compiles (the block outside the array does, and so does
    // `[{ let u = x; u.sin() }, x]`). Observed: `error: an array of recorded
    // values is made by `let`: `let h = [a, b];``, which names no `let` of
    // the program, for `vec![{ let u = x; … }]` and for an array literal
    // whose element holds the block deeper (`[(-{ let u = x; … }).tanh()]`).
    assert_builds(
        "block_in_vec",
        "#[tape]\npub fn f(#[tracked] x: f64) -> f64 {\n    \
         let v = vec![{\n        let u = x;\n        u.sin() * 0.5 + 1.0\n    }];\n    v[0]\n}\n",
    );
    assert_builds(
        "block_in_array",
        "#[tape]\npub fn f(#[tracked] x: f64) -> f64 {\n    \
         let h = [(-{\n        let u = x;\n        u.sin()\n    }).tanh(), 0.5];\n    h[0] + h[1]\n}\n",
    );
}

#[test]
fn regression_array_write_in_a_loop_over_a_local_iter() {
    // (fixed) Expected: compiles (it does over a knob's `.iter()`, and when the
    // written value does not read the element). Observed: `error: a
    // recorded value is written into an array made inside the window`, in
    // the function form too (where there is no window).
    assert_builds(
        "write_in_local_iter",
        "#[tape]\npub fn f(#[tracked] x: f64) -> f64 {\n    let mut h = [0.0_f64; 3];\n    \
         let v = vec![x.tanh(), x];\n    for a in v.iter() {\n        h[0] += *a * 2.0;\n    }\n    \
         h[0]\n}\n",
    );
}
