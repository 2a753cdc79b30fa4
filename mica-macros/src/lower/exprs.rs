//! Expressions: operators, operands, temporaries and the operations they
//! record.

use super::*;
use crate::facts::places::array_literal;
use crate::facts::syntax::strip_parens;

/// The message for a tuple of recorded values that Mica follows as one
/// value, read by a pattern or a field.
pub(super) const ONE_VALUE_TUPLE: &str = "this tuple is a recorded value Mica follows as one value (what a call to a `#[tape]` function returning a tuple gives, or a tuple carried through a loop); read a call's tuple where it is made (`let (a, b) = f(…);`), and carry each value of a loop's tuple in a name of its own (`let mut a = …; let mut b = …;`)";

impl Sweep<'_> {
    /// Lowers an expression, emitting the temporaries it needs into `out`.
    pub fn lower_expr(&mut self, expr: &Expr, out: &mut TokenStream) -> syn::Result<Lowered> {
        let hint = self.hint.take();
        if !self.mentions_active(expr) {
            self.check_no_escape(expr)?;
            return Ok(Lowered {
                val: Val::Const,
                fwd: self.fast_constant(expr),
            });
        }
        match expr {
            Expr::Paren(p) => {
                self.hint = hint;
                self.lower_expr(&p.expr, out)
            }
            Expr::Group(g) => {
                self.hint = hint;
                self.lower_expr(&g.expr, out)
            }
            Expr::Path(p) => {
                let ident = p.path.get_ident().ok_or_else(|| {
                    syn::Error::new_spanned(p, "this path is outside the recorded vocabulary")
                })?;
                let val = self.lookup(&ident.to_string()).map(|b| b.val.clone()).unwrap_or(Val::Const);
                Ok(Lowered { val, fwd: ident.to_token_stream() })
            }
            Expr::Binary(b) => {
                if is_compound(&b.op) {
                    return Err(syn::Error::new_spanned(
                        b,
                        "a compound assignment stands as a statement of its own",
                    ));
                }
                match rules::binary(&b.op) {
                    Some(rule) => {
                        let prec = inline::precedence(&b.op);
                        self.hint_operand(rule, 0, 2, inline::Ctx::Binary { prec, right: false }, |s, i| {
                            i == 0 || s.mentions_active(&b.right)
                        });
                        let left = self.lower_operand(&b.left, out)?;
                        let left_active = matches!(left.0, Operand::Active(_));
                        self.hint_operand(rule, 1, 2, inline::Ctx::Binary { prec, right: true }, |_, i| {
                            i == 1 || left_active
                        });
                        let right = self.lower_operand(&b.right, out)?;
                        let (l, op, r) = (&left.1, &b.op, &right.1);
                        let fwd = quote!(#l #op #r);
                        self.hint = hint;
                        Ok(self.new_op_or_const(rule, vec![left.0, right.0], fwd, inline::Form::Binary(prec), out))
                    }
                    // comparisons carry no slope: a constant (bool)
                    None => Ok(Lowered { val: Val::Const, fwd: expr.to_token_stream() }),
                }
            }
            Expr::Unary(u) => match u.op {
                syn::UnOp::Neg(_) => {
                    self.hint_operand("neg", 0, 1, inline::Ctx::Neg, |_, _| true);
                    let inner = self.lower_operand(&u.expr, out)?;
                    let (op, x) = (&u.op, &inner.1);
                    let fwd = quote!(#op #x);
                    self.hint = hint;
                    Ok(self.new_op_or_const("neg", vec![inner.0], fwd, inline::Form::Prefix, out))
                }
                // `*x` of an element bound by reference: the element itself
                syn::UnOp::Deref(_) => {
                    let inner = self.lower_expr(&u.expr, out)?;
                    let (op, x) = (&u.op, &inner.fwd);
                    Ok(Lowered { val: inner.val, fwd: quote!(#op #x) })
                }
                syn::UnOp::Not(_) => Ok(Lowered { val: Val::Const, fwd: expr.to_token_stream() }),
                _ => Err(syn::Error::new_spanned(
                    u.op,
                    format!("`{}` on a recorded value is outside the recorded vocabulary", u.op.to_token_stream()),
                )),
            },
            Expr::MethodCall(m) => {
                self.hint = hint;
                self.lower_method(m, expr, out)
            }
            Expr::Call(c) => {
                self.hint = hint;
                self.lower_call(c, expr, out)
            }
            Expr::Tuple(t) => {
                let mut vals = Vec::new();
                let mut fwds = Vec::new();
                for elem in &t.elems {
                    let lowered = self.lower_expr(elem, out)?;
                    vals.push(lowered.val);
                    fwds.push(lowered.fwd);
                }
                let fwd = if fwds.len() == 1 { quote!((#(#fwds,)*)) } else { quote!((#(#fwds),*)) };
                Ok(Lowered { val: Val::Tuple(vals), fwd })
            }
            Expr::Field(f) => {
                let base = self.lower_expr(&f.base, out)?;
                let index = match &f.member {
                    syn::Member::Unnamed(index) => index.index as usize,
                    syn::Member::Named(name) => {
                        return Err(syn::Error::new_spanned(
                            name,
                            format!("field `{name}` of a recorded value is outside the recorded vocabulary; a struct of knobs is tracked with its type written (`#[tracked] m: &Model`, `#[tracked] let m: Model = …;`) and `#[derive(mica::Knob)]` on its definition"),
                        ))
                    }
                };
                let val = match base.val {
                    Val::Tuple(items) => items.get(index).cloned().unwrap_or(Val::Const),
                    Val::Const => Val::Const,
                    // a recorded value Rust types as a tuple that Mica
                    // follows as one value: its field's slope would be lost
                    Val::Active(_) | Val::Array { .. } => {
                        return Err(syn::Error::new_spanned(f, ONE_VALUE_TUPLE))
                    }
                };
                let (b, member) = (&base.fwd, &f.member);
                Ok(Lowered { val, fwd: quote!(#b.#member) })
            }
            Expr::Block(b) if b.label.is_none() => self.lower_nested_block(&b.block, out),
            Expr::Block(b) => Err(syn::Error::new_spanned(
                &b.label,
                "a labelled block around recorded values is not supported; leave a loop inside it with `break;`, or guard the lines after the exit with a flag: `if !done { … }`",
            )),
            // an array literal whose elements are all constants (say, of
            // slope-0 methods) is a constant
            Expr::Array(_) | Expr::Repeat(_) => self.constant_array(expr, expr, out),
            Expr::Macro(m) if m.mac.path.is_ident("vec") => match array_literal(expr) {
                Some(literal) => self.constant_array(&literal, expr, out),
                None => Err(syn::Error::new_spanned(&m.mac.path, "this `vec!` of recorded values is outside the recorded vocabulary")),
            },
            Expr::Macro(m) => {
                self.check_macro(&m.mac)?;
                Ok(Lowered { val: Val::Const, fwd: expr.to_token_stream() })
            }
            Expr::Cast(c) => {
                // a cast of a constant (say, of `detach(…)`) is a constant
                let inner = self.lower_expr(&c.expr, out)?;
                if inner.val.is_active() {
                    return Err(syn::Error::new_spanned(
                        c.as_token,
                        "an `as` cast of a recorded value is outside the recorded vocabulary; for an integer (an index, a count) write `mica::detach(x) as usize`: the slope stops there",
                    ));
                }
                // the operand as lowered: what it declared (a loop's trip
                // count, say) is assigned there
                let (operand, ty) = (&inner.fwd, &c.ty);
                Ok(Lowered { val: Val::Const, fwd: quote!((#operand) as #ty) })
            }
                        Expr::Reference(r) if r.mutability.is_none() && self.is_recorded_array(&r.expr) => {
                let inner = self.lower_expr(&r.expr, out)?;
                let (and, x) = (&r.and_token, &inner.fwd);
                Ok(Lowered { val: inner.val, fwd: quote!(#and #x) })
            }
            Expr::Reference(r)
                if matches!(crate::facts::syntax::strip_parens(&r.expr), Expr::Index(i) if matches!(crate::facts::syntax::strip_parens(&i.index), Expr::Range(_))) =>
            {
                Err(syn::Error::new_spanned(
                    r.and_token,
                    "a part of an array of recorded values is borrowed as a view bound by `let` (`let row = &x[a..b];`, not `mut`, of a name or a field), passed to a function, or read by index: `x[a + i]`; for a name that holds one part and then another, make it a `Vec` and copy each part: `let mut v = x[a..b].to_vec();`, then `v = x[c..d].to_vec();`",
                ))
            }
            // `&x[i]` of an element (`let r = &x[i];`), `&a` of a scalar: a
            // reference to the value, which stays kept for the reverse by
            // value
            Expr::Reference(r) if r.mutability.is_none() => {
                self.hint = None;
                let inner = self.lower_expr(&r.expr, out)?;
                match inner.val {
                    Val::Active(_) | Val::Const => {
                        let (and, x) = (&r.and_token, &inner.fwd);
                        Ok(Lowered { val: inner.val, fwd: quote!(#and #x) })
                    }
                    Val::Tuple(_) => Err(syn::Error::new_spanned(
                        r.and_token,
                        "a reference to a tuple of recorded values is outside the recorded vocabulary; bind the tuple itself: `let t = (a, b);`",
                    )),
                    _ => Err(syn::Error::new_spanned(
                        r.and_token,
                        "a reference to this recorded value is outside the recorded vocabulary; bind the value to a name first (`let v = [a, b];`) and borrow the name (`&v`)",
                    )),
                }
            }
            Expr::Reference(r) => Err(syn::Error::new_spanned(
                r.and_token,
                "a `&mut` borrow of a recorded value is outside the recorded vocabulary here; write to the name itself (`b += 1.0;`, `h[i] = v;`)",
            )),
            Expr::Return(r) if self.function_form => Err(syn::Error::new_spanned(
                r.return_token,
                "`return` before the end of a `#[tape]` function is not supported by this version of Mica; end with the value",
            )),
            Expr::Try(t) if self.wrapped => Err(syn::Error::new_spanned(
                t.question_token,
                "`?` applies to values that do not depend on a knob; decide on the recorded value with an `if` and `return None;` (or `Err(…)`)",
            )),
            Expr::Return(_) | Expr::Try(_) | Expr::Await(_) | Expr::Break(_) | Expr::Continue(_) => {
                self.check_no_escape(expr)?;
                Err(syn::Error::new_spanned(first_token(expr), "this expression leaves the window early"))
            }
            Expr::If(i) => self.lower_if(i, out),
            Expr::Match(m) => self.lower_match(m, out),
            Expr::ForLoop(f) => self.lower_for(f, out),
            Expr::While(w) => self.lower_while(w, out),
            Expr::Loop(l) => Err(syn::Error::new_spanned(
                l.loop_token,
                "this `loop` over recorded values is not supported: leave it by a `break` (or `break value`) that stands as a statement of its own, `if … { break; }`, in its body or in an `if`, a `match` arm or a block there",
            )),
            Expr::Index(i) => self.lower_index(i, out),
            Expr::Closure(c) => Err(syn::Error::new_spanned(
                c.or1_token,
                "a closure over a recorded value is outside the recorded vocabulary; write a `#[tape]` function and call it",
            )),
            Expr::Struct(s) => Err(syn::Error::new_spanned(
                &s.path,
                "a struct holding recorded values is followed only as a knob (`#[derive(mica::Knob)]` on its definition, `#[tracked] m: &Model`); hold the values in names or arrays (`let p = [a, 2.0 * a];`) and write its operators as plain arithmetic on them",
            )),
            _ => Err(syn::Error::new_spanned(
                first_token(expr),
                "this expression on a recorded value is outside the recorded vocabulary; the crate's documentation lists what may be recorded",
            )),
        }
    }

    /// Lowers an input of an operation: a recorded value, a literal, or a
    /// constant bound to a temporary so the reverse sweep can read it again.
    pub(super) fn lower_operand(
        &mut self,
        expr: &Expr,
        out: &mut TokenStream,
    ) -> syn::Result<(Operand, TokenStream)> {
        self.lower_operand_as(expr, true, out)
    }

    /// [`Self::lower_operand`]; `scalar`: the operand is a float (or a
    /// rule's integer), so a constant name kept for the reverse is kept by
    /// value (a loop's element bound by reference, `for (a, b) in
    /// h.iter().zip(…)`, would otherwise hold a borrow of `h` on the tape).
    pub(super) fn lower_operand_as(
        &mut self,
        expr: &Expr,
        scalar: bool,
        out: &mut TokenStream,
    ) -> syn::Result<(Operand, TokenStream)> {
        // `(e)` is `e`: bound to a temporary, its parentheses would be unused
        let expr = strip_parens(expr);
        let lowered = self.lower_expr(expr, out)?;
        match lowered.val {
            Val::Active(id) => Ok((Operand::Active(id), lowered.fwd)),
            Val::Const => {
                if is_literal(expr) {
                    return Ok((Operand::Const(lowered.fwd.clone()), lowered.fwd));
                }
                // an element of a literal that is a literal (`lower/rebuild.rs`)
                // or one read back where the literal made the array (the
                // forward reads the array as written)
                if let Expr::Index(i) = expr {
                    match self.known_element(i) {
                        Some(super::rebuild::Known::Literal(lit)) => {
                            return Ok((Operand::Const(lit), lowered.fwd))
                        }
                        Some(super::rebuild::Known::Kept(id)) => {
                            return Ok((Operand::Stored(id), lowered.fwd))
                        }
                        _ => {}
                    }
                }
                // a name that holds the same value wherever the reverse
                // sweep reads it: read there, not copied
                if let Expr::Path(p) = expr {
                    if let Some(name) = p.path.get_ident() {
                        if self.at_top() && self.stability.as_ref().is_some_and(|s| s.pure(expr)) {
                            let id = self.new_value(name.clone(), None);
                            self.values[id].recompute = Some(expr.clone());
                            return Ok((Operand::Stored(id), lowered.fwd));
                        }
                    }
                }
                // kept as written (a name by value); a rule reads it
                // through `val`
                let by_ref = |p: &syn::ExprPath| {
                    p.path
                        .get_ident()
                        .and_then(|i| self.lookup(&i.to_string()))
                        .is_some_and(|b| b.by_ref)
                };
                let kept = match expr {
                    Expr::Path(p) if scalar && by_ref(p) => {
                        let fwd = &lowered.fwd;
                        quote!(::mica::__private::element(#fwd))
                    }
                    _ => lowered.fwd,
                };
                let id = self.stored(kept, out);
                if self.stability.as_ref().is_some_and(|s| s.pure(expr)) {
                    self.values[id].recompute = Some(expr.clone());
                } else if let Some((again, copies)) = self.again_from_copies(expr) {
                    // from copies of names a loop around does not change
                    // (see `lower/snapshots.rs`)
                    self.values[id].recompute = Some(again);
                    self.values[id].deps = copies;
                }
                let store = self.values[id].store.to_token_stream();
                Ok((Operand::Stored(id), store))
            }
            Val::Tuple(_) => Err(syn::Error::new_spanned(
                expr,
                "a tuple is not a scalar; take one of its fields",
            )),
            Val::Array { .. } => Err(syn::Error::new_spanned(
                expr,
                "an array is not a scalar; index it",
            )),
        }
    }

    /// `let temp = value;`, or, inside a nested block or branch arm, an
    /// assignment to a temporary declared at the top of the storage scope.
    pub(super) fn emit_temp(&mut self, temp: &Ident, value: TokenStream, out: &mut TokenStream) {
        let depth = self.depth;
        match self.hoists.last_mut() {
            Some(hoist) if hoist.base != depth || hoist.arms > 0 => {
                hoist.names.push((temp.clone(), hoist.arms > 0));
                self.hoisted.insert(temp.to_string());
                out.extend([quote!(#temp = #value;)]);
            }
            _ => crate::names::push_let(out, temp, value),
        }
    }

    /// A value's store that later lines may change (`grow_shape`): as
    /// [`Self::stored`], declared `mut`.
    pub(super) fn stored_mut(&mut self, value: TokenStream, out: &mut TokenStream) -> ValueId {
        let temp = self.names.fresh("c");
        let depth = self.depth;
        match self.hoists.last_mut() {
            Some(hoist) if hoist.base != depth || hoist.arms > 0 => {
                hoist.names.push((temp.clone(), hoist.arms > 0));
                hoist.mutable.push(temp.clone());
                self.hoisted.insert(temp.to_string());
                out.extend([quote!(#temp = #value;)]);
            }
            _ => out.extend([quote!(#[allow(unused_mut)] let mut #temp = #value;)]),
        }
        self.new_value(temp, None)
    }

    /// As [`Self::emit_temp`] for `Some(value)`: hoisted, it starts from
    /// `None` (not a placeholder, which a reference has not).
    pub(super) fn emit_optional_temp(
        &mut self,
        temp: &Ident,
        value: TokenStream,
        out: &mut TokenStream,
    ) {
        let depth = self.depth;
        match self.hoists.last_mut() {
            Some(hoist) if hoist.base != depth || hoist.arms > 0 => {
                hoist.options.push(temp.clone());
                self.hoisted.insert(temp.to_string());
                out.extend([quote!(#temp = ::core::option::Option::Some(#value);)]);
            }
            _ => out.extend([quote!(let #temp = ::core::option::Option::Some(#value);)]),
        }
    }

    /// A constant bound to a temporary the reverse sweep may read.
    pub(super) fn stored(&mut self, value: TokenStream, out: &mut TokenStream) -> ValueId {
        let temp = self.names.fresh("c");
        self.emit_temp(&temp, value, out);
        self.new_value(temp, None)
    }

    /// Records an operation whose output is `fwd`, bound to a fresh store.
    pub(super) fn new_op(
        &mut self,
        kind: OpKind,
        inputs: Vec<Operand>,
        fwd: TokenStream,
        out: &mut TokenStream,
    ) -> Lowered {
        self.new_op_at(kind, inputs, Vec::new(), fwd, out)
    }

    pub(super) fn new_op_at(
        &mut self,
        kind: OpKind,
        inputs: Vec<Operand>,
        spans: Vec<proc_macro2::Span>,
        fwd: TokenStream,
        out: &mut TokenStream,
    ) -> Lowered {
        let store = self.names.fresh("t");
        self.emit_temp(&store, fwd, out);
        let fwd = store.to_token_stream();
        let id = self.record_op(store, kind, inputs, spans);
        Lowered {
            val: Val::Active(id),
            fwd,
        }
    }

    /// Records an operation whose value the forward sweep keeps in `store`.
    pub(super) fn record_op(
        &mut self,
        store: Ident,
        kind: OpKind,
        inputs: Vec<Operand>,
        spans: Vec<proc_macro2::Span>,
    ) -> ValueId {
        let id = self.new_value(store, None);
        // read again only inside loops (outside, the value stays in scope)
        if self.stability.is_some() && self.scope != 0 {
            self.cheap_again(id, &kind, &inputs);
        }
        self.push_step(Step::Op(Op {
            out: id,
            kind,
            inputs,
            spans,
        }));
        id
    }

    /// `a ± b`, `a * b` and `-a` are cheaper to evaluate again than to
    /// store: their value, from their inputs' stores, the same operation.
    /// An input written inside the operation (`1.0 + b * z`) is evaluated
    /// again with it, in parentheses, the same operations in the same
    /// order.
    pub(super) fn cheap_again(&mut self, id: ValueId, kind: &OpKind, inputs: &[Operand]) {
        let OpKind::Rule(rule) = kind else { return };
        let mut deps = Vec::new();
        let mut args = Vec::new();
        for input in inputs {
            match input {
                Operand::Active(v) | Operand::Stored(v) => {
                    if self.inlined.contains(v) {
                        // written inside this operation (no store of its
                        // own): evaluated again as part of it, if it can be
                        let Some(inner) = &self.values[*v].recompute else {
                            return;
                        };
                        deps.extend(self.values[*v].deps.iter().copied());
                        args.push(quote!((#inner)));
                        continue;
                    }
                    deps.push(*v);
                    args.push(self.values[*v].store.to_token_stream());
                }
                Operand::Const(tokens) => args.push(tokens.clone()),
                Operand::Array { .. } => return,
            }
        }
        // only what costs no more than reading a stored value
        if !matches!(*rule, "add" | "sub" | "mul" | "neg") {
            return;
        }
        // the operation on its inputs' stores, as syntax
        let Some(expr) = crate::rules::forward(rule, &args).and_then(|e| syn::parse2(e).ok())
        else {
            return;
        };
        self.values[id].recompute = Some(expr);
        self.values[id].deps = deps;
    }

    /// As [`Self::new_op`], unless no input is recorded after all (e.g. a
    /// binding that only looked recorded): then the expression is a constant.
    pub(super) fn new_op_or_const(
        &mut self,
        rule: &'static str,
        mut inputs: Vec<Operand>,
        fwd: TokenStream,
        form: inline::Form,
        out: &mut TokenStream,
    ) -> Lowered {
        let hint = self.hint.take();
        if inputs.iter().any(|i| matches!(i, Operand::Active(_))) {
            if let Some((id, fwd)) = self.inline_op(hint, rule, &mut inputs, &fwd, form) {
                return Lowered {
                    val: Val::Active(id),
                    fwd,
                };
            }
            self.new_op(OpKind::Rule(rule), inputs, fwd, out)
        } else {
            Lowered {
                val: Val::Const,
                fwd,
            }
        }
    }
}
