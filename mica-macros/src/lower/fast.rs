//! Forward-sweep reads without bounds checks, where the loop proves them.
//!
//! In a loop over a range, a read at the loop variable shifted by a
//! loop-invariant amount reaches one run of elements:
//!
//! ```text
//! for j in lo..hi {
//!     z += w[j] * x[i * d + j];
//! }
//! ```
//!
//! The forward sweep takes each run as a slice before the loop, if every
//! element of it is there, and reads through it by `j - lo`, which the
//! compiler sees is below the slice's length:
//!
//! ```text
//! let __mica_run1 = run(&w[..], Some(lo), lo, hi);    // Option<&[f64]>
//! let __mica_run2 = run(&x[..], index_add(Some(lo), index_mul(index(i), index(d))), lo, hi);
//! for j in lo..hi {
//!     z += match __mica_run1 { Some(s) => s[j - lo], None => w[j] }
//!        * match __mica_run2 { Some(s) => s[j - lo], None => x[i * d + j] };
//! }
//! ```
//!
//! When a run is not all there, the read is the user's own, so it panics
//! where and as the primal does. Taking the slice never panics: the start
//! is worked out with checked arithmetic, `None` where the primal's index
//! would overflow (which it may never work out, in a branch not taken or a
//! loop that does not run). In release builds the optimiser
//! moves the `match` out of the loop (the slice is the same in every
//! iteration), leaving a copy of the loop that reads slices only.
//!
//! Taken in the function form only, for a read that is, all of:
//!
//! - in a loop `for j in lo..hi` whose ends are pure (see `Stability`) and
//!   whose variable is its counter (the body neither rebinds nor assigns
//!   it: `LoopFacts::var`); nested in another loop, if it writes no
//!   recorded element and its range is not constant, only when the range
//!   is long (`FastLoop::around` says why);
//! - of a name that is stable or frozen (nothing changes it from here on),
//!   whose type is written as one level of slice, array or `Vec` (or that
//!   is bound once to `vec![…]` or an array literal), of recorded values or
//!   of primitive numbers: a read of it is a `Copy` value;
//! - at `j`, `j + e`, `e + j` or `j - e`, read as a linear form in `j`
//!   (`facts/loops.rs`) whose coefficient of `j` is 1 and whose other terms
//!   are names the body never changes, with `e` pure and made of `+`, `-`
//!   and `*` over names, integer literals, fields, casts and `.len()` (so
//!   it can be worked out before the loop without panicking);
//! - a value: not borrowed, not a method's receiver, not written.
//!
//! The loop is the innermost one whose variable the index mentions. Code
//! lowered only to be thrown away gives back the slices it took.

use super::nests::Taken;
use super::Sweep;
use crate::facts::loops::{linear, Linear};
use crate::facts::places::names_any;
use crate::facts::stability::Stability;
use crate::facts::syntax::{shift, strip, term, token_count, Shift};
use proc_macro2::{Ident, TokenStream};
use quote::{quote, ToTokens};
use std::collections::HashMap;
use syn::Expr;

/// A loop over a range whose forward reads may go through slices.
pub(super) struct FastLoop {
    pub(super) var: String,
    /// what the loop's syntax says: its subscripts are read as linear
    /// forms against it
    facts: crate::facts::loops::LoopFacts,
    /// the range's ends, parenthesised where an operator is next to them
    lo: TokenStream,
    pub(super) hi: TokenStream,
    /// the loop variable's place in a slice: `j`, or `j - lo`
    local: TokenStream,
    /// whether `lo` is `0`
    pub(super) zero: bool,
    /// whether the range ends at a literal or a `const` item
    pub(super) constant: bool,
    /// the slices, in order: name, the array (`base[..]`) and the run's
    /// start, or for a nest's run (`nests.rs`) its length
    pub(super) decls: Vec<(Ident, TokenStream, Taken)>,
    /// the runs of the nests this loop is the outer loop of: the array's
    /// name and the span's key → the slice
    pub(super) nests: HashMap<(String, String), Ident>,
    /// the base's name and the index's linear form less the variable → the
    /// slice
    slices: HashMap<(String, Linear), Ident>,
}

