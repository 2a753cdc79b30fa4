//! A tracked struct's reads written as its leaves' (`structs.rs`).

use super::leaf::{Reach, Tracked};
use crate::errors::Errors;
use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};
use quote::quote;
use syn::visit::Visit;
use syn::Ident;

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
    let tokens = unparen_places(tokens.into_iter().collect(), roots);
    let mut out: Vec<TokenTree> = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let token = &tokens[i];
        // (`0..m.n` is a range, not a field `m`)
        let range = i > 1
            && matches!(&tokens[i - 2], TokenTree::Punct(p) if p.as_char() == '.' && p.spacing() == proc_macro2::Spacing::Joint);
        let follows_dot_or_path = i > 0
            && !range
            && matches!(&tokens[i - 1], TokenTree::Punct(p) if p.as_char() == '.' || p.as_char() == ':' || p.as_char() == '\'');
        match token {
            TokenTree::Group(g) => {
                // `predict(m, x)`: the struct passed whole to a `#[tape]`
                // function, as its fields (`predict::with_tracked_struct`)
                if let Some(args) = struct_call(&tokens, i, roots, errors) {
                    let callee = match &tokens[i - 1] {
                        TokenTree::Ident(callee) => callee.span(),
                        _ => g.span(),
                    };
                    out.extend(quote::quote_spanned!(callee=> ::with_tracked_struct));
                    let mut inner = Group::new(Delimiter::Parenthesis, args);
                    inner.set_span(g.span());
                    out.push(TokenTree::Group(inner));
                    i += 1;
                    continue;
                }
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
                // the indices of the containers of structs passed
                let mut indices: Vec<TokenTree> = Vec::new();
                let mut shown = id.to_string();
                // the path as written, indices rewritten (`.layers[k]`)
                let mut place: Vec<TokenTree> = Vec::new();
                // a container of structs passed, whose index comes next
                let mut pending = false;
                while j < tokens.len() {
                    if pending {
                        pending = false;
                        match &tokens[j] {
                            TokenTree::Group(g) if g.delimiter() == Delimiter::Bracket => {
                                let mut index = Group::new(
                                    Delimiter::Bracket,
                                    rewrite(g.stream(), roots, errors),
                                );
                                index.set_span(g.span());
                                shown.push_str(&format!("[{}]", g.stream()));
                                place.push(TokenTree::Group(index.clone()));
                                indices.push(TokenTree::Group(index));
                                j += 1;
                                continue;
                            }
                            _ => {
                                reach = Reach::Each;
                                break;
                            }
                        }
                    }
                    // `.field`, or a tuple's `.0`
                    let field = match (tokens.get(j), tokens.get(j + 1)) {
                        (Some(TokenTree::Punct(dot)), Some(TokenTree::Ident(field)))
                            if dot.as_char() == '.'
                                && dot.spacing() == proc_macro2::Spacing::Alone =>
                        {
                            field.to_string()
                        }
                        (Some(TokenTree::Punct(dot)), Some(TokenTree::Literal(number)))
                            if dot.as_char() == '.'
                                && dot.spacing() == proc_macro2::Spacing::Alone
                                && number.to_string().chars().all(|c| c.is_ascii_digit()) =>
                        {
                            number.to_string()
                        }
                        _ => break,
                    };
                    let mut next = path.clone();
                    next.push(field.clone());
                    match t.paths.get(&next) {
                        Some(r @ (Reach::Struct | Reach::Each)) => {
                            pending = matches!(r, Reach::Each);
                            place.extend(tokens[j..j + 2].iter().cloned());
                            path = next;
                            shown.push_str(&format!(".{field}"));
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
                        // `.forward(…)`: a method of the struct reached
                        None if matches!(tokens.get(j + 2), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis) =>
                        {
                            break;
                        }
                        Some(Reach::Unknown) | None => {
                            reach = Reach::Unknown;
                            break;
                        }
                    }
                }
                if pending {
                    reach = Reach::Each;
                }
                match reach {
                    Reach::Leaf(k) => {
                        let leaf = &t.leaves[k];
                        // named where the body reads it, for errors about the read
                        let mut name = leaf.name(&t.root);
                        name.set_span(id.span());
                        let indexed = !indices.is_empty()
                            || matches!(tokens.get(j), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Bracket)
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
                        out.extend(indices);
                        i = j;
                    }
                    Reach::Skipped => {
                        out.push(TokenTree::Ident(t.plain.clone()));
                        i += 1;
                    }
                    // `m.layers.len()`: the length, read untracked
                    Reach::Each
                        if matches!((tokens.get(j), tokens.get(j + 1), tokens.get(j + 2)),
                                (Some(TokenTree::Punct(dot)), Some(TokenTree::Ident(len)), Some(TokenTree::Group(g)))
                                if dot.as_char() == '.' && len == "len" && g.delimiter() == Delimiter::Parenthesis && g.stream().is_empty()) =>
                    {
                        out.push(TokenTree::Ident(t.plain.clone()));
                        i += 1;
                    }
                    Reach::Struct if !t.tuple => {
                        // `m.forward(x)`, `m.layers[k].forward(x)`: a method
                        // of a `#[tape] impl` that tracks `self`
                        let at = super::called::Place {
                            path: &path,
                            indices: &indices,
                            written: &place,
                        };
                        match super::called::tracked_self_call(&tokens, j, t, &at, &mut |args| {
                            rewrite(args, roots, errors)
                        }) {
                            Some(call) => {
                                out.extend(call);
                                i = j + 3;
                            }
                            None => {
                                errors.push(whole_struct_error(
                                    &tokens,
                                    i,
                                    j,
                                    t,
                                    &shown,
                                    path.is_empty(),
                                    false,
                                ));
                                out.push(token.clone());
                                i += 1;
                            }
                        }
                    }
                    Reach::Struct | Reach::Unknown | Reach::Each => {
                        errors.push(whole_struct_error(
                            &tokens,
                            i,
                            j,
                            t,
                            &shown,
                            path.is_empty(),
                            matches!(reach, Reach::Each),
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

/// Mica's error for a tracked struct (at `tokens[i]`, its path ending
/// before `tokens[j]`) read whole, or a method called on it that is no
/// method of a `#[tape] impl` tracking `self`.
fn whole_struct_error(
    tokens: &[TokenTree],
    i: usize,
    j: usize,
    t: &Tracked,
    shown: &str,
    at_root: bool,
    each: bool,
) -> syn::Error {
    let method = matches!(tokens.get(j + 2), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis);
    let message = if each {
        format!("`{shown}` holds tracked structs, which Mica follows by index: read `{shown}[k].field` with `k` in `0..{shown}.len()`, or loop `for item in &{shown} {{ … item.field … }}` (`for (k, item) in {shown}.iter().enumerate()` too)")
    } else if t.tuple && at_root {
        format!("the tracked tuple `{shown}` is read whole here; Mica follows a tracked tuple through its elements (`{shown}.0`, `{shown}.1[i]`): read them here, or pass `{shown}` to a `#[tape]` function that tracks it")
    } else if method {
        format!("a method of the tracked struct `{shown}` is not followed by Mica yet; read its fields here (`{shown}.field[i]`), or pass `{shown}` to a `#[tape]` function that tracks it, or to a function of the same `#[tape]` block")
    } else {
        format!("the tracked struct `{shown}` is read whole here; Mica follows a tracked struct through its fields (`{shown}.field[i]`): read them here, or pass `{shown}` to a `#[tape]` function that tracks it, or to a function of the same `#[tape]` block")
    };
    let token = &tokens[i];
    let end = tokens.get(j + 1).or(tokens.get(j)).unwrap_or(token);
    syn::Error::new(
        token.span().join(end.span()).unwrap_or(token.span()),
        message,
    )
}

/// The arguments of a call `path(…)` at `tokens[i]` that passes a tracked
/// struct whole (`m` or `&m`), each such argument written as the struct's
/// leaves and the struct itself (the callee's fields function takes them
/// so), the others rewritten as any reads; `None` for any other group.
fn struct_call(
    tokens: &[TokenTree],
    i: usize,
    roots: &[&Tracked],
    errors: &mut Errors,
) -> Option<TokenStream> {
    const KEYWORDS: &[&str] = &[
        "if", "while", "match", "return", "in", "for", "loop", "else", "let", "move", "break",
        "fn", "mut", "ref", "as", "unsafe", "await", "yield", "become",
    ];
    let TokenTree::Group(g) = &tokens[i] else {
        return None;
    };
    let TokenTree::Ident(callee) = tokens.get(i.checked_sub(1)?)? else {
        return None;
    };
    let before = i.checked_sub(2).and_then(|k| tokens.get(k));
    let method_or_item = matches!(before, Some(TokenTree::Punct(p)) if p.as_char() == '.')
        || matches!(before, Some(TokenTree::Ident(f)) if f == "fn");
    if g.delimiter() != Delimiter::Parenthesis
        || method_or_item
        || KEYWORDS.contains(&callee.to_string().as_str())
        || roots.iter().any(|t| t.root == *callee)
    {
        return None;
    }
    // the arguments, split at the commas between them
    let mut args: Vec<Vec<TokenTree>> = vec![Vec::new()];
    for t in g.stream() {
        match &t {
            TokenTree::Punct(p) if p.as_char() == ',' => args.push(Vec::new()),
            _ => args.last_mut()?.push(t),
        }
    }
    let whole = |arg: &[TokenTree]| -> Option<&Tracked> {
        let name = match arg {
            [TokenTree::Ident(name)] => name,
            [TokenTree::Punct(amp), TokenTree::Ident(name)] if amp.as_char() == '&' => name,
            _ => return None,
        };
        roots.iter().copied().find(|t| t.root == *name)
    };
    if !args.iter().any(|a| whole(a).is_some()) {
        return None;
    }
    let mut out = TokenStream::new();
    for (k, arg) in args.iter().enumerate() {
        if k > 0 {
            out.extend(quote!(,));
        }
        let Some(t) = whole(arg) else {
            out.extend(rewrite(arg.iter().cloned().collect(), roots, errors));
            continue;
        };
        let at = arg
            .last()
            .map_or_else(proc_macro2::Span::call_site, TokenTree::span);
        for leaf in &t.leaves {
            let mut name = leaf.name(&t.root);
            name.set_span(at);
            match leaf.by_ref() && t.by_value {
                true => out.extend(quote!(&#name,)),
                false => out.extend(quote!(#name,)),
            }
        }
        let plain = &t.plain;
        match t.by_value {
            true => out.extend(quote!(&#plain)),
            false => out.extend(quote!(#plain)),
        }
    }
    Some(out)
}

/// `(m.layers[l]).b`, as a helper's inlined parameter reads in a macro's
/// tokens, without the parentheses: `m.layers[l].b`.
fn unparen_places(tokens: Vec<TokenTree>, roots: &[&Tracked]) -> Vec<TokenTree> {
    let mut out = Vec::with_capacity(tokens.len());
    for (k, t) in tokens.iter().enumerate() {
        if let TokenTree::Group(g) = t {
            let field_after = matches!(tokens.get(k + 1), Some(TokenTree::Punct(p)) if p.as_char() == '.' && p.spacing() == proc_macro2::Spacing::Alone);
            let inner: Vec<TokenTree> = g.stream().into_iter().collect();
            let place = matches!(inner.first(), Some(TokenTree::Ident(r)) if roots.iter().any(|t| t.root == *r))
                && inner[1..].iter().all(|t| match t {
                    TokenTree::Ident(_) => true,
                    TokenTree::Punct(p) => {
                        p.as_char() == '.' && p.spacing() == proc_macro2::Spacing::Alone
                    }
                    TokenTree::Group(g) => g.delimiter() == Delimiter::Bracket,
                    TokenTree::Literal(_) => false,
                });
            if g.delimiter() == Delimiter::Parenthesis && field_after && place {
                out.extend(inner);
                continue;
            }
        }
        out.push(t.clone());
    }
    out
}
