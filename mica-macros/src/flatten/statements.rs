//! A block's statements read from its tokens (see `flatten.rs`): where
//! each ends, what it binds and names, and whether it may go into a group.

use proc_macro2::{Delimiter, Ident, Spacing, TokenStream, TokenTree};
use std::collections::HashSet;

/// A statement of a block, as its tokens.
pub struct Segment {
    pub tokens: Vec<TokenTree>,
    /// every identifier it names
    pub names: Vec<String>,
    /// whether it holds a `&`, a lending method (`.iter()`), a closure's
    /// `|` or a `ref` anywhere: without one it borrows nothing
    pub lends: bool,
    pub kind: Kind,
}

pub enum Kind {
    /// `let x;` (or `let mut x: T;`, with lint levels): hoisted
    Declaration {
        ident: Ident,
        mutable: bool,
        ty: Vec<TokenTree>,
        attrs: Vec<TokenTree>,
    },
    /// a `let` that may go into a group: the names it binds, and its
    /// value (whether that may borrow a name the group binds is asked when
    /// the group reaches it)
    Let {
        binds: Vec<(Ident, bool)>,
        init: Vec<TokenTree>,
    },
    /// a statement that may go into a group whatever its neighbours
    Free,
    /// a statement that stays between groups
    Fixed,
}

/// A block's tokens, statement by statement; `None` where they do not read
/// as statements.
pub fn split(tokens: &[TokenTree]) -> Option<Vec<Segment>> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < tokens.len() {
        let end = statement_end(tokens, at)?;
        let piece = &tokens[at..end];
        let mut names = Vec::new();
        let mut lends = false;
        scan(piece, &mut names, &mut lends);
        out.push(Segment {
            tokens: piece.to_vec(),
            names,
            lends,
            kind: kind_of(piece),
        });
        at = end;
    }
    Some(out)
}

pub fn is_punct(t: Option<&TokenTree>, c: char) -> bool {
    matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == c)
}

fn is_ident(t: Option<&TokenTree>, word: &str) -> bool {
    matches!(t, Some(TokenTree::Ident(i)) if i == word)
}

fn is_brace(t: Option<&TokenTree>) -> bool {
    matches!(t, Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Brace)
}

/// Past the outer attributes (`#[…]`) from `at`.
fn past_attributes(tokens: &[TokenTree], mut at: usize) -> usize {
    while is_punct(tokens.get(at), '#')
        && matches!(tokens.get(at + 1), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Bracket)
    {
        at += 2;
    }
    at
}

/// Where the statement starting at `at` ends (just past it).
fn statement_end(tokens: &[TokenTree], at: usize) -> Option<usize> {
    let first = past_attributes(tokens, at);
    let head = tokens.get(first)?;
    let word = match head {
        TokenTree::Ident(i) => i.to_string(),
        _ => String::new(),
    };
    // a label: `'a: loop { … }`
    let (first, word) = match head {
        TokenTree::Punct(p) if p.as_char() == '\'' => {
            let k = first + 3;
            let w = match tokens.get(k) {
                Some(TokenTree::Ident(i)) => i.to_string(),
                _ => return None,
            };
            (k, w)
        }
        _ => (first, word),
    };
    let semi = |from: usize| -> Option<usize> {
        (from..tokens.len())
            .find(|&k| is_punct(tokens.get(k), ';'))
            .map(|k| k + 1)
    };
    let first_brace = |from: usize| (from..tokens.len()).find(|&k| is_brace(tokens.get(k)));
    // a block-like expression ends at its (last) braces; a `;` after them
    // is part of it
    let closed = |end: usize| -> usize {
        if is_punct(tokens.get(end), ';') {
            end + 1
        } else {
            end
        }
    };
    match word.as_str() {
        "let" => semi(first),
        "for" | "while" | "loop" | "match" | "unsafe" => {
            let b = first_brace(first + 1)?;
            // `unsafe fn`, `unsafe impl`: an item
            Some(closed(b + 1))
        }
        "if" => {
            let mut b = first_brace(first + 1)?;
            while is_ident(tokens.get(b + 1), "else") {
                b = if is_brace(tokens.get(b + 2)) {
                    b + 2
                } else {
                    first_brace(b + 2)?
                };
            }
            Some(closed(b + 1))
        }
        _ if is_brace(Some(head)) => Some(closed(first + 1)),
        "fn" | "impl" | "mod" | "trait" | "struct" | "enum" | "union" | "pub" | "extern"
        | "const" | "static" | "type" | "use" => {
            // an item: to its `;` or its body, whichever comes first
            let s = semi(first);
            let b = first_brace(first + 1).map(|b| b + 1);
            match (s, b) {
                (Some(s), Some(b)) => Some(s.min(b)),
                (s, b) => s.or(b),
            }
        }
        // `m! { … }`: to its braces
        _ if is_punct(tokens.get(first + 1), '!') && is_brace(tokens.get(first + 2)) => {
            Some(closed(first + 3))
        }
        // `macro_rules! m { … }`
        "macro_rules" => {
            let b = first_brace(first + 1)?;
            Some(closed(b + 1))
        }
        // an expression statement, or the block's tail
        _ => Some(semi(first).unwrap_or(tokens.len())),
    }
}

