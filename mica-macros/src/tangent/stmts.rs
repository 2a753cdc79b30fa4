//! Statements, blocks and control flow in forward mode: each line that
//! writes an active binding is followed (or, where it reads the old value,
//! preceded) by the line writing its tangent; loops and branches keep
//! their shape.

use super::activity::{mentions, reads, root};
use super::syntax::{branch_array, collects, is_swap, pattern_names, runs_again, Walk};
use super::{Tan, Val};
use crate::parse::Param;
use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::{Block, Expr, Pat, Stmt};

/// What the last expression of a block is.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Tail {
    /// a statement: its value is `()`
    Unit,
    /// the block's value: a pair (value, tangent)
    Value,
    /// the function's result
    Return,
    /// the block's value, which has no slope
    Plain,
    /// the block's value, a tuple of this many elements: the elements and
    /// their tangents side by side, one flat tuple (not a pair of tuples)
    Tuple(usize),
    /// the block's value and tangent assigned to the names on top of
    /// `Tan::assign` (the directional derivative's branches)
    Assign,
    /// the block's tangent alone (the second of a directional
    /// derivative's branch written twice, see `exprs.rs`)
    Tangent,
}

impl Tan<'_> {
    /// The function's body: tangents of its parameters bound, its lines.
    pub(crate) fn body(&mut self, block: &Block, params: &[Param]) -> TokenStream {
        let mut out = TokenStream::new();
        for p in params {
            let Some(name) = &p.binding else { continue };
            if !self.active.contains(&name.to_string()) {
                continue;
            }
            let dot = self.dot(name);
            let m = is_mut(&p.pat).then(|| quote!(mut));
            if p.tracked.is_some() {
                if !self.dir {
                    let d =
                        quote::format_ident!("d_{}", name, span = proc_macro2::Span::mixed_site());
                    out.extend(quote!(let #m #dot = #d;));
                } else if m.is_some() {
                    out.extend(quote!(let mut #dot = #dot;));
                }
            } else {
                // an untracked parameter that receives active values later
                out.extend(quote!(let mut #dot = ::mica::__private::zeros_like(&#name);));
            }
        }
        out.extend(self.stmts(&block.stmts, Tail::Return));
        out
    }

    /// A block's statements; `tail` says what its last expression is.
    pub(crate) fn stmts(&mut self, stmts: &[Stmt], tail: Tail) -> TokenStream {
        let mut out = TokenStream::new();
        let n = stmts.len();
        for (k, stmt) in stmts.iter().enumerate() {
            match stmt {
                Stmt::Expr(e, None) if k + 1 == n && tail == Tail::Assign => {
                    let mut pre = TokenStream::new();
                    let assigned = self.assign_value(e, &mut pre);
                    out.extend(pre);
                    out.extend(assigned);
                }
                Stmt::Expr(e, None) if k + 1 == n && matches!(tail, Tail::Tuple(_)) => {
                    let mut pre = TokenStream::new();
                    let flat = self.flat_tuple(e, &mut pre, tail);
                    out.extend(pre);
                    out.extend(flat);
                }
                Stmt::Expr(e, None) if k + 1 == n && tail != Tail::Unit => {
                    let mut pre = TokenStream::new();
                    let v = self.expr(e, &mut pre);
                    out.extend(pre);
                    out.extend(self.finish(v, e, tail));
                }
                _ => out.extend(self.stmt(stmt)),
            }
        }
        if (n == 0 || !matches!(stmts.last(), Some(Stmt::Expr(_, None)))) && tail == Tail::Value {
            {
                let e: Expr = syn::parse_quote!(());
                out.extend(self.finish(
                    Val {
                        p: quote!(()),
                        t: None,
                        cheap: true,
                    },
                    &e,
                    tail,
                ));
            }
        }
        out
    }

    /// The value of a block or a function: `(value, tangent)`, or the
    /// tangent alone for the directional derivative.
    pub(crate) fn finish(&mut self, v: Val, e: &Expr, tail: Tail) -> TokenStream {
        let t = v.t.unwrap_or_else(|| self.zero_of(e));
        let p = v.p;
        match (tail, self.dir) {
            (Tail::Return, true) => quote!(#t),
            (Tail::Unit, _) => quote!(#p;),
            (Tail::Plain, _) => quote!(#p),
            (Tail::Tangent, _) => quote!(#t),
            _ => quote!((#p, #t)),
        }
    }

    /// A value ending a block under `Tail::Tuple`: `(a, b)` as `(a, b, ta,
    /// tb)`, control flow as its arms' flat tuples.
    pub(crate) fn flat_tuple(
        &mut self,
        e: &Expr,
        pre: &mut TokenStream,
        tail: Tail,
    ) -> TokenStream {
        match e {
            Expr::Tuple(t) => {
                let (ps, ts) = self.elements(t.elems.iter(), pre);
                quote!((#(#ps,)* #(#ts,)*))
            }
            Expr::Paren(p) => self.flat_tuple(&p.expr, pre, tail),
            _ => self.control(e, pre, tail).p,
        }
    }

    /// `p = value; t = tangent;` for the names on top of `Tan::assign`.
    pub(crate) fn assign_value(&mut self, e: &Expr, pre: &mut TokenStream) -> TokenStream {
        let v = self.expr(e, pre);
        let t = v.t.unwrap_or_else(|| self.zero_of(e));
        let (pn, tn) = self.assign.last().cloned().expect("names to assign to");
        let p = v.p;
        quote!(#pn = #p; #tn = #t;)
    }

    fn stmt(&mut self, stmt: &Stmt) -> TokenStream {
        match stmt {
            Stmt::Local(l) => {
                let code = self.local(l);
                self.note_by_ref(l);
                code
            }
            Stmt::Item(_) | Stmt::Macro(_) => stmt.to_token_stream(),
            Stmt::Expr(e, semi) => {
                if !mentions(e, &self.active) && !super::syntax::exits(e) {
                    return stmt.to_token_stream();
                }
                let body = self.effect(e);
                match semi {
                    Some(_) => quote!(#body;),
                    None => body,
                }
            }
        }
    }

    fn local(&mut self, l: &syn::Local) -> TokenStream {
        let names = pattern_names(&l.pat);
        let active = names.iter().any(|n| self.active.contains(n));
        let Some(init) = &l.init else {
            if active {
                let dot = self.dot_pat(&l.pat);
                return quote!(#l let #dot;);
            }
            return l.to_token_stream();
        };
        if !active {
            if mentions(&init.expr, &self.active) && !reads(&init.expr, &self.active) {
                // a value with no slope computed by a block that writes
                // active bindings: follow the block
                if let Some((_, els)) = &init.diverge {
                    self.errors.at(
                        els,
                        "forward mode does not follow `let … else` here; write a `match`",
                    );
                }
                let mut pre = TokenStream::new();
                let v = self.expr(&init.expr, &mut pre);
                let (pat, p) = (&l.pat, v.p);
                return quote!(#pre let #pat = #p;);
            }
            return l.to_token_stream();
        }
        if self.dir {
            if let (Pat::Tuple(_), Expr::Call(c)) =
                (&l.pat, crate::facts::syntax::strip_parens(&init.expr))
            {
                if let Expr::Path(f) = &*c.func {
                    let name = f
                        .path
                        .segments
                        .last()
                        .map(|s| s.ident.to_string())
                        .unwrap_or_default();
                    self.errors.at(
                        &l.pat,
                        format!("`hvp` does not follow a call returning a tuple yet; put `{name}` in a `#[tape]` module beside this function (its helpers are followed), or ask `hvp` of a function whose calls return scalars"),
                    );
                    // (zero tangents: no second error for the same line)
                    let zero = self.k(0.0);
                    let dots = crate::facts::places::pattern_names(&l.pat)
                        .into_iter()
                        .map(|n| self.dot(&n));
                    return quote!(#l #(#[allow(unused_mut)] let mut #dots = #zero;)*);
                }
            }
        }
        if let Some((_, els)) = &init.diverge {
            self.errors.at(els, "forward mode does not follow `let … else` of a value with a slope; write a `match`");
            return l.to_token_stream();
        }
        let mut pre = TokenStream::new();
        self.flat = None;
        let v = self.expr(&init.expr, &mut pre);
        // `let (a, b) = <a tuple out of a branch>`: element by element (the
        // reverse of the directional derivative keeps no tuple binding a
        // branch could change)
        if let (Some((pn, tn)), Pat::Tuple(t)) = (self.flat.take(), &l.pat) {
            if t.elems.len() == pn.len() && v.p.to_string() == quote!((#(#pn,)*)).to_string() {
                let mut out = pre;
                for ((e, p), tv) in t.elems.iter().zip(&pn).zip(&tn) {
                    let dot = self.dot_pat(e);
                    out.extend(quote!(let #e = #p; let #dot = #tv;));
                }
                return out;
            }
        }
        let pat = &l.pat;
        let dot = self.dot_pat(pat);
        let p = v.p;
        // a value with no slope that running again could change anything
        // (a `loop`, a call), or a `collect`: its zero shaped from the value
        let (again, collects) = (runs_again(&init.expr), collects(&init.expr));
        if v.t.is_none() && (again || collects) && branch_array(&init.expr).is_none() {
            let pv = self.fresh("p");
            let zero = self.zero_of_value(&pv);
            return quote!(#pre let #pv = #p; let #dot = #zero; let #pat = #pv;);
        }
        let zero = v.t.is_none();
        let t = v.t.unwrap_or_else(|| self.zero_of(&init.expr));
        // `let x = x * 2.0;`: the tangent reads the old `x`
        if names.iter().any(|n| mentions_name(&init.expr, n)) {
            let (pv, tv) = (self.fresh("p"), self.fresh("t"));
            return quote!(#pre let #pv = #p; let #tv = #t; let #pat = #pv; let #dot = #tv;);
        }
        // a zero shaped from the value as written (`zeros_like(&acc)`):
        // made before the value is moved into the pattern
        if zero {
            return quote!(#pre let #dot = #t; let #pat = #p;);
        }
        quote!(#pre let #pat = #p; let #dot = #t;)
    }

    /// `let dot_n = 0;` for each name of `pat` that is active elsewhere
    /// but bound here to a constant.
    pub(crate) fn zero_bindings(&self, pat: &Pat) -> TokenStream {
        self.zero_bindings_by(pat, &[])
    }

    /// [`Self::zero_bindings`], where the names `by_ref` are bound to
    /// references (a walk of constants by `.iter()`): their zeros are
    /// references too.
    pub(crate) fn zero_bindings_by(&self, pat: &Pat, by_ref: &[String]) -> TokenStream {
        struct Idents(Vec<proc_macro2::Ident>);
        impl<'a> syn::visit::Visit<'a> for Idents {
            fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
                self.0.push(p.ident.clone());
                syn::visit::visit_pat_ident(self, p);
            }
        }
        let mut idents = Idents(Vec::new());
        syn::visit::Visit::visit_pat(&mut idents, pat);
        let mut out = TokenStream::new();
        for ident in idents.0 {
            if !self.active.contains(&ident.to_string()) {
                continue;
            }
            let dot = self.dot(&ident);
            let reference = by_ref.contains(&ident.to_string());
            out.extend(match (self.dir, reference) {
                (true, false) => {
                    quote!(let #dot = ::mica::__private::zero_value(::mica::detach(#ident));)
                }
                (true, true) => {
                    quote!(let #dot = &::mica::__private::zero_value(::mica::detach(*#ident));)
                }
                (false, false) => quote!(let #dot = ::mica::__private::zeros_like(&#ident);),
                (false, true) => quote!(let #dot = &::mica::__private::zeros_like(#ident);),
            });
        }
        out
    }

    /// A pattern with every name replaced by its tangent's name.
    pub(crate) fn dot_pat(&self, pat: &Pat) -> TokenStream {
        match pat {
            Pat::Ident(p) => {
                let m = &p.mutability;
                let dot = self.dot(&p.ident);
                quote!(#m #dot)
            }
            Pat::Type(t) => {
                let (inner, ty) = (self.dot_pat(&t.pat), &t.ty);
                quote!(#inner: #ty)
            }
            Pat::Tuple(t) => {
                let elems = t.elems.iter().map(|e| self.dot_pat(e));
                quote!((#(#elems),*))
            }
            Pat::Reference(r) => {
                let inner = self.dot_pat(&r.pat);
                quote!(&#inner)
            }
            Pat::Paren(p) => self.dot_pat(&p.pat),
            _ => quote!(_),
        }
    }

    /// An expression statement that may write active bindings.
    pub(crate) fn effect(&mut self, e: &Expr) -> TokenStream {
        match e {
            Expr::Assign(a) => self.assign(&a.left, &a.right),
            Expr::Binary(b) if is_compound(&b.op) => self.compound(b),
            Expr::MethodCall(m) if root(&m.receiver).is_some_and(|r| self.active.contains(&r)) => {
                self.mutation(m)
            }
            Expr::Call(c) if is_swap(c) => {
                let (a, b) = (self.place_dot(&c.args[0]), self.place_dot(&c.args[1]));
                quote!(#e; ::core::mem::swap(#a, #b))
            }
            Expr::If(_)
            | Expr::Match(_)
            | Expr::Block(_)
            | Expr::Unsafe(_)
            | Expr::ForLoop(_)
            | Expr::While(_)
            | Expr::Loop(_)
            | Expr::Return(_)
            | Expr::Break(_) => {
                let mut pre = TokenStream::new();
                let v = self.control(e, &mut pre, Tail::Unit);
                let p = v.p;
                quote!(#pre #p)
            }
            Expr::Macro(_) | Expr::Continue(_) => e.to_token_stream(),
            _ => {
                let mut pre = TokenStream::new();
                let v = self.expr(e, &mut pre);
                let p = v.p;
                quote!(#pre #p)
            }
        }
    }

    fn assign(&mut self, left: &Expr, right: &Expr) -> TokenStream {
        let active = root(left).is_some_and(|r| self.active.contains(&r));
        let mut pre = TokenStream::new();
        let v = self.expr(right, &mut pre);
        if !active {
            let p = v.p;
            return quote!(#pre #left = #p);
        }
        let dl = self.place_dot(left);
        let t = v.t.unwrap_or_else(|| self.zero_of(right));
        let (pv, tv) = (self.fresh("p"), self.fresh("t"));
        let p = v.p;
        quote!(#pre let #pv = #p; let #tv = #t; #left = #pv; #dl = #tv)
    }

    fn compound(&mut self, b: &syn::ExprBinary) -> TokenStream {
        use syn::BinOp::*;
        let left = &b.left;
        let active = root(left).is_some_and(|r| self.active.contains(&r));
        let mut pre = TokenStream::new();
        let v = self.expr(&b.right, &mut pre);
        let op = &b.op;
        if !active {
            let p = v.p;
            return quote!(#pre #left #op #p);
        }
        let dl = self.place_dot(left);
        match (b.op, v.t) {
            (AddAssign(_) | SubAssign(_), None) => {
                let p = v.p;
                quote!(#pre #left #op #p)
            }
            (AddAssign(_) | SubAssign(_), Some(t)) => {
                let tv = self.fresh("t");
                let p = v.p;
                quote!(#pre let #tv = #t; #left #op #p; #dl #op #tv)
            }
            (MulAssign(_), t) => {
                let r = self.share(v.p, v.cheap, &mut pre);
                let tv = self.fresh("t");
                let new_t = match t {
                    Some(t) => quote!(#dl * #r + #left * #t),
                    None => quote!(#dl * #r),
                };
                quote!(#pre let #tv = #new_t; #left *= #r; #dl = #tv)
            }
            (_, t) => {
                let r = self.share(v.p, v.cheap, &mut pre);
                let tv = self.fresh("t");
                let new_t = match t {
                    Some(t) => quote!((#dl - (#left / #r) * #t) / #r),
                    None => quote!(#dl / #r),
                };
                quote!(#pre let #tv = #new_t; #left /= #r; #dl = #tv)
            }
        }
    }

    /// `v.push(e)` and the other writing methods of an active `Vec` or
    /// array: the same call on its tangent.
    fn mutation(&mut self, m: &syn::ExprMethodCall) -> TokenStream {
        let name = m.method.to_string();
        let dr = self.place_dot(&m.receiver);
        let method = &m.method;
        let mut pre = TokenStream::new();
        let (mut ps, mut ts) = (Vec::new(), Vec::new());
        let writes_values = super::activity::WRITING_METHODS.contains(&name.as_str());
        for (k, a) in m.args.iter().enumerate() {
            let v = self.expr(a, &mut pre);
            // `insert(i, e)` and `resize(n, e)`: the first is an index
            let index = k == 0 && (name == "insert" || name == "resize");
            if index || !writes_values {
                let p = self.share(v.p, v.cheap, &mut pre);
                ps.push(p.clone());
                ts.push(p);
                continue;
            }
            let t = v.t.unwrap_or_else(|| self.zero_of(a));
            ps.push(v.p);
            ts.push(t);
        }
        let r = &m.receiver;
        const SAME: &[&str] = &[
            "clear",
            "truncate",
            "swap",
            "reverse",
            "pop",
            "remove",
            "rotate_left",
            "rotate_right",
        ];
        if !writes_values && !SAME.contains(&name.as_str()) {
            self.errors.at(
                &m.method,
                format!("forward mode does not follow `.{name}()` on a value with a slope; write the loop it stands for"),
            );
        }
        quote!(#pre #r.#method(#(#ps),*); #dr.#method(#(#ts),*))
    }
}

fn is_compound(op: &syn::BinOp) -> bool {
    use syn::BinOp::*;
    matches!(
        op,
        AddAssign(_) | SubAssign(_) | MulAssign(_) | DivAssign(_)
    )
}

fn is_mut(pat: &Pat) -> bool {
    matches!(pat, Pat::Ident(p) if p.mutability.is_some())
}

fn mentions_name(e: &Expr, name: &str) -> bool {
    let mut one = std::collections::HashSet::new();
    one.insert(name.to_string());
    mentions(e, &one)
}

impl Tan<'_> {
    /// `for` in forward mode.
    pub(crate) fn for_loop(&mut self, f: &syn::ExprForLoop, pre: &mut TokenStream) -> TokenStream {
        let label = &f.label;
        let syntax = Walk::of(&f.pat, &f.expr);
        // names a walk of constants binds to references (`for v in
        // x.iter()`): their zero tangents are references too
        let by_ref_names: Vec<String> = syntax
            .iter()
            .flat_map(|w| w.parts.iter())
            .filter(|(_, _, by_ref)| *by_ref)
            .flat_map(|(pat, _, _)| pattern_names(pat))
            .collect();
        let walk = syntax.filter(|w| w.parts.iter().any(|(_, b, _)| reads(b, &self.active)));
        self.loops
            .push((label.as_ref().map(|l| l.name.ident.to_string()), None));
        let out = match walk {
            None => {
                if mentions(&f.expr, &self.active) && reads(&f.expr, &self.active) {
                    self.errors.at(&f.expr, "forward mode walks arrays by `for v in &x`, `x.iter()`, `.enumerate()` and `.zip(…)`; write the loop by index");
                }
                let (pat, iter) = (&f.pat, &f.expr);
                // a name active elsewhere bound here to a constant
                let zeros = self.zero_bindings_by(pat, &by_ref_names);
                // those bound to references read as the walks above read
                // theirs: `(*v)`, with the tangent `(*dot_v)`
                let outer_by_ref = self.by_ref.clone();
                self.by_ref.extend(
                    by_ref_names
                        .iter()
                        .filter(|n| self.active.contains(*n))
                        .cloned(),
                );
                let inner = self.stmts(&f.body.stmts, Tail::Unit);
                self.by_ref = outer_by_ref;
                quote!(#label for #pat in #iter { #zeros #inner })
            }
            Some(walk) => {
                let k = self.fresh("k");
                let mut lens = Vec::new();
                let mut binds = TokenStream::new();
                let outer_by_ref = self.by_ref.clone();
                let mut derefs = Vec::new();
                for (pat, base, by_ref) in &walk.parts {
                    let v = self.expr(base, pre);
                    let b = self.share(v.p, v.cheap, pre);
                    lens.push(quote!(#b.len()));
                    // the directional derivative is reversed again, which
                    // reads elements by value: `*v` in the body becomes `v`
                    let by_ref = *by_ref && !self.dir;
                    if self.dir {
                        derefs.extend(pattern_names(pat));
                    } else if by_ref {
                        self.by_ref.extend(pattern_names(pat));
                    }
                    let amp = by_ref.then(|| quote!(&));
                    binds.extend(quote!(let #pat = #amp #b[#k];));
                    match (v.t, matches!(pat, Pat::Wild(_))) {
                        (Some(t), false) => {
                            let tb = self.share(t, v.cheap, pre);
                            let dot = self.dot_pat(pat);
                            binds.extend(quote!(let #dot = #amp #tb[#k];));
                        }
                        // a constant walked beside a tracked one: its zero
                        // tangents are references when its elements are
                        (None, false) if by_ref => {
                            binds.extend(self.zero_bindings_by(pat, &pattern_names(pat)))
                        }
                        (None, false) => binds.extend(self.zero_bindings(pat)),
                        _ => {}
                    }
                }
                if let Some(i) = walk.index {
                    binds.extend(quote!(let #i = #k;));
                }
                let len = lens
                    .into_iter()
                    .reduce(|a, b| quote!(#a.min(#b)))
                    .unwrap_or_default();
                let mut body = f.body.clone();
                if !derefs.is_empty() {
                    syn::visit_mut::VisitMut::visit_block_mut(&mut Derefs(derefs), &mut body);
                }
                let inner = self.stmts(&body.stmts, Tail::Unit);
                self.by_ref = outer_by_ref;
                quote!(#label for #k in 0..#len { #binds #inner })
            }
        };
        self.loops.pop();
        out
    }
}

/// `*v` → `v` for the names of a walk bound by value.
struct Derefs(Vec<String>);

impl syn::visit_mut::VisitMut for Derefs {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if let Expr::Unary(u) = e {
            if let (syn::UnOp::Deref(_), Expr::Path(p)) = (&u.op, &*u.expr) {
                if p.path
                    .get_ident()
                    .is_some_and(|i| self.0.contains(&i.to_string()))
                {
                    *e = (*u.expr).clone();
                    return;
                }
            }
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }
}
