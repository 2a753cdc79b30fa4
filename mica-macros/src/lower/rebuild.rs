//! Copies the reverse makes again from the literal, instead of keeping.
//!
//! A copy of a whole array (see `lower/snapshots.rs`) is kept on its loop's
//! tape, every element of it, each iteration. Forward kinematics makes a
//! rotation each joint and multiplies by it:
//!
//! ```text
//! for j in 0..q.len() {
//!     let (s, c) = q[j].sin_cos();
//!     let turn = [[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]];
//!     let link = [[1.0, 0.0, lengths[j]], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
//!     … turned[a][b] += pose[a][k] * turn[k][b] …
//! }
//! ```
//!
//! Kept, `turn` and `link` cost eighteen values a joint. But the reverse
//! keeps `s` and `c` anyway (the slopes of `sin` and `cos` read them), and
//! the rest of both literals are constants it can read again: it makes the
//! two arrays again from their literals, as a hand-written adjoint does,
//! and the tape keeps nothing for them.
//!
//! Made again only where that gives the array the copy holds:
//!
//! - the binding is immutable (`let turn = …`, not `let mut`), so nothing
//!   changed it between its literal and where the copy is taken; a later
//!   binding of the name forgets the literal (`Sweep::bind`), and so does
//!   an element lowered only to learn whether it is recorded (its values
//!   are thrown away, `lower/calls.rs`);
//! - the literal is the array's own (`[a, b]`, `[x; n]`, nested), or ends
//!   an unlabelled block (an inlined helper's value), not a branch's arm,
//!   which may not have run;
//! - each element is a recorded value (its store, which the reverse keeps
//!   or evaluates again, as it does any value it reads), a literal, or a
//!   constant the reverse can evaluate again with the same result
//!   (`facts/stability.rs`). Any other constant (`d * 2.0`, `d` a name the
//!   block binds) is read back from the array just made, into a value of
//!   its own that the tape keeps: one value, not the array. Inside `[x; n]`
//!   of constants there is no one element to read back: such an array
//!   whose `x` cannot be evaluated again is kept.
//!
//! A copy costs the tape every element; made again, it costs at most one
//! value per element, so the reverse makes it again even where that keeps
//! values nothing else reads (`reverse/walk.rs`).

use super::whole::Fill;
use super::*;
use crate::facts::syntax::strip_parens;

