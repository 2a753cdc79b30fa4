//! Closures bound by `let` in a body: a call `f(x)` is written as the
//! closure's body where it stands (`{ let v = x; v * v + a }`), and an
//! adapter given the closure's name (`.map(f)`) is given the closure
//! itself, before any analysis; the chains are then loops
//! (`iterators.rs`). The closure reads the names around its `let`, so it is
//! written out only where no later `let` has shadowed one of them.

use crate::errors::Errors;
use crate::names::idents_in;
use quote::ToTokens;
use std::collections::HashSet;
use syn::visit::Visit;
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, ExprClosure, Pat, Stmt};

/// Writes out the closures of `block`; whether anything changed.
pub fn rewrite(block: &mut syn::Block, errors: &mut Errors) -> bool {
    let mut pass = Pass {
        changed: false,
        errors: Vec::new(),
    };
    pass.visit_block_mut(block);
    errors.extend(pass.errors);
    pass.changed
}

struct Pass {
    changed: bool,
    errors: Vec<syn::Error>,
}

fn unparen(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => unparen(&p.expr),
        other => other,
    }
}

/// `let name = |…| …;`: the name and the closure.
fn closure_let(stmt: &Stmt) -> Option<(String, ExprClosure)> {
    let Stmt::Local(local) = stmt else {
        return None;
    };
    let name = match &local.pat {
        Pat::Ident(p) if p.subpat.is_none() && p.by_ref.is_none() => p.ident.to_string(),
        _ => return None,
    };
    match local.init.as_ref().map(|i| &*i.expr) {
        // a closure holding a window stays, for the wall that says so
        Some(Expr::Closure(c))
            if local.init.as_ref().is_some_and(|i| i.diverge.is_none())
                && crate::windows::find_window(c.body.to_token_stream()).is_none() =>
        {
            Some((name, c.clone()))
        }
        _ => None,
    }
}

impl Pass {
    fn stmts(&mut self, stmts: &mut Vec<Stmt>) {
        let mut k = 0;
        while k < stmts.len() {
            if let Some((name, closure)) = closure_let(&stmts[k]) {
                let mut uses = Uses {
                    name: &name,
                    closure: &closure,
                    shadowed: None,
                    captured: captured(&closure),
                    errors: Vec::new(),
                    changed: false,
                };
                for stmt in stmts[k + 1..].iter_mut() {
                    uses.visit_stmt_mut(stmt);
                    // past another binding of its name, it is not this closure
                    if uses.shadowed.as_deref() == Some(name.as_str()) {
                        break;
                    }
                }
                self.errors.extend(uses.errors);
                if uses.changed {
                    self.changed = true;
                    // the binding goes when nothing names it any more
                    let named = stmts[k + 1..].iter().any(|s| {
                        let mut names = HashSet::new();
                        idents_in(s.to_token_stream(), &mut names);
                        names.contains(&name)
                    });
                    if !named {
                        stmts.remove(k);
                        continue;
                    }
                }
            }
            k += 1;
        }
        for stmt in stmts.iter_mut() {
            self.visit_stmt_mut(stmt);
        }
    }
}

impl VisitMut for Pass {
    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        self.stmts(&mut block.stmts);
    }
    /// `(|v| v * v)(x)`: the closure where it is called
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        visit_mut::visit_expr_mut(self, e);
        let Expr::Call(call) = e else { return };
        let Expr::Closure(c) = unparen(&call.func) else {
            return;
        };
        if crate::windows::find_window(c.body.to_token_stream()).is_some() {
            return;
        }
        let c = c.clone();
        let mut uses = Uses {
            name: "",
            closure: &c,
            shadowed: None,
            captured: HashSet::new(),
            errors: Vec::new(),
            changed: false,
        };
        let args: Vec<Expr> = call.args.iter().cloned().collect();
        let at = (*call.func).clone();
        if let Some(body) = uses.call(args, &at) {
            *e = body;
            self.changed = true;
        }
        self.errors.extend(uses.errors);
    }
    fn visit_stmt_mut(&mut self, s: &mut Stmt) {
        visit_mut::visit_stmt_mut(self, s);
    }
    /// the lines of a `tape!` window
    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        if m.path.segments.last().is_some_and(|s| s.ident == "tape") {
            if let Ok(mut stmts) =
                syn::parse::Parser::parse2(syn::Block::parse_within, m.tokens.clone())
            {
                self.stmts(&mut stmts);
                m.tokens = quote::quote!(#(#stmts)*);
            }
        } else {
            crate::facts::syntax::vec_elements_mut(m, |e| self.visit_expr_mut(e));
        }
    }
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// The names a closure's body reads from around it (every identifier of
/// the body that its parameters do not bind).
fn captured(c: &ExprClosure) -> HashSet<String> {
    let mut names = HashSet::new();
    idents_in(c.body.to_token_stream(), &mut names);
    for p in &c.inputs {
        for n in crate::facts::places::pattern_names(p) {
            names.remove(&n.to_string());
        }
    }
    names
}

