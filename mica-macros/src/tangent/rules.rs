//! The tangent of each float method and runtime function of the recorded
//! vocabulary, written with the vocabulary itself (so a tangent can be
//! reversed again, for `hvp`). Kinks follow the reverse rules of
//! `mica-runtime/src/rules.rs`: `abs` has slope 0 at 0, `min`/`max` send
//! the slope to the operand they picked.

use super::{Tan, Val};
use proc_macro2::TokenStream;
use quote::quote;
use syn::{Expr, ExprCall, ExprMethodCall};

/// Methods that copy a value: the same copy of the tangent.
const COPIES: &[&str] = &["clone", "to_vec", "to_owned", "into"];

impl Tan<'_> {
    pub(crate) fn method(&mut self, m: &ExprMethodCall, pre: &mut TokenStream) -> Val {
        let name = m.method.to_string();
        let method = &m.method;
        let x = self.expr(&m.receiver, pre);
        if COPIES.contains(&name.as_str()) && m.args.is_empty() {
            let p = x.p;
            return Val {
                p: quote!(#p.#method()),
                t: x.t.map(|t| quote!(#t.#method())),
                cheap: false,
            };
        }
        if matches!(name.as_str(), "to_radians" | "to_degrees") {
            let p = x.p;
            return Val {
                p: quote!(#p.#method()),
                t: x.t.map(|t| quote!(#t.#method())),
                cheap: false,
            };
        }
        let args: Vec<Val> = m.args.iter().map(|a| self.expr(a, pre)).collect();
        // `m.forward(x)` on a tracked struct (`structs/called.rs`): the
        // method's own forward mode, through the accessor of its kind
        if name == "__mica_call" {
            if let Some(accessor) = accessor_of(&m.receiver) {
                return self.struct_method(accessor, m, pre);
            }
        }
        let Some(rule) = crate::rules::METHODS
            .iter()
            .find(|r| r.name == name && r.args == m.args.len())
        else {
            return self.refuse(m, &format!("forward mode does not follow `.{name}(…)` of a value with a slope; it follows the float methods of the recorded vocabulary (`sin`, `exp`, `powi`, `max`, …) and calls of `#[tape]` functions"));
        };
        let _ = rule;
        let px = self.share(x.p, x.cheap, pre);
        let mut ps = Vec::new();
        let mut ts = Vec::new();
        for a in args {
            ps.push(self.share(a.p, a.cheap, pre));
            ts.push(a.t);
        }
        let y = self.share(quote!(#px.#method(#(#ps),*)), false, pre);
        let (one, zero) = (self.k(1.0), self.k(0.0));
        let dx = x.t.clone();
        // the receiver's part of the slope, if it has one
        let unary = |f: &dyn Fn(&TokenStream) -> TokenStream| dx.as_ref().map(f);
        let t: Option<TokenStream> = match name.as_str() {
            "sqrt" => unary(&|d| quote!((#d / (#y + #y)))),
            "cbrt" => {
                let three = self.k(3.0);
                unary(&|d| quote!((#d / (#three * #y * #y))))
            }
            "exp" => unary(&|d| quote!((#y * #d))),
            "exp2" => {
                let ln2 = self.k(std::f64::consts::LN_2);
                unary(&|d| quote!((#y * #ln2 * #d)))
            }
            "exp_m1" => unary(&|d| quote!(((#y + #one) * #d))),
            "ln" => unary(&|d| quote!((#d / #px))),
            "log2" => {
                let ln2 = self.k(std::f64::consts::LN_2);
                unary(&|d| quote!((#d / (#px * #ln2))))
            }
            "log10" => {
                let ln10 = self.k(std::f64::consts::LN_10);
                unary(&|d| quote!((#d / (#px * #ln10))))
            }
            "ln_1p" => unary(&|d| quote!((#d / (#one + #px)))),
            "log" => {
                let b = &ps[0];
                let from_x = dx.as_ref().map(|d| quote!(#d / #px));
                let from_b = ts[0].as_ref().map(|d| quote!(#y * #d / #b));
                sum(from_x, from_b.map(|t| quote!((-(#t))))).map(|t| quote!(((#t) / #b.ln())))
            }
            "powi" => {
                let n = &ps[0];
                let nf = self.k_of(n);
                unary(&|d| quote!((#nf * #px.powi(#n - 1) * #d)))
            }
            "powf" => {
                let b = &ps[0];
                let from_x = dx.as_ref().map(|d| quote!((#b * #px.powf(#b - #one) * #d)));
                let from_b = ts[0].as_ref().map(|d| quote!((#y * #px.ln() * #d)));
                sum(from_x, from_b)
            }
            "sin" => unary(&|d| quote!((#px.cos() * #d))),
            "cos" => unary(&|d| quote!((-(#px.sin() * #d)))),
            "tan" => unary(&|d| quote!(((#one + #y * #y) * #d))),
            "asin" => unary(&|d| quote!((#d / (#one - #px * #px).sqrt()))),
            "acos" => unary(&|d| quote!((-(#d / (#one - #px * #px).sqrt())))),
            "atan" => unary(&|d| quote!((#d / (#one + #px * #px)))),
            "sinh" => unary(&|d| quote!((#px.cosh() * #d))),
            "cosh" => unary(&|d| quote!((#px.sinh() * #d))),
            "tanh" => unary(&|d| quote!(((#one - #y * #y) * #d))),
            "asinh" => unary(&|d| quote!((#d / (#px * #px + #one).sqrt()))),
            "acosh" => unary(&|d| quote!((#d / (#px * #px - #one).sqrt()))),
            "atanh" => unary(&|d| quote!((#d / (#one - #px * #px)))),
            "recip" => unary(&|d| quote!((-(#y * #y * #d)))),
            "abs" => unary(
                &|d| quote!((if #px > #zero { #d } else if #px < #zero { -#d } else { #zero * #d })),
            ),
            "atan2" => {
                let b = &ps[0];
                let from_x = dx.as_ref().map(|d| quote!(#b * #d));
                let from_b = ts[0].as_ref().map(|d| quote!((-(#px * #d))));
                sum(from_x, from_b).map(|t| quote!(((#t) / (#px * #px + #b * #b))))
            }
            "hypot" => {
                let b = &ps[0];
                let from_x = dx.as_ref().map(|d| quote!(#px * #d));
                let from_b = ts[0].as_ref().map(|d| quote!(#b * #d));
                sum(from_x, from_b).map(|t| quote!(((#t) / #y)))
            }
            "min" | "max" => {
                // the slope goes to the operand picked: the receiver when
                // the result is it (ties and a NaN other side included)
                let b = &ps[0];
                let (tx, tb) = (
                    dx.clone().unwrap_or_else(|| zero.clone()),
                    ts[0].clone().unwrap_or_else(|| zero.clone()),
                );
                let _ = b;
                Some(quote!((if #y == #px { #tx } else { #tb })))
            }
            "clamp" => {
                let (lo, hi) = (&ps[0], &ps[1]);
                let z = || zero.clone();
                let (tx, tlo, thi) = (
                    dx.clone().unwrap_or_else(z),
                    ts[0].clone().unwrap_or_else(z),
                    ts[1].clone().unwrap_or_else(z),
                );
                Some(quote!((if #px < #lo { #tlo } else if #px > #hi { #thi } else { #tx })))
            }
            "mul_add" => {
                let a = &ps[0];
                let parts = [
                    dx.as_ref().map(|d| quote!(#d * #a)),
                    ts[0].as_ref().map(|d| quote!(#px * #d)),
                    ts[1].clone(),
                ];
                parts.into_iter().fold(None, sum)
            }
            "fract" => unary(&|d| quote!(#d)),
            "copysign" => {
                let s = &ps[0];
                unary(
                    &|d| quote!((if #px.is_sign_negative() == #s.is_sign_negative() { #d } else { -#d })),
                )
            }
            "midpoint" => {
                let half = self.k(0.5);
                sum(dx.clone(), ts[0].clone()).map(|t| quote!(((#t) * #half)))
            }
            "rem_euclid" => {
                let b = &ps[0];
                let from_b = ts[0]
                    .as_ref()
                    .map(|d| quote!((-(((#px - #y) / #b).round() * #d))));
                sum(dx.clone(), from_b)
            }
            "floor" | "ceil" | "round" | "trunc" | "signum" | "round_ties_even" | "div_euclid" => {
                None
            }
            _ => {
                return self.refuse(m, &format!("forward mode has no rule for `.{name}(…)` yet"));
            }
        };
        Val {
            p: y,
            t,
            cheap: true,
        }
    }

    /// `Type::NAME_with_tracked_self().__mica_call(args…)`, a method
    /// tracking `self` called on a tracked struct (`structs/called.rs`):
    /// its tangent by `Type::tangent_of_NAME()`'s `__mica_tangent`; in a
    /// directional derivative, its value by the call itself and its
    /// tangent by `Type::hvp_of_NAME()`'s `__mica_hvp`.
    fn struct_method(
        &mut self,
        accessor: &syn::ExprPath,
        m: &ExprMethodCall,
        pre: &mut TokenStream,
    ) -> Val {
        let kind = if self.dir { "hvp" } else { "tangent" };
        let mut path = accessor.path.clone();
        if let Some(last) = path.segments.last_mut() {
            let method = last.ident.to_string();
            let method = method.strip_suffix("_with_tracked_self").unwrap_or(&method);
            last.ident = quote::format_ident!("{}_of_{}", kind, method, span = last.ident.span());
        }
        let receiver = &m.receiver;
        let adapter = quote::format_ident!("__mica_{}", kind);
        let span = m.method.span();
        let tangent = quote::quote_spanned!(span=> #path().#adapter);
        self.tape_call(quote!(#receiver.__mica_call), tangent, &m.args, pre)
    }

    /// A call to another `#[tape(tangent)]` function, `value(args…)`, each
    /// argument with its tangent (`NoSlot` for a constant): value and
    /// tangent by `tangent(args…, tangents…)`; in a directional derivative
    /// (which the reverse differentiates again), the value by the function
    /// itself and the tangent by the callee's own directional derivative.
    fn tape_call(
        &mut self,
        value: TokenStream,
        tangent: TokenStream,
        args: &syn::punctuated::Punctuated<Expr, syn::Token![,]>,
        pre: &mut TokenStream,
    ) -> Val {
        let mut values = Vec::new();
        let mut tangents = Vec::new();
        for a in args {
            let v = self.expr(a, pre);
            let cheap = v.cheap;
            let (p, t) = match self.dir {
                true => (
                    self.share(v.p, cheap, pre),
                    v.t.map(|t| self.share(t, cheap, pre)),
                ),
                false => (v.p, v.t),
            };
            values.push(p);
            tangents.push(match (t, self.dir) {
                (Some(t), true) => t,
                (Some(t), false) => quote!(::mica::__private::Tangent(#t)),
                (None, _) => quote!(::mica::__private::NoSlot),
            });
        }
        let (p, t) = (self.fresh("p"), self.fresh("t"));
        match self.dir {
            true => pre.extend(quote! {
                let #p = #value(#(#values),*);
                let #t = #tangent(#(#values,)* #(#tangents),*);
            }),
            false => pre.extend(quote!(let (#p, #t) = #tangent(#(#values,)* #(#tangents),*);)),
        }
        Val {
            p: quote!(#p),
            t: Some(quote!(#t)),
            cheap: true,
        }
    }

    /// A call of a function named by `path` in forward mode: through its
    /// hidden type (`path::tangent`, `path::hvp`); a struct passed whole
    /// (`predict::with_tracked_struct(…)`, `structs/rewrite.rs`) through the
    /// same names, its fields function's.
    fn path_call(&mut self, path: &syn::ExprPath, c: &ExprCall, pre: &mut TokenStream) -> Val {
        let kind = if self.dir { "hvp" } else { "tangent" };
        // spanned at the callee: a callee without `tangent` is named there
        let span = syn::spanned::Spanned::span(path);
        let mut adapter = path.path.clone();
        match adapter.segments.last_mut() {
            // the adapter of the function's fields, on its hidden type too
            Some(last) if last.ident == "with_tracked_struct" && path.path.segments.len() > 1 => {
                last.ident = quote::format_ident!("{}", kind, span = last.ident.span());
            }
            _ => {
                let kind = quote::format_ident!("{}", kind, span = span);
                adapter.segments.push(syn::PathSegment::from(kind));
            }
        }
        let tangent = quote::quote_spanned!(span=> #adapter);
        self.tape_call(quote!(#path), tangent, &c.args, pre)
    }

    /// A call: the runtime's functions, or a refusal.
    pub(crate) fn call(&mut self, c: &ExprCall, pre: &mut TokenStream) -> Val {
        let name = match &*c.func {
            Expr::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
            _ => None,
        };
        let known = matches!(name.as_deref(), Some("sigmoid" | "relu" | "softplus"));

        if !known {
            if let Expr::Path(path) = &*c.func {
                if path.qself.is_none() && path.path.segments.iter().all(|s| s.arguments.is_none())
                {
                    return self.path_call(path, c, pre);
                }
            }
        }
        if !known || c.args.len() != 1 {
            let what = name.map_or_else(|| "this function".to_string(), |n| format!("`{n}`"));
            let message = format!(
                "forward mode follows calls to functions named by a path; call {what} by its name"
            );
            self.errors.at(&c.func, message);
            return Val {
                p: quote!(#c),
                t: None,
                cheap: false,
            };
        }
        let x = self.expr(&c.args[0], pre);
        let px = self.share(x.p, x.cheap, pre);
        let func = &c.func;
        let y = self.share(quote!(#func(#px)), false, pre);
        let (one, zero) = (self.k(1.0), self.k(0.0));
        let t = x.t.map(|d| match name.as_deref() {
            Some("sigmoid") => quote!((#y * (#one - #y) * #d)),
            Some("relu") => quote!((if #px > #zero { #d } else { #zero * #d })),
            _ => quote!((::mica::sigmoid(#px) * #d)),
        });
        Val {
            p: y,
            t,
            cheap: true,
        }
    }
}

fn sum(a: Option<TokenStream>, b: Option<TokenStream>) -> Option<TokenStream> {
    match (a, b) {
        (Some(a), Some(b)) => Some(quote!((#a + #b))),
        (a, None) => a,
        (None, b) => b,
    }
}

/// The accessor `Type::NAME_with_tracked_self` a struct's method call is
/// reached through (`structs/called.rs`).
fn accessor_of(receiver: &Expr) -> Option<&syn::ExprPath> {
    let Expr::Call(c) = receiver else {
        return None;
    };
    let Expr::Path(p) = &*c.func else {
        return None;
    };
    let named = p
        .path
        .segments
        .last()
        .is_some_and(|s| s.ident.to_string().ends_with("_with_tracked_self"));
    (named && c.args.is_empty()).then_some(p)
}
