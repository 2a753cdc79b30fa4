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
//!
//! The work is done on the tokens, not on a parse: the blocks it regroups
//! are the expansion's longest, and parsing them again and printing them
//! cost more than the rest of the expansion. A block's statements are told
//! apart by their tokens (a `let` runs to its `;`, a loop or a branch to
//! its last braces), and what cannot be read with certainty is left where
//! it is.

mod statements;

use proc_macro2::{Delimiter, Group, Ident, TokenStream, TokenTree};
use quote::quote;
use statements::{is_punct, may_borrow, split, Kind, Segment};
use std::collections::{HashMap, HashSet};

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

/// `out` with its long blocks flattened.
pub fn flatten(out: TokenStream) -> TokenStream {
    let trees: Vec<TokenTree> = out.clone().into_iter().collect();
    match flattened(trees) {
        (trees, true) => trees.into_iter().collect(),
        _ => out,
    }
}

/// `trees` with the long blocks inside their groups flattened, and whether
/// any changed. A group without one is kept, not rebuilt: inside rustc
/// each token moved into a new stream crosses the proc-macro bridge.
fn flattened(mut trees: Vec<TokenTree>) -> (Vec<TokenTree>, bool) {
    let mut changed = false;
    for t in &mut trees {
        if let TokenTree::Group(g) = t {
            if let Some(new) = flatten_group(g) {
                *t = TokenTree::Group(new);
                changed = true;
            }
        }
    }
    (trees, changed)
}

/// A group with the blocks inside it flattened, and itself if it is a long
/// block; `None` if nothing in it changed. Its tokens are read once.
fn flatten_group(g: &Group) -> Option<Group> {
    let (trees, changed) = flattened(g.stream().into_iter().collect());
    let block = match g.delimiter() {
        Delimiter::Brace => flatten_block(&trees),
        _ => None,
    };
    let stream = match block {
        Some(block) => block,
        None if changed => trees.into_iter().collect(),
        None => return None,
    };
    let mut out = Group::new(g.delimiter(), stream);
    out.set_span(g.span());
    Some(out)
}

/// The statements of a block's tokens if it is a long block of them (one
/// `let` at least), grouped; `None` for any other group.
fn flatten_block(tokens: &[TokenTree]) -> Option<TokenStream> {
    let semis = tokens
        .iter()
        .filter(|t| matches!(t, TokenTree::Punct(p) if p.as_char() == ';'))
        .count();
    if semis < LONG {
        return None;
    }
    let segments = split(tokens)?;
    segments
        .iter()
        .any(|s| matches!(s.kind, Kind::Let { .. } | Kind::Declaration { .. }))
        .then(|| regroup(segments))
}

