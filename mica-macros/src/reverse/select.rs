//! A selection's reverse: the winner's iteration alone (why it is the plain
//! adjoint: `plan/select.rs`).
//!
//! Where the reverse can evaluate each iteration's value again (nothing of
//! the iteration need be kept), the forward keeps nothing: the reverse walks
//! the range again, after the loop, up to the iteration whose value equals
//! the result (`search_winner`, which says why that one is the winner):
//!
//! ```text
//! let s = m;                                // forward: the start
//! for i in 0..x.len() {
//!     m = m.max(x[i]);
//! }
//! …
//! let k = …;                                // reverse: m's adjoint
//! if !(m <= s) {
//!     for i in 0..x.len() {
//!         let e = x[i];                     // evaluated again
//!         if e == m {
//!             d_x[i] += k;                  // `e` seeded with `k`
//!             break;
//!         }
//!     }
//! }
//! ```
//!
//! Otherwise the forward keeps the winner's iteration as it runs:
//!
//! ```text
//! let mut win = None;                       // forward
//! for i in 0..x.len() {
//!     let p = m;
//!     let e = f(x[i]);
//!     let y = p.max(e);
//!     m = y;
//!     if picked_argument(p, e, y) { win = Some((i, e)); }
//! }
//! …
//! if let Some((i, e)) = win { … }           // reverse: that iteration
//! ```

use super::*;
use crate::plan::select::Selection;

