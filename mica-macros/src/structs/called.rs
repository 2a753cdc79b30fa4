//! A method tracking `self`, called on a tracked struct by a `#[tape]`
//! function outside its block (`loss(#[tracked] m: &Model, …)` reading
//! `m.forward(x)`, with `forward(#[tracked] &self, …)` in a `#[tape] impl
//! Model`; `self.layers[k].forward(&h)` from another `impl`).
//!
//! The caller sees only its own tokens: it writes the call as one of the
//! method's fields function, the leaves under the struct reached first
//! (`structs/rewrite.rs`), through a hidden value the block writes:
//!
//! ```text
//! Model::forward_with_tracked_self().__mica_call(&m·w, m·b, m, x)
//! ```
//!
//! whose type holds the call and its adapter, `__mica_adjoint___mica_call`
//! (`lower/calls.rs`). A method with an array, tuple or `Vec` out keeps
//! its value there, and its scalar twin's adapter stands beside the twin's
//! accessor, `Model::__mica_seeded_forward_with_tracked_self()`
//! (`lower/array_calls.rs`). One name stands between the caller and
//! everything it calls, so a method that tracks no `self` is one error at
//! the user's call, naming the method.

use super::leaf::{member_name, Leaf, Tracked};
use proc_macro2::{Delimiter, Group, Ident, TokenStream, TokenTree};
use quote::{format_ident, quote, ToTokens};
use syn::{Generics, ImplItem, ItemImpl, Type, Visibility};

