//! The function form: `#[tape]` on a function with tracked parameters.
//!
//! Input:
//!
//! ```text
//! #[tape]
//! pub fn loss(#[tracked] a: f64, x: f64) -> f64 { a * x }
//! ```
//!
//! Output: the function as written (marks removed) and three companions:
//!
//! ```text
//! pub fn loss(a: f64, x: f64) -> f64 { a * x }
//! pub fn loss_grad(a: f64, x: f64) -> (f64, f64) { … loss_backward(…) … }
//! pub fn loss_backward(a: f64, x: f64, seed: f64, d_a: &mut f64) -> f64 {
//!     /* forward sweep */ /* reverse sweep */ *d_a += …; value
//! }
//! #[doc(hidden)] pub struct loss {}                 // how callers reach `loss_backward`:
//! impl loss { pub fn adjoint(…) }                   //   `loss::adjoint(…)`
//! ```
//!
//! The hidden type shares the function's name, so wherever a caller can
//! name `loss` it can name `loss::adjoint`: a call to `loss` from another
//! tape function is differentiated through it. It takes a slot for every
//! argument — `NoSlot` where the caller passes a constant — and hands
//! `loss_backward` exactly the slots of the tracked parameters.

use crate::errors::Errors;
use crate::facts::syntax::token_count;
use crate::lower::{Stability, Sweep};
use crate::names::{internal, is_seeded, Names};
use crate::parse::{self, Args, Param};
use crate::record::{Origin, Val};
use crate::reverse::reverse;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::{ItemFn, ReturnType};

mod adapter;

/// What a `#[tape]` function returns: as written, the value whose slope is
/// taken, and, for `Option<T>` / `Result<T, E>`, the wrapper.
pub struct Ret {
    pub(crate) full: TokenStream,
    pub(crate) value: TokenStream,
    pub(crate) wrapped: Option<crate::wrapped::Wrapped>,
}

pub fn expand(
    args: &Args,
    mut item: ItemFn,
    primal: Option<syn::Block>,
    errors: &mut Errors,
) -> TokenStream {
    set_in_impl(args.in_impl);
    let params = parse::params(&mut item.sig, errors);
    let ret = ret_of(&item, errors);
    // the companions of a function generic over its float bound it by
    // `mica::Real`; the primal keeps the user's bounds
    let tracked_types: Vec<&syn::Type> = tracked(&params).map(|(p, _)| &p.ty).collect();
    let companion = crate::generics::companion(&item, &args.outer, &tracked_types, errors);
    let item_ref = &companion;
    let backward = if args.custom {
        TokenStream::new()
    } else {
        backward_fn(args, item_ref, &params, &ret, errors)
    };
    let grad = grad_fn(item_ref, &params, &ret);
    // calls from other `#[tape]` functions go through the adapter; one
    // that returns an `Option` or a `Result` has none yet
    let adapter = match ret.wrapped {
        None if !args.in_impl || item.sig.receiver().is_some() || args.host.is_some() => {
            adapter::adapter_mod(
                item_ref,
                &params,
                &ret.full,
                args.host.as_ref(),
                args.custom,
            )
        }
        _ => TokenStream::new(),
    };
    if let Some(block) = primal {
        *item.block = block;
        item.attrs.retain(|a| !crate::helpers::is_inlined_lints(a));
    }
    quote! {
        #item
        #grad
        #backward
        #adapter
    }
}

/// What `item` returns (an error, and `f64`, when it returns nothing).
pub(crate) fn ret_of(item: &ItemFn, errors: &mut Errors) -> Ret {
    match &item.sig.output {
        ReturnType::Type(_, ty) => {
            let wrapped = crate::wrapped::of(ty);
            Ret {
                full: ty.to_token_stream(),
                value: wrapped
                    .as_ref()
                    .map_or_else(|| ty.to_token_stream(), |w| w.inner.clone()),
                wrapped,
            }
        }
        ReturnType::Default => {
            errors.at(&item.sig.ident, "a `#[tape]` function with tracked parameters returns a scalar; add `-> f64` or `-> f32`");
            Ret {
                full: quote!(f64),
                value: quote!(f64),
                wrapped: None,
            }
        }
    }
}

fn tracked(params: &[Param]) -> impl Iterator<Item = (&Param, &parse::Shape)> {
    params
        .iter()
        .filter_map(|p| p.tracked.as_ref().map(|(_, shape)| (p, shape)))
}

fn slot_name(param: &Param) -> Ident {
    format_ident!("d_{}", param.name, span = proc_macro2::Span::mixed_site())
}

