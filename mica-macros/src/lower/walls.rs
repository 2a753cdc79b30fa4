//! The placement law, where it concerns the code inside a recorded region:
//! which macros may see recorded values (wall 8), that a window writes
//! nothing outside itself (wall 3) and is not left early (wall 4).
//! Also what a method with no derivative rule, and `from_fn` over
//! recorded values, are told to write instead.
//! `window_form.rs` holds the walls about where windows, `backward!` and
//! `gradient!` stand (1, 2, 5, 6, 7); `expand.rs` what `#[tape]` goes on (9).

use super::*;
use crate::facts::places::{mutates, root, PatNames, Reach};
use crate::facts::syntax::strip_parens;

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

impl Sweep<'_> {
    /// A method with no derivative rule called on or with recorded values:
    /// the error, saying what to write instead (`push`, sorting, `get`,
    /// iterator adapters, an answer that is no float, appending to a
    /// `Vec`).
    pub(super) fn unknown_method(
        &mut self,
        m: &syn::ExprMethodCall,
        name: &str,
        receiver_active: bool,
    ) -> syn::Error {
        let sorts = name.starts_with("sort");
        // (the user's array by its name, where it has one)
        let named = |default: &str| match &*m.receiver {
            Expr::Path(p) if p.path.get_ident().is_some() => p.to_token_stream().to_string(),
            _ => default.to_string(),
        };
        let message = if name == "push" {
            let w = named("v");
            format!("recorded values are followed into a `Vec` of floats by `push` where the `Vec` starts empty, the next statement that names it is a `for` loop (write a `while` loop as `for _ in 0..limit {{ if !(…) {{ break; }} … }}`), and that loop names it only in its pushes (under `if`s and `match` arms too, with `break` and `continue` anywhere) and its `len()` and `is_empty()`, or in an inner `for` loop pushing in every iteration whose range reads nothing the outer loop binds or changes: `let mut {w} = Vec::new(); for x in xs.iter() {{ if … {{ {w}.push(…); }} }}`; otherwise make the `Vec` first and write its elements (`let mut {w} = vec![0.0; n]; {w}[i] = …;`), or collect them (`let {w}: Vec<f64> = xs.iter().map(|x| …).collect();`)")
        } else if sorts && receiver_active {
            let w = named("v");
            format!("sorting recorded values is not followed; sort their positions by detached copies and read the elements through them: `let keys: Vec<f64> = {w}.iter().map(|x| mica::detach(*x)).collect(); let mut order: Vec<usize> = (0..{w}.len()).collect(); order.sort_by(|&i, &j| keys[i].total_cmp(&keys[j]));`, then `{w}[order[k]]` (the slopes reach the elements read)")
        } else if sorts {
            format!("the ordering `{name}` is given reads recorded values; order by detached copies instead: `let keys: Vec<f64> = v.iter().map(|x| mica::detach(*x)).collect();`, then compare `keys[i]` and `keys[j]` (the slopes reach the elements read through the order)")
        } else if receiver_active && matches!(name, "get" | "first" | "last") {
            let w = named("w");
            let (call, end) = match name {
                "get" => ("get(i)", format!("`{w}.get(i).copied().unwrap_or(d)`")),
                "first" => (
                    "first()",
                    format!("`{w}.first().copied().unwrap_or(d)` (`*{w}.first().unwrap()` where it is never empty)"),
                ),
                _ => (
                    "last()",
                    format!("`{w}.last().copied().unwrap_or(d)` (`*{w}.last().unwrap()` where it is never empty)"),
                ),
            };
            format!("`.{name}()` of recorded values is read through its test: write `if let Some(v) = {w}.{call} {{ … }} else {{ … }}`, a `match` with a `Some(v)` arm and a `None` arm and no guard (test inside the arm instead), or {end}")
        } else if receiver_active
            && matches!(name, "unwrap_or" | "unwrap_or_else" | "unwrap_or_default")
        {
            // (the array the `Option` comes from, where a chain names one)
            let mut root = &*m.receiver;
            while let Expr::MethodCall(inner) = strip_parens(root) {
                root = &inner.receiver;
            }
            match strip_parens(root) {
                Expr::Path(p) if p.path.get_ident().is_some() && self.is_recorded_array(root) => {
                    let w = p.to_token_stream().to_string();
                    format!("`.{name}(…)` of an `Option` of recorded values is followed where the `Option` is an element's: write `{w}.get(i).copied().unwrap_or(d)` (or `{w}.first()`, `{w}.last()` in place of `{w}.get(i)`), or test it: `if let Some(v) = {w}.get(i) {{ … }} else {{ … }}`")
                }
                _ => format!("`.{name}(…)` of an `Option` of recorded values is followed where the `Option` is an element's (`x.get(i).copied().unwrap_or(d)`, `x.first()`, `x.last()`); test any other where it is made: `if let Some(q) = helper(x) {{ q }} else {{ d }}` with `helper` a function of the same `#[tape] mod`, or compare instead: `if x > 0.0 {{ … }}`"),
            }
        } else if receiver_active && name == "map" && self.is_recorded_array(&m.receiver) {
            let w = named("p");
            // (the tests `iterators/arrays.rs` leaves to this message)
            let test = m.args.first().is_some_and(|f| {
                matches!(strip_parens(f), Expr::Closure(c) if crate::facts::syntax::is_test(&c.body))
            });
            if test {
                format!("an array's `.map(…)` of tests over recorded values is not supported yet; write the loop: `let mut mask = [false; N]; for i in 0..N {{ mask[i] = {w}[i] > …; }}`")
            } else {
                format!("an array's `.map(…)` over recorded values needs the array's type written (a parameter `{w}: &[f64; 3]`, a `let` with its type, or a `let` of a literal); write its type, or the loop: `let mut q = {w}.clone(); for i in 0..q.len() {{ q[i] = …{w}[i]…; }}`")
            }
        } else if receiver_active && ITERATION.contains(&name) {
            format!("`.{name}()` over recorded values is not supported yet; write the loop: `let mut total = 0.0; for x in xs.iter() {{ total += …; }}`")
        } else if matches!(name, "extend" | "extend_from_slice" | "insert") {
            format!("recorded values are not followed into a `Vec` by `{name}`; collect them (`let v: Vec<f64> = xs.iter().map(|x| …).collect();`), or make the `Vec` first and write its elements (`let mut v = vec![0.0; n]; v[i] = …;`)")
        } else if receiver_active && NOT_A_FLOAT.contains(&name) {
            format!("no derivative rule for the method `{name}`; its answer is not a float, so if you need it, call it on `mica::detach(…)` of the value: the slope stops there, which is right for a test or a count")
        } else if receiver_active {
            format!("no derivative rule for the method `{name}`; write it with the recorded vocabulary, or give it a rule in a `#[tape(custom)]` function")
        } else {
            format!("a recorded value is passed to the method `{name}`, which has no derivative rule; write the computation with the recorded vocabulary, or make the method `#[tape]`")
        };
        syn::Error::new_spanned(&m.method, message)
    }
}

/// `std::array::from_fn(|i| …)` reading recorded values (a call is lowered
/// when it reads one): its closure is not followed; the loop is what to
/// write instead.
pub(super) fn from_fn_refused(c: &syn::ExprCall) -> syn::Result<()> {
    let from_fn = match &*c.func {
        Expr::Path(p) => p.path.segments.last().is_some_and(|s| s.ident == "from_fn"),
        _ => false,
    };
    if from_fn
        && c.args
            .iter()
            .any(|a| matches!(strip_parens(a), Expr::Closure(_)))
    {
        return Err(syn::Error::new_spanned(
            &c.func,
            "`from_fn` with a closure over recorded values needs its length written; write it in the `let`'s type (`let q: [f64; 3] = std::array::from_fn(|i| …);`) or the call's (`from_fn::<f64, 3, _>`), or write the loop: `let mut q = [0.0; N]; for i in 0..N { q[i] = …; }`",
        ));
    }
    Ok(())
}
