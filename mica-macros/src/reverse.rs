//! The reverse sweep: from the record `lower.rs` made, the adjoint code.
//!
//! Input: the record (operations in forward order) and the seeds.
//! Output: one immutable `let` per adjoint, in reverse order:
//!
//! ```text
//! // op 3: t4 = mul(t3, t3), seeded with `seed`
//! let __mica_a5 = seed;
//! // op 2: t3 = sub(t1, c2)
//! let __mica_a6 = rules::mul_d0(t3, t3, t4, a5) + rules::mul_d1(t3, t3, t4, a5);
//! // op 1: t1 = mul(a, 2.0)
//! let __mica_a7 = rules::sub_d0(t1, c2, t3, a6);
//! ```
//!
//! and, for each input, the sum of what flowed into it (`rules::mul_d0(a,
//! 2.0, t1, a7)`), which the caller adds into a slot or binds as a gradient.
//!
//! Each adjoint is the sum of the contributions of its readers, collected
//! while their operations are visited (fan-out sums). An adjoint that
//! receives nothing is never written: dead values cost no code, and an input
//! nothing flowed into has gradient exactly zero (unread means zero).

use crate::lower::{OpKind, Operand, Sweep, ValueId};
use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned, ToTokens};
use std::collections::BTreeMap;

/// The reverse sweep's code and what reached each input.
pub struct Reverse {
    pub code: TokenStream,
    /// input value → the contributions to its adjoint (empty: exactly zero)
    pub inputs: BTreeMap<ValueId, Vec<TokenStream>>,
}

/// Writes the reverse sweep of `sweep`'s record, seeded at the given values.
pub fn reverse(sweep: &mut Sweep<'_>, seeds: Vec<(ValueId, TokenStream)>) -> Reverse {
    let mut contributions: BTreeMap<ValueId, Vec<TokenStream>> = BTreeMap::new();
    for (id, seed) in seeds {
        contributions.entry(id).or_default().push(seed);
    }
    let mut code = TokenStream::new();
    let ops = std::mem::take(&mut sweep.ops);
    for op in ops.iter().rev() {
        let Some(incoming) = contributions.remove(&op.out) else {
            continue; // nothing reads this value: its adjoint is zero
        };
        let adj = sweep.names.fresh("a");
        let sum = sum(&incoming);
        code.extend(quote!(let #adj = #sum;));
        let args: Vec<TokenStream> = op
            .inputs
            .iter()
            .map(|input| match input {
                Operand::Active(id) => sweep.read_store(*id).into_token_stream(),
                Operand::Const(tokens) => tokens.clone(),
            })
            .collect();
        match &op.kind {
            OpKind::Rule(name) => {
                let out = sweep.read_store(op.out);
                for (i, input) in op.inputs.iter().enumerate() {
                    if let Operand::Active(id) = input {
                        let rule = quote::format_ident!("{}_d{}", name, i);
                        let contribution =
                            quote!(::mica::__private::rules::#rule(#(#args,)* #out, #adj));
                        contributions.entry(*id).or_default().push(contribution);
                    }
                }
            }
            OpKind::Call(adapter) => {
                // joint mode: the callee's adjoint re-runs its own forward
                // sweep and adds its slopes into one slot per argument
                // each slot carries its argument's span: a type error about
                // it (a recorded value passed to an untracked parameter)
                // points at the user's argument
                let mut slots = Vec::new();
                for (i, (input, arg)) in op.inputs.iter().zip(&args).enumerate() {
                    let span = op.spans.get(i).copied().unwrap_or_else(Span::call_site);
                    match input {
                        Operand::Active(id) => {
                            let slot = sweep.names.fresh("d");
                            code.extend(
                                quote!(let mut #slot = ::mica::__private::zeros_like(&#arg);),
                            );
                            // same name resolution, the argument's location
                            let mut at = slot.clone();
                            at.set_span(slot.span().located_at(span));
                            slots.push(quote_spanned!(span=> &mut #at));
                            contributions
                                .entry(*id)
                                .or_default()
                                .push(slot.into_token_stream());
                        }
                        Operand::Const(_) => {
                            slots.push(quote_spanned!(span=> ::mica::__private::NoSlot))
                        }
                    }
                }
                code.extend(quote!(#adapter(#(#args,)* #adj, #(#slots),*);));
            }
        }
    }
    sweep.ops = ops;
    Reverse {
        code,
        inputs: contributions,
    }
}

/// `a + b + …` of the contributions (at least one).
pub fn sum(parts: &[TokenStream]) -> TokenStream {
    let mut parts = parts.iter();
    let first = parts.next().cloned().unwrap_or_default();
    parts.fold(first, |acc, part| quote!(#acc + #part))
}
