//! `break` and `continue` in `for` and `while` loops, rewritten for the
//! forward sweep.
//!
//! Input:
//!
//! ```text
//! for i in 0..n {
//!     if w[i] < 0.0 {
//!         continue;
//!     }
//!     total += w[i];
//!     if total > 10.0 {
//!         break;
//!     }
//! }
//! ```
//!
//! Output (only the adjoint sees it; the function keeps its own loop):
//!
//! ```text
//! {
//!     let mut __mica_stop1 = false;
//!     for i in 0..n {
//!         let mut __mica_exit1 = false;
//!         if w[i] < 0.0 {
//!             { __mica_exit1 = true; }
//!         }
//!         if !__mica_exit1 {
//!             total += w[i];
//!             if total > 10.0 {
//!                 { __mica_exit1 = true; __mica_stop1 = true; }
//!             }
//!         }
//!         let _ = __mica_exit1;
//!         if __mica_stop1 { break; }
//!     }
//! }
//! ```
//!
//! Every statement after one that may leave the iteration is guarded, so
//! the same arithmetic runs in the same order as in the function: the
//! values are bit-identical, and the guards are branches like any other.
//! A `for` loop that may `break` still stops where the function's does: the
//! lowering takes its last statement, `if stop { break; }`, off the body
//! and puts it after the iteration's push, and walks the loop's reverse by
//! the count of iterations that ran, not by its range (see
//! [`split_stop`]). A `while` loop asks `!stop` before its condition.
//!
//! A `loop` that has a `break` becomes `while !stop { … }`.
//!
//! Rewritten: the unlabelled `break` (without a value) and `continue` of an
//! unlabelled `for`, `while` or `loop`, as a statement of the loop's body or
//! of an `if`, a `match` arm or a block in it, at any depth. A loop with
//! any other exit (a label, `break value`, an exit inside a `let` or an
//! expression, a `break` in `while let`) is left as written; if it is a
//! loop over recorded values, the lowering says what to write instead.

mod shape;

use proc_macro2::{Ident, Span};
use shape::Shape;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{Expr, Stmt};

/// The statements with their loops' exits rewritten, or `None` if no loop
/// has one this rewrites.
pub fn eliminate(stmts: &[Stmt]) -> Option<Vec<Stmt>> {
    if !stmts.iter().any(|s| {
        let mut any = AnyExit(false);
        any.visit_stmt(s);
        any.0
    }) {
        return None;
    }
    let mut rewriter = Rewriter {
        loops: 0,
        frames: Vec::new(),
    };
    let mut out = stmts.to_vec();
    for stmt in &mut out {
        rewriter.visit_stmt_mut(stmt);
    }
    (rewriter.loops > 0).then_some(out)
}

/// For a `for` loop's body ending in this rewrite's `if stop { break; }`:
/// the body without it, and the flag.
pub fn split_stop(body: &syn::Block) -> Option<(syn::Block, Ident)> {
    let (last, rest) = body.stmts.split_last()?;
    let Stmt::Expr(Expr::If(i), None) = last else {
        return None;
    };
    let Expr::Path(p) = &*i.cond else {
        return None;
    };
    let flag = p.path.get_ident()?;
    if !flag.to_string().starts_with("__mica_stop")
        || i.else_branch.is_some()
        || !matches!(
            i.then_branch.stmts.as_slice(),
            [Stmt::Expr(Expr::Break(_), Some(_))]
        )
    {
        return None;
    }
    let mut block = body.clone();
    block.stmts = rest.to_vec();
    Some((block, flag.clone()))
}

/// Whether a `break` or `continue` appears anywhere (a cheap first look).
struct AnyExit(bool);

