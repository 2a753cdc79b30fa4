//! The placement law: every wall is a compile error with a message worth
//! reading (`tests/ui/fail`), and tricky legal code compiles and runs
//! (`tests/ui/pass`).

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/fail/*.rs");
    t.pass("tests/ui/pass/*.rs");
}
