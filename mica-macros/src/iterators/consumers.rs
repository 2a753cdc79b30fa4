//! The consumers of a chain: `sum`, `product`, `fold`, `count`, `collect`,
//! `any`, `all` and `max_by`/`min_by`/`reduce` with `.unwrap()`,
//! `.expect(…)`, `.unwrap_or(…)` or `.unwrap_or_default()`, each a block
//! holding the loop.

use super::chain::{err, unparen, Elem, Seq};
use super::Chains;
use quote::ToTokens;
use syn::{Expr, Stmt};

/// `chain.sum()`, `.product()`, `.fold(…)`, `.count()`, `.collect()`,
/// `.max_by(…).unwrap()`, `.min_by(…).unwrap_or(d)`, `.reduce(f)` with
/// either: a block holding the loop.
/// `deref`: the chain stands under `*` (`*xs.iter().max_by(…).unwrap()`).
pub(super) fn consumer(ch: &mut Chains, e: &Expr, deref: bool) -> syn::Result<Option<Expr>> {
    let Expr::MethodCall(m) = unparen(e) else {
        return Ok(None);
    };
    let method = m.method.to_string();
    // `.max_by(…).unwrap()`, `.reduce(f).unwrap_or(d)`
    if let Some(empty) = Empty::of(m, deref) {
        let Expr::MethodCall(inner) = unparen(&m.receiver) else {
            return Ok(None);
        };
        let which = inner.method.to_string();
        if !matches!(which.as_str(), "max_by" | "min_by" | "reduce") || inner.args.len() != 1 {
            return Ok(None);
        }
        let Some(seq) = ch.seq(&inner.receiver)? else {
            return Ok(None);
        };
        if which == "reduce" {
            return reduce(ch, seq, &inner.args[0], empty).map(Some);
        }
        return extreme(ch, seq, &inner.args[0], which == "max_by", empty).map(Some);
    }
    if deref {
        return Ok(None);
    }
    // `x[a..b].to_vec()`: the elements collected (a whole array's copy is
    // the lowering's)
    let sub_slice = matches!(unparen(&m.receiver), Expr::Index(ix) if matches!(unparen(&ix.index), Expr::Range(_)));
    let method = match method.as_str() {
        "to_vec" | "to_owned" if sub_slice && m.args.is_empty() => "collect".to_string(),
        _ => method,
    };
    let consumers = [
        "sum", "product", "fold", "count", "collect", "any", "all", "position",
    ];
    if !consumers.contains(&method.as_str()) {
        return Ok(None);
    }
    let Some(seq) = ch.seq(&m.receiver)? else {
        return Ok(None);
    };
    // `fold((0.0, 0.0), |(a, b), v| (a + v, b + v * v))`: one accumulator
    // for each of the tuple's values
    if method == "fold" && m.args.len() == 2 {
        if let Expr::Tuple(init) = unparen(&m.args[0]) {
            if init.elems.len() >= 2 {
                return tuple_fold(ch, seq, init, &m.args[1]).map(Some);
            }
        }
    }
    // a range's own numbers, summed or collected, are integers
    if matches!(method.as_str(), "sum" | "product" | "collect")
        && matches!(&seq.elem, Elem::One(Expr::Path(p)) if p.path.is_ident(&seq.index))
    {
        return Ok(None);
    }
    let typed = m
        .turbofish
        .as_ref()
        .and_then(|t| t.args.first())
        .map(|a| a.to_token_stream().to_string());
    // a generic float: the type parameter the turbofish names, or the
    // function's one float parameter
    let generic = match typed.as_deref() {
        Some(t) => ch.floats.iter().find(|f| *f == t),
        None if ch.floats.len() == 1 => ch.floats.first(),
        None => None,
    }
    .or_else(|| {
        // `collect::<Vec<T>>()`
        let t = typed.as_deref()?;
        let inner = t.strip_prefix("Vec <")?.strip_suffix('>')?.trim();
        ch.floats
            .iter()
            .find(|f| *f == inner)
            .or((inner == "_" && ch.floats.len() == 1).then(|| &ch.floats[0]))
    })
    .cloned();
    let integer = generic.is_none()
        && typed
            .as_deref()
            .is_some_and(|t| !matches!(t, "f32" | "f64") && !t.contains("Vec"));
    let acc = ch.fresh("acc");
    ch.results.insert(acc.to_string());
    let span = m.method.span();
    let (init, step): (Expr, Vec<Stmt>) = match method.as_str() {
        "sum" | "product" => {
            let x = seq.scalar(&m.method, &method)?;
            // a float sum starts at -0.0, as std's does: an empty sum is -0.0
            let (zero, one): (Expr, Expr) = match (integer, typed.as_deref()) {
                _ if generic.is_some() => (
                    {
                        let zero = crate::generics::zero(&generic);
                        syn::parse_quote!(-#zero)
                    },
                    syn::parse_quote!(<#generic as ::mica::__private::One>::one()),
                ),
                (true, _) => (syn::parse_quote!(0), syn::parse_quote!(1)),
                (false, Some("f32")) => (syn::parse_quote!(-0.0_f32), syn::parse_quote!(1.0_f32)),
                (false, Some("f64")) => (syn::parse_quote!(-0.0_f64), syn::parse_quote!(1.0_f64)),
                _ => (syn::parse_quote!(-0.0), syn::parse_quote!(1.0)),
            };
            if method == "sum" {
                (zero, vec![syn::parse_quote_spanned!(span=> #acc += #x;)])
            } else {
                (one, vec![syn::parse_quote_spanned!(span=> #acc *= #x;)])
            }
        }
        "count" => (
            syn::parse_quote!(0usize),
            vec![syn::parse_quote!(#acc += 1;)],
        ),
        // `any(p)`, `all(p)`: `p` asked of each element until one decides,
        // as std asks it
        "any" | "all" if m.args.len() == 1 => {
            let (mut lines, said) = ch.apply_flat(&m.args[0], vec![seq.elem.clone()])?;
            let (init, undecided): (Expr, Expr) = if method == "any" {
                (syn::parse_quote!(false), syn::parse_quote!(!#acc))
            } else {
                (syn::parse_quote!(true), syn::parse_quote!(#acc))
            };
            lines.push(syn::parse_quote!(#acc = #said;));
            (init, vec![syn::parse_quote!(if #undecided { #(#lines)* })])
        }
        // `position(p)`: the first element's place where `p` holds, `p`
        // asked until then, as std asks it (a number: no slope)
        "position" if m.args.len() == 1 => {
            let Some(at) = seq.position() else {
                let what = format!("`.position(…)` after `{}`", seq.cut());
                return Err(err(&m.method, &what));
            };
            let (mut lines, said) = ch.apply_flat(&m.args[0], vec![seq.elem.clone()])?;
            lines.push(syn::parse_quote!(if #said { #acc = ::core::option::Option::Some(#at); }));
            (
                syn::parse_quote!(::core::option::Option::<usize>::None),
                vec![syn::parse_quote!(if #acc.is_none() { #(#lines)* })],
            )
        }
        "fold" if m.args.len() == 2 => {
            let accumulated = Elem::One(syn::parse_quote!(#acc));
            let (mut lines, next) =
                ch.apply_flat(&m.args[1], vec![accumulated, seq.elem.clone()])?;
            lines.push(syn::parse_quote!(#acc = #next;));
            (m.args[0].clone(), lines)
        }
        "collect" => {
            if seq.maps_to_array {
                return Err(syn::Error::new_spanned(
                    &m.method,
                    "`.collect()` of arrays (a `Vec` of `Vec`s) over recorded values is not supported yet; write the loops: `let mut m = vec![vec![0.0; n]; k]; for i in 0..k { for j in 0..n { m[i][j] = …; } }`",
                ));
            }
            let x = seq.scalar(&m.method, "collect")?;
            let Some(at) = seq.position() else {
                let what = format!("`.collect()` after `{}`", seq.cut());
                return Err(err(&m.method, &what));
            };
            let count = seq.count();
            let zero: Expr = match &generic {
                Some(t) => crate::generics::zero(t),
                None => syn::parse_quote!(0.0),
            };
            (
                syn::parse_quote!(vec![#zero; #count]),
                vec![syn::parse_quote!(#acc[#at] = #x;)],
            )
        }
        _ => return Ok(None),
    };
    // `fold(0.0, f64::max)`: the float type the function's path names
    // (std's call fixes it; the method the path becomes does not);
    // `fold(0.0, |m: f64, v| m.max(v))`: the type the closure gives its
    // accumulator
    let ty: Option<syn::Type> = match (method.as_str(), m.args.last().map(unparen)) {
        ("fold", Some(Expr::Path(p))) => float_of_path(p).map(|t| syn::parse_quote!(#t)),
        ("fold", Some(Expr::Closure(c))) => match c.inputs.first() {
            Some(syn::Pat::Type(t)) => Some((*t.ty).clone()),
            _ => None,
        },
        _ => None,
    };
    let (before, lp) = seq.wrap(None, step);
    let declared: Stmt = match ty {
        Some(ty) => syn::parse_quote!(let mut #acc: #ty = #init;),
        None => syn::parse_quote!(let mut #acc = #init;),
    };
    // (the lines before the loop first: the source a chain binds, and the
    // part lengths a `collect`'s count reads; Rust evaluates the chain
    // before the consumer's arguments too)
    Ok(Some(syn::parse_quote!({
        #(#before)*
        #declared
        #lp
        #acc
    })))
}

/// A `fold` whose accumulator is a tuple made in place: one accumulator
/// for each value, the closure given them as the tuple (`|(a, b), v|` or
/// `|acc, v|` reading `acc.0`), its new values computed first and then
/// assigned; the block's value the tuple of the accumulators.
fn tuple_fold(ch: &mut Chains, seq: Seq, init: &syn::ExprTuple, f: &Expr) -> syn::Result<Expr> {
    let accs: Vec<syn::Ident> = init
        .elems
        .iter()
        .map(|_| {
            let acc = ch.fresh("acc");
            ch.results.insert(acc.to_string());
            acc
        })
        .collect();
    let accumulated = Elem::Tuple(
        accs.iter()
            .map(|a| Elem::One(syn::parse_quote!(#a)))
            .collect(),
    );
    let (mut lines, next) = ch.apply_flat(f, vec![accumulated, seq.elem.clone()])?;
    let fresh: Vec<syn::Ident> = accs.iter().map(|_| ch.fresh("next")).collect();
    match unparen(&next) {
        Expr::Tuple(t) if t.elems.len() == accs.len() => {
            for (n, e) in fresh.iter().zip(&t.elems) {
                lines.push(syn::parse_quote!(let #n = #e;));
            }
        }
        _ => lines.push(syn::parse_quote!(let (#(#fresh),*) = #next;)),
    }
    for (a, n) in accs.iter().zip(&fresh) {
        lines.push(syn::parse_quote!(#a = #n;));
    }
    let (before, lp) = seq.wrap(None, lines);
    let inits = init.elems.iter();
    Ok(syn::parse_quote!({
        #(#before)*
        #(let mut #accs = #inits;)*
        #lp
        (#(#accs),*)
    }))
}

/// The float type a function's path names: `f64` of `f64::max` (and of
/// `<f64>::max`).
fn float_of_path(p: &syn::ExprPath) -> Option<syn::Ident> {
    let ty = match &p.qself {
        Some(q) if p.path.segments.len() == 1 => {
            let mut ty = &*q.ty;
            // (a macro's `$t` stands in an invisible group)
            while let syn::Type::Group(g) = ty {
                ty = &g.elem;
            }
            match ty {
                syn::Type::Path(t) if t.qself.is_none() => t.path.get_ident()?.clone(),
                _ => return None,
            }
        }
        None if p.path.segments.len() == 2 => p.path.segments[0].ident.clone(),
        _ => return None,
    };
    (ty == "f64" || ty == "f32").then_some(ty)
}

/// `reduce(f).unwrap()`: the first element, then `f` of what is kept and
/// each next one (`f64::max`, `|a, b| a + b`), as std folds it; an empty
/// chain panics as the `unwrap` does.
fn reduce(ch: &mut Chains, seq: Seq, f: &Expr, empty: Empty) -> syn::Result<Expr> {
    let x = seq.scalar(f, "`.reduce(…)`")?;
    let (acc, first, value) = (ch.fresh("acc"), ch.fresh("first"), ch.fresh("v"));
    ch.results.insert(acc.to_string());
    let (mut next_lines, next) = ch.apply_flat(
        f,
        vec![
            Elem::One(syn::parse_quote!(#acc)),
            Elem::One(syn::parse_quote!(#value)),
        ],
    )?;
    next_lines.push(syn::parse_quote!(#acc = #next;));
    let step: Vec<Stmt> = vec![
        syn::parse_quote!(let #value = #x;),
        syn::parse_quote!(if #first { #acc = #value; #first = false; } else { #(#next_lines)* }),
    ];
    Ok(first_kept(ch, seq, step, &acc, &first, empty))
}

/// What an `Option` a chain gives (`max_by`, `min_by`, `reduce`) is when
/// the chain is empty, as the call on it says.
pub(super) enum Empty {
    /// `.unwrap()`, or `.expect(message)`: a panic, as theirs
    Panic(Option<Expr>),
    /// `.unwrap_or(d)` (`&d` of a chain of references, read as `d`), or
    /// `.unwrap_or_default()`'s zero (`None`)
    Or(Option<Expr>),
}

impl Empty {
    /// The ending `m` writes, if it is one; `deref`: the whole stands
    /// under `*`, so a default given by reference is read through it.
    fn of(m: &syn::ExprMethodCall, deref: bool) -> Option<Empty> {
        let arg = m.args.first();
        Some(match (m.method.to_string().as_str(), arg) {
            ("unwrap", None) => Empty::Panic(None),
            ("expect", Some(message)) if m.args.len() == 1 => Empty::Panic(Some(message.clone())),
            ("unwrap_or_default", None) => Empty::Or(None),
            ("unwrap_or", Some(d)) if m.args.len() == 1 => Empty::Or(Some(match unparen(d) {
                Expr::Reference(r) if r.mutability.is_none() => (*r.expr).clone(),
                d if deref => syn::parse_quote!(*#d),
                d => d.clone(),
            })),
            _ => return None,
        })
    }
}

/// The loop of a consumer whose `Option` needs an element: `kept` starts
/// at zero and `first` true, and `step` runs per element; an empty chain
/// panics as the `unwrap` does, or gives the default.
fn first_kept(
    ch: &mut Chains,
    seq: Seq,
    step: Vec<Stmt>,
    kept: &syn::Ident,
    first: &syn::Ident,
    empty: Empty,
) -> Expr {
    let (before, lp) = seq.wrap(None, step);
    // (a generic function's one float type: its zero, not a literal)
    let zero: Expr = match &ch.floats[..] {
        [t] => crate::generics::zero(t),
        _ => syn::parse_quote!(0.0),
    };
    let end: Expr = match empty {
        Empty::Panic(None) => syn::parse_quote!({
            assert!(!#first, "called `Option::unwrap()` on a `None` value");
            #kept
        }),
        Empty::Panic(Some(message)) => syn::parse_quote!({
            assert!(!#first, "{}", #message);
            #kept
        }),
        // the default is evaluated after the chain, as an argument is
        Empty::Or(d) => {
            let d = d.unwrap_or_else(|| zero.clone());
            let dflt = ch.fresh("default");
            syn::parse_quote!({
                let #dflt = #d;
                if #first { #dflt } else { #kept }
            })
        }
    };
    syn::parse_quote!({
        let mut #kept = #zero;
        let mut #first = true;
        #(#before)*
        #lp
        #end
    })
}

/// `max_by(cmp).unwrap()` / `min_by(cmp).unwrap()` where `cmp` compares
/// its two arguments (`a.partial_cmp(b).unwrap()`, `a.total_cmp(b)`, or
/// the other way round): the last greatest, the first least.
fn extreme(ch: &mut Chains, seq: Seq, cmp: &Expr, max: bool, empty: Empty) -> syn::Result<Expr> {
    let what = if max {
        "`.max_by(…)`"
    } else {
        "`.min_by(…)`"
    };
    let x = seq.scalar(cmp, what)?;
    let Expr::Closure(c) = unparen(cmp) else {
        return Err(err(
            cmp,
            &format!("{what} with a comparison other than a closure"),
        ));
    };
    let names: Vec<String> = c
        .inputs
        .iter()
        .filter_map(|p| {
            crate::facts::places::pattern_names(p)
                .first()
                .map(|i| i.to_string())
        })
        .collect();
    let [a, b] = &names[..] else {
        return Err(err(
            cmp,
            &format!("{what} whose closure does not name two values"),
        ));
    };
    let forward = compares(&c.body, a, b);
    let backward = compares(&c.body, b, a);
    let max = match (forward, backward) {
        (true, _) => max,
        (_, true) => !max,
        _ => {
            return Err(err(
                &c.body,
                &format!("{what} with a comparison other than `a.partial_cmp(b).unwrap()` or `a.total_cmp(b)`"),
            ))
        }
    };
    let (best, first, value) = (ch.fresh("best"), ch.fresh("first"), ch.fresh("v"));
    ch.results.insert(best.to_string());
    let better: Expr = if max {
        syn::parse_quote!(#value >= #best)
    } else {
        syn::parse_quote!(#value < #best)
    };
    let step: Vec<Stmt> = vec![
        syn::parse_quote!(let #value = #x;),
        syn::parse_quote!(if #first || #better { #best = #value; #first = false; }),
    ];
    Ok(first_kept(ch, seq, step, &best, &first, empty))
}

/// Whether `body` is `a.partial_cmp(b).unwrap()` or `a.total_cmp(b)`
/// (references and dereferences aside).
fn compares(body: &Expr, a: &str, b: &str) -> bool {
    let names = |e: &Expr, n: &str| -> bool {
        let mut e = unparen(e);
        loop {
            match e {
                Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => e = unparen(&u.expr),
                Expr::Reference(r) => e = unparen(&r.expr),
                Expr::Path(p) => return p.path.is_ident(n),
                _ => return false,
            }
        }
    };
    let call = match unparen(body) {
        Expr::MethodCall(u) if u.method == "unwrap" && u.args.is_empty() => unparen(&u.receiver),
        other => other,
    };
    match call {
        Expr::MethodCall(c)
            if (c.method == "partial_cmp" || c.method == "total_cmp") && c.args.len() == 1 =>
        {
            names(&c.receiver, a) && names(&c.args[0], b)
        }
        _ => false,
    }
}
