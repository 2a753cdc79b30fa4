//! Loops and chains over `chunks`, `chunks_exact`, `chunks_mut` and
//! `windows`: over the chunks' numbers, each closure or loop body that is
//! given a chunk binding it as a view (`super`).

use super::*;
use crate::helpers::subst::Rename;

mod partner;

/// What a loop's source splits its array into.
#[derive(Clone, Copy)]
enum Split {
    Chunks,
    ChunksExact,
    Windows,
    /// `iter_mut()`: each element
    Each,
}

/// A loop over `x.chunks(d)` (possibly under adapters that keep the
/// chunk's place in the pattern): the array, the split, its size, whether
/// the chunks are `&mut`, and the path from the pattern to the chunk's
/// binding (`0` for `zip`'s first, `1` for `enumerate`'s second).
struct ChunkLoop {
    place: Expr,
    /// for a part of the array (`x[a..b].chunks(d)`): where it starts and
    /// ends (`None`: the array's start, its end)
    start: Option<Expr>,
    end: Option<Expr>,
    split: Split,
    size: Expr,
    mutable: bool,
    /// the chain with the source replaced, written back by the caller
    path: Vec<usize>,
}

/// The chunk source under `e`'s adapters, if any; `path` collects the
/// tuple positions from the outermost adapter in.
fn chunk_source(e: &Expr, path: &mut Vec<usize>) -> Option<ChunkLoop> {
    let Expr::MethodCall(m) = unparen(e) else {
        return None;
    };
    let method = m.method.to_string();
    let (split, mutable) = match method.as_str() {
        "chunks" => (Split::Chunks, false),
        "chunks_mut" => (Split::Chunks, true),
        "chunks_exact" => (Split::ChunksExact, false),
        "chunks_exact_mut" => (Split::ChunksExact, true),
        "windows" => (Split::Windows, false),
        "iter_mut" if m.args.is_empty() => (Split::Each, true),
        "enumerate" if m.args.is_empty() => {
            path.push(1);
            return chunk_source(&m.receiver, path);
        }
        "zip" if m.args.len() == 1 => {
            path.push(0);
            return chunk_source(&m.receiver, path);
        }
        "rev" if m.args.is_empty() => return chunk_source(&m.receiver, path),
        "skip" | "take" | "step_by" if m.args.len() == 1 => return chunk_source(&m.receiver, path),
        // the chunk passes through; the closure is given it too
        "filter" | "take_while" if matches!(m.args.first(), Some(Expr::Closure(c)) if c.inputs.len() == 1) => {
            return chunk_source(&m.receiver, path)
        }
        _ => return None,
    };
    let size: Expr = match split {
        Split::Each => syn::parse_quote!(1),
        _ if m.args.len() == 1 => m.args[0].clone(),
        _ => return None,
    };
    // the array, or a part of it (a view's chunks, once the view is
    // written as its array's indices)
    let (place, start, end) = super::places::part_of(&m.receiver)?;
    Some(ChunkLoop {
        place,
        start,
        end,
        split,
        size,
        mutable,
        path: Vec::new(),
    })
}

/// The adapters a chunk loop may sit under.
fn is_adapter(method: &str) -> bool {
    matches!(
        method,
        "enumerate" | "zip" | "rev" | "skip" | "take" | "step_by" | "filter" | "take_while"
    )
}

/// The closures of the `filter`s (and `take_while`s) between `e` and its
/// chunk source, each
/// with the path from its parameter to the chunk (outermost first).
fn filters<'e>(
    e: &'e mut Expr,
    out: &mut Vec<(&'e mut syn::ExprClosure, Vec<usize>)>,
) -> Vec<usize> {
    match e {
        Expr::Paren(p) => filters(&mut p.expr, out),
        Expr::Group(g) => filters(&mut g.expr, out),
        Expr::MethodCall(m) if is_adapter(&m.method.to_string()) => {
            let method = m.method.to_string();
            let mut path = filters(&mut m.receiver, out);
            match method.as_str() {
                "enumerate" => path.insert(0, 1),
                "zip" => path.insert(0, 0),
                "filter" | "take_while" => {
                    if let Some(Expr::Closure(c)) = m.args.first_mut() {
                        out.push((c, path.clone()));
                    }
                }
                _ => {}
            }
            path
        }
        _ => Vec::new(),
    }
}

