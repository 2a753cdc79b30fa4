//! The field tables of tracked structs: asked of a struct's derive
//! (`Mlp! { … }`), handed back through `tape_with!`, kept for one
//! expansion.

use crate::parse::is_tracked;
use proc_macro2::{Delimiter, Span, TokenStream, TokenTree};
use quote::{quote, ToTokens};
use std::cell::RefCell;
use std::collections::HashMap;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{FnArg, ItemFn, ItemStruct};

thread_local! {
    /// The field tables `tape_with!` was handed, by struct name.
    static TABLES: RefCell<HashMap<String, ItemStruct>> = RefCell::new(HashMap::new());
}

/// Runs `f` with `tables` known, then forgets them.
pub fn with_tables<R>(tables: Vec<ItemStruct>, f: impl FnOnce() -> R) -> R {
    TABLES.with(|t| {
        let mut t = t.borrow_mut();
        t.clear();
        t.extend(tables.into_iter().map(|mut s| {
            Ungroup.visit_item_struct_mut(&mut s);
            (s.ident.to_string(), s)
        }));
    });
    let out = f();
    TABLES.with(|t| t.borrow_mut().clear());
    out
}

/// A field type a declarative macro wrote (`[$t; 2]`) reaches the table
/// with its fragments in invisible groups; the table holds the types as
/// written out.
struct Ungroup;

impl syn::visit_mut::VisitMut for Ungroup {
    fn visit_type_mut(&mut self, ty: &mut syn::Type) {
        while let syn::Type::Group(g) = ty {
            *ty = (*g.elem).clone();
        }
        syn::visit_mut::visit_type_mut(self, ty);
    }
}

