//! Slices taken before a reverse loop, so its body indexes without bounds
//! checks.
//!
//! In the reverse of
//!
//! ```text
//! for j in lo..hi {
//!     z += w[j] * x[i * d + j];
//! }
//! ```
//!
//! each iteration adds into `d_w[j]` and reads `x[i * d + j]` again. Both
//! indices were read by the forward sweep for every `j` of the range, so the
//! elements they reach form one run, in bounds: the reverse takes each run
//! as a slice before the loop and indexes it by `j - lo`, which the compiler
//! sees is below the slice's length. The bounds checks go, and the loop can
//! be vectorised, as a hand-written adjoint over slices is:
//!
//! ```text
//! if lo < hi {
//!     let dw = &mut d_w[lo..][..hi - lo];
//!     let xs = &x[i * d + lo..][..hi - lo];
//!     for j in lo..hi {
//!         dw[j - lo] += k * xs[j - lo];
//!     }
//! }
//! ```
//!
//! A stencil's neighbours (`q[i - 1]`, `q[i]`, `q[i + 1]`) share one slice
//! from the smallest shift to the largest: every index in between is in
//! bounds if the largest is.
//!
//! Which buffers and elements are sliced is the plan's verdict
//! (`plan/slices.rs`), read from the subscripts as linear forms in the
//! loop's variable; this file writes the slices.
//!
//! The run's elements are consecutive: a shifted index that wrapped around
//! would have passed `usize::MAX`, which no slice reaches.

use super::Gen;
use crate::facts::syntax::unsuffixed as literal;
use crate::plan::slices::{Read, Slices, Start};
use crate::record::{Loop, Operand, ValueId};
use proc_macro2::{Ident, TokenStream};
use quote::{quote, ToTokens};
use std::collections::HashMap;

/// A sliced buffer's last indices → their places in the slice.
pub(super) type Places = HashMap<ValueId, TokenStream>;

/// The slices of one loop's reverse.
pub(super) struct Slicing {
    /// the range's ends, parenthesised where an operator is next to them
    lo: TokenStream,
    hi: TokenStream,
    len: TokenStream,
    /// the loop variable's place in a slice: `j - lo`
    local: TokenStream,
    /// the slices' declarations, before the loop
    pub decls: TokenStream,
    /// arrays whose buffers are sliced
    arrays: Vec<usize>,
    /// elements read again from a slice: base and start → the slice (two
    /// reads of one run share it)
    reads: HashMap<String, Ident>,
}

