//! Shapes of syntax forward mode reads, shared by its analysis and its
//! writing: `vec![…]`'s items, `mem::swap`, walks over arrays, the names
//! a pattern binds.

use syn::punctuated::Punctuated;
use syn::visit::{self, Visit};
use syn::{Expr, Pat, Token};

/// The items of `vec![a, b]` (and the length of `vec![x; n]`).
pub(crate) fn vec_items(mac: &syn::Macro) -> Option<(Vec<Expr>, Option<Expr>)> {
    if let Ok(r) = mac.parse_body::<syn::ExprRepeat>() {
        return Some((vec![*r.expr], Some(*r.len)));
    }
    if let Ok(repeat) = syn::parse2::<RepeatBody>(mac.tokens.clone()) {
        return Some((vec![repeat.0], Some(repeat.1)));
    }
    mac.parse_body_with(Punctuated::<Expr, Token![,]>::parse_terminated)
        .ok()
        .map(|items| (items.into_iter().collect(), None))
}

/// `x; n` (the body of `vec![x; n]`).
struct RepeatBody(Expr, Expr);

impl syn::parse::Parse for RepeatBody {
    fn parse(input: syn::parse::ParseStream) -> syn::Result<Self> {
        let item: Expr = input.parse()?;
        input.parse::<Token![;]>()?;
        let len: Expr = input.parse()?;
        Ok(RepeatBody(item, len))
    }
}

/// `std::mem::swap(&mut a, &mut b)` (any path ending in `swap`, two
/// arguments).
pub(crate) fn is_swap(c: &syn::ExprCall) -> bool {
    matches!(&*c.func, Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "swap") && p.path.segments.len() > 1)
        && c.args.len() == 2
}

/// The names a pattern binds.
pub fn pattern_names(pat: &Pat) -> Vec<String> {
    let mut out = Vec::new();
    struct Names<'a>(&'a mut Vec<String>);
    impl<'ast> Visit<'ast> for Names<'_> {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.0.push(p.ident.to_string());
            visit::visit_pat_ident(self, p);
        }
    }
    Names(&mut out).visit_pat(pat);
    out
}

/// A `for` loop over the elements of arrays: `for v in x` / `&x` /
/// `x.iter()`, with `.enumerate()` or `.zip(y…)`, walked by index so the
/// tangents walk along.
pub(crate) struct Walk<'a> {
    /// (pattern, base array, by reference)
    pub(crate) parts: Vec<(&'a Pat, &'a Expr, bool)>,
    /// the enumerate's index pattern
    pub(crate) index: Option<&'a Pat>,
}

impl<'a> Walk<'a> {
    pub(crate) fn of(pat: &'a Pat, iter: &'a Expr) -> Option<Self> {
        fn base(e: &Expr) -> Option<(&Expr, bool)> {
            match e {
                Expr::Reference(r) if r.mutability.is_none() => Some((&r.expr, true)),
                Expr::MethodCall(m) if m.method == "iter" && m.args.is_empty() => {
                    Some((&m.receiver, true))
                }
                Expr::MethodCall(m) if m.method == "into_iter" && m.args.is_empty() => {
                    base(&m.receiver)
                }
                Expr::Path(_) | Expr::Field(_) | Expr::Index(_) => Some((e, true)),
                Expr::Paren(p) => base(&p.expr),
                _ => None,
            }
        }
        let elem = |pat: &'a Pat| -> Option<(&'a Pat, bool)> {
            match pat {
                Pat::Reference(r) => Some((&*r.pat, false)),
                Pat::Ident(_) | Pat::Wild(_) => Some((pat, true)),
                _ => None,
            }
        };
        match iter {
            Expr::MethodCall(m) if m.method == "enumerate" && m.args.is_empty() => {
                let Pat::Tuple(t) = pat else { return None };
                if t.elems.len() != 2 {
                    return None;
                }
                let (b, _) = base(&m.receiver)?;
                let (p, by_ref) = elem(&t.elems[1])?;
                Some(Walk {
                    parts: vec![(p, b, by_ref)],
                    index: Some(&t.elems[0]),
                })
            }
            Expr::MethodCall(m) if m.method == "zip" && m.args.len() == 1 => {
                let Pat::Tuple(t) = pat else { return None };
                if t.elems.len() != 2 {
                    return None;
                }
                let (a, _) = base(&m.receiver)?;
                let (b, _) = base(&m.args[0])?;
                let (pa, ra) = elem(&t.elems[0])?;
                let (pb, rb) = elem(&t.elems[1])?;
                Some(Walk {
                    parts: vec![(pa, a, ra), (pb, b, rb)],
                    index: None,
                })
            }
            Expr::Range(_) => None,
            _ => {
                let (b, _) = base(iter)?;
                let (p, by_ref) = elem(pat)?;
                Some(Walk {
                    parts: vec![(p, b, by_ref)],
                    index: None,
                })
            }
        }
    }

    /// The names bound by the walk's element patterns, with the array each
    /// reads.
    pub(crate) fn bindings(&self) -> Vec<(String, &'a Expr)> {
        self.parts
            .iter()
            .flat_map(|(p, b, _)| pattern_names(p).into_iter().map(move |n| (n, *b)))
            .collect()
    }
}

