//! What the window form's macros become: a `tape! { … }` window lowered
//! into its forward sweep, with the reverse written at once and kept for
//! its `backward!`; `backward!(v)` replaced by that reverse; `gradient!(k)`
//! by the binding the walk made for the knob. Each is checked where it
//! stands as it is expanded: not in a closure (wall 1), a window walked
//! once by a scalar it bound (wall 5), a gradient of a knob after its
//! window's `backward!` (wall 6). The walk through the body and the knobs
//! are in `window_form.rs`.

use super::{verbatim, Plan, Rewriter, Window};
use crate::errors::Errors;
use crate::lower::Sweep;
use crate::record::{Origin, Val};
use crate::reverse::reverse;
use proc_macro2::{Ident, TokenStream, TokenTree};
use quote::{quote, quote_spanned, ToTokens};
use std::collections::{BTreeMap, HashMap};
use syn::spanned::Spanned;
use syn::{Block, Macro, Stmt};

impl Rewriter<'_> {
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
    pub(super) fn window(&mut self, mac: &Macro, out: &mut Vec<Stmt>) {
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
        // loops' `break` and `continue` as flags (see `exits.rs`)
        let stmts = crate::exits::eliminate(&stmts).unwrap_or(stmts);
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
        let prologue = sweep.prologue(&rev.reads, &rev.empty_tapes);
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
    pub(super) fn backward(&mut self, mac: &Macro, out: &mut Vec<Stmt>) {
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
    pub(super) fn gradient(&mut self, tokens: TokenStream, at: &TokenStream) -> TokenStream {
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
    pub(super) fn gradients_in_tokens(&mut self, tokens: TokenStream) -> TokenStream {
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
