//! One run for a whole nest of constant loops.
//!
//! In a nest over constant ranges, as a small model's layers are written,
//!
//! ```text
//! for i in 0..H {
//!     for j in 0..H {
//!         z += w[i * H + j] * h[j];
//!     }
//! }
//! ```
//!
//! the run of `w[i * H + j]` that `fast.rs` takes for the inner loop is
//! one row, taken again for each `i`: a checked product, a test of the
//! array's length and one of the run's, in every row. The rows are the
//! run `0..(H - 1) * H + H` of `w`: taken once before the outer loop, the
//! read goes through it at its own index, which the compiler sees is below
//! the run's length (`i < H`, `j < H`, all constants):
//!
//! ```text
//! let __mica_run1 = run_span(&w[..], span);   // Option<&[f64]>
//! for i in 0..H {
//!     for j in 0..H {
//!         z += match __mica_run1 { Some(s) => s[i * H + j], None => w[i * H + j] } * h[j];
//!     }
//! }
//! ```
//!
//! As with every run, the read is the user's own where the run is not all
//! there, so it panics where and as the primal does; the run reaches every
//! element the nest may read, and more only where the outer loop stops
//! early (then it is `None` or the reads are in it all the same).
//!
//! Taken, instead of the inner loop's run, for a read that `fast.rs` takes
//! a run of, where all of:
//!
//! - the inner loop and a loop around it (the nearest with a run of its
//!   own) both start at `0` and end at a literal or a `const` item;
//! - the read's index is the inner loop's variable plus `i * K` or
//!   `K * i`, `i` the outer loop's variable (which its body never changes)
//!   and `K` a literal or a `const` item (read as a constant loop's end is,
//!   `for_loops.rs`, `capped_constant`).
//!
//! With ends or a `K` known only at run time the compiler cannot see the
//! index below the length, and a run per row (`fast.rs`) is faster.

use super::Sweep;
use crate::facts::syntax::strip;
use proc_macro2::{Ident, TokenStream};
use quote::{quote, ToTokens};
use syn::{BinOp, Expr};

impl Sweep<'_> {
    /// The run of a nest for `base[index]`, a read of the array `name`
    /// whose index is the variable of `self.fast[at]` plus `e`, and the
    /// index's place in it (the index itself: the run starts at `0`).
    pub(super) fn nest_slice(
        &mut self,
        at: usize,
        name: &str,
        base: &Expr,
        index: &Expr,
        e: &Expr,
    ) -> Option<(Ident, TokenStream)> {
        let outer = at.checked_sub(1)?;
        let (o, inner) = (&self.fast[outer], &self.fast[at]);
        if !(o.zero && o.constant && inner.zero && inner.constant) {
            return None;
        }
        let Expr::Binary(product) = strip(e) else {
            return None;
        };
        if !matches!(product.op, BinOp::Mul(_)) {
            return None;
        }
        let is_var = |e: &Expr| matches!(strip(e), Expr::Path(p) if p.path.is_ident(&o.var));
        let k = match (&*product.left, &*product.right) {
            (v, k) if is_var(v) => k,
            (k, v) if is_var(v) => k,
            _ => return None,
        };
        // a literal or a `const` item, as a constant loop's end is
        self.capped_constant(k, 0)?;
        let (hi, inner_hi, k) = (&o.hi, &inner.hi, k.to_token_stream());
        let key = (name.to_string(), format!("{k} {inner_hi}"));
        let local = index.to_token_stream();
        if let Some(slice) = o.nests.get(&key) {
            return Some((slice.clone(), local));
        }
        let span = quote! {
            ::mica::__private::index_add(
                ::mica::__private::index_mul(
                    ::mica::__private::index_sub(
                        ::mica::__private::index(#hi),
                        ::core::option::Option::Some(1),
                    ),
                    ::mica::__private::index(#k),
                ),
                ::mica::__private::index(#inner_hi),
            )
        };
        let slice = self.take_run(outer, base, Taken::Span(span));
        self.fast[outer].nests.insert(key, slice.clone());
        Some((slice, local))
    }

    /// A new run of `base`, taken before the loop `self.fast[at]`.
    pub(super) fn take_run(&mut self, at: usize, base: &Expr, taken: Taken) -> Ident {
        let slice = self.names.fresh("run");
        self.fast[at]
            .decls
            .push((slice.clone(), quote!(#base[..]), taken));
        slice
    }
}

/// How a run is taken before its loop.
pub(super) enum Taken {
    /// `x[start..]` for the loop's range `lo..hi`: its start
    Start(TokenStream),
    /// `x[..len]` for a nest: its length
    Span(TokenStream),
}

impl Taken {
    /// The run of `array` (written `base[..]`), for a loop over `lo..hi`.
    pub(super) fn run(
        &self,
        array: &TokenStream,
        lo: &TokenStream,
        hi: &TokenStream,
    ) -> TokenStream {
        match self {
            Taken::Start(start) => quote!(::mica::__private::run(&#array, #start, #lo, #hi)),
            Taken::Span(span) => quote!(::mica::__private::run_span(&#array, #span)),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::expand::backward_of as backward;

    /// A dense layer `w[index]` over `rows × 0..cols`.
    fn layer(rows: &str, cols: &str, index: &str) -> String {
        backward(&format!(
            "fn f(#[tracked] w: &[f64], x: &[f64], n: usize) -> f64 {{
                let mut t = 0.0;
                for i in {rows} {{
                    let mut z = 0.0;
                    for j in 0..{cols} {{
                        z += w[{index}] * x[j];
                    }}
                    t += z.tanh() * n as f64;
                }}
                t
            }}"
        ))
    }

    #[test]
    fn a_nest_of_constant_loops_takes_one_run() {
        for (index, at) in [
            ("i * K4 + j", "i * K4 + j"),
            ("j + i * K4", "j + i * K4"),
            ("K4 * i + j", "K4 * i + j"),
            ("i * 5 + j", "i * 5 + j"),
        ] {
            let code = layer("0..R3", "K4", index);
            assert!(code.contains("run_span (& w [..]"), "{index}: {code}");
            // the read goes through the nest's run at its own index
            assert!(
                code.contains(&format!("__mica_s [{at}]")),
                "{index}: {code}"
            );
            // `x[j]`'s run is the inner loop's own
            assert!(
                code.contains("run (& x [..] , :: core :: option :: Option :: Some (0) , 0 , K4)"),
                "{code}"
            );
        }
    }

    #[test]
    fn other_nests_keep_a_run_per_row() {
        for (rows, cols, index, why) in [
            ("0..n", "K4", "i * K4 + j", "rows counted at run time"),
            ("0..R3", "n", "i * K4 + j", "columns counted at run time"),
            ("0..R3", "K4", "i * n + j", "a stride known at run time"),
            (
                "0..R3",
                "K4",
                "i * i + j",
                "a stride that is the row's index",
            ),
            (
                "0..R3",
                "K4",
                "(i + 1) * K4 + j",
                "a start not the row times a stride",
            ),
            ("1..R3", "K4", "i * K4 + j", "rows not from 0"),
        ] {
            let code = layer(rows, cols, index);
            assert!(!code.contains("run_span"), "{why}: {code}");
        }
    }
}
