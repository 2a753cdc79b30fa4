//! Accumulated, spanned errors: every wall a function breaks is reported in
//! one compile.

use proc_macro2::TokenStream;
use quote::ToTokens;
use std::fmt::Display;

#[derive(Default)]
pub struct Errors {
    list: Vec<syn::Error>,
}

impl Extend<syn::Error> for Errors {
    fn extend<I: IntoIterator<Item = syn::Error>>(&mut self, errors: I) {
        for error in errors {
            self.push(error);
        }
    }
}

impl Errors {
    /// Keeps an error, once: the same message at the same place (a short
    /// loop written out once per iteration, `lower/unroll.rs`) is said once.
    pub fn push(&mut self, error: syn::Error) {
        let key = |e: &syn::Error| -> Vec<String> {
            e.clone()
                .into_iter()
                .map(|e| format!("{:?} {e}", e.span()))
                .collect()
        };
        let new = key(&error);
        if !self.list.iter().any(|e| key(e) == new) {
            self.list.push(error);
        }
    }

    pub fn at<T: ToTokens, M: Display>(&mut self, tokens: T, message: M) {
        self.push(syn::Error::new_spanned(tokens, message));
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    pub fn len(&self) -> usize {
        self.list.len()
    }

    /// Forgets the errors after the first `len` (found by a look that is
    /// done again).
    pub fn truncate(&mut self, len: usize) {
        self.list.truncate(len);
    }

    /// Keeps the error of a failed step and goes on.
    pub fn ok<T>(&mut self, result: syn::Result<T>) -> Option<T> {
        match result {
            Ok(value) => Some(value),
            Err(error) => {
                self.push(error);
                None
            }
        }
    }

    /// All errors as one `syn::Error`, if any.
    pub fn into_result(self) -> syn::Result<()> {
        let mut list = self.list.into_iter();
        match list.next() {
            None => Ok(()),
            Some(mut first) => {
                for error in list {
                    first.combine(error);
                }
                Err(first)
            }
        }
    }

    /// The first error's message.
    pub fn first_message(&self) -> Option<String> {
        self.list.first().map(|e| e.to_string())
    }

    pub fn to_compile_errors(&self) -> TokenStream {
        self.list.iter().map(syn::Error::to_compile_error).collect()
    }
}