/// What a statement's tokens are, for the grouping.
fn kind_of(piece: &[TokenTree]) -> Kind {
    let first = past_attributes(piece, 0);
    let attrs = &piece[..first];
    let allows_only = attrs.chunks(2).all(|pair| match pair.get(1) {
        Some(TokenTree::Group(g)) => {
            matches!(g.stream().into_iter().next(), Some(TokenTree::Ident(i)) if i == "allow")
        }
        _ => false,
    });
    let ends_in_semi = is_punct(piece.last(), ';');
    if !is_ident(piece.get(first), "let") {
        // a loop, a branch, a block: its braces end it
        let block_like = is_brace(piece.get(first))
            || is_punct(piece.get(first), '\'')
            || ["for", "while", "loop", "if", "match"]
                .iter()
                .any(|w| is_ident(piece.get(first), w))
            || (is_ident(piece.get(first), "unsafe") && is_brace(piece.get(first + 1)));
        if !attrs.is_empty() {
            return Kind::Fixed;
        }
        if block_like {
            return Kind::Free;
        }
        if !ends_in_semi {
            return Kind::Fixed;
        }
        return match piece.get(first) {
            Some(TokenTree::Ident(i)) => {
                let word = i.to_string();
                let item = [
                    "fn",
                    "impl",
                    "mod",
                    "trait",
                    "struct",
                    "enum",
                    "union",
                    "pub",
                    "extern",
                    "const",
                    "static",
                    "type",
                    "use",
                    "macro_rules",
                ]
                .contains(&word.as_str());
                let is_macro = is_punct(piece.get(first + 1), '!');
                let printing = [
                    "assert",
                    "assert_eq",
                    "assert_ne",
                    "debug_assert",
                    "println",
                    "eprintln",
                ]
                .contains(&word.as_str());
                if item || (is_macro && !printing) {
                    Kind::Fixed
                } else {
                    Kind::Free
                }
            }
            _ => Kind::Free,
        };
    }
    if !allows_only || !ends_in_semi {
        return Kind::Fixed;
    }
    // `let PAT (: TYPE)? (= INIT)? ;`
    let body = &piece[first + 1..piece.len() - 1];
    let mut k = 0;
    let mut depth = 0i32;
    let mut colon = None;
    let mut equals = None;
    while k < body.len() {
        if let TokenTree::Punct(p) = &body[k] {
            let joint_before = k > 0
                && matches!(&body[k - 1], TokenTree::Punct(q) if q.spacing() == Spacing::Joint);
            let joint_after = p.spacing() == Spacing::Joint;
            match p.as_char() {
                ':' if depth == 0 && !joint_after && !joint_before && colon.is_none() => {
                    colon = Some(k)
                }
                '<' if colon.is_some() => depth += 1,
                '>' if colon.is_some() && !joint_before => depth -= 1,
                '=' if depth == 0 && !joint_after && !joint_before => {
                    equals = Some(k);
                    break;
                }
                _ => {}
            }
        }
        k += 1;
    }
    if depth != 0 {
        return Kind::Fixed;
    }
    let pat_end = colon.or(equals).unwrap_or(body.len());
    let Some(binds) = simple_pattern(&body[..pat_end]) else {
        return Kind::Fixed;
    };
    match equals {
        None => match binds.as_slice() {
            [(ident, mutable)] if !is_punct(body.first(), '(') => Kind::Declaration {
                ident: ident.clone(),
                mutable: *mutable,
                ty: colon.map_or(Vec::new(), |c| body[c + 1..].to_vec()),
                attrs: attrs.to_vec(),
            },
            _ => Kind::Fixed,
        },
        Some(e) => {
            let init = body[e + 1..].to_vec();
            let else_branch = init.iter().any(|t| is_ident(Some(t), "else"));
            if init.is_empty() || else_branch || extends_a_temporary(&init) {
                Kind::Fixed
            } else {
                Kind::Let { binds, init }
            }
        }
    }
}

