//! The slices verdict: which adjoint buffers and which elements read again
//! a loop's reverse reaches through slices taken before it. (What the
//! slices are and why they are in bounds: `reverse/slices.rs`.)
//!
//! Yes for a loop over a half-open range whose ends are read again (see
//! `RangeSource::Again`), whose body is straight-line code with every index
//! read again (see `plan/access.rs`). Every subscript is read as a linear
//! form in the loop's variable (`facts/loops.rs`); per array:
//!
//! - every access has the same indices before the last, each free of the
//!   loop variable, and as the last the loop variable plus terms that hold
//!   their value through the loop, the same terms in every access up to an
//!   integer (`j`, `j + 1`, `j - 2`; `j + e`, `e + j + 1`): the accesses
//!   span one run, from the smallest to the largest;
//! - for an adjoint buffer: the array is not made inside the loop (its
//!   buffer is declared before it);
//! - for an element read again (`x[i * d + j]`, or `w[c]` with `c` itself
//!   read again as `k * n + j`): the array is a stable parameter whose type
//!   is written as slices, arrays or `Vec`s deep enough for its indices, or
//!   a top-level `let` bound once to `vec![…]` or an array literal (so it
//!   can be indexed by a range). The element then needs no temporaries of
//!   its own.

use super::access::Access;
use super::View;
use crate::facts::loops::{linear, Linear, LoopFacts};
use crate::facts::places::{index_chain, root, Reach};
use crate::facts::syntax::{int_literal as int, strip, term, unsuffixed as literal};
use crate::record::{Loop, RangeSource, ValueId};
use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use std::collections::HashMap;
use syn::visit_mut::VisitMut;
use syn::Expr;

/// What a loop's reverse reaches through slices.
pub struct Slices {
    /// the loop's variable, as its pattern is written
    pub var: TokenStream,
    /// the range's ends, parenthesised where an operator may stand next to
    /// them
    pub lo: TokenStream,
    pub hi: TokenStream,
    /// the range's end as written
    pub end: TokenStream,
    /// whether the range starts at `0`
    pub zero: bool,
    /// the adjoint buffers sliced
    pub buffers: Vec<Buffer>,
    /// elements read again through a slice: value → the slice's base and
    /// start
    pub reads: HashMap<ValueId, Read>,
}

/// One adjoint buffer's slice.
pub struct Buffer {
    pub array: usize,
    /// the indices before the last: values read again
    pub prefix: Vec<ValueId>,
    /// where the run starts: the smallest last index at the range's start
    pub start: Start,
    /// the run is this much longer than the range
    pub extra: i128,
    /// each access's last index → its distance from the smallest
    pub places: HashMap<ValueId, i128>,
}

/// An element of a parameter read again through a slice of `base`.
pub struct Read {
    pub base: TokenStream,
    pub start: Start,
}

/// Where a run starts.
#[derive(Clone)]
pub enum Start {
    /// the first element of its row
    Zero,
    /// an expression
    At(TokenStream),
}

impl Start {
    pub fn tokens(&self) -> TokenStream {
        match self {
            Start::Zero => quote!(0),
            Start::At(tokens) => tokens.clone(),
        }
    }
}