/// `tokens`, the expansion of a method in the `impl` of `self_ty`, with
/// the items marked `#[__mica_beside(NAME)]` taken out: the expansion
/// with an accessor `NAME_with_tracked_self` in their place, and for each
/// `NAME` (the method, and the scalar twin of one with an array out) the
/// hidden type that holds its items. `None` when nothing is marked (the
/// method tracks no `self`).
pub fn lift(
    tokens: &TokenStream,
    vis: &Visibility,
    self_ty: &Type,
    generics: &Generics,
) -> Option<(TokenStream, TokenStream)> {
    let parsed = syn::parse2::<ItemImpl>(quote!(impl __Mica { #tokens })).ok()?;
    let mut kept = TokenStream::new();
    // each host's items, in the order first marked
    let mut hosts: Vec<(Ident, TokenStream)> = Vec::new();
    for mut item in parsed.items {
        let mut host = None;
        if let ImplItem::Fn(f) = &mut item {
            f.attrs.retain(|a| {
                let marked = a.path().is_ident("__mica_beside");
                if marked {
                    host = a.parse_args::<Ident>().ok();
                }
                !marked
            });
        }
        let Some(host) = host else {
            item.to_tokens(&mut kept);
            continue;
        };
        let lifted = self_as(item.to_token_stream(), self_ty);
        match hosts.iter_mut().find(|(h, _)| *h == host) {
            Some((_, items)) => items.extend(lifted),
            None => hosts.push((host, lifted)),
        }
    }
    if hosts.is_empty() {
        return None;
    }
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    // the struct's parameters, bounds aside, each used by a marker
    let params: Vec<TokenStream> = generics
        .params
        .iter()
        .map(|p| match p {
            syn::GenericParam::Lifetime(l) => l.lifetime.to_token_stream(),
            syn::GenericParam::Type(t) => t.ident.to_token_stream(),
            syn::GenericParam::Const(c) => {
                let (ident, ty) = (&c.ident, &c.ty);
                quote!(const #ident: #ty)
            }
        })
        .collect();
    let used: Vec<TokenStream> = generics
        .params
        .iter()
        .filter_map(|p| match p {
            syn::GenericParam::Lifetime(l) => {
                let l = &l.lifetime;
                Some(quote!(&#l ()))
            }
            syn::GenericParam::Type(t) => Some(t.ident.to_token_stream()),
            syn::GenericParam::Const(_) => None,
        })
        .collect();
    let ty_hash = fnv(&quote!(#self_ty).to_string());
    let mut beside = TokenStream::new();
    for (accessor, lifted) in hosts {
        let hidden = format_ident!("__mica_{}_{:016x}", accessor, ty_hash);
        kept.extend(quote! {
            #[doc(hidden)]
            #[inline(always)]
            #[allow(dead_code)]
            #vis fn #accessor() -> #hidden #ty_generics {
                #hidden(::core::marker::PhantomData)
            }
        });
        beside.extend(quote! {
            #[doc(hidden)]
            #[allow(non_camel_case_types, dead_code)]
            #vis struct #hidden <#(#params),*>(::core::marker::PhantomData<fn() -> (#(#used,)*)>);

            #[allow(dead_code)]
            impl #impl_generics #hidden #ty_generics #where_clause {
                #lifted
            }
        });
    }
    Some((kept, beside))
}

/// `m.forward(x)` at `tokens[j]` (`.forward(…)` after the struct `m` reaches
/// at `path`) as a call of the method's fields function, the struct's
/// leaves under `path` passed first and the struct itself after them, the
/// arguments as `reads` rewrites them:
/// `Model::forward_with_tracked_self().__mica_call(&m·w, m·b, m, x)`.
/// `None` when `tokens[j]` starts no such call, or a container of structs
/// above the struct is not indexed.
pub(super) fn tracked_self_call(
    tokens: &[TokenTree],
    j: usize,
    t: &Tracked,
    place: &Place<'_>,
    reads: &mut dyn FnMut(TokenStream) -> TokenStream,
) -> Option<TokenStream> {
    let path = place.path;
    let (Some(TokenTree::Punct(dot)), Some(TokenTree::Ident(method)), Some(TokenTree::Group(args))) =
        (tokens.get(j), tokens.get(j + 1), tokens.get(j + 2))
    else {
        return None;
    };
    if dot.as_char() != '.' || args.delimiter() != Delimiter::Parenthesis {
        return None;
    }
    // a copy Mica does not follow (`structs/copies.rs` follows the others)
    if method == "clone" && args.stream().is_empty() {
        let message = "a copy of a tracked struct is followed where a `let` binds it (`let mut s = m.clone();`) and it is read and written field by field (`s.w[0] += …`), its name bound nowhere else in the function; copy the fields it needs instead (`let mut w = m.w.clone();`)";
        return Some(quote::quote_spanned!(method.span()=> (::core::compile_error!(#message))));
    }
    let ty = t.types.get(path)?;
    let under = |leaf: &&Leaf| {
        leaf.path.len() > path.len()
            && leaf
                .path
                .iter()
                .zip(path)
                .all(|(m, p)| member_name(m) == *p)
    };
    let leaves: Vec<&Leaf> = t.leaves.iter().filter(under).collect();
    // each container above the struct indexed (those inside it the
    // callee's leaves gather too)
    let indexed =
        |l: &&Leaf| l.each.iter().filter(|&&e| e <= path.len()).count() == place.indices.len();
    if !leaves.iter().all(indexed) {
        return None;
    }
    // `Model<T>` is `Model::<T>` in an expression
    let mut ty = ty.clone();
    for segment in &mut ty.path.segments {
        if let syn::PathArguments::AngleBracketed(a) = &mut segment.arguments {
            a.colon2_token = Some(Default::default());
        }
    }
    let at = method.span();
    let mut passed = TokenStream::new();
    for leaf in leaves {
        let mut name = leaf.name(&t.root);
        name.set_span(at);
        let indices = place.indices;
        match (indices.is_empty(), leaf.by_ref() && t.by_value) {
            // an element of a gathered leaf: the field of the struct indexed
            (false, _) if leaf.by_ref_under(indices.len()) => {
                passed.extend(quote!(&#name #(#indices)*,))
            }
            (false, _) => passed.extend(quote!(#name #(#indices)*,)),
            (true, true) => passed.extend(quote!(&#name,)),
            (true, false) => passed.extend(quote!(#name,)),
        }
    }
    let (plain, written) = (&t.plain, place.written);
    match (path.is_empty(), t.by_value) {
        (true, false) => passed.extend(quote!(#plain)),
        _ => passed.extend(quote!(&#plain #(#written)*)),
    }
    let rest = reads(args.stream());
    if !rest.is_empty() {
        passed.extend(quote!(, #rest));
    }
    let accessor = crate::names::tracked_self_accessor(method);
    let mut group = Group::new(Delimiter::Parenthesis, passed);
    group.set_span(args.span());
    // spanned at the method: an error about the call points there
    let ty = respanned(quote!(#ty), at);
    let mut out = quote::quote_spanned!(at=> #ty::#accessor().__mica_call);
    out.extend([TokenTree::Group(group)]);
    Some(out)
}

/// Where a path into a tracked struct reaches: its fields, the indices of
/// the containers it passes, and the path as written (`.layers[k]`).
pub(super) struct Place<'a> {
    pub path: &'a [String],
    pub indices: &'a [TokenTree],
    pub written: &'a [TokenTree],
}

/// `tokens`, every one spanned at `at`.
fn respanned(tokens: TokenStream, at: proc_macro2::Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut t| {
            if let TokenTree::Group(g) = &t {
                let mut inner = Group::new(g.delimiter(), respanned(g.stream(), at));
                inner.set_span(at);
                return TokenTree::Group(inner);
            }
            t.set_span(at);
            t
        })
        .collect()
}

/// `tokens` with `Self` written as `self_ty` (`<Model<T>>::f` before a
/// path's `::`), for functions moved out of `self_ty`'s `impl`.
fn self_as(tokens: TokenStream, self_ty: &Type) -> TokenStream {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = TokenStream::new();
    for (k, t) in tokens.iter().enumerate() {
        match t {
            TokenTree::Ident(i) if i == "Self" => {
                let path =
                    matches!(tokens.get(k + 1), Some(TokenTree::Punct(p)) if p.as_char() == ':');
                match path {
                    true => out.extend(quote!(<#self_ty>)),
                    false => out.extend(quote!(#self_ty)),
                }
            }
            TokenTree::Group(g) => {
                let mut inner = Group::new(g.delimiter(), self_as(g.stream(), self_ty));
                inner.set_span(g.span());
                out.extend([TokenTree::Group(inner)]);
            }
            other => out.extend([other.clone()]),
        }
    }
    out
}

/// FNV-1a of `text`: the type's part of the hidden type's name, so two
/// `impl`s of one module (`Model<f32>`, `Model<f64>`) name theirs apart.
fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn self_is_written_as_the_type() {
        let ty: Type = syn::parse_quote!(Model<T>);
        let out = self_as(
            quote!(
                fn f(s: &Self) {
                    Self::g(s)
                }
            ),
            &ty,
        )
        .to_string()
        .replace(' ', "");
        assert_eq!(out, "fnf(s:&Model<T>){<Model<T>>::g(s)}");
    }

    #[test]
    fn unmarked_methods_lift_nothing() {
        let (ty, g): (Type, Generics) = (syn::parse_quote!(Model), Generics::default());
        assert!(lift(
            &quote!(
                fn forward(&self) -> f64 {
                    0.0
                }
            ),
            &Visibility::Inherited,
            &ty,
            &g
        )
        .is_none());
        let marked = quote!(
            #[__mica_beside(forward_with_tracked_self)]
            fn __mica_call(&self) -> f64 {
                Self::f()
            }
            fn forward(&self) -> f64 {
                0.0
            }
        );
        let (kept, beside) = lift(&marked, &Visibility::Inherited, &ty, &g).expect("lifted");
        assert!(kept.to_string().contains("forward_with_tracked_self"));
        assert!(!kept.to_string().contains("__mica_call"));
        assert!(beside.to_string().replace(' ', "").contains("<Model>::f"));
    }
}
