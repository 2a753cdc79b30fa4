//! Loops over the structs a tracked struct holds (`for layer in
//! &m.layers`), written as loops by index before anything else reads the
//! body (`structs.rs`).

use super::leaf::{Reach, Tracked};
use proc_macro2::{Delimiter, Group, Ident, TokenStream, TokenTree};
use quote::quote;

/// The body with its loops over a tracked struct's structs written by
/// index ([`each_loop`]), before helpers are inlined: `layer` passed to a
/// helper is then `&m.layers[k]`, which the helper's reads follow.
pub fn each_loops(tokens: TokenStream, roots: &[&Tracked]) -> TokenStream {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = TokenStream::new();
    let mut i = 0;
    while i < tokens.len() {
        if let Some((by_index, next)) = each_loop(&tokens, i, roots) {
            out.extend(each_loops(by_index, roots));
            i = next;
            continue;
        }
        match &tokens[i] {
            TokenTree::Group(g) => {
                let mut inner = Group::new(g.delimiter(), each_loops(g.stream(), roots));
                inner.set_span(g.span());
                out.extend([TokenTree::Group(inner)]);
            }
            other => out.extend([other.clone()]),
        }
        i += 1;
    }
    out
}

/// `for layer in &m.layers { … }` (or `m.layers.iter()`, or `for (k,
/// layer) in m.layers.iter().enumerate()`) over a tracked struct's `Vec` or
/// array of structs, written as the loop by index it is: `for k in
/// 0..m.layers.len() { … }` with each `layer` read as `m.layers[k]`, so its
/// fields are followed. The loop as written, and the
/// index past it, or `None` when `tokens[i]` starts no such loop (or its
/// body binds the name again: the reads stay as written, and are refused).
fn each_loop(tokens: &[TokenTree], i: usize, roots: &[&Tracked]) -> Option<(TokenStream, usize)> {
    let is =
        |k: usize, c: char| matches!(tokens.get(k), Some(TokenTree::Punct(p)) if p.as_char() == c);
    let (TokenTree::Ident(for_), Some(pattern), Some(TokenTree::Ident(in_))) =
        (&tokens[i], tokens.get(i + 1), tokens.get(i + 2))
    else {
        return None;
    };
    // `layer`, or `(k, layer)` over an `enumerate`
    let (name, position) = match pattern {
        TokenTree::Ident(name) => (name.clone(), None),
        TokenTree::Group(g) if g.delimiter() == Delimiter::Parenthesis => {
            let parts: Vec<TokenTree> = g.stream().into_iter().collect();
            match parts.as_slice() {
                [TokenTree::Ident(k), TokenTree::Punct(c), TokenTree::Ident(name)]
                    if c.as_char() == ',' && name != "mut" && k != "mut" =>
                {
                    (name.clone(), Some(k.clone()))
                }
                _ => return None,
            }
        }
        _ => return None,
    };
    if for_ != "for" || in_ != "in" || name == "mut" {
        return None;
    }
    // the iterated place: `&root.a.b` or `root.a.b.iter()`, up to the body
    let mut k = i + 3;
    let borrowed = is(k, '&');
    if borrowed {
        k += 1;
    }
    let Some(TokenTree::Ident(root)) = tokens.get(k) else {
        return None;
    };
    let t = roots.iter().find(|t| t.root == *root)?;
    let mut path: Vec<String> = Vec::new();
    let mut place: Vec<TokenTree> = vec![tokens[k].clone()];
    k += 1;
    while is(k, '.') {
        let Some(TokenTree::Ident(field)) = tokens.get(k + 1) else {
            return None;
        };
        if field == "iter" && !borrowed && matches!(t.paths.get(&path), Some(Reach::Each)) {
            let empty_call = matches!(tokens.get(k + 2), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis && g.stream().is_empty());
            if !empty_call {
                return None;
            }
            k += 3;
            if position.is_some() {
                let enumerate = is(k, '.')
                    && matches!(tokens.get(k + 1), Some(TokenTree::Ident(e)) if e == "enumerate")
                    && matches!(tokens.get(k + 2), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis && g.stream().is_empty());
                if !enumerate {
                    return None;
                }
                k += 3;
            }
            break;
        }
        path.push(field.to_string());
        place.extend(tokens[k..k + 2].iter().cloned());
        k += 2;
    }
    if !matches!(t.paths.get(&path), Some(Reach::Each)) || (position.is_some() && borrowed) {
        return None;
    }
    let Some(TokenTree::Group(body)) = tokens.get(k) else {
        return None;
    };
    if body.delimiter() != Delimiter::Brace || binds(body.stream(), &name) {
        return None;
    }
    let index = Ident::new("__mica_each", proc_macro2::Span::mixed_site());
    let place: TokenStream = place.into_iter().collect();
    let element = quote!(#place[#index]);
    let mut stream = substitute(body.stream(), &name, &element);
    // the position, bound from the index (the body may bind its name again)
    if let Some(k) = position.filter(|k| k != "_") {
        stream = quote!(let #k = #index; #stream);
    }
    let mut inner = Group::new(Delimiter::Brace, stream);
    inner.set_span(body.span());
    let for_ = &tokens[i];
    Some((quote!(#for_ #index in 0..#place.len() #inner), k + 1))
}

/// Whether `tokens` bind `name` again (`let name`, `|name|`, a pattern).
fn binds(tokens: TokenStream, name: &Ident) -> bool {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    tokens.iter().enumerate().any(|(k, t)| match t {
        TokenTree::Group(g) => binds(g.stream(), name),
        TokenTree::Ident(id) if id == name => {
            let before = k.checked_sub(1).and_then(|b| tokens.get(b));
            let after = tokens.get(k + 1);
            matches!(before, Some(TokenTree::Ident(b)) if b == "let" || b == "mut" || b == "for" || b == "ref")
                || matches!(before, Some(TokenTree::Punct(p)) if p.as_char() == '|' || p.as_char() == ',')
                    && matches!(after, Some(TokenTree::Punct(p)) if p.as_char() == '|' || p.as_char() == ':' || p.as_char() == ',')
                || matches!(after, Some(TokenTree::Punct(p)) if p.as_char() == '@')
        }
        _ => false,
    })
}

/// `tokens` with each `name` read (not a field or a path segment) written
/// `element`.
fn substitute(tokens: TokenStream, name: &Ident, element: &TokenStream) -> TokenStream {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = TokenStream::new();
    for (k, t) in tokens.iter().enumerate() {
        match t {
            TokenTree::Group(g) => {
                let mut inner = Group::new(g.delimiter(), substitute(g.stream(), name, element));
                inner.set_span(g.span());
                out.extend([TokenTree::Group(inner)]);
            }
            TokenTree::Ident(id) if id == name => {
                let after_dot = k > 0
                    && matches!(&tokens[k - 1], TokenTree::Punct(p) if (p.as_char() == '.' && !(k > 1 && matches!(&tokens[k - 2], TokenTree::Punct(q) if q.as_char() == '.' && q.spacing() == proc_macro2::Spacing::Joint))) || p.as_char() == ':');
                let before_path =
                    matches!(tokens.get(k + 1), Some(TokenTree::Punct(p)) if p.as_char() == ':');
                // a field or an index of the element reads it in place; the
                // element itself is a reference, as the loop gave it
                let projected = matches!(tokens.get(k + 1), Some(TokenTree::Punct(p)) if p.as_char() == '.')
                    || matches!(tokens.get(k + 1), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Bracket);
                if after_dot || before_path {
                    out.extend([t.clone()]);
                } else if !projected {
                    let mut amp = proc_macro2::Punct::new('&', proc_macro2::Spacing::Alone);
                    amp.set_span(id.span());
                    out.extend([TokenTree::Punct(amp)]);
                    out.extend(element.clone());
                } else {
                    // spanned at the user's name, for errors about the read
                    out.extend(element.clone().into_iter().map(|mut tt| {
                        tt.set_span(id.span());
                        tt
                    }));
                }
            }
            other => out.extend([other.clone()]),
        }
    }
    out
}
