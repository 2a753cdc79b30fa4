//! Calls to `#[tape]` functions that return an array or a `Vec`:
//! `let s = step(&s0, c);` whose later lines index `s`, and `s = step(&s,
//! c);` of a recorded array. The result is a new recorded array; its
//! reverse ([`Step::CallInto`]) seeds the callee's twin with the array's
//! adjoint, a vector-Jacobian product through the callee.
//!
//! A tuple of scalars out (`let (r, a) = polar(p);`) is the same: its
//! scalars are a new recorded array, read element by element, and the
//! reverse seeds the twin with the tuple of their adjoints.
//!
//! Which calls return arrays is read from the syntax: a `let` whose type
//! is an array or a `Vec`, or whose name later lines use as an array
//! (indexed, borrowed, iterated, measured); an assignment to a recorded
//! array. A call judged wrongly names the callee's twin, which a function
//! returning a scalar does not have: a compile error, never a number.

use super::*;
use crate::facts::places::array_binding;
use crate::facts::syntax::strip_parens;
use syn::punctuated::Punctuated;

impl Sweep<'_> {
    /// Whether `local` binds the array a `#[tape]` function returns.
    pub(super) fn binds_array_result(&mut self, local: &Local, rest: &[Stmt]) -> bool {
        let (Some(init), Some(name)) = (&local.init, array_binding(&local.pat)) else {
            return false;
        };
        if init.diverge.is_some() || !self.is_tape_call(&init.expr) {
            return false;
        }
        let typed = match &local.pat {
            Pat::Type(t) => is_array_type(&t.ty),
            _ => false,
        };
        typed || used_as_array(&name.to_string(), rest)
    }

    /// A call of a function named by a path, to which a recorded value is
    /// passed (not a rule of the runtime, not `detach`, not a closure).
    pub(super) fn is_tape_call(&mut self, expr: &Expr) -> bool {
        if let Some(m) = tracked_self_call(expr) {
            return m.args.iter().any(|a| self.mentions_active(a));
        }
        let Expr::Call(c) = strip_parens(expr) else {
            return false;
        };
        let Expr::Path(func) = &*c.func else {
            return false;
        };
        let Some(last) = func.path.segments.last() else {
            return false;
        };
        if func.qself.is_some()
            || last.ident == "detach"
            || last.ident == "swap"
            || rules::function(&func.path).is_some()
        {
            return false;
        }
        if let Some(ident) = func.path.get_ident() {
            if self.lookup(&ident.to_string()).is_some() {
                return false;
            }
        }
        c.args.iter().any(|a| self.mentions_active(a))
    }

    /// `let name = f(args…);` of a function returning an array.
    pub(super) fn lower_array_let(
        &mut self,
        local: &Local,
        out: &mut TokenStream,
    ) -> syn::Result<()> {
        let Some(init) = &local.init else {
            return Ok(());
        };
        let lowered = self.lower_array_call(&init.expr, out)?;
        self.let_copy(local, lowered, true, out)
    }

    /// `f(args…)` of a function returning an array: its value bound to a
    /// temporary, a new recorded array.
    pub(super) fn lower_array_call(
        &mut self,
        call: &Expr,
        out: &mut TokenStream,
    ) -> syn::Result<Lowered> {
        let (value, adapter, args) = self.seeded_call(call)?;
        let (inputs, args, spans) = self.lower_call_args(args, out)?;
        let name = self.names.fresh("l");
        out.extend([quote!(let #name = #value(#(#args),*);)]);
        let array = self.register_array(&name, 1, None, None, out);
        self.push_step(Step::CallInto(CallInto {
            array,
            adapter,
            inputs,
            spans,
            tuple: None,
        }));
        Ok(Lowered {
            val: Val::Array {
                array,
                prefix: Vec::new(),
            },
            fwd: name.to_token_stream(),
        })
    }
}

impl Sweep<'_> {
    /// Whether `local` binds, element by element, the tuple a `#[tape]`
    /// function returns: `let (a, b, _) = f(args…);`.
    pub(super) fn binds_tuple_result(&mut self, local: &Local) -> bool {
        let Some(init) = &local.init else {
            return false;
        };
        tuple_names(&local.pat).is_some() && init.diverge.is_none() && self.is_tape_call(&init.expr)
    }

    /// `let (a, b, _) = f(args…);`: the call's scalars a new recorded
    /// array, each name bound to its element.
    pub(super) fn lower_tuple_let(
        &mut self,
        local: &Local,
        rest: &[Stmt],
        out: &mut TokenStream,
    ) -> syn::Result<()> {
        let (Some(init), Some(elements)) = (&local.init, tuple_names(&local.pat)) else {
            return Ok(());
        };
        for p in elements.iter().flatten() {
            if used_as_array(&p.ident.to_string(), rest) {
                return Err(syn::Error::new_spanned(
                    p,
                    "an array in a tuple returned by a call to a `#[tape]` function is not followed yet; return the array alone or the tuple's scalars, or put the two functions in one `#[tape] mod`, whose helpers may return tuples of arrays",
                ));
            }
        }
        let (f, adapter, args) = self.seeded_call(&init.expr)?;
        let (inputs, args, spans) = self.lower_call_args(args, out)?;
        if elements.iter().all(Option::is_none) {
            // nothing read: nothing recorded
            out.extend([quote!(let _ = #f(#(#args),*);)]);
            return Ok(());
        }
        let (value, scalars) = (self.names.fresh("l"), self.names.fresh("l"));
        // (bound in the forward sweep only: the reverse may not read them)
        if let Some(stability) = &mut self.stability {
            stability.hidden(&value.to_string());
            stability.hidden(&scalars.to_string());
        }
        let mut read = Vec::new();
        let mut positions = Vec::new();
        for (k, p) in elements.iter().enumerate() {
            let k = syn::Index::from(k);
            match p {
                Some(_) => {
                    positions.push(Some(read.len()));
                    read.push(quote!(#value.#k));
                }
                None => positions.push(None),
            }
        }
        out.extend([quote! {
            let #value = #f(#(#args),*);
            let #scalars = [#(#read),*];
        }]);
        let array = self.register_array(&scalars, 1, None, None, out);
        self.push_step(Step::CallInto(CallInto {
            array,
            adapter,
            inputs,
            spans,
            tuple: Some(positions),
        }));
        self.bind(
            &scalars,
            Val::Array {
                array,
                prefix: Vec::new(),
            },
            Origin::Local,
        );
        // each name, an element of the new array
        for (j, p) in elements.iter().flatten().enumerate() {
            let element: Stmt = syn::parse_quote!(let #p = #scalars[#j];);
            if let Stmt::Local(element) = element {
                self.lower_local(&element, out)?;
            }
        }
        Ok(())
    }
}

impl Sweep<'_> {
    /// A call of a function with an array, tuple or `Vec` out: what its
    /// value is taken by (the callee as called), the seeded twin's
    /// adapter, and the arguments. A struct passed whole
    /// (`structs/rewrite.rs`) reaches the twin's beside the twin
    /// (`function_form/adapter.rs`):
    ///
    /// - `f(a)`: `__mica_seeded_f::adjoint`;
    /// - `f::with_tracked_struct(a)`:
    ///   `__mica_seeded_f::with_tracked_struct_adjoint`;
    /// - `T::f_with_tracked_self().__mica_call(a)`:
    ///   `T::__mica_seeded_f_with_tracked_self().__mica_adjoint___mica_call`.
    fn seeded_call<'e>(
        &self,
        call: &'e Expr,
    ) -> syn::Result<(
        TokenStream,
        TokenStream,
        &'e Punctuated<Expr, syn::Token![,]>,
    )> {
        if let Some(m) = tracked_self_call(call) {
            let Expr::Call(accessor) = strip_parens(&m.receiver) else {
                return unreachable_call(call);
            };
            let Expr::Path(func) = &*accessor.func else {
                return unreachable_call(call);
            };
            let mut path = func.path.clone();
            if let Some(last) = path.segments.last_mut() {
                last.ident = crate::names::seeded_twin(&last.ident);
            }
            let span = m.method.span();
            let value = &m.receiver;
            return Ok((
                quote!(#value.__mica_call),
                quote_spanned!(span=> #path().__mica_adjoint___mica_call),
                &m.args,
            ));
        }
        let Expr::Call(c) = strip_parens(call) else {
            return unreachable_call(call);
        };
        let Expr::Path(func) = &*c.func else {
            return Err(syn::Error::new_spanned(
                &c.func,
                "a recorded value is passed only to a `#[tape]` function named by its path",
            ));
        };
        super::walls::from_fn_refused(c)?;
        let mut path = func.path.clone();
        let span = c.func.span();
        let n = path.segments.len();
        if n > 1 && path.segments[n - 1].ident == "with_tracked_struct" {
            let host = &mut path.segments[n - 2];
            host.arguments = syn::PathArguments::None;
            host.ident = crate::names::seeded_twin(&host.ident);
            path.segments[n - 1].ident =
                quote::format_ident!("with_tracked_struct_adjoint", span = span);
            let f = &c.func;
            return Ok((quote!(#f), quote_spanned!(span=> #path), &c.args));
        }
        if let Some(last) = path.segments.last_mut() {
            last.arguments = syn::PathArguments::None;
            last.ident = crate::names::seeded_twin(&last.ident);
        }
        let f = &c.func;
        Ok((quote!(#f), quote_spanned!(span=> #path::adjoint), &c.args))
    }
}

/// The accessor `T::f_with_tracked_self()` of a call
/// [`tracked_self_call`] finds.
pub(super) fn tracked_self_accessor(expr: &Expr) -> Option<&Expr> {
    tracked_self_call(expr).map(|m| &*m.receiver)
}

/// `T::f_with_tracked_self().__mica_call(…)`: a method tracking `self`
/// called on a tracked struct (`structs/called.rs`); or, in a directional
/// derivative, `T::hvp_of_f().__mica_hvp(…)`, its own.
fn tracked_self_call(expr: &Expr) -> Option<&syn::ExprMethodCall> {
    let Expr::MethodCall(m) = strip_parens(expr) else {
        return None;
    };
    let Expr::Call(accessor) = strip_parens(&m.receiver) else {
        return None;
    };
    let Expr::Path(func) = &*accessor.func else {
        return None;
    };
    let named = func.path.segments.last().map(|s| s.ident.to_string())?;
    let method = match m.method.to_string().as_str() {
        "__mica_call" => named.ends_with("_with_tracked_self"),
        "__mica_hvp" => named.starts_with("hvp_of_"),
        _ => false,
    };
    (method && accessor.args.is_empty()).then_some(m)
}

/// The error for a call [`Sweep::is_tape_call`] did not accept: not
/// reached, its callers asking first.
fn unreachable_call<T>(call: &Expr) -> syn::Result<T> {
    Err(syn::Error::new_spanned(
        call,
        "a recorded value is passed only to a `#[tape]` function named by its path",
    ))
}

/// The names of a tuple pattern (`(a, mut b, _)`, typed or not): `None`
/// for `_`; `None` for any other pattern.
fn tuple_names(pat: &Pat) -> Option<Vec<Option<syn::PatIdent>>> {
    match pat {
        Pat::Type(t) => tuple_names(&t.pat),
        Pat::Paren(p) => tuple_names(&p.pat),
        Pat::Tuple(t) if !t.elems.is_empty() => t
            .elems
            .iter()
            .map(|e| match e {
                Pat::Ident(p) if p.subpat.is_none() && p.by_ref.is_none() => Some(Some(p.clone())),
                Pat::Wild(_) => Some(None),
                _ => None,
            })
            .collect(),
        _ => None,
    }
}

/// `[T; N]`, `Vec<T>` (or a path ending in `Vec`).
fn is_array_type(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::Array(_) => true,
        syn::Type::Path(p) => p.path.segments.last().is_some_and(|s| s.ident == "Vec"),
        syn::Type::Paren(p) => is_array_type(&p.elem),
        _ => false,
    }
}

/// Whether `stmts` use `name` as an array: index it, borrow it (a shared
/// borrow: a recorded scalar is never borrowed so), iterate over it or
/// ask its length.
fn used_as_array(name: &str, stmts: &[Stmt]) -> bool {
    struct Uses<'n> {
        name: &'n str,
        found: bool,
    }
    impl Uses<'_> {
        fn is_name(&self, e: &Expr) -> bool {
            matches!(strip_parens(e), Expr::Path(p) if p.qself.is_none() && p.path.is_ident(self.name))
        }
    }
    impl<'a> Visit<'a> for Uses<'_> {
        fn visit_expr(&mut self, e: &'a Expr) {
            let hit = match e {
                Expr::Index(i) => self.is_name(&i.expr),
                // (`&mut x` also swaps two scalars: `std::mem::swap`)
                Expr::Reference(r) => r.mutability.is_none() && self.is_name(&r.expr),
                Expr::MethodCall(m) => {
                    self.is_name(&m.receiver)
                        && matches!(
                            m.method.to_string().as_str(),
                            "iter" | "len" | "is_empty" | "to_vec" | "into_iter" | "first" | "last"
                        )
                }
                Expr::ForLoop(f) => self.is_name(&f.expr),
                _ => false,
            };
            self.found |= hit;
            syn::visit::visit_expr(self, e);
        }
    }
    let mut uses = Uses { name, found: false };
    for stmt in stmts {
        uses.visit_stmt(stmt);
    }
    uses.found
}