impl Gen<'_> {
    /// The reverse of a selection `l` (the plan's verdict `sel`).
    pub(super) fn walk_selection(&mut self, l: &Loop, sel: &Selection, code: &mut TokenStream) {
        let pat = &sel.pat;
        let c = &l.carried[0];
        let carry = self.names.fresh("k");
        let init = self.total_or_zero(c.exit);
        code.extend([quote!(let #carry = #init;)]);
        // the winner's iteration: its rule hands the whole adjoint to the
        // iteration's own value and exactly zero to the running value, so
        // the reverse seeds that value and leaves the rule out (what
        // follows the rule in the body reaches nothing)
        let at = l
            .steps
            .iter()
            .position(|s| matches!(s, Step::Op(op) if op.out == sel.out))
            .unwrap_or(l.steps.len());
        let seeds = match &sel.other {
            Operand::Active(v) => vec![(*v, carry.to_token_stream())],
            _ => Vec::new(),
        };
        self.nest.push(Level::of_loop(&l.trip));
        let body = self.region(&l.steps[..at], l.region, seeds);
        let next = quote!(::mica::__private::zeros_like(&#carry));
        // the winner found after the loop, where its iteration's value is
        // evaluated again: the forward keeps nothing
        let before_reads = self.reads.clone();
        let search = match (&sel.other, &l.range) {
            (Operand::Active(v), Some((_, source))) => {
                self.reads.insert(*v);
                let (again, stored) = self.loop_reads(l, None);
                let store = self.record.values[*v].store.clone();
                let evaluated = crate::names::mentions_ident(&again, &store.to_string());
                (stored.is_empty() && evaluated).then_some((again, store, source))
            }
            _ => None,
        };
        if let Some((again, value, source)) = search {
            self.nest.pop();
            self.empty_tapes.insert(l.tape.to_string());
            self.search_winner(l, sel, source, (again, value, body), (carry, next), code);
            return;
        }
        self.reads = before_reads;
        let (again, stored) = self.loop_reads(l, None);
        self.nest.pop();
        self.empty_tapes.insert(l.tape.to_string());
        // the forward keeps the winner's iteration: its variable, if its
        // reverse reads it, and what its reverse reads
        let body = quote!(#again #body);
        let mut items: Vec<TokenStream> = Vec::new();
        if mentions(&body, pat) {
            items.push(pat.clone());
        }
        items.extend(stored.iter().map(ToTokens::to_token_stream));
        let win = self.names.fresh("win");
        let (entry, out) = (self.read_store(sel.entry), self.read_store(sel.out));
        let other = self.operand(&sel.other);
        // the test `max_d1` and `min_d1` make: the slope goes to the
        // iteration's own value
        let took = match sel.at {
            0 => quote!(::mica::__private::rules::picked_argument(#entry, #other, #out)),
            _ => quote!(!::mica::__private::rules::picked_argument(#other, #entry, #out)),
        };
        self.fills.insert(
            l.fill.to_string(),
            quote! {
                if #took {
                    #win = ::core::option::Option::Some((#(#items,)*));
                }
            },
        );
        self.before_loops
            .entry(l.before.to_string())
            .or_default()
            .extend([quote!(let mut #win = ::core::option::Option::None;)]);
        // the value before the loop: the winner's iteration passes on what
        // its rule gives (exactly zero); with no winner, the adjoint after
        // the loop passes through unchanged
        match c.before {
            Val::Active(before) => {
                let result = self.names.fresh("k");
                code.extend([quote! {
                    let #result = if let ::core::option::Option::Some((#(#items,)*)) = #win {
                        #body
                        #next
                    } else {
                        #carry
                    };
                }]);
                self.contribute(before, result, code);
            }
            _ => code.extend([quote! {
                if let ::core::option::Option::Some((#(#items,)*)) = #win {
                    #body
                }
            }]),
        }
    }

    /// The reverse of a selection whose winner is found after the loop:
    /// the iterations are walked again, each one's value evaluated again
    /// (`again` binds `value`), until the one equal to the result, whose
    /// reverse (`body`, seeded with `carry`) runs alone.
    ///
    /// Which iteration the plain walk seeds (`plan/select.rs`): with the
    /// running value the receiver, `m.max(e)`, an iteration takes the slope
    /// when `e > m` (or `m` is NaN and `e` is not), so the winner is the
    /// last to exceed all before it: the first whose value equals the
    /// result `r`, if `r` left the start `s` (`!(r <= s)`: also when `s` is
    /// NaN; an `r` that is NaN equals nothing, and no iteration took it).
    /// With the running value the argument, `e.max(m)`, ties go to the
    /// iteration, which takes the slope when `e >= m` or `m` is NaN: the
    /// winner is the last whose value equals `r`, or, when `r` is NaN (the
    /// start and every value NaN), the last iteration. `min` likewise.
    fn search_winner(
        &mut self,
        l: &Loop,
        sel: &Selection,
        source: &RangeSource,
        (again, value, body): (TokenStream, Ident, TokenStream),
        (carry, next): (Ident, TokenStream),
        code: &mut TokenStream,
    ) {
        let c = &l.carried[0];
        // the winner's reverse, and with a value before the loop, that
        // value's adjoint from it: exactly zero (else the adjoint after the
        // loop, when no iteration won)
        let before = match c.before {
            Val::Active(before) => Some(before),
            _ if body.is_empty() => return,
            _ => None,
        };
        let taken = before.map(|_| self.names.fresh("k"));
        let result = self.read_store(c.exit);
        let range = match source {
            RangeSource::Again(expr) => expr.to_token_stream(),
            RangeSource::Kept(id) => self.read_store(*id).into_token_stream(),
        };
        let (range, test, guard) = match sel.at {
            0 => {
                let start = self.names.fresh("s");
                let name = &c.name;
                self.before_loops
                    .entry(l.before.to_string())
                    .or_default()
                    .extend([quote!(let #start = #name;)]);
                let guard = match sel.largest {
                    true => quote!(!(#result <= #start)),
                    false => quote!(!(#result >= #start)),
                };
                (range, quote!(#value == #result), Some(guard))
            }
            _ => (
                quote!(::core::iter::Iterator::rev(#range)),
                quote!(#value == #result || #result != #result),
                None,
            ),
        };
        let walked = quote!(#again #test #body);
        let pat = if mentions(&walked, &sel.pat) {
            sel.pat.clone()
        } else {
            quote!(_)
        };
        let passed = taken.as_ref().map(|k| quote!(#k = #next;));
        let search = quote! {
            for #pat in #range {
                #again
                if #test {
                    #body
                    #passed
                    break;
                }
            }
        };
        let search = match guard {
            Some(guard) => quote!(if #guard { #search }),
            None => search,
        };
        if let Some(k) = &taken {
            code.extend([quote!(let mut #k = #carry;)]);
        }
        code.extend([search]);
        if let (Some(before), Some(k)) = (before, taken) {
            self.contribute(before, k, code);
        }
    }
}