impl<'ast> Visit<'ast> for AnyExit {
    fn visit_expr_break(&mut self, _: &'ast syn::ExprBreak) {
        self.0 = true;
    }
    fn visit_expr_continue(&mut self, _: &'ast syn::ExprContinue) {
        self.0 = true;
    }
    /// inside a `vec![…]` (an iterator chain's loop there)
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        if m.path.segments.last().is_some_and(|s| s.ident == "vec") {
            self.0 |= crate::names::mentions_ident(&m.tokens, "break")
                || crate::names::mentions_ident(&m.tokens, "continue");
        }
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// The exits that leave the loop whose body is looked at, in the order
/// written: its own `break`s and `continue`s (not those of a loop, closure
/// or async block inside it), and labelled ones inside inner loops whose
/// label is not of a loop or block inside it, which leave it too. The
/// rewrite and the lowering's check both ask it.
#[derive(Default)]
pub struct Leaving<'a> {
    pub found: Vec<&'a Expr>,
    /// loops entered inside the body
    inner: usize,
    /// the labels of the loops and blocks entered inside the body
    labels: Vec<String>,
}

impl Leaving<'_> {
    fn leaves(&self, label: Option<&syn::Lifetime>) -> bool {
        match label {
            None => self.inner == 0,
            Some(l) => !self.labels.contains(&l.ident.to_string()),
        }
    }
}

impl<'a> Visit<'a> for Leaving<'a> {
    fn visit_expr(&mut self, e: &'a Expr) {
        match e {
            Expr::Break(b) => {
                // `break 'block` of an unlabelled-loop's body leaves nothing
                if self.leaves(b.label.as_ref()) {
                    self.found.push(e);
                }
                syn::visit::visit_expr_break(self, b);
            }
            Expr::Continue(c) => {
                if self.leaves(c.label.as_ref()) {
                    self.found.push(e);
                }
            }
            Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_) | Expr::Block(_) => {
                let label = match e {
                    Expr::ForLoop(f) => &f.label,
                    Expr::While(w) => &w.label,
                    Expr::Loop(l) => &l.label,
                    Expr::Block(b) => &b.label,
                    _ => &None,
                };
                let is_loop = !matches!(e, Expr::Block(_));
                if let Some(l) = label {
                    self.labels.push(l.name.ident.to_string());
                }
                self.inner += usize::from(is_loop);
                syn::visit::visit_expr(self, e);
                self.inner -= usize::from(is_loop);
                if label.is_some() {
                    self.labels.pop();
                }
            }
            Expr::Closure(_) | Expr::Async(_) => {}
            _ => syn::visit::visit_expr(self, e),
        }
    }
    fn visit_item(&mut self, _: &'a syn::Item) {}
}

/// What kinds of exit leave a loop: a `continue` of its own, or anything
/// else (a `break`, or an exit to a loop around it), and whether a
/// `break` carries a value.
#[derive(Default)]
struct Exits {
    breaks: bool,
    continues: bool,
    values: bool,
    /// the shape of the tuple every `break` of its own writes out (`break (a, b);`)
    tuples: Option<Shape>,
}

impl Exits {
    fn of(found: &[&Expr], label: Option<&syn::Label>) -> Self {
        let own = |l: &Option<syn::Lifetime>| match (l, label) {
            (None, _) => true,
            (Some(l), Some(own)) => l.ident == own.name.ident,
            (Some(_), None) => false,
        };
        let mut exits = Exits::default();
        let mut shapes = Vec::new();
        for e in found {
            match e {
                Expr::Continue(c) if own(&c.label) => exits.continues = true,
                Expr::Break(b) => {
                    exits.breaks = true;
                    // a value left for a loop around this one is not its own
                    if let (true, Some(value)) = (own(&b.label), b.expr.as_deref()) {
                        exits.values = true;
                        shapes.push(Shape::of(value));
                    }
                }
                _ => exits.breaks = true,
            }
        }
        exits.tuples = shapes
            .first()
            .filter(|s| matches!(s, Shape::Tuple(_)) && shapes.iter().all(|k| k == *s))
            .cloned();
        exits
    }

    fn any(&self) -> bool {
        self.breaks || self.continues
    }
}

