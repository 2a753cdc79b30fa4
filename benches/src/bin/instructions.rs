//! Instructions per gradient call, counted by Valgrind's callgrind: for each
//! program, the hand-written adjoint and Mica's `_backward`. Counts are
//! deterministic, so they show changes of a few percent that the timings'
//! noise hides; they are not times (a vectorised loop retires fewer
//! instructions for the same work, a cache miss costs none). Prints a
//! Markdown table, or a note if `valgrind` is not installed.
//!
//! `instructions [WORD]` runs itself under callgrind once per program and
//! variant (with `WORD`, only the programs whose name contains it);
//! `instructions outside [WORD]` does the same for the outside programs
//! (`src/outside.rs`); `instructions run K hand|mica N [outside]` makes
//! `N` calls of program `K`, each inside `measured`, the only code
//! callgrind counts.

use mica_benches::{calls, outside};
use std::process::Command;

/// Calls per measurement: enough to average out the first call's lazy
/// work (page faults of fresh slots), few enough for callgrind's slowdown.
const CALLS: usize = 5;

#[inline(never)]
fn measured(f: &mut dyn FnMut()) {
    f();
}

/// The programs: the suite's, or the outside ones.
fn programs(outside: bool) -> Vec<calls::Calls> {
    if outside {
        outside::calls()
    } else {
        calls::all()
    }
}

fn run(k: usize, variant: &str, n: usize, outside: bool) {
    let mut all = programs(outside);
    let c = &mut all[k];
    let f = if variant == "hand" {
        &mut c.hand
    } else {
        &mut c.mica
    };
    for _ in 0..n {
        measured(f);
    }
}

/// Instructions counted inside `measured` for `n` calls, or `None` if
/// callgrind could not run.
fn count(k: usize, variant: &str, n: usize, outside: bool) -> Option<u64> {
    let exe = std::env::current_exe().ok()?;
    let out = Command::new("valgrind")
        .args([
            "--tool=callgrind",
            "--toggle-collect=*measured*",
            "--callgrind-out-file=/dev/null",
        ])
        .arg(exe)
        .args(["run", &k.to_string(), variant, &n.to_string()])
        .args(outside.then_some("outside"))
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    let log = String::from_utf8_lossy(&out.stderr);
    let line = log.lines().find(|l| l.contains("Collected :"))?;
    line.rsplit(':').next()?.trim().parse().ok()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() >= 5 && args[1] == "run" {
        let k = args[2].parse().expect("a program index");
        let n = args[4].parse().expect("a call count");
        run(k, &args[3], n, args.get(5).is_some_and(|a| a == "outside"));
        return;
    }
    let outside = args.get(1).is_some_and(|a| a == "outside");
    let args: Vec<String> = match outside {
        true => args[..1].iter().chain(&args[2..]).cloned().collect(),
        false => args,
    };
    if count(0, "hand", 1, outside).is_none() {
        println!("(`valgrind` is not installed here: no instruction counts.)");
        return;
    }
    println!("| program | hand-written | Mica `_backward` | Mica/hand |");
    println!("| --- | ---: | ---: | ---: |");
    let only = args.get(1).filter(|_| args.len() == 2);
    for (k, c) in programs(outside).iter().enumerate() {
        if only.is_some_and(|word| !c.name.contains(word.as_str())) {
            continue;
        }
        let per_call =
            |variant| count(k, variant, CALLS, outside).map(|i| i as f64 / CALLS as f64);
        match (per_call("hand"), per_call("mica")) {
            (Some(h), Some(m)) => println!(
                "| {} | {} | {} | {:.2} |",
                c.name,
                millions(h),
                millions(m),
                m / h
            ),
            _ => println!("| {} | — | — | — |", c.name),
        }
    }
}

fn millions(i: f64) -> String {
    match i {
        i if i >= 1e6 => format!("{:.2} M", i / 1e6),
        i if i >= 1e4 => format!("{:.1} k", i / 1e3),
        i => format!("{i:.0}"),
    }
}
