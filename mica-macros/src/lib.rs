//! The procedural macros of Mica. Use them through the `mica` crate, whose
//! documentation describes the surface.
//!
//! One file per stage, in the order data flows (`ARCHITECTURE.md` at the
//! repository's root says what passes between them and what decides each
//! shortcut):
//!
//! | file | stage |
//! | --- | --- |
//! | `expand.rs` | entry points, the fallback expansion, wall 9 |
//! | `parse.rs` | arguments (`custom`, `plain`), parameters, `#[tracked]` marks, shapes (wall 7) |
//! | `returns.rs` | `return` anywhere in the function form, rewritten for the adjoint |
//! | `windows.rs` | finding `tape!` windows, and removing them from a body that holds none |
//! | `facts/syntax.rs` | syntactic questions several stages ask (parentheses, shifts of a loop variable, literal ranks) |
//! | `facts/loops.rs` | a loop's counter and changed names; subscripts as linear forms |
//! | `lower.rs` | recorded code → forward sweep + compile-time record |
//! | `lower/flow.rs` | arrays, loops, branches |
//! | `lower/walls.rs` | walls 3, 4 and 8 inside a recorded region |
//! | `analyze/dependence.rs` | dependences between a loop's iterations through arrays |
//! | `reverse.rs` | the reverse sweep from the record |
//! | `reverse/fuse.rs` | loops whose reverse runs inside their forward sweep |
//! | `rules.rs` | the derivative rule table |
//! | `function_form.rs` | `_grad`, `_backward` and the call adapter |
//! | `window_form.rs` | knobs, windows, `backward!`, `gradient!` (walls 1, 2, 5, 6, 7) |
//! | `names.rs`, `errors.rs` | hygienic names, accumulated errors |

extern crate proc_macro;

mod analyze;
mod errors;
mod expand;
#[cfg(test)]
mod expansion_time;
mod facts;
mod function_form;
#[cfg(test)]
mod house;
mod lower;
mod names;
#[cfg(test)]
mod no_panic;
mod parse;
mod record;
mod returns;
mod reverse;
mod rules;
mod window_form;
mod windows;

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
