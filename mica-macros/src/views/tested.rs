//! Tests written as the branches they are, before the views: the `get`
//! of a part, `first()` and `last()` as `get`s, and a `match` by guards
//! as an `if` chain.

use super::places::part_of;
use super::Views;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{Expr, Pat};

impl Views {
    /// `if let Some(v) = x.get(i)` (of a range too, and `x.last()`),
    /// `x.get(i).copied().unwrap_or(d)` and a `match` by guards, rewritten
    /// in place.
    pub(super) fn tested(&mut self, e: &mut Expr) {
        // `match x.get(i) { Some(v) => a, None => b }`: the `if let` it is,
        // written as its test (only where that test is written: another
        // keeps its `match`, and the message at its `get`)
        if let Expr::Match(m) = e {
            if let Some(Expr::If(mut i)) = matched_option(m) {
                if let Expr::Let(l) = &mut *i.cond {
                    ends_as_get(&mut l.expr);
                }
                if let Some(tested) = self.tested_if(&i) {
                    *e = tested;
                    self.changed = true;
                }
            }
        }
        // `if let Some(v) = x.get(i)`, `x.get(a..b)`: the test `get` makes
        if let Expr::If(i) = e {
            if let Expr::Let(l) = &mut *i.cond {
                if ends_as_get(&mut l.expr) {
                    self.changed = true;
                }
            }
            if let Some(tested) = self.tested_if(i) {
                *e = tested;
                self.changed = true;
            }
        }
        // `x.first().copied().unwrap_or(d)`, `x.last()…`: a `get` (below)
        if let Expr::MethodCall(m) = e {
            if m.method == "unwrap_or"
                && m.args.len() == 1
                && is_copied(&m.receiver)
                && ends_as_get(&mut m.receiver)
            {
                self.changed = true;
            }
        }
        // `x.get(i).copied().unwrap_or(d)`: the branch it is
        let unwrapped =
            matches!(e, Expr::MethodCall(m) if crate::facts::syntax::got_or(m).is_some());
        if let (true, Expr::MethodCall(m)) = (unwrapped, &*e) {
            let names = ["at", "lo", "hi", "v"].map(|w| self.fresh(w));
            let [a, b, c, d] = &names;
            if let Some((lines, tested)) = crate::facts::syntax::get_or(m, [a, b, c, d]) {
                *e = syn::parse_quote!({ #(#lines)* #tested });
                self.changed = true;
            }
        }
        // `match x { v if v > 1.0 => …, v => … }`: the `if` chain it is
        if let Expr::Match(m) = e {
            if let Some(chain) = self.guarded(m) {
                *e = chain;
                self.changed = true;
            }
        }
    }

    /// `if let Some(v) = …` written as its test: of a `get` ([`Self::got`]),
    /// or of an `Option` made in place (`optional.rs`); where that refuses,
    /// the `None` arm in its place, so that the message is said once.
    fn tested_if(&mut self, i: &syn::ExprIf) -> Option<Expr> {
        if let Some(tested) = self.got(i) {
            return Some(tested);
        }
        match super::optional::distributed(i) {
            Ok(placed) => placed,
            Err(error) => {
                self.errors.push(error);
                i.else_branch.as_ref().map(|(_, none)| (**none).clone())
            }
        }
    }

    /// `if let Some(v) = x.get(i) { … } else { … }` as the block of the
    /// test `get` makes (`facts::syntax::get_tested`), written once here
    /// for both sweeps: `{ let at = i; if at < x.len() { let v = &x[at];
    /// … } else { … } }`; of a range, `{ let at = a; let at_end = b; if at
    /// <= at_end && at_end <= x.len() { let part = &x[at..at_end]; … } … }`,
    /// the part then a view.
    fn got(&mut self, i: &syn::ExprIf) -> Option<Expr> {
        let Expr::Let(l) = &*i.cond else { return None };
        crate::facts::syntax::got(l)?;
        let at = [self.fresh("at"), self.fresh("lo"), self.fresh("hi")];
        let (lines, tested) = crate::facts::syntax::get_tested(i, [&at[0], &at[1], &at[2]])?;
        Some(syn::parse_quote!({ #(#lines)* #tested }))
    }

    /// `match x { v if g => a, _ if h => b, w => c }`, every pattern a
    /// name or `_` and the last arm unguarded, as the `if` chain it is:
    /// `{ let s = x; if g[v := s] { let v = s; a } else if h { b } else {
    /// let w = s; c } }` (a guard with a closure or a block of its own is
    /// left as written).
    fn guarded(&mut self, m: &syn::ExprMatch) -> Option<Expr> {
        let (last, rest) = m.arms.split_last()?;
        if last.guard.is_some() || rest.is_empty() || rest.iter().any(|a| a.guard.is_none()) {
            return None;
        }
        let name = |p: &Pat| match p {
            Pat::Ident(i) if i.by_ref.is_none() && i.subpat.is_none() => {
                Some(Some(i.ident.clone()))
            }
            Pat::Wild(_) => Some(None),
            _ => None,
        };
        let s = self.fresh("matched");
        // (the name bound where the arm's body reads it: a guard may be
        // all that reads it)
        let arm = |a: &syn::Arm| -> Expr {
            let body = &a.body;
            match &a.pat {
                Pat::Ident(i)
                    if crate::names::mentions_ident(
                        &quote::quote!(#body),
                        &i.ident.to_string(),
                    ) =>
                {
                    let pat = &a.pat;
                    syn::parse_quote!({ let #pat = #s; #body })
                }
                _ => syn::parse_quote!({ #body }),
            }
        };
        let mut chain: Expr = arm(last);
        name(&last.pat)?;
        for a in rest.iter().rev() {
            let bound = name(&a.pat)?;
            let (_, guard) = a.guard.as_ref()?;
            let mut guard = (**guard).clone();
            let mut plain = PlainGuard(true);
            syn::visit::Visit::visit_expr(&mut plain, &guard);
            if !plain.0 {
                return None;
            }
            if let Some(v) = bound {
                RenameTo(v, s.clone()).visit_expr_mut(&mut guard);
            }
            let then = arm(a);
            chain = syn::parse_quote!(if #guard #then else #chain);
        }
        let scrutinee = &m.expr;
        Some(syn::parse_quote!({ let #s = #scrutinee; #chain }))
    }
}

/// `match o { Some(p) => a, None => b }` (the arms in either order, `_`
/// for `None`, no guards): `if let Some(p) = o { a } else { b }`, which
/// `tested` keeps only where it writes it as its test (an `o` that `get`s
/// an element or a part: `x.get(i)`, `x.first()`, `x.last()`, through
/// `.copied()`).
fn matched_option(m: &syn::ExprMatch) -> Option<Expr> {
    let [one, other] = &m.arms[..] else {
        return None;
    };
    if one.guard.is_some() || other.guard.is_some() {
        return None;
    }
    let is_some =
        |p: &Pat| matches!(p, Pat::TupleStruct(t) if t.path.is_ident("Some") && t.elems.len() == 1);
    let is_none = |p: &Pat| match p {
        Pat::Wild(_) => true,
        Pat::Ident(i) => i.ident == "None" && i.by_ref.is_none() && i.subpat.is_none(),
        Pat::Path(q) => q.qself.is_none() && q.path.is_ident("None"),
        _ => false,
    };
    let (some, none) = match (is_some(&one.pat), is_some(&other.pat)) {
        (true, false) if is_none(&other.pat) => (one, other),
        (false, true) if is_none(&one.pat) => (other, one),
        _ => return None,
    };
    // (an arm's block as the branch's, not inside another)
    let block = |body: &Expr| -> syn::Block {
        match body {
            Expr::Block(b) if b.label.is_none() && b.attrs.is_empty() => b.block.clone(),
            _ => syn::parse_quote!({ #body }),
        }
    };
    let (pat, then, otherwise) = (&some.pat, block(&some.body), block(&none.body));
    let scrutinee = &m.expr;
    Some(syn::parse_quote!(if let #pat = #scrutinee #then else #otherwise))
}

/// `x.first()`, `x.last()` of a place or a part `x[a..b]` (through
/// `.copied()` or `.cloned()`)
/// as the `get` each is: `x.get(0)`, `x.get(x.len().wrapping_sub(1))`
/// (past the end where `x` is empty); whether so.
fn ends_as_get(e: &mut Expr) -> bool {
    match e {
        Expr::Paren(p) => ends_as_get(&mut p.expr),
        Expr::MethodCall(m)
            if (m.method == "copied" || m.method == "cloned") && m.args.is_empty() =>
        {
            ends_as_get(&mut m.receiver)
        }
        Expr::MethodCall(m)
            if m.args.is_empty()
                && (m.method == "first" || m.method == "last")
                && part_of(&m.receiver).is_some() =>
        {
            let x = &m.receiver;
            let at: Expr = if m.method == "first" {
                syn::parse_quote!(0)
            } else {
                syn::parse_quote!(#x.len().wrapping_sub(1))
            };
            m.method = syn::Ident::new("get", m.method.span());
            m.args.push(at);
            true
        }
        _ => false,
    }
}

/// Whether `e` is `….copied()` or `….cloned()`: an `Option` of a value,
/// as `unwrap_or` of a `get` needs (not of a reference).
fn is_copied(e: &Expr) -> bool {
    matches!(super::places::unparen(e), Expr::MethodCall(c)
        if (c.method == "copied" || c.method == "cloned") && c.args.is_empty())
}

/// Whether a guard has no closure and no block of its own (where a name
/// could be bound again).
struct PlainGuard(bool);

impl<'ast> Visit<'ast> for PlainGuard {
    fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {
        self.0 = false;
    }
    fn visit_block(&mut self, _: &'ast syn::Block) {
        self.0 = false;
    }
    fn visit_macro(&mut self, _: &'ast syn::Macro) {
        self.0 = false;
    }
}

/// Each use of a name as a value, the name given (with the new name's own
/// span: `helpers::subst::Rename` gives each use its old span, which would
/// not see the scrutinee's `let`, made at the macro's own site).
struct RenameTo(syn::Ident, syn::Ident);

impl VisitMut for RenameTo {
    fn visit_expr_path_mut(&mut self, p: &mut syn::ExprPath) {
        if p.qself.is_none() && p.path.is_ident(&self.0) {
            p.path = self.1.clone().into();
        }
    }
}
