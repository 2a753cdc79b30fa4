//! The window form: `#[tape]` on a function whose body holds `#[tracked]
//! let` knobs, `tape! { … }` windows, `backward!(v);` and `gradient!(k)`.
//!
//! Input:
//!
//! ```text
//! #[tracked] let mut a = 0.0_f64;
//! tape! { let loss = a * a; }
//! backward!(loss);
//! let slope = gradient!(a);
//! ```
//!
//! Output, in the same block (the window's bindings stay in scope):
//!
//! ```text
//! let mut a = 0.0_f64;
//! let __mica_v1 = a;                 // the knob as the window read it
//! let __mica_t2 = a * a;
//! let loss = __mica_t2;
//! let __mica_a3 = one_like(&__mica_t2);   // backward!(loss)
//! let __mica_g4 = mul_d0(…) + mul_d1(…);  //   only the gradients asked for
//! let slope = __mica_g4;             // gradient!(a)
//! ```
//!
//! The body is rewritten twice: the first pass only learns, for each
//! window, which value `backward!` walks and which knobs `gradient!` asks
//! for, so the second can write exactly those adjoints (no unused code, no
//! warnings).
//!
//! This file walks the body: its blocks and the bindings made in them, the
//! `#[tracked] let` knobs (wall 7), a window never walked (wall 5), and the
//! macros that stand inside an expression or a nested item, where no window
//! can be (walls 1 and 5). What `tape!`, `backward!` and `gradient!` become
//! where they stand is in `window_form/macros.rs`.

use crate::errors::Errors;
use crate::facts::places::pattern_names;
use crate::names::Names;
use crate::parse::{is_tracked, take_tracked};
use crate::record::Val;
use proc_macro2::{Ident, TokenStream};
use quote::{quote, quote_spanned, ToTokens};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use syn::visit_mut::VisitMut;
use syn::{Block, Expr, ItemFn, Macro, Pat, Stmt};

mod macros;

/// What the first pass learns about one window.
#[derive(Default, Clone)]
struct Plan {
    /// as written in `backward!(…)`: reading it there counts as a use
    seed: Option<Ident>,
    gradients: BTreeSet<String>,
}

pub fn expand(mut item: ItemFn, outer: &[(Ident, bool)], errors: &mut Errors) -> TokenStream {
    let plans = {
        let mut block = item.block.clone();
        let mut discarded = Errors::default();
        let mut names = Names::default();
        let mut first = Rewriter::new(None, &mut names, &mut discarded, &item.sig.generics);
        first.rewrite_block(&mut block);
        first.plans_out
    };
    let mut names = Names::default();
    let mut second = Rewriter::new(Some(plans), &mut names, errors, &item.sig.generics);
    second.rewrite_block(&mut item.block);
    // a window's walk is written in the function itself: a float type
    // parameter is bounded by `mica::Real` there
    let floats = crate::generics::floats_with(&item.sig.generics, outer);
    item.sig.generics = crate::generics::with_real(&item.sig.generics, &floats);
    item.into_token_stream()
}

/// A window seen in the block being rewritten.
struct Window {
    id: usize,
    /// the `tape` token, for errors about the window as a whole
    at: TokenStream,
    walked: bool,
    /// knob name → the binding its gradient is in
    gradients: HashMap<String, Ident>,
    /// knobs visible to the window
    knobs: BTreeMap<String, (Ident, usize)>,
    /// the window's top-level bindings and what they hold
    bindings: HashMap<String, Val>,
    /// the reverse sweep, written where `backward!` stands
    reverse: TokenStream,
}

#[derive(Default)]
struct BlockState {
    /// names bound in this block so far: for a knob, its declared name and
    /// rank (0 for a scalar)
    bindings: HashMap<String, Option<(Ident, usize)>>,
    window: Option<Window>,
}

struct Rewriter<'a> {
    /// `None` in the first pass
    plans: Option<Vec<Plan>>,
    plans_out: Vec<Plan>,
    names: &'a mut Names,
    errors: &'a mut Errors,
    blocks: Vec<BlockState>,
    windows: usize,
    /// inside a closure or `async` block (walls 1 and 6)
    closures: usize,
    /// the function's `const` generic parameters (see `Sweep`)
    const_generics: std::collections::HashSet<String>,
}

