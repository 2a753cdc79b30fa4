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
//! About a third of the programs also have one to three unmarked helpers of
//! a block (`#[tape] mod`): each takes scalars, `[f64; 3]` by value (now and
//! then `mut` and changed), `&[f64; 3]`, slices read below their least
//! length and over `.len()`, and `&mut [f64; 3]` / `&mut [f64]`
//! out-parameters it writes; returns a scalar (now and then as an untyped
//! `[v].iter().sum()`), an array, a tuple or nothing;
//! its body is the generator's statements over its own parameters (loops,
//! branches, local arrays, an early `return`, calls to the helpers before
//! it). The body calls them with recorded values, knobs (`w`, `&w`, `*w`),
//! local arrays (`&h`, `&mut h`), results (`r`, `&r`), sub-slices
//! (`&w[1..3]`, `&mut h[0..2]`), the same array twice, array literals and
//! constants; a scalar result in expressions, an array one as `let r = …;`
//! read `r[i]`, a tuple as `let (p, q) = …;`. The function is then written
//! inside `#[tape] pub mod p{id}_b { … }` with its helpers (its plain twin
//! inside `#[tape(plain)] pub mod p{id}_bq`), and the dual numbers call
//! plain copies of the helpers.
//!
//! Expressions may be iterator chains over the arrays in scope or over a
//! literal of the scope's values (`x.iter()`, `[t1, 0.5, t3].iter()`,
//! `.zip(y.iter())`, `.rev()`, `.skip(1)`, `.take(n)`, `.step_by(k)`,
//! `.enumerate()` (then `.rev()`), `.filter(|v| **v > c)`, `.map(|…| e)` or
//! `.copied().map(f)`, then `.sum()`, `.product()`, `.fold(init, …)`,
//! `.fold(f64::NEG_INFINITY, f64::max)`, `.min_by(…).unwrap()` or
//! `.collect()` into a `Vec` whose ends are read), whose
//! closures read the values around them (and may hold chains of their
//! own, in both forms); and the body may bind closures
//! (`let f = |x: f64| …;`), called and passed to `map`. The dual numbers'
//! twin writes each chain as the loop it is, so the two oracles share
//! nothing of Mica's lowering of chains.
//!
//! About one program in seven is written entirely in `f32` (parameters,
//! knobs, literals, the helpers, the method, the custom rule). About one
//! in seven is written generic over its float, as generic numeric Rust is
//! (`fn p_f<T: mica::Real>(…)`, its helpers and block helpers generic too,
//! literals `T::from(0.5).unwrap()`, `T::neg_infinity()`, `T::max`, a
//! `min_by` through `partial_cmp`; no method and no custom rule, which are
//! of one float), and used at `f64` or `f32` by the harness.
//!
//! About one program in five tracks its knobs as the fields of one
//! `#[derive(mica::Knob)]` struct (`Vec` fields for slices; generic in a
//! generic program; with an even number of knobs, the second half in a
//! nested struct): `#[tracked] kn: &P{id}K` in the function form, named
//! once by `let` in the body, or a window's `#[tracked] let kn: P{id}K`
//! and `gradient!(kn)`. It passes the struct whole to a second `#[tape]`
//! function (`p{id}_s(kn, cp)`), or, in half of them, calls a method of the
//! struct's own `#[tape] impl` with `#[tracked] &self` (`kn.s(cp)`, with an
//! array out in half of those, read `kn.s(cp)[0]`). The plain adjoint keeps
//! one parameter per knob, so the struct form is checked against the
//! field-by-field one.
//! `MICA_DIFF_NO_STRUCTS` writes the same programs without the struct.
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
//! (`MICA_DIFF_ONLY=3,17` runs only those programs of the seed's, `a..b` a
//! range of them, one shard of a long run;
//! `MICA_DIFF_SHRINK=0` prints failing programs unshrunk, and writes the
//! last alone into `target/differential/<seed>-shrink`; `MICA_DIFF_WRITE=1`
//! only writes the crate, into `target/differential/<seed>-written`;
//! `MICA_DIFF_SHRINK_BATCH` caps the candidates built per round, default
//! 150; programs
//! are compiled in crates of at most `MICA_DIFF_BATCH`, default
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
    lib.push_str(gen::BOUNDS);
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
    if rounds == 0 {
        // the program alone, to build by hand
        write_crate(dir, std::slice::from_ref(p));
    }
    for _ in 0..rounds {
        let mut cands = gen::shrink_candidates(&best.0);
        cands.sort_by_key(gen::size);
        cands.truncate(env_u64("MICA_DIFF_SHRINK_BATCH").unwrap_or(150) as usize);
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
    // `MICA_DIFF_ONLY=3,17` runs only those programs of the seed's (their
    // numbers stay those of the full run), to look at them again
    let picked: Vec<usize> = match std::env::var("MICA_DIFF_ONLY") {
        Ok(only) => only
            .split(',')
            .flat_map(|s| match s.trim().split_once("..") {
                // `a..b`: a shard of a long run
                Some((a, b)) => match (a.parse(), b.parse()) {
                    (Ok(a), Ok(b)) => (a..b).collect(),
                    _ => Vec::new(),
                },
                None => s.trim().parse().ok().into_iter().collect(),
            })
            .collect(),
        Err(_) => (0..n).collect(),
    };
    let programs: Vec<gen::Program> = picked
        .iter()
        .map(|&i| gen::generate(seed.wrapping_mul(1_000_003).wrapping_add(i as u64)))
        .collect();
    let base = root().join("target/differential");
    if std::env::var("MICA_DIFF_WRITE").is_ok() {
        // only write the crate, to build by hand
        let dir = base.join(format!("{seed}-written"));
        write_crate(&dir, &programs);
        println!("written: {}", dir.display());
        return;
    }
    let (mut passed, mut skipped) = (0, 0);
    let mut failures: Vec<(usize, String)> = Vec::new();
    let mut no_build: Vec<(usize, String)> = Vec::new();
    for (b, chunk) in programs.chunks(batch).enumerate() {
        let dir = base.join(format!("{seed}-{b}"));
        let (p, s, f) = run_batch(&dir, chunk, b * batch, &mut no_build);
        passed += p;
        skipped += s;
        failures.extend(f);
        if programs.len() > batch {
            println!(
                "differential: seed {seed}: batch {b}: {} programs so far, {} failed, {} did \
                 not compile, in {:.1?}",
                (b * batch + chunk.len()),
                failures.len(),
                no_build.len(),
                start.elapsed()
            );
        }
    }
    let shrink_dir = base.join(format!("{seed}-shrink"));
    // `MICA_DIFF_SHRINK=0` prints the failing programs as generated
    let rounds = env_u64("MICA_DIFF_SHRINK").unwrap_or(40) as usize;
    for (k, (i, msg)) in no_build.iter().enumerate() {
        println!("NO BUILD: program {} (seed {seed}): {msg}", picked[*i]);
        if k < 3 {
            let (small, m) = shrink(&shrink_dir, &programs[*i], msg, true, rounds);
            println!(
                "minimal program that does not compile ({m}):\n{}\n",
                gen::listing(&small)
            );
        }
    }
    for (k, (i, msg)) in failures.iter().enumerate() {
        println!("FAIL: program {} (seed {seed}): {msg}", picked[*i]);
        if k < 3 {
            let (small, m) = shrink(&shrink_dir, &programs[*i], msg, false, rounds);
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
    // (fixed) Expected: compiles (`*a * 2.0` and `a.sin()` do). Was:
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
    // statement after it). Was: `error: expected expression, found `;``
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
    // compiles). Was, one per function:
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
    // Was: `t` carries a recorded value from one iteration to the next
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
    // Was: `error[E0282]: type annotations needed` at `#[tape]`, for a
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
    // does, and so does a free `#[tape]` function's). Was:
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
    // `[{ let u = x; u.sin() }, x]`). Was: `error: an array of recorded
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
    // written value does not read the element). Was: `error: a
    // recorded value is written into an array made inside the window`, in
    // the function form too (where there is no window).
    assert_builds(
        "write_in_local_iter",
        "#[tape]\npub fn f(#[tracked] x: f64) -> f64 {\n    let mut h = [0.0_f64; 3];\n    \
         let v = vec![x.tanh(), x];\n    for a in v.iter() {\n        h[0] += *a * 2.0;\n    }\n    \
         h[0]\n}\n",
    );
}

// The block form's helpers (`#[tape] mod`): faults the generator's block
// helpers found, each fixed (their slopes are checked in
// tests/regressions.rs, tests/helpers.rs and tests/iterators.rs).

#[test]
fn regression_helper_iterates_a_sub_slice() {
    // Expected: compiles (the helper called with the whole knob, `u(w)`,
    // does). Was: `error: iterate over recorded values with a range,
    // `.iter()`, `.iter().enumerate()` or `.zip(…)`` at the arguments
    // `&w[0..2]` and `&w[1..]`, though the helper iterates with `.iter()`.
    assert_builds(
        "helper_iter_sub_slice",
        r#"#[tape]
pub mod a {
    pub fn u(s: &[f64]) -> f64 {
        let mut t = 0.0;
        for x in s.iter() {
            t += *x;
        }
        t
    }
    pub fn f(#[tracked] w: &[f64; 3]) -> f64 {
        u(&w[0..2])
    }
    pub fn g(#[tracked] w: &[f64]) -> f64 {
        u(&w[1..])
    }
}
"#,
    );
}

#[test]
fn regression_helper_leaves_a_borrowed_parameter_unread() {
    // Expected: compiles (as plain Rust it has no warning: the call uses the
    // argument, the `&mut` borrow needs the `mut`). Was, from the
    // expansion, denied warnings:
    // - `unused variable: `w`` (`f`: the helper does not read `_s`);
    // - `variable does not need to be mutable` (`g`, `h`: a local passed as
    //   `&mut` to a helper that does not write it, unread or only read);
    // - `value assigned to `h12` is never read` (`k`: a local the helper
    //   writes through `&mut` in a loop, read no more).
    assert_builds(
        "helper_unread_borrow",
        r#"#[tape]
pub mod a {
    pub fn u0(x0: f64, _s: &[f64]) -> f64 {
        x0 * 2.0
    }
    pub fn u1(y: &mut [f64; 3], _z: &mut [f64]) {
        y[0] += 0.5;
    }
    pub fn u2(z: &mut [f64]) -> f64 {
        z[0] * 2.0
    }
    pub fn f(#[tracked] x: f64, #[tracked] w: &[f64; 4]) -> f64 {
        u0(x, w)
    }
    pub fn g(#[tracked] x: f64) -> f64 {
        let mut h1 = [0.0_f64; 3];
        let mut h2 = [x; 3];
        u1(&mut h2, &mut h1);
        h1[0] + h2[0]
    }
    pub fn h(#[tracked] x: f64) -> f64 {
        let mut h1 = [x; 3];
        u2(&mut h1) + h1[1]
    }
    pub fn u3(z0: &mut [f64], y1: &mut [f64; 3], a2: &[f64; 3]) -> f64 {
        z0[2] += 0.25_f64;
        y1[2] += a2[0] * 0.25_f64;
        a2[1]
    }
    pub fn u4(a0: &[f64; 3], z1: &mut [f64]) -> f64 {
        for _i in 0..z1.len() {
            let mut h12 = [0.0_f64; 3];
            if a0[0] < -0.37_f64 {
                break;
            }
            let mut h13 = [0.0_f64; 3];
            let _t14 = u3(&mut h12, &mut h13, a0);
        }
        z1[0] += 0.25;
        a0[2]
    }
    pub fn k(#[tracked] w: &[f64; 3]) -> f64 {
        let mut h = [0.0_f64; 3];
        u4(w, &mut h) + h[0]
    }
}
"#,
    );
}

#[test]
fn regression_array_copied_from_an_array() {
    // Expected: compiles. A helper's by-value array parameter (`mut v:
    // [f64; 3]`) called with a named array is a copy, `let mut v = h;`, and
    // Mica does not take the copy for an array of its own. Was:
    // - `a recorded value is written into an array whose elements are not
    //   recorded: the lines after its `let` write no recorded value into it
    //   where Mica can see; …` at a write into the copy (`e1`; in `a::f`,
    //   through an out-slice `&mut v[1..2]` of a nested helper);
    // - `std::mem::swap` of recorded values swaps two arrays or two scalars
    //   bound to names: …` at `std::mem::swap(&mut v, &mut g)` (`d1`,
    //   `b::f`).
    // `let mut v: [f64; 3] = [0.0; 3];` in place of the copy compiles.
    assert_builds(
        "array_copy",
        r#"#[tape]
pub fn e1(#[tracked] x0: f64) -> f64 {
    let h = [0.0_f64; 3];
    let mut v = h;
    v[1] = x0.tanh();
    v[0] + v[1]
}

#[tape]
pub fn d1(#[tracked] x0: f64) -> f64 {
    let h = [0.0_f64; 3];
    let mut v = h;
    let mut g = [0.0_f64; 3];
    g[1] = x0;
    std::mem::swap(&mut v, &mut g);
    g[0] + v[1]
}

#[tape]
pub mod a {
    pub fn wr(x0: f64, z: &mut [f64]) {
        for i in 0..z.len() {
            z[i] = x0.tanh();
        }
    }
    pub fn outer(x0: f64, mut v: [f64; 3]) -> f64 {
        wr(x0, &mut v[1..2]);
        v[0] + v[1]
    }
    pub fn f(#[tracked] x: f64) -> f64 {
        let h = [0.0_f64; 3];
        outer(x, h)
    }
}

#[tape]
pub mod b {
    pub fn outer(x0: f64, mut v: [f64; 3]) -> f64 {
        let mut g = [0.0_f64; 3];
        g[1] = x0;
        std::mem::swap(&mut v, &mut g);
        g[0] + v[1]
    }
    pub fn f(#[tracked] x: f64) -> f64 {
        let h = [0.0_f64; 3];
        outer(x, h)
    }
}
"#,
    );
}

#[test]
fn regression_helper_returns_an_array_early() {
    // Expected: compiles (a helper returning a tuple or a scalar early
    // does). Was: `a branch changes a tuple binding made before it;
    // bind the tuple's fields to names of their own before the branch` at
    // `#[tape]`, and `only arrays, slices and `Vec`s of recorded values can
    // be indexed` at `r[0]`; in the window form (`w`) also a type error at
    // `#[tape]` (`error[E0368]: binary assignment operation `+=` cannot be
    // applied to type `[f64; 3]``, lately `error[E0283]: type annotations
    // needed`). (The generator saw `expected expression, found `;`` too,
    // for a constant argument and a `return` in nested loops.)
    assert_builds(
        "helper_array_return",
        r#"#[tape]
pub mod a {
    pub fn u(x0: f64) -> [f64; 3] {
        if x0 > 0.3 {
            return [x0, 1.0, 2.0];
        }
        [x0 * 2.0, x0, 0.5]
    }
    pub fn f(#[tracked] x0: f64) -> f64 {
        let r = u(x0);
        r[0] + r[1]
    }
    pub fn w(x_in: f64) -> (f64, f64) {
        #[tracked]
        let x0: f64 = x_in;
        tape! {
            let r = u(x0);
            let out = r[0] + x0;
        }
        backward!(out);
        (out, gradient!(x0))
    }
}
"#,
    );
}

#[test]
fn regression_len_loop_in_a_branch() {
    // Expected: compiles (it does outside the branch, and over `0..3`).
    // Was: `error[E0277]: the trait bound `std::ops::Range<usize>:
    // mica::__private::Placeholder` is not satisfied` at `#[tape]`, in the
    // function form (`f`), for a helper writing its out-slice so, called in
    // a branch (`b::f`), and for a helper reading its slice so after an
    // early `return`, called with an array literal (`c::f`).
    assert_builds(
        "len_loop_in_branch",
        r#"#[tape]
pub fn f(#[tracked] v: &[f64]) -> f64 {
    let mut h = [v[0], 0.5, 0.5];
    if v[1] < -0.39_f64 {
        for i in 0..h.len() {
            h[i] += 1.0;
        }
    }
    h[0]
}

#[tape]
pub mod b {
    pub fn u(z: &mut [f64]) {
        for i in 0..z.len() {
            z[i] += 1.0;
        }
    }
    pub fn f(#[tracked] v: &[f64]) -> f64 {
        let mut h = [v[0], 0.5, 0.5];
        if v[1] < -0.39_f64 {
            u(&mut h);
        }
        h[0]
    }
}

#[tape]
pub mod c {
    pub fn u(x: f64, s: &[f64]) -> f64 {
        if x > 0.3 {
            return x * 0.05;
        }
        let mut t = x;
        for i in 0..s.len() {
            t += s[i];
        }
        t
    }
    pub fn f(#[tracked] x: f64, cp: f64) -> f64 {
        u(x, &[cp, 0.1, 0.38])
    }
}
"#,
    );
}

#[test]
fn regression_closure_binds_names_with_underscores() {
    // Expected: compiles under `#![deny(warnings)]`. Was: `variable
    // `__mica__k14_6` should have a snake case name` (seed 20261204): the
    // names a chain's loop gives a closure's bindings kept the user's
    // leading (or trailing) underscore next to their own.
    assert_builds(
        "closure_underscore_names",
        r#"#[tape]
pub fn f(#[tracked] x0: f64, s2: &[f64]) -> f64 {
    let h5 = [0.0_f64; 3];
    let t8 = h5.iter().zip(h5.iter()).map(|(&_v9, &w10)| { let u15 = (0.59_f64 + x0).tanh(); let u15 = u15.sin() * 0.5_f64 + s2.iter().enumerate().map(|(_k14, &_v12)| -0.06_f64).fold(w10.tanh(), |acc, x| acc * 0.5_f64 + x); u15 }).sum::<f64>().tanh();
    let b: f64 = h5.iter().map(|&x_| h5.iter().map(|&y_| y_ * x0).sum::<f64>() * x_).sum();
    t8 + b
}
"#,
    );
}

#[test]
fn regression_helper_passes_on_a_dereferenced_borrow() {
    // A helper passing `*a3` on by value, called with a reference the
    // caller holds (`u(w)`, `w: &[f64; 3]`): was `expected `[f64; 3]`,
    // found `&[f64; 3]`` at `w`; `*a3` now reads what `w` refers to.
    // (`u(&w)`, a needless borrow of a reference, stays rustc's error at
    // `w`, whose hint `u(&*w)` compiles.)
    assert_builds(
        "helper_deref_borrow",
        r#"#[tape]
pub mod a {
    pub fn u0(v3: [f64; 3]) -> f64 {
        v3[0] * v3[1]
    }
    pub fn u(a3: &[f64; 3]) -> f64 {
        u0(*a3)
    }
    pub fn f(#[tracked] w: &[f64; 3]) -> f64 {
        u(w) + u(&*w)
    }
}
"#,
    );
}

#[test]
fn regression_helper_parameter_named_as_a_window_binding() {
    // Expected: compiles (the function form of the same lines does; so does
    // the window with the helper's parameter renamed). A helper's `mut x0`
    // changed in its body, called in a window's loop that a `break` may
    // leave, where a later `let x0` shadows the tracked `x0`. Was:
    // `error: `x0` carries a recorded value from one iteration to the next
    // in a way Mica cannot follow; start it from a recorded value before
    // the loop` at the helper's `x0 /= 1.0` (seed 44, program 54).
    assert_builds(
        "helper_param_window_shadow",
        r#"#[tape]
pub mod a {
    pub fn u(mut x0: f64, y2: &mut [f64; 3]) {
        x0 /= 1.0_f64;
        y2[0] += x0.tanh();
    }
    pub fn f(x0_in: f64) -> (f64, f64) {
        #[tracked]
        let x0: f64 = x0_in;
        tape! {
            let mut t15 = 0.5_f64;
            let t23 = t15 * x0;
            for _i25 in 0..2 {
                if t23 > (-0.21_f64) {
                    break;
                }
                let mut h27 = [0.0_f64; 3];
                u(0.5_f64, &mut h27);
                let x0 = x0 * 0.5_f64 + 0.5_f64;
                t15 += x0.tanh() * 0.1_f64;
            }
            let out = t15;
        }
        backward!(out);
        (out, gradient!(x0))
    }
}
"#,
    );
}

/// A helper's by-value parameter named as the entry point's tracked one
/// (`x0`) and changed in the helper, reached through a helper that calls it
/// in a loop, inside an array literal in a branch (seed 41, program 56).
#[allow(dead_code)]
#[mica::tape]
mod shadowed_parameter {
    pub fn u0(mut x0: f64, y1: &mut [f64; 3]) {
        x0 += 0.1_f64;
        y1[0] += x0.tanh();
    }
    pub fn u1(x3: f64) -> f64 {
        let mut h29 = [0.0_f64; 3];
        for _i in 0..3 {
            u0(x3, &mut h29);
        }
        h29[0]
    }
    pub fn f(#[tracked] x0: f64, cp: f64) -> f64 {
        let h45 = if cp < 0.2 {
            [0.22_f64, 0.3]
        } else {
            [0.96_f64, u1(0.42_f64)]
        };
        h45[1] + x0
    }
}

#[test]
fn regression_helper_parameter_named_as_the_tracked_one() {
    // Expected: slope 1 (`f` is a constant plus `x0`). Was: slope 0,
    // in `#[tape]` and `#[tape(plain)]` alike; with the helper's parameter
    // renamed (`mut q: f64`), outside the branch, or without the loop in
    // `u1`, the slope is 1.
    let (y, g) = shadowed_parameter::f_grad(-1.26, 0.5);
    assert_eq!(y, shadowed_parameter::f(-1.26, 0.5));
    assert_eq!(g, 1.0, "d/dx0 of a constant plus x0");
}

/// A helper's borrow renewed in a loop from a `Vec` of constants filled by
/// push to a recorded `Vec` (seed 892178097, program 198).
#[mica::tape]
pub mod lent_pushed {
    pub fn u(v0: [f64; 3], x1: f64, mut x3: f64) -> f64 {
        let mut h8 = Vec::with_capacity(3);
        for k in (0..3).rev() {
            h8.push(((k as f64) + 0.76) * (-0.51 + v0[0] * 0.25));
        }
        let h7 = vec![x1.tanh() + v0[0] * 0.25; 3];
        let mut h5: &[f64] = &h8;
        for _ in 0..2 {
            x3 += h5[1].tanh() * 0.1;
            h5 = &h7;
            x3 += h5[0].tanh() * 0.1;
        }
        x3 + h5[1].tanh() * 0.1
    }
    pub fn f(w_in: &[f64; 2]) -> (f64, Vec<f64>) {
        #[tracked]
        let w: [f64; 2] = *w_in;
        tape! {
            let h = [0.0_f64; 3];
            let out = u(h, w[1], 0.85) * w[0];
        }
        backward!(out);
        (out, gradient!(w).to_vec())
    }
}

#[test]
fn regression_helper_lends_a_pushed_vec_of_constants() {
    // Expected: compiles, the slopes finite differences give. Was: "`h5`
    // holds a recorded array after an iteration of this loop, but where
    // it is bound its value is no array Mica knows".
    for at in [[0.5, 0.3], [-1.2, 0.8]] {
        let (_, g) = lent_pushed::f(&at);
        mica::check::check_gradient(|p: &[f64]| lent_pushed::f(&[p[0], p[1]]).0, &at, &g).unwrap();
    }
}

/// The generator writes views, loops over chunks and windows, and loops
/// over `iter_mut`, each in some of a run's programs (with `enumerate`, and a view's chunk of a
/// length that varies), so the differential run checks them.
#[test]
fn the_generator_writes_views_and_chunk_loops() {
    let texts: Vec<String> = (0..300)
        .map(|i| gen::render(&gen::generate(7_000_003 * 11 + i), i as usize))
        .collect();
    let count = |what: &str| texts.iter().filter(|t| t.contains(what)).count();
    // programs with a line (its indent trimmed) that `is` accepts
    let with_line = |is: &dyn Fn(&str) -> bool| {
        texts
            .iter()
            .filter(|t| t.lines().any(|l| is(l.trim_start())))
            .count()
    };
    let views = texts
        .iter()
        .filter(|t| {
            t.lines()
                .any(|l| l.contains("let ") && l.contains(" = &") && l.contains(".."))
        })
        .count();
    let shifted = texts
        .iter()
        .filter(|t| {
            t.lines().any(|l| {
                l.contains("let ") && l.contains(" = &") && l.contains("..") && l.contains(" + ")
            })
        })
        .count();
    for (what, n) in [
        ("a view", views),
        ("a view shifted by a loop's index", shifted),
        (
            "a copy of a part",
            texts
                .iter()
                .filter(|t| {
                    t.lines()
                        .any(|l| l.contains("let v") && l.contains("].to_vec();"))
                })
                .count(),
        ),
        // a window of neighbours over an array its loop's body makes
        ("a window over an array made in the loop", count("let nb")),
        ("chunks_exact", count(".chunks_exact(")),
        ("windows", count(".windows(")),
        ("chunks", count(".chunks(")),
        (
            "iter_mut",
            texts
                .iter()
                .filter(|t| {
                    t.lines()
                        .any(|l| l.contains(".iter_mut()") && !l.contains(".zip(t)"))
                })
                .count(),
        ),
        ("split_at", count(".split_at(")),
        ("reduce", count(".reduce(")),
        ("Vecs swapped by a tuple", count(") = (h")),
        (
            "a Vec made anew whole",
            with_line(&|l| {
                !l.starts_with("let ")
                    && (l.ends_with(".to_vec();") || l.ends_with(".clone();"))
                    && !l.contains("..")
            }),
        ),
        (
            "a Vec made anew from a part",
            with_line(&|l| {
                !l.starts_with("let ") && l.contains(" = ") && l.ends_with("].to_vec();")
            }),
        ),
        ("an array destructured", count("let [")),
        ("a model's method on the tracked struct", count("kn.s(")),
        (
            "a model's method with an array out",
            with_line(&|l| l.contains("kn.s(") && l.contains(")[0]")),
        ),
        ("get, copied and unwrap_or", count(".copied().unwrap_or(")),
        (
            "an element by get",
            with_line(&|l| {
                l.starts_with("if let Some(") && l.contains(".get(") && !l.contains("..")
            }),
        ),
        (
            "a part by get",
            with_line(&|l| {
                l.starts_with("if let Some(") && l.contains(".get(") && l.contains("..")
            }),
        ),
        ("a zip's pair named whole", count(".0) * (*")),
        ("a matrix's row passed on from a chain", count("_r(v")),
        ("a zip of a zip", count(", _))|")),
        (
            "a chunk named as its array",
            with_line(&|l| {
                [".chunks(", ".chunks_exact(", ".windows("].iter().any(|c| {
                    l.match_indices(c).any(|(at, _)| {
                        // `x.chunks(2).map(|x| …)`: the array's name, the
                        // closure's parameter
                        let name: String = l[..at]
                            .chars()
                            .rev()
                            .take_while(|ch| ch.is_alphanumeric() || *ch == '_')
                            .collect::<Vec<char>>()
                            .into_iter()
                            .rev()
                            .collect();
                        !name.is_empty()
                            && (l[at..].contains(&format!("|{name}|"))
                                || l[at..].contains(&format!(", {name})|")))
                    })
                })
            }),
        ),
        ("a zip with a neighbour", count(".iter().skip(1))")),
        ("a sign test", count(").is_sign_negative()")),
        (
            "an end through an iterator",
            texts
                .iter()
                .filter(|t| {
                    t.contains(".iter().last().unwrap()") || t.contains(".iter().next().unwrap()")
                })
                .count(),
        ),
        (
            "any or all as a test",
            texts
                .iter()
                .filter(|t| t.contains(".iter().any(|&val|") || t.contains(".iter().all(|&val|"))
                .count(),
        ),
        (
            "a match by a guard",
            texts
                .iter()
                .filter(|t| {
                    t.lines()
                        .any(|l| l.contains("match ") && l.contains(" if ") && l.contains(" > "))
                })
                .count(),
        ),
        (
            "a match on an element by get",
            with_line(&|l| l.starts_with("match ") && l.contains(".get(")),
        ),
        (
            "an end by if let",
            with_line(&|l| {
                l.starts_with("if let Some(")
                    && (l.contains(".last() {") || l.contains(".first() {"))
            }),
        ),
        (
            "an element by reference",
            with_line(&|l| {
                l.starts_with("let r")
                    && l.contains(" = &")
                    && l.ends_with("];")
                    && !l.contains("..")
            }),
        ),
        (
            "a borrowed slice rebound",
            texts
                .iter()
                .filter(|t| {
                    let bound: Vec<&str> = t
                        .lines()
                        .filter_map(|l| l.trim_start().strip_prefix("let mut "))
                        .filter_map(|l| l.split_once(": &[").map(|(n, _)| n))
                        .collect();
                    t.lines().any(|l| {
                        let l = l.trim_start();
                        bound.iter().any(|n| l.starts_with(&format!("{n} = ")))
                    })
                })
                .count(),
        ),
        (
            "pairs of constants in a chain",
            with_line(&|l| l.contains("[(") && l.contains(")].iter()")),
        ),
        ("for_each over iter", count(".iter().for_each(")),
        ("for_each over iter_mut", count(".iter_mut().for_each(")),
        (
            "first or last",
            texts
                .iter()
                .filter(|t| t.contains(".first().unwrap()") || t.contains(".last().unwrap()"))
                .count(),
        ),
        (
            "a chain over chunks",
            texts
                .iter()
                .filter(|t| {
                    t.lines().any(|l| {
                        (l.contains(".chunks") || l.contains(".windows("))
                            && (l.contains(".map(") || l.contains(".fold("))
                    })
                })
                .count(),
        ),
        (
            "enumerate over chunks",
            texts
                .iter()
                .filter(|t| {
                    t.lines().any(|l| {
                        (l.contains(".chunks") || l.contains(".windows("))
                            && l.contains(".enumerate()")
                    })
                })
                .count(),
        ),
    ] {
        println!("{what}: in {n} of 300 programs");
        assert!(n >= 10, "{what}: in {n} of 300 programs");
    }
    // rarer: a whole `Vec` of the same type, from another one; a fold
    // from an untyped zero by max; `match w.last() { … }`; `.chain(…)`
    for (what, n) in [
        (
            "a struct's items walked by enumerate",
            count(".items.iter().enumerate()"),
        ),
        (
            "a copy of a tracked struct",
            count("let mut kc = kn.clone();"),
        ),
        ("clone_from", count(".clone_from(&")),
        (
            "a chain's Option ended by unwrap_or",
            with_line(&|l| {
                (l.contains(".reduce(") || l.contains(".min_by(")) && l.contains(").unwrap_or(")
            }),
        ),
        (
            "a filtered chain's Option ended by unwrap_or",
            with_line(&|l| {
                l.contains(".filter(|")
                    && (l.contains(".reduce(") || l.contains(".min_by("))
                    && l.contains(").unwrap_or(")
            }),
        ),
        ("a chain cut by take_while", count(".take_while(|x|")),
        (
            "a chain's Option ended by unwrap_or_default",
            count(").unwrap_or_default()"),
        ),
        (
            "a chain's Option ended by expect",
            count(").expect(\"an element\")"),
        ),
        ("two arrays chained", count(".iter().chain(")),
        ("positions taken last first", count(".enumerate().rev()")),
        (
            "an array's own map",
            with_line(&|l| l.starts_with("let mm") && l.contains(".map(|v")),
        ),
        ("an array made by from_fn", count("std::array::from_fn(|v")),
        (
            "a chain reversed after its map",
            with_line(&|l| {
                l.match_indices(").rev()").any(|(at, _)| {
                    let before = &l[..at];
                    before
                        .rfind(".map(|")
                        .is_some_and(|m| !before[m..].contains(".iter()"))
                })
            }),
        ),
        ("a chain collected", count(".collect(); c_")),
        ("a chain stepped", count(".step_by(")),
        ("a helper's value an untyped sum", count("].iter().sum()\n")),
        (
            "a chain over a helper's array",
            with_line(&|l| l.contains("_u") && l.contains(").iter().sum::<")),
        ),
        (
            "a method of whole steps or signs",
            texts
                .iter()
                .filter(|t| {
                    [
                        ".fract()",
                        ".copysign(",
                        ".midpoint(",
                        ".rem_euclid(",
                        ".div_euclid(",
                    ]
                    .iter()
                    .chain(&[".round_ties_even()"])
                    .any(|m| t.contains(m))
                })
                .count(),
        ),
        (
            "an end by a match",
            with_line(&|l| {
                l.starts_with("match ") && (l.contains(".last() {") || l.contains(".first() {"))
            }),
        ),
        ("fold from an untyped zero by max", count(".fold(0.0, f")),
        (
            "a Vec filled by push",
            with_line(&|l| l.contains(".push(") && l.starts_with("for ")),
        ),
        (
            "a Vec filled by push in a nest",
            with_line(&|l| l.contains(".push(") && l.contains("_o..2 {")),
        ),
        (
            "elements read in the order of their sorted positions",
            count("_order.sort_by(|&a, &b|"),
        ),
        (
            "a Vec filled by three pushes an iteration",
            count("o in 0..1usize { let h"),
        ),
        (
            "a Vec filled by push under a shadowed index",
            with_line(&|l| l.contains(".push(") && l.contains(" = 2 - ")),
        ),
        (
            "an Option made and tested by match in place",
            with_line(&|l| l.contains("_o) } else { None } } { Some(")),
        ),
        (
            "an Option made and tested by if let in place",
            with_line(&|l| l.contains("if let Some(") && l.contains("_o) } else { None } } {")),
        ),
        (
            "a loop left by break with a pair",
            with_line(&|l| l.starts_with("break (") && l.contains(" * 0.75")),
        ),
        ("a chain folded into a pair", count(".fold((")),
        (
            "an inner loop's own sum read by the outer sum times a factor",
            count("let mut tz"),
        ),
        (
            "an update whose value assigns the name first",
            with_line(&|l| {
                !l.contains(']') && ["*= {", "+= {", "-= {"].iter().any(|e| l.ends_with(e))
            }),
        ),
        (
            "an element update whose value assigns the element first",
            with_line(&|l| {
                l.contains(']') && ["*= {", "+= {", "-= {"].iter().any(|e| l.ends_with(e))
            }),
        ),
        (
            "an end of an array with a default, `last()` or `first()`",
            with_line(&|l| {
                l.contains(".last().copied().unwrap_or(")
                    || l.contains(".first().copied().unwrap_or(")
            }),
        ),
        (
            "an element write whose value moves its own index",
            count("[q_mv] "),
        ),
        (
            "a tuple a branch assigns",
            with_line(&|l| l.starts_with("if ") && l.contains("t = (") && l.contains(" * 0.5")),
        ),
        ("a chain's position", count(".position(|m| m > ")),
        (
            "two local arrays walked by a zip of mutable iterators",
            with_line(&|l| {
                l.starts_with("for ")
                    && (l.contains(".iter_mut().zip(h") || l.contains(".iter_mut().zip(&mut h"))
            }),
        ),
        (
            "a helper generic over a length given a local array",
            with_line(&|l| l.contains("_n(&h")),
        ),
        (
            "a helper generic over a length given an array literal",
            with_line(&|l| l.contains("_n(&[")),
        ),
        (
            "a chain's mapped values kept by filter(|m| *m > c)",
            count(".filter(|m| *m > "),
        ),
        (
            "a chain's mapped values kept by filter(|&m| m > c)",
            count(".filter(|&m| m > "),
        ),
        (
            "a Vec filled by push, left by break",
            with_line(&|l| l.contains(" >= 3 { break; }") && l.contains(".push(")),
        ),
        (
            "a Vec filled by push, iterations passed over by continue",
            count("c % 2 == 1 { continue; }"),
        ),
        (
            "a Vec filled by push in a match's arms",
            with_line(&|l| l.contains("match ") && l.contains(".push(")),
        ),
        (
            "a Vec filled by push while its len() is below three",
            count(".len() < 3 {"),
        ),
        (
            "a Vec filled by push where an element decides",
            count(".len() < 3 && ("),
        ),
        (
            "a Vec of zeros filled by push, then written",
            with_line(&|l| l.starts_with("for _ in 0..3 {") && l.contains(".push(")),
        ),
        (
            "a Vec filled by push with no knob in its elements",
            // (a knob is added times 0.25, in every dialect)
            with_line(&|l| {
                l.starts_with("for ")
                    && !l.starts_with("for _ in")
                    && l.contains(".push(")
                    && !l.contains("0.25")
            }),
        ),
    ] {
        println!("{what}: in {n} of 300 programs");
        assert!(n >= 3, "{what}: in {n} of 300 programs");
    }
    // rarer, as the passing loops' edges are: a renewal of `1..3` then a
    // loop adding into all three elements, `h[0]` carried on
    let added_after = count("for jz");
    let what = "a renewal that leaves an element a later loop adds into";
    println!("{what}: in {added_after} of 300 programs");
    assert!(added_after >= 5, "{what}: in {added_after} of 300 programs");
    // rarer: the same renewal in a loop that would be fused if the renewal
    // were whole, its sum reading `h[0]` through `sin` (the edge of the
    // check that a renewal starts at 0)
    let fused_after = texts
        .iter()
        .filter(|t| {
            t.lines().any(|l| l.trim_start().starts_with("for jz"))
                && t.lines().any(|l| {
                    let l = l.trim_start();
                    l.starts_with('t') && l.contains(" += h") && l.ends_with("[0].sin();")
                })
        })
        .count();
    let what = "a renewal added into after it, its sum reading the element it leaves";
    println!("{what}: in {fused_after} of 300 programs");
    assert!(fused_after >= 3, "{what}: in {fused_after} of 300 programs");
    // rarer: a program that is one loop, fused, whose body reads `h[0]`
    // and passes it into the inner loop renewing `h` (`let tf = h[0];`)
    let read_first = count("let tf");
    let what = "a read before a renewal that takes it, in a fused loop";
    println!("{what}: in {read_first} of 300 programs");
    assert!(read_first >= 3, "{what}: in {read_first} of 300 programs");
    // rarer: a counter moved on through a `&mut` between reads of `w[*r]`
    let cursors = count("let kr");
    let what = "a counter moved on through a mutable borrow";
    println!("{what}: in {cursors} of 300 programs");
    assert!(cursors >= 5, "{what}: in {cursors} of 300 programs");
    // rarer, as loops over neighbours are: `let sa = w[i]; let i = i + 1;`,
    // then `w[i]` again, the next element
    let shifted_reads = count("let sa");
    let what = "an index shifted between reads of the same tokens";
    println!("{what}: in {shifted_reads} of 300 programs");
    assert!(
        shifted_reads >= 5,
        "{what}: in {shifted_reads} of 300 programs"
    );
}

/// Short loops over literal ranges are written out by the adjoint that
/// takes shortcuts (`lower/unroll.rs`) and kept by the plain one, so the
/// generator must write them: up, `.rev()`, inside another loop, and over
/// the length of a local array made by a literal; and loops over a named
/// bound (`0..K3`), which stay loops, for the shortcuts loops take.
#[test]
fn the_generator_writes_short_literal_loops() {
    let texts: Vec<String> = (0..300)
        .map(|i| gen::render(&gen::generate(7_000_003 * 11 + i), i as usize))
        .collect();
    // the trip count of a `for` head over a literal range, and its indent
    fn trips(line: &str) -> Option<(usize, usize)> {
        let indent = line.len() - line.trim_start().len();
        let (_, range) = line.trim_start().strip_prefix("for ")?.split_once(" in ")?;
        let range = range.strip_suffix(" {")?;
        let (range, _) = match range.strip_suffix(".rev()") {
            Some(r) => (r.strip_prefix('(')?.strip_suffix(')')?, true),
            None => (range, false),
        };
        let (lo, hi) = range.split_once("..")?;
        let (hi, inclusive) = match hi.strip_prefix('=') {
            Some(hi) => (hi, 1),
            None => (hi, 0),
        };
        let hi = hi.strip_suffix("usize").unwrap_or(hi);
        let (lo, hi): (usize, usize) = (lo.parse().ok()?, hi.parse().ok()?);
        Some(((hi + inclusive).checked_sub(lo)?, indent))
    }
    let short = |t: &String, ok: &dyn Fn(&str, usize) -> bool| {
        t.lines()
            .any(|l| matches!(trips(l), Some((n, indent)) if n <= 4 && ok(l, indent)))
    };
    let up = texts
        .iter()
        .filter(|t| short(t, &|l, _| !l.contains(".rev()")))
        .count();
    let back = texts
        .iter()
        .filter(|t| short(t, &|l, _| l.contains(".rev()")))
        .count();
    let nested = texts
        .iter()
        .filter(|t| short(t, &|_, indent| indent > 4))
        .count();
    let by_len = texts
        .iter()
        .filter(|t| {
            t.lines()
                .any(|l| l.trim_start().starts_with("for ") && l.ends_with(".len() {"))
        })
        .count();
    let named = texts
        .iter()
        .filter(|t| {
            t.lines()
                .any(|l| l.trim_start().starts_with("for ") && l.contains("..K"))
        })
        .count();
    // a nested loop up to its outer loop's index (`for j in 0..i`): a
    // range not constant, read only, written twice (with runs and without)
    let head = texts
        .iter()
        .filter(|t| {
            t.lines().any(|l| {
                let l = l.trim_start();
                l.starts_with("for j") && l.contains(" in 0..i") && l.ends_with(" {")
            })
        })
        .count();
    // a stencil stepped over a field into a second buffer, on a line or
    // through a grid's named index (`let p = r * m + c;`, `h[p + K4]`)
    let stepped = texts
        .iter()
        .filter(|t| {
            let lines: Vec<&str> = t.lines().map(str::trim_start).collect();
            lines
                .iter()
                .any(|l| l.starts_with("std::mem::swap(&mut h") && !l.contains("&mut _"))
                && lines
                    .iter()
                    .any(|l| l.contains(" - 1] +") || l.contains(" - 1; h"))
        })
        .count();
    let grid = texts
        .iter()
        .filter(|t| {
            t.lines().any(|l| {
                let l = l.trim_start();
                l.starts_with("let i") && l.contains(" * ") && l.ends_with(";") && !l.contains('.')
            })
        })
        .count();
    // a `Vec` made in each iteration of a loop, its length from the index
    let scratch = texts
        .iter()
        .filter(|t| {
            t.lines()
                .any(|l| l.contains(" = vec![") && l.contains("; 3 + i") && l.ends_with(" % 2];"))
        })
        .count();
    // offsets as a loop over negative literals, `for k in -1..=1`
    let negative = texts
        .iter()
        .filter(|t| {
            t.lines()
                .any(|l| l.trim_start().starts_with("for ") && l.contains(" in -"))
        })
        .count();
    // a dense layer read through its rows' starts (`g[j + i * K3]`), its
    // two loops bounded by named constants: one run for the whole nest
    let layer = texts
        .iter()
        .filter(|t| {
            let heads: Vec<&str> = t.lines().map(str::trim_start).collect();
            let named = |var: &str| {
                heads
                    .iter()
                    .any(|l| l.starts_with(&format!("for {var} in 0..K")))
            };
            t.split('[')
                .skip(1)
                .filter_map(|r| r.split_once(']'))
                .any(|(ix, _)| {
                    let Some((j, start)) = ix.split_once(" + ") else {
                        return false;
                    };
                    let Some((a, b)) = start.split_once(" * ") else {
                        return false;
                    };
                    let i = if b.starts_with('K') { a } else { b };
                    (a.starts_with('K') || b.starts_with('K')) && named(i) && named(j)
                })
        })
        .count();
    for (what, n) in [
        (
            "a layer through rows' starts, its loops' bounds named",
            layer,
        ),
        ("a loop over a range of negative literals", negative),
        (
            "a Vec made in a loop's body, of a length read from its index",
            scratch,
        ),
        ("a stencil stepped into a second buffer", stepped),
        ("a grid read through a named index", grid),
        ("a loop up to an outer loop's index", head),
        ("a loop over a named bound, kept a loop", named),
        ("a short loop up a literal range", up),
        ("a short literal loop inside another block", nested),
        ("a loop over a length", by_len),
    ] {
        println!("{what}: in {n} of 300 programs");
        assert!(n >= 10, "{what}: in {n} of 300 programs");
    }
    let inclusive = texts
        .iter()
        .filter(|t| short(t, &|l, _| l.contains("..=")))
        .count();
    println!("a short loop over an inclusive literal range: in {inclusive} of 300 programs");
    assert!(
        inclusive >= 10,
        "an inclusive literal range: in {inclusive} of 300 programs"
    );
    // a typed end (`0..3usize`) and `_` for the counter, as users write
    let typed = texts
        .iter()
        .filter(|t| short(t, &|l, _| l.contains("usize {")))
        .count();
    let wild = texts
        .iter()
        .filter(|t| short(t, &|l, _| l.trim_start().starts_with("for _ in")))
        .count();
    for (what, n) in [
        ("a short loop over a typed literal range", typed),
        ("a short literal loop whose counter is `_`", wild),
    ] {
        println!("{what}: in {n} of 300 programs");
        assert!(n >= 10, "{what}: in {n} of 300 programs");
    }
    // a matrix made in a loop's body by a literal, then changed in place
    // at constant indices before the loops that multiply by it: the reverse
    // may not make it again from the literal (`r[1][0] *= …`)
    let changed = texts
        .iter()
        .filter(|t| {
            t.lines().any(|l| {
                let l = l.trim_start();
                l.starts_with('m')
                    && l.split_once(" *= ").is_some_and(|(place, _)| {
                        let ix: Vec<&str> = place.split('[').skip(1).collect();
                        ix.len() == 2
                            && ix
                                .iter()
                                .all(|i| i.trim_end_matches(']').parse::<usize>().is_ok())
                    })
            })
        })
        .count();
    // a matrix literal at a block's end, a constant the block binds among
    // its elements (`{ let m_l: f64 = 0.3_f64; [[…, m_l], …] }`): the
    // reverse reads that element back from the array to make it again
    let bound = texts
        .iter()
        .filter(|t| {
            t.lines().any(|l| {
                l.split_once("_l: f64 = ").is_some_and(|(_, rest)| {
                    rest.split_once("_f64; [[").is_some_and(|(lit, _)| {
                        lit.trim_matches(|c| c == '(' || c == ')')
                            .parse::<f64>()
                            .is_ok()
                    })
                })
            })
        })
        .count();
    // a row `[e; 3]` of one recorded value scaling a product's columns
    // (`q[a][b] += p[a][k] * r[k][b] * hN[b]`)
    let scaled = texts
        .iter()
        .filter(|t| {
            t.lines().any(|l| {
                let l = l.trim_start();
                let Some((name, rest)) = l.strip_prefix("let h").and_then(|r| r.split_once(" = ["))
                else {
                    return false;
                };
                rest.ends_with("; 3];")
                    && name.parse::<usize>().is_ok()
                    && t.lines()
                        .any(|m| m.contains("] += ") && m.contains(&format!(" * h{name}[")))
            })
        })
        .count();
    // a matrix literal with a literal zero among its elements, multiplied
    // by in a nest of short loops (`let mN = [[c, 0.0_f64], …];`): written
    // out, the products with the zero add no slope
    let zeros = texts
        .iter()
        .filter(|t| {
            t.lines().any(|l| {
                let l = l.trim_start();
                l.starts_with("let m")
                    && !l.starts_with("let mut ")
                    && l.contains(" = [[")
                    && (l.contains("[0.0_f") || l.contains(", 0.0_f"))
                    && !l.contains("[[0.0_f64; ")
                    && !l.contains("[[0.0_f32; ")
            })
        })
        .count();
    // a nest of short loops over literal ranges (`for i in 0..3 { for j in
    // 0..3 {`): the nest that reads a literal's array is written out whole
    let literal_nest = texts
        .iter()
        .filter(|t| {
            let lines: Vec<&str> = t.lines().map(str::trim_start).collect();
            let short = |l: &str| {
                l.starts_with("for ") && (l.ends_with(" in 0..2 {") || l.ends_with(" in 0..3 {"))
            };
            lines.windows(3).any(|w| w.iter().all(|l| short(l)))
        })
        .count();
    for (what, n) in [
        (
            "a nest of three short loops over literal ranges",
            literal_nest,
        ),
        (
            "a matrix literal changed in place before its products",
            changed,
        ),
        ("a literal zero in a matrix literal", zeros),
        ("a constant a block binds in a matrix literal", bound),
        ("a row of one recorded value scaling a product", scaled),
    ] {
        println!("{what}: in {n} of 300 programs");
        assert!(n >= 5, "{what}: in {n} of 300 programs");
    }
    // rarer, as `.rev()` loops are
    println!("a short loop down a literal range: in {back} of 300 programs");
    assert!(
        back >= 5,
        "a short loop down a literal range: in {back} of 300 programs"
    );
}
