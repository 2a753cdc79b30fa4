//! An `Option` made in place and tested at once, `match helper(x) {
//! Some(q) => a, None => b }` with the helper's body written at the call
//! (or `if let Some(q) = … { a } else { b }`): the arms are written where
//! the `Option` is made, each `None` becoming `b` and each `Some(e)`
//! becoming `{ let q = e; a }`, so no `Option` of a recorded value is
//! left to test.

use crate::helpers::subst::Bound;
use crate::names::idents_in;
use quote::quote;
use std::collections::HashSet;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, Pat, Stmt};

/// `if let Some(p) = o { a } else { b }` with `o` a block, `if` or
/// `match` whose every value is `None` or `Some(e)`, and that binds no
/// name `a` or `b` reads: `o` with its values replaced.
pub(super) fn distributed(i: &syn::ExprIf) -> Result<Option<Expr>, syn::Error> {
    let Some(arms) = arms(i) else {
        return Ok(None);
    };
    let Expr::Let(l) = &*i.cond else {
        return Ok(None);
    };
    // a helper's body left early by `return` is a loop, which its arms
    // leave with their values: an arm that leaves a loop around the test,
    // or gives no value, cannot be written inside it
    if let Expr::Loop(lp) = strip(&l.expr) {
        if lp.label.is_none() {
            return Ok(None);
        }
        if let Some(at) = arms.leaves().or_else(|| arms.no_value()) {
            return Err(syn::Error::new(at, LEFT_EARLY));
        }
    }
    Ok(arms.value(&l.expr))
}

const LEFT_EARLY: &str = "the helper whose `Option` this arm tests leaves its body early by `return`, and this arm leaves a loop around the test or gives no value, which Mica cannot write where the `Option` is made: give the helper one exit (`if d < 0.0 { None } else { Some(…) }`), or make each arm a value (`let t = match root(…) { Some(t) => t, None => 0.0 };`)";

