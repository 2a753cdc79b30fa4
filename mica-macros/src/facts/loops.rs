//! What a loop's syntax says about its iterations, found once where the loop
//! is lowered, and the one recogniser of array subscripts as linear forms in
//! the loop's variable.
//!
//! The dependence analysis (`analyze/dependence.rs`) asks these facts
//! whether two array accesses of a loop body can touch the same element in
//! two different iterations. A subscript is read as `a·v + P`, with `v` the
//! loop's variable and `P` a sum of integer multiples of terms that hold the
//! same value in every iteration: names the body never binds, assigns or
//! borrows mutably, and pure expressions of such names (`n / 2`,
//! `w.len()`). Anything else is unknown, and an unknown subscript is
//! assumed to reach every element.

use super::places::{root, Reach};
use super::syntax::{is_compound, strip};
use proc_macro2::{Ident, TokenStream, TokenTree};
use quote::ToTokens;
use std::collections::{BTreeMap, HashSet};
use syn::visit::Visit;
use syn::{BinOp, Expr, Pat, UnOp};

/// A loop's iterations, as its syntax shows them.
#[derive(Clone, Default)]
pub struct LoopFacts {
    /// the variable of a `for` loop whose iterations each see a different
    /// value of it (a range, a range reversed or stepped, or the counter of
    /// `.enumerate()`), if the body neither rebinds nor assigns it
    pub var: Option<String>,
    /// every name the body binds in a pattern, assigns, borrows mutably or
    /// calls a method on, and every identifier inside a macro call: names
    /// that may hold another value in another iteration
    pub bound: HashSet<String>,
    /// for `for v in lo..hi` with `v` a counter: the range's ends as written
    pub range: Option<(Expr, Expr)>,
    /// the loop's pattern (a `for`) or condition (a `while`), where a
    /// verdict about the loop points
    pub span: Option<proc_macro2::Span>,
}

impl LoopFacts {
    /// The facts of `for pat in expr { body }`.
    pub fn of_for(pat: &Pat, expr: &Expr, body: &syn::Block) -> Self {
        let bound = bound_in(body);
        let var = counter_of(pat, expr).filter(|v| !bound.contains(v));
        let range = match strip(expr) {
            Expr::Range(r)
                if var.is_some() && matches!(r.limits, syn::RangeLimits::HalfOpen(_)) =>
            {
                match (&r.start, &r.end) {
                    (Some(lo), Some(hi)) => Some(((**lo).clone(), (**hi).clone())),
                    _ => None,
                }
            }
            _ => None,
        };
        LoopFacts {
            var,
            bound,
            range,
            span: Some(syn::spanned::Spanned::span(pat)),
        }
    }

    /// The facts of `while cond { body }`: no variable.
    pub fn of_while(cond: &Expr, body: &syn::Block) -> Self {
        let mut bound = bound_in(body);
        let mut names = Bound::default();
        names.visit_expr(cond);
        bound.extend(names.names);
        LoopFacts {
            var: None,
            bound,
            range: None,
            span: Some(syn::spanned::Spanned::span(cond)),
        }
    }
}

