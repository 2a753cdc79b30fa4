//! Which bindings of a function carry a tangent: those a tracked
//! parameter's value reaches, through `let`, assignments, writes into
//! arrays and `Vec`s, and loops over them, found by iterating to a fixed
//! point (a loop can carry a value back to an earlier line).
//!
//! Bindings are known by name: a name that is active anywhere is active
//! everywhere, which only adds tangents that stay zero.

use super::syntax::pattern_names;
use std::collections::HashSet;
use syn::visit::{self, Visit};
use syn::Expr;

/// Methods whose result has no slope (integers, booleans, steps).
const FLAT_METHODS: &[&str] = &[
    "len",
    "is_empty",
    "floor",
    "ceil",
    "round",
    "trunc",
    "signum",
    "round_ties_even",
    "div_euclid",
    "is_nan",
    "is_finite",
    "is_infinite",
    "is_sign_negative",
    "is_sign_positive",
    "partial_cmp",
    "total_cmp",
    "to_bits",
];

/// The active names of a function body whose tracked parameters are
/// `tracked`.
pub fn active(block: &syn::Block, tracked: &HashSet<String>) -> HashSet<String> {
    let mut active = tracked.clone();
    loop {
        let mut pass = Writes {
            active: &active,
            found: HashSet::new(),
        };
        pass.visit_block(block);
        let before = active.len();
        active.extend(pass.found);
        if active.len() == before {
            return active;
        }
    }
}

/// Whether the value of `e` depends on a name of `active`.
pub fn reads(e: &Expr, active: &HashSet<String>) -> bool {
    match e {
        Expr::Path(p) => p
            .path
            .get_ident()
            .is_some_and(|i| active.contains(&i.to_string())),
        Expr::Lit(_) | Expr::Range(_) | Expr::Continue(_) => false,
        Expr::Binary(b) => {
            use syn::BinOp::*;
            match b.op {
                Add(_) | Sub(_) | Mul(_) | Div(_) | Rem(_) => {
                    reads(&b.left, active) || reads(&b.right, active)
                }
                _ => false,
            }
        }
        Expr::Unary(u) => !matches!(u.op, syn::UnOp::Not(_)) && reads(&u.expr, active),
        Expr::Paren(p) => reads(&p.expr, active),
        Expr::Group(g) => reads(&g.expr, active),
        Expr::Reference(r) => reads(&r.expr, active),
        Expr::Field(f) => reads(&f.base, active),
        Expr::Index(i) => reads(&i.expr, active),
        Expr::Cast(c) => is_float_type(&c.ty) && reads(&c.expr, active),
        Expr::Tuple(t) => t.elems.iter().any(|e| reads(e, active)),
        Expr::Array(a) => a.elems.iter().any(|e| reads(e, active)),
        Expr::Repeat(r) => reads(&r.expr, active),
        Expr::MethodCall(m) => {
            let name = m.method.to_string();
            !FLAT_METHODS.contains(&name.as_str())
                && (reads(&m.receiver, active) || m.args.iter().any(|a| reads(a, active)))
        }
        Expr::Call(c) => {
            let detach = match &*c.func {
                Expr::Path(p) => p.path.segments.last().is_some_and(|s| s.ident == "detach"),
                _ => false,
            };
            !detach && c.args.iter().any(|a| reads(a, active))
        }
        Expr::Macro(m) => {
            m.mac.path.is_ident("vec")
                && super::syntax::vec_items(&m.mac)
                    .is_some_and(|(items, _)| items.iter().any(|e| reads(e, active)))
        }
        Expr::Block(b) => block_reads(&b.block, active),
        Expr::Unsafe(b) => block_reads(&b.block, active),
        Expr::If(i) => {
            block_reads(&i.then_branch, active)
                || i.else_branch
                    .as_ref()
                    .is_some_and(|(_, e)| reads(e, active))
        }
        Expr::Match(m) => m.arms.iter().any(|a| reads(&a.body, active)),
        Expr::Loop(l) => breaks_read(l, active),
        // a closure's parameters are its own: a name they bind is not the
        // active binding of that name elsewhere in the function
        // (`order.sort_by(|&a, &b| keys[a].total_cmp(&keys[b]))` beside a
        // recorded `a`)
        Expr::Closure(c) => {
            let own: HashSet<String> = c.inputs.iter().flat_map(pattern_names).collect();
            match own.iter().any(|n| active.contains(n)) {
                true => {
                    let outer: HashSet<String> = active.difference(&own).cloned().collect();
                    mentions(&c.body, &outer)
                }
                false => mentions(c, active),
            }
        }
        // anything else is looked at as a whole: refused later if it
        // holds an active name where forward mode cannot follow it
        other => mentions(other, active),
    }
}