/// The verdict on slicing `l`'s reverse.
pub fn slices(view: &View<'_>, l: &Loop, access: &Access) -> Result<Slices, &'static str> {
    const NOT_A_RANGE: &str = "it is not a loop over a half-open range read again";
    let Some((pat, RangeSource::Again(range))) = l.range.as_ref() else {
        return Err(NOT_A_RANGE);
    };
    let Expr::Range(range) = strip(range) else {
        return Err(NOT_A_RANGE);
    };
    if !matches!(range.limits, syn::RangeLimits::HalfOpen(_)) {
        return Err(NOT_A_RANGE);
    }
    let (Some(lo), Some(hi)) = (range.start.as_deref(), range.end.as_deref()) else {
        return Err(NOT_A_RANGE);
    };
    // the subscripts' linear forms are in the variable the facts know
    if l.facts.var.as_deref() != Some(pat.to_string().as_str()) {
        return Err("its variable is not a counter");
    }
    let mut slices = Slices {
        var: pat.clone(),
        lo: term(lo),
        hi: term(hi),
        end: hi.to_token_stream(),
        zero: int(lo) == Some(0),
        buffers: Vec::new(),
        reads: HashMap::new(),
    };
    let lo_int = int(lo);
    for (&array, accesses) in &access.arrays {
        if matches!(view.arrays[array].local, Some((r, _)) if r == l.region) {
            continue;
        }
        if let Some(buffer) = buffer(view, &l.facts, &slices, lo_int, array, accesses) {
            slices.buffers.push(buffer);
        }
    }
    // elements of stable parameters read again
    let again_here = |v: &crate::record::Value| {
        v.recompute.is_some() && v.scope == l.scope && v.region == l.region
    };
    for id in l.values.clone() {
        let v = &view.values[id];
        if !again_here(v) {
            continue;
        }
        let Some(expr) = &v.recompute else { continue };
        let Expr::Index(indexed) = strip(expr) else {
            continue;
        };
        // `x[c]` with `c` an index read again: `c`'s expression
        let index = match v.deps.as_slice() {
            [] => (*indexed.index).clone(),
            [dep] => {
                let d = &view.values[*dep];
                let named =
                    matches!(strip(&indexed.index), Expr::Path(p) if p.path.is_ident(&d.store));
                let Some(its) = d
                    .recompute
                    .as_ref()
                    .filter(|_| d.deps.is_empty() && again_here(d) && named)
                else {
                    continue;
                };
                its.clone()
            }
            _ => continue,
        };
        let Some(form) = linear(&index, &l.facts).filter(|f| f.var == 1) else {
            continue;
        };
        let Some(start) = start_of(&slices, lo_int, &form, &index) else {
            continue;
        };
        // `x`, `x[i]`, …: a sliceable parameter, one level left for the
        // range, its own indices free of the loop's variable
        let base = &indexed.expr;
        let Some((root, depth, indices)) = root_of(base) else {
            continue;
        };
        let sliceable = view.stability.map_or(0, |s| s.sliceable(&root));
        if sliceable <= depth
            || !indices
                .iter()
                .all(|i| linear(i, &l.facts).is_some_and(|f| f.var == 0))
        {
            continue;
        }
        slices.reads.insert(
            id,
            Read {
                base: base.to_token_stream(),
                start,
            },
        );
    }
    Ok(slices)
}

/// An adjoint buffer's slice for `accesses` (each a list of index values),
/// if they are one run of the loop's variable.
fn buffer(
    view: &View<'_>,
    facts: &LoopFacts,
    slices: &Slices,
    lo_int: Option<i128>,
    array: usize,
    accesses: &[Vec<ValueId>],
) -> Option<Buffer> {
    let form = |id: ValueId| -> Option<(Linear, Expr)> {
        let expr = view.values[id].recompute.clone()?;
        Some((linear(&expr, facts)?, expr))
    };
    // one row: the same indices before the last, free of the variable
    let (_, prefix) = accesses.first()?.split_last()?;
    let prefix_forms: Vec<Linear> = prefix
        .iter()
        .map(|&id| form(id).map(|(f, _)| f).filter(|f| f.var == 0))
        .collect::<Option<_>>()?;
    let mut lasts = Vec::new();
    for access in accesses {
        let (&last, rest) = access.split_last()?;
        if rest.len() != prefix.len() {
            return None;
        }
        for (&id, expected) in rest.iter().zip(&prefix_forms) {
            if form(id)?.0 != *expected {
                return None;
            }
        }
        let (f, syntax) = form(last)?;
        if f.var != 1 {
            return None;
        }
        lasts.push((last, f, syntax));
    }
    // the same terms everywhere, up to an integer
    let (_, first, _) = lasts.first()?;
    let distances: Vec<i128> = lasts
        .iter()
        .map(|(_, f, _)| f.clone().plus(first.clone(), -1)?.as_constant())
        .collect::<Option<_>>()?;
    let (&min, &max) = (distances.iter().min()?, distances.iter().max()?);
    let lowest = distances.iter().position(|&d| d == min)?;
    let (_, low_form, low_syntax) = &lasts[lowest];
    let start = start_of(slices, lo_int, low_form, low_syntax)?;
    let places = lasts
        .iter()
        .zip(&distances)
        .map(|((id, _, _), d)| (*id, d - min))
        .collect();
    Some(Buffer {
        array,
        prefix: prefix.to_vec(),
        start,
        extra: max - min,
        places,
    })
}

/// Where the run of `index` (whose form is `form`, the variable's
/// coefficient 1) starts: its value at the range's start. `None` where
/// that is a negative literal (the forward sweep could not have read
/// there).
fn start_of(slices: &Slices, lo_int: Option<i128>, form: &Linear, index: &Expr) -> Option<Start> {
    let lo = &slices.lo;
    let rest = form.clone().plus(
        Linear {
            var: 1,
            terms: Default::default(),
            constant: 0,
        },
        -1,
    )?;
    Some(match (rest.as_constant(), lo_int) {
        (Some(k), Some(lo)) => match lo.checked_add(k)? {
            at if at < 0 => return None,
            0 => Start::Zero,
            at => Start::At(literal(at)),
        },
        (Some(0), None) => Start::At(lo.clone()),
        (Some(k), None) if k > 0 => {
            let k = literal(k);
            Start::At(quote!(#lo + #k))
        }
        (Some(k), None) => {
            let k = literal(-k);
            Start::At(quote!(#lo - #k))
        }
        // the index itself, at the range's start
        (None, _) => {
            let mut at = index.clone();
            let mut put = Put {
                var: slices.var.to_string(),
                with: syn::parse2(lo.clone()).ok()?,
            };
            put.visit_expr_mut(&mut at);
            Start::At(at.to_token_stream())
        }
    })
}

/// Puts an expression in place of a name.
struct Put {
    var: String,
    with: Expr,
}

impl VisitMut for Put {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        match e {
            Expr::Path(p) if p.qself.is_none() && p.path.is_ident(&self.var) => {
                *e = self.with.clone();
            }
            _ => {
                syn::visit_mut::visit_expr_mut(self, e);
                // `a + 0`, `0 + a`, `a - 0`: `a`
                if let Expr::Binary(b) = e {
                    let kept = match b.op {
                        syn::BinOp::Add(_) if int(&b.right) == Some(0) => Some(&b.left),
                        syn::BinOp::Add(_) if int(&b.left) == Some(0) => Some(&b.right),
                        syn::BinOp::Sub(_) if int(&b.right) == Some(0) => Some(&b.left),
                        _ => None,
                    };
                    if let Some(kept) = kept {
                        *e = (**kept).clone();
                    }
                }
            }
        }
    }
    // a closure or block may bind the name again: left as it is
    fn visit_expr_closure_mut(&mut self, _: &mut syn::ExprClosure) {}
    fn visit_block_mut(&mut self, _: &mut syn::Block) {}
}

/// The name at the root of `x`, `x[i]`, `x[i][k]`, how many indices lead
/// from it to `base`, and those indices.
fn root_of(base: &Expr) -> Option<(String, usize, Vec<&Expr>)> {
    let (at, indices) = match strip(base) {
        Expr::Index(i) => index_chain(i),
        other => (other, Vec::new()),
    };
    let name = root(at, Reach::Name)?.to_string();
    Some((name, indices.len(), indices))
}
