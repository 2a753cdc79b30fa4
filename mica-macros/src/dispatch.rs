//! One `#[tape]` function: which form it is written in (tracked
//! parameters: the function form; a `tape!` window: the window form), the
//! iterator chains and everyday spellings rewritten first (`iterators.rs`,
//! `spellings.rs`), and wall 9.

use crate::errors::Errors;
use crate::parse::{self, has_tracked};
use crate::windows::{window_in, Unmark};
use crate::{function_form, window_form};
use proc_macro2::TokenStream;
use syn::visit_mut::VisitMut;
use syn::ItemFn;

/// One `#[tape]` function: its form's expansion. `primal`, when given, is
/// the body the function keeps as the user's own (a block's function whose
/// companions see its helpers inlined).
pub fn function(
    args: &parse::Args,
    item: ItemFn,
    primal: Option<syn::Block>,
    errors: &mut Errors,
) -> TokenStream {
    // `#[tape(tangent, jacobian, hvp)]`: forward mode, and the reverse of
    // the directional derivative (a `#[tape]` function of its own)
    // (of a function tracking a struct: the forward mode of its fields)
    let (higher, dir) = crate::structs::higher::companions(args, &item, errors)
        .unwrap_or_else(|| crate::tangent::companions(args, &item, errors));
    let dir = dir.map(|d| {
        let dir_args = parse::Args {
            outer: args.outer.clone(),
            in_impl: args.in_impl,
            directional: true,
            ..Default::default()
        };
        // its errors are this function's `hvp`'s: one, at the argument
        let mut own = Errors::default();
        let out = function(&dir_args, d, None, &mut own);
        if let (Some(message), Some(at)) = (own.first_message(), args.higher.hvp) {
            errors.push(syn::Error::new(
                at,
                format!("`hvp` cannot be written for this function yet: its directional derivative is refused by the reverse ({message})"),
            ));
        }
        out
    });
    // an array, tuple or `Vec` out: `_backward` is the reverse of the
    // output's dot product with the seed (`outputs.rs`)
    if crate::outputs::is_vector(&item) && has_tracked(&item) && !args.custom {
        if let Some((twin, backward)) = crate::outputs::seeded(&item, errors) {
            let twin_args = parse::Args {
                outer: args.outer.clone(),
                in_impl: args.in_impl,
                plain: args.plain,
                ..Default::default()
            };
            let twin = function(&twin_args, twin, None, errors);
            let mut item = item;
            let _ = parse::params(&mut item.sig, &mut Errors::default());
            if let Some(block) = primal {
                *item.block = block;
            }
            return quote::quote!(#item #backward #twin #higher #dir);
        }
    }
    let out = function_of(args, item, primal, errors);
    quote::quote!(#out #higher #dir)
}

fn function_of(
    args: &parse::Args,
    item: ItemFn,
    primal: Option<syn::Block>,
    errors: &mut Errors,
) -> TokenStream {
    check_signature(&item, errors);
    let mut item = item;
    // `for layer in &m.layers`: by index (in a block, done before its
    // helpers were inlined)
    let outer: Vec<String> = args.outer.iter().map(|(t, _)| t.to_string()).collect();
    crate::structs::each_loops(&mut item, &outer);
    // a tracked struct: the function of its fields
    if let Some(split) = crate::structs::split(args, &item, primal.as_ref(), errors) {
        let fields = function(&split.fields_args, split.fields, None, errors);
        let outer = match split.method {
            Some(method) => method,
            None => function_form::expand(&split.outer_args, item, primal, errors),
        };
        let backward = split.backward;
        return quote::quote!(#fields #outer #backward);
    }
    // a window's `#[tracked] let` of a struct: knobs of its fields
    if !has_tracked(&item) {
        crate::structs::window_knobs(&mut item, &outer, errors);
    }
    let written = (*item.block).clone();
    let views = crate::views::rewrite(&mut item.block, errors);
    let closures = crate::closures::rewrite(&mut item.block, errors) || views;
    let knobs = crate::iterators::knobs(&item);
    let chains = crate::iterators::rewrite(&mut item, knobs, &args.outer, errors) || closures;
    // named indices read through their definitions, for the reverse to
    // read them again (not in the plain adjoint, the shortcuts' oracle)
    let named = has_tracked(&item) && args.plain.is_none() && crate::indices::inline(&mut item);
    let primal = match crate::spellings::rewrite(&mut item) || chains || named {
        true => primal.or(Some(written)),
        false => primal,
    };
    if let (true, Some(plain)) = (args.custom, args.plain) {
        errors.push(syn::Error::new(
            plain,
            "a `#[tape(custom)]` function's adjoint is the hand-written `_backward`; `plain` has nothing to switch off there, remove it",
        ));
    }
    if has_tracked(&item) {
        if let Some(at) = window_in(&item.block) {
            errors.at(
                at,
                "a `#[tape]` function with tracked parameters is itself a window and holds no `tape!`",
            );
            // keep the window's lines, drop the marks: no cascade of errors
            Unmark.visit_block_mut(&mut item.block);
        }
        function_form::expand(args, item, primal, errors)
    } else {
        if args.custom {
            errors.at(&item.sig.ident, "`#[tape(custom)]` needs `#[tracked]` parameters: they say which slots the hand-written `_backward` fills");
        } else if window_in(&item.block).is_none() {
            errors.at(
                &item.sig.ident,
                "this `#[tape]` function records nothing; mark a parameter `#[tracked]` or open a `tape!` window in its body; a helper that other `#[tape]` functions call can instead go with them in a `#[tape] mod`, where helpers need no marks",
            );
        }
        window_form::expand(item, &args.outer, errors)
    }
}

/// Wall 9: what kind of function `#[tape]` goes on.
fn check_signature(item: &ItemFn, errors: &mut Errors) {
    let sig = &item.sig;
    if let Some(token) = &sig.asyncness {
        errors.at(token, "`#[tape]` cannot go on an `async` function");
    }
    if let Some(token) = &sig.constness {
        errors.at(token, "`#[tape]` cannot go on a `const` function");
    }
    if let Some(abi) = &sig.abi {
        errors.at(abi, "`#[tape]` cannot go on an `extern` function");
    }
}
