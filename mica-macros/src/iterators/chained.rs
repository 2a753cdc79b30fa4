//! Chains joined: `x.iter().chain(y.iter())`, one loop over both arrays;
//! `x.iter().zip(a.iter().zip(b))`, a chain zipped with a chain.

use super::chain::{elem_expr, err, is_zero, paren, unparen, Elem, Seq};
use super::{place_or_slice, Chains};
use proc_macro2::Ident;
use syn::Expr;

/// What a chain Mica does not follow can be written as instead.
const EACH_PART: &str = "write a loop over each part: `for v in x.iter() { total += …; } for v in y.iter() { total += …; }`";

impl Chains {
    /// `.chain(y.iter())` (or `&y`, a part `&y[a..b]`, through `.copied()`
    /// or `.cloned()`) of a loop with no adapter yet: one loop over both,
    /// `for k in 0..n + m`, its element `x`'s while `k < n` and `y[k - n]`
    /// after, bound once at the top of each iteration.
    pub(super) fn chained(
        &mut self,
        seq: &mut Seq,
        method: &Ident,
        other: &Expr,
    ) -> syn::Result<()> {
        if seq.filtered.is_some()
            || seq.rev
            || seq.step.is_some()
            || !seq.prelude.is_empty()
            || matches!(seq.elem, Elem::Tuple(_))
        {
            return Err(syn::Error::new_spanned(
                method,
                format!("`.chain(…)` after `map`, `filter`, `zip`, `enumerate`, `rev` or `step_by` over recorded values is not supported yet; {EACH_PART}"),
            ));
        }
        let mut y = unparen(other);
        while let Expr::MethodCall(c) = y {
            let name = c.method.to_string();
            let through = matches!(name.as_str(), "iter" | "into_iter" | "copied" | "cloned");
            if !through || !c.args.is_empty() {
                break;
            }
            y = unparen(&c.receiver);
        }
        let Some((y, start, len)) = place_or_slice(y) else {
            return Err(syn::Error::new_spanned(
                other,
                format!("`.chain(…)` over recorded values follows an array, a slice or a part of one (`y.iter()`, `&y[a..b]`), not this; {EACH_PART}"),
            ));
        };
        let (n, k, e) = (self.fresh("n"), self.fresh("i"), self.fresh("e"));
        let (i, lo, hi, len) = (&seq.index, paren(&seq.lo), paren(&seq.hi), paren(&len));
        let x = elem_expr(&seq.elem);
        seq.before.push(syn::parse_quote!(
            let #n: usize = ::core::primitive::usize::saturating_sub(#hi, #lo);
        ));
        let at: Expr = match start {
            Some(s) => {
                let s = paren(&s);
                syn::parse_quote!(#s + (#k - #n))
            }
            None => syn::parse_quote!(#k - #n),
        };
        seq.prelude.push(syn::parse_quote!(
            let #e = if #k < #n { let #i = #lo + #k; #x } else { #y[#at] };
        ));
        seq.order_free += 1;
        seq.index = k;
        seq.lo = syn::parse_quote!(0);
        seq.hi = syn::parse_quote!(#n + #len);
        // (in parentheses: not a name a closure's `*v` would dereference)
        seq.elem = Elem::One(syn::parse_quote!((#e)));
        seq.adapted = true;
        Ok(())
    }

    /// `seq.zip(other)` where `other` is a chain of its own
    /// (`a.iter().zip(b)`, `a.iter().map(f)`, `a.iter().rev()`): walked at
    /// the same position, its index worked out from `seq`'s at the top of
    /// each iteration; refused where its positions are not closed forms
    /// (`filter`, an `enumerate` counted as the elements come).
    pub(super) fn zip_chain(&mut self, mut seq: Seq, other: &Expr) -> syn::Result<Option<Seq>> {
        let Some(o) = self.seq(other)? else {
            return Err(err(other, "`.zip(…)` of a chain"));
        };
        if o.filtered.is_some() || o.prelude.len() > o.order_free {
            return Err(err(other, "`.zip(…)` of a filtered chain"));
        }
        let (i, lo, hi) = (&seq.index, paren(&seq.lo), paren(&seq.hi));
        let at: Expr = match is_zero(&seq.lo) {
            true => syn::parse_quote!(#i),
            false => syn::parse_quote!(#i - #lo),
        };
        let (oi, olo, ohi) = (&o.index, paren(&o.lo), paren(&o.hi));
        let len = o.count();
        let position: Expr = match (&o.step, o.rev) {
            (None, false) if is_zero(&o.lo) => at,
            (None, false) => syn::parse_quote!(#olo + #at),
            (None, true) => syn::parse_quote!(#ohi - 1 - #at),
            (Some(s), false) => {
                let s = paren(s);
                syn::parse_quote!(#olo + #at * #s)
            }
            // (`seq` refuses `rev` and `step_by` together)
            (Some(_), true) => return Err(err(other, "`.zip(…)` of a chain")),
        };
        seq.hi = match is_zero(&seq.lo) {
            true => syn::parse_quote!(::core::primitive::usize::min(#hi, #len)),
            false => syn::parse_quote!(::core::primitive::usize::min(#hi, #lo + #len)),
        };
        seq.before.extend(o.before);
        seq.prelude.push(syn::parse_quote!(let #oi = #position;));
        seq.order_free += 1 + o.prelude.len();
        seq.prelude.extend(o.prelude);
        seq.elem = Elem::Tuple(vec![seq.elem.clone(), o.elem]);
        seq.adapted = true;
        Ok(Some(seq))
    }
}
