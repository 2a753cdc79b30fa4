//! Syntactic questions several stages ask, answered in one place.

use quote::{quote, ToTokens};
use syn::{BinOp, Expr};

/// An index that is the loop variable shifted by a loop-invariant amount.
pub enum Shift<'e> {
    /// `var`
    None,
    /// `var + e` or `e + var`
    Add(&'e Expr),
    /// `var - e`
    Sub(&'e Expr),
}

/// `expr` as a [`Shift`] of `var`, if it is one.
pub fn shift<'e>(expr: &'e Expr, var: &str) -> Option<Shift<'e>> {
    let is_var = |e: &Expr| matches!(strip(e), Expr::Path(p) if p.path.is_ident(var));
    let free = |e: &Expr| !crate::names::mentions_ident(&e.to_token_stream(), var);
    match strip(expr) {
        Expr::Path(p) if p.path.is_ident(var) => Some(Shift::None),
        Expr::Binary(b) => match b.op {
            BinOp::Add(_) if is_var(&b.left) && free(&b.right) => Some(Shift::Add(&b.right)),
            BinOp::Add(_) if is_var(&b.right) && free(&b.left) => Some(Shift::Add(&b.left)),
            BinOp::Sub(_) if is_var(&b.left) && free(&b.right) => Some(Shift::Sub(&b.right)),
            _ => None,
        },
        _ => None,
    }
}

/// `expr` inside its parentheses and invisible groups (`Expr::Group`, as a
/// `macro_rules!` fragment leaves it).
pub fn strip(expr: &Expr) -> &Expr {
    match expr {
        Expr::Paren(p) => strip(&p.expr),
        Expr::Group(g) => strip(&g.expr),
        other => other,
    }
}

/// `expr` inside its parentheses only: unlike [`strip`], an invisible group
/// is kept as it stands (the lowering's operands, subscripts and loop
/// sources are read this way).
pub fn strip_parens(expr: &Expr) -> &Expr {
    match expr {
        Expr::Paren(p) => strip_parens(&p.expr),
        other => other,
    }
}

