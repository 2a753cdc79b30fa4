//! One carried slope, passed back scaled.
//!
//! A loop that carries one recorded scalar from an iteration to the next
//! (`z -= f(z) / g(z)` in a Newton solve) passes its adjoint back through
//! each iteration's reverse: `k ← n(k)`, with `n` the adjoints the reverse
//! computes from `k` on the way. Every slope is linear in the adjoint that
//! seeds it, so `n(k) = k · n(1)`; and where nothing but that carry brings
//! an adjoint into the iteration, `n(1)` reads only values of the forward
//! run. Computed from them, it leaves the walk back one product long per
//! iteration, where `n(k)` was the whole chain of the reverse's operations
//! (a division among them): the iterations' reverses then overlap.
//!
//! Nothing brings an adjoint into an iteration but its carries when its
//! body writes no array (a write's reverse reads the element's adjoint),
//! holds no loop and calls no function differentiated through its own
//! adjoint. Two forms are written, read from the reverse's tokens:
//!
//! - Where every statement of the body is a `let` or an addition into a
//!   place the body does not read (an accumulator, an array's adjoint),
//!   the whole body is computed for a carry of `1`, and each addition is
//!   scaled by the carry: `acc += k · (…)`, `k ← k · n(1)`.
//! - Otherwise the statements `n` reads, `let`s of adjoints made from the
//!   carry and of values the forward run made, are written again in a
//!   block of their own where the carry is `1` (their names the block's),
//!   and `k ← k · n(1)`; the body is left as it is.
//!
//! The plain adjoint passes `n(k)` back as written; the two differ by
//! rounding, and where a slope for a carry of `1` overflows (a divisor
//! below `1/f64::MAX`) while the carry is zero, where the plain adjoint's
//! `0 / x` is zero and `0 · ∞` is not a number.

use super::*;
use crate::facts::places::{root, Reach};
use syn::visit::Visit;

impl Gen<'_> {
    /// Whether the reverse of `l` may pass its carried slope back scaled:
    /// one carried binding, a recorded scalar, and a body whose reverse
    /// reads no adjoint but the carry's (see the module's notes). Never in
    /// the plain adjoint.
    pub(super) fn scales_carry(&self, l: &Loop) -> bool {
        !self.plain
            && l.carried.len() == 1
            && matches!(l.carried[0].end, Val::Active(_))
            && only_scalar_steps(&l.steps)
    }
}

/// Operations on scalars and reads of arrays only, in arms too: no loop,
/// no write of an array, no call differentiated through its adjoint.
fn only_scalar_steps(steps: &[Step]) -> bool {
    steps.iter().all(|step| match step {
        Step::Op(op) => matches!(op.kind, OpKind::Rule(_) | OpKind::Read { .. }),
        Step::Branch(b) => b.arms.iter().all(|(_, arm)| only_scalar_steps(arm)),
        _ => false,
    })
}

