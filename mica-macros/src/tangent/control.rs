//! Control flow as an expression in forward mode: `if`, `match`, blocks,
//! loops, `return` and `break`, each arm giving the value and its tangent.

use super::activity::{breaks_read, mentions};
use super::stmts::Tail;
use super::{Carry, Tan, Val};
use proc_macro2::TokenStream;
use quote::quote;
use syn::{Expr, Stmt};

impl Tan<'_> {
    /// `{ … }` written in forward mode.
    pub(crate) fn block(&mut self, b: &syn::Block, tail: Tail) -> TokenStream {
        // names a `let` inside binds by reference are read so only there
        let outer_by_ref = self.by_ref.clone();
        let inner = self.stmts(&b.stmts, tail);
        self.by_ref = outer_by_ref;
        quote!({ #inner })
    }

    /// After a `let`: `let r = &x[i];` of an element with a slope is read
    /// as `(*r)` (the rules' arithmetic takes values), its tangent as
    /// `(*dot_r)`; any other `let` of the name ends that.
    pub(crate) fn note_by_ref(&mut self, l: &syn::Local) {
        use crate::facts::syntax::strip_parens;
        let names = super::syntax::pattern_names(&l.pat);
        for n in &names {
            self.by_ref.remove(n);
        }
        let element = l.init.as_ref().is_some_and(|init| {
            matches!(strip_parens(&init.expr), Expr::Reference(r)
                if r.mutability.is_none()
                    && matches!(strip_parens(&r.expr), Expr::Index(i)
                        if !matches!(strip_parens(&i.index), Expr::Range(_))))
        });
        if let [name] = &names[..] {
            if element && matches!(&l.pat, syn::Pat::Ident(_)) && self.active.contains(name) {
                self.by_ref.insert(name.clone());
            }
        }
    }

    /// Control flow as an expression: `(value, tangent)` out of each arm,
    /// bound before the line that reads it.
    pub(crate) fn control(&mut self, e: &Expr, pre: &mut TokenStream, tail: Tail) -> Val {
        let code = match e {
            Expr::If(i) => self.if_expr(i, tail),
            Expr::Match(m) => {
                let scrutinee = &m.expr;
                let arms = m.arms.iter().map(|arm| {
                    let (attrs, pat) = (&arm.attrs, &arm.pat);
                    let guard = arm.guard.as_ref().map(|(i, g)| quote!(#i #g));
                    let body = self.arm_body(&arm.body, tail);
                    quote!(#(#attrs)* #pat #guard => #body,)
                });
                let arms: Vec<TokenStream> = arms.collect();
                quote!(match #scrutinee { #(#arms)* })
            }
            Expr::Block(b) if b.label.is_some() && tail == Tail::Value => {
                // a labeled block whose `break 'l value` carries a slope (an
                // inlined helper's early return): the value and its tangent
                // (a tuple's elements and theirs) are assigned to names
                // declared before it
                let label = &b.label;
                let name = b.label.as_ref().map(|l| l.name.ident.to_string());
                let n = b.block.stmts.len();
                let (head, last) = match b.block.stmts.last() {
                    Some(Stmt::Expr(e, None)) => (&b.block.stmts[..n - 1], Some(e)),
                    _ => (&b.block.stmts[..], None),
                };
                let arity = last.and_then(super::shapes::tuple_arity).unwrap_or(1);
                let carry = Carry {
                    p: (0..arity).map(|_| self.fresh("p")).collect(),
                    t: (0..arity).map(|_| self.fresh("t")).collect(),
                };
                let zero = match last {
                    Some(e) if arity == 1 => self.carry_zero(Some(e), &b.block),
                    _ => self.k(0.0),
                };
                self.loops.push((name, Some(carry.clone())));
                let mut inner = self.stmts(head, Tail::Unit);
                if let Some(e) = last {
                    let mut before = TokenStream::new();
                    let v = self.expr(e, &mut before);
                    let assign = self.carry_assign(&carry, v, e);
                    inner.extend(quote!(#before #assign));
                }
                self.loops.pop();
                let (ps, ts) = (&carry.p, &carry.t);
                pre.extend(
                    quote!(#(let mut #ps = #zero;)* #(let mut #ts = #zero;)* #label { #inner }),
                );
                return carried(ps, ts);
            }
            Expr::Block(b) => {
                let label = &b.label;
                let name = b.label.as_ref().map(|l| l.name.ident.to_string());
                self.loops.push((name, None));
                let inner = self.block(&b.block, tail);
                self.loops.pop();
                quote!(#label #inner)
            }
            Expr::Unsafe(u) => {
                let inner = self.block(&u.block, tail);
                quote!(unsafe #inner)
            }
            Expr::ForLoop(f) => {
                let mut inner = TokenStream::new();
                let code = self.for_loop(f, &mut inner);
                quote!({ #inner #code })
            }
            Expr::While(w) => {
                let (label, cond) = (&w.label, &w.cond);
                self.loops
                    .push((label.as_ref().map(|l| l.name.ident.to_string()), None));
                let body = self.block(&w.body, Tail::Unit);
                self.loops.pop();
                quote!(#label while #cond #body)
            }
            Expr::Loop(l) => {
                let label = &l.label;
                // `break value` assigns the value and its tangent to names
                // declared before the loop, then breaks
                // (a tuple's values each to a name of its own, as a labeled
                // block's: no branch of the loop assigns a tuple)
                let arity = first_break(&l.body)
                    .and_then(super::shapes::tuple_arity)
                    .unwrap_or(1);
                let carries = breaks_read(l, &self.active).then(|| Carry {
                    p: (0..arity).map(|_| self.fresh("p")).collect(),
                    t: (0..arity).map(|_| self.fresh("t")).collect(),
                });
                self.loops.push((
                    label.as_ref().map(|l| l.name.ident.to_string()),
                    carries.clone(),
                ));
                let body = self.block(&l.body, Tail::Unit);
                self.loops.pop();
                let code = quote!(#label loop #body);
                if let Some(Carry { p, t }) = carries {
                    let zero = match arity {
                        1 => self.carry_zero(first_break(&l.body), &l.body),
                        _ => self.k(0.0),
                    };
                    pre.extend(quote!(#(let mut #p = #zero;)* #(let mut #t = #zero;)* #code;));
                    return carried(&p, &t);
                }
                code
            }
            Expr::Return(r) => match &r.expr {
                None => quote!(return),
                Some(value) => {
                    let mut inner = TokenStream::new();
                    let v = self.expr(value, &mut inner);
                    let out = self.finish(v, value, Tail::Return);
                    quote!({ #inner return #out })
                }
            },
            Expr::Break(b) => {
                let target = match &b.label {
                    Some(l) => {
                        let name = l.ident.to_string();
                        self.loops
                            .iter()
                            .rev()
                            .find(|(n, _)| n.as_deref() == Some(&name))
                    }
                    None => self.loops.last(),
                };
                let carries = target.and_then(|(_, c)| c.clone());
                match (&b.expr, carries) {
                    (Some(value), Some(carry)) => {
                        let label = &b.label;
                        let mut inner = TokenStream::new();
                        let v = self.expr(value, &mut inner);
                        let assign = self.carry_assign(&carry, v, value);
                        quote!({ #inner #assign break #label; })
                    }
                    _ => quote!(#b),
                }
            }
            _ => return self.refuse(e, "forward mode does not follow this expression yet"),
        };
        match tail {
            Tail::Value => self.bind_pair(code, pre),
            _ => Val {
                p: code,
                t: None,
                cheap: false,
            },
        }
    }

    /// What a carry's names start from: a zero shaped after the value
    /// that leaves `body`, unless that value reads names `body` binds (then
    /// the type comes from the assignments; every way out assigns before
    /// the names are read).
    fn carry_zero(&self, value: Option<&Expr>, body: &syn::Block) -> TokenStream {
        match value {
            Some(e) if !mentions(e, &bound_inside(body)) => self.zero_of(e),
            Some(_) => quote!(::core::default::Default::default()),
            None => self.k(0.0),
        }
    }

    /// `value` and its tangent assigned to a carry's names.
    fn carry_assign(&mut self, carry: &Carry, v: Val, e: &Expr) -> TokenStream {
        let t = v.t.unwrap_or_else(|| self.zero_of(e));
        let p = v.p;
        let (ps, ts) = (&carry.p, &carry.t);
        if ps.len() == 1 {
            return quote!(#(#ps)* = #p; #(#ts)* = #t;);
        }
        let es: Vec<_> = ps.iter().map(|_| self.fresh("e")).collect();
        let fs: Vec<_> = ts.iter().map(|_| self.fresh("f")).collect();
        quote!(let (#(#es,)*) = #p; let (#(#fs,)*) = #t; #(#ps = #es;)* #(#ts = #fs;)*)
    }

    fn bind_pair(&mut self, code: TokenStream, pre: &mut TokenStream) -> Val {
        let (p, t) = (self.fresh("p"), self.fresh("t"));
        pre.extend(quote!(let (#p, #t) = #code;));
        Val {
            p: quote!(#p),
            t: Some(quote!(#t)),
            cheap: true,
        }
    }

    fn if_expr(&mut self, i: &syn::ExprIf, tail: Tail) -> TokenStream {
        let cond = &i.cond;
        let then = self.block(&i.then_branch, tail);
        let els = match &i.else_branch {
            None => TokenStream::new(),
            Some((_, e)) => match &**e {
                Expr::If(inner) => {
                    let inner = self.if_expr(inner, tail);
                    quote!(else #inner)
                }
                Expr::Block(b) => {
                    let b = self.block(&b.block, tail);
                    quote!(else #b)
                }
                other => {
                    let b = self.arm_body(other, tail);
                    quote!(else { #b })
                }
            },
        };
        quote!(if #cond #then #els)
    }

    fn arm_body(&mut self, body: &Expr, tail: Tail) -> TokenStream {
        if let Expr::Block(b) = body {
            if b.label.is_none() {
                return self.block(&b.block, tail);
            }
        }
        let mut inner = TokenStream::new();
        let out = match tail {
            Tail::Tuple(_) => self.flat_tuple(body, &mut inner, tail),
            Tail::Assign => self.assign_value(body, &mut inner),
            Tail::Unit if mentions(body, &self.active) => {
                let v = self.effect(body);
                quote!(#v;)
            }
            Tail::Unit => quote!(#body;),
            _ => {
                let v = self.expr(body, &mut inner);
                self.finish(v, body, tail)
            }
        };
        quote!({ #inner #out })
    }
}

/// The names `let`s inside `b` bind (at any depth).
fn bound_inside(b: &syn::Block) -> std::collections::HashSet<String> {
    struct Lets(std::collections::HashSet<String>);
    impl<'a> syn::visit::Visit<'a> for Lets {
        fn visit_local(&mut self, l: &'a syn::Local) {
            self.0.extend(super::syntax::pattern_names(&l.pat));
            syn::visit::visit_local(self, l);
        }
    }
    let mut lets = Lets(std::collections::HashSet::new());
    syn::visit::Visit::visit_block(&mut lets, b);
    lets.0
}

/// The value of the first `break value` of a loop (not of a loop inside
/// it): what the loop's value looks like.
fn first_break(b: &syn::Block) -> Option<&Expr> {
    struct First<'a>(Option<&'a Expr>);
    impl<'a> syn::visit::Visit<'a> for First<'a> {
        fn visit_expr_break(&mut self, b: &'a syn::ExprBreak) {
            if self.0.is_none() && b.label.is_none() {
                self.0 = b.expr.as_deref();
            }
        }
        fn visit_expr_loop(&mut self, _: &'a syn::ExprLoop) {}
        fn visit_expr_while(&mut self, _: &'a syn::ExprWhile) {}
        fn visit_expr_for_loop(&mut self, _: &'a syn::ExprForLoop) {}
        fn visit_expr_closure(&mut self, _: &'a syn::ExprClosure) {}
    }
    let mut first = First(None);
    syn::visit::Visit::visit_block(&mut first, b);
    first.0
}

/// The value and tangent a carry's names hold after its block or loop: the
/// one name each, or the tuples of them.
fn carried(ps: &[proc_macro2::Ident], ts: &[proc_macro2::Ident]) -> Val {
    match ps.len() {
        1 => Val {
            p: quote!(#(#ps)*),
            t: Some(quote!(#(#ts)*)),
            cheap: true,
        },
        _ => Val {
            p: quote!((#(#ps,)*)),
            t: Some(quote!((#(#ts,)*))),
            cheap: false,
        },
    }
}
