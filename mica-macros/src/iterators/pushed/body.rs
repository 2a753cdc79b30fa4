//! What decides whether a loop's pushes are counted before it: whether
//! its body may leave early, which names it binds, and which names of the
//! function may change at all.

use crate::names::idents_in;
use proc_macro2::Ident;
use quote::ToTokens;
use std::collections::HashSet;
use syn::visit::Visit;
use syn::{Block, Expr};

/// Whether a loop's body may leave an iteration or the loop before its
/// end: `break`, `continue` (but those of a loop inside it), `return`,
/// `?`, or a macro that may hold one.
pub(super) fn leaves(body: &Block) -> bool {
    let mut exits = Exits {
        depth: 0,
        found: false,
    };
    exits.visit_block(body);
    exits.found
}

struct Exits {
    depth: usize,
    found: bool,
}

impl<'ast> Visit<'ast> for Exits {
    fn visit_expr(&mut self, e: &'ast Expr) {
        match e {
            Expr::Break(b) if self.depth == 0 || b.label.is_some() => self.found = true,
            Expr::Continue(c) if self.depth == 0 || c.label.is_some() => self.found = true,
            Expr::Return(_) | Expr::Try(_) => self.found = true,
            Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_) => {
                self.depth += 1;
                syn::visit::visit_expr(self, e);
                self.depth -= 1;
            }
            // a closure's `return` and `?` are its own
            Expr::Closure(_) => {}
            _ => syn::visit::visit_expr(self, e),
        }
    }
    /// A macro may leave by what its definition holds, which is not here:
    /// only std's that do not are taken, by what their tokens hold.
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        let known = [
            "println",
            "print",
            "eprintln",
            "eprint",
            "format",
            "write",
            "writeln",
            "assert",
            "assert_eq",
            "assert_ne",
            "debug_assert",
            "debug_assert_eq",
            "debug_assert_ne",
            "panic",
            "unreachable",
            "todo",
            "unimplemented",
            "vec",
            "dbg",
            "matches",
        ];
        let last = m.path.segments.last().map(|s| s.ident.to_string());
        let std = last.is_some_and(|l| known.contains(&l.as_str()));
        let mut names = HashSet::new();
        idents_in(m.tokens.clone(), &mut names);
        let question = has_question(&m.tokens);
        let exits = ["break", "continue", "return"]
            .iter()
            .any(|w| names.contains(*w));
        if !std || exits || question {
            self.found = true;
        }
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// Whether tokens hold a `?` (not one inside a string).
fn has_question(tokens: &proc_macro2::TokenStream) -> bool {
    tokens.clone().into_iter().any(|tt| match tt {
        proc_macro2::TokenTree::Punct(p) => p.as_char() == '?',
        proc_macro2::TokenTree::Group(g) => has_question(&g.stream()),
        _ => false,
    })
}

/// What the whole function says of its names: those that may change
/// (bound `mut` or `ref mut`, of a `&mut` type, or bound to a `&mut`
/// borrow), and those bound only to arrays (`&[T]`, `[T; N]`, `Vec<T>`
/// parameters, `let`s of `vec![…]`, an array literal, a `to_vec()` or a
/// `Vec::…` constructor),
/// whose `len()` is what iterating them gives.
/// And the names bound once, by a parameter or a `let` whose written type
/// is a float (`f64`, `f32`, a float type parameter) or an array of floats.
#[derive(Default)]
pub(super) struct Names {
    pub(super) mutable: HashSet<String>,
    pub(super) arrays: HashSet<String>,
    others: HashSet<String>,
    pub(super) floats: HashSet<String>,
    pub(super) float_arrays: HashSet<String>,
    times: std::collections::HashMap<String, usize>,
    float_params: Vec<syn::Ident>,
}

impl Names {
    pub(super) fn of(sig: &syn::Signature, block: &Block, floats: &[syn::Ident]) -> Self {
        let mut names = Names {
            float_params: floats.to_vec(),
            ..Names::default()
        };
        for input in &sig.inputs {
            if let syn::FnArg::Typed(t) = input {
                let mutable = matches!(&*t.ty, syn::Type::Reference(r) if r.mutability.is_some());
                names.bind(&t.pat, mutable, array_type(&t.ty));
                names.typed(&t.pat, &t.ty);
            }
        }
        names.visit_block(block);
        names.arrays.retain(|n| !names.others.contains(n));
        let once = |n: &String| names.times.get(n) == Some(&1);
        let floats: HashSet<String> = names.floats.iter().filter(|n| once(n)).cloned().collect();
        let arrays: HashSet<String> = names
            .float_arrays
            .iter()
            .filter(|n| once(n))
            .cloned()
            .collect();
        (names.floats, names.float_arrays) = (floats, arrays);
        names
    }

