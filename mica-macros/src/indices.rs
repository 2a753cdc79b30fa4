//! Named indices read through their definition (the companions' body
//! only; the primal stays as written).
//!
//! A stencil names its index (`let p = i * n + j;`, then `u[p - 1]`,
//! `u[p + n]`). The reverse sweep reads an index again instead of storing
//! it when the index is made of names whose value is the same wherever it
//! is read (`facts/stability.rs`); a name bound inside the loop is not one
//! of those, so every index derived from it would be stored per point. A
//! `let` whose value is such an expression is therefore replaced, in the
//! body the companions are written from, by its value at each use:
//!
//! ```text
//! let p = i * n + j;                     v[(i * n + j)] = u[(i * n + j) - 1] + …
//! v[p] = u[p - 1] + …
//! ```
//!
//! The same value at every use, by construction: the `let` is immutable and
//! its name bound once in the function; its value is literals, arithmetic,
//! casts, field and index reads and `len()` of names that are themselves
//! immutable and bound once (the variable of a loop over a range, a
//! parameter whose type lends nothing mutably, another such `let`) or
//! items. Nothing in it can change between the `let` and a use, and a name
//! bound once cannot be shadowed there. A name a macro mentions (a format
//! string reads it) keeps its `let`.

use proc_macro2::{TokenStream, TokenTree};
use quote::ToTokens;
use std::collections::{HashMap, HashSet};
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{Expr, ItemFn, Pat};

/// Rewrites `item`'s body; whether anything changed.
pub fn inline(item: &mut ItemFn) -> bool {
    // a definition is read through only inside a loop (outside, the
    // reverse reads a function-level name again already): a body without
    // a loop is not walked at all (a long straight-line body)
    let mut loops = Loops(false);
    loops.visit_block(&item.block);
    if !loops.0 {
        return false;
    }
    let mut outer = Scope::default();
    for input in &item.sig.inputs {
        let syn::FnArg::Typed(t) = input else {
            continue;
        };
        let names = crate::facts::places::pattern_names(&t.pat);
        let plain = matches!(&*t.pat, Pat::Ident(p) if p.mutability.is_none() && p.by_ref.is_none())
            && !crate::facts::stability::mentions_mut(&t.ty.to_token_stream());
        let tracked = t.attrs.iter().any(crate::parse::is_tracked);
        for name in names {
            let kind = match (plain, tracked) {
                (true, false) => Kind::Stable,
                (true, true) => Kind::Measured,
                _ => Kind::Other,
            };
            outer.bind(name.to_string(), kind);
        }
    }
    let mut in_macros = HashSet::new();
    MacroNames(&mut in_macros).visit_block(&item.block);
    let mut rewrite = Rewrite {
        scopes: vec![outer],
        in_macros,
        changed: false,
        loops: 0,
        counts: crate::facts::stability::binding_counts(&item.sig, &item.block),
    };
    rewrite.visit_block_mut(&mut item.block);
    rewrite.changed
}

/// Whether a body holds a loop outside macros (the rewrite leaves macros
/// as written, and defines names only inside loops).
struct Loops(bool);

impl<'ast> Visit<'ast> for Loops {
    fn visit_expr(&mut self, e: &'ast Expr) {
        match e {
            Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_) => self.0 = true,
            _ if !self.0 => syn::visit::visit_expr(self, e),
            _ => {}
        }
    }
}

/// What a name in scope is bound to.
#[derive(Clone)]
enum Kind {
    /// the same value wherever it is in scope: an untracked parameter, the
    /// variable of a loop over a range
    Stable,
    /// a tracked parameter: its length is stable, not its values
    Measured,
    /// a `let` of a stable expression: read as that expression
    Def(Expr),
    Other,
}

#[derive(Default)]
struct Scope {
    names: HashMap<String, Kind>,
    /// the names each definition here reads, by the definition's name
    def_reads: HashMap<String, HashSet<String>>,
    /// name → the definitions here that read it (or did: a name bound
    /// again since may be listed, so `def_reads` has the last word)
    readers: HashMap<String, Vec<String>>,
}