fn leaving_of_expr(expr: &Expr) -> Vec<&Expr> {
    let mut leaving = Leaving::default();
    leaving.visit_expr(expr);
    leaving.found
}

fn leaves_stmt(stmt: &Stmt) -> bool {
    let mut leaving = Leaving::default();
    leaving.visit_stmt(stmt);
    !leaving.found.is_empty()
}

fn leaves_expr(expr: &Expr) -> bool {
    !leaving_of_expr(expr).is_empty()
}

/// One loop being rewritten: its label and flags (the iteration is over,
/// and so is the loop), and where a `loop`'s `break value` puts its value.
struct Frame {
    label: Option<String>,
    exit: Ident,
    stop: Ident,
    value: Option<Ident>,
    /// its `break`s' tuples' shape: each value a binding of its own
    /// (`Frame::parts`), so that no branch assigns a tuple
    shape: Option<Shape>,
}

impl Frame {
    fn parts(&self) -> Vec<Ident> {
        match (&self.value, &self.shape) {
            (Some(value), Some(shape)) => shape.parts(value),
            _ => Vec::new(),
        }
    }
}

struct Rewriter {
    /// loops rewritten so far: each has flags of its own
    loops: usize,
    /// the loops around the code being rewritten, innermost last
    frames: Vec<Frame>,
}

impl VisitMut for Rewriter {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if matches!(e, Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_)) {
            if let Some(rewritten) = self.rewrite_loop(e) {
                *e = rewritten;
            }
            return;
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }
    fn visit_expr_closure_mut(&mut self, _: &mut syn::ExprClosure) {}
    fn visit_expr_async_mut(&mut self, _: &mut syn::ExprAsync) {}
    /// the loops inside a `vec![…]`'s elements (an iterator chain's)
    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        crate::facts::syntax::vec_elements_mut(m, |e| self.visit_expr_mut(e));
    }
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

