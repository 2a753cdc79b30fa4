//! The procedural macros of Mica. Use them through the `mica` crate, whose
//! documentation describes the surface.
//!
//! Stages, one file each: `parse` reads the function and its marks,
//! `lower` turns recorded code into a forward sweep plus a compile-time
//! record (and holds the walls that concern recorded values), `reverse`
//! writes the reverse sweep from that record, `rules` is the derivative
//! rule table, `function_form` and `window_form` put the pieces together,
//! `expand` is the entry point and the fallback.

extern crate proc_macro;

mod errors;
mod expand;
mod function_form;
mod lower;
mod names;
#[cfg(test)]
mod no_panic;
mod parse;
mod returns;
mod reverse;
mod rules;
mod window_form;

use proc_macro::TokenStream;

/// Differentiates a function at compile time. See the `mica` crate.
#[proc_macro_attribute]
pub fn tape(args: TokenStream, input: TokenStream) -> TokenStream {
    expand::tape(args.into(), input.into()).into()
}

/// Marks a knob. Has meaning only inside a `#[tape]` function, which removes
/// it; anywhere else it is an error.
#[proc_macro_attribute]
pub fn tracked(args: TokenStream, input: TokenStream) -> TokenStream {
    expand::tracked(args.into(), input.into()).into()
}
