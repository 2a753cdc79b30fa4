//! Entry points, on `proc_macro2` so every stage is testable in a plain
//! `#[test]`. Errors never stop the expansion: the user's function (marks
//! removed) and its companions are always emitted next to the errors, so a
//! mistake does not cascade into "cannot find function `loss_grad`".

use crate::errors::Errors;
use crate::parse::{self, is_tracked};
use crate::windows::{window_in, Unmark};
use crate::{function_form, window_form};
use proc_macro2::TokenStream;
use quote::quote;
use syn::visit_mut::VisitMut;
use syn::{FnArg, ItemFn};

/// `#[tape]` / `#[tape(custom)]`.
pub fn tape(args: TokenStream, input: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let args = errors.ok(parse::parse_args(args)).unwrap_or_default();
    let item: ItemFn = match syn::parse2(input.clone()) {
        Ok(item) => item,
        Err(_) => {
            let at = first_token(&input);
            errors.at(
                at,
                "`#[tape]` goes on a free function; the window form needs a body to rewrite, the function form tracked parameters",
            );
            let mut out = errors.to_compile_errors();
            out.extend([input]);
            return out;
        }
    };
    check_signature(&item, &mut errors);
    if let (true, Some(plain)) = (args.custom, args.plain) {
        errors.push(syn::Error::new(
            plain,
            "a `#[tape(custom)]` function's adjoint is the hand-written `_backward`; `plain` has nothing to switch off there, remove it",
        ));
    }
    let has_tracked = item.sig.inputs.iter().any(|input| match input {
        FnArg::Typed(t) => t.attrs.iter().any(is_tracked),
        FnArg::Receiver(r) => r.attrs.iter().any(is_tracked),
    });
    let body = if has_tracked {
        let mut item = item;
        if let Some(at) = window_in(&item.block) {
            errors.at(
                at,
                "a `#[tape]` function with tracked parameters is itself a window and holds no `tape!`",
            );
            // keep the window's lines, drop the marks: no cascade of errors
            Unmark.visit_block_mut(&mut item.block);
        }
        function_form::expand(&args, item, &mut errors)
    } else {
        if args.custom {
            errors.at(&item.sig.ident, "`#[tape(custom)]` needs `#[tracked]` parameters: they say which slots the hand-written `_backward` fills");
        } else if window_in(&item.block).is_none() {
            errors.at(
                &item.sig.ident,
                "this `#[tape]` function records nothing; mark a parameter `#[tracked]` or open a `tape!` window in its body",
            );
        }
        window_form::expand(item, &mut errors)
    };
    let mut out = errors.to_compile_errors();
    out.extend([body]);
    out
}

/// `#[tracked]` outside a `#[tape]` function.
pub fn tracked(_args: TokenStream, input: TokenStream) -> TokenStream {
    let at = first_token(&input);
    let error = syn::Error::new_spanned(
        at,
        "`#[tracked]` marks a knob: a `let` or a parameter inside a `#[tape]` function",
    )
    .to_compile_error();
    quote!(#error #input)
}

/// The first token of an item: where an error about the item as a whole
/// points.
fn first_token(input: &TokenStream) -> TokenStream {
    input
        .clone()
        .into_iter()
        .next()
        .map(TokenStream::from)
        .unwrap_or_default()
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

/// For unit tests: the `_backward` of the `#[tape]` function `f` (and what
/// follows it in the expansion), as text.
#[cfg(test)]
pub(crate) fn backward_of(f: &str) -> String {
    let out = tape(TokenStream::new(), f.parse().expect("a function")).to_string();
    let start = out.find("fn f_backward").expect("a backward function");
    out[start..].to_string()
}