impl Rewriter {
    /// `e` rewritten, if it is a loop with exits this rewrites; a loop
    /// without has the loops inside it rewritten in place.
    fn rewrite_loop(&mut self, e: &mut Expr) -> Option<Expr> {
        let (label, body) = match &*e {
            Expr::ForLoop(f) => (&f.label, &f.body),
            Expr::While(w) => (&w.label, &w.body),
            Expr::Loop(l) => (&l.label, &l.body),
            _ => return None,
        };
        let exits = Exits::of(&leaving_of_expr(&Expr::Block(block(body))), label.as_ref());
        let is_loop = matches!(e, Expr::Loop(_));
        // a `loop` is left by its `break`s alone
        if !exits.any() || (is_loop && !exits.breaks) {
            // its exits, if any, are its own `continue`s or inner loops'
            match e {
                Expr::ForLoop(f) => self.visit_block_mut(&mut f.body),
                Expr::While(w) => self.visit_block_mut(&mut w.body),
                Expr::Loop(l) => self.visit_block_mut(&mut l.body),
                _ => {}
            }
            return None;
        }
        if exits.values && !is_loop {
            return None;
        }
        let n = self.loops + 1;
        self.loops = n;
        let frame = Frame {
            label: label.as_ref().map(|l| l.name.ident.to_string()),
            exit: Ident::new(&format!("__mica_exit{n}"), Span::mixed_site()),
            stop: Ident::new(&format!("__mica_stop{n}"), Span::mixed_site()),
            value: exits
                .values
                .then(|| Ident::new(&format!("__mica_value{n}"), Span::mixed_site())),
            shape: exits.tuples.clone(),
        };
        let (exit, stop, value) = (frame.exit.clone(), frame.stop.clone(), frame.value.clone());
        let (parts, shape) = (frame.parts(), frame.shape.clone());
        self.frames.push(frame);
        let stmts = self.block(&body.stmts);
        self.frames.pop();
        let mut stmts = stmts?;
        stmts.insert(0, syn::parse_quote!(let mut #exit = false;));
        terminate(&mut stmts);
        stmts.push(syn::parse_quote!(let _ = #exit;));
        let is_while_let = matches!(&*e, Expr::While(w) if matches!(&*w.cond, Expr::Let(_)));
        Some(match &*e {
            // a `while let` stops as a `for` does
            Expr::ForLoop(_) | Expr::While(_)
                if exits.breaks && (is_while_let || matches!(e, Expr::ForLoop(_))) =>
            {
                stmts.push(Stmt::Expr(syn::parse_quote!(if #stop { break; }), None));
                let mut e = e.clone();
                match &mut e {
                    Expr::ForLoop(f) => {
                        f.label = None;
                        f.body.stmts = stmts;
                    }
                    Expr::While(w) => {
                        w.label = None;
                        w.body.stmts = stmts;
                    }
                    _ => {}
                }
                syn::parse_quote!({ let mut #stop = false; #e })
            }
            Expr::ForLoop(f) => {
                let mut f = f.clone();
                f.label = None;
                f.body.stmts = stmts;
                Expr::ForLoop(f)
            }
            // `loop` becomes `while !stop`; with values, a block giving
            // the value its `break` left
            Expr::Loop(l) => {
                let attrs = &l.attrs;
                let lp: Expr = syn::parse_quote!({
                    let mut #stop = false;
                    #(#attrs)*
                    while !#stop {
                        #(#stmts)*
                    }
                });
                match (value, shape) {
                    (Some(_), Some(shape)) => {
                        let made = shape.build(&mut parts.iter());
                        syn::parse_quote!({
                            #(let mut #parts = ::mica::__private::placeholder();)*
                            #lp
                            #made
                        })
                    }
                    (Some(value), None) => syn::parse_quote!({
                        let mut #value = ::mica::__private::placeholder();
                        #lp
                        #value
                    }),
                    (None, _) => lp,
                }
            }
            Expr::While(w) => {
                let mut w = w.clone();
                w.label = None;
                w.body.stmts = stmts;
                if exits.breaks {
                    let cond = &w.cond;
                    w.cond = syn::parse_quote!(!#stop && (#cond));
                    syn::parse_quote!({ let mut #stop = false; #w })
                } else {
                    Expr::While(w)
                }
            }
            _ => return None,
        })
    }

    /// A list of statements with the loop's exits rewritten and what
    /// follows each one that may leave guarded; `None` where an exit is
    /// somewhere this does not rewrite.
    fn block(&mut self, stmts: &[Stmt]) -> Option<Vec<Stmt>> {
        let exit = self.frames.last()?.exit.clone();
        let mut out = Vec::new();
        for (i, stmt) in stmts.iter().enumerate() {
            if !leaves_stmt(stmt) {
                let mut stmt = stmt.clone();
                self.visit_stmt_mut(&mut stmt);
                out.push(stmt);
                continue;
            }
            out.push(self.stmt(stmt)?);
            let rest = &stmts[i + 1..];
            if !rest.is_empty() {
                let rest = self.block(rest)?;
                out.push(Stmt::Expr(syn::parse_quote!(if !#exit { #(#rest)* }), None));
            }
            break;
        }
        Some(out)
    }

    fn stmt(&mut self, stmt: &Stmt) -> Option<Stmt> {
        match stmt {
            Stmt::Expr(expr, semi) => Some(Stmt::Expr(self.expr(expr)?, *semi)),
            // an exit inside a `let` or an item: left as written
            _ => None,
        }
    }

    /// The flags an exit to `label` sets: it ends the iteration of the loop
    /// it names (and, for a `break`, that loop), and every loop inside that
    /// one.
    fn exit(
        &mut self,
        label: Option<&syn::Lifetime>,
        breaks: bool,
        value: Option<&Expr>,
    ) -> Option<Expr> {
        let target = match label {
            None => self.frames.len().checked_sub(1)?,
            Some(l) => {
                let name = l.ident.to_string();
                self.frames
                    .iter()
                    .rposition(|f| f.label.as_deref() == Some(name.as_str()))?
            }
        };
        let mut sets: Vec<Stmt> = Vec::new();
        if let Some(value) = value {
            let store = self.frames[target].value.clone()?;
            // the loops inside the value (an iterator chain's) have their
            // own exits rewritten
            let mut value = value.clone();
            self.visit_expr_mut(&mut value);
            let frame = &self.frames[target];
            match &frame.shape {
                Some(shape) if Shape::of(&value) == *shape => {
                    let mut leaves = Vec::new();
                    shape.flatten(&value, &mut leaves);
                    for (part, leaf) in frame.parts().iter().zip(leaves) {
                        sets.push(syn::parse_quote!(#part = #leaf;));
                    }
                }
                _ => sets.push(syn::parse_quote!(#store = #value;)),
            }
        }
        let frame = &self.frames[target];
        let exit = &frame.exit;
        sets.push(syn::parse_quote!(#exit = true;));
        if breaks {
            let stop = &frame.stop;
            sets.push(syn::parse_quote!(#stop = true;));
        }
        for inner in &self.frames[target + 1..] {
            let (exit, stop) = (&inner.exit, &inner.stop);
            sets.push(syn::parse_quote!(#exit = true;));
            sets.push(syn::parse_quote!(#stop = true;));
        }
        Some(syn::parse_quote!({ #(#sets)* }))
    }

    fn expr(&mut self, expr: &Expr) -> Option<Expr> {
        match expr {
            Expr::Break(b) => {
                if b.expr.as_deref().is_some_and(leaves_expr) {
                    return None;
                }
                self.exit(b.label.as_ref(), true, b.expr.as_deref())
            }
            Expr::Continue(c) => self.exit(c.label.as_ref(), false, None),
            Expr::If(i) => {
                if leaves_expr(&i.cond) {
                    return None;
                }
                let mut i = i.clone();
                // a loop inside the test (a chain's, `filter`'s `continue`
                // in it) is rewritten for its own exits
                self.visit_expr_mut(&mut i.cond);
                i.then_branch.stmts = self.block(&i.then_branch.stmts)?;
                if let Some((_, else_branch)) = &mut i.else_branch {
                    **else_branch = self.expr(else_branch)?;
                }
                Some(Expr::If(i))
            }
            Expr::Block(b) if b.label.is_none() => {
                let mut b = b.clone();
                b.block.stmts = self.block(&b.block.stmts)?;
                Some(Expr::Block(b))
            }
            Expr::Match(m) => {
                if leaves_expr(&m.expr) {
                    return None;
                }
                let mut m = m.clone();
                self.visit_expr_mut(&mut m.expr);
                for arm in &mut m.arms {
                    if arm.guard.as_ref().is_some_and(|(_, g)| leaves_expr(g)) {
                        return None;
                    }
                    if let Some((_, guard)) = &mut arm.guard {
                        self.visit_expr_mut(guard);
                    }
                    if leaves_expr(&arm.body) {
                        *arm.body = self.expr(&arm.body)?;
                    } else {
                        self.visit_expr_mut(&mut arm.body);
                    }
                }
                Some(Expr::Match(m))
            }
            // an inner loop some exit of which leaves this one too
            Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_) => {
                let mut e = expr.clone();
                let rewritten = self.rewrite_loop(&mut e)?;
                (!leaves_expr(&rewritten)).then_some(rewritten)
            }
            other => {
                if leaves_expr(other) {
                    return None;
                }
                let mut e = other.clone();
                self.visit_expr_mut(&mut e);
                Some(e)
            }
        }
    }
}

/// A semicolon after the last statement if it is a tail expression that
/// is not block-like, so statements may follow it.
fn terminate(stmts: &mut [Stmt]) {
    if let Some(Stmt::Expr(e, semi @ None)) = stmts.last_mut() {
        let block_like = matches!(
            e,
            Expr::If(_)
                | Expr::Match(_)
                | Expr::Block(_)
                | Expr::ForLoop(_)
                | Expr::While(_)
                | Expr::Loop(_)
        );
        if !block_like {
            *semi = Some(Default::default());
        }
    }
}

fn block(b: &syn::Block) -> syn::ExprBlock {
    syn::ExprBlock {
        attrs: Vec::new(),
        label: None,
        block: b.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewrite(body: &str) -> Option<String> {
        let block: syn::Block = syn::parse_str(&format!("{{ {body} }}")).expect("a block");
        eliminate(&block.stmts).map(|stmts| crate::names::text_of(&stmts))
    }

    #[test]
    fn continue_guards_the_rest_of_the_iteration() {
        let out = rewrite("for i in 0..n { if c(i) { continue; } t += w[i]; }").unwrap();
        assert!(out.contains("let mut __mica_exit1 = false ;"), "{out}");
        assert!(out.contains("{ __mica_exit1 = true ; }"), "{out}");
        assert!(out.contains("if ! __mica_exit1 { t += w [i] ; }"), "{out}");
        // a loop that only continues keeps its place and needs no stop
        assert!(out.starts_with("for i in 0 .. n"), "{out}");
        assert!(!out.contains("stop"), "{out}");
    }

    #[test]
    fn break_stops_the_loop_after_the_iteration() {
        let out = rewrite("for i in 0..n { t += w[i]; if t > 1.0 { break; } }").unwrap();
        assert!(out.starts_with("{ let mut __mica_stop1 = false ;"), "{out}");
        assert!(
            out.contains("__mica_exit1 = true ; __mica_stop1 = true ;"),
            "{out}"
        );
        assert!(out.contains("if __mica_stop1 { break ; }"), "{out}");
        let out = rewrite("while k < n { k += 1; if t > 1.0 { break } }").unwrap();
        assert!(out.contains("while ! __mica_stop1 && (k < n)"), "{out}");
    }

    #[test]
    fn a_loop_with_a_break_becomes_a_while() {
        let out = rewrite("loop { k += 1; if k > n { break; } t += 1.0; }").unwrap();
        assert!(
            out.starts_with("{ let mut __mica_stop1 = false ; while ! __mica_stop1 {"),
            "{out}"
        );
        assert!(!out.contains("break"), "{out}");
        // without a `break` (left only by `return`): as written
        assert_eq!(rewrite("loop { if t > 1.0 { return t; } t += 1.0; }"), None);
    }

    #[test]
    fn a_break_with_a_value_leaves_it_in_a_binding_the_block_gives() {
        let out = rewrite("let x = loop { t *= 0.5; if t < 1.0 { break t * 2.0; } };").unwrap();
        assert!(
            out.starts_with(
                "let x = { let mut __mica_value1 = :: mica :: __private :: placeholder () ;"
            ),
            "{out}"
        );
        assert!(
            out.contains("__mica_value1 = t * 2.0 ; __mica_exit1 = true ; __mica_stop1 = true ;"),
            "{out}"
        );
        assert!(out.ends_with("} __mica_value1 } ;"), "{out}");
        assert!(!out.contains("break"), "{out}");
    }

    #[test]
    fn labelled_exits_end_every_loop_between_them_and_their_target() {
        let out = rewrite(
            "'rows: for i in 0..n { for j in 0..m { if j > i { continue 'rows; } if t > 9.0 { break 'rows; } t += w[j]; } t *= 0.5; }",
        )
        .unwrap();
        // the outer loop is 1, the inner 2; `continue 'rows` ends the inner
        // loop and the outer's iteration
        assert!(
            out.contains("{ __mica_exit1 = true ; __mica_exit2 = true ; __mica_stop2 = true ; }"),
            "{out}"
        );
        // `break 'rows` ends both loops
        assert!(
            out.contains("{ __mica_exit1 = true ; __mica_stop1 = true ; __mica_exit2 = true ; __mica_stop2 = true ; }"),
            "{out}"
        );
        // what follows the inner loop in the outer body is guarded
        assert!(out.contains("if ! __mica_exit1 { t *= 0.5 ; }"), "{out}");
        assert!(!out.contains("'rows"), "{out}");
        assert!(!out.contains("continue"), "{out}");
        // a `while let` stops as a `for` does
        let out =
            rewrite("while let Some(k) = it.next() { if k > 3 { break; } t += 1.0; }").unwrap();
        assert!(out.contains("if __mica_stop1 { break ; }"), "{out}");
        assert!(out.contains("while let Some (k) = it . next ()"), "{out}");
    }

    #[test]
    fn inner_loops_keep_their_own_exits_and_flags() {
        let out =
            rewrite("for i in 0..n { for j in 0..m { if j > i { break; } } if i > 3 { break; } }")
                .unwrap();
        assert!(out.contains("__mica_stop1"), "{out}");
        assert!(out.contains("__mica_stop2"), "{out}");
        // the inner loop's `break` is the inner loop's
        let inner = out.find("for j").unwrap();
        assert!(out[inner..].contains("__mica_stop1 = true"), "{out}");
    }

    #[test]
    fn exits_this_does_not_rewrite_are_left_as_written() {
        for body in [
            "'block: { for i in 0..n { if w[i] > 1.0 { break 'block; } } }",
            "for i in 0..n { let x = if c { continue } else { 1.0 }; t += x; }",
            "for i in 0..n { t += match i { 0 => break, _ => 1.0 }; }",
        ] {
            let out = rewrite(body);
            assert!(
                out.as_deref()
                    .is_none_or(|o| o.contains("break") || o.contains("continue")),
                "{body}: {out:?}"
            );
        }
        assert_eq!(rewrite("for i in 0..n { t += w[i]; }"), None);
    }

    #[test]
    fn match_arms_and_blocks_are_followed() {
        let out = rewrite(
            "for i in 0..n { match i { 0 => continue, _ => { if t > 2.0 { break; } } } t += 1.0; }",
        )
        .unwrap();
        assert!(!out.contains("continue"), "{out}");
        assert!(out.contains("if __mica_stop1 { break ; }"), "{out}");
    }

    #[test]
    fn split_stop_takes_the_last_statement_off() {
        let out = rewrite("for i in 0..n { t += w[i]; if t > 1.0 { break; } }").unwrap();
        let e: Expr = syn::parse_str(&out).unwrap();
        let Expr::Block(b) = e else { panic!("{out}") };
        let Some(Stmt::Expr(Expr::ForLoop(f), _)) = b.block.stmts.get(1) else {
            panic!("{out}")
        };
        let (body, flag) = split_stop(&f.body).unwrap();
        assert_eq!(flag.to_string(), "__mica_stop1");
        assert_eq!(body.stmts.len() + 1, f.body.stmts.len());
    }
}

#[cfg(test)]
mod expansion {
    /// The adjoint of a loop that breaks: its forward stops where the
    /// function's does, after the iteration's push, and its reverse counts
    /// the iterations that ran.
    #[test]
    fn a_loop_that_breaks_stops_after_its_push_and_is_walked_by_its_count() {
        let code = crate::expand::backward_of(
            "fn f(#[tracked] w: &[f64], limit: f64) -> f64 {
                let mut t = 0.0;
                for i in 0..w.len() {
                    t += w[i].sin();
                    if t > limit {
                        break;
                    }
                }
                t
            }",
        );
        let push = code.find(". push (").expect("a push");
        let stop = code.find("if __mica_stop1 { break ; }").expect("the stop");
        assert!(push < stop, "{code}");
        // not walked over its range backward
        assert!(!code.contains("rev (0 .. w . len ())"), "{code}");
        assert!(code.contains("while __mica_r"), "{code}");
    }
}
