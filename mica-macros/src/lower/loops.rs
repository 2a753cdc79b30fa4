//! Loops: what every loop's lowering shares, and `while`. The `for`
//! specifics (what is iterated, the elements bound, ranges walked backward,
//! stack tapes) are in `lower/for_loops.rs`.
//!
//! A loop over recorded values:
//!
//! ```text
//! for x in w.iter() { s += x * x; }
//! ```
//!
//! becomes the user's own loop plus a counter, the copies the reverse needs,
//! and a push of them onto the loop's tape at the end of each iteration:
//!
//! ```text
//! let mut __mica_kc1 = 0usize;
//! let __mica_it2 = IntoIterator::into_iter(w.iter());
//! __mica_tape3.reserve(size_hint(&__mica_it2).0);   // storage sized once
//! for x in __mica_it2 {
//!     let __mica_c4 = __mica_kc1; __mica_kc1 += 1;  // the element's index
//!     let __mica_p5 = s;                             // `s` as the iteration found it
//!     let __mica_t6 = w[__mica_c4];                  // the element, recorded
//!     … s = …;
//!     __mica_tape3.push((…what the reverse reads…));
//! }
//! let __mica_c7 = __mica_kc1;                        // the trip count
//! let __mica_x8 = s;                                 // `s` after the loop
//! ```
//!
//! A loop is opened (its tape, counter and placeholders), its body lowered
//! in a region of its own with each carried binding copied as the
//! iteration found it, and closed: the trip count, the carried bindings'
//! values after it, and its step in the record.

use super::*;
use crate::facts::activity::Assignments;

/// What lowering a loop body left for the record.
pub(super) struct LoopRecord {
    pub(super) steps: Vec<Step>,
    entries: Vec<ValueId>,
    ends: Vec<Val>,
}

/// A loop being lowered.
pub(super) struct OpenLoop {
    /// placeholders for the counter's declaration and its step, and the
    /// iteration's index made from it
    pub(super) counter_at: Ident,
    pub(super) counter_step: Option<Ident>,
    pub(super) index: Option<ValueId>,
    pub(super) top: Option<usize>,
    pub(super) direct: bool,
    pub(super) before: Ident,
    pub(super) tape: Ident,
    pub(super) counter: Ident,
    pub(super) fill: Ident,
    pub(super) region: usize,
    pub(super) reserve: Option<(Ident, TokenStream)>,
    pub(super) range: Option<(TokenStream, RangeSource)>,
    pub(super) trip: Option<Trip>,
    pub(super) kept_run: Option<(Ident, Ident, Ident)>,
    pub(super) facts: crate::facts::loops::LoopFacts,
    pub(super) first_value: ValueId,
}

/// The `break`s and `continue`s that `exits.rs` left as written: they would
/// skip the iteration's push.
pub(super) fn check_loop_exits(body: &syn::Block) -> syn::Result<()> {
    let mut leaving = crate::exits::Leaving::default();
    leaving.visit_block(body);
    let Some(first) = leaving.found.first() else {
        return Ok(());
    };
    let (keyword, token, labelled) = match first {
        Expr::Break(b) => ("break", b.break_token.span, b.label.is_some()),
        Expr::Continue(c) => ("continue", c.continue_token.span, c.label.is_some()),
        // only `break`s and `continue`s are found
        _ => return Ok(()),
    };
    let what = if labelled {
        format!("this `{keyword}` to a label is not supported in a loop over recorded values; write it as a statement of its own, `if … {{ {keyword} 'label; }}`, in the loop's body or in an `if`, a `match` arm or a block there")
    } else {
        format!("this `{keyword}` is not supported in a loop over recorded values; write it as a statement of its own, `if … {{ {keyword}; }}`, in the loop's body or in an `if`, a `match` arm or a block there")
    };
    Err(syn::Error::new(token, what))
}

