//! Helpers of a `#[tape]` module or impl: functions without tracked
//! parameters that the block's functions call. A call to one is replaced,
//! before any analysis, by the helper's body: its borrowing parameters
//! stand for the places they borrow (`&d` → `d`, `&x[a..b]` → `x` offset by
//! `a`), its value parameters are `let`s of the arguments, and an early
//! `return` leaves a labelled `loop` with its value. Every analysis and
//! every shortcut then sees the caller's own places, so which arguments are
//! recorded is worked out where the helper is called, a constant argument
//! costs nothing, and a helper costs what the same lines written inline
//! cost. A helper generic over a `const` length is written with the length
//! of the array given for it (`lengths.rs`).
//!
//! Input (a helper and a call):
//!
//! ```text
//! fn sub(a: &[f64; 3], b: &[f64; 3]) -> [f64; 3] { [a[0] - b[0], a[1] - b[1], a[2] - b[2]] }
//! let d = sub(x, &rest);
//! ```
//!
//! Output:
//!
//! ```text
//! let d = { [x[0] - rest[0], x[1] - rest[1], x[2] - rest[2]] };
//! ```

mod leave;
pub(crate) mod lengths;
pub mod subst;
mod tail;
use tail::{mentions_generic, type_params};

use crate::errors::Errors;
use proc_macro2::{Ident, Span};
use quote::{format_ident, ToTokens};
use std::collections::{HashMap, HashSet};
use subst::{Borrow, Bound, Rename};
use syn::visit::Visit;
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, FnArg, ItemFn, Pat, ReturnType, Stmt, Type};

/// The helpers of one block, by name, and the bodies already expanded.
pub struct Helpers {
    fns: HashMap<String, ItemFn>,
    /// bodies with the helpers they call inlined, or why not
    expanded: HashMap<String, Result<ItemFn, String>>,
    next: usize,
    /// the type parameters of the `impl` around the functions, which a
    /// helper and its caller both name alike
    shared: HashSet<String>,
}

/// Whether a type may hold a float: anything but integers, `bool`,
/// `char` and strings (a type alias or struct of the block may). Only
/// helpers whose signature may hold one are inlined; an index helper
/// (`fn at(i: usize, j: usize) -> usize`) stays a call.
fn may_hold_float(ty: &Type) -> bool {
    const NOT_FLOATS: &[&str] = &[
        "usize", "isize", "u8", "u16", "u32", "u64", "u128", "i8", "i16", "i32", "i64", "i128",
        "bool", "char", "str", "String",
    ];
    let mut names = HashSet::new();
    crate::names::idents_in(ty.to_token_stream(), &mut names);
    names.iter().any(|n| !NOT_FLOATS.contains(&n.as_str()))
}

