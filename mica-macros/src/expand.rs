//! Entry points, on `proc_macro2` so every stage is testable in a plain
//! `#[test]`. Errors never stop the expansion: the user's function (marks
//! removed) and its companions are always emitted next to the errors, so a
//! mistake does not cascade into "cannot find function `loss_grad`".

use crate::errors::Errors;
use crate::parse;
use proc_macro2::TokenStream;
use quote::quote;
use syn::ItemFn;

/// `#[tape]` / `#[tape(custom)]` on a function; `#[tape]` on an inline
/// module or an impl block (the block form, `module_form.rs`).
pub fn tape(args: TokenStream, input: TokenStream) -> TokenStream {
    tape_at(args, input, false)
}

/// [`tape`]; `inside`: the expansion stands inside the module it expands
/// (a module's second pass), and gives the module's items without their
/// `use`s, which the first pass put beside it.
fn tape_at(args: TokenStream, input: TokenStream, inside: bool) -> TokenStream {
    // the structs of knobs the input defines are their own tables
    let local = crate::structs::local(&input);
    crate::structs::with_local(local, || tape_known(args, input, inside))
}

/// [`tape_at`], with the tables of the structs the input defines known.
fn tape_known(args: TokenStream, input: TokenStream, inside: bool) -> TokenStream {
    // a tracked struct whose field table is not known yet: ask its derive
    if let Some(want) = crate::structs::wanted(&input).first() {
        return crate::structs::ask(want, &args, &input, inside);
    }
    // a long block: its `let`s without a scope each (`flatten.rs`)
    if crate::flatten::needed(&input) {
        return crate::flatten::flatten(tape_of(args, input, inside));
    }
    tape_of(args, input, inside)
}

fn tape_of(args: TokenStream, input: TokenStream, inside: bool) -> TokenStream {
    if inside {
        return crate::structs::contents(tape(args, input.clone()), &input);
    }
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
            let out_item = input;
            let message = "`#[tape]` goes on a function, an inline `mod` or an `impl` block";
            errors.at(at, message);
            let mut out = errors.to_compile_errors();
            out.extend([out_item]);
            return out;
        }
    };
    // a method of an `impl` without `#[tape]`: the type parameters its
    // knobs name are the `impl`'s, floats by the look of their names
    let mut args = args;
    if item.sig.receiver().is_some() && args.outer.is_empty() {
        args.outer = crate::generics::impl_floats(&item);
    }
    let body = crate::dispatch::function(&args, item, None, &mut errors);
    let mut out = errors.to_compile_errors();
    out.extend([body]);
    out
}

/// `tape_with! { [struct tables…] (args) item }`: `#[tape]` again, with
/// the field tables of the structs its tracked parameters name.
pub fn tape_with(input: TokenStream) -> TokenStream {
    let (tables, args, inside, item) = crate::structs::split_input(input);
    crate::structs::with_tables(tables, || tape_at(args, item, inside))
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
