//! The declarations the reverse sweep writes where a region's reverse
//! starts: accumulators and adjoint buffers (`reverse.rs`).

use proc_macro2::{Ident, TokenStream};
use quote::quote;

/// `let mut acc = 0;` for an accumulator of the value stored in `store`.
pub(super) fn accumulator_decl(acc: &Ident, store: &Ident) -> TokenStream {
    quote!(let mut #acc = ::mica::__private::zeros_like(&#store);)
}

/// The zeroed adjoint buffer `acc` of an array of shape `shape`: on the
/// stack, up to `inline` elements, for a `vec!` of a constant length.
pub(super) fn buffer_decl(
    acc: &TokenStream,
    shape: &Ident,
    inline: Option<&TokenStream>,
) -> TokenStream {
    match inline {
        // the stack buffer, then the slice of it the reverse indexes
        Some(capacity) => quote! {
            let mut #acc = ::mica::__private::InlineZeros::<_, #capacity>::new(#shape);
            #[allow(unused_mut)]
            let mut #acc = #acc.slice();
        },
        None => quote!(#[allow(unused_mut)] let mut #acc = ::mica::__private::zeros_of(#shape);),
    }
}
