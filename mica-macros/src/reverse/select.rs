//! A selection's reverse: the winner's iteration alone (why it is the plain
//! adjoint: `plan/select.rs`).
//!
//! ```text
//! let mut win = None;                       // forward
//! for i in 0..x.len() {
//!     let p = m;
//!     let e = x[i];
//!     let y = p.max(e);
//!     m = y;
//!     if picked_argument(p, e, y) { win = Some((i,)); }
//! }
//! …
//! let k = …;                                // reverse: m's adjoint
//! if let Some((i,)) = win {                 // the winner's iteration,
//!     d_x[i] += k;                          // `e` seeded with `k`
//! }
//! //! ```

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
}
