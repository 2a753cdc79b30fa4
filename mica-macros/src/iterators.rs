//! Iterator chains over recorded data, written as the loops they are,
//! before any analysis:
//!
//! ```text
//! w.iter().zip(x).map(|(a, b)| a * b).sum()
//! // is
//! { let mut total = 0.0; for i in 0..w.len().min(x.len()) { total += w[i] * x[i]; } total }
//! ```
//!
//! A chain is a source (`x.iter()`, `x.into_iter()`, `&x`, a range),
//! adapters (`copied`, `cloned`, `map`, `filter`, `zip`, `enumerate`,
//! `rev`, `skip`, `take`, `step_by`) and a consumer (`sum`, `product`,
//! `fold`, `count`, `max_by`/`min_by` with `.unwrap()`, `collect`, or a
//! `for` loop). Elements are places of the source at the loop's index
//! (`x[i]`), values a `map` computed, or tuples of them; a closure's
//! parameters stand for them. Only chains that name a value that may be
//! recorded are rewritten; a chain Mica cannot write as a loop is an error
//! that says to write the loop.

mod arrays;
mod chain;
mod chained;
mod consumers;
mod knobs;
mod patterns;
mod pushed;

pub use knobs::knobs;

use crate::errors::Errors;
use crate::names::idents_in;
use std::collections::HashSet;
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, ItemFn, Stmt};

/// Rewrites the chains of `item`'s body that may read a recorded value
/// (`recorded` at the start: tracked parameters, `#[tracked] let` knobs;
/// `outer`: the `impl`'s type parameters); whether anything changed.
pub fn rewrite(
    item: &mut ItemFn,
    recorded: HashSet<String>,
    outer: &[(proc_macro2::Ident, bool)],
    errors: &mut Errors,
) -> bool {
    // a body with no `for` and no consumer's name has no chain (a long
    // straight-line body is then not walked again)
    let mut words = Words(false);
    syn::visit::Visit::visit_block(&mut words, &item.block);
    if !words.0 {
        return false;
    }
    let active = may_be_recorded(&item.block, recorded);
    let floats = crate::generics::floats_with(&item.sig.generics, outer);
    let mut next = first_free(&item.block);
    // `Vec`s filled by `push`: the arrays they end as, before the chains
    // (a chain over one is then a chain over an array)
    let windows_only = !crate::parse::has_tracked(item);
    let pushed = pushed::rewrite(item, &active, &floats, &mut next, windows_only);
    let mut visitor = Chains {
        arrays: crate::helpers::lengths::array_types(&item.sig, &item.block, &Default::default()),
        floats,
        results: HashSet::new(),
        active,
        changed: pushed,
        next,
        errors: Vec::new(),
    };
    visitor.visit_block_mut(&mut item.block);
    errors.extend(visitor.errors);
    visitor.changed
}

/// The number after the last of the `__mica_…_n` names already in
/// `block`: a helper's body, its chains written as loops before it was
/// inlined, keeps its names, which the body's own must not repeat (the
/// forward sweep tells values apart by name).
fn first_free(block: &syn::Block) -> usize {
    let mut names = HashSet::new();
    idents_in(quote::quote!(#block), &mut names);
    names
        .iter()
        .filter(|n| n.starts_with("__mica_"))
        .filter_map(|n| n.rsplit('_').next()?.parse::<usize>().ok())
        .max()
        .unwrap_or(0)
}

/// Whether a body holds a `for` loop, a method named like a chain's
/// consumer, an array's `map` or a `from_fn`, in its code or a macro's
/// tokens.
struct Words(bool);

/// The methods a chain ends in (`consumers.rs`; `max_by`, `min_by` and
/// `reduce` before the `Option`'s own), and an array's own `map`
/// (`arrays.rs`).
const CONSUMERS: &[&str] = &[
    "sum", "product", "fold", "count", "collect", "unwrap", "to_vec", "to_owned", "any", "all",
    "position", "map", "max_by", "min_by", "reduce",
];

impl<'ast> syn::visit::Visit<'ast> for Words {
    fn visit_expr(&mut self, e: &'ast Expr) {
        if self.0 {
            return;
        }
        match e {
            Expr::ForLoop(_) => self.0 = true,
            Expr::MethodCall(m) if CONSUMERS.iter().any(|c| m.method == c) => self.0 = true,
            Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "from_fn") => {
                self.0 = true
            }
            _ => syn::visit::visit_expr(self, e),
        }
    }
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        let mut names = HashSet::new();
        idents_in(m.tokens.clone(), &mut names);
        self.0 |= ["for", "from_fn"].iter().any(|w| names.contains(*w))
            || CONSUMERS.iter().any(|c| names.contains(*c));
    }
}

