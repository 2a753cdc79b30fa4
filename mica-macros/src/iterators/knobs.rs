//! The names recorded where a body starts.

use std::collections::HashSet;
use syn::ItemFn;

/// The names recorded from the start: tracked parameters and `#[tracked]
/// let` knobs.
pub fn knobs(item: &ItemFn) -> HashSet<String> {
    let mut names = HashSet::new();
    for input in &item.sig.inputs {
        match input {
            syn::FnArg::Typed(t) if t.attrs.iter().any(crate::parse::is_tracked) => {
                for n in crate::facts::places::pattern_names(&t.pat) {
                    names.insert(n.to_string());
                }
            }
            // `#[tracked] &self` (a method's `self.f(x).iter()`)
            syn::FnArg::Receiver(r) if r.attrs.iter().any(crate::parse::is_tracked) => {
                names.insert("self".to_string());
            }
            _ => {}
        }
    }
    let mut lets = TrackedLets(&mut names);
    syn::visit::Visit::visit_block(&mut lets, &item.block);
    names
}

struct TrackedLets<'a>(&'a mut HashSet<String>);

impl<'ast> syn::visit::Visit<'ast> for TrackedLets<'_> {
    fn visit_local(&mut self, local: &'ast syn::Local) {
        if local.attrs.iter().any(crate::parse::is_tracked) {
            for n in crate::facts::places::pattern_names(&local.pat) {
                self.0.insert(n.to_string());
            }
        }
        syn::visit::visit_local(self, local);
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}
