//! Dead bookkeeping out of generated code.
//!
//! Lowering a loop copies values it may need later — the iteration's index,
//! each carried binding as the iteration found it and after the loop, the
//! trip count — before the reverse sweep is written and knows which of them
//! it reads. Whatever nothing reads is removed here: `let __mica_x = y;`
//! where no other token names `__mica_x`, and a counter `let mut __mica_kc =
//! 0usize;` whose only other mentions are `__mica_kc += 1;`. Removing one
//! can leave another unread, so the pass repeats until nothing changes.
//! Only copies of a name and counters go: nothing that can panic or has an
//! effect.

use proc_macro2::{Group, TokenStream, TokenTree};
use std::collections::HashMap;

/// Removes the dead copies and counters from `pieces`, which together are
/// everything that could read them.
pub fn drop_dead_copies(pieces: &mut [TokenStream]) {
    loop {
        let mut uses = Uses::default();
        for piece in pieces.iter() {
            uses.count(piece.clone());
        }
        let mut changed = false;
        for piece in pieces.iter_mut() {
            *piece = filter(std::mem::take(piece), &uses, &mut changed);
        }
        if !changed {
            return;
        }
    }
}

#[derive(Default)]
struct Uses {
    /// every mention of a Mica temporary
    all: HashMap<String, usize>,
    /// mentions as `name += 1;`
    increments: HashMap<String, usize>,
}

impl Uses {
    fn count(&mut self, tokens: TokenStream) {
        let tokens: Vec<TokenTree> = tokens.into_iter().collect();
        for (k, tt) in tokens.iter().enumerate() {
            match tt {
                TokenTree::Ident(ident) => {
                    let name = ident.to_string();
                    if name.starts_with("__mica_") {
                        if is_increment(&tokens[k..]) {
                            *self.increments.entry(name.clone()).or_default() += 1;
                        }
                        *self.all.entry(name).or_default() += 1;
                    }
                }
                TokenTree::Group(g) => self.count(g.stream()),
                _ => {}
            }
        }
    }

    fn unread(&self, name: &str, declared: usize) -> bool {
        let all = self.all.get(name).copied().unwrap_or(0);
        let increments = self.increments.get(name).copied().unwrap_or(0);
        all == declared + increments
    }
}

fn filter(tokens: TokenStream, uses: &Uses, changed: &mut bool) -> TokenStream {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = Vec::with_capacity(tokens.len());
    let mut k = 0;
    while k < tokens.len() {
        let rest = &tokens[k..];
        // `let __mica_x = y;`, `__mica_x` read nowhere
        if let Some(name) = dead_copy(rest) {
            if uses.unread(&name, 1) && !uses.increments.contains_key(&name) {
                k += 5;
                *changed = true;
                continue;
            }
        }
        // `let mut __mica_kc = 0usize;` and `__mica_kc += 1;`, read nowhere
        if let Some(name) = counter(rest) {
            if uses.unread(&name, 1) {
                k += 6;
                *changed = true;
                continue;
            }
        }
        if is_increment(rest) {
            if let TokenTree::Ident(name) = &rest[0] {
                let name = name.to_string();
                if uses.unread(&name, 1) && uses.increments.contains_key(&name) {
                    k += 5;
                    *changed = true;
                    continue;
                }
            }
        }
        match &tokens[k] {
            TokenTree::Group(g) => {
                let mut group = Group::new(g.delimiter(), filter(g.stream(), uses, changed));
                group.set_span(g.span());
                out.push(TokenTree::Group(group));
            }
            other => out.push(other.clone()),
        }
        k += 1;
    }
    out.into_iter().collect()
}

fn is_ident(tt: Option<&TokenTree>, text: &str) -> bool {
    matches!(tt, Some(TokenTree::Ident(i)) if i == text)
}

fn is_punct(tt: Option<&TokenTree>, ch: char) -> bool {
    matches!(tt, Some(TokenTree::Punct(p)) if p.as_char() == ch)
}

fn temp_name(tt: Option<&TokenTree>) -> Option<String> {
    match tt {
        Some(TokenTree::Ident(i)) => {
            let name = i.to_string();
            name.starts_with("__mica_").then_some(name)
        }
        _ => None,
    }
}

/// `let __mica_x = y ;` → `__mica_x`
fn dead_copy(tokens: &[TokenTree]) -> Option<String> {
    if !is_ident(tokens.first(), "let") {
        return None;
    }
    let name = temp_name(tokens.get(1))?;
    let copy = is_punct(tokens.get(2), '=')
        && matches!(tokens.get(3), Some(TokenTree::Ident(_)))
        && is_punct(tokens.get(4), ';');
    copy.then_some(name)
}

/// `let mut __mica_kc = 0usize ;` → `__mica_kc`
fn counter(tokens: &[TokenTree]) -> Option<String> {
    if !is_ident(tokens.first(), "let") || !is_ident(tokens.get(1), "mut") {
        return None;
    }
    let name = temp_name(tokens.get(2))?;
    let zero = matches!(tokens.get(4), Some(TokenTree::Literal(l)) if l.to_string() == "0usize");
    (is_punct(tokens.get(3), '=') && zero && is_punct(tokens.get(5), ';')).then_some(name)
}

/// `__mica_kc += 1 ;`
fn is_increment(tokens: &[TokenTree]) -> bool {
    temp_name(tokens.first()).is_some()
        && is_punct(tokens.get(1), '+')
        && is_punct(tokens.get(2), '=')
        && matches!(tokens.get(3), Some(TokenTree::Literal(l)) if l.to_string() == "1")
        && is_punct(tokens.get(4), ';')
}

#[cfg(test)]
mod tests {
    use super::drop_dead_copies;
    use quote::quote;

    #[test]
    fn removes_unread_copies_and_counters_only() {
        let mut pieces = [
            quote! {
                let mut __mica_kc1 = 0usize;
                let mut __mica_kc2 = 0usize;
                for i in 0..n {
                    let __mica_c3 = __mica_kc1;
                    __mica_kc1 += 1;
                    let __mica_c4 = __mica_kc2;
                    __mica_kc2 += 1;
                    let __mica_p5 = total;
                    let __mica_t6 = x[i];
                }
                let __mica_c7 = __mica_kc1;
            },
            quote! { use_it(__mica_c4, __mica_t6); },
        ];
        drop_dead_copies(&mut pieces);
        let kept = quote! {
            let mut __mica_kc2 = 0usize;
            for i in 0..n {
                let __mica_c4 = __mica_kc2;
                __mica_kc2 += 1;
                let __mica_t6 = x[i];
            }
        };
        assert_eq!(pieces[0].to_string(), kept.to_string());
        assert_eq!(
            pieces[1].to_string(),
            quote!(use_it(__mica_c4, __mica_t6);).to_string()
        );
    }
}
