//! A local copy of a tracked struct, as a simulation keeps its state
//! (`let mut s = s0.clone();`, then `s.vel[k] += dt * a;`): one local per
//! field, each a copy of the field, and every use of the copy one of its
//! fields'. The copy's fields are then locals the rest of the expansion
//! follows, as if written one by one. A copy passed or returned whole (or
//! a struct inside it) is an error at that use; a copy whose name is bound
//! again anywhere in the function, or of a struct that holds structs in a
//! `Vec`, is left as written.

use super::leaf::{Reach, Tracked};
use proc_macro2::{Delimiter, Group, Ident, TokenStream, TokenTree};
use quote::{format_ident, quote};
use syn::visit::Visit;

/// `tokens` with each local copy of a tracked struct written as copies of
/// its fields, at every depth.
pub fn split_copies(tokens: TokenStream, roots: &[&Tracked]) -> TokenStream {
    // (a name bound more than once anywhere is left alone: which binding
    // a use means is rustc's to say)
    let mut bindings = std::collections::HashMap::new();
    if let Ok(block) = syn::parse2::<syn::Block>(quote!({ #tokens })) {
        Bindings(&mut bindings).visit_block(&block);
    }
    split(tokens, roots, &bindings)
}

/// How many times each name is bound (patterns of `let`s, closures, loops
/// and arms).
struct Bindings<'a>(&'a mut std::collections::HashMap<String, usize>);

impl<'ast> Visit<'ast> for Bindings<'_> {
    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        *self.0.entry(p.ident.to_string()).or_default() += 1;
        syn::visit::visit_pat_ident(self, p);
    }
}

fn split(
    tokens: TokenStream,
    roots: &[&Tracked],
    bindings: &std::collections::HashMap<String, usize>,
) -> TokenStream {
    let mut list: Vec<TokenTree> = tokens.into_iter().collect();
    let mut i = 0;
    while i < list.len() {
        if let Some((copy, end)) = copy_at(&list, i, roots) {
            let rest: TokenStream = list[end..].iter().cloned().collect();
            let once = bindings.get(&copy.name.to_string()) == Some(&1);
            if let Some(rest) = once.then(|| used(rest, &copy)).flatten() {
                let lets = copy.lets();
                let mut out: Vec<TokenTree> = list[..i].to_vec();
                let skip = lets.clone().into_iter().count();
                out.extend(lets);
                out.extend(rest);
                list = out;
                i += skip;
                continue;
            }
        }
        if let TokenTree::Group(g) = &list[i] {
            let mut inner = Group::new(g.delimiter(), split(g.stream(), roots, bindings));
            inner.set_span(g.span());
            list[i] = TokenTree::Group(inner);
        }
        i += 1;
    }
    list.into_iter().collect()
}

/// A `let [mut] s[: T] = root.clone();` (or `= *root;`) of a tracked
/// struct: its name, its root, its fields' paths.
struct Copied {
    name: Ident,
    mutable: bool,
    root: Ident,
    /// each field that holds a value (a leaf or a skipped field), by path
    paths: Vec<Vec<String>>,
    /// the paths whose field is copied by `clone` (a `Vec`, a skipped
    /// field), not read as it is (a float, an array)
    cloned: Vec<Vec<String>>,
    /// the paths to structs inside (read whole, the copy is left alone)
    structs: Vec<Vec<String>>,
}

impl Copied {
    /// The local that holds the field at `path`.
    fn local(&self, path: &[String]) -> Ident {
        let joined = path.join("_");
        format_ident!("__mica_{}_{}", self.name, joined, span = self.name.span())
    }

    /// One `let` per field, a copy of the struct's.
    fn lets(&self) -> TokenStream {
        let mut out = TokenStream::new();
        let root = &self.root;
        for path in &self.paths {
            let local = self.local(path);
            let fields: Vec<Ident> = path.iter().map(|f| format_ident!("{}", f)).collect();
            let m = self.mutable.then(|| quote!(mut));
            let value = match self.cloned.contains(path) {
                true => quote!(#root #(.#fields)*.clone()),
                false => quote!(#root #(.#fields)*),
            };
            out.extend(quote!(
                #[allow(unused_mut, unused_variables)]
                let #m #local = #value;
            ));
        }
        out
    }
}

fn is_punct(t: Option<&TokenTree>, c: char) -> bool {
    matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == c)
}

/// The copy whose `let` starts at `list[i]`, and the index past its `;`.
fn copy_at(list: &[TokenTree], i: usize, roots: &[&Tracked]) -> Option<(Copied, usize)> {
    let TokenTree::Ident(let_) = &list[i] else {
        return None;
    };
    if let_ != "let" {
        return None;
    }
    let mut k = i + 1;
    let mutable = matches!(list.get(k), Some(TokenTree::Ident(m)) if m == "mut");
    if mutable {
        k += 1;
    }
    let Some(TokenTree::Ident(name)) = list.get(k) else {
        return None;
    };
    k += 1;
    // a type written, up to the `=`
    if is_punct(list.get(k), ':') {
        while k < list.len() && !is_punct(list.get(k), '=') && !is_punct(list.get(k), ';') {
            k += 1;
        }
    }
    if !is_punct(list.get(k), '=') {
        return None;
    }
    let init: Vec<&TokenTree> = list[k + 1..]
        .iter()
        .take_while(|t| !is_punct(Some(*t), ';'))
        .collect();
    let end = k + 1 + init.len() + 1;
    let root = copied_root(&init)?;
    let t = roots.iter().find(|t| t.root == root && !t.tuple)?;
    let mut paths = Vec::new();
    let mut cloned = Vec::new();
    let mut structs = Vec::new();
    for (path, reach) in &t.paths {
        match reach {
            Reach::Leaf(k) if !path.is_empty() => {
                let vec = matches!(&t.leaves[*k].ty, syn::Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "Vec"));
                if vec {
                    cloned.push(path.clone());
                }
                paths.push(path.clone());
            }
            Reach::Skipped if !path.is_empty() => {
                cloned.push(path.clone());
                paths.push(path.clone());
            }
            Reach::Struct if !path.is_empty() => structs.push(path.clone()),
            Reach::Struct => {}
            // structs in a `Vec`, or a field Mica does not know
            _ => return None,
        }
    }
    // (in the order of the names: the expansion is the same in every build)
    paths.sort();
    let copy = Copied {
        name: name.clone(),
        mutable,
        root,
        paths,
        cloned,
        structs,
    };
    Some((copy, end))
}