impl Sweep<'_> {
    /// `while cond { … }`
    pub(super) fn lower_while(
        &mut self,
        w: &syn::ExprWhile,
        out: &mut TokenStream,
    ) -> syn::Result<Lowered> {
        if matches!(&*w.cond, Expr::Let(_)) && self.mentions_active(&w.cond) {
            return Err(syn::Error::new_spanned(
                w.while_token,
                "`while let` on recorded values is not supported; loop over the indices: `for i in 0..v.len()`",
            ));
        }
        // a `while let` that may stop early (see `exits.rs`): as a `for`
        // loop's, its last statement, `if stop { break; }`, goes after the
        // iteration's push
        let split = crate::exits::split_stop(&w.body);
        let stop = split.as_ref().map(|(_, flag)| quote!(if #flag { break; }));
        let without_stop;
        let w = match split {
            Some((body, _)) => {
                without_stop = syn::ExprWhile { body, ..w.clone() };
                &without_stop
            }
            None => w,
        };
        check_loop_exits(&w.body)?;
        let carried = self.carried(&w.body.stmts, &[]);
        let mut lp = self.open_loop(None, out);
        lp.facts = crate::facts::loops::LoopFacts::of_while(&w.cond, &w.body);
        let changed = crate::facts::loops::changed_in(&w.cond);
        self.enter_around(&lp.facts, changed, out);
        let lowered = self.loop_body(&mut lp, &carried, &w.body, |_, _, _| Ok(()));
        self.leave_around();
        let (body, record) = lowered?;
        let cond = &w.cond;
        out.extend([quote!(while #cond { #body #stop })]);
        self.close_loop(lp, carried, record, out);
        Ok(Lowered {
            val: Val::Const,
            fwd: TokenStream::new(),
        })
    }

    pub(super) fn open_loop(
        &mut self,
        capacity: Option<TokenStream>,
        out: &mut TokenStream,
    ) -> OpenLoop {
        let top = match &self.stability {
            Some(stability) if self.depth == 0 && self.region == 0 && self.scopes.len() == 1 => {
                Some(stability.statement())
            }
            _ => None,
        };
        // a statement of an enclosing loop's own body, outside any nested
        // block or arm
        let direct = self
            .hoists
            .last()
            .is_some_and(|h| h.base == self.depth && h.arms == 0);
        let before = self.names.fresh("fill");
        out.extend([before.to_token_stream()]);
        let tape = self.names.fresh("tape");
        self.tapes.push((tape.clone(), capacity));
        let counter = self.names.fresh("kc");
        // written if the iteration's index or the trip count is read
        let counter_at = self.names.fresh("fill");
        out.extend([counter_at.to_token_stream()]);
        OpenLoop {
            counter_at,
            counter_step: None,
            index: None,
            top,
            direct,
            before,
            tape,
            counter,
            fill: self.names.fresh("fill"),
            region: self.regions,
            reserve: None,
            range: None,
            trip: None,
            kept_run: None,
            facts: Default::default(),
            first_value: self.values.len(),
        }
    }

    /// The body of a loop, lowered in a region and storage scope of its own.
    pub(super) fn loop_body(
        &mut self,
        lp: &mut OpenLoop,
        carried: &[(Ident, Origin, Val)],
        block: &syn::Block,
        bind: impl FnOnce(&mut Self, &(Operand, TokenStream), &mut TokenStream) -> syn::Result<()>,
    ) -> syn::Result<(TokenStream, LoopRecord)> {
        let saved = (self.region, self.scope);
        self.regions += 1;
        self.region = lp.region;
        self.scope = lp.region;
        self.depth += 1;
        self.hoists.push(Hoist {
            base: self.depth,
            ..Hoist::default()
        });
        self.building.push(Vec::new());
        self.scopes.push(HashMap::new());
        let mut body = TokenStream::new();
        let counter = lp.counter.clone();
        let index = self.lazy_temp(quote!(#counter), "c", &mut body);
        let step = self.names.fresh("fill");
        body.extend([step.to_token_stream()]);
        lp.counter_step = Some(step);
        lp.index = Some(index);
        let index = (
            Operand::Stored(index),
            self.values[index].store.to_token_stream(),
        );
        // which names of the enclosing code the body assigns, and whether
        // each held a recorded value (or array) where the loop starts
        let mut assigned = Assignments::default();
        for stmt in &block.stmts {
            assigned.visit_stmt(stmt);
        }
        let recorded_before: HashMap<String, bool> = assigned
            .outer()
            .map(|(name, _, _)| {
                let name = name.to_string();
                let recorded = self.lookup(&name).is_some_and(|b| b.val.is_active());
                (name, recorded)
            })
            .collect();
        // each carried binding as this iteration found it
        let mut entries = Vec::new();
        for (name, origin, _) in carried {
            let id = self.lazy_temp(quote!(#name), "p", &mut body);
            self.bind(name, Val::Active(id), *origin);
            entries.push(id);
        }
        // the body's own bindings, above the carried copies: a `let` that
        // shadows a carried name does not hide it
        self.scopes.push(HashMap::new());
        self.enter_repeated(true);
        let bound = bind(self, &index, &mut body);
        if let Some(tail) = self.lower_block_stmts(&block.stmts, &mut body) {
            let fwd = tail.fwd;
            if !fwd.is_empty() {
                body.extend([quote!(#fwd;)]);
            }
        }
        self.leave_repeated();
        self.scopes.pop();
        // a binding of the enclosing code that now holds a value of this
        // body, without being carried, would be read after the loop where
        // that value no longer exists; one that held a constant where the
        // loop starts and now holds a recorded array was read as a
        // constant by this iteration, but not by the next
        // (a name a `let` in the body shadows is the body's own)
        for (name, _, _) in assigned.outer() {
            if carried.iter().any(|(c, _, _)| c == name) {
                continue;
            }
            let before = recorded_before
                .get(&name.to_string())
                .copied()
                .unwrap_or(false);
            match self.lookup(&name.to_string()).map(|b| b.val.clone()) {
                Some(Val::Active(v)) if self.values[v].scope == lp.region => {
                    self.errors.push(syn::Error::new_spanned(
                        name,
                        format!("`{name}` carries a recorded value from one iteration to the next in a way Mica cannot follow; start it from a recorded value before the loop"),
                    ));
                    self.set(name, Val::Const);
                }
                Some(Val::Array { .. }) if !before => {
                    self.errors.push(syn::Error::new_spanned(
                        name,
                        format!("`{name}` holds constants where this loop starts and a recorded array after an iteration, which Mica cannot follow; copy the recorded values into it element by element (`for i in 0..n {{ {name}[i] = w[i]; }}`)"),
                    ));
                    self.set(name, Val::Const);
                }
                _ => {}
            }
        }
        let ends: Vec<Val> = carried
            .iter()
            .map(|(name, _, _)| {
                self.lookup(&name.to_string())
                    .map(|b| b.val.clone())
                    .unwrap_or(Val::Const)
            })
            .collect();
        self.scopes.pop();
        let steps = self.building.pop().unwrap_or_default();
        let hoist = self.hoists.pop().unwrap_or_default();
        self.depth -= 1;
        (self.region, self.scope) = saved;
        bound?;
        let mut decls = hoisted_decls(&hoist);
        for (store, id) in hoist.copies {
            self.lazy(vec![id], quote!(let #store;), &mut decls);
        }
        let fill = &lp.fill;
        Ok((
            quote!(#decls #body #fill),
            LoopRecord {
                steps,
                entries,
                ends,
            },
        ))
    }

    /// After the loop: its trip count, the carried bindings' values after
    /// it, and the loop's step in the record.
    pub(super) fn close_loop(
        &mut self,
        lp: OpenLoop,
        carried: Vec<(Ident, Origin, Val)>,
        record: LoopRecord,
        out: &mut TokenStream,
    ) {
        let LoopRecord {
            steps,
            entries,
            ends,
        } = record;
        let counter = &lp.counter;
        let count = self.lazy_temp(quote!(#counter), "c", out);
        let readers: Vec<ValueId> = lp.index.into_iter().chain([count]).collect();
        self.lazy.push((
            lp.counter_at.clone(),
            readers.clone(),
            quote!(let mut #counter = 0usize;),
        ));
        if let Some(step) = &lp.counter_step {
            self.lazy
                .push((step.clone(), readers, quote!(#counter += 1;)));
        }
        let mut record = Vec::new();
        for (((name, _, before), entry), end) in carried.into_iter().zip(entries).zip(ends) {
            let exit = self.lazy_temp(quote!(#name), "x", out);
            self.set(&name, Val::Active(exit));
            record.push(Carried {
                name,
                entry,
                end,
                before,
                exit,
            });
        }
        self.push_step(Step::Loop(Box::new(Loop {
            region: lp.region,
            scope: lp.region,
            steps,
            tape: lp.tape,
            count,
            fill: lp.fill,
            reserve: lp.reserve,
            range: lp.range,
            values: lp.first_value..self.values.len(),
            carried: record,
            top: lp.top,
            direct: lp.direct,
            before: lp.before,
            trip: lp.trip,
            kept_run: lp.kept_run,
            facts: lp.facts,
        })));
    }

    /// Changes what an existing binding holds (where it was bound).
    pub(super) fn set(&mut self, name: &Ident, val: Val) {
        let key = name.to_string();
        if let Some(binding) = self.scopes.iter_mut().rev().find_map(|s| s.get_mut(&key)) {
            binding.val = val;
        }
    }
}
