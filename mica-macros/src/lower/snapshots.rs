//! Copies of a whole array taken where a loop starts, read by the reverse
//! of the loops inside it.
//!
//! A recurrent step reads its state in a loop nested in another:
//!
//! ```text
//! for t in 0..steps {
//!     for i in 0..H {
//!         for j in 0..H {
//!             z += w[i * H + j] * h[j];   // h: [f64; H]
//!         }
//!         …
//!     }
//!     h = next;
//! }
//! ```
//!
//! `h` changes in the loop over `t`, so the reverse cannot read `h[j]`
//! again; kept per read, it costs `H × H` values a step. But nothing in the
//! loop over `i` changes `h`: a copy taken where that loop starts holds
//! what every read inside it sees, and the reverse reads `copy[j]` instead
//! (`H` values a step, as a hand-written adjoint keeps the state).
//!
//! A read `h[j]`, or `pose[a][k]` of a matrix, reads the copy when:
//!
//! - the name is a local array made whole by one literal, `[x; n]`,
//!   `[[c, -s], [s, c]]` or `[[0.0; 3]; 3]`, as written or at the end of a
//!   block (an inlined helper returning a matrix) or of a branch, its
//!   elements values (a copy keeps nothing borrowed), in a function
//!   without `return` (where values are read again at all); the binding
//!   read is the one noted, not a name bound again in an inner block;
//! - it is read by a full chain of indices, each the counter of a distinct
//!   loop over `0..n` (`n` that dimension's length as written), from the
//!   loop the copy is taken at inwards: those loops read every element, so
//!   the copy costs no more than the reads it replaces;
//! - and each loop from there to the read changes the name nowhere in its
//!   body (no assignment, element write, method call, mutable borrow,
//!   binding or macro naming it, see `facts/loops.rs`): the outermost loop
//!   around, strictly outside the innermost, before the first one (from the
//!   read outwards) that changes it, takes the copy where it starts.
//!
//! The same holds for a local constant an index or a bound reads: after a
//! selection, `c[nearest * d + j]` in the loop over `j` reads `nearest`,
//! which changes in the selection's loop but not in this one; a length
//! `let b = row.len();` taken each step of a loop whose `row` is
//! reassigned holds for the loops inside the step. Such a constant is
//! evaluated again in the reverse from copies of those names (values, used
//! only as operands: not a field's base or a method's receiver, and
//! indexed only as a whole array read above: `link[k][b]` of a constant
//! matrix made each joint), taken where the outermost loop around that
//! changes none of them starts, instead of being kept per iteration.
//!
//! Each copy is written where its loop starts only if the reverse reads it
//! (several may wait at one placeholder). In a nested block (an inlined
//! helper's body) it is declared at the top of the storage scope, as the
//! block's other temporaries are, and assigned in the block; in a branch
//! arm, which may not run, none is taken.

use super::*;
use crate::facts::loops::LoopFacts;
use crate::facts::syntax::strip_parens;
use std::collections::HashSet;
use syn::visit_mut::VisitMut;

/// A loop around the code being lowered.
pub(super) struct Around {
    /// its variable, if it is a counter (see `LoopFacts::var`)
    var: Option<String>,
    /// `lo..hi` as written, for a counter over a range
    range: Option<(String, String)>,
    /// the names its body may change, and those its pattern binds
    bound: HashSet<String>,
    /// where it starts, in the code around it: the copies taken there (none
    /// where that code is a branch arm, which may not run)
    at: Option<Ident>,
    /// for a loop in a nested block: the storage scope's hoist, where its
    /// copies are declared
    hoist: Option<usize>,
    /// the region and storage scope of the code around it
    region: usize,
    scope: usize,
    /// names → their copy where it starts, made when first read
    copies: HashMap<String, ValueId>,
}

