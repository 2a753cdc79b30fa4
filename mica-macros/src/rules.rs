//! The derivative rule table: which operations may be applied to recorded
//! values, and how their slope is found.
//!
//! A rule named `op` with `k` inputs has its numeric pullbacks in the runtime
//! as `rules::op_d0 … rules::op_d{k-1}` (see `mica-runtime/src/rules.rs`),
//! each taking every input, the output and the output's adjoint. Adding a
//! method is one line here and one function there.

/// How a float method's slope is found.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Slope {
    /// through `rules::{name}_d{i}`
    Rule,
    /// the slope is zero everywhere it exists: the result is a constant
    Zero,
}

/// A float method of the recorded vocabulary: name, number of arguments
/// besides the receiver, and how its slope is found.
pub struct Method {
    pub name: &'static str,
    pub args: usize,
    pub slope: Slope,
}

const fn rule(name: &'static str, args: usize) -> Method {
    Method {
        name,
        args,
        slope: Slope::Rule,
    }
}

const fn zero(name: &'static str) -> Method {
    Method {
        name,
        args: 0,
        slope: Slope::Zero,
    }
}

pub const METHODS: &[Method] = &[
    rule("sqrt", 0),
    rule("cbrt", 0),
    rule("exp", 0),
    rule("exp2", 0),
    rule("exp_m1", 0),
    rule("ln", 0),
    rule("log2", 0),
    rule("log10", 0),
    rule("ln_1p", 0),
    rule("log", 1),
    rule("powi", 1),
    rule("powf", 1),
    rule("sin", 0),
    rule("cos", 0),
    rule("tan", 0),
    rule("asin", 0),
    rule("acos", 0),
    rule("atan", 0),
    rule("atan2", 1),
    rule("sinh", 0),
    rule("cosh", 0),
    rule("tanh", 0),
    rule("asinh", 0),
    rule("acosh", 0),
    rule("atanh", 0),
    rule("abs", 0),
    rule("min", 1),
    rule("max", 1),
    rule("clamp", 2),
    rule("hypot", 1),
    rule("mul_add", 2),
    rule("recip", 0),
    zero("floor"),
    zero("ceil"),
    zero("round"),
    zero("trunc"),
    zero("signum"),
];

pub fn method(name: &str) -> Option<&'static Method> {
    METHODS.iter().find(|m| m.name == name)
}

/// The rule of a binary arithmetic operator.
pub fn binary(op: &syn::BinOp) -> Option<&'static str> {
    use syn::BinOp::*;
    match op {
        Add(_) | AddAssign(_) => Some("add"),
        Sub(_) | SubAssign(_) => Some("sub"),
        Mul(_) | MulAssign(_) => Some("mul"),
        Div(_) | DivAssign(_) => Some("div"),
        _ => None,
    }
}

/// Macros that only read their arguments (formatting and assertions): a
/// recorded value may be passed to them.
pub fn reads_only(macro_name: &str) -> bool {
    matches!(
        macro_name,
        "print"
            | "println"
            | "eprint"
            | "eprintln"
            | "format"
            | "format_args"
            | "write"
            | "writeln"
            | "panic"
            | "assert"
            | "assert_eq"
            | "assert_ne"
            | "debug_assert"
            | "debug_assert_eq"
            | "debug_assert_ne"
    )
}
