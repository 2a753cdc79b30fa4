//! Forward mode by source transformation: `#[tape(tangent)]` writes
//! `NAME_tangent(args…, d_args…) -> (Out, Out)`, the function's own lines
//! with, beside each value that depends on a tracked parameter, the line
//! computing its directional derivative (`dot_x` beside `x`). Loops,
//! branches and exits stay as written; nothing is recorded.
//!
//! ```text
//! fn f(#[tracked] x: &[f64; 2]) -> f64 { let s = x[0] * x[1]; s.sin() }
//! fn f_tangent(x: &[f64; 2], d_x: &[f64; 2]) -> (f64, f64) {
//!     let dot_x = d_x;
//!     let s = x[0] * x[1]; let dot_s = dot_x[0] * x[1] + x[0] * dot_x[1];
//!     (s.sin(), s.cos() * dot_s)
//! }
//! ```
//!
//! The same lines, returning the tangent alone, are the directional
//! derivative ∇f·v as a function of `x` and `v`: its reverse gives ∇f
//! (the slope to `v`) and the Hessian times `v` (the slope to `x`). That is
//! how `#[tape(hvp)]` is written (`higher.rs`): reverse over forward, both
//! by the same source transformation as everything else.

use crate::errors::Errors;
use crate::names::internal;
use crate::parse::{Args, Param};
use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};
use std::collections::HashSet;
use syn::ItemFn;

mod activity;
mod adapters;
mod control;
mod exprs;
pub(crate) mod higher;
mod rules;
mod shapes;
mod stmts;
mod syntax;

/// The float type constants are written in.
#[derive(Clone)]
pub(crate) enum Float {
    F32,
    F64,
    Generic(Ident),
}

/// A loop around the line being written: its label, and the names a
/// `break value` assigns.
pub(crate) type Frame = (Option<String>, Option<Carry>);

/// The names a `break value` assigns: one value and its tangent, or a
/// tuple's elements and theirs (a branch may not change a tuple binding in
/// the reverse of the directional derivative).
#[derive(Clone)]
pub(crate) struct Carry {
    pub(crate) p: Vec<Ident>,
    pub(crate) t: Vec<Ident>,
}

/// The transformation of one function's body.
pub(crate) struct Tan<'e> {
    pub(crate) active: HashSet<String>,
    pub(crate) float: Float,
    next: usize,
    pub(crate) errors: &'e mut Errors,
    /// return the tangent alone (the directional derivative function)
    pub(crate) dir: bool,
    /// the loops around the line being written: label, and for a `loop`
    /// whose `break` carries a value with a slope, the names its value and
    /// tangent are assigned to before the `break`
    pub(crate) loops: Vec<Frame>,
    /// names a walk over an array binds to a reference to an element
    /// (`for v in x.iter()`): read as `(*v)`, their tangents as `(*dot_v)`
    pub(crate) by_ref: HashSet<String>,
    /// where `Tail::Assign` puts a branch's value and tangent
    pub(crate) assign: Vec<(Ident, Ident)>,
    /// the names of the last flat tuple bound (`let (p0, p1, t0, t1) =
    /// …`), for a `let (a, b) = …` to bind element by element
    pub(crate) flat: Option<(Vec<Ident>, Vec<Ident>)>,
}

/// An expression, written twice: its value and its tangent (`None`: zero).
pub(crate) struct Val {
    pub(crate) p: TokenStream,
    pub(crate) t: Option<TokenStream>,
    /// reading `p` again costs nothing (a name, a literal, an element)
    pub(crate) cheap: bool,
}