fn block_reads(b: &syn::Block, active: &HashSet<String>) -> bool {
    match b.stmts.last() {
        Some(syn::Stmt::Expr(e, None)) => reads(e, active),
        _ => false,
    }
}

pub(crate) fn breaks_read(l: &syn::ExprLoop, active: &HashSet<String>) -> bool {
    /// The breaks that leave `l` itself: unlabeled ones outside the loops
    /// inside it, and those naming its label anywhere (a labeled break
    /// out of an enclosing loop gives that loop its value, not this one).
    struct Breaks<'a> {
        active: &'a HashSet<String>,
        label: Option<String>,
        inner: usize,
        found: bool,
    }
    impl<'ast> Visit<'ast> for Breaks<'_> {
        fn visit_expr_break(&mut self, b: &'ast syn::ExprBreak) {
            let ours = match &b.label {
                None => self.inner == 0,
                Some(l) => self.label.as_deref() == Some(&l.ident.to_string()),
            };
            if ours && b.expr.as_ref().is_some_and(|e| reads(e, self.active)) {
                self.found = true;
            }
            syn::visit::visit_expr_break(self, b);
        }
        fn visit_expr_loop(&mut self, l: &'ast syn::ExprLoop) {
            self.inner += 1;
            syn::visit::visit_expr_loop(self, l);
            self.inner -= 1;
        }
        fn visit_expr_while(&mut self, w: &'ast syn::ExprWhile) {
            self.inner += 1;
            syn::visit::visit_expr_while(self, w);
            self.inner -= 1;
        }
        fn visit_expr_for_loop(&mut self, f: &'ast syn::ExprForLoop) {
            self.inner += 1;
            syn::visit::visit_expr_for_loop(self, f);
            self.inner -= 1;
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    }
    let mut v = Breaks {
        active,
        label: l.label.as_ref().map(|l| l.name.ident.to_string()),
        inner: 0,
        found: false,
    };
    v.visit_block(&l.body);
    v.found
}

/// Whether `e` names an active binding anywhere inside, other than to ask
/// its length (`w.len()`, `w.is_empty()`: a count, which has no slope; a
/// chain over `w` that reads no element is a loop over `0..w.len()`).
pub fn mentions<T: quote::ToTokens>(e: &T, active: &HashSet<String>) -> bool {
    use proc_macro2::{Delimiter, TokenTree};
    fn walk(tokens: proc_macro2::TokenStream, active: &HashSet<String>) -> bool {
        let tokens: Vec<TokenTree> = tokens.into_iter().collect();
        tokens.iter().enumerate().any(|(k, t)| match t {
            TokenTree::Ident(i) => active.contains(&i.to_string()) && !length_of(&tokens[k + 1..]),
            TokenTree::Group(g) => walk(g.stream(), active),
            _ => false,
        })
    }
    // `.len()` or `.is_empty()`, and not `.len().…` of a longer path
    fn length_of(after: &[TokenTree]) -> bool {
        match after {
            [TokenTree::Punct(dot), TokenTree::Ident(m), TokenTree::Group(args), ..] => {
                dot.as_char() == '.'
                    && (m == "len" || m == "is_empty")
                    && args.delimiter() == Delimiter::Parenthesis
                    && args.stream().is_empty()
            }
            _ => false,
        }
    }
    walk(e.to_token_stream(), active)
}