/// The names that may hold a recorded value: a fixed point over every
/// `let` and assignment of the body, by the names their values mention (an
/// over-approximation: a rewritten chain that turns out constant costs
/// nothing).
fn may_be_recorded(block: &syn::Block, mut active: HashSet<String>) -> HashSet<String> {
    let mut flows = Flows::default();
    syn::visit::Visit::visit_block(&mut flows, block);
    loop {
        let before = active.len();
        for (targets, value) in &flows.0 {
            if value.iter().any(|n| active.contains(n)) {
                active.extend(targets.iter().cloned());
            }
        }
        if active.len() == before {
            return active;
        }
    }
}

/// `(names bound or assigned, names the value mentions)`.
#[derive(Default)]
struct Flows(Vec<(Vec<String>, HashSet<String>)>);

impl<'ast> syn::visit::Visit<'ast> for Flows {
    fn visit_local(&mut self, local: &'ast syn::Local) {
        if let Some(init) = &local.init {
            let mut values = Values::default();
            syn::visit::Visit::visit_expr(&mut values, &init.expr);
            let names = values.0;
            let targets = crate::facts::places::pattern_names(&local.pat)
                .iter()
                .map(|i| i.to_string())
                .collect();
            self.0.push((targets, names));
        }
        syn::visit::visit_local(self, local);
    }
    fn visit_expr_assign(&mut self, e: &'ast syn::ExprAssign) {
        self.assigned(&e.left, &e.right);
        syn::visit::visit_expr_assign(self, e);
    }
    fn visit_expr_binary(&mut self, e: &'ast syn::ExprBinary) {
        if crate::facts::syntax::is_compound(&e.op) {
            self.assigned(&e.left, &e.right);
        }
        syn::visit::visit_expr_binary(self, e);
    }
    fn visit_expr_for_loop(&mut self, f: &'ast syn::ExprForLoop) {
        let mut values = Values::default();
        syn::visit::Visit::visit_expr(&mut values, &f.expr);
        let names = values.0;
        let targets = crate::facts::places::pattern_names(&f.pat)
            .iter()
            .map(|i| i.to_string())
            .collect();
        self.0.push((targets, names));
        syn::visit::visit_expr_for_loop(self, f);
    }
    /// `h.fill(x)`, `h.copy_from_slice(&v)`, `v.push(x)`, … and `&mut h`
    /// arguments: the written places take what every argument mentions
    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        let writes = [
            "fill",
            "copy_from_slice",
            "clone_from_slice",
            "push",
            "extend_from_slice",
            "insert",
            "swap",
        ];
        if writes.contains(&m.method.to_string().as_str()) {
            if let Some(root) =
                crate::facts::places::root(&m.receiver, crate::facts::places::Reach::Place)
            {
                let mut values = Values::default();
                for a in &m.args {
                    syn::visit::Visit::visit_expr(&mut values, a);
                }
                self.0.push((vec![root.to_string()], values.0));
            }
        }
        // `xs.iter().map(|a| …)`, `.fold(init, |acc, x| …)`: a closure's
        // parameters take what the chain before it and every argument
        // mention, so a chain inside that closure over `a` counts as one
        // that may read a recorded value
        let closures: Vec<&syn::ExprClosure> = m
            .args
            .iter()
            .filter_map(|a| match crate::facts::syntax::strip_parens(a) {
                Expr::Closure(c) => Some(c),
                _ => None,
            })
            .collect();
        if !closures.is_empty() {
            let mut values = Values::default();
            syn::visit::Visit::visit_expr(&mut values, &m.receiver);
            for a in &m.args {
                if !matches!(crate::facts::syntax::strip_parens(a), Expr::Closure(_)) {
                    syn::visit::Visit::visit_expr(&mut values, a);
                }
            }
            let targets = closures
                .iter()
                .flat_map(|c| c.inputs.iter())
                .flat_map(crate::facts::places::pattern_names)
                .map(|i| i.to_string())
                .collect();
            self.0.push((targets, values.0));
        }
        self.written_through(m.args.iter());
        syn::visit::visit_expr_method_call(self, m);
    }
    /// `u(x, &mut h)` (a helper, inlined later, that may write `h` from
    /// `x`), `std::mem::swap(&mut a, &mut b)`
    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        self.written_through(c.args.iter());
        syn::visit::visit_expr_call(self, c);
    }
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        // `tape! { … }` and `vec![…]`: their lines and elements flow like
        // the body's
        crate::facts::syntax::visit_macro(self, m);
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