/// The names a pattern of names, `mut` names, `_` and tuples of them
/// binds; `None` for any other pattern.
fn simple_pattern(pat: &[TokenTree]) -> Option<Vec<(Ident, bool)>> {
    let mut out = Vec::new();
    match pat {
        [TokenTree::Ident(i)] if i == "_" => {}
        [TokenTree::Ident(i)] if !["ref", "mut", "box"].contains(&i.to_string().as_str()) => {
            out.push((i.clone(), false))
        }
        [TokenTree::Ident(m), TokenTree::Ident(i)] if m == "mut" && i != "ref" => {
            out.push((i.clone(), true))
        }
        [TokenTree::Group(g)] if g.delimiter() == Delimiter::Parenthesis => {
            let inner: Vec<TokenTree> = g.stream().into_iter().collect();
            for part in inner.split(|t| is_punct(Some(t), ',')) {
                if !part.is_empty() {
                    out.extend(simple_pattern(part)?);
                }
            }
        }
        _ => return None,
    }
    Some(out)
}

/// Whether a `let` of `init` may keep a temporary alive to the end of its
/// block (`let r = &f();`, `let a = [&g()];`), which a group's end would
/// drop: a reference not to a place, or an array, tuple, block, branch or
/// struct with a `&` inside. (A call's arguments end with the statement.)
fn extends_a_temporary(init: &[TokenTree]) -> bool {
    match init.first() {
        Some(TokenTree::Punct(p)) if p.as_char() == '&' => {
            // `&x`, `&mut x.f[i]`: a place
            let mut k = 1;
            if is_ident(init.get(k), "mut") {
                k += 1;
            }
            let place = matches!(init.get(k), Some(TokenTree::Ident(_)))
                && init[k + 1..].iter().all(|t| match t {
                    TokenTree::Group(g) => g.delimiter() == Delimiter::Bracket,
                    TokenTree::Punct(p) => p.as_char() == '.',
                    TokenTree::Ident(_) | TokenTree::Literal(_) => true,
                });
            !place
        }
        Some(TokenTree::Group(g)) => has_ampersand(&g.stream()),
        Some(TokenTree::Ident(i)) if ["if", "match", "unsafe", "loop"].contains(&i.to_string().as_str()) => {
            has_ampersand(&init.iter().cloned().collect())
        }
        // a struct: its fields
        _ => init.iter().any(|t| {
            matches!(t, TokenTree::Group(g) if g.delimiter() == Delimiter::Brace && has_ampersand(&g.stream()))
        }),
    }
}