fn companion_attrs(item: &ItemFn) -> TokenStream {
    // keep `cfg`s and lint levels the user put on the function
    let kept = item.attrs.iter().filter(|a| {
        let p = a.path();
        p.is_ident("cfg")
            || p.is_ident("allow")
            || p.is_ident("expect")
            || p.is_ident("warn")
            || p.is_ident("deny")
    });
    quote!(#(#kept)*)
}

/// `NAME_backward`: the forward sweep, then the reverse sweep seeded with
/// `seed`, adding into the slots.
fn backward_fn(
    args: &Args,
    item: &ItemFn,
    params: &[Param],
    ret: &Ret,
    errors: &mut Errors,
) -> TokenStream {
    let mut names = Names::default();
    let mut local_errors = Errors::default();
    let mut sweep = Sweep::new(&mut names, &mut local_errors, true);
    sweep.const_generics = crate::lower::const_generics(&item.sig.generics);
    sweep.directional = args.directional;
    // a scalar is an input value; an array's slopes go straight into its slot
    let mut inputs = Vec::new();
    let mut checks = TokenStream::new();
    for param in params {
        match (&param.binding, &param.tracked) {
            (Some(name), Some((_, shape))) if shape.rank == 0 => {
                inputs.push(Some(sweep.add_input(name, Origin::Param)))
            }
            (Some(name), Some((_, shape))) => {
                let slot = slot_name(param);
                sweep.add_array_input(
                    name,
                    Origin::Param,
                    shape.rank,
                    quote!((*#slot)), // the slot is the adjoint buffer: `(*d_w)[i]`
                    None,
                );
                if shape.sized_at_run_time {
                    let label = name.to_string();
                    checks.extend([quote! {
                        ::mica::__private::slot_len(#slot.len(), #name.len(), #label);
                    }]);
                }
                inputs.push(None);
            }
            (Some(name), None) => match crate::parse::shape(&param.ty) {
                Ok(shape) if shape.rank > 0 => {
                    sweep.add_const_array(name, Origin::Param, shape.rank)
                }
                _ => sweep.add_const(name, Origin::Param),
            },
            (None, _) => {}
        }
    }
    let mut forward = TokenStream::new();
    // a loop's `break` and `continue` become flags and guards on the rest
    // of the iteration (see `exits.rs`): every later stage sees loops that
    // run each iteration to its end
    let exits = crate::exits::eliminate(&item.block.stmts);
    let stmts = exits.as_deref().unwrap_or(&item.block.stmts);
    // `Some(x)` / `Ok(x)` become `x`, `None` / `Err(e)` a return of the
    // adjoint before its reverse (see `wrapped.rs`)
    let mut leaves_early = false;
    let unwrapped = match &ret.wrapped {
        Some(w) => match crate::wrapped::unwrap_body(stmts, w.kind) {
            Ok((body, early)) => {
                leaves_early = early;
                Some(body)
            }
            Err(e) => {
                sweep.errors.push(e);
                None
            }
        },
        None => None,
    };
    sweep.wrapped = ret.wrapped.is_some();
    let stmts = unwrapped.as_deref().unwrap_or(stmts);
    let ret_value = &ret.value;
    // `return`s become an assignment to the result and a guard on the rest
    let rewritten = match crate::returns::eliminate(stmts, ret_value) {
        Ok(rewritten) => rewritten,
        Err(e) => {
            sweep.errors.push(e);
            None
        }
    };
    // without `return`, the reverse sweep follows the body's own top-level
    // bindings and may read names again instead of storing their values;
    // the plain adjoint keeps every value instead, and takes no shortcut
    // (nor, leaving early, does it: a shortcut's reverse may add into a
    // slot before the forward sweep is over)
    if rewritten.is_none() && args.plain.is_none() && !leaves_early {
        let stability = Stability::new(&item.sig, stmts);
        // a parameter nothing rebinds or changes is read where it is, not
        // copied at the start
        for id in inputs.iter().flatten() {
            sweep.read_input_in_place(*id, &stability);
        }
        sweep.stability = Some(stability);
    }
    let body = rewritten.as_deref().unwrap_or(stmts);
    let output = sweep.lower_block_stmts(body, &mut forward);
    let seed = internal("seed");
    let value = internal("value");
    // With only scalar knobs, every slope ends in one `*d_x += total`, so
    // the sweep runs from a seed of one and `seed` multiplies each total
    // once: the ones fold away, and `_backward` with seed `s` adds exactly
    // `s ×` the slope `_grad` returns.
    let factor_seed = tracked(params).all(|(_, shape)| shape.rank == 0);
    let root = if factor_seed {
        quote!(<#ret_value as ::mica::__private::One>::one())
    } else {
        seed.to_token_stream()
    };
    let (out_fwd, seeds) = match output {
        Some(lowered) => {
            let seeds = match lowered.val {
                Val::Active(id) => vec![(id, root)],
                _ => Vec::new(),
            };
            (lowered.fwd, seeds)
        }
        None => {
            if sweep.errors.is_empty() {
                let span = item.block.brace_token.span.close();
                sweep.errors.push(syn::Error::new(
                    span,
                    "a `#[tape]` function ends with its value",
                ));
            }
            (quote!(::core::unreachable!()), Vec::new())
        }
    };
    let mut uses_seed = !factor_seed && !seeds.is_empty();
    let rev = reverse(&mut sweep, seeds, args.plain.is_some());
    let prologue = sweep.prologue(&rev.reads, &rev.empty_tapes);
    let mut updates = TokenStream::new();
    for ((param, _), id) in tracked(params).zip(&inputs) {
        let slot = slot_name(param);
        match id.and_then(|id| rev.inputs.get(&id)) {
            Some(total) if factor_seed => {
                uses_seed = true;
                let total = operand(total);
                updates.extend([quote!(*#slot += #seed * #total;)]);
            }
            Some(total) => updates.extend([quote!(*#slot += #total;)]),
            // unread means zero (or an array, already added into): nothing to add
            None => updates.extend([quote!(let _ = &#slot;)]),
        }
    }
    let code = rev.code;
    // only loops leave placeholders
    let forward = if sweep.tapes.is_empty() {
        forward
    } else {
        crate::lower::fill_placeholders(forward, &rev.fills)
    };
    drop(sweep);
    let failed = !local_errors.is_empty();
    if let Err(e) = local_errors.into_result() {
        errors.push(e);
    }
    if failed {
        return stub_backward(item, params, ret);
    }
    let silence_seed = if uses_seed {
        quote!()
    } else {
        quote!(let _ = #seed;)
    };
    let keeps_primal_alive = primal_use(item);
    let signature = backward_signature(item, params, ret, true, None);
    let attrs = companion_attrs(item);
    let result = match &ret.wrapped {
        Some(w) => w.wrap(value.to_token_stream()),
        None => value.to_token_stream(),
    };
    // the body's parts moved in, not copied: the forward and reverse code
    // are most of the expansion
    let mut body = TokenStream::new();
    body.extend([
        keeps_primal_alive,
        checks,
        prologue,
        forward,
        quote!(let #value = #out_fwd;),
        silence_seed,
        code,
        updates,
        result,
    ]);
    let body = proc_macro2::Group::new(proc_macro2::Delimiter::Brace, body);
    quote! {
        #attrs
        // a short loop written out (`lower/unroll.rs`) puts literals where
        // its counter was read: comparisons and arithmetic of constants,
        // and a value set before it that its last copy overwrites unread
        #[allow(dead_code, unreachable_code, unused_assignments, unused_comparisons, clippy::all)]
        #signature #body
    }
}

/// `total` as the right operand of `*`: parenthesised unless it is one
/// token tree.
fn operand(total: &TokenStream) -> TokenStream {
    if total.clone().into_iter().nth(1).is_none() {
        total.clone()
    } else {
        proc_macro2::Group::new(proc_macro2::Delimiter::Parenthesis, total.clone())
            .into_token_stream()
    }
}

/// `vis fn NAME_backward(params…, seed: T, d_x: &mut X, …) -> T`; with
/// `user_patterns`, parameters keep the patterns the body reads them by.
/// `first`: the slot of a tracked receiver (`d_self: &mut Self`).
pub(crate) fn backward_signature(
    item: &ItemFn,
    params: &[Param],
    ret: &Ret,
    user_patterns: bool,
    first: Option<TokenStream>,
) -> TokenStream {
    let (value, full) = (&ret.value, &ret.full);
    let vis = &item.vis;
    let name = format_ident!("{}_backward", item.sig.ident);
    let (generics, where_clause) = (&item.sig.generics, &item.sig.generics.where_clause);
    let inputs = params.iter().map(|p| {
        let ty = &p.ty;
        if user_patterns {
            let (attrs, pat) = (&p.attrs, &p.pat);
            quote!(#(#attrs)* #pat: #ty)
        } else {
            let name = &p.name;
            quote!(#name: #ty)
        }
    });
    let slots = first.into_iter().chain(tracked(params).map(|(p, shape)| {
        let (slot, target) = (slot_name(p), &shape.slot);
        quote!(#slot: &mut #target)
    }));
    let seed = internal("seed");
    let receiver = receiver(item, !user_patterns);
    let doc = format!(
        "The adjoint of [`{}`]: returns its value and adds `seed` × the slope of each tracked parameter into its slot.",
        item.sig.ident
    );
    let inline = inline_attr(item);
    quote! {
        #[doc = #doc]
        #inline
        #vis fn #name #generics (#receiver #(#inputs,)* #seed: #value, #(#slots),*) -> #full #where_clause
    }
}

/// The largest body, in tokens, of a twin whose reverse is always inlined.
const SMALL_TWIN_TOKENS: usize = 2000;

/// `#[inline]`, or `#[inline(always)]` for the reverse of a small seeded
/// twin (`outputs.rs`). Every caller of that reverse drops the value it
/// returns, the output's dot product with the seed: written into the
/// caller, the work done only for that value goes (the output computed
/// again, into a `Vec` of its own, and the product), and where the reverse
/// reads nothing the forward sweep made, as for a layer's `W x + b`, that
/// is the whole forward sweep.
fn inline_attr(item: &ItemFn) -> TokenStream {
    // more statements than that are more tokens: not written out to count
    let small = || {
        item.block.stmts.len() <= SMALL_TWIN_TOKENS
            && token_count(&item.block.to_token_stream()) <= SMALL_TWIN_TOKENS
    };
    match is_seeded(&item.sig.ident) && small() {
        true => quote!(#[inline(always)]),
        false => quote!(#[inline]),
    }
}

/// When the body breaks a wall: a companion with the right signature, so
/// callers keep compiling while the user fixes the body.
fn stub_backward(item: &ItemFn, params: &[Param], ret: &Ret) -> TokenStream {
    let signature = backward_signature(item, params, ret, false, None);
    quote! {
        #[allow(dead_code, unused_variables, clippy::too_many_arguments)]
        #signature { ::core::unreachable!() }
    }
}

/// `self, ` in front of a method's companions' arguments.
fn self_arg(item: &ItemFn) -> TokenStream {
    match item.sig.receiver() {
        // the user's own `self`: one of the macro's would be another name
        Some(r) => {
            let this = r.self_token;
            quote!(#this,)
        }
        None => TokenStream::new(),
    }
}

thread_local! {
    /// The function being expanded stands in an `impl` block (set by
    /// [`expand`] from [`Args::in_impl`] for the companions it writes).
    static IN_IMPL: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Says whether the function whose companions are written next stands in
/// an `impl` block (for [`sibling`]).
pub(crate) fn set_in_impl(in_impl: bool) {
    IN_IMPL.with(|c| c.set(in_impl));
}

/// Whether the function whose companions are written stands in an `impl`.
pub(crate) fn in_impl() -> bool {
    IN_IMPL.with(|c| c.get())
}

/// How a companion names a sibling: `Self::f` for a method or an
/// associated function, `f` otherwise.
pub(crate) fn sibling(item: &ItemFn, name: &Ident) -> TokenStream {
    if item.sig.receiver().is_some() || IN_IMPL.with(|c| c.get()) {
        quote!(Self::#name)
    } else {
        quote!(#name)
    }
}

/// The receiver as written (`&self`, `mut self`, …), for `_backward`; with
/// `plain`, without `mut`, for companions that only pass it on.
fn receiver(item: &ItemFn, plain: bool) -> TokenStream {
    match item.sig.receiver() {
        None => TokenStream::new(),
        Some(r) => {
            let mut r = r.clone();
            r.attrs.clear();
            if plain && r.reference.is_none() {
                r.mutability = None;
            }
            quote!(#r,)
        }
    }
}

/// A function used only through its gradient is used: the companions name
/// the primal, so it is dead exactly when they all are.
fn primal_use(item: &ItemFn) -> TokenStream {
    crate::generics::named_at_parameters(item, sibling(item, &item.sig.ident))
}

/// `NAME_grad`: the value and the gradient of every tracked parameter.
fn grad_fn(item: &ItemFn, params: &[Param], ret: &Ret) -> TokenStream {
    let ret_value = &ret.value;
    let vis = &item.vis;
    let name = format_ident!("{}_grad", item.sig.ident);
    let backward = format_ident!("{}_backward", item.sig.ident);
    let (generics, where_clause) = (&item.sig.generics, &item.sig.generics.where_clause);
    let inputs = params.iter().map(|p| {
        let (attrs, name, ty) = (&p.attrs, &p.name, &p.ty);
        quote!(#(#attrs)* #name: #ty)
    });
    let args = params.iter().map(|p| &p.name);
    let slots: Vec<Ident> = tracked(params).map(|(p, _)| slot_name(p)).collect();
    let grads: Vec<&TokenStream> = tracked(params).map(|(_, shape)| &shape.grad).collect();
    let zeros = tracked(params).map(|(p, _)| {
        let (slot, name) = (slot_name(p), &p.name);
        quote!(let mut #slot = ::mica::__private::zeros_like(&#name);)
    });
    let (grad_ty, grad_val) = if grads.len() == 1 {
        (quote!(#(#grads)*), quote!(#(#slots)*))
    } else {
        (quote!((#(#grads),*)), quote!((#(#slots),*)))
    };
    let value = internal("value");
    let doc = format!(
        "The value of [`{}`] and the gradient of its tracked parameters, in parameter order.",
        item.sig.ident
    );
    let attrs = companion_attrs(item);
    let span = item.sig.ident.span();
    let one = quote_spanned!(span=> <#ret_value as ::mica::__private::One>::one());
    // `Option<(T, G)>` / `Result<(T, G), E>`: the value and the gradient
    // once the function gave one
    let (out_ty, question, pair) = match &ret.wrapped {
        Some(w) => {
            let pair = w.wrap(quote!((#value, #grad_val)));
            let out_ty = match w.kind {
                crate::wrapped::Kind::Option => {
                    quote!(::core::option::Option<(#ret_value, #grad_ty)>)
                }
                crate::wrapped::Kind::Result => {
                    let error = &w.error;
                    quote!(::core::result::Result<(#ret_value, #grad_ty), #error>)
                }
            };
            (out_ty, quote!(?), pair)
        }
        None => (
            quote!((#ret_value, #grad_ty)),
            quote!(),
            quote!((#value, #grad_val)),
        ),
    };
    let keeps_primal_alive = primal_use(item);
    let (receiver, self_arg) = (receiver(item, true), self_arg(item));
    let backward = sibling(item, &backward);
    quote! {
        #attrs
        #[doc = #doc]
        #[inline]
        #[allow(dead_code, clippy::too_many_arguments)]
        #vis fn #name #generics (#receiver #(#inputs),*) -> #out_ty #where_clause {
            #keeps_primal_alive
            #(#zeros)*
            let #value = #backward(#self_arg #(#args,)* #one, #(&mut #slots),*)#question;
            #pair
        }
    }
}

#[cfg(test)]
mod tests {
    use proc_macro2::TokenStream;

    /// The attributes written just before `fn NAME`, in the expansion of
    /// the `#[tape]` function `f`.
    fn attributes_of(f: &str, name: &str) -> String {
        let out = crate::expand::tape(TokenStream::new(), f.parse().expect("a function"))
            .to_string()
            .replace(' ', "");
        let at = out
            .find(&format!("fn{name}("))
            .expect("the function is written");
        let start = out[..at].rfind(['{', '}', ';']).unwrap_or(0);
        out[start..at].to_string()
    }

    #[test]
    fn a_small_twins_reverse_is_always_inlined() {
        let f = "fn f(#[tracked] x: &[f64]) -> Vec<f64> { vec![x[0] * x[1], x[1].sin()] }";
        let twin = attributes_of(f, "__mica_seeded_f_backward");
        assert!(twin.contains("#[inline(always)]"), "{twin}");
        // the user's own companions keep `#[inline]`
        let backward = attributes_of(f, "f_backward");
        assert!(!backward.contains("inline(always)"), "{backward}");
        let scalar = "fn f(#[tracked] x: &[f64]) -> f64 { x[0] * x[1] }";
        let plain = attributes_of(scalar, "f_backward");
        assert!(
            plain.contains("#[inline]") && !plain.contains("always"),
            "{plain}"
        );
    }

    #[test]
    fn a_long_twins_reverse_is_not() {
        let lines: String = (0..400)
            .map(|k| format!("let a{k} = x[0] * {k}.0;"))
            .collect();
        let f = format!("fn f(#[tracked] x: &[f64]) -> Vec<f64> {{ {lines} vec![a0, a399] }}");
        let twin = attributes_of(&f, "__mica_seeded_f_backward");
        assert!(
            twin.contains("#[inline]") && !twin.contains("always"),
            "{twin}"
        );
    }
}
