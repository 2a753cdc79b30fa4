//! Helpers generic over `const` parameters, written where they are called
//! with each parameter the length of the array given for it:
//!
//! ```text
//! fn norm2<const N: usize>(v: &[f64; N]) -> f64 { let mut s = 0.0; for i in 0..N { s += v[i] * v[i]; } s }
//! fn energy(#[tracked] x: &[f64; 4]) -> f64 { norm2(x).sqrt() }
//! // is, at the call
//! { let mut s = 0.0; for i in 0..4 { s += x[i] * x[i]; } s }.sqrt()
//! ```
//!
//! The length is read from where the argument is bound in the caller: a
//! parameter's written type (`x: &[f64; 4]`, `m: &[[f64; 3]; 3]`), a
//! `let`'s (`let a: [f64; 3] = …;`), the array literal it is (`[a, b,
//! c]`, `[0.0; 3]`), what a helper returns (`let y = scale(x, 2.0);`), or
//! the array of arrays a `for` loop's name walks (`for row in m.iter()`);
//! only names bound once count. A length that is itself the caller's `const`
//! parameter (a const-generic helper calling another) is written as that
//! name, which the caller's own call then replaces. The length is the
//! tokens written there, so the code Mica writes has the types the caller
//! has, and rustc checks them as it checks the call.

use proc_macro2::{Delimiter, Group, Ident, TokenStream, TokenTree};
use quote::ToTokens;
use std::collections::{HashMap, HashSet};
use syn::visit::Visit;
use syn::{Block, Expr, FnArg, ItemFn, Pat, Signature, Type};

/// The array types of the names a function binds once, references taken
/// off: its parameters' and its `let`s' (written, of an array literal, or
/// of what a call to one of `helpers` returns).
pub(crate) fn array_types(
    sig: &Signature,
    block: &Block,
    helpers: &HashMap<String, ItemFn>,
) -> HashMap<String, Type> {
    let mut found = Found {
        bound: HashSet::new(),
        known: HashMap::new(),
        helpers,
    };
    for input in &sig.inputs {
        if let FnArg::Typed(t) = input {
            match &*t.pat {
                Pat::Ident(p) if p.subpat.is_none() => found.bind(&p.ident, array(&t.ty).cloned()),
                other => found.visit_pat(other),
            }
        }
    }
    found.visit_block(block);
    found.known
}

struct Found<'h> {
    /// every name bound so far
    bound: HashSet<String>,
    /// the names bound once so far to an array whose length is written
    known: HashMap<String, Type>,
    helpers: &'h HashMap<String, ItemFn>,
}

impl Found<'_> {
    /// (a name bound again is known no more, unless to the same type)
    fn bind(&mut self, name: &Ident, ty: Option<Type>) {
        let name = name.to_string();
        let first = self.bound.insert(name.clone());
        match ty {
            Some(ty) if first => {
                self.known.insert(name, ty);
            }
            Some(ty) if self.known.get(&name).is_some_and(|k| same(k, &ty)) => {}
            _ => {
                self.known.remove(&name);
            }
        }
    }
}

impl<'ast> Visit<'ast> for Found<'_> {
    fn visit_local(&mut self, local: &'ast syn::Local) {
        match &local.pat {
            Pat::Type(t) => match &*t.pat {
                Pat::Ident(p) => self.bind(&p.ident, array(&t.ty).cloned()),
                other => self.visit_pat(other),
            },
            Pat::Ident(p) if p.subpat.is_none() => {
                let ty = local
                    .init
                    .as_ref()
                    .and_then(|i| arg_type(&i.expr, &self.known, self.helpers));
                self.bind(&p.ident, ty);
            }
            other => self.visit_pat(other),
        }
        if let Some(init) = &local.init {
            self.visit_expr(&init.expr);
            if let Some((_, other)) = &init.diverge {
                self.visit_expr(other);
            }
        }
    }
    /// `for row in m.iter()` (or `&m`, `m.iter().enumerate()` with
    /// `(k, row)`) over an array of arrays: `row` one of them
    fn visit_expr_for_loop(&mut self, f: &'ast syn::ExprForLoop) {
        self.visit_expr(&f.expr);
        let (mut over, mut counted) = (&*f.expr, false);
        if let Expr::MethodCall(m) = over {
            if m.method == "enumerate" && m.args.is_empty() {
                (over, counted) = (&m.receiver, true);
            }
        }
        if let Expr::MethodCall(m) = over {
            if (m.method == "iter" || m.method == "iter_mut") && m.args.is_empty() {
                over = &m.receiver;
            }
        }
        let row = match (&*f.pat, counted) {
            (Pat::Ident(p), false) => Some(p),
            (Pat::Tuple(t), true) if t.elems.len() == 2 => match &t.elems[1] {
                Pat::Ident(p) => Some(p),
                _ => None,
            },
            _ => None,
        };
        let element = match arg_type(over, &self.known, self.helpers) {
            Some(Type::Array(a)) => array(&a.elem).cloned(),
            _ => None,
        };
        match (row, element) {
            (Some(p), Some(ty)) if p.subpat.is_none() => {
                if let Pat::Tuple(t) = &*f.pat {
                    self.visit_pat(&t.elems[0]);
                }
                self.bind(&p.ident, Some(ty));
            }
            _ => self.visit_pat(&f.pat),
        }
        self.visit_block(&f.body);
    }
    /// a name bound anywhere else (a loop's pattern, an arm's, a
    /// closure's parameter) is bound more than once, or to no array whose
    /// length is written: its length is not read
    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        self.bind(&p.ident, None);
        syn::visit::visit_pat_ident(self, p);
    }
    /// the lines of a `tape!` window and the elements of a `vec![…]`, as
    /// the inlining reads them
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        crate::facts::syntax::visit_macro(self, m);
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// `ty` without references and parentheses, if it is an array.
fn array(ty: &Type) -> Option<&Type> {
    let ty = bare(ty);
    matches!(ty, Type::Array(_)).then_some(ty)
}

