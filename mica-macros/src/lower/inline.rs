//! Forward temporaries the reverse sweep never reads (function form, top
//! level of the body).
//!
//! The forward sweep binds every recorded operation to a temporary so the
//! reverse sweep can read its value. Most of them it never reads: `a + b`
//! passes its adjoint on unchanged, `a * b` reads its inputs, not its
//! output. Such an operation, when its one consumer (the operation it is an
//! input of) does not read it either, is written inside the consumer's
//! expression instead: `let v = x * y + z;` rather than three `let`s. And an
//! operation that a top-level `let` binds to an immutable name bound nowhere
//! else keeps its value under that name. The same arithmetic runs in the same
//! order on the same values, so results are bit for bit those of the
//! temporaries; rustc has fewer locals to check.
//!
//! Writing an operation later than where it stood is safe only if nothing in
//! between can change a name it reads: it is done within one top-level
//! statement made only of arithmetic, method and function calls, field,
//! index and cast expressions (no blocks, assignments, borrows or macros).

use super::Sweep;
use crate::record::Operand;
use proc_macro2::{Ident, TokenStream};
use quote::quote;
use syn::{Expr, Stmt};

/// Where the value of the operation being lowered goes.
pub enum Hint {
    /// a top-level `let` binds it to this immutable name, bound once
    Let(Ident),
    /// it is an input of an operation that does not read it, in this
    /// position of the consumer's expression
    Operand(Ctx),
}

/// The position of an inlined operation in its consumer's expression, for
/// parentheses.
#[derive(Clone, Copy)]
pub enum Ctx {
    /// an operand of a binary operator of this precedence, on the right
    /// side or not
    Binary { prec: u8, right: bool },
    /// the operand of unary `-`
    Neg,
    /// the receiver of a method call
    Receiver,
    /// an argument of a method call
    Arg,
}

/// How the inlined operation is written.
#[derive(Clone, Copy)]
pub enum Form {
    /// `a op b`, of this precedence
    Binary(u8),
    /// `-a`
    Prefix,
    /// `a.method(…)`
    Postfix,
}

impl Ctx {
    fn needs_parens(self, form: Form) -> bool {
        match (self, form) {
            (_, Form::Postfix) | (Ctx::Arg, _) => false,
            (Ctx::Binary { prec, right }, Form::Binary(p)) => p < prec || (p == prec && right),
            (Ctx::Binary { .. }, Form::Prefix) => false,
            (Ctx::Neg | Ctx::Receiver, _) => true,
        }
    }
}

/// The precedence of a binary operator with a derivative rule (of the
/// operator a compound assignment applies): `+ -` below `* / %`. Any other
/// gets the highest, so what stands next to it keeps its parentheses.
pub fn precedence(op: &syn::BinOp) -> u8 {
    use syn::BinOp::*;
    match op {
        Add(_) | Sub(_) | AddAssign(_) | SubAssign(_) => 1,
        Mul(_) | Div(_) | Rem(_) | MulAssign(_) | DivAssign(_) | RemAssign(_) => 2,
        _ => u8::MAX,
    }
}

/// Whether input `pos` of the rule `rule` (of `arity` inputs) goes unread by
/// its reverse: no slope to an input that may be recorded (`active`) reads it.
pub fn input_unread(rule: &str, pos: usize, arity: usize, active: impl Fn(usize) -> bool) -> bool {
    // the table first: whether an input may be recorded is a walk over it
    (0..arity).all(|i| !crate::rules::reads(rule, i).contains(&pos) || !(i == pos || active(i)))
}

/// Whether the reverse of the rule `rule` on `inputs` reads its output.
fn reads_output(rule: &str, inputs: &[Operand]) -> bool {
    let k = inputs.len();
    inputs.iter().enumerate().any(|(i, input)| {
        matches!(input, Operand::Active(_)) && crate::rules::reads(rule, i).contains(&k)
    })
}

