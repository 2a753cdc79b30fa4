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
//! Taken for a loop over a half-open range whose ends are read again (see
//! `RangeSource::Again`), whose body is straight-line code with every index
//! read again (see [`Access`]), and, per array:
//!
//! - every access has the same indices before the last, free of the loop
//!   variable, and as the last either the loop variable shifted by integer
//!   literals (`j`, `j + 1`, `j - 2`) or one shift by the same amount
//!   everywhere (`j + e`, `e + j`, `j - e`);
//! - for an adjoint buffer: the array is not made inside the loop (its
//!   buffer is declared before it);
//! - for an element read again (`x[i * d + j]`, or `w[c]` with `c` itself
//!   read again as `k * n + j`): the array is a stable parameter whose type
//!   is written as slices, arrays or `Vec`s deep enough for its indices, or
//!   a top-level `let` bound once to `vec![…]` or an array literal (so it
//!   can be indexed by a range). The element then needs no temporaries of
//!   its own.
//!
//! The run's elements are consecutive: a shifted index that wrapped around
//! would have passed `usize::MAX`, which no slice reaches.

use super::forward::Access;
use super::Gen;
use crate::facts::syntax::{shift, strip, Shift};
use crate::record::{Loop, RangeSource};
use proc_macro2::{Ident, TokenStream};
use quote::{quote, ToTokens};
use std::collections::HashMap;
use syn::Expr;

/// A sliced buffer's last indices (as text) → their places in the slice.
pub(super) type Places = HashMap<String, TokenStream>;

/// The slices of one loop's reverse.
pub(super) struct Slicing {
    var: String,
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
    /// elements read again from a slice: base and start → the slice
    reads: HashMap<String, Ident>,
}

