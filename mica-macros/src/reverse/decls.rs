//! The declarations the reverse sweep writes where a region's reverse
//! starts: accumulators and adjoint buffers (`reverse.rs`).

use super::Gen;
use crate::record::{Operand, Record, Step, Val, ValueId};
use proc_macro2::{Ident, TokenStream};
use quote::quote;
use std::collections::BTreeSet;

/// `let mut acc = 0;` for an accumulator of the value stored in `store`.
pub(super) fn accumulator_decl(acc: &Ident, store: &Ident) -> TokenStream {
    quote!(let mut #acc = ::mica::__private::zeros_like(&#store);)
}

/// The zeroed adjoint buffer `acc` of an array of shape `shape`: on the
/// stack, up to `inline` elements, for a `vec!` of a constant length.
pub(super) fn buffer_decl(
    acc: &TokenStream,
    shape: &Ident,
    inline: Option<&TokenStream>,
) -> TokenStream {
    match inline {
        // the stack buffer, then the slice of it the reverse indexes
        Some(capacity) => quote! {
            let mut #acc = ::mica::__private::InlineZeros::<_, #capacity>::new(#shape);
            #[allow(unused_mut)]
            let mut #acc = #acc.slice();
        },
        None => quote!(#[allow(unused_mut)] let mut #acc = ::mica::__private::zeros_of(#shape);),
    }
}

impl Gen<'_> {
    /// The zeroed adjoint buffers of the arrays made in `region`, and what
    /// gives back, at the region's end, those of a loop's body made in the
    /// memory of the buffers the iteration walked before gave back (the
    /// pools of `walk.rs`): a loop's reverse then allocates once, not in
    /// every iteration.
    pub(super) fn local_buffers(&mut self, region: usize) -> (TokenStream, TokenStream) {
        let locals: Vec<(
            usize,
            TokenStream,
            crate::record::ValueId,
            Option<TokenStream>,
        )> = self
            .record
            .arrays
            .iter()
            .enumerate()
            .filter(|(k, _)| region != 0 || !self.early_arrays.contains_key(k))
            .filter(|(k, _)| !self.unread.contains(k))
            .filter_map(|(k, a)| {
                a.local
                    .filter(|(r, _)| *r == region)
                    .map(|(_, shape)| (k, a.acc.clone(), shape, a.inline.clone()))
            })
            .collect();
        let (mut decls, mut give_back) = (TokenStream::new(), TokenStream::new());
        for (array, acc, shape, inline) in locals {
            let shape = self.read_store(shape);
            match (self.pooled.remove(&array), inline) {
                (Some(pool), None) => {
                    decls.extend([quote! {
                        #[allow(unused_mut)]
                        let mut #acc = ::mica::__private::zeros_from(#shape, &mut #pool);
                    }]);
                    give_back
                        .extend([quote!(::mica::__private::give_back(&#shape, &mut #pool, #acc);)]);
                    self.pools_used.push(pool);
                }
                (_, inline) => decls.extend([buffer_decl(&acc, &shape, inline.as_ref())]),
            }
        }
        (decls, give_back)
    }
}

/// Values that receive slopes from a region other than their own.
pub(super) fn mark_accumulated(
    record: &Record<'_>,
    steps: &[Step],
    region: usize,
    out: &mut BTreeSet<ValueId>,
) {
    let mark = |val: &Val, region: usize, out: &mut BTreeSet<ValueId>| {
        if let Val::Active(v) = val {
            if record.values[*v].region != region {
                out.insert(*v);
            }
        }
    };
    for step in steps {
        match step {
            Step::Op(op) => {
                for input in &op.inputs {
                    if let Operand::Active(v) = input {
                        mark(&Val::Active(*v), region, out);
                    }
                }
            }
            Step::Loop(l) => {
                mark_accumulated(record, &l.steps, l.region, out);
                for c in &l.carried {
                    mark(&c.end, l.region, out);
                    mark(&c.before, region, out);
                }
            }
            Step::Write {
                value: Operand::Active(v),
                ..
            }
            | Step::Increment {
                value: Operand::Active(v),
                ..
            }
            | Step::Fill {
                value: Operand::Active(v),
                ..
            } => {
                mark(&Val::Active(*v), region, out);
            }
            Step::CallInto(c) => {
                for input in &c.inputs {
                    if let Operand::Active(v) = input {
                        mark(&Val::Active(*v), region, out);
                    }
                }
            }
            Step::Write { .. }
            | Step::Increment { .. }
            | Step::Fill { .. }
            | Step::Copy { .. }
            | Step::Swap { .. } => {}
            Step::Branch(b) => {
                for (k, (arm_region, arm)) in b.arms.iter().enumerate() {
                    mark_accumulated(record, arm, *arm_region, out);
                    for merge in &b.merges {
                        if let Some(val) = merge.per_arm.get(k) {
                            mark(val, *arm_region, out);
                        }
                    }
                }
            }
        }
    }
}
