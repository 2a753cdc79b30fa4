//! Expressions in forward mode: each one written as its value and its
//! tangent, sub-expressions read twice bound once.

use super::activity::{mentions, reads};
use super::stmts::Tail;
use super::syntax::vec_items;
use super::{Tan, Val};
use proc_macro2::TokenStream;
use quote::{quote, ToTokens};
use syn::Expr;

fn is_cheap(e: &Expr) -> bool {
    match e {
        Expr::Path(_) | Expr::Lit(_) => true,
        Expr::Field(f) => is_cheap(&f.base),
        Expr::Index(i) => is_cheap(&i.expr) && is_cheap(&i.index),
        Expr::Paren(p) => is_cheap(&p.expr),
        Expr::Reference(r) => is_cheap(&r.expr),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => is_cheap(&u.expr),
        _ => false,
    }
}

fn plain(e: &Expr) -> Val {
    let cheap = is_cheap(e);
    let p = if cheap {
        e.to_token_stream()
    } else {
        quote!((#e))
    };
    Val { p, t: None, cheap }
}

impl Tan<'_> {
    /// `e` as value and tangent; what must come first goes to `pre`.
    pub(crate) fn expr(&mut self, e: &Expr, pre: &mut TokenStream) -> Val {
        if !mentions(e, &self.active) && !super::syntax::exits(e) {
            return plain(e);
        }
        match e {
            Expr::If(_)
            | Expr::Match(_)
            | Expr::Block(_)
            | Expr::Unsafe(_)
            | Expr::Loop(_)
            | Expr::ForLoop(_)
            | Expr::While(_)
            | Expr::Return(_)
            | Expr::Break(_) => {
                if !reads(e, &self.active) {
                    return self.control(e, pre, Tail::Plain);
                }
                // a tuple out of a branch or a block: its elements and
                // their tangents, one flat tuple
                if let Some(n) = super::shapes::tuple_arity(e) {
                    let code = self.control(e, pre, Tail::Tuple(n));
                    let pn: Vec<_> = (0..n).map(|_| self.fresh("p")).collect();
                    let tn: Vec<_> = (0..n).map(|_| self.fresh("t")).collect();
                    let code = code.p;
                    pre.extend(quote!(let (#(#pn,)* #(#tn,)*) = #code;));
                    self.flat = Some((pn.clone(), tn.clone()));
                    return Val {
                        p: quote!((#(#pn,)*)),
                        t: Some(quote!((#(#tn,)*))),
                        cheap: false,
                    };
                }
                let plain_block = matches!(e, Expr::Block(b) if b.label.is_none());
                // an array out of the directional derivative's branch: the
                // reverse takes arrays out of branches as values only, so
                // the branch is written twice, for the value and for the
                // tangent (its arms only bind names: nothing runs twice
                // that could change anything)
                let array_out = self.dir
                    && (matches!(e, Expr::If(_) | Expr::Match(_)) || plain_block)
                    && super::shapes::ends_in_array(e);
                if array_out && !super::shapes::arms_only_bind(e) {
                    let at = match e {
                        Expr::If(i) => i.if_token.to_token_stream(),
                        Expr::Match(m) => m.match_token.to_token_stream(),
                        _ => e.to_token_stream(),
                    };
                    self.errors.at(&at, "`hvp` does not follow an array out of a branch whose arms also change names bound before it; make those changes before or after the branch, and let the arms give only the array");
                    return Val {
                        p: e.to_token_stream(),
                        t: None,
                        cheap: false,
                    };
                }
                if array_out {
                    let (pn, tn) = (self.fresh("p"), self.fresh("t"));
                    let mut inner = TokenStream::new();
                    let p = self.control(e, &mut inner, Tail::Plain).p;
                    pre.extend(quote!(#inner let #pn = #p;));
                    let mut inner = TokenStream::new();
                    let t = self.control(e, &mut inner, Tail::Tangent).p;
                    pre.extend(quote!(#inner let #tn = #t;));
                    return Val {
                        p: quote!(#pn),
                        t: Some(quote!(#tn)),
                        cheap: true,
                    };
                }
                // the directional derivative's branches assign their value
                // and tangent to names declared before them
                if self.dir && (matches!(e, Expr::If(_) | Expr::Match(_)) || plain_block) {
                    let (pn, tn) = (self.fresh("p"), self.fresh("t"));
                    self.assign.push((pn.clone(), tn.clone()));
                    let mut inner = TokenStream::new();
                    let code = self.control(e, &mut inner, Tail::Assign).p;
                    self.assign.pop();
                    pre.extend(quote!(let #pn; let #tn; #inner #code;));
                    return Val {
                        p: quote!(#pn),
                        t: Some(quote!(#tn)),
                        cheap: true,
                    };
                }
                return self.control(e, pre, Tail::Value);
            }
            _ if !reads(e, &self.active) => return plain(e),
            _ => {}
        }
        match e {
            Expr::Path(p) => {
                let ident = p.path.get_ident().expect("an active name");
                let dot = self.dot(ident);
                if self.by_ref.contains(&ident.to_string()) {
                    return Val {
                        p: quote!((*#p)),
                        t: Some(quote!((*#dot))),
                        cheap: true,
                    };
                }
                Val {
                    p: quote!(#p),
                    t: Some(quote!(#dot)),
                    cheap: true,
                }
            }
            Expr::Paren(p) => self.expr(&p.expr, pre),
            Expr::Group(g) => self.expr(&g.expr, pre),
            Expr::Reference(r) if r.mutability.is_none() => {
                let v = self.expr(&r.expr, pre);
                let (p, t) = (v.p, v.t);
                Val {
                    p: quote!(&#p),
                    t: t.map(|t| quote!(&#t)),
                    cheap: v.cheap,
                }
            }
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) && self.is_by_ref(&u.expr) => {
                self.expr(&u.expr, pre)
            }
            Expr::Unary(u) => {
                let v = self.expr(&u.expr, pre);
                let (op, p) = (&u.op, v.p);
                Val {
                    p: quote!((#op #p)),
                    t: v.t.map(|t| quote!((#op #t))),
                    cheap: v.cheap && matches!(u.op, syn::UnOp::Deref(_)),
                }
            }
            Expr::Field(f) => {
                let v = self.expr(&f.base, pre);
                let (p, m) = (v.p, &f.member);
                Val {
                    p: quote!(#p.#m),
                    t: v.t.map(|t| quote!(#t.#m)),
                    cheap: v.cheap,
                }
            }
            Expr::Index(i) => {
                let v = self.expr(&i.expr, pre);
                let idx = if is_cheap(&i.index) {
                    i.index.to_token_stream()
                } else {
                    let index = &i.index;
                    self.share(quote!(#index), false, pre)
                };
                let p = v.p;
                Val {
                    p: quote!(#p[#idx]),
                    t: v.t.map(|t| quote!(#t[#idx])),
                    cheap: v.cheap,
                }
            }
            Expr::Binary(b) => self.binary(b, pre),
            Expr::Cast(c) => {
                let v = self.expr(&c.expr, pre);
                let (p, ty) = (v.p, &c.ty);
                Val {
                    p: quote!((#p as #ty)),
                    t: v.t.map(|t| quote!((#t as #ty))),
                    cheap: false,
                }
            }
            Expr::Tuple(t) => {
                let (ps, ts) = self.elements(t.elems.iter(), pre);
                Val {
                    p: quote!((#(#ps,)*)),
                    t: Some(quote!((#(#ts,)*))),
                    cheap: false,
                }
            }
            Expr::Array(a) => {
                let (ps, ts) = self.elements(a.elems.iter(), pre);
                Val {
                    p: quote!([#(#ps),*]),
                    t: Some(quote!([#(#ts),*])),
                    cheap: false,
                }
            }
            Expr::Repeat(r) => {
                let v = self.expr(&r.expr, pre);
                let (p, len) = (v.p, &r.len);
                Val {
                    p: quote!([#p; #len]),
                    t: v.t.map(|t| quote!([#t; #len])),
                    cheap: false,
                }
            }
            Expr::Macro(m) if m.mac.path.is_ident("vec") => match vec_items(&m.mac) {
                Some((items, Some(len))) => {
                    let v = self.expr(&items[0], pre);
                    let p = v.p;
                    Val {
                        p: quote!(vec![#p; #len]),
                        t: v.t.map(|t| quote!(vec![#t; #len])),
                        cheap: false,
                    }
                }
                Some((items, None)) => {
                    let (ps, ts) = self.elements(items.iter(), pre);
                    Val {
                        p: quote!(vec![#(#ps),*]),
                        t: Some(quote!(vec![#(#ts),*])),
                        cheap: false,
                    }
                }
                None => self.refuse(e, "forward mode reads `vec![a, b]` and `vec![x; n]`"),
            },
            Expr::MethodCall(m) => self.method(m, pre),
            Expr::Call(c) => self.call(c, pre),
            _ => self.refuse(
                e,
                "forward mode does not follow this expression of a value with a slope yet",
            ),
        }
    }

    /// A name a walk bound to a reference to an element.
    fn is_by_ref(&self, e: &Expr) -> bool {
        matches!(e, Expr::Path(p) if p.path.get_ident().is_some_and(|i| self.by_ref.contains(&i.to_string())))
    }

    pub(crate) fn refuse<T: ToTokens>(&mut self, at: T, message: &str) -> Val {
        self.errors.at(&at, message);
        Val {
            p: at.to_token_stream(),
            t: None,
            cheap: false,
        }
    }

    /// Elements of a tuple or array: values, and tangents with zeros for
    /// the constant ones.
    pub(crate) fn elements<'a>(
        &mut self,
        elems: impl Iterator<Item = &'a Expr>,
        pre: &mut TokenStream,
    ) -> (Vec<TokenStream>, Vec<TokenStream>) {
        let (mut ps, mut ts) = (Vec::new(), Vec::new());
        for e in elems {
            let v = self.expr(e, pre);
            let t = v.t.unwrap_or_else(|| self.zero_of(e));
            ps.push(v.p);
            ts.push(t);
        }
        (ps, ts)
    }

    fn binary(&mut self, b: &syn::ExprBinary, pre: &mut TokenStream) -> Val {
        use syn::BinOp::*;
        let a = self.expr(&b.left, pre);
        let c = self.expr(&b.right, pre);
        match b.op {
            Add(_) | Sub(_) => {
                let op = &b.op;
                let (pa, pc) = (a.p, c.p);
                let t = match (a.t, c.t) {
                    (Some(x), Some(y)) => Some(quote!((#x #op #y))),
                    (Some(x), None) => Some(x),
                    (None, Some(y)) if matches!(b.op, Sub(_)) => Some(quote!((-#y))),
                    (None, y) => y,
                };
                return Val {
                    p: quote!((#pa #op #pc)),
                    t,
                    cheap: false,
                };
            }
            Mul(_) => {
                let pa = match c.t.is_some() {
                    true => self.share(a.p, a.cheap, pre),
                    false => a.p,
                };
                let pc = match a.t.is_some() {
                    true => self.share(c.p, c.cheap, pre),
                    false => c.p,
                };
                let t = match (a.t, c.t) {
                    (Some(x), Some(y)) => quote!((#x * #pc + #pa * #y)),
                    (Some(x), None) => quote!((#x * #pc)),
                    (None, Some(y)) => quote!((#pa * #y)),
                    (None, None) => self.k(0.0),
                };
                return Val {
                    p: quote!((#pa * #pc)),
                    t: Some(t),
                    cheap: false,
                };
            }
            Div(_) => {
                let pc = self.share(c.p, c.cheap, pre);
                match c.t {
                    None => {
                        let pa = a.p;
                        let t = a.t.map(|x| quote!((#x / #pc)));
                        return Val {
                            p: quote!((#pa / #pc)),
                            t,
                            cheap: false,
                        };
                    }
                    Some(y) => {
                        let pa = a.p;
                        let q = self.share(quote!((#pa / #pc)), false, pre);
                        let t = match a.t {
                            Some(x) => quote!(((#x - #q * #y) / #pc)),
                            None => quote!((-(#q * #y) / #pc)),
                        };
                        return Val {
                            p: q,
                            t: Some(t),
                            cheap: true,
                        };
                    }
                }
            }
            _ => {}
        };
        self.refuse(
            b,
            "forward mode follows `+ - * /` of values with a slope; this operator has none",
        )
    }

    /// The zero tangent of a constant expression, typed as it is.
    pub(crate) fn zero_of(&self, e: &Expr) -> TokenStream {
        match e {
            // a copy of an array (`h[1..3].to_vec()`, `h.clone()`): zeros
            // of its shape, below
            e if crate::facts::syntax::copied(e).is_some() => {}
            Expr::Lit(_) | Expr::Binary(_) | Expr::Cast(_) | Expr::MethodCall(_) => {
                return self.k(0.0)
            }
            _ => {}
        }
        if let Some(literal) = super::syntax::branch_array(e) {
            return self.zero_of(literal);
        }
        match e {
            Expr::Paren(p) => self.zero_of(&p.expr),
            // a name the inliner declares before its value (`placeholder()`):
            // the tangent too, typed by its first assignment
            Expr::Call(c)
                if c.args.is_empty()
                    && matches!(&*c.func, Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "placeholder")) =>
            {
                quote!(#e)
            }
            Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => self.zero_of(&u.expr),
            Expr::Reference(r) if r.mutability.is_none() => {
                let z = self.zero_of(&r.expr);
                quote!(&#z)
            }
            Expr::Array(a) => {
                let z = a.elems.iter().map(|e| self.zero_of(e));
                quote!([#(#z),*])
            }
            Expr::Tuple(t) => {
                let z = t.elems.iter().map(|e| self.zero_of(e));
                quote!((#(#z,)*))
            }
            Expr::Repeat(r) => {
                let (z, len) = (self.zero_of(&r.expr), &r.len);
                quote!([#z; #len])
            }
            Expr::Macro(m) if m.mac.path.is_ident("vec") => match vec_items(&m.mac) {
                Some((items, Some(len))) => {
                    let z = self.zero_of(&items[0]);
                    quote!(vec![#z; #len])
                }
                Some((items, None)) => {
                    let z = items.iter().map(|e| self.zero_of(e));
                    quote!(vec![#(#z),*])
                }
                None => quote!(::mica::__private::zeros_like(&(#e))),
            },
            // the reverse of the directional derivative takes no reference
            // to a value it may record: the zero comes from `detach` of it,
            // by value (of a copy, where it is a name read again: `&h`)
            Expr::Path(_) if self.dir => {
                quote!(::mica::__private::zero_value(::mica::detach(::core::clone::Clone::clone(&#e))))
            }
            _ if self.dir => quote!(::mica::__private::zero_value(::mica::detach(#e))),
            _ => quote!(::mica::__private::zeros_like(&(#e))),
        }
    }

    /// The zero tangent of the value bound to `name`.
    pub(crate) fn zero_of_value(&self, name: &proc_macro2::Ident) -> TokenStream {
        match self.dir {
            true => {
                quote!(::mica::__private::zero_value(::mica::detach(::core::clone::Clone::clone(&#name))))
            }
            false => quote!(::mica::__private::zeros_like(&#name)),
        }
    }

    /// The tangent of a place written to: `x[i]` → `dot_x[i]`.
    pub(crate) fn place_dot(&self, e: &Expr) -> TokenStream {
        match e {
            Expr::Path(p) => match p.path.get_ident() {
                Some(i) => {
                    let d = self.dot(i);
                    quote!(#d)
                }
                None => quote!(#p),
            },
            Expr::Index(i) => {
                let (b, idx) = (self.place_dot(&i.expr), &i.index);
                quote!(#b[#idx])
            }
            Expr::Field(f) => {
                let (b, m) = (self.place_dot(&f.base), &f.member);
                quote!(#b.#m)
            }
            Expr::Unary(u) => {
                let (op, b) = (&u.op, self.place_dot(&u.expr));
                quote!(#op #b)
            }
            Expr::Paren(p) => self.place_dot(&p.expr),
            Expr::Reference(r) => {
                let (m, b) = (&r.mutability, self.place_dot(&r.expr));
                quote!(&#m #b)
            }
            other => quote!(#other),
        }
    }
}