/// A top-level statement within which operations may be written later
/// than they stand: nothing in it can change a name.
pub fn simple_stmt(stmt: &Stmt) -> bool {
    match stmt {
        Stmt::Local(local) => match &local.init {
            Some(init) => init.diverge.is_none() && simple(&init.expr),
            None => false,
        },
        // a write happens after everything its statement reads
        Stmt::Expr(Expr::Assign(a), _) => place(&a.left) && simple(&a.right),
        Stmt::Expr(Expr::Binary(b), _) if crate::facts::syntax::is_compound(&b.op) => {
            place(&b.left) && simple(&b.right)
        }
        Stmt::Expr(expr, _) => simple(expr),
        _ => false,
    }
}

/// `x`, `a[i]`, `a[i][j]`: a place written once its statement is evaluated.
fn place(expr: &Expr) -> bool {
    match expr {
        Expr::Path(_) => true,
        Expr::Index(i) => place(&i.expr) && simple(&i.index),
        _ => false,
    }
}

fn simple(expr: &Expr) -> bool {
    match expr {
        Expr::Lit(_) | Expr::Path(_) => true,
        Expr::Binary(b) => {
            !crate::facts::syntax::is_compound(&b.op) && simple(&b.left) && simple(&b.right)
        }
        Expr::Unary(u) => simple(&u.expr),
        Expr::Paren(p) => simple(&p.expr),
        Expr::Group(g) => simple(&g.expr),
        Expr::MethodCall(m) => simple(&m.receiver) && m.args.iter().all(simple),
        Expr::Call(c) => matches!(&*c.func, Expr::Path(_)) && c.args.iter().all(simple),
        Expr::Field(f) => simple(&f.base),
        Expr::Index(i) => simple(&i.expr) && simple(&i.index),
        Expr::Cast(c) => simple(&c.expr),
        Expr::Tuple(t) => t.elems.iter().all(simple),
        _ => false,
    }
}