impl FastLoop {
    /// For `for var in range`, if the range is `lo..hi`; `constant` if it
    /// ends at a literal or a `const` item.
    pub(super) fn new(
        var: &Ident,
        range: &Expr,
        facts: &crate::facts::loops::LoopFacts,
        constant: bool,
    ) -> Option<Self> {
        // the variable is the loop's counter
        if facts.var.as_deref() != Some(var.to_string().as_str()) {
            return None;
        }
        let Expr::Range(range) = strip(range) else {
            return None;
        };
        if !matches!(range.limits, syn::RangeLimits::HalfOpen(_)) {
            return None;
        }
        let lo = term(range.start.as_deref()?);
        let hi = term(range.end.as_deref()?);
        let zero = lo.to_string() == "0";
        let local = if zero {
            var.to_token_stream()
        } else {
            quote!(#var - #lo)
        };
        Some(FastLoop {
            var: var.to_string(),
            facts: facts.clone(),
            lo,
            hi,
            local,
            zero,
            constant,
            decls: Vec::new(),
            slices: HashMap::new(),
            nests: HashMap::new(),
        })
    }

    /// The loop `looped`, its slices declared before it. With `long_only`
    /// each is taken only for a range of at least `LONG_RUN` elements, and
    /// is `None` (every read as written) for a shorter one.
    ///
    /// That is for a loop nested in another, which takes its runs each time
    /// it starts, that writes no recorded element and runs over a range not
    /// constant (a dot product, a distance). A very short range loses by
    /// the runs: in k-means' loop over its centres, a 2-element distance
    /// made the whole gradient 1.7 times the hand adjoint's time with runs
    /// and 1.4 times with them taken only from `mica::__private::LONG_RUN`
    /// (4) elements on. Longer ranges gain (an 8-element dot product, a
    /// 100-element one), and the price of leaving the runs out there is
    /// higher than the test's. A loop that writes elements (which runs may
    /// let the compiler vectorise), one at the top level (its runs taken
    /// once) and one over a constant range (unrolled, its runs checked
    /// once) take them always.
    ///
    /// A short enough loop with `long_only` is written twice, one copy with
    /// the runs and one with none, chosen once where it starts: in the copy
    /// without, every read's test of its run folds away, and the loop is
    /// the one the user wrote. (Left to the compiler, the test stays in the
    /// loop: k-means, whose distances run over 2 elements, took 1.34 times
    /// the hand adjoint's time with it and 1.19 without any runs.)
    pub(super) fn around(&self, looped: TokenStream, long_only: bool) -> TokenStream {
        let (lo, hi) = (&self.lo, &self.hi);
        if long_only && !self.decls.is_empty() && token_count(&looped) <= TWICE_TOKENS {
            let taken = self.decls.iter().map(|(slice, array, taken)| {
                let run = taken.run(array, lo, hi);
                quote!(let #slice = #run;)
            });
            let none = self
                .decls
                .iter()
                .map(|(slice, array, _)| quote!(let #slice = ::mica::__private::no_run(&#array);));
            return quote! {
                if ::mica::__private::long_run(#lo, #hi) {
                    #(#taken)*
                    #looped
                } else {
                    #(#none)*
                    #looped
                }
            };
        }
        let runs = self.decls.iter().map(|(slice, array, taken)| {
            let run = taken.run(array, lo, hi);
            match long_only {
                true => quote! {
                    let #slice = match ::mica::__private::long_run(#lo, #hi) {
                        true => #run,
                        false => ::core::option::Option::None,
                    };
                },
                false => quote!(let #slice = #run;),
            }
        });
        quote!(#(#runs)* #looped)
    }
}

/// The largest loop, in tokens, written twice by [`FastLoop::around`]: a
/// loop nested in such a loop and itself written twice counts twice, so
/// the code grows by a bounded amount, never by a power of the depth.
const TWICE_TOKENS: usize = 1500;

/// How many slices each open loop had: code lowered after it and then
/// thrown away gives back the slices it took (see [`Sweep::fast_rollback`]).
pub(super) struct FastMark(Vec<usize>);

impl Sweep<'_> {
    /// The open loops' slices, to go back to with [`Self::fast_rollback`].
    pub(super) fn fast_mark(&self) -> FastMark {
        FastMark(self.fast.iter().map(|l| l.decls.len()).collect())
    }

    /// Forgets the slices taken since `mark`: the code that read through
    /// them was thrown away.
    pub(super) fn fast_rollback(&mut self, mark: FastMark) {
        for (l, len) in self.fast.iter_mut().zip(mark.0) {
            for (slice, _, _) in l.decls.drain(len..) {
                l.slices.retain(|_, s| *s != slice);
                l.nests.retain(|_, s| *s != slice);
            }
        }
    }

    /// `original` (the read `base[index]` as the forward sweep writes it)
    /// through a slice of the loop that proves it, if there is one.
    /// `recorded`: `base`'s elements are recorded values (so scalars).
    pub(super) fn fast_read(
        &mut self,
        base: &Expr,
        index: &Expr,
        original: &TokenStream,
        recorded: bool,
    ) -> Option<TokenStream> {
        let (slice, local) = self.fast_slice(base, index, recorded)?;
        let s = crate::names::internal("__mica_s");
        Some(quote! {
            match #slice {
                ::core::option::Option::Some(#s) => #s[#local],
                ::core::option::Option::None => #original,
            }
        })
    }

    /// A constant expression as the forward sweep writes it: its reads of
    /// scalar rows (see the module's documentation) through slices.
    pub(super) fn fast_constant(&mut self, expr: &Expr) -> TokenStream {
        if self.fast.is_empty() || !has_index(expr) {
            return expr.to_token_stream();
        }
        let mut expr = expr.clone();
        Rewrite { sweep: self }.value(&mut expr);
        expr.to_token_stream()
    }

    /// The slice for `base[index]` and the index's place in it.
    fn fast_slice(
        &mut self,
        base: &Expr,
        index: &Expr,
        recorded: bool,
    ) -> Option<(Ident, TokenStream)> {
        let stability: &Stability = self.stability.as_ref()?;
        let Expr::Path(p) = strip(base) else {
            return None;
        };
        let name = p.path.get_ident()?.to_string();
        let row = if recorded {
            stability.sliceable(&name) == 1
        } else {
            stability.scalar_row(&name)
        };
        if !row || !stability.pure(base) {
            return None;
        }
        let at = self
            .fast
            .iter()
            .rposition(|l| names_any(index, |i| *i == l.var))?;
        let l = &self.fast[at];
        // the variable, once, plus terms the loop does not change
        let form = linear(index, &l.facts).filter(|f| f.var == 1)?;
        let shift = shift(index, &l.var)?;
        // a nest of constant loops: one run for all of it (`nests.rs`)
        if let Shift::Add(e) = &shift {
            if let Some(found) = self.nest_slice(at, &name, base, index, e) {
                return Some(found);
            }
        }
        let stability: &Stability = self.stability.as_ref()?;
        let l = &self.fast[at];
        // the same base and the same rest: the same slice
        let key = (name, form);
        let local = l.local.clone();
        if let Some(slice) = l.slices.get(&key) {
            return Some((slice.clone(), local));
        }
        let lo = &l.lo;
        let start = match shift {
            Shift::None => quote!(::core::option::Option::Some(#lo)),
            Shift::Add(e) => {
                let e = checked(e, stability)?;
                if l.zero {
                    e
                } else {
                    quote!(::mica::__private::index_add(::core::option::Option::Some(#lo), #e))
                }
            }
            Shift::Sub(e) => {
                let e = checked(e, stability)?;
                quote!(::mica::__private::index_sub(::core::option::Option::Some(#lo), #e))
            }
        };
        let slice = self.take_run(at, base, Taken::Start(start));
        self.fast[at].slices.insert(key, slice.clone());
        Some((slice, local))
    }
}

/// A shift `e`, worked out before the loop without panicking: `None`
/// where the primal's `e` would overflow (it may never work it out: the
/// loop may not run, the read may be in a branch not taken). `e` is pure
/// and made of `+`, `-` and `*` over names, literals, fields, casts of
/// those and `.len()`, none of which panics; its terms are `usize` or
/// `&usize` (they add to an index).
fn checked(e: &Expr, stability: &Stability) -> Option<TokenStream> {
    if !stability.pure(e) {
        return None;
    }
    fn terms(e: &Expr) -> Option<TokenStream> {
        match e {
            Expr::Paren(p) => terms(&p.expr),
            Expr::Group(g) => terms(&g.expr),
            Expr::Binary(b) => {
                let op = match b.op {
                    syn::BinOp::Add(_) => quote!(index_add),
                    syn::BinOp::Sub(_) => quote!(index_sub),
                    syn::BinOp::Mul(_) => quote!(index_mul),
                    _ => return None,
                };
                let (l, r) = (terms(&b.left)?, terms(&b.right)?);
                Some(quote!(::mica::__private::#op(#l, #r)))
            }
            leaf if panic_free(leaf) => Some(quote!(::mica::__private::index(#leaf))),
            _ => None,
        }
    }
    fn panic_free(e: &Expr) -> bool {
        match e {
            Expr::Lit(l) => matches!(l.lit, syn::Lit::Int(_)),
            Expr::Path(_) => true,
            Expr::Paren(p) => panic_free(&p.expr),
            Expr::Group(g) => panic_free(&g.expr),
            Expr::Field(f) => panic_free(&f.base),
            Expr::Cast(c) => panic_free(&c.expr),
            Expr::MethodCall(m) => {
                m.method == "len" && m.args.is_empty() && panic_free(&m.receiver)
            }
            _ => false,
        }
    }
    terms(e)
}

/// Rewrites the reads of a constant expression that are values. It goes
/// only through operators, casts, calls' arguments and indices: nothing that
/// binds a name (a closure, a block, a `match`) is entered, so the loop
/// variable means the loop's.
struct Rewrite<'s, 'a> {
    sweep: &'s mut Sweep<'a>,
}

impl Rewrite<'_, '_> {
    /// `e` is read as a value.
    fn value(&mut self, e: &mut Expr) {
        match e {
            Expr::Index(i) => {
                self.place(&mut i.expr);
                self.value(&mut i.index);
                let original = i.to_token_stream();
                if let Some(fast) = self.sweep.fast_read(&i.expr, &i.index, &original, false) {
                    *e = Expr::Verbatim(fast);
                }
            }
            _ => self.parts(e),
        }
    }

    /// `e` is a place (borrowed, indexed, a receiver): its own read stays.
    fn place(&mut self, e: &mut Expr) {
        match e {
            Expr::Index(i) => {
                self.place(&mut i.expr);
                self.value(&mut i.index);
            }
            _ => self.parts(e),
        }
    }

    fn parts(&mut self, e: &mut Expr) {
        match e {
            Expr::Binary(b) => {
                if crate::facts::syntax::is_compound(&b.op) {
                    self.place(&mut b.left);
                } else {
                    self.value(&mut b.left);
                }
                self.value(&mut b.right);
            }
            Expr::Unary(u) => self.value(&mut u.expr),
            Expr::Paren(p) => self.value(&mut p.expr),
            Expr::Group(g) => self.value(&mut g.expr),
            Expr::Cast(c) => self.value(&mut c.expr),
            Expr::Call(c) => c.args.iter_mut().for_each(|a| self.value(a)),
            Expr::MethodCall(m) => {
                self.place(&mut m.receiver);
                m.args.iter_mut().for_each(|a| self.value(a));
            }
            Expr::Field(f) => self.place(&mut f.base),
            Expr::Reference(r) => self.place(&mut r.expr),
            Expr::Tuple(t) => t.elems.iter_mut().for_each(|a| self.value(a)),
            Expr::Array(a) => a.elems.iter_mut().for_each(|a| self.value(a)),
            _ => {}
        }
    }
}

/// Whether `expr` indexes anything.
fn has_index(expr: &Expr) -> bool {
    struct Finder(bool);
    impl<'ast> syn::visit::Visit<'ast> for Finder {
        fn visit_expr_index(&mut self, _: &'ast syn::ExprIndex) {
            self.0 = true;
        }
    }
    let mut f = Finder(false);
    syn::visit::Visit::visit_expr(&mut f, expr);
    f.0
}

#[cfg(test)]
mod tests {
    use crate::expand::backward_of as backward;

    /// The forward sweep of `f`'s backward function: up to its first
    /// reverse loop or adjoint.
    fn forward(f: &str) -> String {
        let code = backward(f);
        let end = code.find("__mica_a").unwrap_or(code.len());
        code[..end].to_string()
    }

    #[test]
    fn reads_at_the_shifted_variable_go_through_runs() {
        let code = forward(
            "fn f(#[tracked] w: &[f64], x: &[f64], y: Vec<f32>, lo: usize, n: usize) -> f64 {
                let h = vec![0.5, 1.0, -2.0];
                let d = w.len();
                let mut t = 0.0;
                for i in 0..n {
                    for j in lo..d {
                        t += w[j] * x[i * d + j] * (y[j - 1] as f64) * h[2 + j];
                    }
                }
                // (read non-linearly: no loop is fused, and the forward
                // sweep ends where the reverse starts)
                t * t
            }",
        );
        for run in [
            "run (& w [..] , :: core :: option :: Option :: Some (lo) , lo , d)",
            "run (& x [..] , :: mica :: __private :: index_add (:: core :: option :: Option :: Some (lo) , \
             :: mica :: __private :: index_mul (:: mica :: __private :: index (i) , \
             :: mica :: __private :: index (d))) , lo , d)",
            "run (& y [..] , :: mica :: __private :: index_sub (:: core :: option :: Option :: Some (lo) , \
             :: mica :: __private :: index (1)) , lo , d)",
            "run (& h [..] , :: mica :: __private :: index_add (:: core :: option :: Option :: Some (lo) , \
             :: mica :: __private :: index (2)) , lo , d)",
        ] {
            assert!(code.contains(run), "{run}: {code}");
        }
        // nested in a loop, reading only, over a range not constant: the
        // loop written twice, chosen once by the range's length, its runs
        // taken in the copy for a long range and none in the other
        assert_eq!(
            code.matches("(__mica_s) => __mica_s [j - lo]").count(),
            8,
            "{code}"
        );
        // the user's read, where the run is not all there
        assert!(code.contains(":: None => x [i * d + j]"), "{code}");
        assert_eq!(
            code.matches("if :: mica :: __private :: long_run (lo , d) {")
                .count(),
            1,
            "{code}"
        );
        for array in ["w", "x", "y", "h"] {
            let none = format!(":: mica :: __private :: no_run (& {array} [..]) ;");
            assert_eq!(code.matches(&none).count(), 1, "{array}: {code}");
        }
    }

    #[test]
    fn runs_are_taken_for_short_ranges_where_they_pay() {
        // at the top level, writing elements, over a constant range: the
        // runs are taken whatever the range's length
        for (what, body) in [
            ("top level", "for j in 0..d { t += w[j] * x[j]; }"),
            (
                "writes",
                "for i in 0..n { for j in 0..d { out[j] = w[j] * x[i * d + j]; } t += out[0]; }",
            ),
            (
                "constant range",
                "for i in 0..n { for j in 0..N4 { t += w[j] * x[i * 4 + j]; } }",
            ),
        ] {
            let code = forward(&format!(
                "fn f(#[tracked] w: &[f64], x: &[f64], n: usize) -> f64 {{
                    let d = w.len();
                    let mut out = vec![0.0; 8];
                    let mut t = 0.0;
                    {body}
                    t
                }}"
            ));
            assert!(code.contains("run (& w [..]"), "{what}: {code}");
            assert!(!code.contains("long_run"), "{what}: {code}");
        }
    }

    #[test]
    fn other_reads_stay_as_written() {
        // `a`: not a slice type; `b`: not primitive elements; `c`: written
        // in the loop; `x[2 * j]`: not a shift; `x[j]` in a closure, as a
        // receiver and borrowed; `x[k + j]`: `k` changes in the loop;
        // `0..=3`: not half open; `v[j]`: `v` is rebound; `x[j + n / 2]`:
        // `/` may panic
        let code = forward(
            "fn f(#[tracked] w: &[f64], a: &Data, b: &[R], x: &[f64], n: usize) -> f64 {
                let mut c = vec![0.0; 4];
                let mut t = 0.0;
                let mut k = 0;
                for j in 0..N4 {
                    c[j] = 1.0;
                    t += w[j] * a[j] * b[j] * c[j] * x[2 * j] * x[k + j];
                    t += w[j] * (0..2).map(|i| x[i]).sum::<f64>() * x[j].abs() * *&x[j];
                    k += 1;
                }
                for j in 0..=N3 {
                    t += w[j] * x[j];
                }
                for j in 0..N4 {
                    t = t * x[j + n / 2];
                }
                let v = [1.0, 2.0];
                let v = [v[0], v[1], 3.0, 4.0];
                for j in 0..N4 {
                    t += w[j] * v[j];
                }
                t
            }",
        );
        for name in ["a", "b", "c", "x", "v"] {
            assert!(
                !code.contains(&format!("run (& {name} [..]")),
                "{name}: {code}"
            );
        }
        // `w` in the first loop only
        assert_eq!(code.matches("run (& w [..]").count(), 2, "{code}");
    }

    #[test]
    fn runs_of_code_thrown_away_are_not_taken() {
        // the array literal's elements are lowered once to learn whether
        // they are recorded, and thrown away
        let code = forward(
            "fn f(#[tracked] w: &[f64], x: &[f64]) -> f64 {
                let mut t = 0.0;
                for j in 0..N3 {
                    let a = [x[j], mica::detach(w[j])];
                    t += w[j] * a[0];
                }
                t
            }",
        );
        let declared = code.matches("let __mica_run").count();
        let read = code.matches("match __mica_run").count();
        assert_eq!(declared, read, "{code}");
        assert!(declared > 0, "{code}");
    }
}