/// With `body` the reverse of one iteration, in which `let #next = …;`
/// holds the slope passed back to the iteration before and `carry` the
/// one passed to this: the statements that pass it back scaled (`gamma`
/// the name of the slope scaled), or `None` where the statements `next` reads
/// are not all `let`s of expressions this module can read, or where the
/// walk back is short already (no division, no call of a function of the
/// float, fewer than three operations).
pub(super) fn scaled(
    body: &TokenStream,
    carry: &Ident,
    next: &Ident,
    [unit, gamma]: [&Ident; 2],
) -> Option<TokenStream> {
    let block: syn::Block = syn::parse2(quote!({ #body })).ok()?;
    let mut seen = Seen::default();
    seen.visit_block(&block);
    if seen.opaque {
        return None;
    }
    let stmts = &block.stmts;
    let at = stmts
        .iter()
        .position(|s| simple_let(s).is_some_and(|(name, _)| name == next))?;
    let (_, next_expr) = simple_let(&stmts[at])?;
    let mut needed = BTreeSet::new();
    let mut cost = Cost::default();
    read(next_expr, &mut needed, &mut cost)?;
    let mut taken = Vec::new();
    for stmt in stmts[..at].iter().rev() {
        match simple_let(stmt) {
            Some((name, expr)) if needed.contains(&name.to_string()) => {
                needed.remove(&name.to_string());
                read(expr, &mut needed, &mut cost)?;
                taken.push(stmt);
            }
            _ => {
                // a name bound by any other statement of the body's top level
                // is not one the block could read as it is read here
                if let syn::Stmt::Local(local) = stmt {
                    let mut bound = Seen::default();
                    bound.visit_pat(&local.pat);
                    if bound.bound.keys().any(|b| needed.contains(b)) {
                        return None;
                    }
                }
            }
        }
    }
    let carry_name = carry.to_string();
    // the carry seeds the chain; every other name read from outside the
    // block holds one value for the whole body (bound nowhere in it) and
    // is a value of the forward run (never assigned in it)
    if !needed.contains(&carry_name)
        || needed
            .iter()
            .any(|n| seen.bound.contains_key(n) || seen.assigned.contains(n))
    {
        return None;
    }
    if !cost.worth() {
        return None;
    }
    if let Some(whole) = whole(stmts, carry, next, [unit, gamma]) {
        return Some(whole);
    }
    taken.reverse();
    Some(quote! {
        #body
        let #gamma = #carry * {
            let #carry = ::mica::__private::one_like(&#carry);
            #(#taken)*
            #next_expr
        };
        #carry = #gamma;
        let _ = #next;
    })
}

/// The whole body computed for a carry of `1` (`unit`), each addition
/// into a place outside it scaled by the carry, where every statement of
/// its top level is a `let` or such an addition, of expressions `read`
/// reads, and no place added into is read in it: the chain of the carry is
/// then written once, where `scaled` writes it twice (a division twice).
fn whole(
    stmts: &[syn::Stmt],
    carry: &Ident,
    next: &Ident,
    [unit, gamma]: [&Ident; 2],
) -> Option<TokenStream> {
    // the names the body reads, the places it adds into by their indices
    // alone
    let mut read_names = BTreeSet::new();
    let mut targets = BTreeSet::new();
    let mut cost = Cost::default();
    let mut out = TokenStream::new();
    for stmt in stmts {
        match stmt {
            syn::Stmt::Local(local) => {
                let named = match &local.pat {
                    syn::Pat::Wild(_) => true,
                    syn::Pat::Ident(p) => {
                        p.by_ref.is_none() && p.mutability.is_none() && p.subpat.is_none()
                    }
                    _ => false,
                };
                let init = local.init.as_ref()?;
                if !named || init.diverge.is_some() {
                    return None;
                }
                read(&init.expr, &mut read_names, &mut cost)?;
                out.extend([renamed(stmt.to_token_stream(), carry, unit)]);
            }
            syn::Stmt::Expr(syn::Expr::Binary(e), Some(semi))
                if matches!(e.op, syn::BinOp::AddAssign(_) | syn::BinOp::SubAssign(_)) =>
            {
                targets.insert(place(&e.left, &mut read_names, &mut cost)?);
                read(&e.right, &mut read_names, &mut cost)?;
                let (left, op) = (&e.left, &e.op);
                let right = renamed(e.right.to_token_stream(), carry, unit);
                out.extend([quote!(#left #op #carry * (#right) #semi)]);
            }
            _ => return None,
        }
    }
    // a place added into is read nowhere in the body, and is not the carry
    if targets
        .iter()
        .any(|t| t == &carry.to_string() || read_names.contains(t))
    {
        return None;
    }
    Some(quote! {
        let #unit = ::mica::__private::one_like(&#carry);
        #out
        let #gamma = #carry * #next;
        #carry = #gamma;
    })
}

/// The name at the root of a place added into (`acc`, `s[i]`, `(*d)[i]`),
/// the names its indices read into `names`; `None` for any other
/// expression, or an index `read` does not read.
fn place(e: &syn::Expr, names: &mut BTreeSet<String>, cost: &mut Cost) -> Option<String> {
    use syn::Expr as E;
    match e {
        E::Path(p) if p.qself.is_none() => p.path.get_ident().map(Ident::to_string),
        E::Paren(e) => place(&e.expr, names, cost),
        E::Field(e) => place(&e.base, names, cost),
        E::Unary(e) if matches!(e.op, syn::UnOp::Deref(_)) => place(&e.expr, names, cost),
        E::Index(e) => {
            read(&e.index, names, cost)?;
            place(&e.expr, names, cost)
        }
        _ => None,
    }
}

/// `tokens` with every identifier `from` made `to`.
fn renamed(tokens: TokenStream, from: &Ident, to: &Ident) -> TokenStream {
    tokens
        .into_iter()
        .map(|tree| match tree {
            proc_macro2::TokenTree::Ident(i) if &i == from => {
                proc_macro2::TokenTree::Ident(to.clone())
            }
            proc_macro2::TokenTree::Group(g) => {
                let mut group =
                    proc_macro2::Group::new(g.delimiter(), renamed(g.stream(), from, to));
                group.set_span(g.span());
                proc_macro2::TokenTree::Group(group)
            }
            other => other,
        })
        .collect()
}

/// `let name = expr;` with a plain name and no `else`.
fn simple_let(stmt: &syn::Stmt) -> Option<(&Ident, &syn::Expr)> {
    let syn::Stmt::Local(local) = stmt else {
        return None;
    };
    let syn::Pat::Ident(p) = &local.pat else {
        return None;
    };
    if p.by_ref.is_some() || p.mutability.is_some() || p.subpat.is_some() {
        return None;
    }
    let init = local.init.as_ref()?;
    if init.diverge.is_some() {
        return None;
    }
    Some((&p.ident, &init.expr))
}

/// What the reverse's operations on the path cost.
#[derive(Default)]
struct Cost {
    operations: usize,
    divides: bool,
    calls: bool,
}

impl Cost {
    fn worth(&self) -> bool {
        self.divides || self.calls || self.operations >= 3
    }
}

/// Whether `e` calls a float method of the recorded vocabulary
/// (`rules.rs`), which reads its receiver and arguments and changes
/// nothing.
fn is_float_method(e: &syn::ExprMethodCall) -> bool {
    crate::rules::method(&e.method.to_string()).is_some_and(|m| m.args == e.args.len())
}

/// The names `expr` reads, into `names`, if it is made only of operations
/// that read (arithmetic, comparisons, casts, fields, elements, the
/// float's pure methods, Mica's own functions, `if … else …` of such).
fn read(expr: &syn::Expr, names: &mut BTreeSet<String>, cost: &mut Cost) -> Option<()> {
    use syn::Expr as E;
    match expr {
        E::Lit(_) => Some(()),
        E::Path(p) => {
            if p.qself.is_none() && p.path.leading_colon.is_none() && p.path.segments.len() == 1 {
                names.insert(p.path.segments[0].ident.to_string());
            }
            Some(())
        }
        E::Paren(e) => read(&e.expr, names, cost),
        E::Group(e) => read(&e.expr, names, cost),
        E::Cast(e) => read(&e.expr, names, cost),
        E::Field(e) => read(&e.base, names, cost),
        E::Reference(e) if e.mutability.is_none() => read(&e.expr, names, cost),
        E::Unary(e) => match e.op {
            syn::UnOp::Neg(_) | syn::UnOp::Not(_) | syn::UnOp::Deref(_) => {
                read(&e.expr, names, cost)
            }
            _ => None,
        },
        E::Binary(e) => {
            use syn::BinOp as B;
            match e.op {
                B::Div(_) => cost.divides = true,
                B::Add(_) | B::Sub(_) | B::Mul(_) => cost.operations += 1,
                B::Lt(_) | B::Le(_) | B::Gt(_) | B::Ge(_) | B::Eq(_) | B::Ne(_) => {}
                B::And(_) | B::Or(_) => {}
                _ => return None,
            }
            read(&e.left, names, cost)?;
            read(&e.right, names, cost)
        }
        E::Index(e) => {
            read(&e.expr, names, cost)?;
            read(&e.index, names, cost)
        }
        E::MethodCall(e) => {
            if !is_float_method(e) {
                return None;
            }
            cost.calls = true;
            read(&e.receiver, names, cost)?;
            e.args.iter().try_for_each(|a| read(a, names, cost))
        }
        E::Call(e) => {
            let E::Path(f) = &*e.func else {
                return None;
            };
            if !is_micas(f) {
                return None;
            }
            cost.calls = true;
            e.args.iter().try_for_each(|a| read(a, names, cost))
        }
        E::If(e) => {
            read(&e.cond, names, cost)?;
            read_block(&e.then_branch, names, cost)?;
            match &e.else_branch {
                Some((_, other)) => read(other, names, cost),
                None => None,
            }
        }
        E::Block(e) if e.label.is_none() => read_block(&e.block, names, cost),
        _ => None,
    }
}

/// A block that is one expression.
fn read_block(block: &syn::Block, names: &mut BTreeSet<String>, cost: &mut Cost) -> Option<()> {
    match block.stmts.as_slice() {
        [syn::Stmt::Expr(e, None)] => read(e, names, cost),
        _ => None,
    }
}

/// A path to one of Mica's own functions (`::mica::…`, or a method of one
/// of its traits), which read their arguments and change nothing.
fn is_micas(f: &syn::ExprPath) -> bool {
    let path = match &f.qself {
        Some(q) => {
            // `<T as ::mica::__private::One>::one`: the trait's path is
            // the first `q.position` segments
            return f.path.leading_colon.is_some()
                && q.position > 0
                && f.path.segments.first().is_some_and(|s| s.ident == "mica");
        }
        None => &f.path,
    };
    path.leading_colon.is_some() && path.segments.first().is_some_and(|s| s.ident == "mica")
}

/// Every name the body binds (with how often), every name it assigns or
/// borrows mutably, and whether it holds code this module does not read
/// (a macro, a closure).
#[derive(Default)]
struct Seen {
    bound: BTreeMap<String, usize>,
    assigned: BTreeSet<String>,
    opaque: bool,
}

impl Seen {
    fn assign(&mut self, target: &syn::Expr) {
        match root(target, Reach::Place) {
            Some(name) => {
                self.assigned.insert(name.to_string());
            }
            None => self.opaque = true,
        }
    }
}

impl<'ast> Visit<'ast> for Seen {
    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        *self.bound.entry(p.ident.to_string()).or_default() += 1;
        syn::visit::visit_pat_ident(self, p);
    }

    fn visit_expr_assign(&mut self, e: &'ast syn::ExprAssign) {
        self.assign(&e.left);
        syn::visit::visit_expr_assign(self, e);
    }

    fn visit_expr_binary(&mut self, e: &'ast syn::ExprBinary) {
        if crate::facts::syntax::is_compound(&e.op) {
            self.assign(&e.left);
        }
        syn::visit::visit_expr_binary(self, e);
    }

    fn visit_expr_reference(&mut self, e: &'ast syn::ExprReference) {
        if e.mutability.is_some() {
            self.assign(&e.expr);
        }
        syn::visit::visit_expr_reference(self, e);
    }

    fn visit_expr_method_call(&mut self, e: &'ast syn::ExprMethodCall) {
        // a method may take its receiver by `&mut`
        if !is_float_method(e) {
            if let Some(name) = root(&e.receiver, Reach::Place) {
                self.assigned.insert(name.to_string());
            }
        }
        syn::visit::visit_expr_method_call(self, e);
    }

    fn visit_macro(&mut self, _: &'ast syn::Macro) {
        self.opaque = true;
    }

    fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {
        self.opaque = true;
    }
}

#[cfg(test)]
mod tests {
    use super::scaled;
    use proc_macro2::{Ident, Span, TokenStream};
    use quote::quote;

    fn run(body: TokenStream) -> Option<String> {
        let id = |s: &str| Ident::new(s, Span::call_site());
        scaled(&body, &id("k"), &id("n"), [&id("u"), &id("g")]).map(|t| t.to_string())
    }

    #[test]
    fn a_chain_through_a_division_is_passed_back_scaled() {
        // lets and additions only: the body computed for a carry of one,
        // its additions scaled
        let out = run(quote! {
            let a1 = k;
            let q = -a1 / t;
            acc += q * z;
            s[i] -= a1;
            let n = a1 + q * w * z;
        })
        .expect("scaled");
        let want = quote! {
            let u = ::mica::__private::one_like(&k);
            let a1 = u;
            let q = -a1 / t;
            acc += k * (q * z);
            s[i] -= k * (a1);
            let n = a1 + q * w * z;
            let g = k * n;
            k = g;
        };
        assert_eq!(out, want.to_string());
        // a statement of another kind: the chain written again, in a block
        // where the carry is one
        let body = quote! {
            let a1 = k;
            let q = -a1 / t;
            if c { acc += q * z; }
            let n = a1 + q * w * z;
        };
        let out = run(body.clone()).expect("scaled");
        let want = quote! {
            #body
            let g = k * {
                let k = ::mica::__private::one_like(&k);
                let a1 = k;
                let q = -a1 / t;
                a1 + q * w * z
            };
            k = g;
            let _ = n;
        };
        assert_eq!(out, want.to_string());
        // a place added into and read: written again too
        let out = run(quote! { let a1 = k; acc += a1; let b = acc; let n = a1 / t + b; });
        assert!(out.is_none());
        let out = run(quote! { let a1 = k; acc += a1 * t; let n = a1 / t; let _ = acc; })
            .expect("scaled");
        assert!(out.contains("one_like (& k) ; let a1 = k"), "{out}");
    }

    #[test]
    fn what_is_not_read_as_written_is_left_alone() {
        // an adjoint read from an array, or a name assigned in the body
        assert!(
            run(quote! { let a1 = k; let b = h[i]; h[i] = 0.0; let n = a1 / t + b; }).is_none()
        );
        assert!(run(quote! { let a1 = k; acc += a1; let n = a1 / acc; }).is_none());
        // a name bound twice, or by a pattern
        assert!(run(quote! { let (t, u) = p; let a1 = k; let n = a1 / t; }).is_none());
        assert!(run(quote! { let a1 = k; if c { let t = 1.0; } let n = a1 / t; }).is_none());
        // a call of a function that is not the float's, a macro, a closure
        assert!(run(quote! { let a1 = k; let n = f(a1) / t; }).is_none());
        assert!(run(quote! { let a1 = k; let n = a1 / m!(t); }).is_none());
        assert!(run(quote! { let a1 = k; let f = |x| x; let n = a1 / t; }).is_none());
        // not a chain of the carry, or a short one
        assert!(run(quote! { let n = t / u; }).is_none());
        assert!(run(quote! { let a1 = k; let n = a1 * t; }).is_none());
        // the name passed back is not a plain `let`
        assert!(run(quote! { let a1 = k; let mut n = a1 / t; }).is_none());
    }
}