impl Scope {
    fn bind(&mut self, name: String, kind: Kind) {
        match &kind {
            Kind::Def(e) => {
                let read = idents(e);
                for r in &read {
                    self.readers
                        .entry(r.clone())
                        .or_default()
                        .push(name.clone());
                }
                self.def_reads.insert(name.clone(), read);
            }
            _ => {
                self.def_reads.remove(&name);
            }
        }
        self.names.insert(name, kind);
    }
}

/// Every identifier inside a macro's tokens, and every word of its string
/// literals.
struct MacroNames<'a>(&'a mut HashSet<String>);

impl<'a> Visit<'a> for MacroNames<'_> {
    fn visit_macro(&mut self, m: &'a syn::Macro) {
        words(&m.tokens, self.0);
    }
}

fn words(tokens: &TokenStream, out: &mut HashSet<String>) {
    for t in tokens.clone() {
        match t {
            TokenTree::Ident(i) => {
                out.insert(i.to_string());
            }
            TokenTree::Group(g) => words(&g.stream(), out),
            TokenTree::Literal(l) => {
                let text = l.to_string();
                for word in text.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
                    out.insert(word.to_string());
                }
            }
            TokenTree::Punct(_) => {}
        }
    }
}

/// The rewrite, scope by scope: a name is read as its definition where the
/// binding in scope is that definition's `let`, and every name the
/// definition reads still means what it meant there (a later binding of
/// one of them ends the definition's reach in that scope).
struct Rewrite {
    scopes: Vec<Scope>,
    in_macros: HashSet<String>,
    changed: bool,
    /// how many loops are around the line being read
    loops: usize,
    /// how many times each name is bound in the function
    counts: HashMap<String, usize>,
}

impl Rewrite {
    fn kind(&self, name: &str) -> Option<&Kind> {
        self.scopes.iter().rev().find_map(|s| s.names.get(name))
    }

    /// A binding of `name` here: it shadows, and every definition that
    /// reads it stops here.
    fn bind(&mut self, name: String, kind: Kind) {
        let mut stale: Vec<String> = Vec::new();
        for s in &self.scopes {
            for n in s.readers.get(&name).into_iter().flatten() {
                if s.def_reads.get(n).is_some_and(|read| read.contains(&name)) {
                    stale.push(n.clone());
                }
            }
        }
        let scope = self.scopes.last_mut().expect("a scope");
        for n in stale {
            scope.bind(n, Kind::Other);
        }
        scope.bind(name, kind);
    }

    fn bind_pattern(&mut self, pat: &Pat, kind: Kind) {
        for name in crate::facts::places::pattern_names(pat) {
            self.bind(name.to_string(), kind.clone());
        }
    }