/// The lints a function with helpers' bodies written in is spared: a
/// `&mut` argument a helper only reads, a borrow it does not read, a local
/// it writes and nobody reads again are uses of the caller's bindings in the
/// source, not in the code Mica writes. The primal, as written, keeps
/// rustc's lints (see [`is_inlined_lints`]).
pub fn inlined_lints() -> syn::Attribute {
    syn::parse_quote!(#[allow(unused_mut, unused_variables, unused_assignments)])
}

/// Whether an attribute is [`inlined_lints`]'s.
pub fn is_inlined_lints(attr: &syn::Attribute) -> bool {
    attr.to_token_stream().to_string() == inlined_lints().to_token_stream().to_string()
}

impl Helpers {
    /// The helpers among `fns`: every function that is not an entry point
    /// and whose signature may hold a float.
    pub fn new<'a>(
        fns: impl IntoIterator<Item = &'a ItemFn>,
        is_entry: impl Fn(&ItemFn) -> bool,
    ) -> Self {
        let mut map = HashMap::new();
        for f in fns {
            if is_entry(f) {
                continue;
            }
            let floats = f.sig.inputs.iter().any(|i| match i {
                FnArg::Typed(t) => may_hold_float(&t.ty),
                FnArg::Receiver(_) => false,
            }) || matches!(&f.sig.output, ReturnType::Type(_, t) if may_hold_float(t));
            if floats || f.sig.receiver().is_some() {
                map.insert(f.sig.ident.to_string(), f.clone());
            }
        }
        Helpers {
            fns: map,
            expanded: HashMap::new(),
            next: 0,
            shared: HashSet::new(),
        }
    }

    /// The helpers of an `impl` whose type parameters are `shared`.
    pub fn in_impl(mut self, shared: impl IntoIterator<Item = String>) -> Self {
        self.shared.extend(shared);
        self
    }

    pub fn is_empty(&self) -> bool {
        self.fns.is_empty()
    }

    /// `block` with every call to a helper inlined; errors at the calls.
    /// Whether any call was.
    pub fn inline(
        &mut self,
        sig: &syn::Signature,
        block: &mut syn::Block,
        errors: &mut Errors,
    ) -> bool {
        let arrays = lengths::array_types(sig, block, &self.fns);
        let mut visitor = Inline {
            helpers: self,
            stack: Vec::new(),
            errors: Vec::new(),
            changed: false,
            caller: names_of(block),
            arrays,
            generics: type_params(sig),
        };
        visitor.visit_block_mut(block);
        errors.extend(visitor.errors);
        visitor.changed
    }

    /// The helper `name` with the helpers it calls inlined.
    fn expanded(&mut self, name: &str, stack: &mut Vec<String>) -> Result<ItemFn, String> {
        if let Some(done) = self.expanded.get(name) {
            return done.clone();
        }
        if let Some(at) = stack.iter().position(|n| n == name) {
            let circle = stack[at..].join("` → `");
            return Err(format!(
                "the helper `{name}` calls itself (`{circle}` → `{name}`); Mica differentiates a helper by writing its body where it is called, which a recursive helper has no end of: write the recursion as a loop"
            ));
        }
        let Some(mut f) = self.fns.get(name).cloned() else {
            return Err(format!("`{name}` is not a helper"));
        };
        stack.push(name.to_string());
        let arrays = lengths::array_types(&f.sig, &f.block, &self.fns);
        let mut visitor = Inline {
            helpers: self,
            stack: std::mem::take(stack),
            errors: Vec::new(),
            changed: false,
            caller: names_of(&f.block),
            arrays,
            generics: type_params(&f.sig),
        };
        visitor.visit_block_mut(&mut f.block);
        *stack = visitor.stack;
        let errors = visitor.errors;
        stack.pop();
        let result = match errors.into_iter().next() {
            Some(e) => Err(e.to_string()),
            None => Ok(f),
        };
        self.expanded.insert(name.to_string(), result.clone());
        result
    }

    fn fresh_label(&mut self) -> syn::Lifetime {
        self.next += 1;
        syn::Lifetime::new(&format!("'__mica_return{}", self.next), Span::mixed_site())
    }
}

struct Inline<'h> {
    helpers: &'h mut Helpers,
    stack: Vec<String>,
    errors: Vec<syn::Error>,
    /// whether a call was written out (or replaced, with its error)
    changed: bool,
    /// every name the body being written into mentions: a helper's own
    /// names that one of them also is are renamed where it is written,
    /// so no name of the caller's is shadowed by the helper's lines (a
    /// knob `v0` and a helper's parameter `v0`)
    caller: HashSet<String>,
    /// the caller's names bound once to arrays whose lengths are written,
    /// by their types: a const-generic helper's lengths
    arrays: HashMap<String, Type>,
    /// the caller's own type parameters (`fn f<T: Real>`)
    generics: HashSet<String>,
}

/// The names a block mentions, its macros' tokens too.
fn names_of(block: &syn::Block) -> HashSet<String> {
    let mut names = HashSet::new();
    crate::names::idents_in(block.to_token_stream(), &mut names);
    names
}