/// Whether `e` holds a `return` or a `break` with a value (outside
/// closures): forward mode writes those as pairs even where no value has
/// a slope.
pub(crate) fn exits(e: &Expr) -> bool {
    struct Exits(bool);
    impl<'a> Visit<'a> for Exits {
        fn visit_expr_return(&mut self, _: &'a syn::ExprReturn) {
            self.0 = true;
        }
        fn visit_expr_break(&mut self, b: &'a syn::ExprBreak) {
            if b.expr.is_some() {
                self.0 = true;
            }
        }
        fn visit_expr_closure(&mut self, _: &'a syn::ExprClosure) {}
    }
    let mut v = Exits(false);
    v.visit_expr(e);
    v.0
}

/// `….collect()`: a `Vec` (or another collection), whose zero is not
/// the float's.
pub(crate) fn collects(e: &Expr) -> bool {
    matches!(crate::facts::syntax::strip(e), Expr::MethodCall(m) if m.method == "collect")
}

/// Whether evaluating `e` again could do something or cost much (its zero
/// tangent is then shaped from its value, not from `e` run again).
pub(crate) fn runs_again(e: &Expr) -> bool {
    matches!(
        crate::facts::syntax::strip(e),
        Expr::Loop(_)
            | Expr::Block(_)
            | Expr::If(_)
            | Expr::Match(_)
            | Expr::Call(_)
            | Expr::While(_)
            | Expr::ForLoop(_)
            | Expr::Unsafe(_)
    )
}

/// The array literal (`[a, b]`, `[x; n]`, nested; not `vec!`) that an `if`,
/// a `match` or a block gives in its first arm, when its elements are
/// floats written in place (literals, operations, calls of methods): every
/// arm has its type, so its zero is the shape of all (`[0.0, 0.0]`), made
/// without running the branch again.
pub(crate) fn branch_array(e: &Expr) -> Option<&Expr> {
    use crate::facts::syntax::{first_arm, strip};
    if !matches!(strip(e), Expr::If(_) | Expr::Match(_) | Expr::Block(_)) {
        return None;
    }
    let (first, _) = first_arm(e)?;
    in_place(first).then_some(first)
}

/// An array literal whose leaves are floats written in place.
fn in_place(e: &Expr) -> bool {
    match crate::facts::syntax::strip(e) {
        Expr::Array(a) => !a.elems.is_empty() && a.elems.iter().all(leaf_or_array),
        Expr::Repeat(r) => {
            leaf_or_array(&r.expr) && matches!(crate::facts::syntax::strip(&r.len), Expr::Lit(_))
        }
        _ => false,
    }
}

fn leaf_or_array(e: &Expr) -> bool {
    match crate::facts::syntax::strip(e) {
        Expr::Array(_) | Expr::Repeat(_) => in_place(e),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => leaf_or_array(&u.expr),
        Expr::Lit(_) | Expr::Binary(_) | Expr::Cast(_) => true,
        // `T::from(0.5).unwrap()`, `x.sin()`: a float's methods, those
        // with a slope rule
        Expr::MethodCall(m) => {
            m.method == "unwrap" || crate::rules::method(&m.method.to_string()).is_some()
        }
        _ => false,
    }
}
