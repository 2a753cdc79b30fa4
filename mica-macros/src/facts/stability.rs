//! Recompute instead of store (function form).
//!
//! Inside a loop, the reverse sweep needs some constants of each iteration:
//! indices (`i`, `i + 1`), elements of untracked inputs (`x[i * d + j]`),
//! loop-invariant factors (`0.5 * c`). Storing them on the loop's tape costs
//! memory traffic a hand-written adjoint does not pay; it reads them again.
//! Mica does the same when reading again is sure to give the same value:
//!
//! - the expression is pure: literals, names, arithmetic, casts, field and
//!   index reads, and `len()` — no calls, macros or blocks;
//! - every name in it is *stable*: a constant item (bound nowhere in the
//!   function), an immutable parameter or top-level `let` bound exactly once
//!   in the function (so no later binding can shadow it where the reverse
//!   sweep runs), or the variable of an enclosing loop over a range, which
//!   the reverse sweep walks backward (`for i in (a..b).rev()`) instead of
//!   storing;
//! - or it is a `let mut` of the function body's top level, bound once,
//!   that no later statement touches except to index it, borrow it shared
//!   or ask its length: from the statement after its last change on, it is
//!   *frozen*, and reading it again gives what the forward read;
//! - the loop evaluated it unconditionally (not inside a branch arm), so
//!   reading it again cannot fail where the forward did not run it.
//!
//! A loop over a range (`for i in a..b`, the variable a plain name) runs
//! every element of the range, in order: a `continue` only guards the rest
//! of its iteration (`exits.rs`), a loop that may `break` is not walked
//! over its range (the lowering counts its iterations instead), and this is
//! used only where the body has no `return`.

use crate::facts::places::{root, Reach};
use crate::facts::syntax::strip;
use std::collections::{HashMap, HashSet};
use syn::visit::Visit;
use syn::{Expr, Pat};

/// What the lowering knows about names, for recomputation.
#[derive(Default)]
pub struct Stability {
    /// how many times each name is bound anywhere in the function
    /// (parameters, `let`s, loop and closure patterns, match arms)
    counts: HashMap<String, usize>,
    /// names whose value is the same wherever the reverse sweep reads it
    stable: HashSet<String>,
    /// top-level names bound once → the statement from which on nothing
    /// changes them
    freezes: HashMap<String, usize>,
    /// top-level names bound once → the statement binding them
    bound_at: HashMap<String, usize>,
    /// the top-level statement being lowered
    statement: usize,
    /// stable parameters whose type is written as slices, arrays or `Vec`s,
    /// and top-level `let`s bound once to `vec![…]` or an array literal →
    /// how many indices their type takes by range (`&[[f64; 3]]`: 2)
    sliceable: HashMap<String, usize>,
    /// the body defines a macro (see [`Self::defines_macros`])
    defines_macros: bool,
    /// sliceable names of one level whose elements are `Copy` scalars: a
    /// parameter typed `&[f64]`, `Vec<usize>`, `[f32; N]`, …, or a `let`
    /// bound to `vec![0.0; n]`, `[1.0, 2.0]`, …
    scalar_rows: HashSet<String>,
}