/// How many indices reach an element of a knob's initial value, read from
/// its syntax: `[[0.0; 3]; 2]` is 2, `vec![0.0; n]` is 1, `0.5` is 0.
pub fn literal_rank(expr: &Expr) -> usize {
    match expr {
        Expr::Array(a) => 1 + a.elems.first().map_or(0, literal_rank),
        Expr::Repeat(r) => 1 + literal_rank(&r.expr),
        Expr::Paren(p) => literal_rank(&p.expr),
        Expr::Macro(m) if m.mac.path.is_ident("vec") => {
            let tokens = &m.mac.tokens;
            syn::parse2::<Expr>(quote!([#tokens])).map_or(1, |e| literal_rank(&e))
        }
        _ => 0,
    }
}

/// What `e` copies, if it is a copy of a value: `w` of `w.clone()`,
/// `w.to_vec()`, `w.to_owned()`.
pub fn copied(e: &Expr) -> Option<&Expr> {
    match e {
        Expr::MethodCall(m)
            if matches!(
                m.method.to_string().as_str(),
                "clone" | "to_vec" | "to_owned"
            ) && m.args.is_empty() =>
        {
            Some(&m.receiver)
        }
        _ => None,
    }
}

/// Whether `e` is a call to `detach` (`mica::detach(…)`, `detach(…)`).
pub fn is_detach(e: &Expr) -> bool {
    matches!(e, Expr::Call(c) if matches!(&*c.func, Expr::Path(p)
        if p.path.segments.last().is_some_and(|s| s.ident == "detach")))
}

/// Whether `op` is a compound assignment (`+=`, `<<=`, …).
pub fn is_compound(op: &BinOp) -> bool {
    use BinOp::*;
    matches!(
        op,
        AddAssign(_)
            | SubAssign(_)
            | MulAssign(_)
            | DivAssign(_)
            | RemAssign(_)
            | BitXorAssign(_)
            | BitAndAssign(_)
            | BitOrAssign(_)
            | ShlAssign(_)
            | ShrAssign(_)
    )
}

/// Whether an expression is a literal (through parentheses).
pub fn is_literal(expr: &Expr) -> bool {
    match expr {
        Expr::Lit(_) => true,
        Expr::Paren(p) => is_literal(&p.expr),
        Expr::Group(g) => is_literal(&g.expr),
        _ => false,
    }
}

/// An integer literal's value (through parentheses).
pub fn int_literal(e: &Expr) -> Option<i128> {
    match strip(e) {
        Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse::<i128>().ok(),
        _ => None,
    }
}

/// An unsuffixed integer literal.
pub fn unsuffixed(v: i128) -> proc_macro2::TokenStream {
    proc_macro2::Literal::i128_unsuffixed(v).into_token_stream()
}

/// An expression's tokens, parenthesised unless it is one token (an
/// operator may stand next to them).
pub fn term(e: &Expr) -> proc_macro2::TokenStream {
    let tokens = e.to_token_stream();
    if tokens.clone().into_iter().count() == 1 {
        tokens
    } else {
        quote!((#tokens))
    }
}

/// `vec![x; n]` and `vec![a, b, …]`: `f` on the element expressions, the
/// macro's tokens written again from them (any other macro is left alone).
pub fn vec_elements_mut(m: &mut syn::Macro, mut f: impl FnMut(&mut Expr)) {
    if m.path.segments.last().is_none_or(|s| s.ident != "vec") {
        return;
    }
    let tokens = m.tokens.clone();
    if let Ok(mut literal) = syn::parse2::<syn::ExprRepeat>(quote::quote!([#tokens])) {
        f(&mut literal.expr);
        let (value, count) = (&literal.expr, &literal.len);
        m.tokens = quote::quote!(#value; #count);
    } else if let Ok(mut literal) = syn::parse2::<syn::ExprArray>(quote::quote!([#tokens])) {
        for e in literal.elems.iter_mut() {
            f(e);
        }
        let elems = &literal.elems;
        m.tokens = quote::quote!(#elems);
    }
}

/// What a body's macros hold that Mica reads: the lines of a `tape!`
/// window and the elements of a `vec![…]`, visited by `v` and written
/// again (any other macro is left alone).
pub fn visit_macro_mut<V: syn::visit_mut::VisitMut>(v: &mut V, m: &mut syn::Macro) {
    if m.path.segments.last().is_some_and(|s| s.ident == "tape") {
        if let Ok(mut stmts) =
            syn::parse::Parser::parse2(syn::Block::parse_within, m.tokens.clone())
        {
            for stmt in stmts.iter_mut() {
                v.visit_stmt_mut(stmt);
            }
            m.tokens = quote::quote!(#(#stmts)*);
        }
    } else {
        vec_elements_mut(m, |e| v.visit_expr_mut(e));
    }
}

/// [`visit_macro_mut`] for a visitor that only reads: the lines of a
/// `tape!` window and the elements of a `vec![…]`, visited by `v`.
pub fn visit_macro<V: for<'ast> syn::visit::Visit<'ast>>(v: &mut V, m: &syn::Macro) {
    if m.path.segments.last().is_some_and(|s| s.ident == "tape") {
        if let Ok(stmts) = syn::parse::Parser::parse2(syn::Block::parse_within, m.tokens.clone()) {
            for stmt in &stmts {
                v.visit_stmt(stmt);
            }
        }
    } else {
        let mut copy = m.clone();
        vec_elements_mut(&mut copy, |e| v.visit_expr(e));
    }
}

/// Whether a statement defines a macro, in it or in a block inside it.
pub fn defines_macro(stmt: &syn::Stmt) -> bool {
    struct Finds(bool);
    impl<'ast> syn::visit::Visit<'ast> for Finds {
        fn visit_item_macro(&mut self, _: &'ast syn::ItemMacro) {
            self.0 = true;
        }
        fn visit_stmt_macro(&mut self, m: &'ast syn::StmtMacro) {
            self.0 |= m.mac.path.is_ident("macro_rules");
            syn::visit::visit_stmt_macro(self, m);
        }
    }
    let mut finds = Finds(false);
    syn::visit::Visit::visit_stmt(&mut finds, stmt);
    finds.0
}

/// The `x.get(i)` an `if let` tests, with an index or a range `a..b`
/// (either end may be left out).
pub fn got(l: &syn::ExprLet) -> Option<&syn::ExprMethodCall> {
    got_copied(&l.expr).map(|(m, _)| m)
}

/// The range `a..b` a `get` is given (not `a..=b`).
fn got_range(m: &syn::ExprMethodCall) -> Option<&syn::ExprRange> {
    match strip_parens(&m.args[0]) {
        Expr::Range(r) if matches!(r.limits, syn::RangeLimits::HalfOpen(_)) => Some(r),
        _ => None,
    }
}

/// `x.get(i)`, or `x.get(i).copied()` (`.cloned()`: whether so); `x.get(a..b)`.
fn got_copied(e: &Expr) -> Option<(&syn::ExprMethodCall, bool)> {
    match strip_parens(e) {
        Expr::MethodCall(m)
            if m.method == "get"
                && m.args.len() == 1
                && (!matches!(strip_parens(&m.args[0]), Expr::Range(_))
                    || got_range(m).is_some()) =>
        {
            Some((m, false))
        }
        Expr::MethodCall(c)
            if (c.method == "copied" || c.method == "cloned") && c.args.is_empty() =>
        {
            match got_copied(&c.receiver)? {
                (m, false) if got_range(m).is_none() => Some((m, true)),
                _ => None,
            }
        }
        _ => None,
    }
}

/// The array a `get`'s receiver reads: `x` of `x`, `&x`, `x[a..b]`,
/// `&x[a..]` (with the part's ends, as written).
pub fn got_from(receiver: &Expr) -> (&Expr, Option<&Expr>, Option<&Expr>) {
    let mut e = strip_parens(receiver);
    if let Expr::Reference(r) = e {
        e = strip_parens(&r.expr);
    }
    match e {
        Expr::Index(ix) => match strip_parens(&ix.index) {
            Expr::Range(r) if matches!(r.limits, syn::RangeLimits::HalfOpen(_)) => {
                (&ix.expr, r.start.as_deref(), r.end.as_deref())
            }
            _ => (e, None, None),
        },
        _ => (e, None, None),
    }
}

/// `if let Some(v) = x.get(i) { … } else { … }` with the index tested as
/// `get` tests it on a slice, and the element borrowed (`Some(&v)`, or
/// `Some(v)` of `x.get(i).copied()`: copied): `let at = i;` and `if at <
/// x.len() { let v = &x[at]; … } else { … }`; of a part `x[a..b]`, its
/// ends computed once and checked as slicing checks them, `at < b - a`
/// and `x[a + at]`. `if let Some(part) = x.get(a..b)`: `let at = a; let
/// at_end = b;` and `if at <= at_end && at_end <= x.len() { let part =
/// &x[at..at_end]; … }`. For an array, a slice or a `Vec` `x` (the caller
/// knows which): `None` for another pattern.
pub fn get_tested(
    i: &syn::ExprIf,
    [at, first, end]: [&proc_macro2::Ident; 3],
) -> Option<(Vec<syn::Stmt>, syn::ExprIf)> {
    let Expr::Let(l) = &*i.cond else { return None };
    let (m, copied) = got_copied(&l.expr)?;
    let syn::Pat::TupleStruct(some) = &*l.pat else {
        return None;
    };
    if !some.path.is_ident("Some") || some.elems.len() != 1 {
        return None;
    }
    let index = &m.args[0];
    // (through `identity`: a constant index past a fixed array's end is
    // no error where `get` of it is none)
    let mut lines: Vec<syn::Stmt> = Vec::new();
    let (x, lo, hi) = got_from(&m.receiver);
    let (len, element): (Expr, Expr) = match (lo, hi) {
        (None, None) => (syn::parse_quote!(#x.len()), syn::parse_quote!(#x[#at])),
        (lo, hi) => {
            let lo: Expr = lo.cloned().unwrap_or_else(|| syn::parse_quote!(0));
            let hi: Expr = hi.cloned().unwrap_or_else(|| syn::parse_quote!(#x.len()));
            lines.push(syn::parse_quote!(let #first: usize = #lo;));
            lines.push(syn::parse_quote!(let #end: usize = #hi;));
            lines.push(syn::parse_quote!(::mica::__private::view_bounds(#first, #end, #x.len());));
            (
                syn::parse_quote!((#end - #first)),
                syn::parse_quote!(#x[#first + #at]),
            )
        }
    };
    // `x.get(a..b)`: `a <= b && b <= len`, and the part borrowed; else
    // `at < len`, and the element
    let (test, bind): (Expr, syn::Stmt) = if let Some(range) = got_range(m) {
        let syn::Pat::Ident(p) = &some.elems[0] else {
            return None;
        };
        if p.by_ref.is_some() || p.mutability.is_some() || p.subpat.is_some() {
            return None;
        }
        let upto = quote::format_ident!("{}_end", at);
        let a: Expr = range
            .start
            .as_deref()
            .cloned()
            .unwrap_or_else(|| syn::parse_quote!(0));
        let b: Expr = range.end.as_deref().cloned().unwrap_or_else(|| len.clone());
        lines.push(syn::parse_quote!(let #at: usize = ::core::convert::identity(#a);));
        lines.push(syn::parse_quote!(let #upto: usize = ::core::convert::identity(#b);));
        let part: Expr = match (lo, hi) {
            (None, None) => syn::parse_quote!(&#x[#at..#upto]),
            _ => syn::parse_quote!(&#x[#first + #at..#first + #upto]),
        };
        (
            syn::parse_quote!(#at <= #upto && #upto <= #len),
            syn::parse_quote!(let #p = #part;),
        )
    } else {
        let bind: syn::Stmt = match &some.elems[0] {
            syn::Pat::Ident(p) if copied && p.by_ref.is_none() && p.subpat.is_none() => {
                syn::parse_quote!(let #p = #element;)
            }
            syn::Pat::Reference(r) if r.mutability.is_none() && !copied => {
                let p = &r.pat;
                syn::parse_quote!(let #p = #element;)
            }
            syn::Pat::Ident(p)
                if p.by_ref.is_none() && p.mutability.is_none() && p.subpat.is_none() =>
            {
                syn::parse_quote!(let #p = &#element;)
            }
            syn::Pat::Wild(_) => syn::parse_quote!(let _ = #at;),
            _ => return None,
        };
        lines.push(syn::parse_quote!(let #at: usize = ::core::convert::identity(#index);));
        (syn::parse_quote!(#at < #len), bind)
    };
    let mut then_branch = i.then_branch.clone();
    then_branch.stmts.insert(0, bind);
    let else_branch = i
        .else_branch
        .as_ref()
        .map(|(e, rest)| quote::quote!(#e #rest));
    Some((lines, syn::parse_quote!(if #test #then_branch #else_branch)))
}

/// The `x.get(i)` of `x.get(i).copied().unwrap_or(d)` (or `.cloned()`).
pub fn got_or(m: &syn::ExprMethodCall) -> Option<&syn::ExprMethodCall> {
    if m.method != "unwrap_or" || m.args.len() != 1 {
        return None;
    }
    match got_copied(&m.receiver)? {
        (get, true) => Some(get),
        _ => None,
    }
}

/// `x.get(i).copied().unwrap_or(d)` (or `.cloned()`) as the branch it is:
/// `if let Some(v) = x.get(i).copied() { v } else { d }`, written as
/// `get_tested` writes it (`d` is then evaluated only where it is taken:
/// a recorded value's expression has no effects to keep).
pub fn get_or(
    m: &syn::ExprMethodCall,
    [at, first, end, v]: [&proc_macro2::Ident; 4],
) -> Option<(Vec<syn::Stmt>, syn::ExprIf)> {
    got_or(m)?;
    let (option, default) = (&m.receiver, &m.args[0]);
    let branch: syn::ExprIf = syn::parse_quote!(if let Some(#v) = #option { #v } else { #default });
    get_tested(&branch, [at, first, end])
}

/// Whether a value is a test (a closure's that makes a mask, not floats):
/// a comparison, `&&`, `||`, `!`, or an `is_…` method.
pub fn is_test(body: &Expr) -> bool {
    use syn::BinOp::*;
    match strip_parens(body) {
        Expr::Binary(b) => matches!(
            b.op,
            Lt(_) | Le(_) | Gt(_) | Ge(_) | Eq(_) | Ne(_) | And(_) | Or(_)
        ),
        Expr::Unary(u) => matches!(u.op, syn::UnOp::Not(_)),
        Expr::MethodCall(m) => m.method.to_string().starts_with("is_"),
        Expr::Block(b) => match b.block.stmts.last() {
            Some(syn::Stmt::Expr(tail, None)) => is_test(tail),
            _ => false,
        },
        _ => false,
    }
}

/// What an `if`, a `match` or a block gives in its first arm, followed into
/// the branches and blocks it ends in: that value, and the block it ends
/// (none for a match arm's value as it stands); `e` itself where it is none
/// of them. Every arm has its type.
pub fn first_arm(e: &Expr) -> Option<(&Expr, Option<&syn::Block>)> {
    fn ends(b: &syn::Block) -> Option<(&Expr, Option<&syn::Block>)> {
        let Some(syn::Stmt::Expr(tail, None)) = b.stmts.last() else {
            return None;
        };
        match strip(tail) {
            Expr::If(_) | Expr::Match(_) | Expr::Block(_) => first_arm(tail),
            value => Some((value, Some(b))),
        }
    }
    match strip(e) {
        Expr::If(i) => ends(&i.then_branch),
        Expr::Match(m) => first_arm(&m.arms.first()?.body),
        Expr::Block(b) => ends(&b.block),
        other => Some((other, None)),
    }
}

/// The tokens in `tokens`, those inside groups included.
pub fn token_count(tokens: &proc_macro2::TokenStream) -> usize {
    tokens
        .clone()
        .into_iter()
        .map(|t| match t {
            proc_macro2::TokenTree::Group(g) => 1 + token_count(&g.stream()),
            _ => 1,
        })
        .sum()
}