impl Sweep<'_> {
    /// Whether operations lowered now stand at the top level of a function
    /// body whose names the lowering can follow.
    pub(super) fn at_top(&self) -> bool {
        self.inline_here() && self.depth == 0 && self.region == 0 && self.scopes.len() == 1
    }

    /// Whether operations lowered now stand at the top level of a function
    /// body whose names the lowering can follow, or of a loop body in it
    /// (not in a branch arm or a nested block, whose temporaries are
    /// hoisted).
    pub(super) fn inline_here(&self) -> bool {
        self.function_form
            && self.stability.is_some()
            && self.region == self.scope
            && self
                .hoists
                .last()
                .is_some_and(|h| h.base == self.depth && h.arms == 0)
    }

    /// Sets the hint for the operand about to be lowered as input `pos` of
    /// `rule` (`active(i)`: whether input `i` may be recorded), if that input
    /// goes unread.
    pub(super) fn hint_operand(
        &mut self,
        rule: &str,
        pos: usize,
        arity: usize,
        ctx: Ctx,
        active: impl Fn(&Self, usize) -> bool,
    ) {
        self.hint = None;
        if self.inline_stmt
            && self.inline_here()
            && input_unread(rule, pos, arity, |i| active(self, i))
        {
            self.hint = Some(Hint::Operand(ctx));
        }
    }

    /// The binding `let NAME = …` at the top level, when `NAME` is immutable
    /// and bound nowhere else: its operation's value is kept under `NAME`.
    pub(super) fn hint_let(&mut self, pat: &syn::Pat) {
        self.hint = None;
        if !self.inline_here() {
            return;
        }
        let Some(ident) = crate::facts::stability::immutable_ident(pat) else {
            return;
        };
        if self
            .stability
            .as_ref()
            .is_some_and(|s| s.bound_once(&ident.to_string()))
        {
            self.hint = Some(Hint::Let(ident.clone()));
        }
    }

    /// Records the rule `rule` on `inputs` without a temporary, if the hint
    /// allows: the value under the `let`'s name, or written into its
    /// consumer (returned: how the forward reads it).
    pub(super) fn inline_op(
        &mut self,
        hint: Option<Hint>,
        rule: &'static str,
        inputs: &mut Vec<Operand>,
        fwd: &TokenStream,
        form: Form,
    ) -> Option<(crate::record::ValueId, TokenStream)> {
        let hint = hint?;
        let (store, fwd) = match &hint {
            Hint::Let(name) => (name.clone(), fwd.clone()),
            Hint::Operand(ctx) => {
                if reads_output(rule, inputs) {
                    return None;
                }
                let fwd = if ctx.needs_parens(form) {
                    quote!((#fwd))
                } else {
                    fwd.clone()
                };
                // never declared: nothing reads it
                (self.names.fresh("t"), fwd)
            }
        };
        let inlined = matches!(hint, Hint::Operand(_));
        let id = self.record_op(
            store,
            crate::record::OpKind::Rule(rule),
            std::mem::take(inputs),
            Vec::new(),
        );
        if inlined {
            self.inlined.insert(id);
        }
        Some((id, fwd))
    }
}

#[cfg(test)]
mod tests {
    use crate::expand::backward_of as backward;

    #[test]
    fn straight_line_keeps_no_temporaries_it_does_not_read() {
        let code = backward(
            "fn f(#[tracked] x: f64, #[tracked] y: f64, k: f64) -> f64 {
                let u = x * y + k;
                let v = (u - x) * (y - k) - -(x * y);
                let w = (v * u).exp() + v.sin() * k;
                w
            }",
        );
        // operations inside their consumers, values under the user's names,
        // parameters read where they are
        assert!(code.contains("let u = x * y + k ;"), "{code}");
        // `*` reads both its inputs: they keep their temporaries
        assert!(
            code.contains("= u - x ;") && code.contains("= y - k ;"),
            "{code}"
        );
        assert!(code.contains("- - (x * y) ;"), "{code}");
        // `exp` reads its own value: kept; `sin` reads its input only
        assert!(code.contains("= (v * u) . exp () ;"), "{code}");
        assert!(code.contains(" + v . sin () * k ;"), "{code}");
        assert!(!code.contains("let __mica_v"), "{code}");
        assert!(!code.contains("= k ;"), "{code}");
    }

    #[test]
    fn a_statement_that_may_change_a_name_keeps_its_temporaries() {
        let code = backward(
            "fn f(#[tracked] x: f64) -> f64 {
                let mut s = x;
                let v = s * x + { s = 2.0 * x; s };
                v + s
            }",
        );
        // `s * x` is evaluated before the block changes `s`
        assert!(!code.contains("s * x +"), "{code}");
    }

    #[test]
    fn runtime_functions_are_rules() {
        let code = backward(
            "fn f(#[tracked] x: f64) -> f64 {
                mica::sigmoid(x * x) + ::mica::relu(x) * mica::softplus(x)
            }",
        );
        // the value is read back: no adapter runs the function again
        assert!(code.contains("rules :: sigmoid_d0"), "{code}");
        assert!(code.contains("rules :: relu_d0"), "{code}");
        assert!(code.contains("rules :: softplus_d0"), "{code}");
        assert!(!code.contains("adjoint ("), "{code}");
        // its argument, unread by the reverse, inside the call
        assert!(code.contains("mica :: sigmoid (x * x)"), "{code}");
    }

    #[test]
    fn compound_assignments_keep_the_right_side_whole() {
        let code = backward(
            "fn f(#[tracked] x: f64, #[tracked] y: f64) -> f64 {
                let mut s = x;
                s -= x - y * x;
                s += x * y - y;
                s
            }",
        );
        assert!(code.contains("s - (x - y * x)"), "{code}");
        assert!(code.contains("s + (x * y - y)"), "{code}");
    }
}