/// The structs `input` defines itself with `#[derive(…Knob…)]` (a model
/// declared in the `#[tape] mod` that differentiates its loss): their
/// tables are their own definitions, known without asking their derive,
/// whose macro is not defined yet where the module is expanded.
pub fn local(input: &TokenStream) -> Vec<ItemStruct> {
    struct Find(Vec<ItemStruct>);
    impl<'ast> Visit<'ast> for Find {
        fn visit_item_struct(&mut self, s: &'ast ItemStruct) {
            let knob = s.attrs.iter().any(|a| {
                a.path().is_ident("derive")
                    && a.meta.to_token_stream().into_iter().any(|t| names_knob(&t))
            });
            if knob {
                self.0.push(s.clone());
            }
        }
        // functions' bodies define no model a signature names
        fn visit_item_fn(&mut self, _: &'ast ItemFn) {}
    }
    /// Whether a token of a `derive` list names `Knob` (`Knob`,
    /// `mica::Knob`).
    fn names_knob(t: &TokenTree) -> bool {
        match t {
            TokenTree::Ident(i) => i == "Knob",
            TokenTree::Group(g) => g.stream().into_iter().any(|t| names_knob(&t)),
            _ => false,
        }
    }
    let Ok(file) = syn::parse2::<syn::File>(input.clone()) else {
        return Vec::new();
    };
    let mut find = Find(Vec::new());
    find.visit_file(&file);
    find.0
}

/// Runs `f` with `more` known beside the tables known already.
pub fn with_local<R>(more: Vec<ItemStruct>, f: impl FnOnce() -> R) -> R {
    if more.is_empty() {
        return f();
    }
    let before = TABLES.with(|t| t.borrow().clone());
    TABLES.with(|t| {
        let mut t = t.borrow_mut();
        for mut s in more {
            Ungroup.visit_item_struct_mut(&mut s);
            t.entry(s.ident.to_string()).or_insert(s);
        }
    });
    let out = f();
    TABLES.with(|t| *t.borrow_mut() = before);
    out
}

pub fn table(name: &str) -> Option<ItemStruct> {
    TABLES.with(|t| t.borrow().get(name).cloned())
}

/// The path a struct's table is asked for by: its path without generic
/// arguments (`models::Mlp` for `&models::Mlp<f64>`).
fn macro_path(p: &syn::TypePath) -> syn::Path {
    let mut path = p.path.clone();
    if let Some(last) = path.segments.last_mut() {
        last.arguments = syn::PathArguments::None;
    }
    path
}

/// The structs named by the tracked parameters of every function of
/// `input` (a function, a module or an impl block), and by the knob fields
/// of the tables known, whose tables are not known yet.
pub fn wanted(input: &TokenStream) -> Vec<syn::TypePath> {
    #[derive(Default)]
    struct Find {
        generic: Vec<String>,
        found: Vec<syn::TypePath>,
        /// the type of the `impl` block the functions stand in
        self_ty: Option<syn::Type>,
    }
    impl Find {
        /// The structs a function tracks: its tracked parameters', a
        /// tracked `self`'s (an `impl` block's type), and its top-level
        /// `#[tracked] let m: Mlp = …;` (a window's)
        fn function(&mut self, sig: &syn::Signature, block: &syn::Block) {
            let mut generic = self.generic.clone();
            generic.extend(sig.generics.type_params().map(|p| p.ident.to_string()));
            let tracked_self = sig
                .receiver()
                .is_some_and(|r| r.attrs.iter().any(is_tracked));
            let me = self.self_ty.as_ref().filter(|_| tracked_self);
            let params = sig.inputs.iter().filter_map(|input| match input {
                FnArg::Typed(t) if t.attrs.iter().any(is_tracked) => Some(&*t.ty),
                _ => None,
            });
            let lets = block.stmts.iter().filter_map(|stmt| match stmt {
                syn::Stmt::Local(local) if local.attrs.iter().any(is_tracked) => match &local.pat {
                    syn::Pat::Type(typed) => Some(&*typed.ty),
                    _ => None,
                },
                _ => None,
            });
            for ty in me.into_iter().chain(params).chain(lets) {
                // a tuple's elements, and the structs of containers in it
                let elems: Vec<&syn::Type> = match super::leaf::tuple_of(ty) {
                    Some(t) => t.elems.iter().map(elements).collect(),
                    None => vec![ty],
                };
                for ty in elems {
                    if let Some(p) = crate::knob_derive::struct_of(ty, &generic) {
                        self.found.push(p.clone());
                    }
                }
            }
        }
    }
    impl<'ast> Visit<'ast> for Find {
        fn visit_item_fn(&mut self, f: &'ast ItemFn) {
            self.function(&f.sig, &f.block);
        }
        fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
            self.function(&f.sig, &f.block);
        }
        fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
            let before = self.generic.len();
            self.generic
                .extend(i.generics.type_params().map(|p| p.ident.to_string()));
            let outer = self.self_ty.replace((*i.self_ty).clone());
            syn::visit::visit_item_impl(self, i);
            self.self_ty = outer;
            self.generic.truncate(before);
        }
    }
    let Ok(file) = syn::parse2::<syn::File>(input.clone()) else {
        return Vec::new();
    };
    let mut find = Find::default();
    find.visit_file(&file);
    // the knob fields of the tables known name structs too
    let known: Vec<ItemStruct> = TABLES.with(|t| t.borrow().values().cloned().collect());
    for s in &known {
        let generic: Vec<String> = s
            .generics
            .type_params()
            .map(|p| p.ident.to_string())
            .collect();
        for field in &s.fields {
            if !is_skipped(field) {
                if let Some(p) = crate::knob_derive::struct_of(elements(&field.ty), &generic) {
                    let mut p = p.clone();
                    respan(&mut p);
                    find.found.push(p);
                }
            }
        }
    }
    let mut seen = Vec::new();
    find.found
        .into_iter()
        .filter(|p| {
            let name = p.path.segments.last().map(|s| s.ident.to_string());
            let new = name
                .as_ref()
                .is_some_and(|n| table(n).is_none() && !seen.contains(n));
            if let Some(n) = name {
                seen.push(n);
            }
            new
        })
        .collect()
}

/// The elements' type of a field's arrays and `Vec`s (`Layer` of
/// `Vec<Layer>`), or the field's type.
fn elements(ty: &syn::Type) -> &syn::Type {
    match ty {
        syn::Type::Array(a) => elements(&a.elem),
        syn::Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last();
            match last.map(|s| (&s.ident, &s.arguments)) {
                Some((v, syn::PathArguments::AngleBracketed(a))) if v == "Vec" => {
                    match a.args.first() {
                        Some(syn::GenericArgument::Type(t)) => elements(t),
                        _ => ty,
                    }
                }
                _ => ty,
            }
        }
        _ => ty,
    }
}