impl Gen<'_, '_> {
    /// Slices the adjoint buffers `l`'s body indexes (see the module's
    /// documentation); the body's accesses to them go through the slices
    /// until [`Self::close_slices`].
    pub(super) fn open_slices(&mut self, l: &Loop, access: &Access) -> Option<Slicing> {
        let (pat, RangeSource::Again(range)) = l.range.as_ref()? else {
            return None;
        };
        let Ok(Expr::Range(range)) = syn::parse2::<Expr>(range.clone()) else {
            return None;
        };
        if !matches!(range.limits, syn::RangeLimits::HalfOpen(_)) {
            return None;
        }
        let lo = range.start.as_deref()?.to_token_stream();
        let hi = range.end.as_deref()?.to_token_stream();
        let (lo_term, hi_term) = (term(&lo), term(&hi));
        let (len, local) = if lo.to_string() == "0" {
            (hi.clone(), pat.clone())
        } else {
            (quote!(#hi_term - #lo_term), quote!(#pat - #lo_term))
        };
        let mut slicing = Slicing {
            var: pat.to_string(),
            lo: lo_term,
            hi: hi_term,
            len,
            local,
            decls: TokenStream::new(),
            arrays: Vec::new(),
            reads: HashMap::new(),
        };
        for (&array, accesses) in &access.arrays {
            if matches!(self.sweep.arrays[array].local, Some((r, _)) if r == l.region) {
                continue;
            }
            // one row: the same indices before the last, free of the variable
            let key = |p: &[TokenStream]| p.iter().map(ToString::to_string).collect::<Vec<_>>();
            let Some((_, prefix)) = accesses.first().and_then(|a| a.split_last()) else {
                continue;
            };
            let one_row = accesses
                .iter()
                .all(|a| a.split_last().is_some_and(|(_, p)| key(p) == key(prefix)));
            if !one_row || prefix.iter().any(|p| slicing.mentions_var(p)) {
                continue;
            }
            let lasts: Vec<&TokenStream> = accesses.iter().filter_map(|a| a.last()).collect();
            let Some((run, places)) = slicing.run_of(&lasts) else {
                continue;
            };
            let acc = self.sweep.arrays[array].acc.clone();
            let slice = self.sweep.names.fresh("s");
            slicing.decls.extend([quote! {
                let #slice = &mut #acc #([#prefix])* #run;
            }]);
            self.sliced.insert(array, (slice, places));
            slicing.arrays.push(array);
        }
        Some(slicing)
    }

    /// The body's accesses to the buffers go back to the buffers.
    pub(super) fn close_slices(&mut self, slicing: &Slicing) {
        for array in &slicing.arrays {
            self.sliced.remove(array);
        }
    }

    /// An element of an array's adjoint buffer: through its slice inside a
    /// sliced loop.
    pub(super) fn element(
        &mut self,
        array: usize,
        indices: &[crate::record::Operand],
    ) -> TokenStream {
        if let Some((slice, places)) = self.sliced.get(&array) {
            let last = match indices.last() {
                Some(crate::record::Operand::Stored(id)) => self.sweep.values[*id]
                    .recompute
                    .as_ref()
                    .map(ToString::to_string),
                _ => None,
            };
            if let Some(place) = last.and_then(|last| places.get(&last)) {
                return quote!(#slice[#place]);
            }
        }
        let indices: Vec<TokenStream> = indices.iter().map(|i| self.operand(i)).collect();
        let acc = &self.sweep.arrays[array].acc;
        quote!(#acc #([#indices])*)
    }
}

impl Slicing {
    /// `expr` read again in the loop, through a slice if it is an element
    /// of a sliceable parameter at the shifted loop variable.
    /// `index`, when given, is a temporary the expression indexes by and
    /// that temporary's own expression, read in its place.
    pub(super) fn read_again(
        &mut self,
        expr: &TokenStream,
        index: Option<(Ident, TokenStream)>,
        stability: Option<&crate::facts::stability::Stability>,
        names: &mut crate::names::Names,
    ) -> Option<TokenStream> {
        let parsed: Expr = syn::parse2(expr.clone()).ok()?;
        let Expr::Index(indexed) = strip(&parsed) else {
            return None;
        };
        let mut at = indexed.index.to_token_stream();
        if let Some((temp, its_expr)) = index {
            if temp != at.to_string() {
                return None;
            }
            at = its_expr;
        }
        let start = self.start(&at)?;
        let index = indexed;
        let base = &index.expr;
        // `x`, `x[i]`, …: a sliceable parameter, one level left for the range
        let (root, depth) = root_of(base)?;
        if stability?.sliceable(&root) <= depth {
            return None;
        }
        let base = base.to_token_stream();
        if self.mentions_var(&base) {
            return None;
        }
        let key = format!("{base} [{start}]");
        let slice = match self.reads.get(&key) {
            Some(slice) => slice.clone(),
            None => {
                let slice = names.fresh("s");
                let run = self.run(start);
                self.decls.extend([quote!(let #slice = &#base #run;)]);
                self.reads.insert(key, slice.clone());
                slice
            }
        };
        let local = &self.local;
        Some(quote!(#slice[#local]))
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

    /// For an index that is the shifted loop variable: its value at the
    /// range's start (`lo + e` for `j + e`).
    fn start(&self, index: &TokenStream) -> Option<TokenStream> {
        let parsed: Expr = syn::parse2(index.clone()).ok()?;
        let lo = self.lo.clone();
        let zero = lo.to_string() == "0";
        Some(match shift(&parsed, &self.var)? {
            Shift::None => lo,
            Shift::Add(e, _) if zero => e.to_token_stream(),
            Shift::Add(e, true) => quote!(#lo + #e),
            Shift::Add(e, false) => quote!(#e + #lo),
            Shift::Sub(e) => quote!(#lo - #e),
        })
    }

    /// `[start..][..len]` for the range's length, or `[..len]` from `0`.
    fn run(&self, start: TokenStream) -> TokenStream {
        range(start, &self.len)
    }

    /// For the last indices of a buffer's accesses: the run they reach, as
    /// `[start..][..len]`, and each index's place in it. Either all are the
    /// loop variable shifted by integer literals (`i`, `i + 1`, `i - 1`: the
    /// run spans the smallest to the largest shift), or all are one shift
    /// by the same amount.
    fn run_of(&self, lasts: &[&TokenStream]) -> Option<(TokenStream, Places)> {
        let offsets: Option<Vec<i128>> = lasts.iter().map(|l| self.offset(l)).collect();
        if let Some(offsets) = offsets {
            let (min, max) = (*offsets.iter().min()?, *offsets.iter().max()?);
            let start = self.lo_shifted(min)?;
            let len = &self.len;
            let len = match max - min {
                0 => len.clone(),
                extra => {
                    let extra = literal(extra);
                    quote!(#len + #extra)
                }
            };
            let places = lasts
                .iter()
                .zip(&offsets)
                .map(|(last, k)| {
                    let local = &self.local;
                    let place = match k - min {
                        0 => local.clone(),
                        d => {
                            let d = literal(d);
                            quote!(#local + #d)
                        }
                    };
                    (last.to_string(), place)
                })
                .collect();
            return Some((range(start, &len), places));
        }
        let first = lasts.first()?.to_string();
        if lasts.iter().any(|l| l.to_string() != first) {
            return None;
        }
        let start = self.start(lasts[0])?;
        Some((self.run(start), Places::from([(first, self.local.clone())])))
    }

    /// For `var`, `var + k` or `var - k` with `k` an integer literal: the
    /// shift.
    fn offset(&self, index: &TokenStream) -> Option<i128> {
        let parsed: Expr = syn::parse2(index.clone()).ok()?;
        let int = |e: &Expr| match strip(e) {
            Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Int(i),
                ..
            }) => i.base10_parse::<i128>().ok(),
            _ => None,
        };
        match shift(&parsed, &self.var)? {
            Shift::None => Some(0),
            Shift::Add(e, _) => int(e),
            Shift::Sub(e) => int(e).map(|k| -k),
        }
    }

    /// `lo + k`, folded when `lo` is a literal; `None` where that would be
    /// negative (the forward sweep could not have read there).
    fn lo_shifted(&self, k: i128) -> Option<TokenStream> {
        let lo = &self.lo;
        if let Ok(syn::Lit::Int(l)) = syn::parse2::<syn::Lit>(lo.clone()) {
            let at = l.base10_parse::<i128>().ok()? + k;
            return (at >= 0).then(|| literal(at));
        }
        Some(match k {
            0 => lo.clone(),
            k if k > 0 => {
                let k = literal(k);
                quote!(#lo + #k)
            }
            k => {
                let k = literal(-k);
                quote!(#lo - #k)
            }
        })
    }

    fn mentions_var(&self, tokens: &TokenStream) -> bool {
        crate::names::mentions_ident(tokens, &self.var)
    }
}

/// `tokens`, parenthesised unless they are one token (an operator may stand
/// next to them).
fn term(tokens: &TokenStream) -> TokenStream {
    if tokens.clone().into_iter().count() == 1 {
        tokens.clone()
    } else {
        quote!((#tokens))
    }
}

/// `[start..][..len]`, or `[..len]` from `0`.
fn range(start: TokenStream, len: &TokenStream) -> TokenStream {
    if start.to_string() == "0" {
        quote!([..#len])
    } else {
        quote!([#start..][..#len])
    }
}

/// An unsuffixed integer literal.
fn literal(v: i128) -> TokenStream {
    proc_macro2::Literal::i128_unsuffixed(v).into_token_stream()
}

/// The parameter at the root of `x`, `x[i]`, `x[i][k]` and how many indices
/// lead from it to `base`.
fn root_of(base: &Expr) -> Option<(String, usize)> {
    match strip(base) {
        Expr::Path(p) => Some((p.path.get_ident()?.to_string(), 0)),
        Expr::Index(i) => root_of(&i.expr).map(|(root, depth)| (root, depth + 1)),
        _ => None,
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
        // the reverse reads `x` through its slice only
        assert_eq!(code.matches("x [i * d + j]").count(), 1, "{code}");
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
                    for j in 0..4 {
                        z += w[j] * x[j] * y[2 * j] * v[j];
                    }
                    t += z.tanh();
                }
                t
            }",
        );
        assert!(code.contains("= & mut (* d_w) [.. 4] ;"), "{code}");
        assert!(!code.contains("& x ["), "{code}");
        assert!(!code.contains("& y ["), "{code}");
        assert!(!code.contains("& v ["), "{code}");
    }

    #[test]
    fn recorded_parameters_and_local_vecs_are_read_through_slices() {
        let code = backward(
            "fn f(#[tracked] w: &[f64], x: &[f64]) -> f64 {
                let mut h = vec![0.0; 4];
                for j in 0..4 {
                    h[j] = (w[j] * x[j]).tanh();
                }
                let mut t = 0.0;
                for k in 0..2 {
                    let mut s = 0.0;
                    for i in 0..4 {
                        s += w[k * 4 + i] * h[i];
                    }
                    t = t * 0.5 + s * s;
                }
                t
            }",
        );
        assert!(code.contains("= & h [.. 4] ;"), "{code}");
        assert!(code.contains("= & w [k * 4 ..] [.. 4] ;"), "{code}");
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
                    for i in 2..q.len() - 1 {
                        z += q[i - 2] * q[i + 1] - q[i];
                    }
                    t += z.sin();
                }
                t
            }",
        );
        assert!(
            code.contains("= & mut (* d_q) [.. (q . len () - 1) - 2 + 3] ;"),
            "{code}"
        );
        for place in ["[i - 2]", "[i - 2 + 3]", "[i - 2 + 2]"] {
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
                    for _ in 0..2 {{
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