impl Stability {
    /// For a function whose body is `stmts` and signature `sig`: immutable
    /// parameters bound once are stable from the start.
    pub fn new(sig: &syn::Signature, stmts: &[syn::Stmt]) -> Self {
        let mut counter = Bindings::default();
        for input in &sig.inputs {
            match input {
                syn::FnArg::Typed(t) => counter.visit_pat(&t.pat),
                syn::FnArg::Receiver(_) => *counter.0.entry("self".into()).or_default() += 1,
            }
        }
        for stmt in stmts {
            counter.visit_stmt(stmt);
        }
        let mut freezes = HashMap::new();
        let mut bound_at = HashMap::new();
        let mut sliceable = HashMap::new();
        let mut scalar_rows = HashSet::new();
        for (k, stmt) in stmts.iter().enumerate() {
            if let syn::Stmt::Local(local) = stmt {
                if let Some(name) = bound_name(&local.pat) {
                    if counter.0.get(&name) == Some(&1) {
                        freezes.insert(name.clone(), k + 1);
                        bound_at.insert(name.clone(), k);
                        // `vec![…]` or an array literal: indexable by ranges
                        let depth = local.init.as_ref().map_or(0, |i| literal_depth(&i.expr));
                        if depth == 1
                            && local
                                .init
                                .as_ref()
                                .is_some_and(|i| numeric_elements(&i.expr))
                        {
                            scalar_rows.insert(name.clone());
                        }
                        if depth > 0 {
                            sliceable.insert(name, depth);
                        }
                    }
                }
            }
        }
        for (k, stmt) in stmts.iter().enumerate() {
            let mut touches = Touches::default();
            touches.visit_stmt(stmt);
            for name in touches.0 {
                if let Some(from) = freezes.get_mut(&name) {
                    *from = (*from).max(k + 1);
                }
            }
        }
        let mut this = Stability {
            counts: counter.0,
            stable: HashSet::new(),
            freezes,
            bound_at,
            statement: 0,
            sliceable,
            scalar_rows,
            defines_macros: stmts.iter().any(crate::facts::syntax::defines_macro),
        };
        for input in &sig.inputs {
            match input {
                syn::FnArg::Typed(t) => {
                    if let Some(name) = immutable_name(&t.pat) {
                        if !mentions_mut(&quote::ToTokens::to_token_stream(&t.ty)) {
                            this.add_if_bound_once(&name);
                            let depth = slice_depth(&t.ty);
                            if depth > 0 && this.stable.contains(&name) {
                                if depth == 1 && scalar_element(&t.ty) {
                                    this.scalar_rows.insert(name.clone());
                                }
                                this.sliceable.insert(name, depth);
                            }
                        }
                    }
                }
                syn::FnArg::Receiver(r) => {
                    let ty = quote::ToTokens::to_token_stream(&r.ty);
                    if r.mutability.is_none() && !mentions_mut(&ty) {
                        this.add_if_bound_once("self");
                    }
                }
            }
        }
        this
    }

    /// The top-level statement `k` is being lowered.
    pub fn at_statement(&mut self, k: usize) {
        self.statement = k;
    }

    fn frozen(&self, name: &str) -> bool {
        self.freezes
            .get(name)
            .is_some_and(|&from| self.statement >= from)
    }

    /// Whether `name`, read just before the top-level statement `at`, holds
    /// what it holds wherever it was judged stable or frozen: it is bound
    /// nowhere in the function (an item), or it is a stable parameter, or a
    /// top-level `let` bound before `at` that is immutable or frozen by then.
    /// Call once the whole body is lowered.
    pub fn same_before(&self, name: &str, at: usize) -> bool {
        if !self.counts.contains_key(name) {
            return true;
        }
        match self.bound_at.get(name) {
            Some(&bound) => {
                bound < at
                    && (self.stable.contains(name)
                        || self.freezes.get(name).is_some_and(|&from| from <= at))
            }
            None => self.stable.contains(name),
        }
    }

    /// For a stable parameter whose type is written as slices, arrays or
    /// `Vec`s, or a top-level `let` bound once to `vec![…]` or an array
    /// literal: how many indices in a row it takes that may also be ranges
    /// (`x: &[f64]`: 1; `m: [[f64; 3]; 2]`: 2). Zero for any other name.
    pub fn sliceable(&self, name: &str) -> usize {
        self.sliceable.get(name).copied().unwrap_or(0)
    }

    /// Whether `name` is [`Self::sliceable`] by one index and its elements
    /// are `Copy` scalars (a read of one is a value, not a place).
    pub fn scalar_row(&self, name: &str) -> bool {
        self.scalar_rows.contains(name)
    }

    /// Whether the function defines a macro (`macro_rules!` in its body),
    /// which may change a local without naming it where it is called.
    pub fn defines_macros(&self) -> bool {
        self.defines_macros
    }

    /// The top-level statement being lowered.
    pub fn statement(&self) -> usize {
        self.statement
    }

    /// A name the lowering binds itself (not in the user's lines): never
    /// taken for an item, never read again.
    pub fn hidden(&mut self, name: &str) {
        *self.counts.entry(name.to_string()).or_default() += 2;
    }

    /// Whether `name` is bound exactly once in the whole function.
    pub fn bound_once(&self, name: &str) -> bool {
        self.counts.get(name) == Some(&1)
    }

    fn add_if_bound_once(&mut self, name: &str) {
        if self.counts.get(name) == Some(&1) {
            self.stable.insert(name.to_string());
        }
    }

    /// A top-level `let` of the function body, once lowered: its name is
    /// stable from here on if it is immutable, bound once, and its value
    /// holds no mutable borrow.
    pub fn top_level_let(&mut self, local: &syn::Local) {
        let Some(name) = immutable_name(&local.pat) else {
            return;
        };
        let init = local
            .init
            .as_ref()
            .map(|i| quote::ToTokens::to_token_stream(&i.expr))
            .unwrap_or_default();
        if !mentions_mut(&init) {
            self.add_if_bound_once(&name);
        }
    }