    /// `e` with the definitions in scope put in, if every name it reads is
    /// stable here.
    fn stable(&self, e: &Expr) -> Option<Expr> {
        let ok = match e {
            Expr::Lit(_) => true,
            Expr::Path(p) if p.qself.is_none() => match p.path.get_ident() {
                Some(i) => match self.kind(&i.to_string()) {
                    Some(Kind::Def(def)) => return Some(syn::parse_quote!((#def))),
                    Some(Kind::Stable) | None => true,
                    _ => false,
                },
                None => p.path.segments.len() > 1,
            },
            Expr::Binary(b) if !crate::facts::syntax::is_compound(&b.op) => {
                let (l, r) = (self.stable(&b.left)?, self.stable(&b.right)?);
                let mut b = b.clone();
                (*b.left, *b.right) = (l, r);
                return Some(Expr::Binary(b));
            }
            Expr::Unary(u) => {
                let mut u = u.clone();
                *u.expr = self.stable(&u.expr)?;
                return Some(Expr::Unary(u));
            }
            Expr::Paren(p) => {
                let mut p = p.clone();
                *p.expr = self.stable(&p.expr)?;
                return Some(Expr::Paren(p));
            }
            Expr::Cast(c) => {
                let mut c = c.clone();
                *c.expr = self.stable(&c.expr)?;
                return Some(Expr::Cast(c));
            }
            Expr::Field(f) => {
                let mut f = f.clone();
                *f.base = self.stable(&f.base)?;
                return Some(Expr::Field(f));
            }
            Expr::Index(i) => {
                let mut i = i.clone();
                *i.expr = self.stable(&i.expr)?;
                *i.index = self.stable(&i.index)?;
                return Some(Expr::Index(i));
            }
            Expr::MethodCall(m)
                if m.method == "len" && m.args.is_empty() && m.turbofish.is_none() =>
            {
                let measured = matches!(&*m.receiver, Expr::Path(p)
                    if p.path.get_ident().is_some_and(|i| matches!(self.kind(&i.to_string()), Some(Kind::Measured))));
                if measured {
                    true
                } else {
                    let mut m = m.clone();
                    *m.receiver = self.stable(&m.receiver)?;
                    return Some(Expr::MethodCall(m));
                }
            }
            _ => false,
        };
        ok.then(|| e.clone())
    }
}

/// The identifiers `e` reads.
fn idents(e: &Expr) -> HashSet<String> {
    let mut out = HashSet::new();
    crate::names::idents_in(e.to_token_stream(), &mut out);
    out
}

impl VisitMut for Rewrite {
    fn visit_block_mut(&mut self, b: &mut syn::Block) {
        self.scopes.push(Scope::default());
        for stmt in &mut b.stmts {
            self.visit_stmt_mut(stmt);
        }
        self.scopes.pop();
    }

    fn visit_local_mut(&mut self, l: &mut syn::Local) {
        if let Some(init) = &mut l.init {
            self.visit_expr_mut(&mut init.expr);
            if let Some((_, els)) = &mut init.diverge {
                self.visit_expr_mut(els);
            }
        }
        let def = match (&l.pat, &l.init) {
            (Pat::Ident(p), Some(init))
                if p.mutability.is_none()
                    && p.by_ref.is_none()
                    && p.subpat.is_none()
                    && l.attrs.is_empty()
                    && init.diverge.is_none()
                    && !self.in_macros.contains(&p.ident.to_string())
                    // `let i = i + 1;` reads the name it shadows: read
                    // where the new `i` is in scope, it would mean that
                    && !crate::names::mentions_ident(&init.expr.to_token_stream(), &p.ident.to_string()) =>
            {
                // (its value already has the definitions it reads put in)
                self.stable(&init.expr).map(|_| (*init.expr).clone())
            }
            _ => None,
        };
        // outside loops the reverse reads a function-level name again
        // already (`facts/stability.rs`): it stays, stable for the
        // definitions inside loops that read it
        if self.loops == 0 {
            let kind = match (&l.pat, &def) {
                (Pat::Ident(p), Some(_))
                    if self.scopes.len() == 2
                        && self.counts.get(&p.ident.to_string()) == Some(&1) =>
                {
                    Kind::Stable
                }
                _ => Kind::Other,
            };
            self.bind_pattern(&l.pat, kind);
            return;
        }
        match def {
            Some(def) => {
                if let Pat::Ident(p) = &l.pat {
                    self.bind(p.ident.to_string(), Kind::Def(def));
                }
                // kept, unread once its reads are rewritten
                l.attrs.push(syn::parse_quote!(#[allow(unused_variables)]));
                self.changed = true;
            }
            None => self.bind_pattern(&l.pat, Kind::Other),
        }
    }

    fn visit_expr_mut(&mut self, e: &mut Expr) {
        match e {
            Expr::Path(p) if p.qself.is_none() => {
                if let Some(Kind::Def(def)) =
                    p.path.get_ident().and_then(|i| self.kind(&i.to_string()))
                {
                    *e = syn::parse_quote!((#def));
                }
            }
            Expr::ForLoop(f) => {
                self.visit_expr_mut(&mut f.expr);
                let counter = matches!(crate::facts::syntax::strip(&f.expr), Expr::Range(_))
                    && matches!(&*f.pat, Pat::Ident(p) if p.mutability.is_none() && p.by_ref.is_none());
                self.scopes.push(Scope::default());
                let kind = if counter { Kind::Stable } else { Kind::Other };
                self.bind_pattern(&f.pat, kind);
                self.loops += 1;
                self.visit_block_mut(&mut f.body);
                self.loops -= 1;
                self.scopes.pop();
            }
            Expr::Closure(c) => {
                self.scopes.push(Scope::default());
                for input in &c.inputs {
                    self.bind_pattern(input, Kind::Other);
                }
                self.visit_expr_mut(&mut c.body);
                self.scopes.pop();
            }
            Expr::Match(m) => {
                self.visit_expr_mut(&mut m.expr);
                for arm in &mut m.arms {
                    self.scopes.push(Scope::default());
                    self.bind_pattern(&arm.pat, Kind::Other);
                    if let Some((_, guard)) = &mut arm.guard {
                        self.visit_expr_mut(guard);
                    }
                    self.visit_expr_mut(&mut arm.body);
                    self.scopes.pop();
                }
            }
            Expr::If(i) => {
                // `if let p = …`: its names are the then-branch's
                self.scopes.push(Scope::default());
                self.visit_expr_mut(&mut i.cond);
                self.visit_block_mut(&mut i.then_branch);
                self.scopes.pop();
                if let Some((_, els)) = &mut i.else_branch {
                    self.visit_expr_mut(els);
                }
            }
            Expr::While(w) => {
                self.scopes.push(Scope::default());
                self.visit_expr_mut(&mut w.cond);
                self.loops += 1;
                self.visit_block_mut(&mut w.body);
                self.loops -= 1;
                self.scopes.pop();
            }
            Expr::Let(l) => {
                self.visit_expr_mut(&mut l.expr);
                self.bind_pattern(&l.pat, Kind::Other);
            }
            Expr::Loop(l) => {
                self.loops += 1;
                self.visit_block_mut(&mut l.body);
                self.loops -= 1;
            }
            _ => syn::visit_mut::visit_expr_mut(self, e),
        }
    }

    // a macro's tokens stay as written (a name a macro mentions has kept
    // its reads)
    fn visit_macro_mut(&mut self, _: &mut syn::Macro) {}

    // items inside the body are their own
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(src: &str) -> String {
        let mut item: ItemFn = syn::parse_str(src).unwrap();
        inline(&mut item);
        item.block.to_token_stream().to_string()
    }

    #[test]
    fn a_named_index_is_read_through_its_definition() {
        let out = run("fn f(#[tracked] u: &[f64], n: usize) -> f64 {
            let mut s = 0.0;
            for i in 1..n - 1 { for j in 1..n - 1 { let p = i * n + j; let q = p + n; s += u[p - 1] * u[q]; } }
            s }");
        assert!(
            out.contains("u [(i * n + j) - 1] * u [((i * n + j) + n)]"),
            "{out}"
        );
    }

    #[test]
    fn a_bound_named_in_a_loop_without_an_index_is_read_through() {
        let out = run("fn f(#[tracked] x: f64, n: usize) -> f64 {
            let mut s = 0.0;
            for i in 0..n { let m = i + 1; for j in 0..m { s += x * (j as f64); } }
            s }");
        assert!(out.contains("for j in 0 .. (i + 1)"), "{out}");
        // a body without a loop is left as it is
        let out = run("fn f(#[tracked] x: &[f64], n: usize) -> f64 { let k = n - 1; x[k] }");
        assert!(out.contains("x [k]"), "{out}");
    }

    #[test]
    fn what_may_change_keeps_its_let() {
        // `t` reads a `let mut`, `r` is printed, `m` is read after `i` is
        // bound again; the loop's own `m` is another name
        let out = run("fn f(x: &[f64], n: usize) -> f64 {
            let mut k = 0; let mut s = 0.0;
            for i in 0..n { let m = i + 1; let t = k + i; let r = i * 2; k += 1; s += x[m] + x[t] + x[r]; println!(\"{r}\"); let i = 0; s += x[m] + x[i]; }
            for m in 0..n { s += x[m]; }
            s }");
        assert!(out.contains("s += x [(i + 1)] + x [t] + x [r]"), "{out}");
        assert!(out.contains("let i = 0 ; s += x [m] + x [(0)]"), "{out}");
        assert!(out.contains("for m in 0 .. n { s += x [m] ; }"), "{out}");
        // a `let` that reads the name it binds keeps it
        let out = run("fn f(x: &[f64]) -> f64 { let mut s = 0.0; for i in 0..2 { let i = i + 1; s += x[i]; } s }");
        assert!(out.contains("let i = i + 1 ; s += x [i]"), "{out}");
    }
}