impl Sweep<'_> {
    /// After `let name = literal;` (`pat` the `let`'s pattern, `literal`
    /// its value or the end of its block), its elements lowered as `fill`
    /// says (`None`: all constants): how the reverse makes `name` again, if
    /// it can (see the module's documentation). A constant element it
    /// cannot evaluate again is read back from `name` into a value of its
    /// own, in `out`.
    pub(super) fn note_rebuild(
        &mut self,
        name: &Ident,
        literal: &Expr,
        fill: Option<&Fill>,
        pat: &Pat,
        out: &mut TokenStream,
    ) {
        if binds_mut(pat) || self.whole_lengths(name).is_none() {
            return;
        }
        if let Some(again) = self.rebuild(name, literal, fill, out) {
            self.rebuilds.insert(name.to_string(), again);
        }
    }

    /// `let name = { …; [..] };`, the block's value the new array `made`
    /// (a literal's temporary, see `lower/whole.rs`, `literal_array`): made
    /// again as that is.
    pub(super) fn note_block_rebuild(
        &mut self,
        name: &Ident,
        init: &Expr,
        made: ArrayId,
        pat: &Pat,
    ) {
        if block_literal(init).is_none() || binds_mut(pat) || self.whole_lengths(name).is_none() {
            return;
        }
        if let Some(again) = self.literal_rebuilds.get(&made).cloned() {
            self.rebuilds.insert(name.to_string(), again);
        }
    }

    /// `name`'s literal, with the stores of the values it reads, if the
    /// binding in scope is the one noted.
    pub(super) fn rebuild_of(&self, name: &Ident) -> Option<(Expr, Vec<ValueId>)> {
        self.whole_lengths(name)?;
        self.rebuilds.get(&name.to_string()).cloned()
    }

    /// `name[i]…[j]` at literal indices of an immutable array the reverse
    /// can make again from its literal (see the module's documentation): the
    /// element as that literal has it, if it is a literal, a recorded value
    /// or a constant read back from the array. The element is that, wherever the array is in scope, so the
    /// read is that literal or value: a product with a literal zero adds no
    /// slope, and a recorded element's slope goes to it straight, not
    /// through the array's adjoint. Only the adjoint that takes shortcuts
    /// reads so; the plain adjoint reads the array.
    pub(super) fn known_element(&self, read: &syn::ExprIndex) -> Option<Known> {
        self.stability.as_ref()?;
        let (root, indices) = crate::facts::places::index_chain(read);
        let Expr::Path(p) = strip_parens(root) else {
            return None;
        };
        let name = p.path.get_ident().filter(|_| p.qself.is_none())?;
        let (literal, _) = self.rebuild_of(name)?;
        let mut elem = &literal;
        for index in indices {
            let k = usize::try_from(crate::facts::syntax::int_literal(index)?).ok()?;
            elem = match strip_parens(elem) {
                Expr::Array(a) => a.elems.iter().nth(k)?,
                Expr::Repeat(r) => {
                    let len = crate::facts::syntax::int_literal(&r.len)?;
                    (i128::try_from(k).ok()? < len).then_some(&*r.expr)?
                }
                _ => return None,
            };
        }
        let leaf = strip_parens(elem);
        if matches!(leaf, Expr::Lit(_)) {
            return Some(Known::Literal(leaf.to_token_stream()));
        }
        let Expr::Path(p) = leaf else { return None };
        let store = p.path.get_ident()?.to_string();
        self.rebuilt_recorded
            .get(&store)
            .map(|&(id, recorded)| match recorded {
                true => Known::Value(id),
                false => Known::Kept(id),
            })
    }

    /// `name[i]…[j]` lowered as [`Self::known_element`] knows it: the
    /// recorded value, or a constant (the forward reads the array as
    /// written, so its name stays used).
    pub(super) fn known_read(&self, read: &syn::ExprIndex) -> Option<Lowered> {
        let val = match self.known_element(read)? {
            Known::Value(id) => Val::Active(id),
            Known::Literal(_) | Known::Kept(_) => Val::Const,
        };
        Some(Lowered {
            val,
            fwd: read.to_token_stream(),
        })
    }

    /// `literal`, the value of the array `name`, made again, and the values
    /// it reads, if it can be; elements read back into `out`.
    pub(super) fn rebuild(
        &mut self,
        name: &Ident,
        literal: &Expr,
        fill: Option<&Fill>,
        out: &mut TokenStream,
    ) -> Option<(Expr, Vec<ValueId>)> {
        let mut deps = Vec::new();
        let mut kept = TokenStream::new();
        let again = self.made_again(
            name,
            literal,
            fill,
            &mut Vec::new(),
            &mut deps,
            &mut kept,
            true,
        )?;
        out.extend(kept);
        Some((again, deps))
    }

    /// `literal` (at position `at` of the array `name`) with its recorded
    /// elements replaced by their stores (added to `deps`), as are, if
    /// `read_back`, the constants the reverse cannot evaluate again, read
    /// back from `name` into values of their own (in `kept`).
    #[allow(clippy::too_many_arguments)]
    fn made_again(
        &mut self,
        name: &Ident,
        literal: &Expr,
        fill: Option<&Fill>,
        at: &mut Vec<usize>,
        deps: &mut Vec<ValueId>,
        kept: &mut TokenStream,
        read_back: bool,
    ) -> Option<Expr> {
        match literal {
            Expr::Paren(p) => self.made_again(name, &p.expr, fill, at, deps, kept, read_back),
            Expr::Array(a) => {
                let mut elems = Vec::new();
                for (k, elem) in a.elems.iter().enumerate() {
                    at.push(k);
                    elems.push(self.made_again(name, elem, fill, at, deps, kept, read_back)?);
                    at.pop();
                }
                Some(syn::parse_quote!([#(#elems),*]))
            }
            Expr::Repeat(r) => {
                let len = &r.len;
                let elem: Expr = match fill {
                    Some(Fill::All(id)) if at.is_empty() => {
                        deps.push(*id);
                        self.note_rebuilt(*id, true);
                        let store = &self.values[*id].store;
                        syn::parse_quote!(#store)
                    }
                    // constants only (no recorded rows), each evaluated
                    // again: there is no one element to read back
                    _ => self.made_again(name, &r.expr, None, at, deps, kept, false)?,
                };
                self.again_as_written(len)
                    .then(|| syn::parse_quote!([#elem; #len]))
            }
            leaf => {
                let written = match fill {
                    Some(Fill::Elements(writes)) => {
                        writes.iter().find(|(k, _)| k == at).map(|(_, id)| *id)
                    }
                    Some(Fill::All(_)) => return None,
                    None => None,
                };
                let id = match written {
                    Some(id) => {
                        self.note_rebuilt(id, true);
                        id
                    }
                    None if self.again_as_written(leaf) => return Some(leaf.clone()),
                    None if !read_back => return None,
                    // read back from the array, where the forward put it
                    None => {
                        let id = self.stored(quote!(#name #([#at])*), kept);
                        self.note_rebuilt(id, false);
                        id
                    }
                };
                deps.push(id);
                let store = &self.values[id].store;
                Some(syn::parse_quote!(#store))
            }
        }
    }

    /// `id`, an element of a literal made again (`recorded`, or a constant
    /// read back), found by its store where the literal is read
    /// ([`Self::known_element`]).
    fn note_rebuilt(&mut self, id: ValueId, recorded: bool) {
        let store = self.values[id].store.to_string();
        self.rebuilt_recorded.insert(store, (id, recorded));
    }

    /// Whether a constant evaluates again to what it evaluated to here.
    fn again_as_written(&self, expr: &Expr) -> bool {
        is_literal(expr) || self.stability.as_ref().is_some_and(|s| s.pure(expr))
    }
}

/// An element of an array made by a literal, known where it is read.
pub(super) enum Known {
    /// a literal, as written
    Literal(TokenStream),
    /// a recorded value
    Value(ValueId),
    /// a constant the forward read back from the array where the literal
    /// made it (see the module's documentation), kept once for every read
    Kept(ValueId),
}

/// The array literal a `let`'s value is, or ends an unlabelled block with.
pub(super) fn block_literal(init: &Expr) -> Option<&Expr> {
    match strip_parens(init) {
        e @ (Expr::Array(_) | Expr::Repeat(_)) => Some(e),
        Expr::Block(b) if b.label.is_none() => match b.block.stmts.last() {
            Some(Stmt::Expr(tail, None)) => {
                let tail = strip_parens(tail);
                matches!(tail, Expr::Array(_) | Expr::Repeat(_)).then_some(tail)
            }
            _ => None,
        },
        _ => None,
    }
}

/// Whether a `let`'s pattern binds its name other than by value and
/// immutably (`mut h`, `ref h`).
fn binds_mut(pat: &Pat) -> bool {
    crate::facts::stability::immutable_ident(pat).is_none()
}
