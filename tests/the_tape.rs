//! The echo: the course's descent table, computed with slopes found by
//! algebra, is digit for digit what the tape prints.
#![deny(warnings)]

use std::fmt::Write as _;
use std::process::Command;

const RATE: f64 = 0.03125;

/// The table with `d/da loss = 28 (a − 2)`, no tape anywhere.
fn table_by_algebra() -> String {
    let mut out = String::from("the descent, slopes by tape\n");
    let mut a = 0.0_f64;
    for round in 1..=6 {
        let (m1, m2, m3) = (a * 1.0 - 2.0, a * 2.0 - 4.0, a * 3.0 - 6.0);
        let loss = m1 * m1 + m2 * m2 + m3 * m3;
        let slope = 28.0 * (a - 2.0);
        a -= RATE * slope;
        writeln!(
            out,
            "  round {round}: a={a:.6}, slope {slope:.6}, loss {loss:.6}"
        )
        .unwrap();
    }
    out
}

#[test]
fn the_expected_text_is_the_table_by_algebra() {
    let expected = include_str!("../examples/TheTape/expected.txt");
    assert_eq!(table_by_algebra(), expected);
}

#[test]
fn the_tape_prints_the_table_by_algebra() {
    let root = env!("CARGO_MANIFEST_DIR");
    let output = Command::new(env!("CARGO"))
        .args(["run", "--quiet", "--release", "--manifest-path"])
        .arg(format!("{root}/examples/TheTape/Cargo.toml"))
        .output()
        .expect("cargo runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&output.stdout), table_by_algebra());
}
