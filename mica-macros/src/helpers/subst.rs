//! What inlining a helper does to its body: a parameter that borrows the
//! caller's array is replaced by the place it borrows, wherever the name
//! still means the parameter, and a helper's own name that the caller's
//! arguments also use is renamed, so no argument is captured.

use proc_macro2::{Ident, TokenStream, TokenTree};
use quote::{format_ident, ToTokens};
use std::collections::{HashMap, HashSet};
use syn::visit::Visit;
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, Pat, Stmt};

/// The names a pattern binds (idents of `Pat::Ident`, at any depth).
pub fn binds(pat: &Pat, name: &str) -> bool {
    crate::facts::places::pattern_names(pat)
        .iter()
        .any(|i| i == name)
}

/// Every name bound anywhere in a function: parameters, `let`s, loop and
/// closure patterns, arms. In a pattern that may fail to match (an arm,
/// `if let`, `while let`, `let … else`), a bare name that starts with a
/// capital (`None`, `Empty`, `MAX`) is a variant or a constant the
/// pattern compares with, not a binding: renamed, it would match
/// anything.
#[derive(Default)]
pub struct Bound(pub HashSet<String>);

impl Bound {
    fn refutable(&mut self, pat: &Pat) {
        Refutable(self).visit_pat(pat);
    }
}

impl<'ast> Visit<'ast> for Bound {
    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        self.0.insert(p.ident.to_string());
        syn::visit::visit_pat_ident(self, p);
    }
    fn visit_arm(&mut self, a: &'ast syn::Arm) {
        self.refutable(&a.pat);
        if let Some((_, guard)) = &a.guard {
            self.visit_expr(guard);
        }
        self.visit_expr(&a.body);
    }
    fn visit_expr_let(&mut self, l: &'ast syn::ExprLet) {
        self.refutable(&l.pat);
        self.visit_expr(&l.expr);
    }
    fn visit_local(&mut self, l: &'ast syn::Local) {
        match &l.init {
            Some(init) if init.diverge.is_some() => self.refutable(&l.pat),
            _ => self.visit_pat(&l.pat),
        }
        if let Some(init) = &l.init {
            self.visit_expr(&init.expr);
            if let Some((_, otherwise)) = &init.diverge {
                self.visit_expr(otherwise);
            }
        }
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// The names a pattern that may fail to match binds.
struct Refutable<'a>(&'a mut Bound);

impl<'ast> Visit<'ast> for Refutable<'_> {
    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        let compared = p.by_ref.is_none()
            && p.mutability.is_none()
            && p.subpat.is_none()
            && p.ident
                .to_string()
                .starts_with(|c: char| c.is_ascii_uppercase());
        if !compared {
            self.0 .0.insert(p.ident.to_string());
        }
        syn::visit::visit_pat_ident(self, p);
    }
    // a range's or a literal's expressions bind nothing
    fn visit_expr(&mut self, _: &'ast Expr) {}
}

/// Renames bindings and their uses, uniformly: every occurrence of a
/// renamed name gets the same new name, so what shadows what is unchanged.
pub struct Rename(pub HashMap<String, Ident>);

impl Rename {
    fn tokens(&self, tokens: TokenStream) -> TokenStream {
        tokens
            .into_iter()
            .map(|tt| match tt {
                TokenTree::Ident(i) => match self.0.get(&i.to_string()) {
                    Some(new) => TokenTree::Ident(format_ident!("{}", new, span = i.span())),
                    None => TokenTree::Ident(i),
                },
                TokenTree::Group(g) => {
                    let mut group = proc_macro2::Group::new(g.delimiter(), self.tokens(g.stream()));
                    group.set_span(g.span());
                    TokenTree::Group(group)
                }
                other => other,
            })
            .collect()
    }
}

