//! Copies of a whole array taken where a loop starts, read by the reverse
//! of the loops inside it.
//!
//! A recurrent step reads its state in a loop nested in another:
//!
//! ```text
//! for t in 0..steps {
//!     for i in 0..H {
//!         for j in 0..H {
//!             z += w[i * H + j] * h[j];   // h: [f64; H]
//!         }
//!         …
//!     }
//!     h = next;
//! }
//! ```
//!
//! `h` changes in the loop over `t`, so the reverse cannot read `h[j]`
//! again; kept per read, it costs `H × H` values a step. But nothing in the
//! loop over `i` changes `h`: a copy taken where that loop starts holds
//! what every read inside it sees, and the reverse reads `copy[j]` instead
//! (`H` values a step, as a hand-written adjoint keeps the state).
//!
//! A read `h[j]` reads the copy when:
//!
//! - `h` is a local array made by `[x; n]` (a `Copy` value), bound once in
//!   a function without `return` (where values are read again at all);
//! - the index is the variable of the innermost loop around the read, a
//!   loop over `0..n` (`n` as written in `[x; n]`) or `0..h.len()`: that
//!   loop reads every element once, so the copy costs no more than the
//!   reads it replaces;
//! - and a loop around that one changes `h` nowhere in its body (no
//!   assignment, element write, method call, mutable borrow, binding or
//!   macro naming it, see `facts/loops.rs`): the outermost such loop takes
//!   the copy where it starts.
//!
//! The copy is written only if the reverse reads it (`lazy_temp`).

use super::*;
use crate::facts::loops::LoopFacts;
use crate::facts::syntax::strip_parens;
use std::collections::HashSet;

/// A loop around the code being lowered.
pub(super) struct Around {
    /// its variable, if it is a counter (see `LoopFacts::var`)
    var: Option<String>,
    /// `lo..hi` as written, for a counter over a range
    range: Option<(String, String)>,
    /// the names its body may change
    bound: HashSet<String>,
    /// whole arrays it does not change → their copy where it starts
    copies: HashMap<String, ValueId>,
}

impl Sweep<'_> {
    /// `let name = [x; n];`: a whole array of `n` elements, if `name` is
    /// bound once.
    pub(super) fn note_whole_array(&mut self, name: &Ident, literal: &Expr, is_vec: bool) {
        let (Expr::Repeat(r), false) = (literal, is_vec) else {
            return;
        };
        let key = name.to_string();
        if self.stability.as_ref().is_some_and(|s| s.bound_once(&key)) {
            let len = &r.len;
            self.whole
                .insert(key, (name.clone(), quote!(#len).to_string()));
        }
    }

    /// Entering a loop with `facts`, its code about to go into `out`: a
    /// copy of each whole array it does not change, taken here (written
    /// only if read).
    pub(super) fn enter_around(&mut self, facts: &LoopFacts, out: &mut TokenStream) {
        let hoisted = self
            .hoists
            .last()
            .is_some_and(|h| h.base != self.depth || h.arms > 0);
        let mut copies = HashMap::new();
        if self.stability.is_some() && !hoisted {
            let mut names: Vec<String> = self
                .whole
                .keys()
                .filter(|name| !facts.bound.contains(*name))
                .filter(|name| {
                    self.lookup(name).is_some_and(
                        |b| matches!(&b.val, Val::Array { prefix, .. } if prefix.is_empty()),
                    )
                })
                .cloned()
                .collect();
            names.sort();
            for name in names {
                // the name as the user wrote it (its hygiene)
                let ident = self.whole[&name].0.clone();
                let id = self.lazy_temp(quote!(::mica::__private::snapshot(&#ident)), "s", out);
                copies.insert(name, id);
            }
        }
        self.around.push(Around {
            var: facts.var.clone(),
            range: facts
                .range
                .as_ref()
                .map(|(lo, hi)| (quote!(#lo).to_string(), quote!(#hi).to_string())),
            bound: facts.bound.clone(),
            copies,
        });
    }

    pub(super) fn leave_around(&mut self) {
        self.around.pop();
    }

    /// For a read `name[index]`: the copy of `name` the reverse may read
    /// instead (see the module's documentation).
    pub(super) fn copy_for(&self, name: &Expr, index: &Expr) -> Option<ValueId> {
        let (Expr::Path(name), Expr::Path(index)) = (strip_parens(name), strip_parens(index))
        else {
            return None;
        };
        let name = name.path.get_ident()?.to_string();
        let (_, len) = self.whole.get(&name)?;
        let inner = self.around.last()?;
        if *index.path.get_ident()? != inner.var.as_deref()? {
            return None;
        }
        let (lo, hi) = inner.range.as_ref()?;
        if lo != "0" || (hi != len && *hi != format!("{name} . len ()")) {
            return None;
        }
        let mut copy = None;
        for (k, around) in self.around.iter().enumerate().rev() {
            if around.bound.contains(&name) {
                break;
            }
            if k + 1 < self.around.len() {
                copy = around.copies.get(&name).copied().or(copy);
            }
        }
        copy
    }
}
