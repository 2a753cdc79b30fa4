//! A tracked struct's reads written as its leaves' (`structs.rs`).

use crate::errors::Errors;
use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};
use quote::quote;
use std::collections::HashMap;
use syn::visit::Visit;
use syn::{Ident, Type};

/// One field of a tracked struct that holds floats: its path from the
/// parameter and its type.
pub struct Leaf {
    pub path: Vec<Ident>,
    pub ty: Type,
}

impl Leaf {
    pub fn by_ref(&self) -> bool {
        !matches!(&self.ty, Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident != "Vec"))
    }
    pub fn is_vec(&self) -> bool {
        matches!(&self.ty, Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "Vec"))
    }
    pub fn name(&self, root: &Ident) -> Ident {
        let mut name = format!("__mica_{root}");
        for p in &self.path {
            name.push('_');
            name.push_str(&p.to_string());
        }
        Ident::new(&name, root.span())
    }
}

/// What a path into a tracked struct reaches.
pub enum Reach {
    Leaf(usize),
    Struct,
    Skipped,
    Unknown,
}

/// A tracked struct parameter: its name, its leaves, and its struct's
/// fields by path (for the rewrite).
pub struct Tracked {
    pub root: Ident,
    /// the name it is read by untracked (its skipped fields): the root, or
    /// the hidden parameter a tracked `self` becomes
    pub plain: Ident,
    pub leaves: Vec<Leaf>,
    /// its leaves are values (a window's `#[tracked] let`s), not
    /// references to the struct's fields (a parameter's)
    pub by_value: bool,
    /// every path into the struct, with what it reaches
    pub paths: HashMap<Vec<String>, Reach>,
}

/// A tracked struct's name bound again in the body would make its reads
/// ambiguous: Mica's error at the binding.
pub fn check_not_rebound(
    block: &syn::Block,
    roots: &[&Tracked],
    errors: &mut Errors,
) -> Vec<Ident> {
    struct Bound<'a>(&'a [&'a Tracked], Vec<Ident>);
    impl<'ast> Visit<'ast> for Bound<'_> {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            if self.0.iter().any(|t| t.root == p.ident) {
                self.1.push(p.ident.clone());
            }
            syn::visit::visit_pat_ident(self, p);
        }
    }
    let mut bound = Bound(roots, Vec::new());
    bound.visit_block(block);
    for ident in &bound.1 {
        errors.at(
            ident,
            format!("`{ident}` names a tracked struct; bind this value to another name"),
        );
    }
    bound.1
}

/// The body with each read of a tracked struct's field holding floats
/// written as its leaf parameter: `m.w[i]` is `leaf[i]`, `&m.w` is `leaf`,
/// a whole `m.w` is `*leaf`; skipped fields stay reads of `m`.
pub fn rewrite(tokens: TokenStream, roots: &[&Tracked], errors: &mut Errors) -> TokenStream {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out: Vec<TokenTree> = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let token = &tokens[i];
        let follows_dot_or_path = i > 0
            && matches!(&tokens[i - 1], TokenTree::Punct(p) if p.as_char() == '.' || p.as_char() == ':' || p.as_char() == '\'');
        match token {
            TokenTree::Group(g) => {
                let mut inner = Group::new(g.delimiter(), rewrite(g.stream(), roots, errors));
                inner.set_span(g.span());
                out.push(TokenTree::Group(inner));
                i += 1;
            }
            TokenTree::Ident(id) if !follows_dot_or_path && roots.iter().any(|t| t.root == *id) => {
                let Some(t) = roots.iter().find(|t| t.root == *id) else {
                    i += 1;
                    continue;
                };
                // `m.a.b…`: as far as the path reaches into the struct
                let mut path: Vec<String> = Vec::new();
                let mut j = i + 1;
                let mut reach = Reach::Struct;
                while j + 1 < tokens.len() {
                    let (TokenTree::Punct(dot), TokenTree::Ident(field)) =
                        (&tokens[j], &tokens[j + 1])
                    else {
                        break;
                    };
                    if dot.as_char() != '.' || dot.spacing() == proc_macro2::Spacing::Joint {
                        break;
                    }
                    let mut next = path.clone();
                    next.push(field.to_string());
                    match t.paths.get(&next) {
                        Some(Reach::Struct) => {
                            path = next;
                            j += 2;
                        }
                        Some(Reach::Leaf(k)) => {
                            reach = Reach::Leaf(*k);
                            j += 2;
                            break;
                        }
                        Some(Reach::Skipped) => {
                            reach = Reach::Skipped;
                            break;
                        }
                        Some(Reach::Unknown) | None => {
                            reach = Reach::Unknown;
                            break;
                        }
                    }
                }
                match reach {
                    Reach::Leaf(k) => {
                        let leaf = &t.leaves[k];
                        // named where the body reads it, for errors about the read
                        let mut name = leaf.name(&t.root);
                        name.set_span(id.span());
                        let indexed = matches!(tokens.get(j), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Bracket)
                            || matches!(tokens.get(j), Some(TokenTree::Punct(p)) if p.as_char() == '.');
                        let borrowed = matches!(out.last(), Some(TokenTree::Punct(p)) if p.as_char() == '&' && p.spacing() == proc_macro2::Spacing::Alone)
                            && !matches!(out.len().checked_sub(2).and_then(|k| out.get(k)), Some(TokenTree::Punct(p)) if p.as_char() == '&');
                        let by_ref = leaf.by_ref() && !t.by_value;
                        if by_ref && borrowed && !indexed {
                            out.pop();
                            out.push(TokenTree::Ident(name));
                        } else if by_ref && !indexed {
                            out.extend(quote!((*#name)));
                        } else {
                            out.push(TokenTree::Ident(name));
                        }
                        i = j;
                    }
                    Reach::Skipped => {
                        out.push(TokenTree::Ident(t.plain.clone()));
                        i += 1;
                    }
                    Reach::Struct | Reach::Unknown => {
                        let shown: String = std::iter::once(id.to_string())
                            .chain(path.iter().cloned())
                            .collect::<Vec<_>>()
                            .join(".");
                        let method = matches!(tokens.get(j + 2), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis);
                        let message = if method {
                            format!("a method of the tracked struct `{shown}` is not followed by Mica yet; read its fields here (`{shown}.field[i]`), or pass `{shown}` to a function of the same `#[tape]` block")
                        } else {
                            format!("the tracked struct `{shown}` is read whole here; Mica follows a tracked struct through its fields (`{shown}.field[i]`): read them here, or pass `{shown}` to a function of the same `#[tape]` block, which Mica follows")
                        };
                        let end = tokens.get(j + 1).or(tokens.get(j)).unwrap_or(token);
                        errors.push(syn::Error::new(
                            id.span().join(end.span()).unwrap_or(id.span()),
                            message,
                        ));
                        out.push(token.clone());
                        i += 1;
                    }
                }
            }
            other => {
                out.push(other.clone());
                i += 1;
            }
        }
    }
    out.into_iter().collect()
}