    /// A loop over a range whose body binds the loop's name nowhere: inside
    /// the body, the name is stable. Returns the name made stable, to hand
    /// back to [`Self::leave_loop`].
    pub fn enter_loop(&mut self, name: &str, body: &syn::Block) -> Option<String> {
        let mut inner = Bindings::default();
        inner.visit_block(body);
        if inner.0.contains_key(name) || self.stable.contains(name) {
            return None;
        }
        self.stable.insert(name.to_string());
        Some(name.to_string())
    }

    pub fn leave_loop(&mut self, entered: Option<String>) {
        if let Some(name) = entered {
            self.stable.remove(&name);
        }
    }

    /// Whether `expr` can be evaluated again in the reverse sweep with the
    /// same result.
    pub fn pure(&self, expr: &Expr) -> bool {
        self.pure_but(expr, &mut |_| false)
    }

    /// The names that keep `expr` from being [`Self::pure`], if nothing
    /// else does (`None`: it is not pure for another reason).
    pub fn unstable_names(&self, expr: &Expr) -> Option<Vec<syn::Ident>> {
        let mut names = Vec::new();
        self.pure_but(expr, &mut |name| {
            names.push(name.clone());
            true
        })
        .then_some(names)
    }

    /// [`Self::pure`], with `unstable` asked about each name that is not
    /// stable (it says whether to take it as pure).
    fn pure_but(&self, expr: &Expr, unstable: &mut dyn FnMut(&syn::Ident) -> bool) -> bool {
        match expr {
            Expr::Lit(_) => true,
            Expr::Path(p) => {
                if p.qself.is_some() {
                    return false;
                }
                match p.path.get_ident() {
                    Some(ident) => {
                        let name = ident.to_string();
                        self.stable.contains(&name)
                            || self.frozen(&name)
                            || !self.counts.contains_key(&name)
                            || unstable(ident)
                    }
                    // a path (`N`, `Self::K`, `std::f64::consts::PI`): an item
                    None => p.path.segments.len() > 1,
                }
            }
            Expr::Binary(b) => {
                is_pure_op(&b.op)
                    && self.pure_but(&b.left, unstable)
                    && self.pure_but(&b.right, unstable)
            }
            Expr::Unary(u) => self.pure_but(&u.expr, unstable),
            Expr::Paren(p) => self.pure_but(&p.expr, unstable),
            Expr::Group(g) => self.pure_but(&g.expr, unstable),
            Expr::Cast(c) => self.pure_but(&c.expr, unstable),
            Expr::Field(f) => self.pure_but(&f.base, unstable),
            Expr::Index(i) => self.pure_but(&i.expr, unstable) && self.pure_but(&i.index, unstable),
            Expr::MethodCall(m) if m.turbofish.is_none() => {
                let receiver = self.pure_but(&m.receiver, unstable);
                if m.method == "len" {
                    return m.args.is_empty() && receiver;
                }
                // a float method of a literal (`8.0_f64.sqrt()`): a constant
                // the compiler folds
                let literal = matches!(strip(&m.receiver), Expr::Lit(_));
                literal
                    && crate::rules::method(&m.method.to_string())
                        .is_some_and(|method| method.args == m.args.len())
                    && m.args.iter().all(|a| self.pure_but(a, unstable))
            }
            _ => false,
        }
    }
}

/// `a + b` and friends; not `a += b`.
fn is_pure_op(op: &syn::BinOp) -> bool {
    !crate::facts::syntax::is_compound(op)
}

/// How many slice, array or `Vec` levels a type is written with, through
/// references: `&[f64]` 1, `&[[f64; 3]]` 2, `Vec<f64>` 1, `f64` 0.
fn slice_depth(ty: &syn::Type) -> usize {
    match ty {
        syn::Type::Reference(r) => slice_depth(&r.elem),
        syn::Type::Paren(p) => slice_depth(&p.elem),
        syn::Type::Group(g) => slice_depth(&g.elem),
        syn::Type::Slice(s) => 1 + slice_depth(&s.elem),
        syn::Type::Array(a) => 1 + slice_depth(&a.elem),
        syn::Type::Path(p) if p.qself.is_none() => {
            let Some(last) = p.path.segments.last() else {
                return 0;
            };
            let std_vec = p.path.segments.len() == 1
                || p.path
                    .segments
                    .iter()
                    .map(|s| s.ident.to_string())
                    .collect::<Vec<_>>()
                    == ["std", "vec", "Vec"]
                || p.path
                    .segments
                    .iter()
                    .map(|s| s.ident.to_string())
                    .collect::<Vec<_>>()
                    == ["alloc", "vec", "Vec"];
            match &last.arguments {
                syn::PathArguments::AngleBracketed(args) if last.ident == "Vec" && std_vec => {
                    match args.args.first() {
                        Some(syn::GenericArgument::Type(elem)) if args.args.len() == 1 => {
                            1 + slice_depth(elem)
                        }
                        _ => 0,
                    }
                }
                _ => 0,
            }
        }
        _ => 0,
    }
}

