//! Method calls, calls to `#[tape]` functions and methods, array
//! constants and nested blocks.

use super::*;
use crate::facts::places::{index_chain, mutates};
use crate::facts::syntax::strip_parens;

impl Sweep<'_> {
    pub(super) fn lower_method(
        &mut self,
        m: &syn::ExprMethodCall,
        expr: &Expr,
        out: &mut TokenStream,
    ) -> syn::Result<Lowered> {
        if let Some(lowered) = self.array_method(m, expr, out) {
            return lowered;
        }
        let hint = self.hint.take();
        let name = m.method.to_string();
        let receiver_active = self.mentions_active(&m.receiver);
        if receiver_active && matches!(name.as_str(), "len" | "is_empty") && m.args.is_empty() {
            // the shape of a recorded array is a constant
            return Ok(Lowered {
                val: Val::Const,
                fwd: expr.to_token_stream(),
            });
        }
        // `x.is_nan()`, `x.is_sign_negative()`, …: a test of the value, a
        // comparison in all but name, which has no slope (`to_bits`, a
        // number, stays refused: it could become a float again)
        if receiver_active
            && (name.starts_with("is_") || name == "classify")
            && NOT_A_FLOAT.contains(&name.as_str())
            && m.args.is_empty()
        {
            let value = self.lower_expr(&m.receiver, out)?;
            let (x, method) = (&value.fwd, &m.method);
            return Ok(Lowered {
                val: Val::Const,
                fwd: quote!((#x).#method()),
            });
        }
        // `T::f_with_tracked_self().__mica_call(…)`, a method tracking
        // `self` called on a tracked struct (`structs/called.rs`): a call
        // of its fields function, reached again in the reverse
        // (in a directional derivative, `….__mica_hvp(…)`, the method's own)
        if let Some(accessor) = super::array_calls::tracked_self_accessor(expr) {
            let (inputs, args, spans) = self.lower_call_args(&m.args, out)?;
            let method = &m.method;
            let fwd = quote!(#accessor.#method(#(#args),*));
            let span = m.method.span();
            let adapter = match method == "__mica_hvp" {
                true => quote_spanned!(span=> #accessor.__mica_hvp_adjoint),
                false => quote_spanned!(span=> #accessor.__mica_adjoint___mica_call),
            };
            if !recorded(&inputs) {
                return Ok(Lowered {
                    val: Val::Const,
                    fwd,
                });
            }
            return Ok(self.new_op_at(OpKind::Call(adapter), inputs, spans, fwd, out));
        }
        if rules::method(&name).is_none()
            && !receiver_active
            && !mutates(&name, m.args.len())
            && m.args.iter().any(|a| self.mentions_active(a))
        {
            return self.lower_tape_method(m, out);
        }
        // a block naming recorded values that gives a constant (a chain's
        // `position(…)`): a method of it and of constants is a constant
        if rules::method(&name).is_none()
            && matches!(
                crate::facts::syntax::strip_parens(&m.receiver),
                Expr::Block(_)
            )
            && !mutates(&name, m.args.len())
            && !m.args.iter().any(|a| self.mentions_active(a))
        {
            let receiver = self.lower_expr(&m.receiver, out)?;
            if matches!(receiver.val, Val::Const) {
                let (r, method, turbofish, args) =
                    (&receiver.fwd, &m.method, &m.turbofish, &m.args);
                return Ok(Lowered {
                    val: Val::Const,
                    fwd: quote!((#r).#method #turbofish (#args)),
                });
            }
        }
        let Some(method) = rules::method(&name) else {
            let conversion = (receiver_active && matches!(name.as_str(), "unwrap" | "expect"))
                .then(|| conversion(&m.receiver))
                .flatten();
            if let Some(conversion) = conversion {
                return Err(syn::Error::new_spanned(
                    &m.receiver,
                    format!("`{conversion}` of a recorded value leaves the recorded vocabulary, and its slope would be lost; the value already has its float type, so use it as it is (convert constants only)"),
                ));
            }
            return Err(self.unknown_method(m, &name, receiver_active));
        };
        if m.args.len() != method.args {
            // rustc reports the arity; keep the user's tokens
            return Ok(Lowered {
                val: Val::Const,
                fwd: expr.to_token_stream(),
            });
        }
        if method.slope == Slope::Zero {
            return Ok(Lowered {
                val: Val::Const,
                fwd: expr.to_token_stream(),
            });
        }
        let mut inputs = Vec::new();
        let arity = m.args.len() + 1;
        let arg_active = |s: &Self, i: usize| s.mentions_active(&m.args[i - 1]);
        self.hint_operand(method.name, 0, arity, inline::Ctx::Receiver, |s, i| {
            i == 0 || arg_active(s, i)
        });
        let receiver = self.lower_operand(&m.receiver, out)?;
        inputs.push(receiver.0);
        let mut args = Vec::new();
        for (k, arg) in m.args.iter().enumerate() {
            // inputs lowered so far are known; the rest judged by their syntax
            let lowered = &inputs;
            self.hint_operand(
                method.name,
                k + 1,
                arity,
                inline::Ctx::Arg,
                |s, i| match lowered.get(i) {
                    Some(input) => matches!(input, Operand::Active(_)),
                    None => i == k + 1 || arg_active(s, i),
                },
            );
            let (operand, fwd) = self.lower_operand(arg, out)?;
            inputs.push(operand);
            args.push(fwd);
        }
        let (r, method_ident) = (&receiver.1, &m.method);
        // `(*a).sin()`: a receiver that is more than one token keeps parentheses
        let receiver_tokens = if is_literal(&m.receiver) || r.clone().into_iter().count() > 1 {
            quote!((#r))
        } else {
            r.clone()
        };
        let fwd = quote!(#receiver_tokens.#method_ident(#(#args),*));
        self.hint = hint;
        Ok(self.new_op_or_const(method.name, inputs, fwd, inline::Form::Postfix, out))
    }

    /// Whether `expr` names a recorded array (or a row of one), judged
    /// without emitting anything.
    pub(super) fn is_recorded_array(&mut self, expr: &Expr) -> bool {
        match expr {
            Expr::Path(p) => p
                .path
                .get_ident()
                .and_then(|i| self.lookup(&i.to_string()))
                .is_some_and(|b| matches!(b.val, Val::Array { .. })),
            Expr::Index(i) => {
                self.is_recorded_array(&i.expr) && {
                    // a row, not an element
                    let (base, indices) = index_chain(i);
                    let depth = indices.len();
                    let rank = match base {
                        Expr::Path(p) => p
                            .path
                            .get_ident()
                            .and_then(|i| self.lookup(&i.to_string()))
                            .and_then(|b| match &b.val {
                                Val::Array { array, prefix } => {
                                    Some(self.arrays[*array].rank - prefix.len())
                                }
                                _ => None,
                            }),
                        _ => None,
                    };
                    rank.is_some_and(|rank| depth < rank)
                }
            }
            Expr::Paren(p) => self.is_recorded_array(&p.expr),
            Expr::Reference(r) => r.mutability.is_none() && self.is_recorded_array(&r.expr),
            _ => false,
        }
    }

    /// The arguments of a call to a tape function, in order, with where
    /// each was written (for errors about it).
    pub(super) fn lower_call_args(
        &mut self,
        args: &syn::punctuated::Punctuated<Expr, syn::Token![,]>,
        out: &mut TokenStream,
    ) -> syn::Result<(Vec<Operand>, Vec<TokenStream>, Vec<proc_macro2::Span>)> {
        let mut inputs = Vec::new();
        let mut fwds = Vec::new();
        for arg in args {
            let (operand, fwd) = self.lower_call_arg(arg, out)?;
            inputs.push(operand);
            fwds.push(fwd);
        }
        Ok((inputs, fwds, args.iter().map(|a| a.span()).collect()))
    }

    /// An argument of a call to a tape function: as an operand, or, for a
    /// recorded array, the argument kept as written and its buffer.
    pub(super) fn lower_call_arg(
        &mut self,
        arg: &Expr,
        out: &mut TokenStream,
    ) -> syn::Result<(Operand, TokenStream)> {
        if !self.is_recorded_array(arg) {
            // a constant argument may be an array (or a struct): kept as
            // written; in a branch arm, a borrowed one as `Some(&a)`
            let borrowed = matches!(strip_parens(arg), Expr::Reference(_) | Expr::Path(_));
            if borrowed && self.in_arm() && !self.mentions_active(arg) {
                let lowered = self.lower_expr(arg, out)?;
                let id = self.optional_arg(lowered.fwd.clone(), out);
                return Ok((Operand::Stored(id), lowered.fwd));
            }
            return self.lower_operand_as(arg, false, out);
        }
        let lowered = self.lower_expr(arg, out)?;
        let Val::Array { array, prefix } = lowered.val else {
            return Err(syn::Error::new_spanned(
                arg,
                "this argument is not a recorded array",
            ));
        };
        // `&a` of an array the body may change after the call: the
        // callee's adjoint reads the values `a` had at the call, so the
        // sweep keeps a copy of them, not a borrow of `a`
        let owned = match strip_parens(arg) {
            Expr::Reference(r) if r.mutability.is_none() => {
                self.arrays[array].local.is_some()
                    && !self.stability.as_ref().is_some_and(|s| s.pure(&r.expr))
            }
            _ => false,
        };
        // in a branch arm, a borrow is kept as `Some(&a)`: the arm's
        // temporaries start from a placeholder, and a reference has none
        let optional = !owned && self.in_arm();
        let (id, fwd) = if owned {
            let inner = match strip_parens(arg) {
                Expr::Reference(r) => &*r.expr,
                other => other,
            };
            let id = self.stored(quote!(::std::borrow::ToOwned::to_owned(&#inner)), out);
            let store = &self.values[id].store;
            (id, quote!(&#store))
        } else if optional {
            (self.optional_arg(lowered.fwd.clone(), out), lowered.fwd)
        } else {
            let id = self.stored(lowered.fwd, out);
            (id, self.values[id].store.to_token_stream())
        };
        Ok((
            Operand::Array {
                arg: id,
                array,
                prefix,
                owned,
            },
            fwd,
        ))
    }

    /// Whether lines lowered now stand in a branch arm, whose temporaries
    /// start from a placeholder.
    fn in_arm(&self) -> bool {
        self.hoists.last().is_some_and(|h| h.arms > 0)
    }

    /// A call's argument kept as `Some(argument)` for the reverse: in a
    /// branch arm, whose temporaries start from a placeholder.
    fn optional_arg(&mut self, fwd: TokenStream, out: &mut TokenStream) -> ValueId {
        let temp = self.names.fresh("c");
        self.emit_optional_temp(&temp, fwd, out);
        let id = self.new_value(temp, None);
        self.values[id].optional = true;
        id
    }

    /// `object.method(args…)` where `method` is a `#[tape]` method: the
    /// receiver is a constant, borrowed once, and the call is differentiated
    /// through `object.__mica_adjoint_method(…)`. The borrow is a value of
    /// the record, so a loop's tape keeps it per iteration; it is kept as
    /// `Some(&receiver)` because a branch arm's temporaries start from a
    /// placeholder before the arm runs, and `None` is one for any reference.
    pub(super) fn lower_tape_method(
        &mut self,
        m: &syn::ExprMethodCall,
        out: &mut TokenStream,
    ) -> syn::Result<Lowered> {
        let receiver = &m.receiver;
        let borrow = self.names.fresh("o");
        out.extend([quote!(let #borrow = &(#receiver);)]);
        let object = self.names.fresh("c");
        self.emit_optional_temp(&object, borrow.to_token_stream(), out);
        let object = self.new_value(object, None);
        let (inputs, args, spans) = self.lower_call_args(&m.args, out)?;
        let method = &m.method;
        let adapter = quote::format_ident!("__mica_adjoint_{}", method, span = method.span());
        let fwd = quote!(#borrow.#method(#(#args),*));
        // every argument a constant (`detach(…)` of a recorded value): so is
        // the result
        if !recorded(&inputs) {
            return Ok(Lowered {
                val: Val::Const,
                fwd,
            });
        }
        Ok(self.new_op_at(OpKind::Method { object, adapter }, inputs, spans, fwd, out))
    }

    pub(super) fn lower_call(
        &mut self,
        c: &syn::ExprCall,
        expr: &Expr,
        out: &mut TokenStream,
    ) -> syn::Result<Lowered> {
        let hint = self.hint.take();
        let Expr::Path(func) = &*c.func else {
            return Err(syn::Error::new_spanned(
                &c.func,
                "a recorded value is passed to a call of something other than a function; call a `#[tape]` function by name",
            ));
        };
        let last = func
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        if let Some(lowered) = self.mem_swap(c, out) {
            return lowered;
        }
        super::walls::from_fn_refused(c)?;
        if last == "detach" {
            return Ok(Lowered {
                val: Val::Const,
                fwd: expr.to_token_stream(),
            });
        }
        if let Some(ident) = func.path.get_ident() {
            if self.lookup(&ident.to_string()).is_some() {
                return Err(syn::Error::new_spanned(
                    ident,
                    format!("`{ident}` is a local binding, not a `#[tape]` function; a recorded value is passed only to `#[tape]` functions"),
                ));
            }
        }
        if func.qself.is_some() {
            return Err(syn::Error::new_spanned(
                func,
                "a recorded value is passed only to a `#[tape]` function named by its path",
            ));
        }
        if let (Some(rule), 1) = (rules::function(&func.path), c.args.len()) {
            self.hint_operand(rule, 0, 1, inline::Ctx::Arg, |_, _| true);
            let (operand, arg) = self.lower_operand(&c.args[0], out)?;
            let f = &c.func;
            let fwd = quote!(#f(#arg));
            self.hint = hint;
            return Ok(self.new_op_or_const(rule, vec![operand], fwd, inline::Form::Postfix, out));
        }
        let (inputs, args, spans) = self.lower_call_args(&c.args, out)?;
        // the adapter lives in a module named after the function, so it is in
        // scope wherever the function is: `path::to::f` → `path::to::f::adjoint`
        let mut path = func.path.clone();
        if let Some(last) = path.segments.last_mut() {
            last.arguments = syn::PathArguments::None;
        }
        let span = c.func.span();
        // `loss::with_tracked_struct(…)`, a struct passed whole (`structs.rs`):
        // the adapter beside it
        let adapter = match path.segments.last() {
            Some(last) if last.ident == "with_tracked_struct" && path.segments.len() > 1 => {
                let mut host = path.clone();
                if let Some(last) = host.segments.last_mut() {
                    last.ident = quote::format_ident!(
                        "with_tracked_struct_adjoint",
                        span = last.ident.span()
                    );
                }
                quote_spanned!(span=> #host)
            }
            // a directional derivative's call of another's (`tangent/rules.rs`)
            Some(last) if self.directional && last.ident == "hvp" && path.segments.len() > 1 => {
                let mut host = path.clone();
                if let Some(last) = host.segments.last_mut() {
                    last.ident =
                        quote::format_ident!("{}_adjoint", last.ident, span = last.ident.span());
                }
                quote_spanned!(span=> #host)
            }
            _ => quote_spanned!(span=> #path::adjoint),
        };
        let f = &c.func;
        let fwd = quote!(#f(#(#args),*));
        if recorded(&inputs) {
            Ok(self.new_op_at(OpKind::Call(adapter), inputs, spans, fwd, out))
        } else {
            Ok(Lowered {
                val: Val::Const,
                fwd,
            })
        }
    }

    /// `[a, b]`, `[x; n]`, `vec![…]` outside a `let`: a constant when every
    /// element is one.
    pub(super) fn constant_array(
        &mut self,
        literal: &Expr,
        written: &Expr,
        out: &mut TokenStream,
    ) -> syn::Result<Lowered> {
        let elements = elements_of(literal);
        // the elements are lowered only to learn whether they are recorded;
        // that code is thrown away, and so is what it declared and recorded
        let hoisted = self.hoists.last().map(|h| (h.names.len(), h.options.len()));
        let (tapes, steps) = (self.tapes.len(), self.building.last().map_or(0, Vec::len));
        let (lazy, arrays) = (self.lazy.len(), self.arrays.len());
        let values = self.values.len();
        let fast = self.fast_mark();
        // elements read while looking are not kept: no later read may
        // take them from the statement's cache
        let cache = self.read_cache.clone();
        let repeated = self.repeated.clone();
        let forward_reads = self.forward_reads.clone();
        // nor what the bindings hold: an element that assigns a binding (a
        // block whose loop changes a parameter) changes it again when the
        // literal is lowered for real, from what it held before
        let bindings = self.scopes.clone();
        // nor how arrays bound there are made again (their values are gone)
        let rebuilds = self.rebuilds.clone();
        let errors = self.errors.len();
        let mut active = None;
        for &element in &elements {
            match self.lower_expr(element, &mut TokenStream::new()) {
                Ok(lowered) if lowered.val.is_active() => active = Some(Ok(element)),
                Ok(_) => continue,
                Err(e) => active = Some(Err(e)),
            }
            break;
        }
        // an element that changed a binding is recorded, whatever it gives
        if active.is_none() && !same_bindings(&bindings, &self.scopes) {
            active = elements.first().copied().map(Ok);
        }
        self.scopes = bindings;
        self.rebuilds = rebuilds;
        if let (Some(hoist), Some((names, options))) = (self.hoists.last_mut(), hoisted) {
            hoist.names.truncate(names);
            hoist.options.truncate(options);
        }
        self.tapes.truncate(tapes);
        self.lazy.truncate(lazy);
        // copies its elements asked for were thrown away with `lazy`
        self.forget_copies_from(values);
        // a row literal among the elements registered an array of its own
        self.arrays.truncate(arrays);
        self.fast_rollback(fast);
        self.read_cache = cache;
        self.repeated = repeated;
        self.forward_reads = forward_reads;
        if let Some(list) = self.building.last_mut() {
            list.truncate(steps);
        }
        match active {
            Some(Ok(_)) => {
                // found again by the lowering for real
                self.errors.truncate(errors);
                return self.literal_array(literal, written, out);
            }
            Some(Err(e)) => return Err(e),
            None => {}
        }
        Ok(Lowered {
            val: Val::Const,
            fwd: written.to_token_stream(),
        })
    }

    /// A block in value position: lowered in a scope of its own, its
    /// temporaries hoisted, its value read from its store.
    pub(super) fn lower_nested_block(
        &mut self,
        block: &syn::Block,
        out: &mut TokenStream,
    ) -> syn::Result<Lowered> {
        self.scopes.push(HashMap::new());
        self.depth += 1;
        // its element reads in a layer of their own: a block whose value is
        // not recorded stays inside the expression, where it runs after the
        // lines the expression's other operands put before the statement
        // (`[{ x[1] … }, x[2] * x[1]]`), so its reads are taken again only
        // from the next statement on; one written out in place keeps them
        self.enter_repeated(false);
        let mut inner = TokenStream::new();
        let tail = self.lower_block_stmts(&block.stmts, &mut inner);
        let in_place = matches!(
            &tail,
            None | Some(Lowered {
                val: Val::Active(_),
                ..
            })
        );
        self.leave_repeated_keeping(in_place);
        self.depth -= 1;
        self.scopes.pop();
        let Some(tail) = tail else {
            // a block standing as a statement: its lines, in a scope of their own
            out.extend([quote!({ #inner })]);
            return Ok(Lowered {
                val: Val::Const,
                fwd: TokenStream::new(),
            });
        };
        match tail.val {
            Val::Active(id) => {
                // temporaries inside are hoisted, so the value is read from
                // its store after the block
                let store = self.read_store(id);
                // reading the tail as written keeps its binding used
                let tail_fwd = tail.fwd;
                out.extend([quote!({ #inner let _ = #tail_fwd; })]);
                Ok(Lowered {
                    val: Val::Active(id),
                    fwd: store.to_token_stream(),
                })
            }
            val => {
                let fwd = tail.fwd;
                Ok(Lowered {
                    val,
                    fwd: quote!({ #inner #fwd }),
                })
            }
        }
    }

    // -------------------------------------------------------------- activity
}

/// The elements of an array literal (`[a, b]`), or the repeated one (`[x; n]`).
fn elements_of(literal: &Expr) -> Vec<&Expr> {
    match literal {
        Expr::Array(a) => a.elems.iter().collect(),
        Expr::Repeat(r) => vec![&*r.expr],
        _ => Vec::new(),
    }
}

/// Whether two snapshots of the scopes bind every name to the same value.
fn same_bindings(a: &[HashMap<String, Binding>], b: &[HashMap<String, Binding>]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x.len() == y.len()
                && x.iter()
                    .all(|(name, bx)| y.get(name).is_some_and(|by| bx.val.same(&by.val)))
        })
}

/// A numeric conversion that answers an `Option` (`T::from(x)`,
/// `NumCast::from(x)`, `x.to_f64()`), as written.
fn conversion(receiver: &Expr) -> Option<String> {
    match strip_parens(receiver) {
        Expr::Call(c) => match strip_parens(&c.func) {
            Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "from") => {
                let path = p.path.to_token_stream().to_string().replace(' ', "");
                Some(format!("{path}(…)"))
            }
            _ => None,
        },
        Expr::MethodCall(m) if m.method.to_string().starts_with("to_") && m.args.is_empty() => {
            Some(format!(".{}()", m.method))
        }
        _ => None,
    }
}

/// Whether a call's arguments include a recorded value or array (with
/// none, the call is a constant).
fn recorded(inputs: &[Operand]) -> bool {
    inputs
        .iter()
        .any(|i| matches!(i, Operand::Active(_) | Operand::Array { .. }))
}
