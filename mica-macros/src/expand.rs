//! Entry points, on `proc_macro2` so every stage is testable in a plain
//! `#[test]`. Errors never stop the expansion: the user's function (marks
//! removed) and its companions are always emitted next to the errors, so a
//! mistake does not cascade into "cannot find function `loss_grad`".

use crate::errors::Errors;
use crate::parse;
use proc_macro2::TokenStream;
use quote::quote;
use syn::{FnArg, ItemFn};

/// `#[tape]` / `#[tape(custom)]` on a function; `#[tape]` on an inline
/// module or an impl block (the block form, `module_form.rs`).
pub fn tape(args: TokenStream, input: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let args = errors.ok(parse::parse_args(args)).unwrap_or_default();
    let item: ItemFn = match syn::parse2(input.clone()) {
        Ok(item) => item,
        Err(_) => {
            if let Some(out) = crate::module_form::expand(&args, &input, &mut errors) {
                let mut all = errors.to_compile_errors();
                all.extend([out]);
                return all;
            }
            let at = first_token(&input);
            let mut out_item = input;
            let message = match syn::parse2::<syn::ItemImpl>(out_item.clone()) {
                Ok(mut block) => {
                    // the methods' marks go, so nothing else is said
                    for item in block.items.iter_mut() {
                        if let syn::ImplItem::Fn(f) = item {
                            for input in f.sig.inputs.iter_mut() {
                                match input {
                                    FnArg::Typed(t) => drop(parse::take_tracked(&mut t.attrs)),
                                    FnArg::Receiver(r) => drop(parse::take_tracked(&mut r.attrs)),
                                }
                            }
                        }
                    }
                    out_item = quote!(#block);
                    "`#[tape]` on an `impl` block is not supported by this version of Mica; write the methods' math as functions of a `#[tape] mod` (helpers need no marks there) and call them from the methods"
                }
                Err(_) => "`#[tape]` goes on a function or an inline `mod`",
            };
            errors.at(at, message);
            let mut out = errors.to_compile_errors();
            out.extend([out_item]);
            return out;
        }
    };
    let body = crate::dispatch::function(&args, item, None, &mut errors);
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

/// For unit tests: the `_backward` of the `#[tape]` function `f` (and what
/// follows it in the expansion), as text.
#[cfg(test)]
pub(crate) fn backward_of(f: &str) -> String {
    let out = tape(TokenStream::new(), f.parse().expect("a function")).to_string();
    let start = out.find("fn f_backward").expect("a backward function");
    out[start..].to_string()
}