/// `root.clone()`, `(*root).clone()` or `*root`: the root copied.
fn copied_root(init: &[&TokenTree]) -> Option<Ident> {
    let clone_call = |t: &[&TokenTree]| {
        matches!(t, [TokenTree::Punct(dot), TokenTree::Ident(clone), TokenTree::Group(g)]
            if dot.as_char() == '.' && clone == "clone" && g.delimiter() == Delimiter::Parenthesis && g.stream().is_empty())
    };
    match init {
        [TokenTree::Ident(root), rest @ ..] if clone_call(rest) => Some(root.clone()),
        [TokenTree::Punct(star), TokenTree::Ident(root)] if star.as_char() == '*' => {
            Some(root.clone())
        }
        [TokenTree::Group(g), rest @ ..]
            if g.delimiter() == Delimiter::Parenthesis && clone_call(rest) =>
        {
            let inner: Vec<TokenTree> = g.stream().into_iter().collect();
            match inner.as_slice() {
                [TokenTree::Punct(star), TokenTree::Ident(root)] if star.as_char() == '*' => {
                    Some(root.clone())
                }
                _ => None,
            }
        }
        _ => None,
    }
}

/// The tokens after the copy's `let` (in which the name means the copy
/// throughout: it is bound nowhere else), with each use of the copy its
/// field's local (`s.vel[k]` is `s_vel[k]`).
fn used(tokens: TokenStream, copy: &Copied) -> Option<TokenStream> {
    let list: Vec<TokenTree> = tokens.into_iter().collect();
    let mut out = TokenStream::new();
    let mut i = 0;
    while i < list.len() {
        match &list[i] {
            TokenTree::Group(g) => {
                let mut inner = Group::new(g.delimiter(), used(g.stream(), copy)?);
                inner.set_span(g.span());
                out.extend([TokenTree::Group(inner)]);
                i += 1;
            }
            TokenTree::Ident(id) if *id == copy.name => {
                // a field of something else, or a path segment, is not the copy
                let after_dot =
                    i > 0 && (is_punct(list.get(i - 1), '.') || is_punct(list.get(i - 1), ':'));
                if after_dot {
                    out.extend([list[i].clone()]);
                    i += 1;
                    continue;
                }
                // the longest path of fields written after it
                let mut path: Vec<String> = Vec::new();
                let mut j = i + 1;
                while is_punct(list.get(j), '.') {
                    let Some(TokenTree::Ident(field)) = list.get(j + 1) else {
                        break;
                    };
                    let mut longer = path.clone();
                    longer.push(field.to_string());
                    if !copy
                        .paths
                        .iter()
                        .chain(&copy.structs)
                        .any(|p| p.starts_with(&longer))
                    {
                        break;
                    }
                    path = longer;
                    j += 2;
                    if copy.paths.contains(&path) {
                        break;
                    }
                }
                if !copy.paths.contains(&path) {
                    // used whole: one error, at the use
                    out.extend(whole_use(copy, id, &path));
                    i = j;
                    continue;
                }
                let mut local = copy.local(&path);
                local.set_span(id.span());
                out.extend([TokenTree::Ident(local)]);
                i = j;
            }
            other => {
                out.extend([other.clone()]);
                i += 1;
            }
        }
    }
    Some(out)
}

/// The error for a copy (or a struct inside it, at `path`) used whole.
fn whole_use(copy: &Copied, at: &Ident, path: &[String]) -> TokenStream {
    let shown = std::iter::once(copy.name.to_string())
        .chain(path.iter().cloned())
        .collect::<Vec<_>>()
        .join(".");
    let example = copy
        .paths
        .first()
        .map(|p| format!(" (`{}.{}`)", copy.name, p.join(".")))
        .unwrap_or_default();
    let what = match path.is_empty() {
        true => format!("`{shown}` is a copy"),
        false => format!("`{shown}` is part of `{}`, a copy", copy.name),
    };
    let message = format!(
        "{what} of the tracked struct `{}`, which Mica follows field by field; read and write its fields here{example}: used whole, a copy is not followed yet",
        copy.root
    );
    quote::quote_spanned!(at.span()=> (::core::compile_error!(#message)))
}
