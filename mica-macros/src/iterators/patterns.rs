//! A closure's parameters over a chain's element: which place each name
//! stands for; and whether a closure's value is an array.

use crate::helpers::subst::Borrow;
use quote::ToTokens;
use syn::visit_mut::VisitMut;
use syn::{Expr, Pat, Stmt};

/// An element of a chain at the loop's index: an expression (a place of
/// the source, `x[i]`, or a name a `map` bound), a place the chain
/// borrows, or a tuple of them.
#[derive(Clone)]
pub(super) enum Elem {
    One(Expr),
    /// the place `xs[i]` an `xs.iter()` yields a reference to: its name,
    /// passed whole to a function, is `&xs[i]` (`|x| f(x)` over rows)
    Place(Expr),
    Tuple(Vec<Elem>),
}

/// What to write instead, for every chain Mica cannot write as a loop.
const WRITE_THE_LOOP: &str =
    "write the loop: `let mut total = 0.0; for i in 0..xs.len() { total += …; }`";

pub(super) fn err(at: &impl ToTokens, what: &str) -> syn::Error {
    syn::Error::new_spanned(
        at,
        format!("{what} over recorded values is not supported yet; {WRITE_THE_LOOP}"),
    )
}

/// The element as one expression (a tuple of its parts).
pub(super) fn elem_expr(e: &Elem) -> Expr {
    match e {
        Elem::One(x) | Elem::Place(x) => x.clone(),
        Elem::Tuple(items) => {
            let items: Vec<Expr> = items.iter().map(elem_expr).collect();
            syn::parse_quote!((#(#items),*))
        }
    }
}

/// A closure parameter's names and what each stands for: the place, as
/// a reference (`&xs[i]`) where the name is bound to a borrowed element.
pub(super) fn bind(pat: &Pat, elem: Elem, out: &mut Vec<(String, Expr)>) -> syn::Result<()> {
    match (pat, elem) {
        (Pat::Ident(p), Elem::One(x)) if p.subpat.is_none() => {
            out.push((p.ident.to_string(), x));
            Ok(())
        }
        (Pat::Ident(p), Elem::Place(x)) if p.subpat.is_none() => {
            out.push((p.ident.to_string(), syn::parse_quote!(&#x)));
            Ok(())
        }
        // `|&x|`: the value itself
        (Pat::Reference(r), Elem::Place(x)) => bind(&r.pat, Elem::One(x), out),
        // `|p|` over a zip: `p` the pair of places, `p.0` the first
        (Pat::Ident(p), elem @ Elem::Tuple(_)) if p.subpat.is_none() => {
            out.push((p.ident.to_string(), elem_expr(&elem)));
            Ok(())
        }
        (Pat::Reference(r), elem) => bind(&r.pat, elem, out),
        (Pat::Type(t), elem) => bind(&t.pat, elem, out),
        (Pat::Paren(p), elem) => bind(&p.pat, elem, out),
        (Pat::Wild(_), _) => Ok(()),
        (Pat::Tuple(t), Elem::Tuple(items)) if t.elems.len() == items.len() => {
            for (p, e) in t.elems.iter().zip(items) {
                bind(p, e, out)?;
            }
            Ok(())
        }
        // `|(x, y)|` over a slice of pairs: each name its field's place
        (Pat::Tuple(t), elem @ (Elem::One(_) | Elem::Place(_)))
            if !t.elems.iter().any(|p| matches!(p, Pat::Rest(_))) =>
        {
            let borrowed = matches!(elem, Elem::Place(_));
            let x = elem_expr(&elem);
            for (k, p) in t.elems.iter().enumerate() {
                let k = syn::Index::from(k);
                let field = syn::parse_quote!(#x.#k);
                let field = match borrowed {
                    true => Elem::Place(field),
                    false => Elem::One(field),
                };
                bind(p, field, out)?;
            }
            Ok(())
        }
        _ => Err(err(pat, "this closure pattern")),
    }
}

/// What a name a closure or a loop binds to an element stands for: the
/// place, and where the element is borrowed (`&xs[i]`, see [`bind`]), the
/// reference as a call's argument.
pub(super) fn element(name: String, place: Expr) -> Borrow {
    let (place, arg) = match place {
        Expr::Reference(r) => ((*r.expr).clone(), Some(Expr::Reference(r))),
        place => (place, None),
    };
    Borrow {
        name,
        bare: place.clone(),
        place,
        slice: None,
        value: true,
        arg,
    }
}

/// An element as the values `.copied()` and `.cloned()` yield.
pub(super) fn valued(elem: Elem) -> Elem {
    match elem {
        Elem::Place(x) => Elem::One(x),
        Elem::Tuple(items) => Elem::Tuple(items.into_iter().map(valued).collect()),
        one => one,
    }
}

/// In a closure's body, the fields of a name bound to a tuple (`|p|` over
/// a zip): `p.0` and `*p.0` are the first element itself, as the pair of
/// references `p` is would give it.
pub(super) fn fields(body: &mut Expr, pairs: &[(String, Expr)]) {
    struct Fields<'a>(
        &'a str,
        &'a syn::punctuated::Punctuated<Expr, syn::Token![,]>,
    );
    impl Fields<'_> {
        fn field(&self, e: &Expr) -> Option<Expr> {
            let Expr::Field(f) = unparen(e) else {
                return None;
            };
            let (Expr::Path(p), syn::Member::Unnamed(k)) = (unparen(&f.base), &f.member) else {
                return None;
            };
            let item = self.1.iter().nth(k.index as usize)?;
            p.path.is_ident(self.0).then(|| syn::parse_quote!((#item)))
        }
    }
    impl VisitMut for Fields<'_> {
        fn visit_expr_mut(&mut self, e: &mut Expr) {
            let direct = match &*e {
                Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => self.field(&u.expr),
                other => self.field(other),
            };
            match direct {
                Some(item) => *e = item,
                None => syn::visit_mut::visit_expr_mut(self, e),
            }
        }
    }
    for (name, value) in pairs {
        if let Expr::Tuple(t) = unparen(value) {
            Fields(name, &t.elems).visit_expr_mut(body);
        }
    }
}

/// `e` without its parentheses and invisible groups.
pub(super) fn unparen(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => unparen(&p.expr),
        Expr::Group(g) => unparen(&g.expr),
        other => other,
    }
}

/// A closure whose value is an array: it ends in `.collect()` or
/// `.to_vec()`, `vec![…]` or an array literal, or in a name its block binds
/// to one (a chain inside it, collected, is already the loop filling a
/// `vec![…]`).
pub(super) fn makes_array(f: &Expr) -> bool {
    let Expr::Closure(c) = unparen(f) else {
        return false;
    };
    let mut body = unparen(&c.body);
    while let Expr::Block(b) = body {
        let Some(Stmt::Expr(tail, None)) = b.block.stmts.last() else {
            return false;
        };
        body = unparen(tail);
        let Expr::Path(p) = body else { continue };
        let Some(name) = p.path.get_ident() else {
            return false;
        };
        // the block's own `let name = vec![…];` (or an array literal)
        return b.block.stmts.iter().any(|s| match s {
            Stmt::Local(l) => {
                let binds = match &l.pat {
                    syn::Pat::Ident(i) => i.ident == *name,
                    syn::Pat::Type(t) => matches!(&*t.pat, syn::Pat::Ident(i) if i.ident == *name),
                    _ => false,
                };
                binds && l.init.as_ref().is_some_and(|i| is_literal(&i.expr))
            }
            _ => false,
        });
    }
    match body {
        Expr::MethodCall(m) => m.method == "collect" || m.method == "to_vec",
        other => is_literal(other),
    }
}

/// An array literal (`[a, b]`, `[0.0; 3]`) or `vec![…]`, borrowed or not.
pub(super) fn is_literal(e: &Expr) -> bool {
    match unparen(e) {
        Expr::Reference(r) => is_literal(&r.expr),
        Expr::Array(_) | Expr::Repeat(_) => true,
        Expr::Macro(m) => m.mac.path.is_ident("vec"),
        _ => false,
    }
}

/// A call whose value a chain may walk: `f(x)`, `self.f(x)`, `x.to_vec()`
/// (a function's or a method's of a place, not a chain's own), or a block,
/// as a helper's call is once its body is written in.
pub(super) fn is_call(e: &Expr) -> bool {
    match unparen(e) {
        Expr::Block(_) => true,
        Expr::Call(c) => matches!(unparen(&c.func), Expr::Path(_)),
        Expr::MethodCall(m) => {
            is_place(&m.receiver)
                && !matches!(
                    m.method.to_string().as_str(),
                    "iter" | "into_iter" | "iter_mut" | "collect"
                )
        }
        _ => false,
    }
}

/// A name, a field of one or an element of one (not a range of it).
pub(super) use crate::views::places::is_stable_place as is_place;
