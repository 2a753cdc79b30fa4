//! Arrays made by closures: an array's own `.map(f)` (`[T; N]::map`), a
//! new array each element of which is `f` of the element at its place, and
//! `std::array::from_fn(|i| …)`, each written as the loop that makes it
//! (`let mut q = [0.0; N]; for i in 0..N { q[i] = f(w[i]); }`) where the
//! length is written: `w` a name bound once with its type known (a
//! parameter `w: &[f64; 3]`, a `let` of a literal), `from_fn` in a `let`
//! with its type or with the call's turbofish.

use super::chain::unparen;
use super::patterns::Elem;
use super::Chains;
use syn::Expr;

/// The loop of `e` if `e` is `w.map(f)` on such an array `w`.
pub(super) fn array_map(ch: &mut Chains, e: &Expr) -> syn::Result<Option<Expr>> {
    let Expr::MethodCall(m) = unparen(e) else {
        return Ok(None);
    };
    if m.method != "map" || m.args.len() != 1 || m.turbofish.is_some() {
        return Ok(None);
    }
    let Expr::Path(p) = unparen(&m.receiver) else {
        return Ok(None);
    };
    let Some(syn::Type::Array(array)) = p
        .path
        .get_ident()
        .and_then(|name| ch.arrays.get(&name.to_string()))
    else {
        return Ok(None);
    };
    // (a test of each element, `w.map(|x| x > 0.0)`, makes no floats: left
    // to the message that says what to write)
    if let Expr::Closure(c) = unparen(&m.args[0]) {
        if crate::facts::syntax::is_test(&c.body) {
            return Ok(None);
        }
    }
    let (elem, len) = (array.elem.clone(), array.len.clone());
    let w = &m.receiver;
    made(ch, &elem, &len, &m.args[0], |i| syn::parse_quote!(#w[#i])).map(Some)
}

/// `{ let mut q = [0; len]; for i in 0..len { q[i] = f(arg(i)); } q }`.
fn made(
    ch: &mut Chains,
    elem: &syn::Type,
    len: &Expr,
    f: &Expr,
    arg: impl FnOnce(&syn::Ident) -> Expr,
) -> syn::Result<Expr> {
    let zero = zero_of(ch, elem);
    let (i, made) = (ch.fresh("i"), ch.fresh("made"));
    let (lines, value) = ch.apply_flat(f, vec![Elem::One(arg(&i))])?;
    ch.results.insert(made.to_string());
    Ok(syn::parse_quote!({
        let mut #made = [#zero; #len];
        for #i in 0..#len {
            #(#lines)*
            #made[#i] = #value;
        }
        #made
    }))
}

/// `std::array::from_fn(|i| …)` with its length written, in the `let`'s
/// type (`let q: [f64; 3] = from_fn(…)`, given as `ty`) or in the call's
/// (`from_fn::<f64, 3, _>(…)`): the loop that makes the array, the closure
/// given each index.
pub(super) fn from_fn(
    ch: &mut Chains,
    e: &Expr,
    ty: Option<&syn::Type>,
) -> syn::Result<Option<Expr>> {
    let Expr::Call(c) = unparen(e) else {
        return Ok(None);
    };
    let (Expr::Path(p), [f]) = (unparen(&c.func), &c.args.iter().collect::<Vec<_>>()[..]) else {
        return Ok(None);
    };
    let Some(last) = p.path.segments.last() else {
        return Ok(None);
    };
    let closure = match unparen(f) {
        Expr::Closure(closure) if last.ident == "from_fn" && closure.inputs.len() == 1 => closure,
        _ => return Ok(None),
    };
    if crate::facts::syntax::is_test(&closure.body) {
        return Ok(None);
    }
    let (elem, len): (syn::Type, Expr) = match (&last.arguments, ty) {
        (syn::PathArguments::AngleBracketed(a), _) if a.args.len() >= 2 => {
            let syn::GenericArgument::Type(elem) = &a.args[0] else {
                return Ok(None);
            };
            let len: Expr = match &a.args[1] {
                syn::GenericArgument::Const(n) => n.clone(),
                // (a const parameter's name reads as a type)
                syn::GenericArgument::Type(syn::Type::Path(n)) => syn::parse_quote!(#n),
                _ => return Ok(None),
            };
            (elem.clone(), len)
        }
        (_, Some(syn::Type::Array(a))) => ((*a.elem).clone(), a.len.clone()),
        _ => return Ok(None),
    };
    made(ch, &elem, &len, f, |i| syn::parse_quote!(#i)).map(Some)
}

/// The zero of an element type: a float type parameter's (of an element
/// whose type is not written, the function's one float parameter's), or
/// a literal that takes the type the closure's values give it.
fn zero_of(ch: &Chains, elem: &syn::Type) -> Expr {
    match (elem, &ch.floats[..]) {
        (syn::Type::Path(t), _) if t.path.get_ident().is_some_and(|i| ch.floats.contains(i)) => {
            crate::generics::zero(elem)
        }
        (syn::Type::Path(t), _) if t.path.is_ident("f64") || t.path.is_ident("f32") => {
            syn::parse_quote!(0.0)
        }
        (_, [t]) => crate::generics::zero(t),
        _ => syn::parse_quote!(0.0),
    }
}
