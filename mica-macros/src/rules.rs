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
    zero_of(name, 0)
}

const fn zero_of(name: &'static str, args: usize) -> Method {
    Method {
        name,
        args,
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
    rule("to_radians", 0),
    rule("to_degrees", 0),
    rule("fract", 0),
    rule("copysign", 1),
    rule("midpoint", 1),
    rule("rem_euclid", 1),
    zero("floor"),
    zero("ceil"),
    zero("round"),
    zero("trunc"),
    zero("signum"),
    zero("round_ties_even"),
    zero_of("div_euclid", 1),
];

pub fn method(name: &str) -> Option<&'static Method> {
    METHODS.iter().find(|m| m.name == name)
}

/// Functions of the runtime recorded as rules when called as `mica::NAME(x)`
/// (or `::mica::NAME(x)`): their reverse reads the forward's value instead of
/// running the function again, as the call adapter would.
const FUNCTIONS: [&str; 3] = ["sigmoid", "relu", "softplus"];

/// The rule of a call to `path`, if it names a function of [`FUNCTIONS`].
pub fn function(path: &syn::Path) -> Option<&'static str> {
    let [krate, name] = [path.segments.first()?, path.segments.last()?];
    if path.segments.len() != 2 || krate.ident != "mica" || !krate.arguments.is_none() {
        return None;
    }
    FUNCTIONS.iter().copied().find(|f| name.ident == f)
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

/// The forward expression of rule `name` on `args` (store names or
/// literals), as the lowering writes it: `a + b`, `-a`, `a.sin()`.
pub fn forward(name: &str, args: &[proc_macro2::TokenStream]) -> Option<proc_macro2::TokenStream> {
    use quote::quote;
    Some(match (name, args) {
        ("add", [a, b]) => quote!(#a + #b),
        ("sub", [a, b]) => quote!(#a - #b),
        ("mul", [a, b]) => quote!(#a * #b),
        ("div", [a, b]) => quote!(#a / #b),
        ("neg", [a]) => quote!(-#a),
        (_, [receiver, rest @ ..]) => {
            let method = method(name)?;
            if method.args != rest.len() {
                return None;
            }
            let name = proc_macro2::Ident::new(method.name, proc_macro2::Span::call_site());
            quote!(#receiver.#name(#(#rest),*))
        }
        _ => return None,
    })
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

/// How a rule's input `i` receives the adjoint when the rule is linear in
/// it with slope ±1 (`a + b`, `a - b`, `-a`, the addend of `a.mul_add(b,
/// c)`): the adjoint itself, or negated. `None` for every other slope.
pub fn passes(rule: &str, i: usize) -> Option<Pass> {
    match (rule, i) {
        ("add", _) | ("sub", 0) | ("mul_add", 2) => Some(Pass::Same),
        ("sub", _) | ("neg", _) => Some(Pass::Negated),
        _ => None,
    }
}

/// See [`passes`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Pass {
    Same,
    Negated,
}

/// Which arguments the pullback `rules::{rule}_d{i}` reads: positions
/// `0..k` are the rule's inputs, `k` its output. The reverse sweep reads (and
/// inside a loop, stores) only these; the other positions receive the
/// adjoint, which the pullback ignores. A test checks the table against the
/// runtime's signatures.
pub fn reads(rule: &str, i: usize) -> &'static [usize] {
    match (rule, i) {
        ("add" | "sub" | "neg" | "to_radians" | "to_degrees" | "fract" | "midpoint", _)
        | ("mul_add", 2)
        | ("copysign", 1)
        | ("rem_euclid", 0) => &[],
        ("mul" | "div" | "mul_add", 0) => &[1],
        ("mul" | "mul_add", 1) => &[0],
        ("div", 1) => &[1, 2],
        ("sqrt" | "cbrt" | "exp" | "exp2" | "exp_m1" | "tan" | "tanh" | "recip" | "sigmoid", 0) => {
            &[1]
        }
        ("relu" | "softplus", 0) => &[0],
        (
            "ln" | "log2" | "log10" | "ln_1p" | "sin" | "cos" | "asin" | "acos" | "atan" | "sinh"
            | "cosh" | "asinh" | "acosh" | "atanh" | "abs",
            0,
        ) => &[0],
        ("powi" | "powf" | "log" | "atan2", 0) | ("atan2", 1) | ("clamp", 1) => &[0, 1],
        ("powf", 1) | ("hypot", 0) | ("clamp", 2) => &[0, 2],
        ("log" | "hypot", 1) => &[1, 2],
        ("min" | "max", _) | ("clamp", 0) => &[0, 1, 2],
        ("copysign", 0) => &[0, 1],
        ("rem_euclid", 1) => &[0, 1, 2],
        _ => &[0, 1, 2, 3, 4],
    }
}

#[cfg(test)]
mod tests {
    /// Every pullback in the runtime reads exactly the positions [`super::reads`]
    /// says (its other parameters are named `_…`), and every rule of the
    /// vocabulary has its pullbacks there.
    #[test]
    fn reads_matches_the_runtime() {
        let text = include_str!("../../mica-runtime/src/rules.rs");
        let file = syn::parse_file(text).expect("the runtime's rules parse");
        let mut seen = Vec::new();
        for item in &file.items {
            let syn::Item::Fn(f) = item else { continue };
            let name = f.sig.ident.to_string();
            let Some((rule, i)) = name.rsplit_once("_d") else {
                continue;
            };
            let Ok(i) = i.parse::<usize>() else { continue };
            let params: Vec<String> = f
                .sig
                .inputs
                .iter()
                .filter_map(|arg| match arg {
                    syn::FnArg::Typed(t) => {
                        Some(quote::ToTokens::to_token_stream(&t.pat).to_string())
                    }
                    syn::FnArg::Receiver(_) => None,
                })
                .collect();
            let read: Vec<usize> = params[..params.len() - 1]
                .iter()
                .enumerate()
                .filter(|(_, p)| !p.starts_with('_'))
                .map(|(k, _)| k)
                .collect();
            assert_eq!(super::reads(rule, i), read.as_slice(), "{name}");
            seen.push(rule.to_string());
        }
        let rules = super::METHODS
            .iter()
            .filter(|m| m.slope == super::Slope::Rule)
            .map(|m| m.name)
            .chain(["add", "sub", "mul", "div", "neg"])
            .chain(super::FUNCTIONS);
        for rule in rules {
            assert!(seen.iter().any(|s| s == rule), "no pullback for `{rule}`");
        }
    }
}
