//! Finding `tape!` windows in a body, and removing them from one that
//! should hold none.

use proc_macro2::{TokenStream, TokenTree};
use syn::visit_mut::VisitMut;

/// The `tape` of the first `tape!` invocation in a function body: its
/// macro calls, and any inside their arguments (a walk over the syntax
/// tree; the body is not turned back into tokens).
pub fn window_in(block: &syn::Block) -> Option<proc_macro2::Ident> {
    #[derive(Default)]
    struct Find(Option<proc_macro2::Ident>);
    impl<'ast> syn::visit::Visit<'ast> for Find {
        fn visit_macro(&mut self, mac: &'ast syn::Macro) {
            if self.0.is_some() {
                return;
            }
            self.0 = match mac.path.segments.last() {
                Some(last) if last.ident == "tape" => Some(last.ident.clone()),
                _ => find_window(mac.tokens.clone()),
            };
        }
    }
    let mut find = Find::default();
    syn::visit::Visit::visit_block(&mut find, block);
    find.0
}

/// The `tape` of the first `tape!` invocation in the tokens.
pub fn find_window(tokens: TokenStream) -> Option<proc_macro2::Ident> {
    let trees: Vec<TokenTree> = tokens.into_iter().collect();
    trees.iter().enumerate().find_map(|(i, tt)| match tt {
        TokenTree::Ident(ident)
            if ident == "tape"
                && matches!(trees.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == '!') =>
        {
            Some(ident.clone())
        }
        TokenTree::Group(g) => find_window(g.stream()),
        _ => None,
    })
}

/// Replaces `tape! { … }` by its statements and drops `backward!`, for the
/// fallback expansion of a function that should hold no window.
pub struct Unmark;

/// [`Unmark`] on a nested item that holds a window.
pub fn unmark_item(item: &mut syn::Item) {
    Unmark.visit_item_mut(item);
}

impl syn::visit_mut::VisitMut for Unmark {
    fn visit_block_mut(&mut self, block: &mut syn::Block) {
        let mut stmts = Vec::new();
        for stmt in std::mem::take(&mut block.stmts) {
            let mac = match &stmt {
                syn::Stmt::Macro(m) => Some(&m.mac),
                syn::Stmt::Expr(syn::Expr::Macro(m), _) => Some(&m.mac),
                _ => None,
            };
            let name = mac
                .and_then(|m| m.path.segments.last())
                .map(|s| s.ident.to_string());
            match (name.as_deref(), mac) {
                (Some("tape"), Some(mac)) => {
                    if let Ok(inner) = mac.parse_body_with(syn::Block::parse_within) {
                        stmts.extend(inner);
                    }
                }
                (Some("backward"), _) => {}
                _ => stmts.push(stmt),
            }
        }
        block.stmts = stmts;
        syn::visit_mut::visit_block_mut(self, block);
    }
}