/// The statements, regrouped (see the module's text).
fn regroup(segments: Vec<Segment>) -> TokenStream {
    let n = segments.len();
    let size = ((n as f64).sqrt().ceil() as usize).max(64);
    // `let x;` declarations, hoisted to the top where no earlier line of
    // the block names `x` (their value is assigned later, inside a loop or
    // a block): declared together, a hundred to a statement
    let declared: HashSet<String> = segments
        .iter()
        .filter_map(|s| match &s.kind {
            Kind::Declaration { ident, .. } => Some(ident.to_string()),
            _ => None,
        })
        .collect();
    // (of the names earlier lines name, only the declared ones matter)
    let mut seen: HashSet<&str> = HashSet::new();
    let mut hoisted: Vec<&Segment> = Vec::new();
    let mut rest: Vec<&Segment> = Vec::with_capacity(n);
    for s in &segments {
        if let Kind::Declaration { ident, .. } = &s.kind {
            if let Some(name) = declared.get(&ident.to_string()) {
                if seen.insert(name) {
                    hoisted.push(s);
                    continue;
                }
            }
        }
        seen.extend(
            s.names
                .iter()
                .filter_map(|n| declared.get(n))
                .map(String::as_str),
        );
        rest.push(s);
    }
    let mut out = TokenStream::new();
    for chunk in hoisted.chunks(100) {
        let mut pats = Vec::new();
        let mut tys = Vec::new();
        let mut allows: Vec<TokenStream> = Vec::new();
        let mut texts: HashSet<String> = HashSet::new();
        for d in chunk {
            if let Kind::Declaration {
                ident,
                mutable,
                ty,
                attrs,
            } = &d.kind
            {
                let m = mutable.then(|| quote!(mut));
                pats.push(quote!(#m #ident));
                tys.push(if ty.is_empty() {
                    quote!(_)
                } else {
                    ty.iter().cloned().collect()
                });
                for pair in attrs.chunks(2) {
                    let a: TokenStream = pair.iter().cloned().collect();
                    if texts.insert(a.to_string()) {
                        allows.push(a);
                    }
                }
            }
        }
        out.extend(quote!(#[allow(unused_mut)] #(#allows)* let (#(#pats,)*): (#(#tys,)*);));
    }
    // the last statement that names each identifier
    let mut last: HashMap<&str, usize> = HashMap::new();
    for (k, s) in rest.iter().enumerate() {
        for name in &s.names {
            last.insert(name, k);
        }
    }
    let count = rest.len();
    let mut group: Vec<&Segment> = Vec::new();
    // the names the open group binds
    let mut locals: HashSet<String> = HashSet::new();
    for (k, s) in rest.iter().enumerate() {
        let tail = k + 1 == count && !is_punct(s.tokens.last(), ';');
        let groupable = !tail
            && match &s.kind {
                Kind::Free => true,
                Kind::Let { init, .. } => !may_borrow(init, s, &locals),
                _ => false,
            };
        if !groupable {
            close(&mut group, k, &last, &mut out);
            locals.clear();
            out.extend(s.tokens.iter().cloned());
            continue;
        }
        if let Kind::Let { binds, .. } = &s.kind {
            locals.extend(binds.iter().map(|(i, _)| i.to_string()));
        }
        group.push(s);
        if group.len() == size {
            close(&mut group, k + 1, &last, &mut out);
            locals.clear();
        }
    }
    close(&mut group, count, &last, &mut out);
    out
}

/// Ends a group (the statements before `end` not yet grouped): one `let`
/// of the names it binds that a later statement reads, or the statements
/// as they are when it is short.
fn close(
    group: &mut Vec<&Segment>,
    end: usize,
    last: &HashMap<&str, usize>,
    out: &mut TokenStream,
) {
    let stmts = std::mem::take(group);
    if stmts.len() < 2 {
        for s in stmts {
            out.extend(s.tokens.iter().cloned());
        }
        return;
    }
    // the names bound in the group, the last binding of each, with its
    // `mut`, in order, and those of them a later statement reads
    let binds: Vec<&(Ident, bool)> = stmts
        .iter()
        .filter_map(|s| match &s.kind {
            Kind::Let { binds, .. } => Some(binds),
            _ => None,
        })
        .flatten()
        .collect();
    let mut seen: HashSet<String> = HashSet::new();
    let mut handed: Vec<&(Ident, bool)> = Vec::new();
    for bind in binds.into_iter().rev() {
        let name = bind.0.to_string();
        if last.get(name.as_str()).is_some_and(|at| *at >= end) && seen.insert(name) {
            handed.push(bind);
        }
    }
    handed.reverse();
    let body: TokenStream = stmts
        .iter()
        .flat_map(|s| s.tokens.iter().cloned())
        .collect();
    if handed.is_empty() {
        out.extend(quote!({ #body };));
        return;
    }
    let pats = handed.iter().map(|(i, m)| {
        let m = m.then(|| quote!(mut));
        quote!(#m #i)
    });
    let names = handed.iter().map(|(i, _)| i);
    out.extend(quote! {
        #[allow(unused_mut)]
        let (#(#pats,)*) = { #body (#(#names,)*) };
    });
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
