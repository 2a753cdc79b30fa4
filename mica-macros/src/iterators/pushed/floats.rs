//! Which pushed values are floats, by their form and their `Vec`'s type.

use super::body::{is_std_float, Names};
use super::count::strip;
use proc_macro2::Ident;
use syn::Expr;

/// A value that is no float by its form: an array, tuple or struct, a
/// test, text, a reference, `Some`/`Ok`/`Err`, a macro's value.
pub(super) fn not_a_float(v: &Expr) -> bool {
    use syn::BinOp::*;
    match strip(v) {
        Expr::Array(_) | Expr::Tuple(_) | Expr::Repeat(_) | Expr::Struct(_) => true,
        Expr::Reference(_) | Expr::Macro(_) | Expr::Range(_) | Expr::Closure(_) => true,
        Expr::Lit(l) => !matches!(l.lit, syn::Lit::Float(_) | syn::Lit::Int(_)),
        Expr::Unary(u) => matches!(u.op, syn::UnOp::Not(_)),
        Expr::Binary(b) => matches!(
            b.op,
            Eq(_) | Ne(_) | Lt(_) | Le(_) | Gt(_) | Ge(_) | And(_) | Or(_)
        ),
        Expr::Call(c) => {
            matches!(&*c.func, Expr::Path(p) if ["Some", "Ok", "Err"].iter().any(|w| p.path.is_ident(w)))
        }
        Expr::MethodCall(m) => {
            let method = m.method.to_string();
            method.starts_with("is_")
                || method.starts_with("to_") && method != "to_radians" && method != "to_degrees"
        }
        _ => false,
    }
}

/// A value that is a float by its form, or by the written type of the
/// names it reads: a float literal, a cast to `f64`/`f32`, a float constant
/// (`f64::consts::PI`), a float function's value (`f64::max(a, b)`), in a
/// generic function a float parameter's (`T::from(k).unwrap()`,
/// `T::zero()`), a name bound once as a float or an element of one bound
/// once as an array of floats (`x: f64`, `data: &[f64]`), or arithmetic
/// and float methods over one (`(k as f64 + 0.5).sqrt()`, `2.0 * x`).
pub(super) fn float_by_form(v: &Expr, floats: &[Ident], names: &Names) -> bool {
    use syn::BinOp::*;
    let std_float = |p: &syn::Path| {
        p.segments
            .iter()
            .any(|s| s.ident == "f64" || s.ident == "f32")
    };
    let float_ty = |p: &syn::Path| {
        let first = p.segments.first().map(|s| &s.ident);
        std_float(p) || first.is_some_and(|f| floats.contains(f)) && p.segments.len() == 2
    };
    let last = |p: &syn::Path| {
        p.segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default()
    };
    match strip(v) {
        Expr::Lit(l) => matches!(l.lit, syn::Lit::Float(_)),
        Expr::Cast(c) => is_std_float(&c.ty),
        Expr::Unary(u) => {
            matches!(u.op, syn::UnOp::Neg(_)) && float_by_form(&u.expr, floats, names)
        }
        Expr::Binary(b) => {
            matches!(b.op, Add(_) | Sub(_) | Mul(_) | Div(_) | Rem(_))
                && (float_by_form(&b.left, floats, names) || float_by_form(&b.right, floats, names))
        }
        // a name bound once as a float
        Expr::Path(p) if p.path.get_ident().is_some() => p
            .path
            .get_ident()
            .is_some_and(|n| names.floats.contains(&n.to_string())),
        // an element of an array bound once as floats
        Expr::Index(i) => matches!(strip(&i.expr), Expr::Path(p)
            if p.path.get_ident().is_some_and(|n| names.float_arrays.contains(&n.to_string()))),
        // `f64::consts::PI`, `f64::EPSILON` (not `f64::DIGITS`, a `u32`)
        Expr::Path(p) => {
            float_ty(&p.path)
                && (p.path.segments.iter().any(|s| s.ident == "consts")
                    || FLOAT_CONSTS.contains(&last(&p.path).as_str()))
        }
        // `f64::max(a, b)`, `f64::from(k)`, `T::zero()`
        Expr::Call(c) => match &*c.func {
            Expr::Path(p) if float_ty(&p.path) => {
                let f = last(&p.path);
                FLOAT_METHODS.contains(&f.as_str())
                    || f == "zero"
                    || f == "one"
                    || f == "from" && std_float(&p.path)
            }
            _ => false,
        },
        // `T::from(k).unwrap()`
        Expr::MethodCall(m) if m.method == "unwrap" && m.args.is_empty() => {
            matches!(strip(&m.receiver), Expr::Call(c) if matches!(&*c.func, Expr::Path(p)
                if float_ty(&p.path) && last(&p.path).starts_with("from")))
        }
        Expr::MethodCall(m) => {
            FLOAT_METHODS.contains(&m.method.to_string().as_str())
                && float_by_form(&m.receiver, floats, names)
        }
        _ => false,
    }
}

/// A float type's constants that are of that type.
const FLOAT_CONSTS: &[&str] = &[
    "EPSILON",
    "INFINITY",
    "MAX",
    "MIN",
    "MIN_POSITIVE",
    "NAN",
    "NEG_INFINITY",
];

/// Float methods whose value is a float of the same type.
const FLOAT_METHODS: &[&str] = &[
    "abs",
    "acos",
    "acosh",
    "asin",
    "asinh",
    "atan",
    "atan2",
    "atanh",
    "cbrt",
    "ceil",
    "clamp",
    "cos",
    "cosh",
    "exp",
    "exp2",
    "exp_m1",
    "floor",
    "fract",
    "hypot",
    "ln",
    "ln_1p",
    "log",
    "log10",
    "log2",
    "max",
    "min",
    "mul_add",
    "powf",
    "powi",
    "recip",
    "round",
    "signum",
    "sin",
    "sinh",
    "sqrt",
    "tan",
    "tanh",
    "to_degrees",
    "to_radians",
    "trunc",
];
