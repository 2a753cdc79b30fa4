//! A tracked struct's reads written as its leaves' (`structs.rs`).

use crate::errors::Errors;
use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};
use quote::quote;
use std::collections::HashMap;
use syn::visit::Visit;
use syn::{Ident, Type};

/// What a container of structs becomes, given the place it is at, its
/// depth, and what each of its elements becomes.
type Around<'a> =
    dyn Fn(&TokenStream, usize, &mut dyn FnMut(&TokenStream) -> TokenStream) -> TokenStream + 'a;

/// One field of a tracked struct that holds floats: its path from the
/// parameter and its type.
///
/// A field of the structs in a `Vec` or an array field (`m.layers[l].w`)
/// is gathered: its leaf is a `Vec` of that field, one per element
/// (`each` holds how many names of `path` come before each container),
/// read as `leaf[l]`, its slopes added back element by element.
pub struct Leaf {
    /// fields by name, a tuple's elements by number
    pub path: Vec<syn::Member>,
    pub each: Vec<usize>,
    pub ty: Type,
}

impl Leaf {
    pub fn gathered(&self) -> bool {
        !self.each.is_empty()
    }

    /// The leaf's value read from `value`: the field itself, or (gathered)
    /// a `Vec` of it built element by element.
    pub fn gather(&self, value: &TokenStream) -> TokenStream {
        self.walk(
            value,
            0,
            &mut |at, _| quote!(::core::clone::Clone::clone(&#at)),
            &|at, k, inner| collected(at, k, quote!(iter), &mut |e| inner(&quote!(#e))),
        )
    }

    /// Whether the field itself (under its containers) is a `Vec`.
    fn field_is_vec(&self) -> bool {
        let mut ty = &self.ty;
        for _ in &self.each {
            let Type::Path(p) = ty else { return false };
            let Some(syn::PathArguments::AngleBracketed(a)) =
                p.path.segments.last().map(|s| &s.arguments)
            else {
                return false;
            };
            let Some(syn::GenericArgument::Type(inner)) = a.args.first() else {
                return false;
            };
            ty = inner;
        }
        matches!(ty, Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "Vec"))
    }

    /// The gathered leaf's slot, moved out of the fields of `slot` (the
    /// struct's gradient): a `Vec` field taken, an array or a float
    /// copied. The callee adds into it; [`Self::put_back`] returns it.
    pub fn take(&self, slot: &TokenStream) -> TokenStream {
        let vec = self.field_is_vec();
        self.walk(
            slot,
            0,
            &mut |at, _| match vec {
                true => quote!(::core::mem::take(&mut #at)),
                false => quote!(#at),
            },
            &|at, k, inner| collected(at, k, quote!(iter_mut), &mut |e| inner(&quote!((*#e)))),
        )
    }

    /// Moves the slot [`Self::take`] made, `d`, back into the fields of
    /// `slot`.
    pub fn put_back(&self, slot: &TokenStream, d: &TokenStream) -> TokenStream {
        let d_at = |k: usize| {
            quote::format_ident!("__mica_back{}", k, span = proc_macro2::Span::mixed_site())
        };
        let body = self.walk(
            slot,
            0,
            &mut |at, k| {
                let d = d_at(k);
                quote!(#at = #d;)
            },
            &|at, k, inner| {
                let (e, d, outer) = (
                    quote::format_ident!(
                        "__mica_back_e{}",
                        k,
                        span = proc_macro2::Span::mixed_site()
                    ),
                    d_at(k + 1),
                    d_at(k),
                );
                let inner = inner(&quote!((*#e)));
                quote!(for (#e, #d) in #at.iter_mut().zip(#outer) { #inner })
            },
        );
        let d0 = d_at(0);
        quote!({ let #d0 = #d; #body })
    }

    /// The name of the container above the leaf at depth `k`
    /// (`m.layers`), for a length mismatch.
    pub fn container(&self, root: &Ident, k: usize) -> String {
        std::iter::once(root.to_string())
            .chain(self.path[..self.each[k]].iter().map(member_name))
            .collect::<Vec<_>>()
            .join(".")
    }

    /// Adds the gathered leaf's slopes `d` to the fields of `slot`.
    pub fn scatter(&self, slot: &TokenStream, d: &TokenStream, root: &Ident) -> TokenStream {
        let d_at = |k: usize| {
            quote::format_ident!("__mica_d{}", k, span = proc_macro2::Span::mixed_site())
        };
        let body = self.walk(
            slot,
            0,
            &mut |at, k| {
                let d = d_at(k);
                quote!(::mica::__private::step_field(&mut #at, #d, 1.0);)
            },
            &|at, k, inner| {
                let (e, d, outer) = (
                    quote::format_ident!("__mica_e{}", k, span = proc_macro2::Span::mixed_site()),
                    d_at(k + 1),
                    d_at(k),
                );
                let inner = inner(&quote!((*#e)));
                // the container named in a length mismatch: `m.layers`
                let label = self.container(root, k);
                quote! {
                    ::mica::__private::slot_len(#at.len(), #outer.len(), #label);
                    for (#e, #d) in #at.iter_mut().zip(#outer.iter()) { #inner }
                }
            },
        );
        let d0 = d_at(0);
        quote!({ let #d0 = &#d; #body })
    }

    /// `value.path…` through the containers: `leaf` at the field itself,
    /// `each` around what is under a container.
    fn walk(
        &self,
        value: &TokenStream,
        from: usize,
        leaf: &mut dyn FnMut(&TokenStream, usize) -> TokenStream,
        each: &Around<'_>,
    ) -> TokenStream {
        let k = self.each.iter().filter(|&&e| e <= from).count();
        let (start, end) = (from, self.each.get(k).copied().unwrap_or(self.path.len()));
        let names = &self.path[start.min(end)..end];
        let at = quote!(#value #(.#names)*);
        if k == self.each.len() {
            return leaf(&at, k);
        }
        let mut inner = |e: &TokenStream| self.walk(e, end, leaf, each);
        each(&at, k, &mut inner)
    }

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
            name.push_str(&member_name(p));
        }
        Ident::new(&name, root.span())
    }
}

/// `{ let mut v = Vec::with_capacity(at.len()); for e in at.ITER() {
/// v.push(INNER(e)); } v }`: a `Vec` of what each element of the
/// container `at` (at depth `k`) gives. A loop, not an iterator chain:
/// the chains of a body are Mica's to rewrite.
fn collected(
    at: &TokenStream,
    k: usize,
    iter: TokenStream,
    inner: &mut dyn FnMut(&Ident) -> TokenStream,
) -> TokenStream {
    let span = proc_macro2::Span::mixed_site();
    let (e, v) = (
        quote::format_ident!("__mica_each_e{}", k, span = span),
        quote::format_ident!("__mica_each_v{}", k, span = span),
    );
    let inner = inner(&e);
    quote!({
        let mut #v = ::std::vec::Vec::with_capacity(#at.len());
        for #e in #at.#iter() {
            #v.push(#inner);
        }
        #v
    })
}

/// A tuple of two or more knobs, or a reference to one.
pub fn tuple_of(ty: &Type) -> Option<&syn::TypeTuple> {
    match ty {
        Type::Reference(r) if r.mutability.is_none() => tuple_of(&r.elem),
        Type::Paren(p) => tuple_of(&p.elem),
        Type::Tuple(t) if t.elems.len() >= 2 => Some(t),
        _ => None,
    }
}

/// A field's name, or a tuple element's number.
pub fn member_name(member: &syn::Member) -> String {
    match member {
        syn::Member::Named(ident) => ident.to_string(),
        syn::Member::Unnamed(index) => index.index.to_string(),
    }
}

/// What a path into a tracked struct reaches.
pub enum Reach {
    Leaf(usize),
    Struct,
    /// a `Vec` or an array of structs, read by an index
    Each,
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
    /// a tuple of knobs, read by element (`p.0`), not a struct
    pub tuple: bool,
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
                    Reach::Struct | Reach::Unknown | Reach::Each => {
                        let method = matches!(tokens.get(j + 2), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis);
                        let message = if matches!(reach, Reach::Each) {
                            format!("`{shown}` holds tracked structs, which Mica follows by index: read `{shown}[k].field` with `k` in `0..{shown}.len()`, or loop `for item in &{shown} {{ … item.field … }}`")
                        } else if t.tuple && path.is_empty() {
                            format!("the tracked tuple `{shown}` is read whole here; Mica follows a tracked tuple through its elements (`{shown}.0`, `{shown}.1[i]`): read them here, or pass `{shown}` to a `#[tape]` function that tracks it")
                        } else if method {
                            format!("a method of the tracked struct `{shown}` is not followed by Mica yet; read its fields here (`{shown}.field[i]`), or pass `{shown}` to a `#[tape]` function that tracks it, or to a function of the same `#[tape]` block")
                        } else {
                            format!("the tracked struct `{shown}` is read whole here; Mica follows a tracked struct through its fields (`{shown}.field[i]`): read them here, or pass `{shown}` to a `#[tape]` function that tracks it, or to a function of the same `#[tape]` block")
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