/// The loop variable of `for pat in expr` that takes a different value in
/// every iteration.
fn counter_of(pat: &Pat, expr: &Expr) -> Option<String> {
    let expr = strip(expr);
    match (pat, expr) {
        (Pat::Ident(p), _) if p.subpat.is_none() && p.by_ref.is_none() && monotone(expr) => {
            Some(p.ident.to_string())
        }
        (Pat::Tuple(t), Expr::MethodCall(m)) if m.method == "enumerate" && m.args.is_empty() => {
            match t.elems.first() {
                Some(Pat::Ident(p)) if p.subpat.is_none() && p.by_ref.is_none() => {
                    Some(p.ident.to_string())
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// A range, or a range reversed or stepped: strictly monotone.
fn monotone(expr: &Expr) -> bool {
    match strip(expr) {
        Expr::Range(r) => r.start.is_some() && r.end.is_some(),
        Expr::MethodCall(m) => match (m.method.to_string().as_str(), m.args.len()) {
            ("rev", 0) | ("step_by", 1) | ("into_iter", 0) => monotone(&m.receiver),
            _ => false,
        },
        _ => false,
    }
}

/// The names a loop body may give another value from one iteration to the
/// next.
fn bound_in(body: &syn::Block) -> HashSet<String> {
    let mut names = Bound::default();
    names.visit_block(body);
    names.names
}

#[derive(Default)]
struct Bound {
    names: HashSet<String>,
    /// a float method called on an element changes nothing
    elements_read: bool,
}

/// Whether a pattern binds anything by `ref mut`, at any depth.
pub fn binds_by_ref_mut(pat: &syn::Pat) -> bool {
    let mut found = false;
    RefMut(&mut found).visit_pat(pat);
    found
}

/// Whether a pattern binds by `ref mut`.
struct RefMut<'a>(&'a mut bool);

impl<'ast> Visit<'ast> for RefMut<'_> {
    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        if p.by_ref.is_some() && p.mutability.is_some() {
            *self.0 = true;
        }
        syn::visit::visit_pat_ident(self, p);
    }
}

/// The names an expression may change: every name `bound` would note in
/// it (a loop's header or condition, run in or around its iterations).
pub fn changed_in(expr: &Expr) -> HashSet<String> {
    let mut names = Bound::default();
    names.visit_expr(expr);
    names.names
}

/// The names an expression may change, as [`changed_in`] finds them, but
/// for an element that only a float method of the recorded vocabulary
/// reads (as [`changed_in_stmt`]).
pub fn changed_in_reading(expr: &Expr) -> HashSet<String> {
    let mut names = Bound {
        elements_read: true,
        ..Bound::default()
    };
    names.visit_expr(expr);
    names.names
}

/// The names a statement may change, as [`changed_in`] finds them, but
/// for an element that only a float method of the recorded vocabulary
/// reads (`h[i].tanh()`: the element is a float, taken by value).
pub fn changed_in_stmt(stmt: &syn::Stmt) -> HashSet<String> {
    let mut names = Bound {
        elements_read: true,
        ..Bound::default()
    };
    names.visit_stmt(stmt);
    names.names
}

impl Bound {
    /// The left side of `=`: a place, or a destructuring of several
    /// (`(a, b) = …`, `[a, b] = …`, `S { x, .. } = …`, `T(a, b) = …`).
    fn assignee(&mut self, left: &Expr) {
        match left {
            Expr::Tuple(t) => t.elems.iter().for_each(|e| self.assignee(e)),
            Expr::Array(a) => a.elems.iter().for_each(|e| self.assignee(e)),
            Expr::Paren(p) => self.assignee(&p.expr),
            Expr::Struct(s) => s.fields.iter().for_each(|f| self.assignee(&f.expr)),
            Expr::Call(c) => c.args.iter().for_each(|e| self.assignee(e)),
            _ => self.place(left),
        }
    }

    /// The name at the root of a place the body changes.
    fn place(&mut self, expr: &Expr) {
        if let Some(name) = root(expr, Reach::Grouped) {
            self.names.insert(name.to_string());
        }
    }

    fn tokens(&mut self, tokens: TokenStream) {
        for tree in tokens {
            match tree {
                TokenTree::Ident(name) => {
                    self.names.insert(name.to_string());
                }
                TokenTree::Group(g) => self.tokens(g.stream()),
                _ => {}
            }
        }
    }
}

impl<'ast> Visit<'ast> for Bound {
    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        self.names.insert(p.ident.to_string());
        syn::visit::visit_pat_ident(self, p);
    }
    fn visit_expr_assign(&mut self, e: &'ast syn::ExprAssign) {
        self.assignee(&e.left);
        syn::visit::visit_expr_assign(self, e);
    }
    fn visit_local(&mut self, l: &'ast syn::Local) {
        // `let ref mut r = n;` (or `(ref mut a, _) = …`): what `r` borrows
        // may change through it
        if let (true, Some(init)) = (binds_by_ref_mut(&l.pat), &l.init) {
            self.place(&init.expr);
        }
        syn::visit::visit_local(self, l);
    }
    fn visit_expr_binary(&mut self, e: &'ast syn::ExprBinary) {
        if is_compound(&e.op) {
            self.place(&e.left);
        }
        syn::visit::visit_expr_binary(self, e);
    }
    fn visit_expr_reference(&mut self, e: &'ast syn::ExprReference) {
        if e.mutability.is_some() {
            self.place(&e.expr);
        }
        syn::visit::visit_expr_reference(self, e);
    }
    fn visit_expr_method_call(&mut self, e: &'ast syn::ExprMethodCall) {
        // a method may take its receiver by `&mut self`
        let float_of_element = self.elements_read
            && matches!(strip(&e.receiver), Expr::Index(_))
            && crate::rules::method(&e.method.to_string()).is_some_and(|m| m.args == e.args.len());
        if !float_of_element {
            self.place(&e.receiver);
        }
        syn::visit::visit_expr_method_call(self, e);
    }
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        self.tokens(m.tokens.clone());
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// A subscript as `var·v + Σ kᵢ·termᵢ + constant`, every term the same in
/// every iteration of the loop it was read against.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Linear {
    /// the loop variable's coefficient
    pub var: i128,
    /// invariant terms (a name, or a pure expression of invariant names,
    /// keyed by its tokens) and their coefficients, none zero
    pub terms: BTreeMap<String, i128>,
    pub constant: i128,
}

impl Linear {
    pub fn constant(k: i128) -> Self {
        Linear {
            var: 0,
            terms: BTreeMap::new(),
            constant: k,
        }
    }

    fn term(key: String) -> Self {
        Linear {
            var: 0,
            terms: BTreeMap::from([(key, 1)]),
            constant: 0,
        }
    }

    /// `self + sign·other`, or `None` on overflow.
    pub fn plus(mut self, other: Linear, sign: i128) -> Option<Self> {
        self.var = self.var.checked_add(sign.checked_mul(other.var)?)?;
        self.constant = self
            .constant
            .checked_add(sign.checked_mul(other.constant)?)?;
        for (key, k) in other.terms {
            let entry = self.terms.entry(key).or_insert(0);
            *entry = entry.checked_add(sign.checked_mul(k)?)?;
        }
        self.terms.retain(|_, k| *k != 0);
        Some(self)
    }

    fn scaled(mut self, by: i128) -> Option<Self> {
        self.var = self.var.checked_mul(by)?;
        self.constant = self.constant.checked_mul(by)?;
        for k in self.terms.values_mut() {
            *k = k.checked_mul(by)?;
        }
        self.terms.retain(|_, k| *k != 0);
        Some(self)
    }

    /// The loop's variable itself: `v`.
    pub fn is_counter(&self) -> bool {
        self.var == 1 && self.terms.is_empty() && self.constant == 0
    }

    pub fn as_constant(&self) -> Option<i128> {
        (self.var == 0 && self.terms.is_empty()).then_some(self.constant)
    }
}

/// `expr` as a linear form against `facts`, or `None` if it is not one.
pub fn linear(expr: &Expr, facts: &LoopFacts) -> Option<Linear> {
    let expr = strip(expr);
    match expr {
        Expr::Lit(lit) => match &lit.lit {
            syn::Lit::Int(i) => Some(Linear::constant(i.base10_parse().ok()?)),
            _ => None,
        },
        Expr::Path(p) if p.qself.is_none() => {
            let name = p.path.get_ident().map(Ident::to_string);
            if name.is_some() && name == facts.var {
                return Some(Linear {
                    var: 1,
                    terms: BTreeMap::new(),
                    constant: 0,
                });
            }
            invariant(expr, facts)
        }
        Expr::Binary(b) => {
            let sign = match b.op {
                BinOp::Add(_) => 1,
                BinOp::Sub(_) => -1,
                BinOp::Mul(_) => {
                    let (l, r) = (linear(&b.left, facts)?, linear(&b.right, facts)?);
                    return match (l.as_constant(), r.as_constant()) {
                        (Some(k), _) => r.scaled(k),
                        (_, Some(k)) => l.scaled(k),
                        _ => invariant(expr, facts),
                    };
                }
                _ => return invariant(expr, facts),
            };
            linear(&b.left, facts)?.plus(linear(&b.right, facts)?, sign)
        }
        Expr::Unary(u) if matches!(u.op, UnOp::Neg(_)) => linear(&u.expr, facts)?.scaled(-1),
        _ => invariant(expr, facts),
    }
}

/// A pure expression of names that keep their value in every iteration: one
/// term.
fn invariant(expr: &Expr, facts: &LoopFacts) -> Option<Linear> {
    pure_invariant(expr, facts).then(|| Linear::term(expr.to_token_stream().to_string()))
}

/// Whether `expr` evaluates to the same integer in every iteration: it reads
/// only names the body does not change (nor the loop's variable), through
/// operators, casts, fields, literals, `len()` and the integer methods that
/// read their receiver only.
fn pure_invariant(expr: &Expr, facts: &LoopFacts) -> bool {
    let fixed = |e: &Expr| pure_invariant(e, facts);
    match strip(expr) {
        Expr::Lit(_) => true,
        Expr::Path(p) => {
            let Some(name) = p.path.segments.first() else {
                return false;
            };
            let name = name.ident.to_string();
            p.path.segments.len() > 1
                || (Some(&name) != facts.var.as_ref() && !facts.bound.contains(&name))
        }
        Expr::Binary(b) => !is_compound(&b.op) && fixed(&b.left) && fixed(&b.right),
        Expr::Unary(u) => fixed(&u.expr),
        Expr::Cast(c) => fixed(&c.expr),
        Expr::Field(f) => fixed(&f.base),
        Expr::MethodCall(m) => {
            let method = m.method.to_string();
            matches!(
                method.as_str(),
                "len" | "min" | "max" | "pow" | "abs" | "saturating_sub" | "wrapping_sub"
            ) && m.turbofish.is_none()
                && fixed(&m.receiver)
                && m.args.iter().all(fixed)
        }
        _ => false,
    }
}

/// Whether two accesses, at subscripts `a` and `b` (outermost first, each
/// `None` where it is unknown or missing), touch different elements in any
/// two different iterations: some position holds `c·v + P` on both sides
/// with the same `c ≠ 0` and the same `P`, or constants that differ.
pub fn apart(a: &[Option<Linear>], b: &[Option<Linear>]) -> bool {
    a.iter().zip(b).any(|pair| match pair {
        (Some(x), Some(y)) => {
            (x.var != 0 && x == y)
                || matches!((x.as_constant(), y.as_constant()), (Some(p), Some(q)) if p != q)
        }
        _ => false,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn facts(pat: &str, range: &str, body: &str) -> LoopFacts {
        let pat: Pat = syn::parse::Parser::parse_str(Pat::parse_single, pat).unwrap();
        let expr: Expr = syn::parse_str(range).unwrap();
        let body: syn::Block = syn::parse_str(body).unwrap();
        LoopFacts::of_for(&pat, &expr, &body)
    }

    fn lin(expr: &str, facts: &LoopFacts) -> Option<Linear> {
        linear(&syn::parse_str(expr).unwrap(), facts)
    }

    #[test]
    fn subscripts_read_as_linear_forms() {
        let f = facts("i", "1..n", "{ let t = h[i - 1]; h[i] = t; }");
        assert_eq!(f.var.as_deref(), Some("i"));
        let a = lin("i - 1", &f).unwrap();
        assert_eq!((a.var, a.constant), (1, -1));
        let b = lin("(i + n) * 2 - n", &f).unwrap();
        assert_eq!((b.var, b.terms.get("n").copied()), (2, Some(1)));
        // `t` is bound in the body: unknown
        assert_eq!(lin("i + t", &f), None);
        // a product with the variable is not linear
        assert_eq!(lin("i * n", &f), None);
    }

    #[test]
    fn apart_only_where_a_position_proves_it() {
        let f = facts("i", "0..n", "{ h[i] = 1.0; }");
        let at = |s: &str| lin(s, &f);
        assert!(apart(&[at("i")], &[at("i")]));
        assert!(apart(&[at("0"), at("i")], &[at("n"), at("i")]));
        assert!(!apart(&[at("i")], &[at("i - 1")]));
        assert!(!apart(&[at("0")], &[at("0")]));
        assert!(apart(&[at("0")], &[at("1")]));
        assert!(!apart(&[at("n")], &[at("n")]));
        assert!(!apart(&[at("i")], &[None]));
        assert!(!apart(&[at("i")], &[]));
    }

    #[test]
    fn a_rebound_or_assigned_variable_is_no_counter() {
        assert_eq!(
            facts("i", "0..n", "{ let i = i + 1; h[i] = 0.0; }").var,
            None
        );
        assert_eq!(facts("mut i", "0..n", "{ i += 1; }").var, None);
        assert_eq!(facts("x", "w.iter()", "{ }").var, None);
        let e = facts("(i, x)", "w.iter().enumerate()", "{ }");
        assert_eq!(e.var.as_deref(), Some("i"));
        let r = facts("i", "(0..n).rev()", "{ }");
        assert_eq!(r.var.as_deref(), Some("i"));
        // a name changed in the body is no invariant term
        let f = facts("i", "0..n", "{ k += 1; }");
        assert_eq!(lin("i + k", &f), None);
        let g = facts("i", "0..n", "{ v.push(1); }");
        assert_eq!(lin("v.len() - i", &g), None);
    }
}