/// The arms of `if let Some(p) = o { a } else { b }` where `o` is made in
/// place and binds no name `a` or `b` reads.
fn arms(i: &syn::ExprIf) -> Option<Arms> {
    let Expr::Let(l) = &*i.cond else { return None };
    let Pat::TupleStruct(t) = &*l.pat else {
        return None;
    };
    if t.qself.is_some() || !t.path.is_ident("Some") || t.elems.len() != 1 {
        return None;
    }
    let pat = &t.elems[0];
    let simple = match pat {
        Pat::Ident(p) => p.by_ref.is_none() && p.subpat.is_none(),
        Pat::Wild(_) => true,
        _ => false,
    };
    // (an `Option` from a name or a call is not made in place)
    let made = matches!(
        strip(&l.expr),
        Expr::Block(_) | Expr::If(_) | Expr::Match(_) | Expr::Loop(_)
    );
    if !simple || !made {
        return None;
    }
    let mut then = i.then_branch.clone();
    let mut otherwise: Expr = match &i.else_branch {
        Some((_, e)) => match &**e {
            leave @ (Expr::Continue(_) | Expr::Break(_) | Expr::Return(_)) => {
                syn::parse_quote!({ #leave })
            }
            e => e.clone(),
        },
        None => syn::parse_quote!({}),
    };
    // (`None => continue`: a statement of its own, as the lowering takes it)
    settle(&mut then);
    if let Expr::Block(b) = &mut otherwise {
        settle(&mut b.block);
    }
    let then = &then;
    let mut read = HashSet::new();
    idents_in(quote!(#then #otherwise), &mut read);
    // (a closure's parameters are not in scope where the arms are written)
    let mut made = (*l.expr).clone();
    NoClosures.visit_expr_mut(&mut made);
    let mut bound = Bound::default();
    bound.visit_expr(&made);
    if bound.0.iter().any(|n| read.contains(n)) {
        return None;
    }
    Some(Arms {
        pat: pat.clone(),
        then: then.clone(),
        none: otherwise,
    })
}

struct Arms {
    /// the `Some` arm: its pattern and its block
    pat: Pat,
    then: syn::Block,
    none: Expr,
}

impl Arms {
    /// `e`, each of its values `None` or `Some(v)` replaced by its arm.
    fn value(&self, e: &Expr) -> Option<Expr> {
        match strip(e) {
            Expr::Path(p) if p.qself.is_none() && p.path.is_ident("None") => {
                Some(self.none.clone())
            }
            Expr::Call(c) if c.args.len() == 1 => {
                let Expr::Path(f) = &*c.func else { return None };
                if f.qself.is_some() || !f.path.is_ident("Some") {
                    return None;
                }
                let (v, pat, then) = (&c.args[0], &self.pat, &self.then.stmts);
                Some(syn::parse_quote!({ let #pat = #v; #(#then)* }))
            }
            Expr::Block(b) if b.label.is_none() && b.attrs.is_empty() => {
                let mut block = b.clone();
                let Some(Stmt::Expr(last, None)) = block.block.stmts.pop() else {
                    return None;
                };
                // (a block in the tail, its lines: no braces in braces)
                match self.value(&last)? {
                    Expr::Block(b) if b.label.is_none() && b.attrs.is_empty() => {
                        block.block.stmts.extend(b.block.stmts)
                    }
                    other => block.block.stmts.push(Stmt::Expr(other, None)),
                }
                Some(Expr::Block(block))
            }
            Expr::If(i) => {
                let mut i = i.clone();
                let (_, otherwise) = i.else_branch.as_mut()?;
                **otherwise = self.value(otherwise)?;
                let then = Expr::Block(syn::ExprBlock {
                    attrs: Vec::new(),
                    label: None,
                    block: i.then_branch.clone(),
                });
                let Expr::Block(b) = self.value(&then)? else {
                    return None;
                };
                i.then_branch = b.block;
                Some(Expr::If(i))
            }
            Expr::Match(m) => {
                let mut m = m.clone();
                for arm in &mut m.arms {
                    *arm.body = self.value(&arm.body)?;
                }
                Some(Expr::Match(m))
            }
            // a helper's body left early by `return`: the labelled loop its
            // `return`s break with their values (the arms, moved inside
            // it, must not `break` or `continue` a loop of their own)
            Expr::Loop(l)
                if l.label.is_some() && self.leaves().is_none() && self.no_value().is_none() =>
            {
                let mut l = l.clone();
                let mut breaks = Breaks {
                    label: l.label.as_ref()?.name.ident.clone(),
                    arms: self,
                    ok: true,
                };
                breaks.visit_block_mut(&mut l.body);
                breaks.ok.then_some(Expr::Loop(l))
            }
            _ => None,
        }
    }

    /// Where an arm gives no value: its last line a statement or an
    /// assignment, or no line at all.
    fn no_value(&self) -> Option<proc_macro2::Span> {
        fn unit(stmts: &[Stmt], whole: proc_macro2::Span) -> Option<proc_macro2::Span> {
            match stmts.last() {
                Some(Stmt::Expr(e, None)) => match strip(e) {
                    Expr::Block(b) => unit(&b.block.stmts, whole),
                    e if crate::facts::places::is_assignment(e) => Some(e.span()),
                    _ => None,
                },
                Some(s) => Some(s.span()),
                None => Some(whole),
            }
        }
        let none = match &self.none {
            Expr::Block(b) => unit(&b.block.stmts, b.block.brace_token.span.join()),
            e if crate::facts::places::is_assignment(e) => Some(e.span()),
            _ => None,
        };
        unit(&self.then.stmts, self.then.brace_token.span.join()).or(none)
    }

    /// Where an arm may `break` or `continue` a loop around the `match`.
    fn leaves(&self) -> Option<proc_macro2::Span> {
        let mut leaving = crate::exits::Leaving::default();
        leaving.visit_block(&self.then);
        leaving.visit_expr(&self.none);
        leaving.found.first().map(|e| e.span())
    }
}

/// Each `break 'label v` of the helper's loop as `break 'label` with its
/// arm.
struct Breaks<'a> {
    label: proc_macro2::Ident,
    arms: &'a Arms,
    ok: bool,
}

impl VisitMut for Breaks<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if let Expr::Break(b) = e {
            if b.label.as_ref().is_some_and(|l| l.ident == self.label) {
                match b.expr.as_deref().and_then(|v| self.arms.value(v)) {
                    Some(arm) => b.expr = Some(Box::new(arm)),
                    None => self.ok = false,
                }
                return;
            }
        }
        if !matches!(e, Expr::Closure(_)) {
            visit_mut::visit_expr_mut(self, e);
        }
    }
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// A block's last line that leaves (`continue`, `break`, `return`) as a
/// statement.
fn settle(block: &mut syn::Block) {
    if let Some(Stmt::Expr(Expr::Continue(_) | Expr::Break(_) | Expr::Return(_), semi @ None)) =
        block.stmts.last_mut()
    {
        *semi = Some(Default::default());
    }
}

fn strip(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip(&p.expr),
        Expr::Group(g) => strip(&g.expr),
        _ => e,
    }
}

/// Every closure replaced by `()`.
struct NoClosures;

impl VisitMut for NoClosures {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        match e {
            Expr::Closure(_) => *e = syn::parse_quote!(()),
            _ => visit_mut::visit_expr_mut(self, e),
        }
    }
}