/// Writes out the calls of one closure in the lines after its `let`.
struct Uses<'a> {
    name: &'a str,
    closure: &'a ExprClosure,
    /// a later `let` bound the closure's name, or one it reads
    shadowed: Option<String>,
    captured: HashSet<String>,
    errors: Vec<syn::Error>,
    changed: bool,
}

impl Uses<'_> {
    fn is_name(&self, e: &Expr) -> bool {
        matches!(e, Expr::Path(p) if p.qself.is_none() && p.path.is_ident(self.name))
    }

    /// `{ let (p…) = (args…); body }`
    fn call(&mut self, args: Vec<Expr>, at: &Expr) -> Option<Expr> {
        let c = self.closure;
        if let Some(shadow) = &self.shadowed {
            if shadow == self.name {
                // another binding of the name: not this closure
                return None;
            }
            self.errors.push(syn::Error::new_spanned(
                at,
                format!("the closure `{}` reads `{shadow}`, which a `let` between the closure and this call binds again; give one of them another name", self.name),
            ));
            return None;
        }
        if args.len() != c.inputs.len() {
            return None;
        }
        let mut returns = HasReturn(false);
        returns.visit_expr(&c.body);
        if returns.0 {
            self.errors.push(syn::Error::new_spanned(
                &c.body,
                "Mica writes a closure's body where the closure is called, and a `return` there would leave the function; end the closure with its value instead: `if … { … } else { … }`",
            ));
            return None;
        }
        let body = &c.body;
        let pats: Vec<&Pat> = c.inputs.iter().collect();
        Some(match pats.len() {
            0 => syn::parse_quote!({ #body }),
            1 => {
                let (p, a) = (pats[0], &args[0]);
                syn::parse_quote!({ let #p = #a; #body })
            }
            _ => {
                // one `let`: no argument sees another's parameter
                let untyped: Vec<&Pat> = pats
                    .iter()
                    .map(|p| match p {
                        Pat::Type(t) => &*t.pat,
                        other => other,
                    })
                    .collect();
                syn::parse_quote!({ let (#(#untyped),*) = (#(#args),*); #body })
            }
        })
    }
}

impl VisitMut for Uses<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        visit_mut::visit_expr_mut(self, e);
        match e {
            Expr::Call(call) if self.is_name(&call.func) => {
                let args: Vec<Expr> = call.args.iter().cloned().collect();
                let at = (*call.func).clone();
                let errors = self.errors.len();
                if let Some(body) = self.call(args, &at) {
                    *e = body;
                    self.changed = true;
                } else if self.errors.len() > errors {
                    // reported: the call stays, as a constant
                    let call = &*e;
                    *e = syn::parse_quote!(::mica::detach(#call));
                }
            }
            // an adapter given the closure's name gets the closure
            Expr::MethodCall(m)
                if m.args.iter().any(|a| self.is_name(a)) && self.shadowed.is_none() =>
            {
                let closure = Expr::Closure(self.closure.clone());
                for a in m.args.iter_mut() {
                    if self.is_name(a) {
                        *a = closure.clone();
                        self.changed = true;
                    }
                }
            }
            _ => {}
        }
    }
    fn visit_local_mut(&mut self, local: &mut syn::Local) {
        visit_mut::visit_local_mut(self, local);
        for n in crate::facts::places::pattern_names(&local.pat) {
            let n = n.to_string();
            if n == self.name || self.captured.contains(&n) {
                self.shadowed.get_or_insert(n);
            }
        }
    }
    /// calls inside a `vec![…]`
    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        crate::facts::syntax::vec_elements_mut(m, |e| self.visit_expr_mut(e));
    }
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

#[derive(Default)]
struct HasReturn(bool);

impl<'ast> Visit<'ast> for HasReturn {
    fn visit_expr_return(&mut self, _: &'ast syn::ExprReturn) {
        self.0 = true;
    }
    fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
}