fn bare(ty: &Type) -> &Type {
    match ty {
        Type::Reference(r) => bare(&r.elem),
        Type::Paren(p) => bare(&p.elem),
        Type::Group(g) => bare(&g.elem),
        other => other,
    }
}

/// The array type of an argument, where its length is written: a name
/// bound to one, an array literal, a repeat `[e; K]`, an element of an
/// array of arrays, a call to a helper returning one.
pub(super) fn arg_type(
    e: &Expr,
    types: &HashMap<String, Type>,
    helpers: &HashMap<String, ItemFn>,
) -> Option<Type> {
    let of = |e: &Expr| arg_type(e, types, helpers);
    let infer = || {
        Type::Infer(syn::TypeInfer {
            underscore_token: Default::default(),
        })
    };
    match e {
        Expr::Paren(p) => of(&p.expr),
        Expr::Group(g) => of(&g.expr),
        Expr::Reference(r) => of(&r.expr),
        Expr::Path(p) if p.qself.is_none() => types.get(&p.path.get_ident()?.to_string()).cloned(),
        Expr::Array(a) => {
            let elem = a.elems.first().and_then(&of).unwrap_or_else(infer);
            let len = a.elems.len();
            Some(syn::parse_quote!([#elem; #len]))
        }
        Expr::Repeat(r) => {
            let elem = of(&r.expr).unwrap_or_else(infer);
            let len = &r.len;
            Some(syn::parse_quote!([#elem; #len]))
        }
        Expr::Index(i) if !matches!(&*i.index, Expr::Range(_)) => match of(&i.expr)? {
            Type::Array(a) => array(&a.elem).cloned(),
            _ => None,
        },
        // a block's value, the same array from every branch
        Expr::Block(b) => tail_type(&b.block, types, helpers),
        Expr::If(i) => {
            let then = tail_type(&i.then_branch, types, helpers)?;
            let other = of(&i.else_branch.as_ref()?.1)?;
            same(&then, &other).then_some(then)
        }
        Expr::Match(m) => {
            let mut arms = m.arms.iter().map(|a| of(&a.body));
            let first = arms.next()??;
            arms.all(|a| a.is_some_and(|a| same(&a, &first)))
                .then_some(first)
        }
        Expr::Call(c) => {
            let Expr::Path(f) = &*c.func else { return None };
            let helper = helpers.get(&f.path.get_ident()?.to_string())?;
            let syn::ReturnType::Type(_, out) = &helper.sig.output else {
                return None;
            };
            let out = array(out)?;
            let args: Vec<Option<Type>> = c.args.iter().map(&of).collect();
            let given = lengths(helper, &args).ok()?;
            syn::parse2(replace(out.to_token_stream(), &given)).ok()
        }
        _ => None,
    }
}

/// The array type of a block's value, where its length is written.
fn tail_type(
    block: &Block,
    types: &HashMap<String, Type>,
    helpers: &HashMap<String, ItemFn>,
) -> Option<Type> {
    match block.stmts.last()? {
        syn::Stmt::Expr(e, None) => arg_type(e, types, helpers),
        _ => None,
    }
}

/// Whether two types are written alike.
fn same(a: &Type, b: &Type) -> bool {
    a.to_token_stream().to_string() == b.to_token_stream().to_string()
}

/// The names of `helper`'s `const` parameters.
fn const_names(helper: &ItemFn) -> Vec<Ident> {
    helper
        .sig
        .generics
        .const_params()
        .map(|c| c.ident.clone())
        .collect()
}

/// The lengths `args` (their array types, where known) give `helper`'s
/// `const` parameters, or the first parameter they give none.
fn lengths(helper: &ItemFn, args: &[Option<Type>]) -> Result<HashMap<String, Expr>, Ident> {
    let consts = const_names(helper);
    let mut given = HashMap::new();
    for (input, arg) in helper.sig.inputs.iter().zip(args) {
        if let (FnArg::Typed(t), Some(ty)) = (input, arg) {
            unify(&t.ty, ty, &consts, &mut given);
        }
    }
    match consts.iter().find(|c| !given.contains_key(&c.to_string())) {
        Some(c) => Err(c.clone()),
        None => Ok(given),
    }
}

/// Each `const` parameter of `param` that `arg` gives a length: `[T; N]`
/// against `[f64; 3]` gives `N = 3`, through references and nested arrays.
fn unify(param: &Type, arg: &Type, consts: &[Ident], out: &mut HashMap<String, Expr>) {
    let (Type::Array(p), Type::Array(a)) = (bare(param), bare(arg)) else {
        return;
    };
    if let Expr::Path(path) = &p.len {
        if let Some(c) = path.path.get_ident().filter(|c| consts.contains(c)) {
            out.entry(c.to_string()).or_insert_with(|| a.len.clone());
        }
    }
    unify(&p.elem, &a.elem, consts, out);
}

/// `helper` with each of its `const` parameters replaced by the length the
/// arguments give it (`args`: their array types, where known, read before
/// the calls among them were written out), or the first parameter they
/// give none.
pub(super) fn monomorphic(helper: &ItemFn, args: &[Option<Type>]) -> Result<ItemFn, Ident> {
    let consts = const_names(helper);
    if consts.is_empty() {
        return Ok(helper.clone());
    }
    let given = lengths(helper, args)?;
    let mut f = helper.clone();
    f.sig.generics.params = f
        .sig
        .generics
        .params
        .into_iter()
        .filter(|p| !matches!(p, syn::GenericParam::Const(_)))
        .collect();
    if f.sig.generics.params.is_empty() {
        f.sig.generics.lt_token = None;
        f.sig.generics.gt_token = None;
    }
    let tokens = replace(f.to_token_stream(), &given);
    syn::parse2(tokens).map_err(|_| consts[0].clone())
}

/// `tokens` with each name of `given` replaced by its length (in
/// parentheses where it is more than one token).
fn replace(tokens: TokenStream, given: &HashMap<String, Expr>) -> TokenStream {
    tokens
        .into_iter()
        .map(|tt| match tt {
            TokenTree::Ident(i) => match given.get(&i.to_string()) {
                Some(len) => {
                    let len_tokens = len.to_token_stream();
                    if len_tokens.clone().into_iter().count() == 1 {
                        len_tokens.into_iter().next().expect("one token")
                    } else {
                        TokenTree::Group(Group::new(Delimiter::Parenthesis, len_tokens))
                    }
                }
                None => TokenTree::Ident(i),
            },
            TokenTree::Group(g) => {
                let mut group = Group::new(g.delimiter(), replace(g.stream(), given));
                group.set_span(g.span());
                TokenTree::Group(group)
            }
            other => other,
        })
        .collect()
}

/// For a call to a helper generic over a `const`, its arguments' array
/// types, read before the calls among them are written out (nothing for
/// any other expression).
pub(super) fn call_arg_types(
    e: &Expr,
    arrays: &HashMap<String, Type>,
    helpers: &HashMap<String, ItemFn>,
) -> Vec<Option<Type>> {
    let generic = |name: &Ident| {
        helpers
            .get(&name.to_string())
            .is_some_and(|h| h.sig.generics.const_params().next().is_some())
    };
    let args: Vec<&Expr> = match e {
        Expr::Call(c) => match &*c.func {
            Expr::Path(f) if f.path.segments.last().is_some_and(|s| generic(&s.ident)) => {
                c.args.iter().collect()
            }
            _ => return Vec::new(),
        },
        Expr::MethodCall(m) if generic(&m.method) => {
            std::iter::once(&*m.receiver).chain(&m.args).collect()
        }
        _ => return Vec::new(),
    };
    args.into_iter()
        .map(|a| arg_type(a, arrays, helpers))
        .collect()
}
