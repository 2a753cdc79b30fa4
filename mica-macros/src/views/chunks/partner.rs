//! A chunk loop zipped with a second chunk source, as a step over two
//! arrays of points is written: `for (p, v) in pos.iter_mut().zip(vel
//! .iter_mut())`, `.zip(&mut vel)`, `.zip(rows.chunks_mut(d))`. Both
//! sources become ranges of their chunks' numbers, `(0..n).zip(0..m)`, and
//! each pattern binds its chunk as a view by its own number: the pairs are
//! the same, and the zip still stops at the shorter.

use super::{chunk_source, is_adapter, ChunkLoop};
use crate::views::places::unparen;
use syn::Expr;

/// The zip directly over the loop's chunk source, if its argument is a
/// second chunk source with no adapters of its own: that source, and the
/// pattern path to its binding (the first's, with the zip's `0` a `1`).
pub(super) fn partner(e: &Expr, first: &[usize]) -> Option<(ChunkLoop, Vec<usize>)> {
    let arg = zip_arg(e)?;
    let mut own = Vec::new();
    let source = chunk_source(&as_chunks(arg), &mut own)?;
    if !own.is_empty() {
        return None;
    }
    // the zip is the innermost adapter: its `0` is the path's last step
    let mut path = first.to_vec();
    match path.last_mut() {
        Some(step @ 0) => *step = 1,
        _ => return None,
    }
    Some((source, path))
}

/// `&mut b` as the `b.iter_mut()` it iterates.
fn as_chunks(arg: &Expr) -> Expr {
    match unparen(arg) {
        Expr::Reference(r) if r.mutability.is_some() => {
            let place = &r.expr;
            syn::parse_quote!(#place.iter_mut())
        }
        other => other.clone(),
    }
}

/// The argument of the zip whose receiver is the chunk source itself.
fn zip_arg(e: &Expr) -> Option<&Expr> {
    let Expr::MethodCall(m) = unparen(e) else {
        return None;
    };
    let method = m.method.to_string();
    if method == "zip" && m.args.len() == 1 && !is_adapter_call(&m.receiver) {
        return m.args.first();
    }
    if is_adapter(&method) {
        return zip_arg(&m.receiver);
    }
    None
}

/// [`zip_arg`], to replace the argument.
pub(super) fn zip_arg_mut(e: &mut Expr) -> Option<&mut Expr> {
    let e = match e {
        Expr::Paren(p) => return zip_arg_mut(&mut p.expr),
        Expr::Group(g) => return zip_arg_mut(&mut g.expr),
        e => e,
    };
    let Expr::MethodCall(m) = e else {
        return None;
    };
    let method = m.method.to_string();
    if method == "zip" && m.args.len() == 1 && !is_adapter_call(&m.receiver) {
        return m.args.first_mut();
    }
    if is_adapter(&method) {
        return zip_arg_mut(&mut m.receiver);
    }
    None
}

fn is_adapter_call(e: &Expr) -> bool {
    matches!(unparen(e), Expr::MethodCall(m) if is_adapter(&m.method.to_string()))
}
