//! Short loops over a literal range, written out. `for i in 0..3 { s +=
//! x[i]; }` becomes `{ s += x[0]; } { s += x[1]; } { s += x[2]; }`,
//! lowered as straight-line code: its values live in registers, not on a
//! loop's tape, its indices are literals, and its reverse is the
//! straight-line reverse. Rust runs the
//! copies exactly as it runs the loop, so the rewrite cannot change a
//! value or a slope; only the adjoint that takes shortcuts makes it (the
//! plain adjoint, which the generator compares against, keeps the loop).

use super::*;
use crate::facts::syntax::strip_parens;
use syn::visit_mut::{self, VisitMut};

/// The most iterations written out.
const MOST_TRIPS: i128 = 4;
/// The largest body written out, in tokens, times its trip count.
const MOST_TOKENS: usize = 1200;
/// The most copies of the innermost body a nest of short loops is written
/// out into (a 3 × 3 product's 27).
const MOST_COPIES: usize = 27;

impl Sweep<'_> {
    /// The body of `f` once per iteration, each a block with the counter's
    /// value written where it is read, if its range is a literal one
    /// (`a..b`, `a..=b`, or either in parentheses with `.rev()`) of at most
    /// four iterations, its pattern a name or `_`, it has no label, and its
    /// body is short, leaves no iteration early, holds no loop but short
    /// loops over literal ranges at its top level (a nest, written out
    /// where [`Self::nest_written_out`] says), and it is not inside a nest
    /// of short loops kept as loops (see [`Self::short_nest`]).
    pub(super) fn unrolled(&self, f: &syn::ExprForLoop) -> Option<Vec<syn::Block>> {
        // only the adjoint that takes shortcuts writes a loop out
        self.stability.as_ref()?;
        // (its exits were refused before: `check_loop_exits`; an exit in a
        // loop of its body leaves that loop, which the copies keep, or
        // names a label, which this loop has none of)
        if f.label.is_some() || self.short_nests > 0 {
            return None;
        }
        let var = match &*f.pat {
            syn::Pat::Ident(p)
                if p.by_ref.is_none() && p.mutability.is_none() && p.subpat.is_none() =>
            {
                Some(&p.ident)
            }
            syn::Pat::Wild(_) => None,
            _ => return None,
        };
        let (mut ks, suffix) =
            literal_range(strip_parens(&f.expr), &|name| self.literal_len(name))?;
        if ks.is_empty() {
            return None;
        }
        if let Expr::MethodCall(_) = strip_parens(&f.expr) {
            ks.reverse();
        }
        if !self.fits_written_out(&f.body, ks.len()) {
            return None;
        }
        let span = f.for_token.span;
        let mut copies = Vec::new();
        for k in ks {
            let value = integer(k, &suffix, span);
            let Some(var) = var else {
                let stmts = &f.body.stmts;
                copies.push(syn::parse2(quote::quote_spanned!(span=> { #(#stmts)* })).ok()?);
                continue;
            };
            // the value written where the name is read, so an index is a
            // literal the lowering sees; the `let` is for macros' tokens
            let mut body = f.body.clone();
            let mut put = Put {
                name: var,
                value: syn::parse2(value.clone()).ok()?,
                refused: false,
            };
            put.visit_block_mut(&mut body);
            if put.refused {
                return None;
            }
            let stmts = &body.stmts;
            copies.push(
                syn::parse2(quote::quote_spanned!(span=>
                    { #[allow(unused_variables)] let #var = #value; #(#stmts)* }
                ))
                .ok()?,
            );
        }
        Some(copies)
    }
}

/// Puts a value where a name is read. Refuses a body that binds the name
/// again (what a read means would then depend on where it is), or calls a
/// method on it or reads a field of it (a bare literal has no type to
/// find the method in).
struct Put<'a> {
    name: &'a syn::Ident,
    value: Expr,
    refused: bool,
}

impl Put<'_> {
    fn is_name(&self, e: &Expr) -> bool {
        matches!(strip_parens(e), Expr::Path(p) if p.qself.is_none() && p.path.is_ident(self.name))
    }
}

impl VisitMut for Put<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        match e {
            Expr::MethodCall(m) if self.is_name(&m.receiver) => self.refused = true,
            Expr::Field(f) if self.is_name(&f.base) => self.refused = true,
            Expr::Path(p) if p.qself.is_none() && p.path.is_ident(self.name) => {
                *e = self.value.clone();
            }
            _ => visit_mut::visit_expr_mut(self, e),
        }
    }
    fn visit_pat_ident_mut(&mut self, p: &mut syn::PatIdent) {
        if p.ident == *self.name {
            self.refused = true;
        }
        visit_mut::visit_pat_ident_mut(self, p);
    }
    fn visit_field_value_mut(&mut self, f: &mut syn::FieldValue) {
        // `S { i }` becomes `S { i: 2 }`
        if f.colon_token.is_none() {
            f.colon_token = Some(Default::default());
        }
        visit_mut::visit_field_value_mut(self, f);
    }
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
    fn visit_macro_mut(&mut self, _: &mut syn::Macro) {}
}