/// Whether `init` may borrow one of `locals`: `&` or `&mut` before one, a
/// lending method of one (of anything holding one where the receiver is
/// not a plain name), a closure (`|`), or `ref`. `segment` is the `let`
/// it is the value of: what it names and whether it lends at all.
pub fn may_borrow(init: &[TokenTree], segment: &Segment, locals: &HashSet<String>) -> bool {
    if !segment.lends {
        return false;
    }
    if locals.is_empty() {
        return init.iter().any(closure_or_ref);
    }
    let named = segment.names.iter().any(|n| locals.contains(n));
    fn walk(tokens: &[TokenTree], locals: &HashSet<String>, named: bool) -> bool {
        for (k, t) in tokens.iter().enumerate() {
            match t {
                TokenTree::Punct(p) if p.as_char() == '&' => {
                    let mut n = k + 1;
                    while is_punct(tokens.get(n), '&') || is_ident(tokens.get(n), "mut") {
                        n += 1;
                    }
                    match tokens.get(n) {
                        Some(TokenTree::Ident(i)) if locals.contains(&i.to_string()) => {
                            return true
                        }
                        // `&(h)`, `&{ h }`: whatever is inside
                        Some(TokenTree::Group(g))
                            if g.delimiter() != Delimiter::Bracket && named =>
                        {
                            return true
                        }
                        _ => {}
                    }
                }
                TokenTree::Ident(i)
                    if k >= 2
                        && is_punct(tokens.get(k - 1), '.')
                        && LENDING.contains(&i.to_string().as_str()) =>
                {
                    let plain = matches!(&tokens[k - 2], TokenTree::Ident(_))
                        && (k < 3 || !is_punct(tokens.get(k - 3), '.'));
                    let rooted = match &tokens[k - 2] {
                        TokenTree::Ident(r) if plain => locals.contains(&r.to_string()),
                        _ => named,
                    };
                    if rooted {
                        return true;
                    }
                }
                TokenTree::Group(g) => {
                    let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                    if walk(&inner, locals, named) {
                        return true;
                    }
                }
                other if closure_or_ref(other) => return true,
                _ => {}
            }
        }
        false
    }
    walk(init, locals, named)
}

/// A closure's `|` or a `ref`, anywhere in `t`.
fn closure_or_ref(t: &TokenTree) -> bool {
    match t {
        TokenTree::Punct(p) => p.as_char() == '|',
        TokenTree::Ident(i) => i == "ref",
        TokenTree::Group(g) => g.stream().into_iter().any(|t| closure_or_ref(&t)),
        TokenTree::Literal(_) => false,
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

fn has_ampersand(tokens: &TokenStream) -> bool {
    tokens.clone().into_iter().any(|t| match t {
        TokenTree::Punct(p) => p.as_char() == '&',
        TokenTree::Group(g) => has_ampersand(&g.stream()),
        _ => false,
    })
}

/// Every identifier of `tokens`, and every word of a string literal (a
/// format string names its arguments inside it), into `names`; `lends` set
/// if they hold a `&`, a lending method, a closure's `|` or a `ref`.
fn scan(tokens: &[TokenTree], names: &mut Vec<String>, lends: &mut bool) {
    for (k, t) in tokens.iter().enumerate() {
        match t {
            TokenTree::Ident(i) => {
                let name = i.to_string();
                *lends |= name == "ref"
                    || (k > 0
                        && is_punct(tokens.get(k - 1), '.')
                        && LENDING.contains(&name.as_str()));
                names.push(name);
            }
            TokenTree::Group(g) => {
                let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                scan(&inner, names, lends)
            }
            TokenTree::Literal(l) => {
                let text = l.to_string();
                if text.contains('"') {
                    for word in text.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
                        if !word.is_empty() {
                            names.push(word.to_string());
                        }
                    }
                }
            }
            TokenTree::Punct(p) => *lends |= matches!(p.as_char(), '&' | '|'),
        }
    }
}
