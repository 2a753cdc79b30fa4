//! Long blocks without a lexical scope per `let`.
//!
//! Every `let` opens a scope that lasts to the end of its block, so a block
//! of n `let`s nests n scopes, and rustc's debug information walks them
//! recursively: a function of a few thousand `let`s (the user's, and its
//! companions, which hold several times as many) overflows rustc's stack
//! in a dev build. In a long block, runs of statements are grouped into
//! blocks of about √n statements, each handing the names later lines read
//! to one `let` of a tuple:
//!
//! ```text
//! let a = x * y;              let (a, mut b,) = {
//! let mut b = a.sin();            let a = x * y;
//! b += a;                         let mut b = a.sin();
//! …                               b += a;
//!                                 (a, b,)
//!                             };
//! ```
//!
//! The same values, computed in the same order; the scopes nest about 2√n
//! deep instead of n. A statement that could make a name the group cannot
//! hand on (an item, a macro), hold a borrow of a value the group moves
//! out (`&`, a closure, `ref`), or end the block (its tail) is left where
//! it is, between groups.

use proc_macro2::{TokenStream, TokenTree};
use quote::{quote, ToTokens};
use std::collections::{HashMap, HashSet};
use syn::visit_mut::VisitMut;
use syn::{Expr, Pat, Stmt};

/// Blocks with at least this many statements are grouped.
const LONG: usize = 256;

/// Whether `input` holds a block long enough to flatten (counted on the
/// tokens: statements end in `;`).
pub fn needed(input: &TokenStream) -> bool {
    fn walk(tokens: TokenStream) -> bool {
        let mut semis = 0;
        for t in tokens {
            match t {
                TokenTree::Punct(p) if p.as_char() == ';' => semis += 1,
                TokenTree::Group(g) if walk(g.stream()) => return true,
                _ => {}
            }
        }
        semis >= LONG
    }
    walk(input.clone())
}

/// `out` with its long blocks flattened; as it is if it does not parse as
/// items.
pub fn flatten(out: TokenStream) -> TokenStream {
    let Ok(mut file) = syn::parse2::<syn::File>(out.clone()) else {
        return out;
    };
    Flatten.visit_file_mut(&mut file);
    file.into_token_stream()
}

struct Flatten;

impl VisitMut for Flatten {
    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        syn::visit_mut::visit_block_mut(self, block);
        if block.stmts.len() >= LONG {
            flatten_block(&mut block.stmts);
        }
    }
}

