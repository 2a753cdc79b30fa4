//! How many items a `for` loop's iterable gives, as an iterator of as
//! many that may be evaluated before the loop: it reads no element and has
//! no effect.

use quote::format_ident;
use std::collections::HashSet;
use syn::Expr;

/// An iterator of as many items as the iterable `e` gives, that reads no
/// element and may be evaluated before the loop: a range (reversed,
/// stepped) is itself; a named array (`xs`, `&xs`, `xs.iter()`) is
/// `0..xs.len()`, its chunks and windows `0..` their count; `zip`,
/// `enumerate`, `rev`, `skip`, `take` and `step_by` are kept, `copied`,
/// `cloned` and `map` left out (they keep the count). `None` for anything
/// else.
pub(super) fn positions(e: &Expr, arrays: &HashSet<String>) -> Option<Expr> {
    if is_range(e) {
        return Some(e.clone());
    }
    // (an array by its name: a `len()` that iterating it gives)
    let named = |e: &Expr| match strip(e) {
        Expr::Path(p)
            if p.path
                .get_ident()
                .is_some_and(|i| arrays.contains(&i.to_string())) =>
        {
            Some(p.clone())
        }
        _ => None,
    };
    match strip(e) {
        Expr::Path(_) => {
            let p = named(e)?;
            Some(syn::parse_quote!((0..#p.len())))
        }
        Expr::Reference(r) => {
            let p = named(&r.expr)?;
            Some(syn::parse_quote!((0..#p.len())))
        }
        Expr::MethodCall(m) => {
            let method = m.method.to_string();
            let args = &m.args;
            match (method.as_str(), args.len()) {
                ("iter" | "iter_mut", 0) => {
                    let p = named(&m.receiver)?;
                    Some(syn::parse_quote!((0..#p.len())))
                }
                ("chunks" | "chunks_exact" | "windows", 1) if pure(&args[0]) => {
                    let p = named(&m.receiver)?;
                    let k = &args[0];
                    let count = format_ident!("{}_count", method);
                    Some(syn::parse_quote!((0..::mica::__private::#count(#p.len(), #k))))
                }
                ("zip", 1) => {
                    let (a, b) = (
                        positions(&m.receiver, arrays)?,
                        positions(&args[0], arrays)?,
                    );
                    Some(syn::parse_quote!(#a.zip(#b)))
                }
                ("enumerate" | "rev", 0) => {
                    let a = positions(&m.receiver, arrays)?;
                    let method = &m.method;
                    Some(syn::parse_quote!(#a.#method()))
                }
                ("skip" | "take" | "step_by", 1) if pure(&args[0]) => {
                    let a = positions(&m.receiver, arrays)?;
                    let (method, k) = (&m.method, &args[0]);
                    Some(syn::parse_quote!(#a.#method(#k)))
                }
                ("copied" | "cloned", 0) | ("map", 1) => positions(&m.receiver, arrays),
                _ => None,
            }
        }
        _ => None,
    }
}

/// A range with both ends, possibly reversed or stepped, whose ends may
/// be evaluated again.
pub(super) fn is_range(e: &Expr) -> bool {
    match strip(e) {
        Expr::Range(r) => match (&r.start, &r.end) {
            (Some(a), Some(b)) => pure(a) && pure(b),
            _ => false,
        },
        Expr::MethodCall(m) => match (m.method.to_string().as_str(), m.args.len()) {
            ("rev", 0) => is_range(&m.receiver),
            ("step_by", 1) => pure(&m.args[0]) && is_range(&m.receiver),
            _ => false,
        },
        _ => false,
    }
}

pub(super) fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip(&p.expr),
        Expr::Group(g) => strip(&g.expr),
        _ => e,
    }
}

/// An integer expression that may be evaluated again: names, literals,
/// lengths, elements, arithmetic, `min`/`max`.
fn pure(e: &Expr) -> bool {
    match e {
        Expr::Lit(_) | Expr::Path(_) => true,
        Expr::Paren(p) => pure(&p.expr),
        Expr::Group(g) => pure(&g.expr),
        Expr::Binary(b) => pure(&b.left) && pure(&b.right),
        Expr::Unary(u) => pure(&u.expr),
        Expr::Cast(c) => pure(&c.expr),
        Expr::Field(f) => pure(&f.base),
        Expr::Index(i) => pure(&i.expr) && pure(&i.index),
        Expr::MethodCall(m) => {
            let method = m.method.to_string();
            let known = ["len", "min", "max", "saturating_sub", "pow", "abs"];
            known.contains(&method.as_str()) && pure(&m.receiver) && m.args.iter().all(pure)
        }
        // the counts of chunks and windows, as the views write a loop over
        // them (`0..::mica::__private::chunks_count(x.len(), k)`)
        Expr::Call(c) => {
            let counts = ["chunks_count", "chunks_exact_count", "windows_count"];
            let Expr::Path(f) = &*c.func else {
                return false;
            };
            let names: Vec<String> = f
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect();
            let count = matches!(names.as_slice(), [m, p, n] if m == "mica" && p == "__private" && counts.contains(&n.as_str()));
            count && c.args.iter().all(pure)
        }
        _ => false,
    }
}