impl Tan<'_> {
    /// The tangent of binding `name`.
    pub(crate) fn dot(&self, name: &Ident) -> Ident {
        format_ident!("dot_{}", name, span = Span::mixed_site())
    }

    /// A fresh name for a value written once and read again (ending in a
    /// letter: the names the reverse makes for itself end in a number, and
    /// the directional derivative goes through the reverse).
    pub(crate) fn fresh(&mut self, what: &str) -> Ident {
        self.next += 1;
        internal(&format!("__mica_tan{}_{what}", self.next))
    }

    /// `v` as written, or a fresh binding of it (added to `pre`) when
    /// reading it again would compute it again.
    pub(crate) fn share(
        &mut self,
        p: TokenStream,
        cheap: bool,
        pre: &mut TokenStream,
    ) -> TokenStream {
        if cheap {
            return p;
        }
        let name = self.fresh("v");
        pre.extend(quote!(let #name = #p;));
        quote!(#name)
    }

    /// A constant of the function's float type.
    pub(crate) fn k(&self, v: f64) -> TokenStream {
        let lit = proc_macro2::Literal::f64_unsuffixed(v);
        match &self.float {
            Float::F64 => quote!((#lit as f64)),
            Float::F32 => quote!((#lit as f32)),
            Float::Generic(t) => quote!(<#t as ::mica::__private::NumCast>::from(#lit).unwrap()),
        }
    }

    /// An integer expression as the function's float type.
    pub(crate) fn k_of(&self, n: &TokenStream) -> TokenStream {
        match &self.float {
            Float::F64 => quote!(((#n) as f64)),
            Float::F32 => quote!(((#n) as f32)),
            Float::Generic(t) => quote!(<#t as ::mica::__private::NumCast>::from(#n).unwrap()),
        }
    }
}

/// The companions `args` asks for, and the function whose reverse is the
/// Hessian-vector product (for the caller to expand as a `#[tape]`
/// function).
pub fn companions(
    args: &Args,
    item: &ItemFn,
    errors: &mut Errors,
) -> (TokenStream, Option<ItemFn>) {
    let Some(at) = args.higher.any() else {
        return (TokenStream::new(), None);
    };
    if let Some(r) = item.sig.receiver() {
        if r.reference.is_none() {
            errors.push(syn::Error::new(at, "`tangent`, `jacobian` and `hvp` call a method more than once: take `&self` instead of `self`"));
            return (TokenStream::new(), None);
        }
    }
    crate::function_form::set_in_impl(args.in_impl);
    let mut sig = item.sig.clone();
    let mut scratch = Errors::default();
    let params = crate::parse::params(&mut sig, &mut scratch);
    if params
        .iter()
        .any(|p| p.tracked.is_some() && p.binding.is_none())
    {
        errors.push(syn::Error::new(
            at,
            "forward mode needs each tracked parameter bound to a plain name",
        ));
        return (TokenStream::new(), None);
    }
    // the body as every form reads it: closures, chains and spellings
    // rewritten into loops and method calls
    let mut body = item.clone();
    crate::views::rewrite(&mut body.block, &mut scratch);
    crate::closures::rewrite(&mut body.block, &mut scratch);
    let knobs = crate::iterators::knobs(&body);
    crate::iterators::rewrite(&mut body, knobs, &args.outer, &mut scratch);
    crate::spellings::rewrite(&mut body);
    let tracked: HashSet<String> = params
        .iter()
        .filter(|p| p.tracked.is_some())
        .filter_map(|p| p.binding.as_ref().map(|b| b.to_string()))
        .collect();
    let active = activity::active(&body.block, &tracked);
    let float = float_of(item, &args.outer);
    let mut out = TokenStream::new();
    let tracked_types: Vec<&syn::Type> = tracked_params(&params).map(|p| &p.ty).collect();
    let companion = crate::generics::companion(item, &args.outer, &tracked_types, &mut scratch);
    let float_ty = match &float {
        Float::F32 => quote!(f32),
        Float::F64 => quote!(f64),
        Float::Generic(t) => quote!(#t),
    };
    let mut tan = Tan {
        active: active.clone(),
        float: float.clone(),
        next: 0,
        errors,
        dir: false,
        loops: Vec::new(),
        by_ref: HashSet::new(),
        assign: Vec::new(),
        flat: None,
    };
    let full = tan.body(&body.block, &params);
    if args.higher.tangent.is_some() || args.higher.jacobian.is_some() {
        out.extend(higher::tangent_fn(&companion, &params, full));
        // other functions' forward mode calls it through its hidden type,
        // which a free function with a plain output has; one with an array
        // or `Vec` out gets its own from the function form's adapter
        // (`function_form/adapter.rs`), a `custom` one here
        let plain_output = match &item.sig.output {
            syn::ReturnType::Type(_, ty) => crate::wrapped::of(ty).is_none(),
            syn::ReturnType::Default => false,
        };
        if plain_output && !args.in_impl && args.host.is_none() {
            if crate::outputs::is_vector(item) && args.custom {
                let (name, vis) = (&item.sig.ident, &item.vis);
                out.extend([quote::quote! {
                    #[doc(hidden)]
                    #[allow(non_camel_case_types, dead_code)]
                    #vis struct #name {}
                }]);
            }
            out.extend(adapters::tangent_adapter(
                &companion,
                &params,
                adapters::Host::Own,
            ));
        }
        // the fields function of one tracking a struct: called by a caller
        // passing the struct whole (`structs/called.rs`)
        if let (true, Some(host)) = (plain_output, adapter_host(args)) {
            out.extend(adapters::tangent_adapter(&companion, &params, host));
        }
    }
    if args.higher.jacobian.is_some() {
        out.extend(higher::jacobian_fn(
            &companion,
            &params,
            &float_ty,
            !args.custom,
        ));
    }
    let mut dir = None;
    if args.higher.hvp.is_some() {
        tan.dir = true;
        let body_dir = tan.body(&body.block, &params);
        let (hvp, dir_fn) = higher::hvp_fns(&companion, &params, body_dir, tan.errors, at);
        out.extend(hvp);
        // other functions' `hvp` calls it through its hidden type
        if dir_fn.is_some() && !args.in_impl && args.host.is_none() {
            out.extend(adapters::directional_adapter(
                &companion,
                &params,
                adapters::Host::Own,
            ));
        }
        if let (true, Some(host)) = (dir_fn.is_some(), adapter_host(args)) {
            out.extend(adapters::directional_adapter(&companion, &params, host));
        }
        dir = dir_fn;
    }
    (out, dir)
}

/// Where the adapters of a struct-tracking function's fields function
/// stand: `NAME::with_tracked_struct_…` for a free function's, a hidden
/// type beside the `impl` for a method's.
fn adapter_host(args: &Args) -> Option<adapters::Host<'_>> {
    let (host, _) = args.host.as_ref()?;
    Some(match args.in_impl {
        true => adapters::Host::Method(host),
        false => adapters::Host::Struct(host),
    })
}

/// The float type of a function, as its companions write it.
pub(crate) fn float_type(item: &ItemFn, outer: &[(Ident, bool)]) -> TokenStream {
    match float_of(item, outer) {
        Float::F32 => quote!(f32),
        Float::F64 => quote!(f64),
        Float::Generic(t) => quote!(#t),
    }
}

/// The float type of a function: its return type's, else its tracked
/// parameters'.
fn float_of(item: &ItemFn, outer: &[(Ident, bool)]) -> Float {
    let mut floats: Vec<String> = crate::generics::float_params(&item.sig.generics)
        .into_iter()
        .map(|i| i.to_string())
        .collect();
    floats.extend(outer.iter().filter(|(_, f)| *f).map(|(t, _)| t.to_string()));
    let mut found = None;
    let mut look = |tokens: TokenStream| {
        fn walk(tokens: TokenStream, floats: &[String], found: &mut Option<Float>) {
            for t in tokens {
                if found.is_some() {
                    return;
                }
                match t {
                    proc_macro2::TokenTree::Ident(i) if i == "f32" => *found = Some(Float::F32),
                    proc_macro2::TokenTree::Ident(i) if i == "f64" => *found = Some(Float::F64),
                    proc_macro2::TokenTree::Ident(i) if floats.contains(&i.to_string()) => {
                        *found = Some(Float::Generic(i))
                    }
                    proc_macro2::TokenTree::Group(g) => walk(g.stream(), floats, found),
                    _ => {}
                }
            }
        }
        walk(tokens, &floats, &mut found);
    };
    if let syn::ReturnType::Type(_, ty) = &item.sig.output {
        look(quote!(#ty));
    }
    for input in &item.sig.inputs {
        if let syn::FnArg::Typed(t) = input {
            let ty = &t.ty;
            look(quote!(#ty));
        }
    }
    found.unwrap_or(Float::F64)
}

/// The tangent parameters' names and types, in order.
pub(crate) fn tracked_params(params: &[Param]) -> impl Iterator<Item = &Param> {
    params.iter().filter(|p| p.tracked.is_some())
}