    /// `x: f64`, `w: &[f64]`: a float, an array of floats.
    fn typed(&mut self, pat: &syn::Pat, ty: &syn::Type) {
        let syn::Pat::Ident(p) = pat else { return };
        if p.subpat.is_some() || p.by_ref.is_some() {
            return;
        }
        let float = |t: &syn::Type| is_std_float(t) || is_float_param(t, &self.float_params);
        let name = p.ident.to_string();
        if float(ty) {
            self.floats.insert(name);
        } else if element_type(ty).is_some_and(float) {
            self.float_arrays.insert(name);
        }
    }

    fn bind(&mut self, pat: &syn::Pat, mutable: bool, array: bool) {
        let mut binds = Binds::default();
        binds.visit_pat(pat);
        for (name, marked) in binds.0 {
            *self.times.entry(name.clone()).or_default() += 1;
            if mutable || marked {
                self.mutable.insert(name.clone());
            }
            match array {
                true => self.arrays.insert(name),
                false => self.others.insert(name),
            };
        }
    }
}

impl<'ast> Visit<'ast> for Names {
    fn visit_local(&mut self, l: &'ast syn::Local) {
        let init = l.init.as_ref().map(|i| &*i.expr);
        let borrows_mut = init.is_some_and(|e| {
            let tokens = e.to_token_stream().to_string();
            tokens.contains("& mut")
        });
        let typed = match &l.pat {
            syn::Pat::Type(t) => {
                self.typed(&t.pat, &t.ty);
                array_type(&t.ty)
            }
            _ => false,
        };
        let made = init.is_some_and(|e| match e {
            Expr::Array(_) | Expr::Repeat(_) => true,
            Expr::Macro(m) => m.mac.path.is_ident("vec"),
            Expr::MethodCall(m) => m.method == "to_vec" && m.args.is_empty(),
            // `Vec::new()`, `Vec::with_capacity(n)`, …
            Expr::Call(c) => matches!(&*c.func, Expr::Path(p) if p.path.segments.first().is_some_and(|s| s.ident == "Vec")),
            _ => false,
        });
        self.bind(&l.pat, borrows_mut, typed || made);
        // (the pattern is bound above, not again as another pattern)
        if let Some(init) = &l.init {
            self.visit_expr(&init.expr);
            if let Some((_, other)) = &init.diverge {
                self.visit_expr(other);
            }
        }
    }
    fn visit_pat(&mut self, p: &'ast syn::Pat) {
        // the patterns of `for`, `match`, closures and `if let`
        self.bind(p, false, false);
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// `&[T]`, `&mut [T]`, `[T; N]`, `&[T; N]`, `Vec<T>`, `&Vec<T>`.
fn array_type(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Reference(r) => array_type(&r.elem),
        syn::Type::Slice(_) | syn::Type::Array(_) => true,
        syn::Type::Group(g) => array_type(&g.elem),
        syn::Type::Path(p) => {
            p.qself.is_none() && p.path.segments.last().is_some_and(|s| s.ident == "Vec")
        }
        _ => false,
    }
}

/// `T` of `&[T]`, `[T; N]`, `Vec<T>` and their borrows.
fn element_type(ty: &syn::Type) -> Option<&syn::Type> {
    match ty {
        syn::Type::Reference(r) => element_type(&r.elem),
        syn::Type::Group(g) => element_type(&g.elem),
        syn::Type::Slice(s) => Some(&s.elem),
        syn::Type::Array(a) => Some(&a.elem),
        syn::Type::Path(_) => vec_element(ty),
        _ => None,
    }
}

/// `T` of `Vec<T>`.
pub(super) fn vec_element(ty: &syn::Type) -> Option<&syn::Type> {
    let syn::Type::Path(p) = ty else { return None };
    let last = p.path.segments.last()?;
    if last.ident != "Vec" || p.qself.is_some() {
        return None;
    }
    let syn::PathArguments::AngleBracketed(a) = &last.arguments else {
        return None;
    };
    match a.args.first() {
        Some(syn::GenericArgument::Type(t)) if a.args.len() == 1 => Some(t),
        _ => None,
    }
}

/// The names a pattern (or a block's patterns) binds, each with whether it
/// is bound `mut` or `ref mut`.
#[derive(Default)]
pub(super) struct Binds(pub(super) Vec<(String, bool)>);

impl<'ast> Visit<'ast> for Binds {
    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        self.0.push((p.ident.to_string(), p.mutability.is_some()));
        syn::visit::visit_pat_ident(self, p);
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// `f64`, `f32`.
pub(super) fn is_std_float(t: &syn::Type) -> bool {
    matches!(ungroup(t), syn::Type::Path(p) if p.path.is_ident("f64") || p.path.is_ident("f32"))
}

/// One of the function's float type parameters.
pub(super) fn is_float_param(t: &syn::Type, floats: &[Ident]) -> bool {
    matches!(ungroup(t), syn::Type::Path(p) if floats.iter().any(|f| p.path.is_ident(f)))
}

/// A type without the invisible group a macro's `$t` stands in.
pub(super) fn ungroup(t: &syn::Type) -> &syn::Type {
    match t {
        syn::Type::Group(g) => ungroup(&g.elem),
        syn::Type::Paren(p) => ungroup(&p.elem),
        _ => t,
    }
}
