//! Whole arrays: literals of recorded values (nested, and in any position),
//! copies (`let v = u;`, `u = v;`, `.to_vec()`, `.clone()`,
//! `.copy_from_slice(…)`), fills, and swaps (`.swap(i, j)`,
//! `std::mem::swap(&mut u, &mut v)`).
//!
//! A copy is a step of its own ([`Step::Copy`]): Rust copies the elements,
//! so the two arrays are two places from then on, and a write to one must
//! not reach the other's reads. (Binding the new name to the old array
//! would make them one place; a later write to either would then send its
//! element's slope to the wrong value.)

use super::*;
use crate::facts::syntax::literal_rank;

/// What an array literal writes when it is made.
#[derive(Clone)]
pub(super) enum Fill {
    /// these elements (by their indices, outermost first) are recorded
    Elements(Vec<(Vec<usize>, ValueId)>),
    /// `[x; n]` of a recorded `x`
    All(ValueId),
}

impl Sweep<'_> {
    /// A literal's forward code and what it writes, its elements lowered in
    /// order; nested literals (`[[a, b], [c, d]]`) are followed.
    pub(super) fn lower_literal(
        &mut self,
        literal: &Expr,
        out: &mut TokenStream,
    ) -> syn::Result<(TokenStream, Fill)> {
        // the elements' values are written into the array's record, so
        // each needs a store: none is written inside its consumer
        self.hint = None;
        let inline = std::mem::replace(&mut self.inline_stmt, false);
        let lowered = self.lower_literal_once(literal, out);
        self.inline_stmt = inline;
        lowered
    }

    fn lower_literal_once(
        &mut self,
        literal: &Expr,
        out: &mut TokenStream,
    ) -> syn::Result<(TokenStream, Fill)> {
        let rank = literal_rank(literal);
        match literal {
            Expr::Array(a) => {
                let mut writes = Vec::new();
                let fwd = self.literal_elements(a, &mut Vec::new(), &mut writes, out)?;
                Ok((fwd, Fill::Elements(writes)))
            }
            Expr::Repeat(r) => {
                let lowered = self.lower_expr(&r.expr, out)?;
                let len = &r.len;
                let fwd = &lowered.fwd;
                let fill = match lowered.val {
                    Val::Active(id) if rank == 1 => Fill::All(id),
                    Val::Active(_) | Val::Array { .. } | Val::Tuple(_) => {
                        return Err(syn::Error::new_spanned(
                            &r.expr,
                            "`[x; n]` of a recorded value makes a flat array; for rows of recorded values write the rows out: `[[x, x], [x, x]]`",
                        ))
                    }
                    Val::Const => Fill::Elements(Vec::new()),
                };
                Ok((quote!([#fwd; #len]), fill))
            }
            _ => Err(syn::Error::new_spanned(
                literal,
                "an array made here starts from a literal",
            )),
        }
    }

    fn literal_elements(
        &mut self,
        a: &syn::ExprArray,
        at: &mut Vec<usize>,
        writes: &mut Vec<(Vec<usize>, ValueId)>,
        out: &mut TokenStream,
    ) -> syn::Result<TokenStream> {
        let nested = a.elems.first().is_some_and(|e| literal_rank(e) > 0);
        let mut fwds = Vec::new();
        for (k, elem) in a.elems.iter().enumerate() {
            at.push(k);
            let fwd = match elem {
                Expr::Array(row) if nested => self.literal_elements(row, at, writes, out)?,
                _ if nested && self.mentions_active(elem) => {
                    return Err(syn::Error::new_spanned(
                        elem,
                        "the rows of a nested literal of recorded values are written out: `[[a, b], [c, d]]`",
                    ))
                }
                _ => {
                    let lowered = self.lower_expr(elem, out)?;
                    match lowered.val {
                        Val::Active(id) => writes.push((at.clone(), id)),
                        Val::Const => {}
                        Val::Tuple(_) => {
                            return Err(syn::Error::new_spanned(
                                elem,
                                "an array of tuples of recorded values is not followed; keep one array for each of the tuples' places (`let xs = [a, 2.0]; let ys = [1.0, b];`) and walk them together (`for (x, y) in xs.iter().zip(&ys)`)",
                            ))
                        }
                        _ => {
                            return Err(syn::Error::new_spanned(
                                elem,
                                "an element of an array literal is a scalar; for rows write them out: `[[a, b], [c, d]]`",
                            ))
                        }
                    }
                    lowered.fwd
                }
            };
            at.pop();
            fwds.push(fwd);
        }
        Ok(quote!([#(#fwds),*]))
    }

    /// An array made in the sweep, its forward value bound to `name` just
    /// before: its shape captured, its buffer planned, its literal's writes
    /// recorded.
    pub(super) fn register_array(
        &mut self,
        name: &Ident,
        rank: usize,
        inline: Option<TokenStream>,
        fill: Option<Fill>,
        out: &mut TokenStream,
    ) -> ArrayId {
        // mutable: a whole new value of another length grows it (below)
        let shape = self.stored_mut(quote!(::mica::__private::shape_of(&#name)), out);
        let acc = self.names.fresh("h");
        self.arrays.push(Array {
            acc: acc.to_token_stream(),
            declare: None,
            rank: rank.max(1),
            local: Some((self.region, shape)),
            inline,
        });
        let array = self.arrays.len() - 1;
        match fill {
            Some(Fill::Elements(writes)) => {
                for (at, id) in writes {
                    let indices = at
                        .into_iter()
                        .map(|k| {
                            Operand::Const(
                                proc_macro2::Literal::usize_unsuffixed(k).to_token_stream(),
                            )
                        })
                        .collect();
                    self.push_step(Step::Write {
                        array,
                        indices,
                        value: Operand::Active(id),
                    });
                }
            }
            Some(Fill::All(id)) => self.push_step(Step::Fill {
                array,
                value: Operand::Active(id),
            }),
            None => {}
        }
        array
    }

    /// `[a, b]`, `[[a, b], [c, d]]`, `[x; n]`, `vec![…]` of recorded values
    /// outside a `let`: a new array, bound to a temporary.
    pub(super) fn literal_array(
        &mut self,
        literal: &Expr,
        written: &Expr,
        out: &mut TokenStream,
    ) -> syn::Result<Lowered> {
        let is_vec = matches!(written, Expr::Macro(_));
        let (fwd, fill) = self.lower_literal(literal, out)?;
        let fwd = if is_vec { vec_of(fwd) } else { fwd };
        let name = self.names.fresh("l");
        out.extend([quote!(let #name = #fwd;)]);
        // how the reverse makes it again, for a `let` of a block ending here
        // (`lower/rebuild.rs`)
        let again = (!is_vec).then(|| self.rebuild(&name, literal, Some(&fill), out));
        let array = self.register_array(&name, literal_rank(literal), None, Some(fill), out);
        // (a number a thrown-away lowering registered is registered again)
        match again.flatten() {
            Some(again) => self.literal_rebuilds.insert(array, again),
            None => self.literal_rebuilds.remove(&array),
        };
        Ok(Lowered {
            val: Val::Array {
                array,
                prefix: Vec::new(),
            },
            fwd: name.to_token_stream(),
        })
    }

    /// `let name = value;` where `value` is a recorded array the sweep
    /// already has (a name, a row, `.to_vec()` of one): a new array holding
    /// a copy. A parameter's array bound to a name that is not `mut` is
    /// the same place under a second name: neither can change.
    pub(super) fn let_copy(
        &mut self,
        local: &Local,
        value: Lowered,
        fresh: bool,
        out: &mut TokenStream,
    ) -> syn::Result<()> {
        let Val::Array { array, prefix } = value.val.clone() else {
            return self.let_value(local, value, out);
        };
        let name = match &local.pat {
            Pat::Ident(p) if p.subpat.is_none() && p.by_ref.is_none() => {
                Some((&p.ident, p.mutability.is_some()))
            }
            Pat::Type(t) => match &*t.pat {
                Pat::Ident(p) if p.subpat.is_none() && p.by_ref.is_none() => {
                    Some((&p.ident, p.mutability.is_some()))
                }
                _ => None,
            },
            _ => None,
        };
        let Some((name, mutable)) = name else {
            return Err(syn::Error::new_spanned(
                &local.pat,
                "a recorded array is bound to one name",
            ));
        };
        if fresh || (!mutable && self.arrays[array].local.is_none()) {
            return self.let_value(local, value, out);
        }
        let (attrs, pat, fwd) = (&local.attrs, &local.pat, &value.fwd);
        out.extend([quote!(#(#attrs)* let #pat = #fwd;)]);
        let rank = self.arrays[array].rank - prefix.len();
        let to = self.register_array(name, rank, None, None, out);
        self.push_step(Step::Copy {
            to,
            from: array,
            prefix,
        });
        self.bind(
            name,
            Val::Array {
                array: to,
                prefix: Vec::new(),
            },
            Origin::Local,
        );
        self.top_level_let(local);
        Ok(())
    }

    /// `let pat = value;` binding what `value` holds.
    pub(super) fn let_value(
        &mut self,
        local: &Local,
        value: Lowered,
        out: &mut TokenStream,
    ) -> syn::Result<()> {
        let (attrs, pat, fwd) = (&local.attrs, &local.pat, &value.fwd);
        out.extend([quote!(#(#attrs)* let #pat = #fwd;)]);
        self.bind_pattern(&local.pat, value.val)?;
        self.top_level_let(local);
        Ok(())
    }

    /// After `u = value;`: the shape `u`'s adjoint buffer is made from
    /// grows to hold the new value too (`h = next;` of another length:
    /// the buffer must hold every length `h` has).
    fn grow_shape(&mut self, to: ArrayId, target: &Expr, out: &mut TokenStream) {
        if let Some((_, shape)) = self.arrays[to].local {
            let store = &self.values[shape].store;
            out.extend([quote!(::mica::__private::grow_shape(&mut #store, ::mica::__private::shape_of(&#target));)]);
        }
    }

    /// `u = value;` of a whole array `u` made in the sweep.
    pub(super) fn assign_array(
        &mut self,
        target: &Expr,
        to: ArrayId,
        value: &Expr,
        out: &mut TokenStream,
    ) -> syn::Result<()> {
        let lowered = match self.is_tape_call(value) {
            true => self.lower_array_call(value, out)?,
            false => self.lower_expr(value, out)?,
        };
        let fwd = &lowered.fwd;
        match lowered.val {
            Val::Array { array, prefix } => {
                if array == to && prefix.is_empty() {
                    // `u = u;`
                    out.extend([quote!(#target = #fwd;)]);
                    return Ok(());
                }
                out.extend([quote!(#target = #fwd;)]);
                self.grow_shape(to, target, out);
                self.push_step(Step::Copy {
                    to,
                    from: array,
                    prefix,
                });
                Ok(())
            }
            Val::Const => {
                out.extend([quote!(#target = #fwd;)]);
                self.grow_shape(to, target, out);
                self.push_step(Step::Fill {
                    array: to,
                    value: Operand::Const(quote!(0)),
                });
                Ok(())
            }
            _ => Err(syn::Error::new_spanned(
                value,
                "an array is assigned a whole array: `u = [a, b];` or `u = v;`",
            )),
        }
    }

    /// The local array a method's receiver or a `&mut` argument names, to
    /// be written whole.
    fn writable_array(&mut self, place: &Expr, what: &str) -> syn::Result<ArrayId> {
        let place = match crate::facts::syntax::strip_parens(place) {
            Expr::Reference(r) => &*r.expr,
            other => other,
        };
        let lowered = self.lower_expr(place, &mut TokenStream::new())?;
        match lowered.val {
            Val::Array { array, prefix }
                if prefix.is_empty() && self.arrays[array].local.is_some() =>
            {
                Ok(array)
            }
            Val::Array { array, .. } if self.arrays[array].local.is_some() => {
                Err(syn::Error::new_spanned(
                    place,
                    format!("{what} of recorded values changes a whole array, not a row; write the row's elements one by one: `for j in 0..n {{ m[i][j] = x; }}`"),
                ))
            }
            Val::Array { .. } => {
                let body = if self.function_form {
                    "the function body"
                } else {
                    "the window"
                };
                Err(syn::Error::new_spanned(
                    place,
                    format!("{what} changes an array made in {body}; this one is tracked, so copy it first: `let mut v = w.to_vec();`"),
                ))
            }
            _ => Err(syn::Error::new_spanned(
                place,
                format!("{what} takes an array of recorded values here"),
            )),
        }
    }

    /// `.fill(x)`, `.copy_from_slice(&v)`, `.swap(i, j)`, `.to_vec()` and
    /// `.clone()` on a recorded array; `None` for any other method.
    pub(super) fn array_method(
        &mut self,
        m: &syn::ExprMethodCall,
        expr: &Expr,
        out: &mut TokenStream,
    ) -> Option<syn::Result<Lowered>> {
        let name = m.method.to_string();
        let receiver_is_array = self.is_recorded_array(&m.receiver);
        let result = match (name.as_str(), m.args.len()) {
            ("to_vec" | "clone" | "to_owned", 0) if receiver_is_array => {
                self.lower_expr(&m.receiver, out).map(|lowered| Lowered {
                    val: lowered.val,
                    fwd: quote!(#expr),
                })
            }
            ("fill", 1) => self.fill(m, out),
            ("copy_from_slice" | "clone_from_slice", 1) => self.copy_from(m, out),
            ("swap", 2) if receiver_is_array => self.swap_elements(m, out),
            _ => return None,
        };
        Some(result)
    }

    fn fill(&mut self, m: &syn::ExprMethodCall, out: &mut TokenStream) -> syn::Result<Lowered> {
        let array = self.writable_array(&m.receiver, "`.fill(…)`")?;
        if self.arrays[array].rank != 1 {
            return Err(syn::Error::new_spanned(
                &m.method,
                "`.fill(x)` of recorded values fills a flat array; write the elements one by one: `for i in 0..n { for j in 0..m { h[i][j] = x; } }`",
            ));
        }
        let (value, fwd) = self.lower_operand(&m.args[0], out)?;
        let receiver = &m.receiver;
        // the value first: it may read the array the fill borrows
        let temp = self.names.fresh("v");
        out.extend([quote!(let #temp = #fwd; #receiver.fill(#temp);)]);
        let value = match value {
            Operand::Active(id) => Operand::Active(id),
            _ => Operand::Const(quote!(0)),
        };
        self.push_step(Step::Fill { array, value });
        Ok(nothing())
    }

    fn copy_from(
        &mut self,
        m: &syn::ExprMethodCall,
        out: &mut TokenStream,
    ) -> syn::Result<Lowered> {
        let method = &m.method;
        let to = self.writable_array(&m.receiver, &format!("`.{method}(…)`"))?;
        let source = match crate::facts::syntax::strip_parens(&m.args[0]) {
            Expr::Reference(r) if r.mutability.is_none() => &*r.expr,
            other => other,
        };
        let lowered = self.lower_expr(source, out)?;
        let receiver = &m.receiver;
        let fwd = &lowered.fwd;
        out.extend([quote!(#receiver.#method(&#fwd);)]);
        match lowered.val {
            Val::Array { array, prefix } => self.push_step(Step::Copy {
                to,
                from: array,
                prefix,
            }),
            Val::Const => self.push_step(Step::Fill {
                array: to,
                value: Operand::Const(quote!(0)),
            }),
            _ => {
                return Err(syn::Error::new_spanned(
                    &m.args[0],
                    format!("`.{method}(…)` copies a whole array or `Vec`: `h.{method}(&v)`"),
                ))
            }
        }
        Ok(nothing())
    }

    /// `h.swap(i, j)`: both elements read, then written the other way.
    fn swap_elements(
        &mut self,
        m: &syn::ExprMethodCall,
        out: &mut TokenStream,
    ) -> syn::Result<Lowered> {
        let array = self.writable_array(&m.receiver, "`.swap(i, j)`")?;
        if self.arrays[array].rank != 1 {
            return Err(syn::Error::new_spanned(
                &m.method,
                "`.swap(i, j)` of recorded values swaps elements of a flat array; swap rows element by element",
            ));
        }
        let receiver = &m.receiver;
        let mut places = Vec::new();
        for index in &m.args {
            let (operand, fwd) = self.lower_subscript(index, out)?;
            if matches!(operand, Operand::Active(_)) {
                return Err(syn::Error::new_spanned(
                    index,
                    "an index is an integer, not a recorded value",
                ));
            }
            let read = self.element(
                array,
                Vec::new(),
                operand.clone(),
                quote!(#receiver[#fwd]),
                out,
            );
            places.push((operand, fwd, read.val));
        }
        let (i, j) = (&places[0].1, &places[1].1);
        out.extend([quote!(#receiver.swap(#i, #j);)]);
        for (k, (index, _, _)) in places.iter().enumerate() {
            let value = match &places[1 - k].2 {
                Val::Active(id) => Operand::Active(*id),
                _ => Operand::Const(quote!(0)),
            };
            self.push_step(Step::Write {
                array,
                indices: vec![index.clone()],
                value,
            });
        }
        Ok(nothing())
    }

    /// `std::mem::swap(&mut u, &mut v)` of two arrays made in the sweep, or
    /// of two scalars; `None` if `c` is not a call to `swap`.
    pub(super) fn mem_swap(
        &mut self,
        c: &syn::ExprCall,
        out: &mut TokenStream,
    ) -> Option<syn::Result<Lowered>> {
        let Expr::Path(func) = &*c.func else {
            return None;
        };
        let segments: Vec<String> = func
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        let is_swap = matches!(
            segments
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>()
                .as_slice(),
            ["swap"] | ["mem", "swap"] | ["std" | "core", "mem", "swap"]
        );
        if !is_swap || c.args.len() != 2 {
            return None;
        }
        let mut places = Vec::new();
        for arg in &c.args {
            let Expr::Reference(r) = crate::facts::syntax::strip_parens(arg) else {
                return None;
            };
            r.mutability?;
            places.push(&*r.expr);
        }
        let names: Vec<Option<Ident>> = places
            .iter()
            .map(|p| match p {
                Expr::Path(p) => p.path.get_ident().cloned(),
                _ => None,
            })
            .collect();
        let vals: Vec<Option<Val>> = names
            .iter()
            .map(|n| {
                n.as_ref()
                    .and_then(|n| self.lookup(&n.to_string()))
                    .map(|b| b.val.clone())
            })
            .collect();
        let result = match (&names[..], &vals[..]) {
            ([Some(a), Some(b)], [Some(Val::Array { .. }), Some(Val::Array { .. })]) => {
                let (a, b) = (a.clone(), b.clone());
                self.writable_array(places[0], "`std::mem::swap`").and_then(|x| {
                    let y = self.writable_array(places[1], "`std::mem::swap`")?;
                    if x != y {
                        // one kind of buffer for both, so theirs can swap
                        self.arrays[x].inline = None;
                        self.arrays[y].inline = None;
                        self.push_step(Step::Swap { a: x, b: y });
                    }
                    let f = &c.func;
                    out.extend([quote!(#f(&mut #a, &mut #b);)]);
                    Ok(nothing())
                })
            }
            ([Some(a), Some(b)], [Some(va), Some(vb)])
                if !matches!(va, Val::Array { .. }) && !matches!(vb, Val::Array { .. }) =>
            {
                // scalars (or tuples of them): the names trade values
                let (va, vb) = (va.clone(), vb.clone());
                let (a, b) = (a.clone(), b.clone());
                self.set(&a, vb);
                self.set(&b, va);
                let f = &c.func;
                out.extend([quote!(#f(&mut #a, &mut #b);)]);
                Ok(nothing())
            }
            _ => Err(syn::Error::new_spanned(
                &c.func,
                "`std::mem::swap` of recorded values swaps two arrays or two scalars bound to names: `std::mem::swap(&mut u, &mut v)`; for two elements of one array write `u.swap(i, j)`",
            )),
        };
        Some(result)
    }
}

/// `vec![…]` of a literal's forward code.
pub(super) fn vec_of(fwd: TokenStream) -> TokenStream {
    let inner: TokenStream = fwd
        .into_iter()
        .flat_map(|tt| match tt {
            TokenTree::Group(g) => g.stream(),
            other => other.into(),
        })
        .collect();
    quote!(::std::vec![#inner])
}

/// A statement's lowering: no value.
fn nothing() -> Lowered {
    Lowered {
        val: Val::Const,
        fwd: TokenStream::new(),
    }
}