/// `e` with its chunk source (found as [`chunk_source`] does) replaced by
/// `with`.
fn replace_source(e: &mut Expr, with: Expr) {
    match e {
        Expr::Paren(p) => replace_source(&mut p.expr, with),
        Expr::Group(g) => replace_source(&mut g.expr, with),
        Expr::MethodCall(m) if is_adapter(&m.method.to_string()) => {
            replace_source(&mut m.receiver, with)
        }
        other => *other = with,
    }
}

/// The sub-pattern at `path` of `pat`, if each step is a pair.
fn pattern_at<'p>(pat: &'p mut Pat, path: &[usize]) -> Option<&'p mut Pat> {
    let Some((first, rest)) = path.split_first() else {
        return Some(pat);
    };
    match pat {
        Pat::Paren(p) => pattern_at(&mut p.pat, path),
        Pat::Reference(r) => pattern_at(&mut r.pat, path),
        Pat::Tuple(t) if t.elems.len() == 2 => pattern_at(&mut t.elems[*first], rest),
        _ => None,
    }
}

impl Views {
    /// `for row in x.chunks(d) { … }` as a loop over the chunks' numbers
    /// binding `row` as a view; the lines that go before the loop (the
    /// size, computed once).
    pub(super) fn chunk_loop(&mut self, f: &mut syn::ExprForLoop) -> Option<Vec<Stmt>> {
        // `for v in &mut x`: `x.iter_mut()`
        if let Expr::Reference(r) = unparen(&f.expr) {
            if r.mutability.is_some() && is_stable_place(&r.expr) {
                let place = &r.expr;
                *f.expr = syn::parse_quote!(#place.iter_mut());
            }
        }
        let mut path = Vec::new();
        let mut source = chunk_source(&f.expr, &mut path)?;
        source.path = path;
        // a name the pattern binds that is also an array split (`for (h, b)
        // in h.iter_mut().zip(b)`): the loop's own, renamed in it
        let mut roots = vec![root(&source.place)];
        if let Some((other, _)) = partner::partner(&f.expr, &source.path) {
            roots.push(root(&other.place));
        }
        let mut rename = self.clashes(std::slice::from_ref(&f.pat), roots.clone());
        rename.visit_pat_mut(&mut f.pat);
        rename.visit_block_mut(&mut f.body);
        // and the body's own bindings of those names
        for r in roots.iter().flatten() {
            self.unshadow(&mut f.body.stmts, r);
        }
        let mut bound = Bound::default();
        bound.visit_pat(&f.pat);
        let (chunk, array) = self.chunk_name(f, &source.path, &source.place, &bound)?;
        // `a.iter_mut().zip(b.iter_mut())`: the second source bound too
        let second = match partner::partner(&f.expr, &source.path) {
            Some((other, path)) => {
                let (name, _) = self.chunk_name(f, &path, &other.place, &bound)?;
                Some((other, path, name))
            }
            None => None,
        };
        let mut before: Vec<Stmt> = Vec::new();
        let (place, size, count) = self.chunk_parts(&source, &mut before);
        self.filter_views(&mut f.expr, &source, &place, &size, &array)?;
        let mut views = Vec::new();
        if let Some((other, path, name)) = second {
            let (place, size, count) = self.chunk_parts(&other, &mut before);
            let counter = self.fresh("chunk");
            if let Some(arg) = partner::zip_arg_mut(&mut f.expr) {
                *arg = syn::parse_quote!(0..#count);
            }
            if let Some(p) = pattern_at(&mut f.pat, &path) {
                *p = syn::parse_quote!(#counter);
            }
            if let Some(name) = name {
                views.push(chunk_view(&other, name, &counter, &place, &size));
            }
        }
        let counter = self.fresh("chunk");
        // the chunks' numbers in the source's place, under its adapters
        let direct = chunk_source(&f.expr, &mut Vec::new()).is_some()
            && matches!(unparen(&f.expr), Expr::MethodCall(m) if !is_adapter(&m.method.to_string()));
        match direct {
            true => *f.expr = syn::parse_quote!(0..#count),
            false => replace_source(&mut f.expr, syn::parse_quote!((0..#count))),
        }
        if let Some(p) = pattern_at(&mut f.pat, &source.path) {
            *p = syn::parse_quote!(#counter);
        }
        if let Some(chunk) = chunk {
            views.insert(0, chunk_view(&source, chunk, &counter, &place, &size));
        }
        // (each view's lines before the body, the first's first)
        for view in views.into_iter().rev() {
            let mut body = std::mem::take(&mut f.body.stmts);
            let mut lines = self.bind(view, &mut body);
            lines.extend(body);
            f.body.stmts = lines;
        }
        Some(before)
    }

    /// The renaming of each of `roots` that `pats` bind, to a name of the
    /// loop's or the closure's own.
    fn clashes(&mut self, pats: &[Pat], roots: Vec<Option<String>>) -> Rename {
        let mut bound = Bound::default();
        pats.iter().for_each(|p| bound.visit_pat(p));
        let mut clashes = std::collections::HashMap::new();
        for r in roots.into_iter().flatten() {
            if bound.0.contains(&r) && !clashes.contains_key(&r) {
                let fresh = self.fresh(&r);
                clashes.insert(r, fresh);
            }
        }
        Rename(clashes)
    }

    /// The name a loop's pattern gives the chunk at `path` (none for `_`)
    /// and the root of the array split (`place`), which must mean that
    /// array wherever the chunk is used: a pattern binding it again (`bound`),
    /// or a `let` in the body while the chunk is used, is reported, and the
    /// loop left over a constant.
    fn chunk_name(
        &mut self,
        f: &mut syn::ExprForLoop,
        path: &[usize],
        place: &Expr,
        bound: &Bound,
    ) -> Option<(Option<syn::Ident>, String)> {
        let chunk = match pattern_at(&mut f.pat, path)? {
            Pat::Wild(_) => None,
            p => Some(simple_name(p)?),
        };
        let array = root(place)?;
        let shadowed = match &chunk {
            Some(chunk) => rebound_while_used(&f.body.stmts, chunk, &array),
            None => false,
        };
        if bound.0.contains(&array) || shadowed {
            let at = chunk.unwrap_or_else(|| format_ident!("{}", array));
            self.errors.push(rebound(&at, &array));
            // reported: the loop stays, over a constant, so nothing else
            // is said about it
            let iterated = &f.expr;
            *f.expr = syn::parse_quote!(::mica::detach(#iterated));
            return None;
        }
        Some((chunk, array))
    }

    /// The closures of the `filter`s between `e` and its chunk source given
    /// the chunk's number, each binding the chunk as a view; `None`, and
    /// `e` unchanged, if one cannot.
    fn filter_views(
        &mut self,
        e: &mut Expr,
        source: &ChunkLoop,
        place: &Part,
        size: &Expr,
        array: &str,
    ) -> Option<()> {
        let mut copy = e.clone();
        let mut list = Vec::new();
        filters(&mut copy, &mut list);
        for (c, path) in list {
            let mut bound = Bound::default();
            for p in &c.inputs {
                bound.visit_pat(p);
            }
            if bound.0.contains(array) {
                return None;
            }
            let target = pattern_at(c.inputs.first_mut()?, &path)?;
            // `|&c|`: the chunk's number, given by reference or not
            let target = match target {
                Pat::Reference(r) => &mut *r.pat,
                t => t,
            };
            let name = match &*target {
                Pat::Wild(_) => None,
                p => Some(simple_name(p)?),
            };
            let given = self.fresh("given");
            *target = syn::parse_quote!(#given);
            if let Some(name) = name {
                let body = &c.body;
                let mut rest: Vec<Stmt> = vec![Stmt::Expr(syn::parse_quote!(#body), None)];
                if rebound_while_used(&rest, &name, array) {
                    return None;
                }
                let counter = self.fresh("chunk");
                let view = chunk_view(source, name, &counter, place, size);
                let mut lines: Vec<Stmt> = vec![syn::parse_quote!(
                    let #counter: usize = *::core::borrow::Borrow::<usize>::borrow(&#given);
                )];
                lines.extend(self.bind(view, &mut rest));
                lines.extend(rest);
                *c.body = syn::parse_quote!({ #(#lines)* });
            }
        }
        *e = copy;
        Some(())
    }

    /// The part split (the array's indices and the part's ends computed
    /// once, its bounds checked), the size (computed once unless a
    /// literal) and the number of chunks of a chunk source; the lines
    /// computing them go to `before`.
    fn chunk_parts(&mut self, source: &ChunkLoop, before: &mut Vec<Stmt>) -> (Part, Expr, Expr) {
        let place = self.stable(&source.place, before);
        let start = source.start.as_ref().map(|e| self.once(e, "lo", before));
        let end = source.end.as_ref().map(|e| self.once(e, "hi", before));
        let size = self.once(&source.size, "size", before);
        if source.start.is_some() || source.end.is_some() {
            let lo: Expr = start.clone().unwrap_or_else(|| syn::parse_quote!(0));
            let hi: Expr = end
                .clone()
                .unwrap_or_else(|| syn::parse_quote!(#place.len()));
            before.push(syn::parse_quote!(
                ::mica::__private::view_bounds(#lo, #hi, #place.len());
            ));
        }
        let part = part_of(place, start, end);
        let count = count_of(source, &part, &size);
        (part, size, count)
    }

    /// `src.chunks(d).map(|c| …)` (or `filter`, `fold`, `for_each`, `any`,
    /// `all`, after adapters): the chain over the chunks' numbers, the
    /// closure binding the chunk as a view; `None` if `m` is no such call.
    pub(super) fn chunk_chain(&mut self, m: &mut syn::ExprMethodCall) -> Option<()> {
        let method = m.method.to_string();
        let (arg, param) = match method.as_str() {
            "map" | "for_each" | "any" | "all" | "filter_map" | "flat_map" => (0, 0),
            "fold" => (1, 1),
            _ => return None,
        };
        let mut path = Vec::new();
        let mut source = chunk_source(&m.receiver, &mut path)?;
        source.path = path;
        // a function named for the closure (`.map(pair)`): called by one
        let named = m.args.iter().nth(arg).and_then(|f| match unparen(f) {
            Expr::Path(p) if p.qself.is_none() => Some(p.clone()),
            _ => None,
        });
        if let Some(f) = named {
            m.args[arg] = match arg {
                0 => syn::parse_quote!(|__mica_chunk| #f(__mica_chunk)),
                _ => syn::parse_quote!(|__mica_acc, __mica_chunk| #f(__mica_acc, __mica_chunk)),
            };
        }
        let Some(Expr::Closure(closure)) = m.args.iter_mut().nth(arg) else {
            return None;
        };
        // a parameter named as the array split (`h.chunks(2).map(|h| …)`):
        // the closure's own, renamed in it
        let pats: Vec<Pat> = closure.inputs.iter().cloned().collect();
        let mut rename = self.clashes(&pats, vec![root(&source.place)]);
        closure
            .inputs
            .iter_mut()
            .for_each(|p| rename.visit_pat_mut(p));
        rename.visit_expr_mut(&mut closure.body);
        if let Some(array) = root(&source.place) {
            let mut fresh = || self.fresh(&array);
            crate::helpers::subst::Unshadow {
                name: &array,
                fresh: &mut fresh,
            }
            .visit_expr_mut(&mut closure.body);
        }
        let pat = closure.inputs.iter_mut().nth(param)?;
        let chunk = match pattern_at(pat, &source.path)? {
            Pat::Wild(_) => None,
            p => Some(simple_name(p)?),
        };
        let array = root(&source.place)?;
        let mut bound = Bound::default();
        for p in &closure.inputs {
            bound.visit_pat(p);
        }
        let body = &closure.body;
        let shadowed = match &chunk {
            Some(chunk) => rebound_while_used(&[syn::parse_quote!(#body;)], chunk, &array),
            None => false,
        };
        if bound.0.contains(&array) || shadowed {
            let at = chunk.unwrap_or_else(|| format_ident!("{}", array));
            self.errors.push(rebound(&at, &array));
            return None;
        }
        // the size and the array's indices are read inside the closure:
        // literals, or names the closure does not assign
        // (`h[2].tanh()` reads an element, a float, and changes nothing)
        let in_body = crate::facts::loops::changed_in_reading(&closure.body);
        let mut assigned = in_body.clone();
        assigned.extend(crate::facts::loops::changed_in(&m.receiver));
        bound.visit_expr(&m.receiver);
        // (nor binds as a parameter)
        let kept = |i: &str| !assigned.contains(i) && !bound.0.contains(i);
        let fixed = |e: &Expr| match unparen(e) {
            Expr::Lit(_) => true,
            Expr::Path(p) => p.path.get_ident().is_some_and(|i| kept(&i.to_string())),
            // a view's open end (`&w[1..]`: `w.len()`): the length of an
            // array the chain borrows, which nothing changes while it does
            // (the closure binding its name aside)
            Expr::MethodCall(c) if c.method == "len" && c.args.is_empty() => {
                is_stable_place(&c.receiver)
                    && root(&c.receiver)
                        .is_some_and(|r| !in_body.contains(&r) && !bound.0.contains(&r))
            }
            _ => false,
        };
        let ends_fixed = [&source.start, &source.end]
            .into_iter()
            .flatten()
            .all(&fixed);
        if !fixed(&source.size) || !indices_fixed(&source.place, &fixed) || !ends_fixed {
            return None;
        }
        let place = part_of(
            source.place.clone(),
            source.start.clone(),
            source.end.clone(),
        );
        let size = source.size.clone();
        let count = count_of(&source, &place, &size);
        self.filter_views(&mut m.receiver, &source, &place, &size, &array)?;
        let counter = self.fresh("chunk");
        if let Some(p) = pattern_at(closure.inputs.iter_mut().nth(param)?, &source.path) {
            *p = syn::parse_quote!(#counter);
        }
        if let Some(chunk) = chunk {
            let view = chunk_view(&source, chunk, &counter, &place, &size);
            let body = &closure.body;
            let mut rest: Vec<Stmt> = vec![Stmt::Expr(syn::parse_quote!(#body), None)];
            let mut lines = self.bind(view, &mut rest);
            lines.extend(rest);
            *closure.body = syn::parse_quote!({ #(#lines)* });
        }
        replace_source(&mut m.receiver, syn::parse_quote!((0..#count)));
        Some(())
    }
}

/// Whether every index of `place` is `fixed`.
fn indices_fixed(place: &Expr, fixed: &dyn Fn(&Expr) -> bool) -> bool {
    match unparen(place) {
        Expr::Field(f) => indices_fixed(&f.base, fixed),
        Expr::Index(i) => fixed(&i.index) && indices_fixed(&i.expr, fixed),
        _ => true,
    }
}

/// The part `place[start..end]` (`None`: its start, its end).
fn part_of(place: Expr, start: Option<Expr>, end: Option<Expr>) -> Part {
    let len: Expr = match (&start, end) {
        (None, None) => syn::parse_quote!(#place.len()),
        (None, Some(end)) => end,
        (Some(start), None) => syn::parse_quote!((#place.len() - #start)),
        (Some(start), Some(end)) => syn::parse_quote!((#end - #start)),
    };
    Part { place, start, len }
}

/// The elements a chunk source splits: `place[start..start + len]`.
pub(super) struct Part {
    place: Expr,
    start: Option<Expr>,
    len: Expr,
}

impl Part {
    /// The index `e` counts from the part's start.
    fn at(&self, e: Expr) -> Expr {
        match &self.start {
            Some(start) => syn::parse_quote!(#start + #e),
            None => e,
        }
    }
}

/// How many chunks a chunk source yields.
fn count_of(source: &ChunkLoop, part: &Part, size: &Expr) -> Expr {
    let len = &part.len;
    match source.split {
        Split::Chunks => syn::parse_quote!(::mica::__private::chunks_count(#len, #size)),
        Split::ChunksExact => {
            syn::parse_quote!(::mica::__private::chunks_exact_count(#len, #size))
        }
        Split::Windows => syn::parse_quote!(::mica::__private::windows_count(#len, #size)),
        Split::Each => len.clone(),
    }
}

/// The view a chunk source binds for chunk number `counter`.
fn chunk_view(
    source: &ChunkLoop,
    name: syn::Ident,
    counter: &syn::Ident,
    part: &Part,
    size: &Expr,
) -> View {
    let len = &part.len;
    let (lo, hi): (Expr, Expr) = match source.split {
        Split::Chunks => (
            syn::parse_quote!(#counter * #size),
            syn::parse_quote!(::core::cmp::min((#counter + 1) * #size, #len)),
        ),
        Split::ChunksExact => (
            syn::parse_quote!(#counter * #size),
            syn::parse_quote!((#counter + 1) * #size),
        ),
        Split::Windows => (
            syn::parse_quote!(#counter),
            syn::parse_quote!(#counter + #size),
        ),
        Split::Each => (syn::parse_quote!(#counter), syn::parse_quote!(#counter + 1)),
    };
    View {
        name,
        place: part.place.clone(),
        mutable: source.mutable,
        lo: Some(part.at(lo)),
        hi: Some(part.at(hi)),
        element: matches!(source.split, Split::Each),
    }
}
