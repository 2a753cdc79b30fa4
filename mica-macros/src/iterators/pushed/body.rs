//! What a loop's body does that decides whether its pushes are its
//! iterations: whether it may leave early, and which names it binds or
//! changes.

use crate::names::idents_in;
use quote::ToTokens;
use std::collections::HashSet;
use syn::visit::Visit;
use syn::{Block, Expr};

/// Whether a loop's body may leave an iteration or the loop before its
/// end: `break`, `continue` (but those of a loop inside it), `return`,
/// `?`, or a macro that may hold one.
pub(super) fn leaves(body: &Block) -> bool {
    let mut exits = Exits {
        depth: 0,
        found: false,
    };
    exits.visit_block(body);
    exits.found
}

struct Exits {
    depth: usize,
    found: bool,
}

impl<'ast> Visit<'ast> for Exits {
    fn visit_expr(&mut self, e: &'ast Expr) {
        match e {
            Expr::Break(b) if self.depth == 0 || b.label.is_some() => self.found = true,
            Expr::Continue(c) if self.depth == 0 || c.label.is_some() => self.found = true,
            Expr::Return(_) | Expr::Try(_) => self.found = true,
            Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_) => {
                self.depth += 1;
                syn::visit::visit_expr(self, e);
                self.depth -= 1;
            }
            // a closure's `return` and `?` are its own
            Expr::Closure(_) => {}
            _ => syn::visit::visit_expr(self, e),
        }
    }
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        let mut names = HashSet::new();
        idents_in(m.tokens.clone(), &mut names);
        let question = has_question(&m.tokens);
        if ["break", "continue", "return"]
            .iter()
            .any(|w| names.contains(*w))
            || question
        {
            self.found = true;
        }
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// Whether tokens hold a `?` (not one inside a string).
fn has_question(tokens: &proc_macro2::TokenStream) -> bool {
    tokens.clone().into_iter().any(|tt| match tt {
        proc_macro2::TokenTree::Punct(p) => p.as_char() == '?',
        proc_macro2::TokenTree::Group(g) => has_question(&g.stream()),
        _ => false,
    })
}

/// The names a block binds (`let`s, patterns) or may change
/// (assignments, `&mut`, methods that change their receiver, macros).
pub(super) struct Changed(pub(super) HashSet<String>);

impl Changed {
    /// The left side of `=`: a place, or places destructured.
    fn assignee(&mut self, left: &Expr) {
        match left {
            Expr::Tuple(t) => t.elems.iter().for_each(|e| self.assignee(e)),
            Expr::Array(a) => a.elems.iter().for_each(|e| self.assignee(e)),
            Expr::Paren(p) => self.assignee(&p.expr),
            Expr::Path(_) | Expr::Index(_) | Expr::Field(_) | Expr::Unary(_) => self.place(left),
            other => idents_in(other.to_token_stream(), &mut self.0),
        }
    }

    fn place(&mut self, e: &Expr) {
        if let Some(name) = crate::facts::places::root(e, crate::facts::places::Reach::Grouped) {
            self.0.insert(name.to_string());
        }
    }
}

impl<'ast> Visit<'ast> for Changed {
    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        self.0.insert(p.ident.to_string());
        syn::visit::visit_pat_ident(self, p);
    }
    fn visit_expr_assign(&mut self, e: &'ast syn::ExprAssign) {
        self.assignee(&e.left);
        syn::visit::visit_expr_assign(self, e);
    }
    fn visit_expr_binary(&mut self, e: &'ast syn::ExprBinary) {
        if crate::facts::syntax::is_compound(&e.op) {
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
    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        if crate::facts::places::mutates(&m.method.to_string(), m.args.len()) {
            self.place(&m.receiver);
        }
        syn::visit::visit_expr_method_call(self, m);
    }
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        idents_in(m.tokens.clone(), &mut self.0);
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}