/// A path from a struct's definition, named where `#[tape]` stands.
fn respan(p: &mut syn::TypePath) {
    for s in &mut p.path.segments {
        s.ident.set_span(Span::call_site());
    }
}

pub fn is_skipped(field: &syn::Field) -> bool {
    field.attrs.iter().any(|a| a.path().is_ident("skip"))
}

/// `Mlp! { [tables…] (args) item }`: asks the struct's derive for its
/// table, which comes back to `tape_with!`; beside it, a check that words
/// a missing derive in Mica's terms. A module asks from inside itself,
/// where its `use`s name the struct: `mod m { uses… Mlp! { … @inside mod m
/// { … } } }`.
pub fn ask(
    want: &syn::TypePath,
    args: &TokenStream,
    input: &TokenStream,
    inside: bool,
) -> TokenStream {
    let path = macro_path(want);
    let tables: Vec<TokenStream> =
        TABLES.with(|t| t.borrow().values().map(|s| quote!([#s])).collect());
    let check = match want.path.segments.iter().all(|s| s.arguments.is_empty()) {
        true => {
            let span = syn::spanned::Spanned::span(want);
            quote::quote_spanned!(span=>
                const _: fn() = || ::mica::__private::assert_knob_type::<#want>();
            )
        }
        false => TokenStream::new(),
    };
    if !inside {
        if let Ok(m) = syn::parse2::<syn::ItemMod>(input.clone()) {
            if let Some((_, items)) = &m.content {
                let uses = items.iter().filter(|i| matches!(i, syn::Item::Use(_)));
                let (attrs, vis, ident) = (&m.attrs, &m.vis, &m.ident);
                return quote! {
                    #(#attrs)* #vis mod #ident {
                        #(#uses)*
                        #check
                        #path! { #(#tables)* (#args) @inside #input }
                    }
                };
            }
        }
    }
    let inside = inside.then(|| quote!(@inside));
    quote! {
        #check
        #path! { #(#tables)* (#args) #inside #input }
    }
}

/// The items of an expanded module, without the `use`s of `written` (the
/// module as written, whose first pass put them beside the expansion).
pub fn contents(expanded: TokenStream, written: &TokenStream) -> TokenStream {
    let Ok(file) = syn::parse2::<syn::File>(expanded.clone()) else {
        return expanded;
    };
    let theirs: Vec<String> = match syn::parse2::<syn::ItemMod>(written.clone()) {
        Ok(syn::ItemMod {
            content: Some((_, items)),
            ..
        }) => items
            .iter()
            .filter(|i| matches!(i, syn::Item::Use(_)))
            .map(|i| i.to_token_stream().to_string())
            .collect(),
        _ => Vec::new(),
    };
    let mut out = TokenStream::new();
    for item in file.items {
        match item {
            syn::Item::Mod(m) if m.content.is_some() => {
                if let Some((_, items)) = m.content {
                    for i in items {
                        let written_use = matches!(i, syn::Item::Use(_))
                            && theirs.contains(&i.to_token_stream().to_string());
                        if !written_use {
                            out.extend(i.to_token_stream());
                        }
                    }
                }
            }
            other => out.extend(other.to_token_stream()),
        }
    }
    out
}

/// `tape_with!`'s input: the tables, the attribute's arguments, whether
/// it stands inside the module it expands, the item.
pub fn split_input(input: TokenStream) -> (Vec<ItemStruct>, TokenStream, bool, TokenStream) {
    let mut tables = Vec::new();
    let mut tokens = input.into_iter().peekable();
    while let Some(TokenTree::Group(g)) = tokens.peek() {
        if g.delimiter() != Delimiter::Bracket {
            break;
        }
        if let Ok(s) = syn::parse2::<ItemStruct>(g.stream()) {
            tables.push(s);
        }
        tokens.next();
    }
    let args = match tokens.next() {
        Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Parenthesis => g.stream(),
        _ => TokenStream::new(),
    };
    let mut inside = false;
    if matches!(tokens.peek(), Some(TokenTree::Punct(p)) if p.as_char() == '@') {
        tokens.next();
        inside = matches!(tokens.next(), Some(TokenTree::Ident(i)) if i == "inside");
    }
    (tables, args, inside, tokens.collect())
}