impl<'a> Rewriter<'a> {
    fn new(
        plans: Option<Vec<Plan>>,
        names: &'a mut Names,
        errors: &'a mut Errors,
        generics: &syn::Generics,
    ) -> Self {
        Rewriter {
            plans,
            plans_out: Vec::new(),
            names,
            errors,
            blocks: Vec::new(),
            windows: 0,
            closures: 0,
            const_generics: crate::lower::const_generics(generics),
        }
    }

    fn first_pass(&self) -> bool {
        self.plans.is_none()
    }

    fn rewrite_block(&mut self, block: &mut Block) {
        self.blocks.push(BlockState::default());
        let stmts = std::mem::take(&mut block.stmts);
        let mut out = Vec::with_capacity(stmts.len());
        for stmt in stmts {
            self.rewrite_stmt(stmt, &mut out);
        }
        if let Some(state) = self.blocks.pop() {
            self.check_walked(state.window);
        }
        block.stmts = out;
    }

    fn check_walked(&mut self, window: Option<Window>) {
        if let Some(w) = window {
            if !w.walked && !self.first_pass() {
                self.errors.at(
                    &w.at,
                    "this window is never walked; follow it with `backward!(…)` in the same block",
                );
            }
        }
    }

    fn rewrite_stmt(&mut self, mut stmt: Stmt, out: &mut Vec<Stmt>) {
        if let Some(mac) = stmt_macro(&stmt) {
            match macro_name(mac).as_str() {
                "tape" => {
                    let mac = mac.clone();
                    return self.window(&mac, out);
                }
                "backward" => {
                    let mac = mac.clone();
                    return self.backward(&mac, out);
                }
                _ => {}
            }
        }
        if let Stmt::Local(local) = &mut stmt {
            if let Some(attr) = take_tracked(&mut local.attrs) {
                self.knob(local, attr);
                // `#[tracked] let x = x;` makes a parameter a knob: not redundant
                local
                    .attrs
                    .push(syn::parse_quote!(#[allow(clippy::redundant_locals)]));
                self.visit_local_mut(local);
                let check = knob_check(&local.pat);
                out.push(stmt);
                out.extend(check);
                return;
            }
        }
        self.visit_stmt_mut(&mut stmt);
        if let Stmt::Local(local) = &stmt {
            for name in pattern_names(&local.pat) {
                self.bind_outer(&name, None);
            }
        }
        out.push(stmt);
    }

    /// Records a binding of the outer code; `knob` is its declared name.
    fn bind_outer(&mut self, name: &Ident, knob: Option<(Ident, usize)>) {
        if let Some(block) = self.blocks.last_mut() {
            block.bindings.insert(name.to_string(), knob);
        }
    }

    /// Whether `name` currently names a knob.
    fn is_knob(&self, name: &str) -> bool {
        self.blocks
            .iter()
            .rev()
            .find_map(|b| b.bindings.get(name))
            .is_some_and(Option::is_some)
    }

    /// The knobs in scope, by name, with the names they were declared by.
    fn visible_knobs(&self) -> BTreeMap<String, (Ident, usize)> {
        let mut seen = BTreeSet::new();
        let mut knobs = BTreeMap::new();
        for block in self.blocks.iter().rev() {
            for (name, knob) in &block.bindings {
                if seen.insert(name.clone()) {
                    if let Some(declared) = knob {
                        knobs.insert(name.clone(), declared.clone());
                    }
                }
            }
        }
        knobs
    }

    /// `#[tracked] let …`: a knob (wall 7).
    fn knob(&mut self, local: &syn::Local, attr: syn::Attribute) {
        if self.closures > 0 {
            self.errors.at(&attr, "`#[tracked]` goes on a `let` in the body of a `#[tape]` function, not inside a closure");
        }
        let (ident, ty) = match &local.pat {
            Pat::Ident(p) if p.subpat.is_none() && p.by_ref.is_none() => (Some(&p.ident), None),
            Pat::Type(t) => match &*t.pat {
                Pat::Ident(p) if p.subpat.is_none() && p.by_ref.is_none() => {
                    (Some(&p.ident), Some(&t.ty))
                }
                _ => (None, None),
            },
            _ => (None, None),
        };
        let Some(ident) = ident else {
            self.errors.at(
                &local.pat,
                "a knob is one name; write one `#[tracked] let` per knob",
            );
            return;
        };
        let mut rank = local
            .init
            .as_ref()
            .map_or(0, |init| crate::facts::syntax::literal_rank(&init.expr));
        if let Some(ty) = ty {
            match crate::parse::shape(ty) {
                Ok(shape) => rank = shape.rank,
                Err(e) => self.errors.push(e),
            }
        }
        if local.init.is_none() {
            self.errors.at(
                ident,
                "a knob starts with a value; write `#[tracked] let name = value;`",
            );
        }
        let ident = ident.clone();
        self.bind_outer(&ident, Some((ident.clone(), rank)));
    }
}

impl VisitMut for Rewriter<'_> {
    fn visit_block_mut(&mut self, block: &mut Block) {
        self.rewrite_block(block);
    }

    fn visit_expr_mut(&mut self, expr: &mut Expr) {
        if let Expr::Macro(m) = expr {
            match macro_name(&m.mac).as_str() {
                "gradient" => {
                    let mac = m.mac.clone();
                    let replaced = self.gradient(m.mac.tokens.clone(), &mac.path.to_token_stream());
                    *expr = Expr::Verbatim(replaced);
                    return;
                }
                "tape" => {
                    self.errors.at(&m.mac.path, "a `tape!` window stands as a statement of its own, not inside an expression");
                    *expr = Expr::Verbatim(quote!(()));
                    return;
                }
                "backward" => {
                    self.errors.at(
                        &m.mac.path,
                        "`backward!` stands as a statement of its own, not inside an expression",
                    );
                    *expr = Expr::Verbatim(quote!(()));
                    return;
                }
                _ => {}
            }
        }
        match expr {
            Expr::Closure(_) | Expr::Async(_) => {
                self.closures += 1;
                syn::visit_mut::visit_expr_mut(self, expr);
                self.closures -= 1;
            }
            _ => syn::visit_mut::visit_expr_mut(self, expr),
        }
    }

    fn visit_macro_mut(&mut self, mac: &mut Macro) {
        mac.tokens = self.gradients_in_tokens(mac.tokens.clone());
    }

    fn visit_local_mut(&mut self, local: &mut syn::Local) {
        for attr in &local.attrs {
            if is_tracked(attr) {
                self.errors.at(
                    attr,
                    "`#[tracked]` goes on a `let` in the body of a `#[tape]` function",
                );
            }
        }
        syn::visit_mut::visit_local_mut(self, local);
    }

    // nested items are not part of this function: a window there has no
    // `#[tape]` to give it meaning
    fn visit_item_mut(&mut self, item: &mut syn::Item) {
        if let Some(at) = crate::windows::find_window(item.to_token_stream()) {
            self.errors.at(
                at,
                "a `tape!` window stands in the body of a `#[tape]` function; this nested item is not part of it",
            );
            crate::windows::unmark_item(item);
        }
    }
}

fn stmt_macro(stmt: &Stmt) -> Option<&Macro> {
    match stmt {
        Stmt::Macro(m) => Some(&m.mac),
        Stmt::Expr(Expr::Macro(m), _) => Some(&m.mac),
        _ => None,
    }
}

fn macro_name(mac: &Macro) -> String {
    mac.path
        .segments
        .last()
        .map(|s| s.ident.to_string())
        .unwrap_or_default()
}

fn verbatim(tokens: TokenStream) -> Stmt {
    Stmt::Item(syn::Item::Verbatim(tokens))
}

/// A check that the knob's type can be a knob, worded by the runtime's
/// `Knob` trait.
fn knob_check(pat: &Pat) -> Option<Stmt> {
    let ident = pattern_names(pat).into_iter().next()?;
    let span = ident.span();
    Some(verbatim(
        quote_spanned!(span=> ::mica::__private::assert_knob(&#ident);),
    ))
}
