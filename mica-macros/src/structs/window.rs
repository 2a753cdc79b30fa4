//! `#[tracked] let m: Mlp = …;` in the window form: the struct's leaves
//! become knobs of their own, declared where it was.
//!
//! ```text
//! #[tracked] let m: Mlp = start.clone();
//! tape! { let loss = m.w[0] * m.b; }
//! backward!(loss);
//! let g = gradient!(m);
//! ```
//!
//! is written
//!
//! ```text
//! let m·whole: Mlp = start.clone();
//! #[tracked] let m·w: [f64; 2] = m·whole.w;
//! #[tracked] let m·b: f64 = m·whole.b;
//! tape! { let loss = m·w[0] * m·b; }
//! backward!(loss);
//! let g = { let mut g = zeros_like(&m·whole); g.w = gradient!(m·w).to_owned(); …; g };
//! ```

use super::leaf::Tracked;
use super::leaves::{generic_names, tracked_struct};
use super::rewrite;
use crate::errors::Errors;
use crate::parse::is_tracked;
use proc_macro2::{Delimiter, Group, Ident, TokenStream, TokenTree};
use quote::{format_ident, quote, ToTokens};
use syn::visit::Visit;
use syn::{ItemFn, Pat, Stmt};

/// Rewrites the function's `#[tracked] let`s of structs (with a table) and
/// their reads; whether there was one.
pub fn knobs(item: &mut ItemFn, outer: &[String], errors: &mut Errors) -> bool {
    let generic = generic_names(&item.sig, outer);
    let mut roots: Vec<Tracked> = Vec::new();
    let mut stmts = Vec::new();
    for stmt in std::mem::take(&mut item.block.stmts) {
        let Some((name, ty, init)) = struct_let(&stmt) else {
            stmts.push(stmt);
            continue;
        };
        let whole = format_ident!("__mica_{}_whole", name, span = name.span());
        let Some(mut t) = tracked_struct(name.clone(), whole.clone(), &ty, &generic, errors) else {
            stmts.push(stmt);
            continue;
        };
        t.by_value = true;
        stmts.push(syn::parse_quote!(let #whole: #ty = #init;));
        for leaf in &t.leaves {
            let (leaf_name, leaf_ty, path) = (leaf.name(&t.root), &leaf.ty, &leaf.path);
            let value = match leaf.is_vec() {
                true => leaf.gather(&quote!(#whole)),
                false => quote!(#whole #(.#path)*),
            };
            stmts.push(syn::parse_quote!(#[tracked] let #leaf_name: #leaf_ty = #value;));
        }
        roots.push(t);
    }
    item.block.stmts = stmts;
    // one declared deeper is not followed: Mica's error, not a wrong slope
    let mut deeper = Deeper::default();
    for stmt in &item.block.stmts {
        if let Stmt::Local(_) = stmt {
            continue;
        }
        deeper.visit_stmt(stmt);
    }
    for at in deeper.0 {
        errors.at(
            at,
            "a tracked struct is declared at the function's top level, before its window",
        );
    }
    if roots.is_empty() {
        return false;
    }
    let refs: Vec<&Tracked> = roots.iter().collect();
    let rebound = rewrite::check_not_rebound(&item.block, &refs, errors);
    let refs: Vec<&Tracked> = refs
        .into_iter()
        .filter(|t| !rebound.contains(&t.root))
        .collect();
    let tokens = gradients(item.block.to_token_stream(), &refs);
    match syn::parse2(rewrite::rewrite(tokens, &refs, errors)) {
        Ok(block) => *item.block = block,
        Err(e) => errors.push(e),
    }
    true
}

/// The structs the function's top-level `#[tracked] let`s track.
pub fn struct_lets(item: &ItemFn, generic: &[String]) -> Vec<Tracked> {
    let mut quiet = Errors::default();
    item.block
        .stmts
        .iter()
        .filter_map(struct_let)
        .filter_map(|(name, ty, _)| tracked_struct(name.clone(), name, &ty, generic, &mut quiet))
        .collect()
}

/// `#[tracked] let NAME: TYPE = INIT;` whose type names a struct.
fn struct_let(stmt: &Stmt) -> Option<(Ident, syn::Type, syn::Expr)> {
    let Stmt::Local(local) = stmt else {
        return None;
    };
    if !local.attrs.iter().any(is_tracked) {
        return None;
    }
    let Pat::Type(typed) = &local.pat else {
        return None;
    };
    let Pat::Ident(name) = &*typed.pat else {
        return None;
    };
    if super::leaf::tuple_of(&typed.ty).is_none() {
        crate::knob_derive::struct_of(&typed.ty, &[])?;
    }
    let init = local.init.as_ref()?;
    Some((
        name.ident.clone(),
        (*typed.ty).clone(),
        (*init.expr).clone(),
    ))
}

/// `#[tracked] let`s of structs inside nested blocks.
#[derive(Default)]
struct Deeper(Vec<Ident>);

impl<'ast> Visit<'ast> for Deeper {
    fn visit_stmt(&mut self, stmt: &'ast Stmt) {
        if let Some((name, ..)) = struct_let(stmt) {
            self.0.push(name);
        }
        syn::visit::visit_stmt(self, stmt);
    }
}

/// `gradient!(m)` of a tracked struct: the struct of its leaves'
/// gradients, its skipped fields copied.
fn gradients(tokens: TokenStream, roots: &[&Tracked]) -> TokenStream {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out: Vec<TokenTree> = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let asked = match (&tokens[i], tokens.get(i + 1), tokens.get(i + 2)) {
            (TokenTree::Ident(g), Some(TokenTree::Punct(bang)), Some(TokenTree::Group(args)))
                if g == "gradient" && bang.as_char() == '!' =>
            {
                let inner: Vec<TokenTree> = args.stream().into_iter().collect();
                match inner.as_slice() {
                    [TokenTree::Ident(name)] => roots.iter().find(|t| t.root == *name),
                    _ => None,
                }
            }
            _ => None,
        };
        if let Some(t) = asked {
            let whole = &t.plain;
            let g = format_ident!("__mica_gradient_of_{}", t.root);
            let fields = t.leaves.iter().map(|leaf| {
                let (name, path) = (leaf.name(&t.root), &leaf.path);
                match leaf.gathered() {
                    true => leaf.scatter(&quote!(#g), &quote!(gradient!(#name)), &t.root),
                    false => quote!(#g #(.#path)* = (gradient!(#name)).to_owned();),
                }
            });
            let block = quote!({
                let mut #g = ::mica::__private::zeros_like(&#whole);
                #(#fields)*
                #g
            });
            out.push(TokenTree::Group(Group::new(Delimiter::Brace, block)));
            i += 3;
            continue;
        }
        match &tokens[i] {
            TokenTree::Group(g) => {
                let mut inner = Group::new(g.delimiter(), gradients(g.stream(), roots));
                inner.set_span(g.span());
                out.push(TokenTree::Group(inner));
            }
            other => out.push(other.clone()),
        }
        i += 1;
    }
    out.into_iter().collect()
}
