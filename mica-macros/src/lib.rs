//! The procedural macros of Mica. Use them through the `mica` crate, whose
//! documentation describes the surface.
//!
//! The stages, in the order data flows (`ARCHITECTURE.md` at the
//! repository's root says what passes between them and what decides each
//! shortcut). The arrows between stages form no circle, no two files import
//! each other in a circle, and no file is over 600 lines outside its unit
//! tests (`house.rs` tests all three); a stage's own files share its
//! builder.
//!
//! | stage | files | what it does |
//! | --- | --- | --- |
//! | entry | `expand.rs`, `dispatch.rs`, `module_form.rs`, `outside.rs`, `structs.rs`; `structs/tables.rs`, `leaves.rs`, `rewrite.rs`, `window.rs`, `knob_derive.rs` | entry points, the fallback expansion; which form a function is written in, wall 9; the block form (`#[tape] mod`, `#[tape] impl`): entry points and helpers; Mica's message for a block's call to a function outside it that is not `#[tape]`; tracked structs: their field tables asked of their derive, their leaves, the function of their fields, a window's struct knobs, and `#[derive(Knob)]` itself |
//! | front | `closures.rs`, `iterators.rs`; `iterators/chain.rs`, `consumers.rs`, `spellings.rs`, `helpers.rs`; `helpers/subst.rs`, `parse.rs`, `exits.rs`, `wrapped.rs`, `returns.rs`, `windows.rs` | closures bound by `let` written where they are called; iterator chains written as the loops they are; path spellings of the float methods and `sin_cos` as method calls; a block's helpers written where they are called (borrowed places substituted, clashing names renamed, an early `return` a labelled `loop`); arguments (`custom`, `plain`), parameters and marks, shapes (wall 7); loops' `break` and `continue` (labelled, with values) rewritten as flags; `Option`/`Result` values unwrapped and `None`/`Err` made early exits of the adjoint; `return` rewritten; finding windows |
//! | facts | `facts/syntax.rs`, `facts/places.rs`, `facts/activity.rs`, `facts/loops.rs`, `facts/stability.rs` | read from syntax before the record: parentheses, shifts, literal ranks; the name at the root of a place, the names patterns bind and lines mention, array literals; which expressions would be recorded; a loop's counter, changed names and subscripts as linear forms; names that hold one value wherever the reverse reads them |
//! | record | `record.rs` | the record's types: operations, loops, branches, array writes |
//! | lower | `lower.rs`; `lower/stmts.rs`, `exprs.rs`, `calls.rs`, `arrays.rs`, `whole.rs`, `loops.rs`, `for_loops.rs`, `branches.rs`, `activity.rs`, `placeholders.rs`, `fast.rs`, `inline.rs`, `walls.rs` | recorded code → forward sweep + record (whole arrays: literals, copies, fills, swaps); walls 3, 4 and 8 |
//! | analyses | `analyze/dependence.rs`, `analyze/carry.rs` | dependences between a loop's iterations through arrays; the neighbouring elements whose slopes may wait in registers |
//! | plan | `plan.rs`; `plan/fuse.rs`, `access.rs`, `slices.rs`, `reads.rs` | every loop's verdicts (fused, walked forward, sliced): yes with what the shortcut needs, or no with the reason; all no for `#[tape(plain)]` |
//! | reverse | `reverse.rs`; `reverse/ops.rs`, `walk.rs`, `fuse.rs`, `forward.rs`, `slices.rs`, `window.rs`, `trig.rs` | the reverse sweep from the record and the plan; neighbours' slopes in registers; a sine's slope read from the cosine of the same value, and the other way round |
//! | forms | `function_form.rs`, `window_form.rs`; `window_form/macros.rs` | `_grad`, `_backward` and the call adapter; knobs, windows, `backward!`, `gradient!` (walls 1, 2, 5, 6, 7) |
//! | support | `rules.rs`, `names.rs`, `errors.rs` | the derivative rule table, hygienic names, accumulated errors |

extern crate proc_macro;

mod analyze;
mod closures;
mod dispatch;
mod errors;
mod exits;
mod expand;
#[cfg(test)]
mod expansion_time;
mod facts;
mod flatten;
mod function_form;
mod generics;
mod helpers;
#[cfg(test)]
mod house;
mod indices;
mod iterators;
mod knob_derive;
mod lower;
mod module_form;
mod names;
#[cfg(test)]
mod no_panic;
mod outputs;
mod outside;
mod parse;
mod plan;
mod record;
mod returns;
mod reverse;
mod rules;
mod spellings;
mod structs;
mod tangent;
mod views;
mod window_form;
mod windows;
mod wrapped;

use proc_macro::TokenStream;

/// Differentiates a function at compile time. See the `mica` crate.
#[proc_macro_attribute]
pub fn tape(args: TokenStream, input: TokenStream) -> TokenStream {
    expand::tape(args.into(), input.into()).into()
}

/// `#[derive(mica::Knob)]`: a struct of knobs. See the `mica` crate.
#[proc_macro_derive(Knob, attributes(knob))]
pub fn derive_knob(input: TokenStream) -> TokenStream {
    knob_derive::derive(input.into()).into()
}

/// `#[tape]` again with the field tables of tracked structs. Not public
/// API: the macro `#[derive(Knob)]` writes beside a struct calls it.
#[doc(hidden)]
#[proc_macro]
pub fn tape_with(input: TokenStream) -> TokenStream {
    expand::tape_with(input.into()).into()
}

/// Marks a knob. Has meaning only inside a `#[tape]` function, which removes
/// it; anywhere else it is an error.
#[proc_macro_attribute]
pub fn tracked(args: TokenStream, input: TokenStream) -> TokenStream {
    expand::tracked(args.into(), input.into()).into()
}