impl Sweep<'_> {
    /// The length of `name`, a local array made by a literal of a literal
    /// length (`[a, b]`, `[0.0; 3]`).
    fn literal_len(&self, name: &syn::Ident) -> Option<i128> {
        self.whole_lengths(name)?.first()?.parse().ok()
    }

    /// Whether `f` is a short loop over a literal range whose body holds a
    /// loop: a nest, which stays loops, the loops inside it included. Written
    /// out, a 3 × 3 product's `c[i][j] += a[i][k] * b[k][j]` became 27 writes
    /// of a local array, each with its own reverse: a robot arm's gradient
    /// took 3,882 instructions against 3,555 as loops.
    pub(super) fn short_nest(&self, f: &syn::ExprForLoop) -> bool {
        holds_loop(&f.body.stmts)
            && literal_range(strip_parens(&f.expr), &|name| self.literal_len(name)).is_some()
            && !self.nest_written_out(f)
    }

    /// Whether a nest of short loops is written out whole: its body reads
    /// an element of a literal that is known once the counters are
    /// literals (`lower/rebuild.rs`), a literal or a recorded value, and it
    /// is small enough (see [`Self::unrolled`]).
    fn nest_written_out(&self, f: &syn::ExprForLoop) -> bool {
        let Some((ks, _)) = literal_range(strip_parens(&f.expr), &|name| self.literal_len(name))
        else {
            return false;
        };
        self.stability.is_some()
            && f.label.is_none()
            && self.reads_known_literal(&f.body)
            && self.fits_written_out(&f.body, ks.len())
    }

    /// Whether `trips` copies of `body` are short enough to write out: at
    /// most [`MOST_TOKENS`] tokens and [`MOST_COPIES`] copies of the
    /// bodies of the innermost loops written out.
    fn fits_written_out(&self, body: &syn::Block, trips: usize) -> bool {
        self.written_out(body).is_some_and(|(size, inner)| {
            size.saturating_mul(trips) <= MOST_TOKENS && inner.saturating_mul(trips) <= MOST_COPIES
        })
    }

    /// The tokens of `block` written out, and the copies of the bodies of
    /// the innermost loops it writes out: a short loop over a literal range
    /// at its top level counts its body's times its trips; `None` if a
    /// loop is anywhere else in it.
    fn written_out(&self, block: &syn::Block) -> Option<(usize, usize)> {
        let (mut size, mut copies) = (0usize, 0usize);
        for stmt in &block.stmts {
            let stmt_size = match stmt {
                Stmt::Expr(Expr::ForLoop(f), _) if f.label.is_none() => {
                    let (ks, _) =
                        literal_range(strip_parens(&f.expr), &|name| self.literal_len(name))?;
                    let (body, inner) = self.written_out(&f.body)?;
                    copies = copies.checked_add(inner.checked_mul(ks.len())?)?;
                    body.checked_mul(ks.len())?
                }
                other if holds_loop(std::slice::from_ref(other)) => return None,
                other => other.to_token_stream().into_iter().count(),
            };
            size = size.checked_add(stmt_size)?;
        }
        Some((size, copies.max(1)))
    }

    /// Whether `block` reads an element of a local array the reverse can
    /// make again from its literal (`name[i]…`, `name` noted in
    /// `rebuilds`).
    fn reads_known_literal(&self, block: &syn::Block) -> bool {
        struct Reads<'s, 'a>(&'s Sweep<'a>, bool);
        impl<'ast> syn::visit::Visit<'ast> for Reads<'_, '_> {
            fn visit_expr_index(&mut self, i: &'ast syn::ExprIndex) {
                let (root, _) = crate::facts::places::index_chain(i);
                if let Expr::Path(p) = strip_parens(root) {
                    if p.path
                        .get_ident()
                        .is_some_and(|n| self.0.rebuild_of(n).is_some())
                    {
                        self.1 = true;
                    }
                }
                syn::visit::visit_expr_index(self, i);
            }
            fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
            fn visit_item(&mut self, _: &'ast syn::Item) {}
        }
        let mut v = Reads(self, false);
        syn::visit::Visit::visit_block(&mut v, block);
        v.1
    }
}