impl Flows {
    /// Each `&mut place` among `args` takes what all of them mention.
    fn written_through<'a>(&mut self, args: impl Iterator<Item = &'a Expr> + Clone) {
        let targets: Vec<String> = args
            .clone()
            .filter_map(|a| match a {
                Expr::Reference(r) if r.mutability.is_some() => {
                    crate::facts::places::root(&r.expr, crate::facts::places::Reach::Place)
                        .map(|i| i.to_string())
                }
                _ => None,
            })
            .collect();
        if targets.is_empty() {
            return;
        }
        let mut values = Values::default();
        for a in args {
            syn::visit::Visit::visit_expr(&mut values, a);
        }
        self.0.push((targets, values.0));
    }

    fn assigned(&mut self, target: &Expr, value: &Expr) {
        let Some(root) = crate::facts::places::root(target, crate::facts::places::Reach::Place)
        else {
            return;
        };
        let mut values = Values::default();
        syn::visit::Visit::visit_expr(&mut values, value);
        self.0.push((vec![root.to_string()], values.0));
    }
}

struct Chains {
    /// the names bound once to arrays whose lengths are written, by type
    arrays: std::collections::HashMap<String, syn::Type>,
    /// the function's type parameters with a float bound (`T: Float`): a
    /// sum's start is typed after them, not written as a literal
    floats: Vec<proc_macro2::Ident>,
    /// the names that hold a consumer's result at the end of its block
    results: HashSet<String>,
    active: HashSet<String>,
    changed: bool,
    next: usize,
    errors: Vec<syn::Error>,
}

impl Chains {
    /// `u = w[a..b].to_vec();` (or `.to_owned()`) of an array that may be
    /// recorded, into a `Vec` `u` other than `w`: `u` made anew of the
    /// part's length and its elements copied one by one, so the copy is
    /// `u`'s own writes (no second array, whose adjoint the reverse would
    /// make each time).
    fn part_copies(&mut self, block: &mut syn::Block) {
        let mut out = Vec::with_capacity(block.stmts.len());
        for stmt in std::mem::take(&mut block.stmts) {
            match self.part_copy(&stmt) {
                Some(lines) => {
                    out.extend(lines);
                    self.changed = true;
                }
                None => out.push(stmt),
            }
        }
        block.stmts = out;
    }

