//! Statements: blocks, `let`, assignments.

use super::*;
use crate::facts::places::{is_assignment, pattern_names, LaterNames};

impl Sweep<'_> {
    /// Lowers statements into `out`; returns the tail expression's value, if
    /// the last statement is one.
    pub fn lower_block_stmts(&mut self, stmts: &[Stmt], out: &mut TokenStream) -> Option<Lowered> {
        let mut tail = None;
        // the names each statement mentions, made when first needed
        let mut later = LaterNames::new(stmts);
        for (i, stmt) in stmts.iter().enumerate() {
            let last = i + 1 == stmts.len();
            let top = self.depth == 0 && self.region == 0 && self.scopes.len() == 1;
            if top {
                if let Some(stability) = &mut self.stability {
                    stability.at_statement(i);
                }
            }
            self.enter_statement(stmt);
            self.wrote = None;
            let simple = inline::simple_stmt(stmt);
            self.inline_stmt = simple && self.inline_here();
            self.read_cache = simple.then(HashMap::new);
            match stmt {
                Stmt::Expr(expr, None) if last && !is_assignment(expr) => {
                    let lowered = self
                        .check_no_escape(expr)
                        .and_then(|()| self.lower_expr(expr, out));
                    tail = Some(self.recover_value(lowered, expr));
                }
                Stmt::Expr(Expr::Return(ret), _)
                    if last && self.function_form && self.depth == 0 =>
                {
                    tail = match &ret.expr {
                        Some(expr) => {
                            let lowered = self.lower_expr(expr, out);
                            Some(self.recover_value(lowered, expr))
                        }
                        None => None,
                    };
                }
                Stmt::Local(local) if self.binds_tuple_result(local) => {
                    if let Err(e) = self.lower_tuple_let(local, &stmts[i + 1..], out) {
                        self.errors.push(e);
                        self.recover(stmt, out);
                    }
                }
                Stmt::Local(local) if self.binds_array_result(local, &stmts[i + 1..]) => {
                    if let Err(e) = self.lower_array_let(local, out) {
                        self.errors.push(e);
                        self.recover(stmt, out);
                    }
                }
                Stmt::Local(local)
                    if self.makes_recorded_array(local, &stmts[i + 1..], &mut later, i + 1) =>
                {
                    if let Err(e) = self.lower_local_array(local, out) {
                        self.errors.push(e);
                        self.recover(stmt, out);
                    }
                }
                _ => {
                    if let Err(e) = self.lower_stmt(stmt, out) {
                        self.errors.push(e);
                        self.recover(stmt, out);
                    }
                }
            }
            self.inline_stmt = false;
            self.read_cache = None;
            self.release_held();
            self.leave_statement(stmt);
        }
        tail
    }

    /// A value lowered, or after an error in it the user's expression as
    /// a constant: a block's value stays a value of its type, so the
    /// error is the only one said.
    fn recover_value(&mut self, lowered: syn::Result<Lowered>, expr: &Expr) -> Lowered {
        lowered.unwrap_or_else(|e| {
            self.errors.push(e);
            Lowered {
                val: Val::Const,
                fwd: expr.to_token_stream(),
            }
        })
    }

    /// After an error in `stmt`: keep the user's code (so later lines still
    /// see its bindings, and the editor keeps working) without cascading
    /// into more errors.
    pub(super) fn recover(&mut self, stmt: &Stmt, out: &mut TokenStream) {
        match stmt {
            Stmt::Macro(m) if is_tape_macro(&m.mac) => {}
            Stmt::Expr(Expr::Macro(m), _) if is_tape_macro(&m.mac) => {}
            Stmt::Local(local) => {
                for name in pattern_names(&local.pat) {
                    self.bind(&name, Val::Const, Origin::Local);
                }
                let mut local = local.clone();
                local.attrs.retain(|a| !crate::parse::is_tracked(a));
                out.extend([local.to_token_stream()]);
            }
            _ => out.extend([stmt.to_token_stream()]),
        }
    }

    pub(super) fn lower_stmt(&mut self, stmt: &Stmt, out: &mut TokenStream) -> syn::Result<()> {
        if !self.function_form {
            self.check_writes(stmt)?;
        }
        match stmt {
            Stmt::Expr(expr, _) => self.check_no_escape(expr)?,
            Stmt::Local(local) => {
                if let Some(init) = &local.init {
                    self.check_no_escape(&init.expr)?;
                }
            }
            _ => {}
        }
        match stmt {
            Stmt::Local(local) => self.lower_local(local, out),
            Stmt::Item(_) => {
                out.extend([stmt.to_token_stream()]);
                Ok(())
            }
            Stmt::Macro(m) => {
                self.check_macro(&m.mac)?;
                out.extend([stmt.to_token_stream()]);
                Ok(())
            }
            Stmt::Expr(expr, semi) => {
                if !self.mentions_active(expr) {
                    self.check_no_escape(expr)?;
                    out.extend([stmt.to_token_stream()]);
                    return Ok(());
                }
                match expr {
                    Expr::Assign(assign) => {
                        self.lower_assign(&assign.left, None, &assign.right, out)
                    }
                    Expr::Binary(b) if is_compound(&b.op) => {
                        self.lower_assign(&b.left, Some(&b.op), &b.right, out)
                    }
                    Expr::Macro(m) => {
                        self.check_macro(&m.mac)?;
                        out.extend([stmt.to_token_stream()]);
                        Ok(())
                    }
                    // in statement position their value (if any) is dropped
                    Expr::ForLoop(_) | Expr::While(_) | Expr::If(_) | Expr::Match(_) => {
                        self.lower_expr(expr, out)?;
                        Ok(())
                    }
                    _ => {
                        let lowered = self.lower_expr(expr, out)?;
                        let fwd = lowered.fwd;
                        if fwd.is_empty() {
                            return Ok(());
                        }
                        match semi {
                            Some(_) => out.extend([quote!(let _ = #fwd;)]),
                            None => out.extend([fwd]),
                        }
                        Ok(())
                    }
                }
            }
        }
    }

    pub(super) fn lower_local(&mut self, local: &Local, out: &mut TokenStream) -> syn::Result<()> {
        if let Some(attr) = local.attrs.iter().find(|a| crate::parse::is_tracked(a)) {
            let message = if self.function_form {
                "a `#[tape]` function with tracked parameters has no knobs of its own; track a parameter instead"
            } else {
                "`#[tracked]` goes on a `let` before the window, not inside it"
            };
            return Err(syn::Error::new_spanned(attr, message));
        }
        let init = match &local.init {
            Some(init) if self.mentions_active(&init.expr) => init,
            _ => {
                if let Some(init) = &local.init {
                    self.check_no_escape(&init.expr)?;
                }
                out.extend([local.to_token_stream()]);
                self.bind_pattern(&local.pat, Val::Const)?;
                // `let r = &s[1];`: a reference, kept for the reverse by
                // value (the block it points into may end before it)
                if let Some(init) = &local.init {
                    if matches!(crate::facts::syntax::strip_parens(&init.expr), Expr::Reference(r) if r.mutability.is_none())
                    {
                        self.mark_ref(&local.pat);
                    }
                }
                self.note_owned(local);
                self.note_constant_array(local, out);
                self.top_level_let(local);
                return Ok(());
            }
        };
        if let Some((_, diverge)) = &init.diverge {
            return Err(syn::Error::new_spanned(
                diverge,
                "`let … else` on a recorded value is outside the recorded vocabulary",
            ));
        }
        self.hint_let(&local.pat);
        let arrays = self.arrays.len();
        let lowered = self.lower_expr(&init.expr, out)?;
        // an array of a tuple made before this `let` would be another name
        // for the array it was moved from, which later lines may assign; a
        // tuple written out (`let (p, q) = (a, b);`) binds each part on
        // its own (`views/elements.rs`)
        if let Val::Tuple(items) = &lowered.val {
            if items
                .iter()
                .any(|v| matches!(v, Val::Array { array, .. } if *array < arrays))
            {
                return Err(syn::Error::new_spanned(
                    &local.pat,
                    "a tuple holding a recorded array is bound here from a value Mica cannot split; write the tuple out where it is bound: `let (p, q) = (a, b);`",
                ));
            }
        }
        match lowered.val {
            Val::Array { array, .. } => self.let_copy(local, lowered, array >= arrays, out),
            _ => self.let_value(local, lowered, out),
        }
    }

    /// A `let` at the top of the function body may make its name stable.
    pub(super) fn top_level_let(&mut self, local: &Local) {
        if self.depth == 0 && self.region == 0 && self.scopes.len() == 1 {
            if let Some(stability) = &mut self.stability {
                stability.top_level_let(local);
            }
        }
    }

    pub(super) fn bind_pattern(&mut self, pat: &Pat, val: Val) -> syn::Result<()> {
        match pat {
            Pat::Ident(p) if p.subpat.is_none() => {
                if p.by_ref.is_some() && val.is_active() {
                    return Err(syn::Error::new_spanned(
                        p.by_ref,
                        "a recorded value is bound by value; remove `ref`",
                    ));
                }
                self.bind(&p.ident, val, Origin::Local);
                Ok(())
            }
            Pat::Type(p) => self.bind_pattern(&p.pat, val),
            Pat::Wild(_) => Ok(()),
            Pat::Paren(p) => self.bind_pattern(&p.pat, val),
            Pat::Reference(p) => self.bind_pattern(&p.pat, val),
            Pat::Tuple(t) => match val {
                Val::Tuple(items) if items.len() == t.elems.len() => {
                    for (p, v) in t.elems.iter().zip(items) {
                        self.bind_pattern(p, v)?;
                    }
                    Ok(())
                }
                Val::Const => {
                    for p in &t.elems {
                        self.bind_pattern(p, Val::Const)?;
                    }
                    Ok(())
                }
                // a scalar of the record that Rust types as a tuple: what a
                // `#[tape]` function returning a tuple gives
                Val::Active(_) => Err(syn::Error::new_spanned(pat, super::exprs::ONE_VALUE_TUPLE)),
                _ => Err(syn::Error::new_spanned(
                    pat,
                    "this pattern does not match the shape of the recorded value",
                )),
            },
            _ if !val.is_active() => {
                // a constant: bind every name the pattern introduces as such
                for name in pattern_names(pat) {
                    self.bind(&name, Val::Const, Origin::Local);
                }
                Ok(())
            }
            _ => Err(syn::Error::new_spanned(
                pat,
                "a recorded value is bound by a name or a tuple of names; this pattern is outside the recorded vocabulary",
            )),
        }
    }

    /// `x = e`, `x += e`, … on a binding made inside the sweep.
    pub(super) fn lower_assign(
        &mut self,
        target: &Expr,
        op: Option<&syn::BinOp>,
        value: &Expr,
        out: &mut TokenStream,
    ) -> syn::Result<()> {
        let name = match target {
            Expr::Path(p) if p.qself.is_none() => p.path.get_ident().cloned(),
            _ => None,
        };
        if let Expr::Index(index) = target {
            return self.lower_array_write(index, op, value, out);
        }
        let Some(name) = name else {
            return Err(syn::Error::new_spanned(
                target,
                if self.function_form {
                    "a recorded value is assigned only to a name bound in the function"
                } else {
                    "a recorded value is assigned only to a name bound inside the window"
                },
            ));
        };
        if let Some(Binding {
            val: Val::Array { array, prefix },
            origin: Origin::Local,
            ..
        }) = self.lookup(&name.to_string()).cloned()
        {
            if op.is_none() && prefix.is_empty() && self.arrays[array].local.is_some() {
                return self.assign_array(target, array, value, out);
            }
        }
        match self.lookup(&name.to_string()).map(|b| b.origin) {
            Some(Origin::Local) | Some(Origin::Param) => {}
            Some(Origin::Knob) => {
                return Err(syn::Error::new_spanned(
                    target,
                    format!("a window cannot write to the knob `{name}`; change knobs after the window"),
                ))
            }
            None => {
                return Err(syn::Error::new_spanned(
                    target,
                    format!("a window cannot write to `{name}`, which was bound before it; bind a new name inside the window"),
                ))
            }
        }
        let arrays = self.arrays.len();
        let lowered = match op {
            None => self.lower_expr(value, out)?,
            Some(op) => {
                let rule = rules::binary(op).ok_or_else(|| {
                    syn::Error::new_spanned(op, "this operator is outside the recorded vocabulary")
                })?;
                // Rust evaluates the value first, then reads the name: a
                // value whose block assigns the name is added to what it
                // assigned (the hint asks only whether the name holds a
                // recorded value, which such a block, never inlined, may
                // change)
                let prec = inline::precedence(op);
                let left_active = self
                    .lookup(&name.to_string())
                    .is_some_and(|b| b.val.is_active());
                self.hint_operand(
                    rule,
                    1,
                    2,
                    inline::Ctx::Binary { prec, right: true },
                    |_, _| left_active,
                );
                let right = self.lower_operand(value, out)?;
                let left = self.lower_operand(target, out)?;
                let bin = compound_to_binary(op);
                let fwd = {
                    let (l, r) = (&left.1, &right.1);
                    quote!(#l #bin #r)
                };
                self.new_op_or_const(
                    rule,
                    vec![left.0, right.0],
                    fwd,
                    inline::Form::Binary(prec),
                    out,
                )
            }
        };
        // a copy of an existing recorded array into a name Mica does not
        // know as an array would be another name for the copied array: a
        // later write to either would reach the other's reads
        if let Val::Array { array, .. } = &lowered.val {
            if *array < arrays && crate::facts::syntax::copied(value).is_some() {
                // said once per name (a loop's read may have said it)
                if !self.refused_copies.insert(name.to_string()) {
                    let fwd = &lowered.fwd;
                    out.extend([quote_spanned!(target.span()=> #name = #fwd;)]);
                    self.set(&name, Val::Const);
                    return Ok(());
                }
                return Err(syn::Error::new_spanned(
                    target,
                    format!("`{name}` is given a copy of a recorded array here, but where it is bound its value is no array Mica knows; bind it to an array literal, `vec![…]` or a copy (`let mut {name} = vec![0.0; n];`, `let mut {name} = x.to_vec();`)"),
                ));
            }
        }
        let fwd = &lowered.fwd;
        out.extend([quote_spanned!(target.span()=> #name = #fwd;)]);
        if let Some(scope) = self
            .scopes
            .iter_mut()
            .rev()
            .find(|s| s.contains_key(&name.to_string()))
        {
            if let Some(binding) = scope.get_mut(&name.to_string()) {
                binding.val = lowered.val;
            }
        }
        Ok(())
    }

    // ----------------------------------------------------------- expressions
}