impl VisitMut for Rename {
    fn visit_pat_ident_mut(&mut self, p: &mut syn::PatIdent) {
        if let Some(new) = self.0.get(&p.ident.to_string()) {
            p.ident = format_ident!("{}", new, span = p.ident.span());
        }
        visit_mut::visit_pat_ident_mut(self, p);
    }
    fn visit_expr_path_mut(&mut self, p: &mut syn::ExprPath) {
        if p.qself.is_none() && p.path.segments.len() == 1 {
            let segment = &mut p.path.segments[0];
            if let Some(new) = self.0.get(&segment.ident.to_string()) {
                segment.ident = format_ident!("{}", new, span = segment.ident.span());
            }
        }
    }
    fn visit_field_value_mut(&mut self, f: &mut syn::FieldValue) {
        // `S { x }` becomes `S { x: x_1 }`
        if f.colon_token.is_none() {
            f.colon_token = Some(Default::default());
        }
        visit_mut::visit_field_value_mut(self, f);
    }
    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        m.tokens = self.tokens(std::mem::take(&mut m.tokens));
    }
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// What a borrowing parameter stands for in the helper's body.
pub struct Borrow {
    /// the parameter's name
    pub name: String,
    /// the place it borrows (`d`, `m[i]`, a reference the caller holds)
    pub place: Expr,
    /// what the name is where it stands alone (`&d`, `&mut d`, `w`)
    pub bare: Expr,
    /// for `&x[lo..hi]`: the first element and the end
    pub slice: Option<(Expr, Option<Expr>)>,
    /// the place is the value itself, never a reference the caller holds
    /// (an iterator's element: `|v| *v` is the element)
    pub value: bool,
    /// what the name is as a call's argument, where that is not `bare`:
    /// `&xs[i]` for an element an `xs.iter()` borrows (`|x| f(x)`)
    pub arg: Option<Expr>,
}

impl Borrow {
    /// A borrow of `place` by a parameter, `bare` where its name stands
    /// alone, a part of it where `slice` says.
    pub fn of(name: String, place: Expr, bare: Expr, slice: Option<(Expr, Option<Expr>)>) -> Self {
        Borrow {
            name,
            place,
            bare,
            slice,
            value: false,
            arg: None,
        }
    }

    fn is_name(&self, expr: &Expr) -> bool {
        match expr {
            Expr::Paren(p) => self.is_name(&p.expr),
            Expr::Path(p) => p.qself.is_none() && p.path.is_ident(self.name.as_str()),
            _ => false,
        }
    }

    fn derefs_to_name(&self, expr: &Expr) -> bool {
        match expr {
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => self.derefs_to_name(&u.expr),
            Expr::Paren(p) => self.derefs_to_name(&p.expr),
            other => self.is_name(other),
        }
    }

    /// Whether the place is a name the caller passed for a reference
    /// parameter (so a reference it holds; a method's receiver may be the
    /// value itself).
    fn is_place_name(&self) -> bool {
        self.name != "self"
            && matches!(&self.place, Expr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some())
    }

    /// The place as a receiver: `x[lo..hi]` for a slice.
    fn receiver(&self) -> Expr {
        match &self.slice {
            None => self.place.clone(),
            Some(_) => match &self.bare {
                Expr::Reference(r) => (*r.expr).clone(),
                other => other.clone(),
            },
        }
    }

    fn tokens(&self, tokens: TokenStream) -> TokenStream {
        let list: Vec<TokenTree> = tokens.into_iter().collect();
        let mut out = Vec::new();
        for (k, tt) in list.iter().enumerate() {
            match tt {
                TokenTree::Ident(i) if i == self.name.as_str() => {
                    let postfix = match list.get(k + 1) {
                        Some(TokenTree::Group(g)) => {
                            g.delimiter() == proc_macro2::Delimiter::Bracket
                        }
                        Some(TokenTree::Punct(p)) => p.as_char() == '.',
                        _ => false,
                    };
                    let with = if postfix && self.slice.is_none() {
                        self.place.to_token_stream()
                    } else {
                        self.bare.to_token_stream()
                    };
                    out.push(TokenTree::Group(proc_macro2::Group::new(
                        proc_macro2::Delimiter::Parenthesis,
                        with,
                    )));
                }
                TokenTree::Group(g) => {
                    let mut group = proc_macro2::Group::new(g.delimiter(), self.tokens(g.stream()));
                    group.set_span(g.span());
                    out.push(TokenTree::Group(group));
                }
                other => out.push(other.clone()),
            }
        }
        out.into_iter().collect()
    }
}