/// Whether a type written with one slice, array or `Vec` level holds a
/// primitive number (or `bool`) under it: `&[f64]`, `Vec<usize>`, `[f32; 3]`.
fn scalar_element(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Reference(r) => scalar_element(&r.elem),
        syn::Type::Paren(p) => scalar_element(&p.elem),
        syn::Type::Group(g) => scalar_element(&g.elem),
        syn::Type::Slice(s) => primitive(&s.elem),
        syn::Type::Array(a) => primitive(&a.elem),
        syn::Type::Path(p) => match p.path.segments.last().map(|s| &s.arguments) {
            Some(syn::PathArguments::AngleBracketed(args)) => {
                matches!(args.args.first(), Some(syn::GenericArgument::Type(t)) if primitive(t))
            }
            _ => false,
        },
        _ => false,
    }
}

/// `f64`, `usize`, `bool`, … written as one name.
fn primitive(ty: &syn::Type) -> bool {
    const PRIMITIVES: [&str; 15] = [
        "f32", "f64", "i8", "i16", "i32", "i64", "i128", "isize", "u8", "u16", "u32", "u64",
        "u128", "usize", "bool",
    ];
    matches!(ty, syn::Type::Path(p) if p.qself.is_none()
        && p.path.get_ident().is_some_and(|i| PRIMITIVES.contains(&i.to_string().as_str())))
}

/// Whether a one-level initialiser's elements are number literals:
/// `vec![0.0; n]`, `[1.0, -2.0]`, `vec![1, 2]`.
fn numeric_elements(expr: &Expr) -> bool {
    fn number(e: &Expr) -> bool {
        match strip(e) {
            Expr::Lit(l) => matches!(l.lit, syn::Lit::Float(_) | syn::Lit::Int(_)),
            Expr::Unary(u) => matches!(u.op, syn::UnOp::Neg(_)) && number(&u.expr),
            _ => false,
        }
    }
    match strip(expr) {
        Expr::Repeat(r) => number(&r.expr),
        Expr::Array(a) => !a.elems.is_empty() && a.elems.iter().all(number),
        Expr::Macro(m) if m.mac.path.is_ident("vec") => m
            .mac
            .parse_body_with(|input: syn::parse::ParseStream| {
                let first: Expr = input.parse()?;
                if input.peek(syn::Token![;]) {
                    let _: syn::Token![;] = input.parse()?;
                    let _: Expr = input.parse()?;
                    return Ok(number(&first));
                }
                let mut all = number(&first);
                while input.peek(syn::Token![,]) {
                    let _: syn::Token![,] = input.parse()?;
                    if input.is_empty() {
                        break;
                    }
                    let next: Expr = input.parse()?;
                    all &= number(&next);
                }
                Ok(all && input.is_empty())
            })
            .unwrap_or(false),
        _ => false,
    }
}

/// How many `vec![…]` or array-literal levels an initialiser is written
/// with: `vec![0.0; n]` 1, `[[0.0; 3]; 2]` 2, `vec![vec![0.0; m]; n]` 2.
fn literal_depth(expr: &Expr) -> usize {
    match strip(expr) {
        Expr::Repeat(r) => 1 + literal_depth(&r.expr),
        Expr::Array(a) => 1 + a.elems.first().map_or(0, literal_depth),
        Expr::Macro(m) if m.mac.path.is_ident("vec") => {
            // `vec![elem; n]` or `vec![a, b, …]`: the first element
            let first = m
                .mac
                .parse_body_with(|input: syn::parse::ParseStream| {
                    let first: Expr = input.parse()?;
                    let _: proc_macro2::TokenStream = input.parse()?;
                    Ok(first)
                })
                .ok();
            1 + first.as_ref().map_or(0, literal_depth)
        }
        _ => 0,
    }
}

/// The name a pattern binds by value, immutably: `x` or `x: T`.
pub fn immutable_name(pat: &Pat) -> Option<String> {
    immutable_ident(pat).map(ToString::to_string)
}