    fn part_copy(&mut self, stmt: &Stmt) -> Option<Vec<Stmt>> {
        let Stmt::Expr(Expr::Assign(a), Some(_)) = stmt else {
            return None;
        };
        let Expr::Path(to) = &*a.left else {
            return None;
        };
        let to = to.path.get_ident()?;
        let Expr::MethodCall(m) = chain::unparen(&a.right) else {
            return None;
        };
        if !matches!(m.method.to_string().as_str(), "to_vec" | "to_owned") || !m.args.is_empty() {
            return None;
        }
        let Expr::Index(ix) = chain::unparen(&m.receiver) else {
            return None;
        };
        let (from, start, len) = place_or_slice(&m.receiver)?;
        // the part's array: a name or a field path, not `u` itself
        let mut base = &from;
        while let Expr::Field(f) = base {
            base = &f.base;
        }
        let Expr::Path(root) = base else { return None };
        if root.path.get_ident().is_none_or(|r| r == to) || !self.mentions_active(&ix.expr) {
            return None;
        }
        let lo: Expr = start.unwrap_or_else(|| syn::parse_quote!(0));
        let zero: Expr = match self.floats.as_slice() {
            [t] => crate::generics::zero(t),
            _ => syn::parse_quote!(0.0),
        };
        let (l, n, j) = (self.fresh("lo"), self.fresh("n"), self.fresh("j"));
        Some(vec![
            syn::parse_quote!(let #l: usize = #lo;),
            syn::parse_quote!(let #n: usize = #len;),
            syn::parse_quote!(::mica::__private::view_bounds(#l, #l + #n, #from.len());),
            syn::parse_quote!(#to = vec![#zero; #n];),
            syn::parse_quote!(for #j in 0..#n { #to[#j] = #from[#l + #j]; }),
        ])
    }

    /// A consumer's block (`{ let mut acc = …; for … { … } acc }`): its
    /// lines and its result.
    fn result_block(&self, e: &Expr) -> Option<(Vec<Stmt>, Expr)> {
        let Expr::Block(b) = e else { return None };
        if b.label.is_some() || !b.attrs.is_empty() {
            return None;
        }
        let (last, lines) = b.block.stmts.split_last()?;
        let Stmt::Expr(Expr::Path(p), None) = last else {
            return None;
        };
        let name = p.path.get_ident()?.to_string();
        self.results
            .contains(&name)
            .then(|| (lines.to_vec(), Expr::Path(p.clone())))
    }

    fn mentions_active(&self, e: &Expr) -> bool {
        let mut names = Values::default();
        syn::visit::Visit::visit_expr(&mut names, e);
        names.0.iter().any(|n| self.active.contains(n))
    }
}

/// The names an expression reads as values: not the arrays it only asks
/// the length of (`w.len()`, `w.is_empty()`).
#[derive(Default)]
struct Values(HashSet<String>);

impl<'ast> syn::visit::Visit<'ast> for Values {
    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        if m.args.is_empty() && (m.method == "len" || m.method == "is_empty") {
            return;
        }
        syn::visit::visit_expr_method_call(self, m);
    }
    fn visit_ident(&mut self, i: &'ast proc_macro2::Ident) {
        self.0.insert(i.to_string());
    }
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        idents_in(m.tokens.clone(), &mut self.0);
    }
}

impl VisitMut for Chains {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        // `*xs.iter().max_by(…).unwrap()`: the value, before its parts
        if let Expr::Unary(u) = e {
            if matches!(u.op, syn::UnOp::Deref(_)) && self.mentions_active(&u.expr) {
                match consumers::consumer(self, &u.expr, true) {
                    Ok(Some(new)) => {
                        *e = new;
                        self.changed = true;
                    }
                    Ok(None) => {}
                    Err(error) => {
                        self.errors.push(error);
                        let value = &*e;
                        *e = syn::parse_quote!(::mica::detach(#value));
                        return;
                    }
                }
            }
        }
        visit_mut::visit_expr_mut(self, e);
        let rewritten = match e {
            // a loop over `::mica::detach(…)` (an error reported before
            // left it so) iterates a constant
            Expr::ForLoop(f)
                if self.mentions_active(&f.expr) && !crate::facts::syntax::is_detach(&f.expr) =>
            {
                chain::for_loop(self, f)
            }
            Expr::Call(_) if self.mentions_active(e) => arrays::from_fn(self, e, None),
            Expr::MethodCall(_) if self.mentions_active(e) => match arrays::array_map(self, e) {
                Ok(None) => consumers::consumer(self, e, false),
                other => other,
            },
            _ => Ok(None),
        };
        match rewritten {
            Ok(Some(new)) => {
                *e = new;
                self.changed = true;
            }
            Ok(None) => {}
            Err(error) => {
                self.errors.push(error);
                // reported: the chain stays, as a constant, so nothing
                // else is said about it
                match e {
                    Expr::ForLoop(f) => {
                        let iterated = &f.expr;
                        *f.expr = syn::parse_quote!(::mica::detach(#iterated));
                    }
                    other => {
                        let chain = &*other;
                        *other = syn::parse_quote!(::mica::detach(#chain));
                    }
                }
            }
        }
    }

    /// the lines of a `tape!` window, the elements of a `vec![…]` (a chain
    /// there is written as a block in its place)
    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        crate::facts::syntax::visit_macro_mut(self, m);
    }

    fn visit_stmt_mut(&mut self, s: &mut Stmt) {
        visit_mut::visit_stmt_mut(self, s);
    }

    /// `let q: [f64; 3] = std::array::from_fn(|i| …);`: the length the
    /// type gives
    fn visit_local_mut(&mut self, l: &mut syn::Local) {
        visit_mut::visit_local_mut(self, l);
        if let (syn::Pat::Type(t), Some(init)) = (&l.pat, &mut l.init) {
            if self.mentions_active(&init.expr) {
                match arrays::from_fn(self, &init.expr, Some(&t.ty)) {
                    Ok(Some(made)) => {
                        *init.expr = made;
                        self.changed = true;
                    }
                    Ok(None) => {}
                    Err(error) => self.errors.push(error),
                }
            }
        }
    }

    /// A chain that a `let` binds or a block ends with stands in the block
    /// itself, its loop among the block's lines (where a loop of the
    /// function's body may take the shortcuts a nested block's may not).
    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        self.part_copies(block);
        visit_mut::visit_block_mut(self, block);
        let mut out = Vec::with_capacity(block.stmts.len());
        for stmt in std::mem::take(&mut block.stmts) {
            match stmt {
                Stmt::Local(mut local) => {
                    let spliced = local.init.as_mut().and_then(|init| {
                        if init.diverge.is_some() {
                            return None;
                        }
                        let (lines, value) = self.result_block(&init.expr)?;
                        *init.expr = value;
                        Some(lines)
                    });
                    if let Some(lines) = spliced {
                        out.extend(lines);
                    }
                    out.push(Stmt::Local(local));
                }
                Stmt::Expr(e, None) => match self.result_block(&e) {
                    Some((lines, value)) => {
                        out.extend(lines);
                        out.push(Stmt::Expr(value, None));
                    }
                    None => out.push(Stmt::Expr(e, None)),
                },
                // `u = chain;`, `total += chain;` into a place whose
                // indices are names or literals: the chain's value is
                // made before the place is written, its loop among the
                // block's lines
                Stmt::Expr(Expr::Assign(mut a), Some(semi)) if simple_place(&a.left) => {
                    if let Some((lines, value)) = self.result_block(&a.right) {
                        out.extend(lines);
                        *a.right = value;
                    }
                    out.push(Stmt::Expr(Expr::Assign(a), Some(semi)));
                }
                Stmt::Expr(Expr::Binary(mut b), Some(semi))
                    if crate::facts::syntax::is_compound(&b.op) && simple_place(&b.left) =>
                {
                    if let Some((lines, value)) = self.result_block(&b.right) {
                        out.extend(lines);
                        *b.right = value;
                    }
                    out.push(Stmt::Expr(Expr::Binary(b), Some(semi)));
                }
                other => out.push(other),
            }
        }
        block.stmts = out;
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// A place (`y`, `&y`) or a sub-slice of one (`y[a..b]`, `&y[a..]`): the
/// place, where the elements start (`None`: at 0) and how many there are.
pub(super) fn place_or_slice(e: &Expr) -> Option<(Expr, Option<Expr>, Expr)> {
    let e = match chain::unparen(e) {
        Expr::Reference(r) if r.mutability.is_none() => &*r.expr,
        other => other,
    };
    if chain::is_place(e) {
        return Some((e.clone(), None, syn::parse_quote!(#e.len())));
    }
    let Expr::Index(ix) = chain::unparen(e) else {
        return None;
    };
    let (Expr::Range(r), true) = (chain::unparen(&ix.index), chain::is_place(&ix.expr)) else {
        return None;
    };
    let x = (*ix.expr).clone();
    let start = r.start.as_deref().cloned();
    let end: Expr = match (&r.end, r.limits) {
        (None, _) => syn::parse_quote!(#x.len()),
        (Some(hi), syn::RangeLimits::HalfOpen(_)) => (**hi).clone(),
        (Some(hi), syn::RangeLimits::Closed(_)) => {
            let hi = chain::paren(hi);
            syn::parse_quote!(#hi + 1)
        }
    };
    let len: Expr = match &start {
        None => end,
        Some(lo) => {
            let (lo, end) = (chain::paren(lo), chain::paren(&end));
            syn::parse_quote!(#end - #lo)
        }
    };
    Some((x, start, len))
}

/// A place whose evaluation reads no value a chain's lines make: a name, a
/// field, an element at indices that are names or literals.
fn simple_place(e: &Expr) -> bool {
    match e {
        Expr::Path(p) => p.qself.is_none() && p.path.get_ident().is_some(),
        Expr::Field(f) => simple_place(&f.base),
        Expr::Index(i) => {
            simple_place(&i.expr) && matches!(&*i.index, Expr::Lit(_) | Expr::Path(_))
        }
        _ => false,
    }
}