impl VisitMut for Inline<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        let arg_types = lengths::call_arg_types(e, &self.arrays, &self.helpers.fns);
        visit_mut::visit_expr_mut(self, e);
        // `helper(args…)`, `Self::helper(args…)`, `receiver.helper(args…)`
        let (ident, args) = match &*e {
            Expr::Call(call) => {
                let Expr::Path(func) = &*call.func else {
                    return;
                };
                let segments: Vec<&syn::PathSegment> = func.path.segments.iter().collect();
                let ident = match segments[..] {
                    [f] => &f.ident,
                    [ty, f] if ty.ident == "Self" => &f.ident,
                    _ => return,
                };
                let Some(helper) = self.helpers.fns.get(&ident.to_string()) else {
                    return;
                };
                // a method is called by its path with the receiver first
                if func.qself.is_some() || (segments.len() == 1 && helper.sig.receiver().is_some())
                {
                    return;
                }
                (
                    ident.clone(),
                    call.args.iter().cloned().collect::<Vec<Expr>>(),
                )
            }
            Expr::MethodCall(m) => {
                let is_method = self
                    .helpers
                    .fns
                    .get(&m.method.to_string())
                    .is_some_and(|h| h.sig.receiver().is_some());
                if !is_method || m.turbofish.is_some() {
                    return;
                }
                let mut args = vec![(*m.receiver).clone()];
                args.extend(m.args.iter().cloned());
                (m.method.clone(), args)
            }
            _ => return,
        };
        let ident = &ident;
        let name = ident.to_string();
        let inlined = match self.helpers.expanded(&name, &mut self.stack) {
            Ok(helper) => self.body_at_call(helper, args, &arg_types, ident),
            Err(message) => Err(syn::Error::new_spanned(ident, message)),
        };
        self.changed = true;
        match inlined {
            Ok(block) => *e = block,
            Err(error) => {
                self.errors.push(error);
                // the error is reported; the call stays, as a constant, so
                // nothing else is said about it
                let call = &*e;
                *e = syn::parse_quote!(::mica::detach(#call));
            }
        }
    }

    /// the lines of a `tape!` window, the elements of a `vec![…]`
    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        crate::facts::syntax::visit_macro_mut(self, m);
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// `e` without parentheses around it.
fn unparen(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => unparen(&p.expr),
        other => other,
    }
}

/// Whether `e` is a place: a name, or fields and elements of one.
fn is_place(e: &Expr) -> bool {
    match unparen(e) {
        Expr::Path(p) => p.qself.is_none() && p.path.get_ident().is_some(),
        Expr::Index(i) => !matches!(unparen(&i.index), Expr::Range(_)) && is_place(&i.expr),
        Expr::Field(f) => is_place(&f.base),
        _ => false,
    }
}