/// Groups the statements of a long block (see the module's text).
fn flatten_block(stmts: &mut Vec<Stmt>) {
    let n = stmts.len();
    let size = ((n as f64).sqrt().ceil() as usize).max(64);
    // `let x;` declarations, hoisted to the top where no earlier line of
    // the block names `x` (their value is assigned later, inside a loop or
    // a block): declared together, a hundred to a statement
    let mut seen: HashSet<String> = HashSet::new();
    let mut hoisted: Vec<Declaration> = Vec::new();
    let mut keep = vec![true; n];
    for (k, stmt) in stmts.iter().enumerate() {
        if let Some(d) = declaration(stmt) {
            if !seen.contains(&d.ident.to_string()) {
                seen.insert(d.ident.to_string());
                hoisted.push(d);
                keep[k] = false;
                continue;
            }
        }
        mentions(&stmt.to_token_stream(), &mut |name| {
            seen.insert(name);
        });
    }
    let mut out: Vec<Stmt> = Vec::with_capacity(n / size + hoisted.len() / 100 + 2);
    for chunk in hoisted.chunks(100) {
        let pats = chunk.iter().map(|d| {
            let (i, m) = (&d.ident, d.mutable.then(|| quote!(mut)));
            quote!(#m #i)
        });
        let tys = chunk.iter().map(|d| match &d.ty {
            Some(ty) => ty.to_token_stream(),
            None => quote!(_),
        });
        // the lint levels the `let`s carried, each once
        let mut allows: Vec<&syn::Attribute> = Vec::new();
        let mut texts: HashSet<String> = HashSet::new();
        for a in chunk.iter().flat_map(|d| &d.allows) {
            if texts.insert(a.to_token_stream().to_string()) {
                allows.push(a);
            }
        }
        let declare = quote!(#[allow(unused_mut)] #(#allows)* let (#(#pats,)*): (#(#tys,)*););
        match syn::parse2::<Stmt>(declare) {
            Ok(stmt) => out.push(stmt),
            // (not expected: the block stays as written)
            Err(_) => return,
        }
    }
    let rest: Vec<Stmt> = std::mem::take(stmts)
        .into_iter()
        .zip(keep)
        .filter_map(|(stmt, keep)| keep.then_some(stmt))
        .collect();
    // the last statement that names each identifier
    let mut last: HashMap<String, usize> = HashMap::new();
    for (k, stmt) in rest.iter().enumerate() {
        mentions(&stmt.to_token_stream(), &mut |name| {
            last.insert(name, k);
        });
    }
    let mut group: Vec<Stmt> = Vec::new();
    let old = rest;
    let count = old.len();
    // the names the open group binds
    let mut locals: HashSet<String> = HashSet::new();
    for (k, stmt) in old.into_iter().enumerate() {
        let tail = k + 1 == count && matches!(stmt, Stmt::Expr(_, None));
        if tail || !groupable(&stmt, &locals) {
            close(&mut group, k, &last, &mut out);
            locals.clear();
            out.push(stmt);
            continue;
        }
        if let Stmt::Local(local) = &stmt {
            let mut names = Vec::new();
            pattern_names(&local.pat, &mut names);
            locals.extend(names.into_iter().map(|(i, _)| i.to_string()));
        }
        group.push(stmt);
        if group.len() == size {
            close(&mut group, k + 1, &last, &mut out);
            locals.clear();
        }
    }
    close(&mut group, count, &last, &mut out);
    *stmts = out;
}

/// Ends a group (the statements before `end` not yet grouped): one `let`
/// of the names it binds that a later statement reads, or the statements
/// as they are when it is short.
fn close(group: &mut Vec<Stmt>, end: usize, last: &HashMap<String, usize>, out: &mut Vec<Stmt>) {
    let stmts = std::mem::take(group);
    if stmts.len() < 2 {
        out.extend(stmts);
        return;
    }
    // the names bound in the group, the last binding of each, with its
    // `mut`, in order
    let mut bound: Vec<(syn::Ident, bool)> = Vec::new();
    for stmt in &stmts {
        if let Stmt::Local(local) = stmt {
            let mut names = Vec::new();
            pattern_names(&local.pat, &mut names);
            for (ident, mutable) in names {
                bound.retain(|(i, _)| *i != ident);
                bound.push((ident, mutable));
            }
        }
    }
    let handed: Vec<&(syn::Ident, bool)> = bound
        .iter()
        .filter(|(i, _)| last.get(&i.to_string()).is_some_and(|at| *at >= end))
        .collect();
    let tokens = if handed.is_empty() {
        quote!({ #(#stmts)* };)
    } else {
        let pats = handed.iter().map(|(i, m)| {
            let m = m.then(|| quote!(mut));
            quote!(#m #i)
        });
        let names = handed.iter().map(|(i, _)| i);
        quote! {
            #[allow(unused_mut)]
            let (#(#pats,)*) = { #(#stmts)* (#(#names,)*) };
        }
    };
    match syn::parse2::<Stmt>(tokens) {
        Ok(stmt) => out.push(stmt),
        Err(_) => out.extend(stmts),
    }
}

/// Whether a statement may go into a group whose `let`s bind `locals`:
/// a `let` of names whose value holds no borrow of those (what it holds
/// is handed on after they are moved out), an expression statement (its
/// borrows end with it), or a checking or printing macro. A `let` without
/// a value stays outside: a group hands on initialised names only.
fn groupable(stmt: &Stmt, locals: &HashSet<String>) -> bool {
    match stmt {
        Stmt::Local(local) => {
            local.attrs.iter().all(|a| a.path().is_ident("allow"))
                && simple(&local.pat)
                && local.init.as_ref().is_some_and(|init| {
                    init.diverge.is_none()
                        && !extends_a_temporary(&init.expr)
                        && !may_borrow(&init.expr, locals)
                })
        }
        Stmt::Expr(..) => true,
        Stmt::Macro(m) => m.mac.path.get_ident().is_some_and(|i| {
            [
                "assert",
                "assert_eq",
                "assert_ne",
                "debug_assert",
                "println",
                "eprintln",
            ]
            .contains(&i.to_string().as_str())
        }),
        _ => false,
    }
}

/// Methods that lend their receiver out: their value borrows it.
const LENDING: &[&str] = &[
    "iter",
    "iter_mut",
    "as_slice",
    "as_mut_slice",
    "as_ref",
    "as_mut",
    "first",
    "last",
    "first_mut",
    "last_mut",
    "get",
    "get_mut",
    "split_at",
    "split_at_mut",
    "chunks",
    "chunks_exact",
    "windows",
    "keys",
    "values",
    "values_mut",
    "borrow",
    "borrow_mut",
    "as_str",
    "chars",
    "lines",
    "split",
    "drain",
    "as_ptr",
    "as_mut_ptr",
    "deref",
];

/// Whether `e`'s value may borrow one of `locals`: a reference to a place
/// rooted at one (`&h`, `&mut h[i]`), a lending method of one
/// (`h.iter()`), a closure, or `ref`. A reference to a temporary (`&[a,
/// b]` passed to a call) ends with the statement.
fn may_borrow(e: &Expr, locals: &HashSet<String>) -> bool {
    struct Finder<'l> {
        locals: &'l HashSet<String>,
        found: bool,
    }
    impl Finder<'_> {
        fn rooted_here(&self, e: &Expr) -> bool {
            match e {
                Expr::Path(p) => p
                    .path
                    .get_ident()
                    .is_some_and(|i| self.locals.contains(&i.to_string())),
                Expr::Field(f) => self.rooted_here(&f.base),
                Expr::Index(i) => self.rooted_here(&i.expr),
                Expr::Paren(p) => self.rooted_here(&p.expr),
                Expr::Unary(u) => self.rooted_here(&u.expr),
                _ => false,
            }
        }
    }
    impl<'a> syn::visit::Visit<'a> for Finder<'_> {
        fn visit_expr(&mut self, e: &'a Expr) {
            match e {
                Expr::Reference(r) if self.rooted_here(&r.expr) => self.found = true,
                Expr::MethodCall(m)
                    if LENDING.contains(&m.method.to_string().as_str())
                        && self.rooted_here(&m.receiver) =>
                {
                    self.found = true
                }
                Expr::Closure(_) => self.found = true,
                _ => {}
            }
            syn::visit::visit_expr(self, e);
        }
        fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
            self.found |= p.by_ref.is_some();
        }
    }
    let mut finder = Finder {
        locals,
        found: false,
    };
    syn::visit::Visit::visit_expr(&mut finder, e);
    finder.found
}

/// A `let x;` (or `let mut x: T;`, with lint levels) hoisted.
struct Declaration {
    ident: syn::Ident,
    mutable: bool,
    ty: Option<syn::Type>,
    allows: Vec<syn::Attribute>,
}

/// `let x;` or `let mut x: T;`, with no attributes but lint levels.
fn declaration(stmt: &Stmt) -> Option<Declaration> {
    let Stmt::Local(local) = stmt else {
        return None;
    };
    if local.init.is_some() || !local.attrs.iter().all(|a| a.path().is_ident("allow")) {
        return None;
    }
    let (pat, ty) = match &local.pat {
        Pat::Type(t) => (&*t.pat, Some((*t.ty).clone())),
        other => (other, None),
    };
    match pat {
        Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => Some(Declaration {
            ident: p.ident.clone(),
            mutable: p.mutability.is_some(),
            ty,
            allows: local.attrs.clone(),
        }),
        _ => None,
    }
}

/// Names, `mut` names, `_`, tuples and types of them.
fn simple(pat: &Pat) -> bool {
    match pat {
        Pat::Ident(p) => p.by_ref.is_none() && p.subpat.is_none(),
        Pat::Wild(_) => true,
        Pat::Type(t) => simple(&t.pat),
        Pat::Tuple(t) => t.elems.iter().all(simple),
        Pat::Paren(p) => simple(&p.pat),
        _ => false,
    }
}

fn pattern_names(pat: &Pat, out: &mut Vec<(syn::Ident, bool)>) {
    match pat {
        Pat::Ident(p) => out.push((p.ident.clone(), p.mutability.is_some())),
        Pat::Type(t) => pattern_names(&t.pat, out),
        Pat::Tuple(t) => t.elems.iter().for_each(|e| pattern_names(e, out)),
        Pat::Paren(p) => pattern_names(&p.pat, out),
        _ => {}
    }
}

/// Whether a `let` of `e` keeps a temporary alive to the end of its
/// block (`let r = &f();`, `let a = [&g()];`), which a group's end would
/// drop. A borrow of a place (`&x`, `&mut v[i]`) borrows no temporary.
fn extends_a_temporary(e: &Expr) -> bool {
    match e {
        Expr::Reference(r) => !is_place(&r.expr),
        Expr::Paren(p) => extends_a_temporary(&p.expr),
        Expr::Cast(c) => extends_a_temporary(&c.expr),
        Expr::Array(_)
        | Expr::Tuple(_)
        | Expr::Struct(_)
        | Expr::Block(_)
        | Expr::If(_)
        | Expr::Match(_)
        | Expr::Unsafe(_) => has_ampersand(&e.to_token_stream()),
        _ => false,
    }
}

fn is_place(e: &Expr) -> bool {
    match e {
        Expr::Path(_) => true,
        Expr::Field(f) => is_place(&f.base),
        Expr::Index(i) => is_place(&i.expr),
        Expr::Paren(p) => is_place(&p.expr),
        Expr::Unary(u) => matches!(u.op, syn::UnOp::Deref(_)),
        _ => false,
    }
}

fn has_ampersand(tokens: &TokenStream) -> bool {
    tokens.clone().into_iter().any(|t| match t {
        TokenTree::Punct(p) => p.as_char() == '&',
        TokenTree::Group(g) => has_ampersand(&g.stream()),
        _ => false,
    })
}

/// Calls `f` with every identifier of `tokens`, and every word of a string
/// literal (a format string names its arguments inside it).
fn mentions(tokens: &TokenStream, f: &mut impl FnMut(String)) {
    for t in tokens.clone() {
        match t {
            TokenTree::Ident(i) => f(i.to_string()),
            TokenTree::Group(g) => mentions(&g.stream(), f),
            TokenTree::Literal(l) => {
                let text = l.to_string();
                if text.contains('"') {
                    for word in text.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
                        if !word.is_empty() {
                            f(word.to_string());
                        }
                    }
                }
            }
            TokenTree::Punct(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn long(lines: &str, then: &str) -> TokenStream {
        let mut body = String::from(lines);
        for k in 0..LONG {
            body.push_str(&format!("let q{k} = {k}.0 * x;\n"));
        }
        format!("fn f(x: f64, y: f64) -> f64 {{ {body} {then} }}")
            .parse()
            .unwrap()
    }

    #[test]
    fn statements_are_grouped_and_hand_on_what_later_lines_read() {
        let input = long(
            "let a = x * y; let mut b: f64 = a.sin(); b += a;",
            "b + q255",
        );
        assert!(needed(&input));
        let out = flatten(input).to_string();
        // the first group hands on `b` (read at the end), not `a`
        assert!(out.contains("let (mut b ,) = { let a = x * y ;"), "{out}");
        assert!(out.contains("(b ,) } ;"), "{out}");
        assert!(out.ends_with("b + q255 }"), "{out}");
    }

    #[test]
    fn borrows_items_and_macros_stay_between_groups() {
        // `r` borrows `h` of its group: it stays out, `h` is handed on
        let input = long(
            "let h = [y, 1.0]; let r = &h; let c = 2.0; fn g() {} println!(\"{c}\");",
            "r[0] + c",
        );
        let out = flatten(input).to_string();
        assert!(out.contains("let h = [y , 1.0] ; let r = & h ;"), "{out}");
        assert!(out.contains("fn g () { }"), "{out}");
        // a borrow of a parameter, or of a temporary passed to a call, is
        // grouped
        let input = long("let r = &y; let s = f(&[x, y]); let t = s + *r;", "t");
        let out = flatten(input).to_string();
        assert!(
            out.contains("{ let r = & y ; let s = f (& [x , y]) ; let t = s + * r ;"),
            "{out}"
        );
    }

    #[test]
    fn short_blocks_are_left_alone() {
        let input: TokenStream = "fn f(x: f64) -> f64 { let a = x; a }".parse().unwrap();
        assert!(!needed(&input));
    }
}