/// As [`immutable_name`], the name as written.
pub fn immutable_ident(pat: &Pat) -> Option<&syn::Ident> {
    match pat {
        Pat::Ident(p) if p.by_ref.is_none() && p.mutability.is_none() && p.subpat.is_none() => {
            Some(&p.ident)
        }
        Pat::Type(t) => immutable_ident(&t.pat),
        _ => None,
    }
}

/// The name a pattern binds, `mut` or not: `x`, `mut x`, `x: T`.
fn bound_name(pat: &Pat) -> Option<String> {
    match pat {
        Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => Some(p.ident.to_string()),
        Pat::Type(t) => bound_name(&t.pat),
        _ => None,
    }
}

/// Names a statement may change or move: every use except an index read
/// (`a[i]`), a shared borrow (`&a`) and `a.len()` / `a.iter()`. Names in
/// macro invocations count as changed.
#[derive(Default)]
struct Touches(HashSet<String>);

impl Touches {
    fn touch(&mut self, place: &Expr) {
        if let Some(name) = root(place, Reach::Touched) {
            self.0.insert(name.to_string());
        }
    }

    /// Visits a place read in place: its indices, not its root.
    fn visit_place(&mut self, place: &Expr) {
        match place {
            Expr::Path(_) => {}
            Expr::Index(i) => {
                self.visit_place(&i.expr);
                self.visit_expr(&i.index);
            }
            Expr::Field(f) => self.visit_place(&f.base),
            Expr::Paren(p) => self.visit_place(&p.expr),
            other => self.visit_expr(other),
        }
    }
}

impl<'ast> Visit<'ast> for Touches {
    fn visit_expr(&mut self, e: &'ast Expr) {
        match e {
            Expr::Assign(a) => {
                self.touch(&a.left);
                self.visit_place(&a.left);
                self.visit_expr(&a.right);
            }
            Expr::Binary(b) if !is_pure_op(&b.op) => {
                self.touch(&b.left);
                self.visit_place(&b.left);
                self.visit_expr(&b.right);
            }
            Expr::Reference(r) if r.mutability.is_some() => {
                self.touch(&r.expr);
                self.visit_place(&r.expr);
            }
            Expr::Reference(r) => self.visit_place(&r.expr),
            Expr::Index(_) => self.visit_place(e),
            Expr::MethodCall(m)
                if matches!(m.method.to_string().as_str(), "len" | "iter" | "is_empty")
                    && m.args.is_empty() =>
            {
                self.visit_place(&m.receiver);
            }
            Expr::Path(p) => {
                if let Some(name) = p.path.get_ident() {
                    self.0.insert(name.to_string());
                }
            }
            _ => syn::visit::visit_expr(self, e),
        }
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        crate::names::idents_in(m.tokens.clone(), &mut self.0);
    }
}

/// Whether tokens mention mutation: `mut`, or a name like `iter_mut`.
pub(crate) fn mentions_mut(tokens: &proc_macro2::TokenStream) -> bool {
    // most tokens mention neither, and one rendering of them says so:
    // walking them instead crosses the proc-macro bridge once per group
    let text = tokens.to_string();
    (text.contains("mut") || text.contains("Cell")) && mentions_mut_in(tokens)
}

fn mentions_mut_in(tokens: &proc_macro2::TokenStream) -> bool {
    tokens.clone().into_iter().any(|tt| match tt {
        proc_macro2::TokenTree::Ident(i) => {
            i.to_string().contains("mut") || i == "Cell" || i == "RefCell"
        }
        proc_macro2::TokenTree::Group(g) => mentions_mut_in(&g.stream()),
        _ => false,
    })
}

/// How many times each name is bound in a function: its parameters and
/// every pattern of its body.
pub(crate) fn binding_counts(sig: &syn::Signature, block: &syn::Block) -> HashMap<String, usize> {
    let mut counter = Bindings::default();
    for input in &sig.inputs {
        match input {
            syn::FnArg::Typed(t) => counter.visit_pat(&t.pat),
            syn::FnArg::Receiver(_) => *counter.0.entry("self".into()).or_default() += 1,
        }
    }
    counter.visit_block(block);
    counter.0
}

/// Counts the names bound by patterns.
#[derive(Default)]
struct Bindings(HashMap<String, usize>);

impl<'ast> Visit<'ast> for Bindings {
    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        *self.0.entry(p.ident.to_string()).or_default() += 1;
        syn::visit::visit_pat_ident(self, p);
    }
    /// the names bound inside a `vec![…]`'s elements (an iterator chain's
    /// loop there binds the position it reads)
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        let mut m = m.clone();
        crate::facts::syntax::vec_elements_mut(&mut m, |e| syn::visit::Visit::visit_expr(self, e));
    }
}