impl Sweep<'_> {
    /// `let name = [x; n];`, `let name = [[a, b], [c, d]];`, or such a
    /// literal at the end of a block or a branch: a whole array, its lengths
    /// as written, outermost first. Call once `name` is bound. For an array
    /// of constants, `values` asks its elements to be values, not references
    /// a copy would keep borrowed.
    pub(super) fn note_whole_array(&mut self, name: &Ident, init: &Expr, values: bool) {
        // the names a block binds to values on the way to its literal
        let mut bound = HashSet::new();
        let Some(literal) = whole_literal(init, &mut bound) else {
            return;
        };
        let owned = match bound.is_empty() {
            true => std::borrow::Cow::Borrowed(&self.owned),
            false => std::borrow::Cow::Owned(self.owned.union(&bound).cloned().collect()),
        };
        let leaves_are_values = || {
            let mut leaves = vec![literal];
            while let Some(e) = leaves.pop() {
                match strip_parens(e) {
                    Expr::Array(a) => leaves.extend(&a.elems),
                    Expr::Repeat(r) => leaves.push(&r.expr),
                    e if !self.value_like(e, &owned) => return false,
                    _ => {}
                }
            }
            true
        };
        if let Some(dims) = literal_lengths(literal) {
            if !values || leaves_are_values() {
                let scope = self.scopes.len().saturating_sub(1);
                self.whole.insert(name.to_string(), (dims, scope));
            }
        }
    }

    /// A constant `let`: whether its name now holds a value, not a
    /// reference (see `Sweep::owned`).
    pub(super) fn note_owned(&mut self, local: &Local) {
        let Some((name, ty)) = plain_binding(local) else {
            return;
        };
        let name = name.to_string();
        let owned = match (ty, &local.init) {
            (Some(ty), _) => value_type(ty),
            (None, Some(init)) => self.value_like(&init.expr, &self.owned),
            (None, None) => false,
        };
        if owned {
            self.owned.insert(name);
        } else {
            self.owned.remove(&name);
        }
    }

    /// Whether `expr` surely gives a value, not a reference, the names in
    /// `owned` holding values.
    fn value_like(&self, expr: &Expr, owned: &HashSet<String>) -> bool {
        match expr {
            Expr::Lit(_) | Expr::Cast(_) | Expr::Index(_) | Expr::Field(_) => true,
            Expr::Array(a) => a.elems.iter().all(|e| self.value_like(e, owned)),
            Expr::Repeat(r) => self.value_like(&r.expr, owned),
            Expr::Binary(_) => true,
            Expr::Unary(u) => {
                !matches!(u.op, syn::UnOp::Deref(_)) || self.value_like(&u.expr, owned)
            }
            Expr::Paren(p) => self.value_like(&p.expr, owned),
            Expr::Group(g) => self.value_like(&g.expr, owned),
            Expr::MethodCall(m) => m.args.is_empty() && (m.method == "len" || m.method == "count"),
            Expr::Path(p) => p
                .path
                .get_ident()
                .is_some_and(|name| owned.contains(&name.to_string())),
            _ => false,
        }
    }

    /// Forgets the copies made from value `mark` on: the lowering tried an
    /// expression and threw its code away (see `constant_array`).
    pub(super) fn forget_copies_from(&mut self, mark: ValueId) {
        for around in &mut self.around {
            around.copies.retain(|_, id| *id < mark);
        }
        for hoist in &mut self.hoists {
            hoist.copies.retain(|(_, id)| *id < mark);
        }
    }

    /// Entering a loop with `facts` (and the names its pattern binds), its
    /// code about to go into `out`: the place where copies of what it does
    /// not change are taken, if read.
    pub(super) fn enter_around(
        &mut self,
        facts: &LoopFacts,
        pattern: HashSet<String>,
        out: &mut TokenStream,
    ) {
        // in a nested block (an inlined helper's body), temporaries are
        // declared at the top of the storage scope and assigned in the
        // block; in a branch arm, which may not run, no copy is taken
        let (arms, block) = self
            .hoists
            .last()
            .map_or((false, false), |h| (h.arms > 0, h.base != self.depth));
        let hoist = block.then(|| self.hoists.len() - 1);
        // a macro defined in the function may change a name without naming
        // it where it is called: no copies there
        let copies = self.stability.as_ref().is_some_and(|s| !s.defines_macros());
        let at = (copies && !arms).then(|| {
            let at = self.names.fresh("fill");
            out.extend([at.to_token_stream()]);
            at
        });
        let mut bound = facts.bound.clone();
        bound.extend(pattern);
        self.around.push(Around {
            var: facts.var.clone(),
            range: facts
                .range
                .as_ref()
                .map(|(lo, hi)| (quote!(#lo).to_string(), quote!(#hi).to_string())),
            bound,
            at,
            hoist,
            region: self.region,
            scope: self.scope,
            copies: HashMap::new(),
        });
    }

    pub(super) fn leave_around(&mut self) {
        self.around.pop();
    }

    /// The outermost loop around, from the innermost out, whose body
    /// changes `name` nowhere, strictly outside the innermost if `outside`.
    fn unchanged_in(&self, name: &str, outside: bool) -> Option<usize> {
        let mut found = None;
        for (k, around) in self.around.iter().enumerate().rev() {
            if around.bound.contains(name) {
                break;
            }
            if (!outside || k + 1 < self.around.len()) && around.at.is_some() {
                found = Some(k);
            }
        }
        found
    }

    /// The copy of `name` taken where the loop `k` around starts: a value
    /// of the code around that loop, written there only if read.
    fn copy_at(&mut self, k: usize, name: &Ident) -> Option<ValueId> {
        let key = name.to_string();
        if let Some(id) = self.around[k].copies.get(&key) {
            return Some(*id);
        }
        let at = self.around[k].at.clone()?;
        let store = self.names.fresh("s");
        let id = self.new_value(store.clone(), None);
        self.values[id].region = self.around[k].region;
        self.values[id].scope = self.around[k].scope;
        let copy = quote!(::core::clone::Clone::clone(&#name));
        let code = match self.around[k].hoist {
            Some(hoist) => {
                self.hoists[hoist].copies.push((store.clone(), id));
                quote!(#store = #copy;)
            }
            None => quote!(let #store = #copy;),
        };
        self.lazy.push((at, vec![id], code));
        self.around[k].copies.insert(key, id);
        // an array the reverse can make again from its literal: made, not
        // kept (see `lower/rebuild.rs`)
        if let Some((literal, deps)) = self.rebuild_of(name) {
            let value = &mut self.values[id];
            (value.recompute, value.deps, value.rebuilt) = (Some(literal), deps, true);
        }
        Some(id)
    }

    /// For a read `name[i]…[j]` of an element: the copy of `name` the
    /// reverse may read instead (see the module's documentation).
    pub(super) fn copy_for(&mut self, read: &syn::ExprIndex) -> Option<ValueId> {
        let (name, indices) = crate::facts::places::index_chain(read);
        let Expr::Path(name) = strip_parens(name) else {
            return None;
        };
        let name = name.path.get_ident()?;
        let k = self.unchanged_in(&name.to_string(), true)?;
        self.reads_whole(name, &indices, k)?;
        self.copy_at(k, name)
    }

    /// The lengths as written of `name`, a local array made whole by one
    /// literal, if the binding noted is the one in scope (not one of an
    /// inner block since left).
    pub(super) fn whole_lengths(&self, name: &Ident) -> Option<&Vec<String>> {
        let key = name.to_string();
        let (dims, scope) = self.whole.get(&key)?;
        (self.scopes.iter().rposition(|s| s.contains_key(&key)) == Some(*scope)).then_some(dims)
    }

    /// Whether `name[i]…[j]` reads one element of a whole array, each index
    /// the counter of a distinct loop from the loop `k` around inwards, over
    /// `0..n` with `n` that dimension's length as written: the loops inside
    /// `k` read every element at least once, so a copy taken where `k`
    /// starts costs no more than the reads it replaces.
    fn reads_whole(&self, name: &Ident, indices: &[&Expr], k: usize) -> Option<()> {
        let dims = self.whole_lengths(name)?;
        if dims.len() != indices.len() {
            return None;
        }
        let mut used = HashSet::new();
        for (index, len) in indices.iter().zip(dims) {
            let Expr::Path(index) = strip_parens(index) else {
                return None;
            };
            let index = index.path.get_ident()?.to_string();
            // the innermost loop whose counter it is
            let at = self
                .around
                .iter()
                .rposition(|a| a.var.as_deref() == Some(index.as_str()))?;
            let (lo, hi) = self.around[at].range.as_ref()?;
            if at < k || lo != "0" || hi != len || !used.insert(at) {
                return None;
            }
        }
        Some(())
    }

    /// A constant `expr` (an index, a bound) that reads names the reverse
    /// cannot read again, each of them a local constant that a loop around
    /// changes nowhere: `expr` with those names replaced by their copies
    /// where that loop starts, and the copies.
    pub(super) fn again_from_copies(&mut self, expr: &Expr) -> Option<(Expr, Vec<ValueId>)> {
        if self.around.is_empty() {
            return None;
        }
        let names = self.stability.as_ref()?.unstable_names(expr)?;
        // each a scalar, or a whole array read only by its elements (see
        // `Self::reads_whole`): copied, not a struct
        let arrays: HashSet<String> = names
            .iter()
            .filter(|name| !scalar_uses(expr, name))
            .map(|name| name.to_string())
            .collect();
        let mut copies = HashMap::new();
        let mut ids = Vec::new();
        for name in names {
            let key = name.to_string();
            if copies.contains_key(&key) {
                continue;
            }
            // an array's elements were checked to be values when noted
            let local = (arrays.contains(&key) || self.owned.contains(&key))
                && self.lookup(&key).is_some_and(|b| {
                    b.origin == Origin::Local && matches!(b.val, Val::Const) && !b.by_ref
                });
            if !local {
                return None;
            }
            let k = match arrays.contains(&key) {
                true => {
                    let k = self.unchanged_in(&key, true)?;
                    element_reads(expr, &name)?
                        .iter()
                        .try_for_each(|indices| self.reads_whole(&name, indices, k))?;
                    k
                }
                false => self.unchanged_in(&key, false)?,
            };
            let id = self.copy_at(k, &name)?;
            copies.insert(key, self.values[id].store.clone());
            ids.push(id);
        }
        let mut again = expr.clone();
        Rename(&copies).visit_expr_mut(&mut again);
        Some((again, ids))
    }
}

/// Replaces names by the copies' stores, each keeping its own span (the
/// helpers' `subst::Rename` gives the new name the old one's span, whose
/// hygiene may not see a store the macro declared).
struct Rename<'a>(&'a HashMap<String, Ident>);

impl syn::visit_mut::VisitMut for Rename<'_> {
    fn visit_expr_path_mut(&mut self, p: &mut syn::ExprPath) {
        if let Some(to) = p
            .path
            .get_ident()
            .and_then(|name| self.0.get(&name.to_string()))
        {
            *p = syn::parse_quote!(#to);
        }
    }
}

/// Whether every use of `name` in `expr` is as a value (an operand), never
/// indexed, a field's base or a method's receiver.
fn scalar_uses(expr: &Expr, name: &Ident) -> bool {
    struct Uses<'a> {
        name: &'a Ident,
        scalar: bool,
    }
    impl<'ast> syn::visit::Visit<'ast> for Uses<'_> {
        fn visit_expr(&mut self, e: &'ast Expr) {
            let base = match e {
                Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => Some(&*u.expr),
                Expr::Index(i) => Some(&*i.expr),
                Expr::Field(f) => Some(&*f.base),
                Expr::MethodCall(m) => Some(&*m.receiver),
                _ => None,
            };
            if let Some(Expr::Path(p)) = base.map(strip_parens) {
                if p.path.is_ident(self.name) {
                    self.scalar = false;
                }
            }
            syn::visit::visit_expr(self, e);
        }
    }
    let mut uses = Uses { name, scalar: true };
    syn::visit::Visit::visit_expr(&mut uses, expr);
    uses.scalar
}

/// `let name …` or `let name: T …` (not `ref`, no `@`): the name, and the
/// type if written.
fn plain_binding(local: &Local) -> Option<(&Ident, Option<&syn::Type>)> {
    match &local.pat {
        Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => Some((&p.ident, None)),
        Pat::Type(t) => match &*t.pat {
            Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
                Some((&p.ident, Some(&*t.ty)))
            }
            _ => None,
        },
        _ => None,
    }
}

/// Whether a written type surely holds a value, not a reference.
fn value_type(ty: &syn::Type) -> bool {
    !matches!(ty, syn::Type::Reference(_) | syn::Type::Infer(_))
}

/// The array literal `init` ends in: itself, a block's tail or a branch's
/// first arm (the others have its type), not a `vec!`; the names the block
/// binds to values on the way added to `owned`.
fn whole_literal<'e>(init: &'e Expr, owned: &mut HashSet<String>) -> Option<&'e Expr> {
    let tail = |b: &'e syn::Block, owned: &mut HashSet<String>| {
        let (last, lets) = b.stmts.split_last()?;
        for stmt in lets {
            // `let name: T = …;` with `T` not a reference
            if let Stmt::Local(local) = stmt {
                if let Some((name, Some(ty))) = plain_binding(local) {
                    if value_type(ty) {
                        owned.insert(name.to_string());
                    }
                }
            }
        }
        match last {
            Stmt::Expr(e, None) => whole_literal(e, owned),
            _ => None,
        }
    };
    match init {
        Expr::Array(_) | Expr::Repeat(_) => Some(init),
        Expr::Paren(p) => whole_literal(&p.expr, owned),
        Expr::Block(b) if b.label.is_none() => tail(&b.block, owned),
        Expr::If(i) => tail(&i.then_branch, owned),
        _ => None,
    }
}

