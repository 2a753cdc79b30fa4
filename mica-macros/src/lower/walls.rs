//! The placement law, where it concerns the code inside a recorded region:
//! which macros may see recorded values (wall 8), that a window writes
//! nothing outside itself (wall 3) and is not left early (wall 4).
//! `window_form.rs` holds the walls about where windows, `backward!` and
//! `gradient!` stand (1, 2, 5, 6, 7); `expand.rs` what `#[tape]` goes on (9).

use super::*;
use crate::facts::places::{mutates, root, PatNames, Reach};

impl Sweep<'_> {
    /// Macros other than the formatting and assertion ones may not be given
    /// recorded values.
    pub(super) fn check_macro(&self, mac: &syn::Macro) -> syn::Result<()> {
        let name = mac
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        match name.as_str() {
            "tape" => Err(syn::Error::new_spanned(
                &mac.path,
                "windows do not nest; close this window before opening the next",
            )),
            "backward" => Err(syn::Error::new_spanned(
                &mac.path,
                "`backward!` follows its window; it cannot stand inside one",
            )),
            "gradient" => Err(syn::Error::new_spanned(
                &mac.path,
                "`gradient!` follows its window's `backward!`; it cannot stand inside a window",
            )),
            _ if rules::reads_only(&name) => Ok(()),
            _ if self.tokens_mention_active(mac.tokens.clone()) => Err(syn::Error::new_spanned(
                &mac.path,
                format!("a recorded value is passed to the macro `{name}!`, which is outside the recorded vocabulary; `println!`, `eprintln!`, `format!`, `write!` and the assertions may read recorded values, and what another macro computes is written with the recorded vocabulary"),
            )),
            _ => Ok(()),
        }
    }

    /// Wall 3: a window writes nothing outside itself — no assignment, `&mut`
    /// borrow or mutating method call on a knob or on a binding made before
    /// the window.
    pub(super) fn check_writes(&self, stmt: &Stmt) -> syn::Result<()> {
        let mut own = PatNames::default();
        own.visit_stmt(stmt);
        let own: Vec<String> = own.0.iter().map(Ident::to_string).collect();
        let mut finder = Writes {
            sweep: self,
            own,
            found: None,
        };
        finder.visit_stmt(stmt);
        match finder.found {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Whether a write to `name` would reach outside the window.
    pub(super) fn is_outside(&self, name: &str) -> Option<&'static str> {
        match self.lookup(name).map(|b| b.origin) {
            Some(Origin::Local) | Some(Origin::Param) => None,
            Some(Origin::Knob) => Some("knob"),
            None => Some("outer"),
        }
    }

    /// `return`, `?`, `.await` and loop exits may not leave a window.
    pub(super) fn check_no_escape(&self, expr: &Expr) -> syn::Result<()> {
        let mut finder = Escape {
            function_form: self.function_form,
            wrapped: self.wrapped,
            loops: 0,
            labels: Vec::new(),
            found: None,
        };
        finder.visit_expr(expr);
        match finder.found {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// Finds a `return`, `?`, `.await`, or a `break`/`continue` that leaves the
/// expression (wall 4).
struct Escape {
    function_form: bool,
    /// `?` leaves an `Option` or `Result` function as it leaves the adjoint
    wrapped: bool,
    loops: usize,
    /// the labels of the loops around the one being looked at
    labels: Vec<String>,
    found: Option<syn::Error>,
}

impl Escape {
    /// Whether an exit to `label` (the innermost loop without one) leaves
    /// the expression.
    fn leaves(&self, label: Option<&syn::Lifetime>, loops: usize) -> bool {
        match label {
            Some(l) => !self.labels.contains(&l.ident.to_string()),
            None => loops == 0,
        }
    }
}

impl<'ast> Visit<'ast> for Escape {
    fn visit_expr(&mut self, e: &'ast Expr) {
        if self.found.is_some() {
            return;
        }
        match e {
            Expr::Return(r) if !self.function_form => {
                self.found = Some(syn::Error::new_spanned(
                    r.return_token,
                    "a window is not left early; `return` after `backward!`",
                ));
            }
            Expr::Try(t) if !self.wrapped => {
                self.found = Some(syn::Error::new_spanned(
                    t.question_token,
                    "the `?` operator cannot leave a recorded region; handle the error before it",
                ));
            }
            Expr::Await(a) => {
                self.found = Some(syn::Error::new_spanned(
                    a.await_token,
                    "a recorded region cannot `.await`",
                ));
            }
            // in the function form, an exit out of the body is rustc's to
            // refuse; one to a loop of the body is the loop's question
            Expr::Break(b) if !self.function_form && self.leaves(b.label.as_ref(), self.loops) => {
                self.found = Some(syn::Error::new_spanned(
                    b.break_token,
                    "a window is not left early; this `break` leaves it",
                ));
            }
            Expr::Continue(c)
                if !self.function_form && self.leaves(c.label.as_ref(), self.loops) =>
            {
                self.found = Some(syn::Error::new_spanned(
                    c.continue_token,
                    "a window is not left early; this `continue` leaves it",
                ));
            }
            Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_) => {
                let label = match e {
                    Expr::ForLoop(f) => f.label.as_ref(),
                    Expr::While(w) => w.label.as_ref(),
                    Expr::Loop(l) => l.label.as_ref(),
                    _ => None,
                };
                let labelled = label.map(|l| self.labels.push(l.name.ident.to_string()));
                self.loops += 1;
                syn::visit::visit_expr(self, e);
                self.loops -= 1;
                if labelled.is_some() {
                    self.labels.pop();
                }
            }
            Expr::Closure(_) | Expr::Async(_) => {}
            _ => syn::visit::visit_expr(self, e),
        }
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// Finds a write that reaches outside the window (wall 3).
struct Writes<'s, 'a> {
    sweep: &'s Sweep<'a>,
    /// names the statement binds itself
    own: Vec<String>,
    found: Option<syn::Error>,
}

impl Writes<'_, '_> {
    fn check(&mut self, target: &Expr, what: &str) {
        if self.found.is_some() {
            return;
        }
        let Some(base) = root(target, Reach::Place) else {
            return;
        };
        let name = base.to_string();
        if self.own.contains(&name) {
            return;
        }
        // `what` is "verb" or "verb|suffix": "borrow| as mutable"
        let (verb, suffix) = what.split_once('|').unwrap_or((what, ""));
        let message = match self.sweep.is_outside(&name) {
            None => return,
            Some("knob") => {
                format!("a window cannot {verb} the knob `{name}`{suffix}; change knobs after the window")
            }
            Some(_) => format!(
                "a window cannot {verb} `{name}`{suffix}, which was bound before it; bind a new name inside the window"
            ),
        };
        self.found = Some(syn::Error::new_spanned(base, message));
    }
}

impl<'ast> Visit<'ast> for Writes<'_, '_> {
    fn visit_expr_assign(&mut self, e: &'ast syn::ExprAssign) {
        self.check(&e.left, "assign to");
        syn::visit::visit_expr_assign(self, e);
    }
    fn visit_expr_binary(&mut self, e: &'ast syn::ExprBinary) {
        if is_compound(&e.op) {
            self.check(&e.left, "assign to");
        }
        syn::visit::visit_expr_binary(self, e);
    }
    fn visit_expr_reference(&mut self, e: &'ast syn::ExprReference) {
        if e.mutability.is_some() {
            self.check(&e.expr, "borrow| as mutable");
        }
        syn::visit::visit_expr_reference(self, e);
    }
    fn visit_expr_method_call(&mut self, e: &'ast syn::ExprMethodCall) {
        let method = e.method.to_string();
        if mutates(&method, e.args.len()) {
            self.check(&e.receiver, &format!("call `{method}` on"));
        }
        syn::visit::visit_expr_method_call(self, e);
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}