/// `lo + i`, each side parenthesised unless it is one term.
fn offset(lo: &Expr, index: &Expr) -> Expr {
    let term = |e: &Expr| -> Expr {
        match e {
            Expr::Path(_)
            | Expr::Lit(_)
            | Expr::MethodCall(_)
            | Expr::Index(_)
            | Expr::Paren(_) => e.clone(),
            Expr::Binary(b) if matches!(b.op, syn::BinOp::Mul(_) | syn::BinOp::Add(_)) => e.clone(),
            _ => syn::parse_quote!((#e)),
        }
    };
    let (lo, index) = (term(lo), term(index));
    syn::parse_quote!(#lo + #index)
}

impl VisitMut for Borrow {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        match e {
            Expr::Index(ix) if self.is_name(&ix.expr) => {
                self.visit_expr_mut(&mut ix.index);
                match &self.slice {
                    // `s[a..b]` of `&x[lo..hi]`: `x[lo + a..lo + b]`
                    Some((lo, hi)) => {
                        let index = match &*ix.index {
                            Expr::Range(r) => {
                                let start = match &r.start {
                                    Some(a) => offset(lo, a),
                                    None => lo.clone(),
                                };
                                let end = match (&r.end, hi) {
                                    (Some(b), _) => Some(offset(lo, b)),
                                    (None, Some(hi)) => Some(hi.clone()),
                                    (None, None) => None,
                                };
                                let limits = r.limits;
                                Expr::Range(syn::ExprRange {
                                    attrs: Vec::new(),
                                    start: Some(Box::new(start)),
                                    limits,
                                    end: end.map(Box::new),
                                })
                            }
                            index => offset(lo, index),
                        };
                        *ix.index = index;
                        *ix.expr = self.place.clone();
                    }
                    None => *ix.expr = self.place.clone(),
                }
            }
            Expr::MethodCall(m) if self.is_name(&m.receiver) => {
                self.args(&mut m.args);
                if let (Some((lo, hi)), true) =
                    (&self.slice, m.method == "len" && m.args.is_empty())
                {
                    let place = &self.place;
                    // the start subtracted whole: `(lo + 4) - (lo + 2)`
                    let lo = crate::facts::syntax::term(lo);
                    *e = match hi {
                        Some(hi) => syn::parse_quote!((#hi - #lo)),
                        None => syn::parse_quote!((#place.len() - #lo)),
                    };
                } else {
                    *m.receiver = self.receiver();
                }
            }
            // `*a`, `**a`: the place itself; where the caller passed a
            // reference it holds (`u(w)`), what it refers to
            Expr::Unary(u)
                if matches!(u.op, syn::UnOp::Deref(_)) && self.derefs_to_name(&u.expr) =>
            {
                let held = !self.value
                    && self.slice.is_none()
                    && !matches!(self.bare, Expr::Reference(_))
                    && self.is_place_name();
                let place = self.receiver();
                *e = if held {
                    syn::parse_quote!((*#place))
                } else {
                    place
                };
            }
            Expr::Call(c) if self.arg.is_some() => {
                self.visit_expr_mut(&mut c.func);
                self.args(&mut c.args);
            }
            Expr::MethodCall(m) if self.arg.is_some() => {
                self.visit_expr_mut(&mut m.receiver);
                self.args(&mut m.args);
            }
            Expr::Field(f) if self.is_name(&f.base) => *f.base = self.receiver(),
            Expr::Path(_) if self.is_name(e) => {
                // a part (`&x[a..b]`) stands where its name stood: what is
                // said of it points at the name
                let mut bare = self.bare.clone();
                if let (Expr::Reference(r), Some(_)) = (&mut bare, &self.slice) {
                    r.and_token.span = syn::spanned::Spanned::span(&*e);
                }
                *e = bare;
            }
            _ => visit_mut::visit_expr_mut(self, e),
        }
    }

    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        self.stmts(&mut block.stmts);
    }

    fn visit_expr_closure_mut(&mut self, c: &mut syn::ExprClosure) {
        if !c.inputs.iter().any(|p| binds(p, &self.name)) {
            self.visit_expr_mut(&mut c.body);
        }
    }

    fn visit_expr_for_loop_mut(&mut self, f: &mut syn::ExprForLoop) {
        self.visit_expr_mut(&mut f.expr);
        if !binds(&f.pat, &self.name) {
            self.visit_block_mut(&mut f.body);
        }
    }

    fn visit_arm_mut(&mut self, arm: &mut syn::Arm) {
        if !binds(&arm.pat, &self.name) {
            if let Some((_, guard)) = &mut arm.guard {
                self.visit_expr_mut(guard);
            }
            self.visit_expr_mut(&mut arm.body);
        }
    }

    fn visit_expr_if_mut(&mut self, i: &mut syn::ExprIf) {
        if !self.condition_shadows(&mut i.cond) {
            self.visit_block_mut(&mut i.then_branch);
        }
        if let Some((_, other)) = &mut i.else_branch {
            self.visit_expr_mut(other);
        }
    }

    fn visit_expr_while_mut(&mut self, w: &mut syn::ExprWhile) {
        if !self.condition_shadows(&mut w.cond) {
            self.visit_block_mut(&mut w.body);
        }
    }

    /// `vec![…]`'s elements and length as expressions (`s[j]` of a
    /// sub-slice `s` is then `x[lo + j]`); any other macro's tokens, name
    /// by name
    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        if m.path.segments.last().is_some_and(|s| s.ident == "vec") {
            let tokens = &m.tokens;
            if let Ok(mut repeat) = syn::parse2::<syn::ExprRepeat>(quote::quote!([#tokens])) {
                self.visit_expr_mut(&mut repeat.expr);
                self.visit_expr_mut(&mut repeat.len);
                let (value, count) = (&repeat.expr, &repeat.len);
                m.tokens = quote::quote!(#value; #count);
                return;
            }
            if let Ok(mut list) = syn::parse2::<syn::ExprArray>(quote::quote!([#tokens])) {
                list.elems.iter_mut().for_each(|e| self.visit_expr_mut(e));
                let elems = &list.elems;
                m.tokens = quote::quote!(#elems);
                return;
            }
        }
        m.tokens = self.tokens(std::mem::take(&mut m.tokens));
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

impl Borrow {
    /// A call's arguments: the name itself is [`arg`](Self::arg) where set.
    fn args(&mut self, args: &mut syn::punctuated::Punctuated<Expr, syn::Token![,]>) {
        for a in args.iter_mut() {
            match &self.arg {
                Some(arg) if self.is_name(a) => *a = arg.clone(),
                _ => self.visit_expr_mut(a),
            }
        }
    }

    /// An `if`'s or a `while`'s condition visited; whether it is an `if
    /// let` / `while let` whose pattern binds the name again.
    fn condition_shadows(&mut self, cond: &mut Expr) -> bool {
        match cond {
            Expr::Let(l) => {
                self.visit_expr_mut(&mut l.expr);
                binds(&l.pat, &self.name)
            }
            cond => {
                self.visit_expr_mut(cond);
                false
            }
        }
    }

    /// A block's statements, up to a `let` that shadows the name (its
    /// initialiser still reads the parameter).
    pub fn stmts(&mut self, stmts: &mut [Stmt]) {
        for stmt in stmts {
            match stmt {
                Stmt::Local(local) => {
                    if let Some(init) = &mut local.init {
                        self.visit_expr_mut(&mut init.expr);
                        if let Some((_, diverge)) = &mut init.diverge {
                            self.visit_expr_mut(diverge);
                        }
                    }
                    if binds(&local.pat, &self.name) {
                        return;
                    }
                }
                Stmt::Item(_) => {}
                Stmt::Expr(e, _) => self.visit_expr_mut(e),
                Stmt::Macro(m) => self.visit_macro_mut(&mut m.mac),
            }
        }
    }
}

/// Renames, in statements where `name` means an array bound outside them,
/// every binding that shadows it (a closure's parameter, a loop's or an
/// arm's pattern, `if let`, a `let`), each within its own scope, so that
/// `name` means the array wherever it is written: a view read as its
/// array's elements then reads that array.
pub struct Unshadow<'a> {
    pub name: &'a str,
    pub fresh: &'a mut dyn FnMut() -> Ident,
}

impl Unshadow<'_> {
    /// An `if`'s or a `while`'s condition and the block it guards: an `if
    /// let` (`while let`) that binds the name renames it in its pattern
    /// and the block.
    fn guarded(&mut self, cond: &mut Expr, block: &mut syn::Block) {
        match cond {
            Expr::Let(l) if binds(&l.pat, self.name) => {
                self.visit_expr_mut(&mut l.expr);
                let mut rename = self.renaming();
                rename.visit_pat_mut(&mut l.pat);
                rename.visit_block_mut(block);
            }
            cond => {
                self.visit_expr_mut(cond);
                self.visit_block_mut(block);
            }
        }
    }

    fn renaming(&mut self) -> Rename {
        let new = (self.fresh)();
        Rename(HashMap::from([(self.name.to_string(), new)]))
    }

    /// A block's statements: a `let` that binds the name renames it from
    /// there on (its value, before it, reads the array).
    pub fn stmts(&mut self, stmts: &mut [Stmt]) {
        for k in 0..stmts.len() {
            let (head, tail) = stmts.split_at_mut(k + 1);
            match &mut head[k] {
                Stmt::Local(local) if binds(&local.pat, self.name) => {
                    if let Some(init) = &mut local.init {
                        self.visit_expr_mut(&mut init.expr);
                        if let Some((_, diverge)) = &mut init.diverge {
                            self.visit_expr_mut(diverge);
                        }
                    }
                    let mut rename = self.renaming();
                    rename.visit_pat_mut(&mut local.pat);
                    tail.iter_mut().for_each(|s| rename.visit_stmt_mut(s));
                    return;
                }
                stmt => self.visit_stmt_mut(stmt),
            }
        }
    }
}

impl VisitMut for Unshadow<'_> {
    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        self.stmts(&mut block.stmts);
    }

    fn visit_expr_closure_mut(&mut self, c: &mut syn::ExprClosure) {
        if c.inputs.iter().any(|p| binds(p, self.name)) {
            let mut rename = self.renaming();
            c.inputs.iter_mut().for_each(|p| rename.visit_pat_mut(p));
            rename.visit_expr_mut(&mut c.body);
        } else {
            visit_mut::visit_expr_closure_mut(self, c);
        }
    }

    fn visit_expr_for_loop_mut(&mut self, f: &mut syn::ExprForLoop) {
        self.visit_expr_mut(&mut f.expr);
        if binds(&f.pat, self.name) {
            let mut rename = self.renaming();
            rename.visit_pat_mut(&mut f.pat);
            rename.visit_block_mut(&mut f.body);
        } else {
            self.visit_block_mut(&mut f.body);
        }
    }

    fn visit_arm_mut(&mut self, arm: &mut syn::Arm) {
        if binds(&arm.pat, self.name) {
            let mut rename = self.renaming();
            rename.visit_arm_mut(arm);
        } else {
            visit_mut::visit_arm_mut(self, arm);
        }
    }

    fn visit_expr_if_mut(&mut self, i: &mut syn::ExprIf) {
        self.guarded(&mut i.cond, &mut i.then_branch);
        if let Some((_, other)) = &mut i.else_branch {
            self.visit_expr_mut(other);
        }
    }

    fn visit_expr_while_mut(&mut self, w: &mut syn::ExprWhile) {
        self.guarded(&mut w.cond, &mut w.body);
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}