/// Whether statements hold a loop (closures and items aside).
fn holds_loop(stmts: &[Stmt]) -> bool {
    struct Loops(bool);
    impl<'ast> syn::visit::Visit<'ast> for Loops {
        fn visit_expr_for_loop(&mut self, _: &'ast syn::ExprForLoop) {
            self.0 = true;
        }
        fn visit_expr_while(&mut self, _: &'ast syn::ExprWhile) {
            self.0 = true;
        }
        fn visit_expr_loop(&mut self, _: &'ast syn::ExprLoop) {
            self.0 = true;
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
        fn visit_item(&mut self, _: &'ast syn::Item) {}
    }
    let mut v = Loops(false);
    for stmt in stmts {
        syn::visit::Visit::visit_stmt(&mut v, stmt);
    }
    v.0
}

/// `k` as an integer literal with `suffix`, negative ones by `-`.
fn integer(k: i128, suffix: &str, span: proc_macro2::Span) -> TokenStream {
    let lit = syn::LitInt::new(&format!("{}{suffix}", k.unsigned_abs()), span);
    if k < 0 {
        quote::quote_spanned!(span=> -#lit)
    } else {
        lit.to_token_stream()
    }
}

/// The values of a literal range of at most [`MOST_TRIPS`] iterations,
/// first to last as written (the caller reverses a `.rev()`), with the
/// suffix its literals carry.
fn literal_range(expr: &Expr, len: &Len<'_>) -> Option<(Vec<i128>, String)> {
    let range = match expr {
        Expr::Range(r) => r,
        Expr::MethodCall(m) if m.method == "rev" && m.args.is_empty() => {
            match strip_parens(&m.receiver) {
                Expr::Range(r) => r,
                _ => return None,
            }
        }
        _ => return None,
    };
    let mut suffix = String::new();
    let start = fold(range.start.as_deref()?, &mut suffix, len)?;
    let end = fold(range.end.as_deref()?, &mut suffix, len)?;
    let end = match range.limits {
        syn::RangeLimits::HalfOpen(_) => end,
        syn::RangeLimits::Closed(_) => end.checked_add(1)?,
    };
    if end.checked_sub(start)? > MOST_TRIPS {
        return None;
    }
    Some(((start..end).collect(), suffix))
}

/// The length of a local array made by a literal, by its name.
type Len<'a> = dyn Fn(&syn::Ident) -> Option<i128> + 'a;

/// An integer expression of literals (`3`, `(3 - 0)`, `2 * 2 + 1`, `-1`)
/// and lengths of local arrays made by a literal (`v.len()`), folded; the
/// first suffix met is kept, two different ones refuse.
fn fold(expr: &Expr, suffix: &mut String, len: &Len<'_>) -> Option<i128> {
    match expr {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => {
            let own = i.suffix();
            if !own.is_empty() {
                if !suffix.is_empty() && suffix != own {
                    return None;
                }
                *suffix = own.to_string();
            }
            i.base10_parse::<i128>().ok()
        }
        Expr::MethodCall(m) if m.method == "len" && m.args.is_empty() => {
            match strip_parens(&m.receiver) {
                Expr::Path(p) if p.qself.is_none() => len(p.path.get_ident()?),
                _ => None,
            }
        }
        Expr::Paren(p) => fold(&p.expr, suffix, len),
        Expr::Group(g) => fold(&g.expr, suffix, len),
        Expr::Unary(syn::ExprUnary {
            op: syn::UnOp::Neg(_),
            expr,
            ..
        }) => fold(expr, suffix, len)?.checked_neg(),
        Expr::Binary(b) => {
            let (l, r) = (fold(&b.left, suffix, len)?, fold(&b.right, suffix, len)?);
            match b.op {
                syn::BinOp::Add(_) => l.checked_add(r),
                syn::BinOp::Sub(_) => l.checked_sub(r),
                syn::BinOp::Mul(_) => l.checked_mul(r),
                _ => None,
            }
        }
        _ => None,
    }
}