/// The lengths of a nested array literal as written, outermost first
/// (`[[0.0; 3]; 2]` → `2, 3`), if its elements are values (no reference
/// into what may change).
fn literal_lengths(literal: &Expr) -> Option<Vec<String>> {
    let mut dims = Vec::new();
    let mut at = strip_parens(literal);
    loop {
        match at {
            Expr::Repeat(r) => {
                let len = &r.len;
                dims.push(quote!(#len).to_string());
                at = strip_parens(&r.expr);
            }
            Expr::Array(a) => {
                if a.elems.iter().any(|e| matches!(e, Expr::Reference(_))) {
                    return None;
                }
                dims.push(a.elems.len().to_string());
                at = strip_parens(a.elems.first()?);
            }
            Expr::Reference(_) => return None,
            _ => return Some(dims),
        }
    }
}

/// Each place `expr` reads `name`, as the indices of an element read
/// `name[i]…[j]`; `None` if it reads `name` any other way.
fn element_reads<'e>(expr: &'e Expr, name: &Ident) -> Option<Vec<Vec<&'e Expr>>> {
    struct Reads<'a, 'e> {
        name: &'a Ident,
        reads: Vec<Vec<&'e Expr>>,
        other: bool,
    }
    impl<'e> syn::visit::Visit<'e> for Reads<'_, 'e> {
        fn visit_expr(&mut self, e: &'e Expr) {
            match e {
                Expr::Index(i) => {
                    let (base, indices) = crate::facts::places::index_chain(i);
                    match strip_parens(base) {
                        Expr::Path(p) if p.path.is_ident(self.name) => {
                            for index in &indices {
                                self.visit_expr(index);
                            }
                            self.reads.push(indices);
                        }
                        _ => syn::visit::visit_expr(self, e),
                    }
                }
                Expr::Path(p) if p.path.is_ident(self.name) => self.other = true,
                _ => syn::visit::visit_expr(self, e),
            }
        }
    }
    let mut reads = Reads {
        name,
        reads: Vec::new(),
        other: false,
    };
    syn::visit::Visit::visit_expr(&mut reads, expr);
    (!reads.other).then_some(reads.reads)
}