impl Gen<'_> {
    /// Slices the adjoint buffers the plan says (`plan/slices.rs`); the
    /// body's accesses to them go through the slices until
    /// [`Self::close_slices`].
    pub(super) fn open_slices(&mut self, _l: &Loop, plan: &Slices) -> Slicing {
        let (lo, hi, var) = (&plan.lo, &plan.hi, &plan.var);
        let (len, local) = if plan.zero {
            (plan.end.clone(), var.clone())
        } else {
            (quote!(#hi - #lo), quote!(#var - #lo))
        };
        let mut slicing = Slicing {
            lo: lo.clone(),
            hi: hi.clone(),
            len,
            local,
            decls: TokenStream::new(),
            arrays: Vec::new(),
            reads: HashMap::new(),
        };
        for buffer in &plan.buffers {
            // (a buffer nothing adds into is not made: `unread.rs`)
            if self.unread.contains(&buffer.array) {
                continue;
            }
            let prefix: Vec<TokenStream> = buffer
                .prefix
                .iter()
                .map(|&id| {
                    let again = &self.record.values[id].recompute;
                    again
                        .as_ref()
                        .map(ToTokens::to_token_stream)
                        .unwrap_or_default()
                })
                .collect();
            let len = match buffer.extra {
                0 => slicing.len.clone(),
                extra => {
                    let (len, extra) = (&slicing.len, literal(extra));
                    quote!(#len + #extra)
                }
            };
            let run = range(&buffer.start, &len);
            let places = buffer
                .places
                .iter()
                .map(|(&id, &d)| {
                    let local = &slicing.local;
                    let place = match d {
                        0 => local.clone(),
                        d => {
                            let d = literal(d);
                            quote!(#local + #d)
                        }
                    };
                    (id, place)
                })
                .collect();
            let acc = self.record.arrays[buffer.array].acc.clone();
            let slice = self.names.fresh("s");
            slicing.decls.extend([quote! {
                let #slice = &mut #acc #([#prefix])* #run;
            }]);
            self.sliced.insert(buffer.array, (slice, places));
            slicing.arrays.push(buffer.array);
        }
        slicing
    }

    /// The body's accesses to the buffers go back to the buffers.
    pub(super) fn close_slices(&mut self, slicing: &Slicing) {
        for array in &slicing.arrays {
            self.sliced.remove(array);
        }
    }

    /// An element of an array's adjoint buffer: through its slice inside a
    /// sliced loop.
    pub(super) fn element(&mut self, array: usize, indices: &[Operand]) -> TokenStream {
        if let Some((slice, places)) = self.sliced.get(&array) {
            if let Some(Operand::Stored(id)) = indices.last() {
                if let Some(place) = places.get(id) {
                    return quote!(#slice[#place]);
                }
            }
        }
        let indices: Vec<TokenStream> = indices.iter().map(|i| self.operand(i)).collect();
        let acc = &self.record.arrays[array].acc;
        quote!(#acc #([#indices])*)
    }
}

impl Slicing {
    /// An element of a parameter read again through a slice, as the plan
    /// says (`plan/slices.rs`).
    pub(super) fn read_again(
        &mut self,
        read: &Read,
        names: &mut crate::names::Names,
    ) -> TokenStream {
        let base = &read.base;
        let key = format!("{base} [{}]", read.start.tokens());
        let slice = match self.reads.get(&key) {
            Some(slice) => slice.clone(),
            None => {
                let slice = names.fresh("s");
                let run = range(&read.start, &self.len);
                self.decls.extend([quote!(let #slice = &#base #run;)]);
                self.reads.insert(key, slice.clone());
                slice
            }
        };
        let local = &self.local;
        quote!(#slice[#local])
    }

    /// The loop `for pat in lo..hi { body }`, inside `if lo < hi` with the
    /// slices before it (if any were taken).
    pub(super) fn wrap(
        &self,
        pat: &TokenStream,
        range: &TokenStream,
        body: TokenStream,
    ) -> TokenStream {
        let (lo, hi, decls) = (&self.lo, &self.hi, &self.decls);
        if decls.is_empty() {
            return quote!(for #pat in #range { #body });
        }
        quote! {
            if #lo < #hi {
                #decls
                for #pat in #range {
                    #body
                }
            }
        }
    }
}

/// `[start..][..len]`, or `[..len]` from `0`.
fn range(start: &Start, len: &TokenStream) -> TokenStream {
    match start {
        Start::Zero => quote!([..#len]),
        Start::At(start) => quote!([#start..][..#len]),
    }
}

#[cfg(test)]
mod tests {
    use crate::expand::backward_of as backward;

    #[test]
    fn buffers_and_parameters_are_sliced_before_the_loop() {
        let code = backward(
            "fn f(#[tracked] w: &[f64], x: &[f64], n: usize) -> f64 {
                let d = w.len();
                let mut t = 0.0;
                for i in 0..n {
                    let mut z = 0.0;
                    for j in 1..d {
                        z += w[j - 1] * x[i * d + j];
                    }
                    t += z.tanh();
                }
                t
            }",
        );
        assert!(code.contains("if 1 < d {"), "{code}");
        assert!(code.contains("= & mut (* d_w) [.. d - 1] ;"), "{code}");
        assert!(code.contains("= & x [i * d + 1 ..] [.. d - 1] ;"), "{code}");
        assert!(code.contains("[j - 1] +="), "{code}");
        // the reverse reads `x` through its slice only: the user's read is
        // in the forward loop's two copies (with runs and without)
        assert_eq!(code.matches("x [i * d + j]").count(), 2, "{code}");
    }

    #[test]
    fn other_types_and_indices_are_not() {
        // `x`'s type is not written as a slice; `y` is indexed by `2 * j`;
        // `v`'s type is not seen
        let code = backward(
            "fn f(#[tracked] w: &[f64], x: &Data, y: &[f64], n: usize) -> f64 {
                let v = ones(8);
                let mut t = 0.0;
                for i in 0..n {
                    let mut z = 0.0;
                    for j in 0..N4 {
                        z += w[j] * x[j] * y[2 * j] * v[j];
                    }
                    t += z.tanh();
                }
                t
            }",
        );
        assert!(code.contains("= & mut (* d_w) [.. N4] ;"), "{code}");
        assert!(!code.contains("& x ["), "{code}");
        assert!(!code.contains("& y ["), "{code}");
        assert!(!code.contains("& v ["), "{code}");
    }

    #[test]
    fn recorded_parameters_and_local_vecs_are_read_through_slices() {
        let code = backward(
            "fn f(#[tracked] w: &[f64], x: &[f64]) -> f64 {
                let mut h = vec![0.0; 4];
                for j in 0..N4 {
                    h[j] = (w[j] * x[j]).tanh();
                }
                let mut t = 0.0;
                for k in 0..N2 {
                    let mut s = 0.0;
                    for i in 0..N4 {
                        s += w[k * 4 + i] * h[i];
                    }
                    t = t * 0.5 + s * s;
                }
                t
            }",
        );
        assert!(code.contains("= & h [.. N4] ;"), "{code}");
        assert!(code.contains("= & w [k * 4 ..] [.. N4] ;"), "{code}");
        // the index temporary `k * 4 + i` is not written in the reverse
        assert_eq!(code.matches("= k * 4 + i ;").count(), 1, "{code}");
    }

    #[test]
    fn neighbours_share_one_slice() {
        let code = backward(
            "fn f(#[tracked] q: &[f64], n: usize) -> f64 {
                let mut t = 0.0;
                for _ in 0..n {
                    let mut z = 0.0;
                    for i in 2..q.len() - 2 {
                        z += q[i - 2] * q[i + 2] - q[i];
                    }
                    t += z.sin();
                }
                t
            }",
        );
        // (no two of them neighbours, so no slope waits in a register)
        assert!(
            code.contains("= & mut (* d_q) [.. (q . len () - 2) - 2 + 4] ;"),
            "{code}"
        );
        for place in ["[i - 2]", "[i - 2 + 4]", "[i - 2 + 2]"] {
            assert!(code.contains(place), "{place}: {code}");
        }
    }

    #[test]
    fn only_half_open_ranges_read_again_are() {
        // `k` changes after the loop: its range is kept, not read again
        for (range, sliced) in [("0..w.len()", true), ("0..=3", false), ("0..k", false)] {
            let code = backward(&format!(
                "fn f(#[tracked] w: &[f64]) -> f64 {{
                    let mut k = 3;
                    let mut t = 0.0;
                    for _ in 0..N2 {{
                        let mut z = 0.0;
                        for j in {range} {{
                            z += w[j] * w[j];
                        }}
                        t += z.sin();
                    }}
                    k += 1;
                    t + k as f64
                }}"
            ));
            assert_eq!(
                code.contains("= & mut (* d_w) ["),
                sliced,
                "{range}: {code}"
            );
        }
    }
}
