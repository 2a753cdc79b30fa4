//! Slopes at neighbouring elements waiting in registers between a loop's
//! iterations (the plan's verdict, `analyze/carry.rs`).
//!
//! Walked last to first, a window of three elements `i - 1`, `i`, `i + 1`:
//!
//! ```text
//! let mut w0 = 0.0; let mut w1 = 0.0;     // what waits: elements i, i + 1 of the iteration before
//! let mut last = None;
//! for i in (lo..hi).rev() {
//!     let mut p0 = 0.0; let mut p1 = w0; let mut p2 = w1;
//!     …the iteration's reverse, `p0 += …` where it added into d_u[i - 1]…
//!     d_u[i + 1] += p2;                    // no iteration walked later reads it
//!     w0 = p0; w1 = p1;
//!     last = Some(i - 1);
//! }
//! if let Some(at) = last { d_u[at] += w0; d_u[at + 1] += w1; }
//! ```
//!
//! Walked first to last (a fused loop, or one walked forward), the lowest
//! element is the one done after each iteration, and what waits moves down.

use super::Gen;
use crate::analyze::carry::Carry;
use proc_macro2::{Ident, TokenStream};
use quote::quote;

/// One array's registers.
pub(super) struct Registers {
    /// what waits for the next iteration walked: the window's elements but
    /// the one done, lowest first
    waiting: Vec<Ident>,
    /// the iteration's parts, one per element of the window, lowest first
    parts: Vec<Ident>,
    /// the lowest element of the last iteration walked
    last: Ident,
    carry: usize,
}

/// A loop's windows, opened: their registers.
pub(super) struct Windows(Vec<Registers>);

/// A window whose reads added something, closed: its registers and what its
/// code reads.
pub(super) struct Closed {
    registers: Registers,
    /// the buffer
    acc: TokenStream,
    /// the window's lowest and highest elements in the buffer
    lowest: TokenStream,
    highest: TokenStream,
    /// the lowest element's index
    low: TokenStream,
}

impl Gen<'_> {
    /// Registers for `carries` of a loop: the window's reads add into them
    /// while the body's reverse is written (until [`Gen::close_windows`]).
    pub(super) fn open_windows(&mut self, carries: &[Carry]) -> Windows {
        let mut registers = Vec::new();
        for (k, c) in carries.iter().enumerate() {
            let r = Registers {
                waiting: (1..c.at.len()).map(|_| self.names.fresh("y")).collect(),
                parts: (0..c.at.len()).map(|_| self.names.fresh("y")).collect(),
                last: self.names.fresh("y"),
                carry: k,
            };
            for (reads, part) in c.reads.iter().zip(&r.parts) {
                for v in reads {
                    self.carried_reads.insert(*v, part.clone());
                }
            }
            registers.push(r);
        }
        Windows(registers)
    }

    /// The windows once the body's reverse is written: those none of whose
    /// reads added anything are left out. What their code reads is read
    /// here, before the loop's reverse says what it keeps, whichever way it
    /// walks.
    pub(super) fn close_windows(&mut self, carries: &[Carry], windows: Windows) -> Vec<Closed> {
        let mut out = Vec::new();
        for registers in windows.0 {
            let c = &carries[registers.carry];
            let mut used = false;
            for (reads, part) in c.reads.iter().zip(&registers.parts) {
                for v in reads {
                    self.carried_reads.remove(v);
                }
                used |= self.carried_used.remove(&part.to_string());
            }
            if !used {
                continue;
            }
            let lowest = self.element(c.array, std::slice::from_ref(&c.at[0]));
            let highest = self.element(c.array, std::slice::from_ref(&c.at[c.at.len() - 1]));
            out.push(Closed {
                registers,
                acc: self.record.arrays[c.array].acc.clone(),
                lowest,
                highest,
                low: self.operand(&c.at[0]),
            });
        }
        out
    }

    /// The iteration's reverse `body` with the windows' registers, for a
    /// reverse that walks first to last if `up`, last to first if not; their
    /// declarations go into `before`, what waits after the loop into
    /// `after`.
    pub(super) fn wrap_windows(
        &mut self,
        closed: Vec<Closed>,
        up: bool,
        body: TokenStream,
        before: &mut TokenStream,
        after: &mut TokenStream,
    ) -> TokenStream {
        let (mut head, mut tail) = (TokenStream::new(), TokenStream::new());
        for c in closed {
            let Closed {
                registers: r,
                acc,
                lowest,
                highest,
                low,
            } = c;
            // a zero of the element's type, made before the loop (inside
            // it the buffer may be lent to a slice)
            let zero = self.names.fresh("y");
            let (waiting, parts, last) = (&r.waiting, &r.parts, &r.last);
            before.extend([quote! {
                let #zero = ::mica::__private::zero_element(&#acc[..]);
                #(let mut #waiting = #zero;)*
                let mut #last: ::core::option::Option<usize> = ::core::option::Option::None;
            }]);
            let width = parts.len();
            // the element done after each iteration, and the parts that
            // wait (lowest first)
            let (done_at, done_part, moved, starts) = match up {
                true => (lowest, &parts[0], &parts[1..], quote!(#(#waiting,)* #zero)),
                false => (
                    highest,
                    &parts[width - 1],
                    &parts[..width - 1],
                    quote!(#zero, #(#waiting),*),
                ),
            };
            head.extend([quote! {
                #[allow(unused_mut)]
                let (#(mut #parts),*) = (#starts);
            }]);
            tail.extend([quote! {
                #done_at += #done_part;
                #(#waiting = #moved;)*
                #last = ::core::option::Option::Some(#low);
            }]);
            // what waits, element by element from the last iteration's
            // lowest: walked up, its lowest was done
            let shift = usize::from(up);
            let at = self.names.fresh("y");
            let adds = waiting.iter().enumerate().map(|(k, w)| match k + shift {
                0 => quote!(#acc[#at] += #w;),
                k => {
                    let k = proc_macro2::Literal::usize_unsuffixed(k);
                    quote!(#acc[#at + #k] += #w;)
                }
            });
            after.extend([quote! {
                if let ::core::option::Option::Some(#at) = #last {
                    #(#adds)*
                }
            }]);
        }
        quote!(#head #body #tail)
    }
}