impl Inline<'_> {
    /// The block that stands for `helper(args…)`.
    fn body_at_call(
        &mut self,
        helper: ItemFn,
        args: Vec<Expr>,
        arg_types: &[Option<Type>],
        at: &Ident,
    ) -> syn::Result<Expr> {
        let name = helper.sig.ident.to_string();
        if args.len() != helper.sig.inputs.len() {
            // rustc reports the count; keep the call as written
            return Err(syn::Error::new_spanned(
                at,
                format!("`{name}` takes {} arguments", helper.sig.inputs.len()),
            ));
        }
        let mut helper = match lengths::monomorphic(&helper, arg_types) {
            Ok(f) => f,
            Err(c) => return Err(syn::Error::new_spanned(
                at,
                format!("the helper `{name}` is generic over `const {c}`, whose value Mica reads from the length of the array given for it where that array is bound, once: a parameter or `let` with its type written (`x: &[f64; 3]`), an array literal (`[a, b, c]`) or what a helper returns; bind the array once, with its length (`let a: [f64; 3] = …;`), and give it to the helper, or give the helper's arrays their lengths"),
            )),
        };
        // the helper's names that an argument or the caller also uses are
        // renamed
        let mut used = self.caller.clone();
        for a in &args {
            crate::names::idents_in(a.to_token_stream(), &mut used);
        }
        let mut bound = Bound::default();
        for input in &helper.sig.inputs {
            if let FnArg::Typed(t) = input {
                bound.visit_pat(&t.pat);
            }
        }
        bound.visit_block(&helper.block);
        let mut renames = HashMap::new();
        for n in bound.0.intersection(&used) {
            let mut k = 1;
            let new = loop {
                let candidate = format!("{n}_{k}");
                if !used.contains(&candidate) && !bound.0.contains(&candidate) {
                    break candidate;
                }
                k += 1;
            };
            renames.insert(n.clone(), format_ident!("{}", new));
        }
        if !renames.is_empty() {
            let mut rename = Rename(renames);
            for input in helper.sig.inputs.iter_mut() {
                if let FnArg::Typed(t) = input {
                    rename.visit_pat_mut(&mut t.pat);
                }
            }
            rename.visit_block_mut(&mut helper.block);
        }
        let generics = type_params(&helper.sig);
        let mut lets: Vec<Stmt> = Vec::new();
        let mut borrows = Vec::new();
        for (input, arg) in helper.sig.inputs.iter().zip(args) {
            let FnArg::Typed(param) = input else {
                // `self`: the receiver's place, or the value it is
                match unparen(&arg) {
                    Expr::Path(p) if p.path.is_ident("self") => {}
                    Expr::Reference(r) if is_place(&r.expr) => borrows.push(Borrow::of("self".to_string(), (*r.expr).clone(), arg.clone(), None)),
                    place if is_place(place) => borrows.push(Borrow::of("self".to_string(), place.clone(), place.clone(), None)),
                    _ => {
                        return Err(syn::Error::new_spanned(
                            &arg,
                            format!("the method `{name}` is called on a value made for the call; bind it first: `let m = …; m.{name}(…)`"),
                        ))
                    }
                }
                continue;
            };
            let simple = match &*param.pat {
                Pat::Ident(p)
                    if p.by_ref.is_none() && p.mutability.is_none() && p.subpat.is_none() =>
                {
                    Some(p.ident.clone())
                }
                _ => None,
            };
            if let (Type::Reference(_), Some(pname)) = (&*param.ty, &simple) {
                if let Some(borrow) = borrow_of(pname, &arg) {
                    borrows.push(borrow);
                    continue;
                }
                // a borrow of a value made for the call (`&[0.5, 2.0]`), of
                // a type written without the helper's parameters: held as
                // the reference the parameter's type says, so its values
                // keep their type
                let mut held = pname.clone();
                held.set_span(Span::call_site());
                let shared = matches!(&*param.ty, Type::Reference(r) if r.mutability.is_none());
                if shared && literals_only(&arg) && !mentions_generic(&param.ty, &generics) {
                    let ty = &param.ty;
                    let path: Expr = syn::parse_quote!(#held);
                    if let Some(borrow) = borrow_of(pname, &path) {
                        lets.push(syn::parse_quote!(let #held: #ty = #arg;));
                        borrows.push(borrow);
                        continue;
                    }
                }
                // otherwise the value, held by the parameter's name
                let owned = match unparen(&arg) {
                    Expr::Reference(r) => (*r.expr).clone(),
                    other => other.clone(),
                };
                lets.push(syn::parse_quote!(let #held = #owned;));
                borrows.push(Borrow::of(
                    pname.to_string(),
                    syn::parse_quote!(#held),
                    syn::parse_quote!(&#held),
                    None,
                ));
                continue;
            }
            let pat = &param.pat;
            let ty = &param.ty;
            if matches!(&**ty, Type::ImplTrait(_)) {
                lets.push(syn::parse_quote!(let #pat = #arg;));
            } else if mentions_generic(ty, &generics) {
                // the helper's type parameters are not the caller's: each
                // is left to inference, and the shape stays written (an
                // array parameter `[T; 3]` is a `let` of `[_; 3]`)
                let mut inferred = (**ty).clone();
                Infer(&generics).visit_type_mut(&mut inferred);
                lets.push(syn::parse_quote!(let #pat: #inferred = #arg;));
            } else {
                lets.push(syn::parse_quote!(let #pat: #ty = #arg;));
            }
        }
        let mut stmts = std::mem::take(&mut helper.block.stmts);
        for borrow in &mut borrows {
            borrow.stmts(&mut stmts);
        }
        // `return e;` last is the value; another `return` leaves a loop
        if let Some(Stmt::Expr(Expr::Return(r), _)) = stmts.last() {
            let value = r.expr.clone();
            stmts.pop();
            if let Some(value) = value {
                stmts.push(Stmt::Expr(*value, None));
            }
        }
        let shared = &self.helpers.shared;
        let (own, caller) = (&generics | shared, &self.generics | shared);
        tail::type_the_tail(&mut stmts, &helper.sig.output, &own, &caller);
        let mut returns = leave::Returns::default();
        for s in &stmts {
            returns.visit_stmt(s);
        }
        lets.extend(stmts);
        // (the braces at the call, as Mica's own code: a message about the
        // value points there, and rustc's lints take them as Mica's)
        let here = Span::call_site().located_at(at.span());
        if returns.0 {
            let mut label = self.helpers.fresh_label();
            // (at the call, with the label's own hygiene: a message about
            // the value points there)
            label.set_span(label.span().located_at(at.span()));
            let floats = crate::generics::float_params(&helper.sig.generics);
            let mut early = leave::early(&helper.sig.output, lets, label, &floats);
            match &mut early {
                Expr::Loop(l) => {
                    l.loop_token.span = here;
                    l.body.brace_token = syn::token::Brace(here);
                }
                Expr::Block(b) => b.block.brace_token = syn::token::Brace(here),
                _ => {}
            }
            return Ok(early);
        }
        let mut block: syn::ExprBlock = syn::parse_quote!({ #(#lets)* });
        block.block.brace_token = syn::token::Brace(here);
        Ok(Expr::Block(block))
    }
}

/// `&[0.5, -2.0]`, `&[0.0; 3]`: a borrowed array of number literals.
fn literals_only(arg: &Expr) -> bool {
    fn literal(e: &Expr) -> bool {
        match unparen(e) {
            Expr::Lit(_) => true,
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => literal(&u.expr),
            _ => false,
        }
    }
    match unparen(arg) {
        Expr::Reference(r) => match unparen(&r.expr) {
            Expr::Array(a) => a.elems.iter().all(literal),
            Expr::Repeat(r) => literal(&r.expr),
            _ => false,
        },
        _ => false,
    }
}

/// What a borrowing parameter `name` stands for when the argument is a
/// place the caller has: `&d`, `&mut m[i]`, `&x[a..b]`, or a reference the
/// caller holds (`w`).
fn borrow_of(name: &Ident, arg: &Expr) -> Option<Borrow> {
    let name = name.to_string();
    match unparen(arg) {
        Expr::Reference(r) => match unparen(&r.expr) {
            Expr::Index(i) if is_place(&i.expr) => match unparen(&i.index) {
                Expr::Range(range) => {
                    let lo = range
                        .start
                        .as_deref()
                        .cloned()
                        .unwrap_or_else(|| syn::parse_quote!(0));
                    let hi = range.end.as_deref().map(|hi| match range.limits {
                        syn::RangeLimits::HalfOpen(_) => hi.clone(),
                        syn::RangeLimits::Closed(_) => syn::parse_quote!(#hi + 1),
                    });
                    let place = (*i.expr).clone();
                    if range.start.is_none() && range.end.is_none() {
                        return Some(Borrow::of(name, place, arg.clone(), None));
                    }
                    Some(Borrow::of(name, place, arg.clone(), Some((lo, hi))))
                }
                _ => Some(Borrow::of(name, (*r.expr).clone(), arg.clone(), None)),
            },
            inner if is_place(inner) => Some(Borrow::of(name, inner.clone(), arg.clone(), None)),
            _ => None,
        },
        Expr::Path(_) if is_place(arg) => Some(Borrow::of(
            name,
            unparen(arg).clone(),
            unparen(arg).clone(),
            None,
        )),
        _ => None,
    }
}

/// Every type parameter of `.0` in a type written `_`.
struct Infer<'g>(&'g HashSet<String>);

impl VisitMut for Infer<'_> {
    fn visit_type_mut(&mut self, ty: &mut Type) {
        if let Type::Path(p) = ty {
            if p.qself.is_none()
                && p.path
                    .get_ident()
                    .is_some_and(|i| self.0.contains(&i.to_string()))
            {
                *ty = Type::Infer(syn::TypeInfer {
                    underscore_token: Default::default(),
                });
                return;
            }
        }
        visit_mut::visit_type_mut(self, ty);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The body of the last function of `module` with the others' calls
    /// inlined, as one line of tokens.
    pub(crate) fn inlined(module: &str) -> String {
        let file: syn::File = syn::parse_str(module).expect("items");
        let fns: Vec<ItemFn> = file
            .items
            .into_iter()
            .filter_map(|i| match i {
                syn::Item::Fn(f) => Some(f),
                _ => None,
            })
            .collect();
        let (last, rest) = fns.split_last().expect("a function");
        let mut helpers = Helpers::new(rest, |_| false);
        let mut block = (*last.block).clone();
        let mut errors = Errors::default();
        helpers.inline(&last.sig, &mut block, &mut errors);
        match errors.into_result() {
            Ok(()) => crate::names::text_of(&block.stmts),
            Err(e) => format!("error: {e}"),
        }
    }

    #[test]
    fn show() {
        if let Ok(src) = std::env::var("MICA_SHOW_INLINE") {
            println!("{}", inlined(&std::fs::read_to_string(src).unwrap()));
        }
    }
}