pub fn is_float_type(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Path(p) => p.path.get_ident().is_some_and(|i| {
            let s = i.to_string();
            // a generic float is a single upper-case name
            s == "f32" || s == "f64" || (s.len() <= 2 && s.starts_with(char::is_uppercase))
        }),
        syn::Type::Paren(p) => is_float_type(&p.elem),
        syn::Type::Group(g) => is_float_type(&g.elem),
        _ => false,
    }
}

/// The binding a place writes to: `x`, `x[i]`, `x.f`, `*x`, `x.0[i]` → `x`.
pub fn root(e: &Expr) -> Option<String> {
    match e {
        Expr::Path(p) => p.path.get_ident().map(|i| i.to_string()),
        Expr::Index(i) => root(&i.expr),
        Expr::Field(f) => root(&f.base),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => root(&u.expr),
        Expr::Paren(p) => root(&p.expr),
        Expr::Reference(r) => root(&r.expr),
        _ => None,
    }
}

/// Methods that write their arguments into the receiver.
pub const WRITING_METHODS: &[&str] = &[
    "push",
    "insert",
    "resize",
    "fill",
    "extend_from_slice",
    "copy_from_slice",
    "clone_from_slice",
];

struct Writes<'a> {
    active: &'a HashSet<String>,
    found: HashSet<String>,
}

impl Writes<'_> {
    fn write(&mut self, name: Option<String>, reads: bool) {
        if let Some(name) = name {
            if reads && !self.active.contains(&name) {
                self.found.insert(name);
            }
        }
    }
}

impl<'ast> Visit<'ast> for Writes<'_> {
    fn visit_local(&mut self, l: &'ast syn::Local) {
        if let Some(init) = &l.init {
            let r = reads(&init.expr, self.active);
            for n in pattern_names(&l.pat) {
                self.write(Some(n), r);
            }
        }
        visit::visit_local(self, l);
    }
    // `if let Some(v) = x.get(i)`: `v` as a `let` binds it
    fn visit_expr_let(&mut self, l: &'ast syn::ExprLet) {
        let r = reads(&l.expr, self.active);
        for n in pattern_names(&l.pat) {
            self.write(Some(n), r);
        }
        visit::visit_expr_let(self, l);
    }
    fn visit_expr_assign(&mut self, a: &'ast syn::ExprAssign) {
        let r = reads(&a.right, self.active);
        self.write(root(&a.left), r);
        visit::visit_expr_assign(self, a);
    }
    fn visit_expr_binary(&mut self, b: &'ast syn::ExprBinary) {
        use syn::BinOp::*;
        if matches!(
            b.op,
            AddAssign(_) | SubAssign(_) | MulAssign(_) | DivAssign(_)
        ) {
            let r = reads(&b.right, self.active);
            self.write(root(&b.left), r);
        }
        visit::visit_expr_binary(self, b);
    }
    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        if WRITING_METHODS.contains(&m.method.to_string().as_str()) {
            let r = m.args.iter().any(|a| reads(a, self.active));
            self.write(root(&m.receiver), r);
        }
        visit::visit_expr_method_call(self, m);
    }
    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        if super::syntax::is_swap(c) {
            let (a, b) = (&c.args[0], &c.args[1]);
            let (ra, rb) = (reads(a, self.active), reads(b, self.active));
            self.write(root(a), rb);
            self.write(root(b), ra);
        }
        visit::visit_expr_call(self, c);
    }
    fn visit_expr_macro(&mut self, m: &'ast syn::ExprMacro) {
        // `vec![…]`'s items are expressions too (a chain rewritten into a
        // block of loops may stand there)
        if m.mac.path.is_ident("vec") {
            if let Some((items, len)) = super::syntax::vec_items(&m.mac) {
                for e in items.iter().chain(&len) {
                    self.visit_expr(e);
                }
            }
        }
    }
    fn visit_expr_for_loop(&mut self, f: &'ast syn::ExprForLoop) {
        if let Some(walk) = super::syntax::Walk::of(&f.pat, &f.expr) {
            for (name, base) in walk.bindings() {
                let r = reads(base, self.active);
                self.write(Some(name), r);
            }
        }
        visit::visit_expr_for_loop(self, f);
    }
}
