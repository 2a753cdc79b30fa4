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

use crate::errors::Errors;
use crate::lower::Sweep;
use crate::names::Names;
use crate::parse::{is_tracked, take_tracked};
use crate::record::{Origin, Val};
use crate::reverse::reverse;
use proc_macro2::{Ident, TokenStream, TokenTree};
use quote::{quote, quote_spanned, ToTokens};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use syn::spanned::Spanned;
use syn::visit_mut::VisitMut;
use syn::{Block, Expr, ItemFn, Macro, Pat, Stmt};

/// What the first pass learns about one window.
#[derive(Default, Clone)]
struct Plan {
    /// as written in `backward!(…)`: reading it there counts as a use
    seed: Option<Ident>,
    gradients: BTreeSet<String>,
}

pub fn expand(mut item: ItemFn, errors: &mut Errors) -> TokenStream {
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

    fn next_plan(&mut self) -> Plan {
        let id = self.windows;
        self.windows += 1;
        match &self.plans {
            Some(plans) => plans.get(id).cloned().unwrap_or_default(),
            None => {
                self.plans_out.push(Plan::default());
                Plan::default()
            }
        }
    }

    /// `tape! { … }` standing as a statement.
    fn window(&mut self, mac: &Macro, out: &mut Vec<Stmt>) {
        let at = mac.path.to_token_stream();
        if self.closures > 0 {
            self.errors.at(&mac.path, "a `tape!` window cannot stand inside a closure or `async` block; move it to the function's body");
            return;
        }
        // a window after an unwalked one: the first is never walked
        if let Some(previous) = self.blocks.last_mut().and_then(|b| b.window.take()) {
            self.check_walked(Some(previous));
        }
        let id = self.windows;
        let plan = self.next_plan();
        let stmts = match mac.parse_body_with(Block::parse_within) {
            Ok(stmts) => stmts,
            Err(e) => {
                self.errors.push(e);
                return;
            }
        };
        let knobs = self.visible_knobs();
        let mut sweep_errors = Errors::default();
        let mut sweep = Sweep::new(self.names, &mut sweep_errors, false);
        sweep.const_generics = self.const_generics.clone();
        // a scalar knob is an input value; an array knob's slopes are added
        // into a buffer the walk makes
        let mut inputs = BTreeMap::new();
        let mut buffers = BTreeMap::new();
        for (name, (declared, rank)) in &knobs {
            if *rank == 0 {
                inputs.insert(name.clone(), sweep.add_input(declared, Origin::Knob));
            } else {
                let buffer = sweep.names.fresh("g");
                let declare = quote!(let mut #buffer = ::mica::__private::zeros_like(&#declared););
                sweep.add_array_input(
                    declared,
                    Origin::Knob,
                    *rank,
                    buffer.to_token_stream(),
                    Some(declare),
                );
                buffers.insert(name.clone(), buffer);
            }
        }
        let mut forward = TokenStream::new();
        if let Some(tail) = sweep.lower_block_stmts(&stmts, &mut forward) {
            let fwd = tail.fwd;
            if !fwd.is_empty() {
                forward.extend([quote!(let _ = #fwd;)]);
            }
        }
        let bindings: HashMap<String, Val> = sweep.top_level_bindings();
        // the seed, known from the first pass
        let mut seeds = Vec::new();
        let mut walked_name = TokenStream::new();
        if let Some(seed) = &plan.seed {
            match bindings.get(&seed.to_string()) {
                Some(Val::Active(value)) => {
                    seeds.push((*value, quote!(::mica::__private::one_like(&#seed))));
                }
                Some(Val::Const) => walked_name = quote!(let _ = &#seed;),
                _ => {}
            }
        }
        let rev = reverse(&mut sweep, seeds, false);
        let mut reverse_code = walked_name;
        reverse_code.extend([rev.code]);
        let mut gradients = HashMap::new();
        for knob in &plan.gradients {
            if let Some(buffer) = buffers.get(knob) {
                gradients.insert(knob.clone(), buffer.clone());
                continue;
            }
            let (Some(input), Some((knob_ident, _))) = (inputs.get(knob), knobs.get(knob)) else {
                continue;
            };
            let binding = sweep.names.fresh("g");
            let value = match rev.inputs.get(input) {
                Some(total) => total.clone(),
                // unread means zero
                None => quote!(::mica::__private::zeros_like(&#knob_ident)),
            };
            reverse_code.extend([quote!(let #binding = #value;)]);
            gradients.insert(knob.clone(), binding);
        }
        let forward = crate::lower::fill_placeholders(forward, &rev.fills);
        let prologue = sweep.prologue();
        drop(sweep);
        if let Err(e) = sweep_errors.into_result() {
            self.errors.push(e);
        }
        for name in bindings.keys() {
            self.bind_outer(&Ident::new(name, mac.path.span()), None);
        }
        out.push(verbatim(quote!(#prologue #forward)));
        if let Some(block) = self.blocks.last_mut() {
            block.window = Some(Window {
                id,
                at,
                walked: false,
                gradients,
                knobs,
                bindings,
                reverse: reverse_code,
            });
        }
    }

    /// `backward!(v);`: the reverse sweep of the latest window in this block.
    fn backward(&mut self, mac: &Macro, out: &mut Vec<Stmt>) {
        let first_pass = self.first_pass();
        let seed: syn::Result<Ident> = mac.parse_body_with(|input: syn::parse::ParseStream| {
            let ident: Ident = input.parse()?;
            let _: Option<syn::Token![,]> = input.parse()?;
            Ok(ident)
        });
        let seed = match seed {
            Ok(seed) => seed,
            Err(_) => {
                self.errors.at(
                    &mac.tokens,
                    "`backward!` takes the name of a scalar bound in its window: `backward!(loss)`",
                );
                return;
            }
        };
        if self.closures > 0 {
            self.errors.at(
                &mac.path,
                "`backward!` cannot stand inside a closure or `async` block",
            );
            return;
        }
        let Some(window) = self.blocks.last_mut().and_then(|b| b.window.as_mut()) else {
            self.errors.at(&mac.path, "`backward!` follows a `tape!` window in the same block; there is none before it here");
            return;
        };
        if window.walked {
            self.errors.at(
                &mac.path,
                "this window was walked already; a window is walked exactly once",
            );
            return;
        }
        window.walked = true;
        let id = window.id;
        let name = seed.to_string();
        if first_pass {
            if let Some(plan) = self.plans_out.get_mut(id) {
                plan.seed = Some(seed);
            }
            return;
        }
        let problem = match window.bindings.get(&name) {
            Some(Val::Active(_)) | Some(Val::Const) => None,
            Some(Val::Tuple(_)) => Some(format!("`{name}` is a tuple; walk a scalar")),
            Some(Val::Array { .. }) => Some(format!(
                "`{name}` is an array; walk a scalar, such as a sum of its elements"
            )),
            None if window.knobs.contains_key(&name) => Some(format!(
                "`{name}` is a knob; walk a value the window computed from it"
            )),
            None => Some(format!(
                "`{name}` is not bound by `let` in the window before this `backward!`"
            )),
        };
        if let Some(message) = problem {
            self.errors.at(&seed, message);
            return;
        }
        let code = std::mem::take(&mut window.reverse);
        out.push(verbatim(code));
    }

    /// `gradient!(k)`, resolved to the binding its window's walk made.
    fn gradient(&mut self, tokens: TokenStream, at: &TokenStream) -> TokenStream {
        let knob: Ident = match syn::parse2(tokens.clone()) {
            Ok(knob) => knob,
            Err(_) => {
                self.errors.at(
                    &tokens,
                    "`gradient!` takes the name of a knob: `gradient!(a)`",
                );
                return quote!(0.0);
            }
        };
        if self.closures > 0 {
            self.errors.at(
                at,
                "`gradient!` cannot stand inside a closure; bind the gradient to a name first",
            );
            return quote!(0.0);
        }
        let name = knob.to_string();
        let first_pass = self.first_pass();
        let is_knob = self.is_knob(&name);
        let window = self.blocks.iter().rev().find_map(|b| b.window.as_ref());
        let message = match window {
            None => "`gradient!` follows a window's `backward!`; there is no window before it"
                .to_string(),
            Some(w) if !w.walked => {
                "`gradient!` follows its window's `backward!`; this window is not walked yet"
                    .to_string()
            }
            Some(w) if !is_knob || !w.knobs.contains_key(&name) => {
                format!(
                    "`{name}` is not a knob; `gradient!` answers the slope of a `#[tracked]` value"
                )
            }
            Some(w) => {
                let id = w.id;
                if first_pass {
                    if let Some(plan) = self.plans_out.get_mut(id) {
                        plan.gradients.insert(name);
                    }
                    return quote_spanned!(knob.span()=> #knob);
                }
                if let Some(binding) = w.gradients.get(&name) {
                    return quote_spanned!(knob.span()=> ::mica::__private::GradientView::view(&#binding));
                }
                return quote!(0.0);
            }
        };
        if !first_pass {
            self.errors.at(at, message);
        }
        quote!(0.0)
    }

    /// Replaces `gradient!(…)` inside another macro's tokens (`println!`).
    fn gradients_in_tokens(&mut self, tokens: TokenStream) -> TokenStream {
        let trees: Vec<TokenTree> = tokens.into_iter().collect();
        let mut out = TokenStream::new();
        let mut i = 0;
        while i < trees.len() {
            if let (
                TokenTree::Ident(ident),
                Some(TokenTree::Punct(bang)),
                Some(TokenTree::Group(group)),
            ) = (&trees[i], trees.get(i + 1), trees.get(i + 2))
            {
                if ident == "gradient" && bang.as_char() == '!' {
                    let at = ident.to_token_stream();
                    let replaced = self.gradient(group.stream(), &at);
                    out.extend([quote!((#replaced))]);
                    i += 3;
                    continue;
                }
            }
            match &trees[i] {
                TokenTree::Group(g) => {
                    let inner = self.gradients_in_tokens(g.stream());
                    let mut group = proc_macro2::Group::new(g.delimiter(), inner);
                    group.set_span(g.span());
                    out.extend(std::iter::once(TokenTree::Group(group)));
                }
                other => out.extend(std::iter::once(other.clone())),
            }
            i += 1;
        }
        out
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

fn pattern_names(pat: &Pat) -> Vec<Ident> {
    struct Names(Vec<Ident>);
    impl<'ast> syn::visit::Visit<'ast> for Names {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.0.push(p.ident.clone());
            syn::visit::visit_pat_ident(self, p);
        }
    }
    let mut names = Names(Vec::new());
    syn::visit::Visit::visit_pat(&mut names, pat);
    names.0
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
