//! Arrays: element reads, subscripts and array `let`s (element writes:
//! `lower/writes.rs`).

use super::rebuild;
use super::*;
use crate::facts::activity::{settle, syntactically_active, Assignments};
use crate::facts::places::{array_binding, array_literal, LaterNames};
use crate::facts::syntax::{first_arm, strip_parens};
use std::collections::HashSet;

impl Sweep<'_> {
    /// `w[i]`: an element of a recorded array is recorded, a row is a view.
    pub(super) fn lower_index(
        &mut self,
        i: &syn::ExprIndex,
        out: &mut TokenStream,
    ) -> syn::Result<Lowered> {
        let key = self
            .read_cache
            .as_ref()
            .map(|_| i.to_token_stream().to_string());
        if let (Some(cache), Some(key)) = (&self.read_cache, &key) {
            if let Some((id, fwd)) = cache.get(key) {
                return Ok(Lowered {
                    val: Val::Active(*id),
                    fwd: fwd.clone(),
                });
            }
        }
        // an element of a literal known where it is read (`lower/rebuild.rs`)
        if let Some(known) = self.known_read(i) {
            return Ok(known);
        }
        // an element read in an earlier line (`lower/repeated.rs`)
        let again = self.repeatable(i);
        if let Some((id, fwd)) = again.as_ref().and_then(|(k, _)| self.read_before(k)) {
            return Ok(Lowered {
                val: Val::Active(id),
                fwd,
            });
        }
        let lowered = self.lower_index_once(i, out)?;
        if let (Some(cache), Some(key), Val::Active(id)) = (&mut self.read_cache, key, &lowered.val)
        {
            cache.insert(key, (*id, lowered.fwd.clone()));
        }
        if let (Some(again), Val::Active(id)) = (again, &lowered.val) {
            self.keep_read(again, *id, lowered.fwd.clone());
        }
        Ok(lowered)
    }

    pub(super) fn lower_index_once(
        &mut self,
        i: &syn::ExprIndex,
        out: &mut TokenStream,
    ) -> syn::Result<Lowered> {
        // `f(x)[k]`: `f` returns an array
        let base = match self.is_tape_call(&i.expr) {
            true => self.lower_array_call(&i.expr, out)?,
            false => self.lower_expr(&i.expr, out)?,
        };
        // a recorded scalar indexed: a knob tracked without its type, or a
        // local name carried through a loop as one value that the loop
        // gives a recorded array (its first value no array Mica knows)
        if let (Val::Active(_), Expr::Path(p)) = (&base.val, &*i.expr) {
            if let Some(name) = p.path.get_ident() {
                // said once per name (its copy's assignment may have said it)
                if !self.refused_copies.insert(name.to_string()) {
                    return Ok(Lowered {
                        val: Val::Const,
                        fwd: i.to_token_stream(),
                    });
                }
                let message = match self.lookup(&name.to_string()).map(|b| b.origin) {
                    Some(Origin::Knob) => Some(format!("`{name}` is tracked as a scalar; a knob that is an array needs its type: `#[tracked] let {name}: [f64; N] = …;`")),
                    Some(Origin::Local) => Some(format!("`{name}` holds a recorded array after an iteration of this loop, but where it is bound its value is no array Mica knows; bind it to an array literal, `vec![…]` or a copy (`x.to_vec()`)")),
                    _ => None,
                };
                if let Some(message) = message {
                    return Err(syn::Error::new_spanned(name, message));
                }
            }
        }
        let Val::Array { array, prefix } = base.val else {
            return Err(syn::Error::new(
                i.bracket_token.span.join(),
                "only arrays, slices and `Vec`s of recorded values can be indexed",
            ));
        };
        let (index, index_fwd) = self.lower_subscript(&i.index, out)?;
        if matches!(index, Operand::Active(_)) {
            return Err(syn::Error::new_spanned(
                &i.index,
                "an index is an integer, not a recorded value",
            ));
        }
        let deps: Vec<ValueId> = prefix
            .iter()
            .chain([&index])
            .filter_map(|i| match i {
                Operand::Stored(v) => Some(*v),
                _ => None,
            })
            .collect();
        let place = {
            let base = &base.fwd;
            quote!(#base[#index_fwd])
        };
        // a scalar of a one-level array: through a slice where a loop
        // proves it in bounds (see `lower/fast.rs`)
        let fast = prefix.is_empty() && self.arrays[array].rank == 1;
        let read = fast
            .then(|| self.fast_read(&i.expr, &i.index, &place, true))
            .flatten()
            .unwrap_or_else(|| place.clone());
        let lowered = self.element(array, prefix, index, read, out);
        // an element of an array nothing writes (a stable name) is read again;
        // one of a whole array that a loop around does not change, from its
        // copy (see `lower/snapshots.rs`)
        if let (Val::Active(id), Some(stability)) = (&lowered.val, &self.stability) {
            if stability.pure(&i.expr) {
                self.values[*id].recompute = syn::parse2(place).ok();
                self.values[*id].deps = deps;
            } else if let Some(copy) = self.copy_for(i) {
                // the read as the forward wrote it, from the copy
                let store = &self.values[copy].store;
                let mut again: Option<Expr> = syn::parse2(place).ok();
                let mut root = again.as_mut();
                while let Some(Expr::Index(at)) = root {
                    root = Some(&mut *at.expr);
                }
                if let Some(root) = root {
                    *root = syn::parse_quote!(#store);
                }
                self.values[*id].recompute = again;
                self.values[*id].deps = deps.into_iter().chain([copy]).collect();
            }
        }
        Ok(lowered)
    }

    /// An array's subscript: an operand that keeps its syntax for the
    /// dependence analysis.
    pub(super) fn lower_subscript(
        &mut self,
        index: &Expr,
        out: &mut TokenStream,
    ) -> syn::Result<(Operand, TokenStream)> {
        let (operand, fwd) = self.lower_operand_as(index, false, out)?;
        if let Operand::Stored(id) = operand {
            self.values[id].syntax = Some(strip_parens(index).clone());
        }
        Ok((operand, fwd))
    }

    pub(super) fn element(
        &mut self,
        array: ArrayId,
        mut prefix: Vec<Operand>,
        index: Operand,
        fwd: TokenStream,
        out: &mut TokenStream,
    ) -> Lowered {
        prefix.push(index);
        if prefix.len() >= self.arrays[array].rank {
            self.new_op(
                OpKind::Read {
                    array,
                    indices: prefix,
                },
                Vec::new(),
                fwd,
                out,
            )
        } else {
            Lowered {
                val: Val::Array { array, prefix },
                fwd,
            }
        }
    }

    /// Whether this `let` makes an array that recorded values are written
    /// into (by its literal, or later in the block): such an array is
    /// recorded from the start, with its shape captured here.
    pub(super) fn makes_recorded_array(
        &self,
        local: &Local,
        rest: &[Stmt],
        later: &mut LaterNames<'_>,
        at: usize,
    ) -> bool {
        let Some(init) = &local.init else {
            return false;
        };
        let Some(name) = array_binding(&local.pat) else {
            return false;
        };
        // an array literal, an `if`/`match`/block whose value is one, or a
        // copy of a local array of constants
        if array_literal(&init.expr)
            .or_else(|| branch_literal(&init.expr))
            .or_else(|| self.copied_constant(local).map(zeros_of_rank))
            .is_none()
        {
            return false;
        }
        let mut active = self.active_names();
        // the value as written: an `if`/`match`/block's literal is judged
        // with the `let`s before it in its block, which may shadow a
        // recorded name (`{ let x = 0.3; [x, 1.0] }`)
        if syntactically_active(&init.expr, &active) {
            return true;
        }
        // from here on the name is this array's, whatever an outer binding
        // of the same name holds: `let mut v = [0.5; 3]; v[1] = v[1].tanh();`
        // shadowing a recorded `v` writes a constant
        active.remove(&name.to_string());
        // only the lines up to the last one naming the array can write it
        let rest = &rest[..later
            .last_mention(&name.to_string(), at)
            .map_or(0, |k| k + 1 - at)];
        // what later lines could record: names bound from recorded values,
        // and the elements of loops over recorded arrays
        let mut finder = Assignments::default();
        for stmt in rest {
            finder.visit_stmt(stmt);
        }
        // (a loop may iterate an array bound by a later `let`): until
        // nothing more is found
        settle(&finder, &mut active);
        // an element, or the whole array (`h = v;`, `h.fill(x)`, a swap)
        finder
            .writes
            .iter()
            .map(|(target, value)| (target, value))
            .chain(
                finder
                    .assigned
                    .iter()
                    .map(|(target, value, _)| (target, value)),
            )
            .any(|(target, value)| *target == name && syntactically_active(value, &active))
    }

    pub(super) fn lower_local_array(
        &mut self,
        local: &Local,
        out: &mut TokenStream,
    ) -> syn::Result<()> {
        let (Some(init), Some(name)) = (&local.init, array_binding(&local.pat)) else {
            return Err(syn::Error::new_spanned(
                &local.pat,
                "an array is bound to one name",
            ));
        };
        let Some(literal) = array_literal(&init.expr) else {
            return self.branch_array(local, &name, out);
        };
        let is_vec = matches!(&*init.expr, Expr::Macro(_));
        let rank = crate::facts::syntax::literal_rank(&literal);
        let (fwd, fill) = self.lower_literal(&literal, out)?;
        let fwd = if is_vec { whole::vec_of(fwd) } else { fwd };
        let (attrs, pat) = (&local.attrs, &local.pat);
        out.extend([quote!(#(#attrs)* let #pat = #fwd;)]);
        // `vec![x; N]` of a constant length: its buffer fits on the stack
        let inline = match &literal {
            Expr::Repeat(r) if is_vec && rank == 1 => self.capped_constant(&r.len, 0),
            _ => None,
        };
        let array = self.register_array(&name, rank, inline, Some(fill.clone()), out);
        self.bind(
            &name,
            Val::Array {
                array,
                prefix: Vec::new(),
            },
            Origin::Local,
        );
        self.note_whole_array(&name, &init.expr, false);
        if !is_vec {
            self.note_rebuild(&name, &literal, Some(&fill), &local.pat, out);
        }
        Ok(())
    }

    /// `let h = if c { [..] } else { [..] };` that later lines write
    /// recorded values into: recorded from here on, whether the branch
    /// gives a recorded array (a copy) or a constant one (its values).
    fn branch_array(
        &mut self,
        local: &Local,
        name: &Ident,
        out: &mut TokenStream,
    ) -> syn::Result<()> {
        let Some(init) = &local.init else {
            return Ok(());
        };
        let rank = branch_literal(&init.expr)
            .map(|l| crate::facts::syntax::literal_rank(&l))
            .or_else(|| self.copied_constant(local))
            .unwrap_or(1);
        let arrays = self.arrays.len();
        let lowered = self.lower_expr(&init.expr, out)?;
        // a new array (a block's literal, bound to its temporary)
        let new_array = match &lowered.val {
            Val::Array { array, prefix } if *array >= arrays && prefix.is_empty() => Some(*array),
            _ => None,
        };
        let made = match lowered.val {
            Val::Array { array, .. } => self.let_copy(local, lowered, array >= arrays, out),
            Val::Const => {
                let (attrs, pat, fwd) = (&local.attrs, &local.pat, &lowered.fwd);
                out.extend([quote!(#(#attrs)* let #pat = #fwd;)]);
                let array = self.register_array(name, rank, None, None, out);
                self.bind(
                    name,
                    Val::Array {
                        array,
                        prefix: Vec::new(),
                    },
                    Origin::Local,
                );
                Ok(())
            }
            _ => Err(syn::Error::new_spanned(
                &local.pat,
                "this array is bound to a value that is not an array",
            )),
        };
        if made.is_ok() && array_binding(&local.pat).is_some() {
            self.note_whole_array(name, &init.expr, false);
            if let Some(made) = new_array {
                self.note_block_rebuild(name, &init.expr, made, &local.pat);
            }
        }
        made
    }

    /// A `let` of a constant array by a literal: noted with its rank.
    pub(super) fn note_constant_array(&mut self, local: &Local, out: &mut TokenStream) {
        let (Some(init), Some(name)) = (&local.init, array_binding(&local.pat)) else {
            return;
        };
        // an array literal, or a block ending in one (an inlined helper's
        // constant result)
        let mut value = strip_parens(&init.expr);
        while let Expr::Block(b) = value {
            match b.block.stmts.last() {
                Some(syn::Stmt::Expr(tail, None)) if b.label.is_none() => {
                    value = strip_parens(tail)
                }
                _ => break,
            }
        }
        if let Some(literal) = array_literal(value) {
            let rank = crate::facts::syntax::literal_rank(&literal);
            self.const_arrays.insert(name.to_string(), rank);
        }
        self.note_whole_array(&name, &init.expr, true);
        if let Some(literal) = rebuild::block_literal(&init.expr) {
            self.note_rebuild(&name, literal, None, &local.pat, out);
        }
    }

    /// The names in scope that hold recorded values.
    fn active_names(&self) -> HashSet<String> {
        self.scopes
            .iter()
            .flat_map(|s| s.keys())
            .filter(|name| self.is_active_name(name))
            .cloned()
            .collect()
    }

    /// For `let v = h;` (or `h.clone()`, `*h`), `h` a local array of
    /// constants bound by a literal, or an array parameter: its rank.
    fn copied_constant(&self, local: &Local) -> Option<usize> {
        let init = local.init.as_ref()?;
        // the rank the `let` writes (`let mut v: [f64; 3] = r;`, a helper's
        // by-value parameter)
        let written = match &local.pat {
            syn::Pat::Type(t) => array_rank(&t.ty),
            _ => None,
        };
        if let Some(rank) = written {
            // whatever the source (`*c`, a call, a field), a copy of values
            // that name nothing recorded is an array of constants
            let active = self.active_names();
            if !syntactically_active(&init.expr, &active) {
                return Some(rank);
            }
        }
        let init = strip_parens(&init.expr);
        let source = match (crate::facts::syntax::copied(init), init) {
            (Some(copied), _) => copied,
            (None, Expr::Unary(u)) if matches!(u.op, syn::UnOp::Deref(_)) => &*u.expr,
            (None, other) => other,
        };
        // the rank the `let` writes, or that of the constant array copied
        written.or_else(|| self.const_rank(source))
    }

    /// The rank of a constant array read by name or by a row of one
    /// (`h`, `xs[k]`: a literal's, a parameter's, a loop element's).
    pub(super) fn const_rank(&self, expr: &Expr) -> Option<usize> {
        match strip_parens(expr) {
            Expr::Path(p) => {
                let name = p.path.get_ident()?.to_string();
                if self.lookup(&name)?.val.is_active() {
                    return None;
                }
                self.const_arrays.get(&name).copied()
            }
            // a part (`xs[a..b]`) keeps the rank; an element drops one
            Expr::Index(i) if matches!(strip_parens(&i.index), Expr::Range(_)) => {
                self.const_rank(&i.expr)
            }
            Expr::Index(i) => self
                .const_rank(&i.expr)
                .and_then(|r| r.checked_sub(1))
                .filter(|r| *r > 0),
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => self.const_rank(&u.expr),
            Expr::Reference(r) => self.const_rank(&r.expr),
            // a copy (`h[0..1].to_vec()`, `h.clone()`) keeps the rank
            e @ Expr::MethodCall(_) => self.const_rank(crate::facts::syntax::copied(e)?),
            // the zero tangent forward mode writes for a copy of one
            // (`zero_value(detach(*x))`, `zero_value(detach(Clone::clone(&x)))`),
            // in the directional derivative
            Expr::Call(c)
                if c.args.len() == 1
                    && matches!(&*c.func, Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "zero_value" || s.ident == "detach" || s.ident == "clone")) =>
            {
                self.const_rank(&c.args[0])
            }
            _ => None,
        }
    }
}

/// How many indices reach a float of an array type (`[f64; 3]`: 1,
/// `[[f32; 2]; 3]`: 2), or `None` for a type that is not an array.
fn array_rank(ty: &syn::Type) -> Option<usize> {
    match ty {
        syn::Type::Array(a) => Some(1 + array_rank(&a.elem).unwrap_or(0)),
        syn::Type::Paren(p) => array_rank(&p.elem),
        syn::Type::Group(g) => array_rank(&g.elem),
        _ => None,
    }
}

/// `[0.0; 1]`, nested `rank` times: a literal of constants of that rank.
fn zeros_of_rank(rank: usize) -> Expr {
    (0..rank).fold(
        syn::parse_quote!(0.0),
        |inner: Expr, _| syn::parse_quote!([#inner; 1]),
    )
}

/// The array literal an `if`, a `match` or a block gives in its first arm
/// (for the rank of the array it makes).
fn branch_literal(e: &Expr) -> Option<Expr> {
    // `{ let mut acc = vec![0.0; n]; for … { acc[j] = h[j]; } acc }`: a copy
    // written out element by element (a chain's `to_vec()`) ends in the
    // name its literal binds
    fn made_in(b: &syn::Block) -> Option<Expr> {
        let Some(Stmt::Expr(Expr::Path(p), None)) = b.stmts.last() else {
            return None;
        };
        let name = p.path.get_ident()?;
        b.stmts.iter().rev().find_map(|s| match s {
            Stmt::Local(l) if array_binding(&l.pat).is_some_and(|n| n == *name) => {
                array_literal(&l.init.as_ref()?.expr)
            }
            _ => None,
        })
    }
    let (value, block) = first_arm(e)?;
    array_literal(value).or_else(|| made_in(block?))
}
