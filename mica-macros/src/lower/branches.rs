//! Branches: `if` and `match`, as statements and as values.
//!
//! A branch records which arm ran (`__mica_f = 0usize;` at the top of each
//! arm), and a value that leaves it — the `if`'s value, or a binding an arm
//! assigns — becomes a merge the reverse hands back to the arm that ran.

use super::*;
use crate::facts::activity::Assignments;
use crate::facts::places::{is_assignment, pattern_names};

pub(super) fn first_token_of_stmts(arms: &[Vec<Stmt>]) -> TokenStream {
    arms.iter()
        .flatten()
        .next()
        .map(|s| s.to_token_stream().into_iter().take(1).collect())
        .unwrap_or_default()
}

/// Whether a block's statements end with a value (not `()` and not an
/// assignment).
pub(super) fn gives_value(stmts: &[Stmt]) -> bool {
    match stmts.last() {
        Some(Stmt::Expr(e, None)) => expr_gives_value(e),
        _ => false,
    }
}

/// Whether an expression ending a block gives a value. A branch there gives
/// one exactly when its own lowering keeps one (see `lower_if` and
/// `lower_match`): one that does not would leave the outer branch's value
/// declared and never assigned.
pub(super) fn expr_gives_value(expr: &Expr) -> bool {
    match expr {
        Expr::ForLoop(_) | Expr::While(_) | Expr::Loop(_) => false,
        Expr::If(i) => i
            .else_branch
            .as_ref()
            .is_some_and(|(_, e)| gives_value(&i.then_branch.stmts) && expr_gives_value(e)),
        Expr::Match(m) => m.arms.iter().any(|arm| expr_gives_value(&arm.body)),
        Expr::Block(b) if b.label.is_none() => gives_value(&b.block.stmts),
        e => !is_assignment(e),
    }
}

impl Sweep<'_> {
    /// `if cond { … } else { … }`: each arm a region, the arm taken recorded.
    pub(super) fn lower_if(
        &mut self,
        i: &syn::ExprIf,
        out: &mut TokenStream,
    ) -> syn::Result<Lowered> {
        if let Expr::Let(l) = &*i.cond {
            if self.mentions_active(&i.cond) {
                let get = match crate::facts::syntax::strip_parens(&l.expr) {
                    Expr::MethodCall(m) if m.method == "get" && m.args.len() == 1 => {
                        Some(matches!(
                            crate::facts::syntax::strip_parens(&m.args[0]),
                            Expr::Range(_)
                        ))
                    }
                    _ => None,
                };
                let message = match get {
                    // (`Some(v)` and `Some(&v)` of an index are followed)
                    Some(false) => "this `if let … = x.get(i)` on recorded values is not supported; bind the element as `Some(v)` or `Some(&v)`, or test the index: `if i < x.len() { let v = x[i]; … }`",
                    // (`Some(part)` of `a..b` is followed)
                    Some(true) => "this `if let … = x.get(…)` of a range on recorded values is not supported; write the range as `a..b` and bind the part as `Some(part)`, or test the range: `if a <= b && b <= x.len() { let part = &x[a..b]; … }`",
                    None if some_pattern(&l.pat) => OPTION,
                    None => "`if let` on recorded values is not supported; compare them instead: `if x > 0.0 { … }`",
                };
                return Err(syn::Error::new_spanned(i.if_token, message));
            }
        }
        let cond = self.lower_expr(&i.cond, out)?;
        if cond.val.is_active() {
            return Err(syn::Error::new_spanned(
                &i.cond,
                "a condition is a comparison, not a recorded value",
            ));
        }
        let then_block = i.then_branch.stmts.clone();
        let else_block: Option<Vec<Stmt>> = i.else_branch.as_ref().map(|(_, e)| match &**e {
            Expr::Block(b) => b.block.stmts.clone(),
            other => vec![Stmt::Expr(other.clone(), None)],
        });
        let has_value = else_block.is_some()
            && gives_value(&then_block)
            && else_block.as_deref().is_some_and(gives_value);
        let arms = vec![then_block, else_block.unwrap_or_default()];
        let (value, tokens, after) = self.lower_arms(&arms, has_value, &[], out)?;
        let (cond, then_tokens, else_tokens) = (&cond.fwd, &tokens[0], &tokens[1]);
        out.extend([quote!(if #cond { #then_tokens } else { #else_tokens } #after)]);
        Ok(value)
    }

    /// `match scrutinee { pat => … }`: each arm a region.
    pub(super) fn lower_match(
        &mut self,
        m: &syn::ExprMatch,
        out: &mut TokenStream,
    ) -> syn::Result<Lowered> {
        let scrutinee = self.lower_expr(&m.expr, out)?;
        if scrutinee.val.is_active() {
            let message = match m.arms.iter().any(|a| some_pattern(&a.pat)) {
                true => OPTION,
                false => "a `match` chooses by an integer, an enum or a comparison, not by a recorded value",
            };
            return Err(syn::Error::new_spanned(&m.expr, message));
        }
        let arms: Vec<Vec<Stmt>> = m
            .arms
            .iter()
            .map(|arm| match &*arm.body {
                Expr::Block(b) if b.label.is_none() => b.block.stmts.clone(),
                // `k => d = x,`: an assignment is a statement, not a value
                other if is_assignment(other) => {
                    vec![Stmt::Expr(other.clone(), Some(Default::default()))]
                }
                other => vec![Stmt::Expr(other.clone(), None)],
            })
            .collect();
        let patterns: Vec<&Pat> = m.arms.iter().map(|arm| &arm.pat).collect();
        // arms of `()` (`{}`, a block of statements) give no value to keep
        let has_value = arms.iter().any(|arm| gives_value(arm));
        let (value, tokens, after) = self.lower_arms(&arms, has_value, &patterns, out)?;
        let arms = m.arms.iter().zip(tokens).map(|(arm, body)| {
            let pat = &arm.pat;
            let guard = arm
                .guard
                .as_ref()
                .map(|(if_token, cond)| quote!(#if_token #cond));
            quote!(#pat #guard => { #body })
        });
        let scrutinee = &scrutinee.fwd;
        out.extend([quote!(match #scrutinee { #(#arms)* } #after)]);
        Ok(value)
    }

    /// The arms of a branch, each lowered in a region of its own; returns
    /// the flag, the branch's value and each arm's forward code.
    pub(super) fn lower_arms(
        &mut self,
        arms: &[Vec<Stmt>],
        has_value: bool,
        patterns: &[&Pat],
        out: &mut TokenStream,
    ) -> syn::Result<(Lowered, Vec<TokenStream>, TokenStream)> {
        let flag_store = self.names.fresh("f");
        self.declare_late(&flag_store, out);
        let flag = self.new_value(flag_store.clone(), None);
        let value_store = self.names.fresh("m");
        // bindings made before the branch that some arm assigns
        let mut finder = Assignments::default();
        for stmt in arms.iter().flatten() {
            finder.visit_stmt(stmt);
        }
        let mut candidates: Vec<(Ident, Val)> = Vec::new();
        for (name, _, _) in &finder.assigned {
            if candidates.iter().any(|(c, _)| c == name) {
                continue;
            }
            match self.lookup(&name.to_string()) {
                // an array is a place, written by copies (`lower/whole.rs`)
                Some(binding) if matches!(binding.val, Val::Array { .. }) => {}
                Some(binding) => candidates.push((name.clone(), binding.val.clone())),
                None => {}
            }
        }
        let mut tokens = Vec::new();
        let mut record = Vec::new();
        let mut tails = Vec::new();
        let mut ends: Vec<Vec<Val>> = vec![Vec::new(); candidates.len()];
        let mut failed = None;
        for (k, stmts) in arms.iter().enumerate() {
            let saved = self.region;
            self.region = self.regions;
            self.regions += 1;
            if let Some(hoist) = self.hoists.last_mut() {
                hoist.arms += 1;
            }
            self.depth += 1;
            self.building.push(Vec::new());
            self.scopes.push(HashMap::new());
            self.enter_repeated(false);
            if let Some(pat) = patterns.get(k) {
                for name in pattern_names(pat) {
                    self.bind(&name, Val::Const, Origin::Local);
                }
            }
            let mut arm = quote!(#flag_store = #k;);
            let tail = self.lower_block_stmts(stmts, &mut arm);
            match (tail, has_value) {
                (Some(tail), true) if !tail.fwd.is_empty() => {
                    let fwd = tail.fwd;
                    arm.extend([quote!(#value_store = #fwd;)]);
                    tails.push(tail.val);
                }
                (Some(_), true) => tails.push(Val::Const),
                (Some(tail), false) => {
                    let fwd = tail.fwd;
                    if !fwd.is_empty() {
                        arm.extend([quote!(#fwd;)]);
                    }
                }
                (None, true) => tails.push(Val::Const),
                (None, false) => {}
            }
            // what the bindings made before the branch hold at the arm's
            // end: read past the arm's own scope, where a `let` of the same
            // name (`let mut x = 0.5;` in the arm) is another binding
            self.scopes.pop();
            self.leave_repeated();
            for (c, (name, _)) in candidates.iter().enumerate() {
                let val = self
                    .lookup(&name.to_string())
                    .map(|b| b.val.clone())
                    .unwrap_or(Val::Const);
                ends[c].push(val);
            }
            let steps = self.building.pop().unwrap_or_default();
            self.depth -= 1;
            if let Some(hoist) = self.hoists.last_mut() {
                hoist.arms -= 1;
            }
            record.push((self.region, steps));
            self.region = saved;
            // the next arm starts from the values before the branch
            for (name, before) in &candidates {
                self.set(name, before.clone());
            }
            tokens.push(arm);
            if !ends.iter().all(|per_arm| mergeable(per_arm)) {
                failed = Some(k);
            }
        }
        if failed.is_some() {
            return Err(syn::Error::new_spanned(
                first_token_of_stmts(arms),
                "a branch changes a tuple binding made before it; bind the tuple's fields to names of their own before the branch",
            ));
        }
        let compound = tails
            .iter()
            .any(|v| matches!(v, Val::Tuple(_) | Val::Array { .. }));
        let mut merges = Vec::new();
        let mut after = TokenStream::new();
        if has_value {
            if compound || !tails.iter().any(Val::is_active) {
                // read after the branch only, where every arm assigned it
                // (the reverse reads a recorded scalar's store, a constant
                // is copied where it is read): a deferred `let`, since a
                // tuple or an array has no placeholder
                out.extend([quote!(let #value_store;)]);
            } else {
                self.declare_late(&value_store, out);
            }
        }
        let value = if has_value && compound {
            self.compound_merge(&value_store, &tails, &mut record, &mut merges, &mut after)
                .map_err(|message| syn::Error::new_spanned(first_token_of_stmts(arms), message))?
        } else if has_value && tails.iter().any(Val::is_active) {
            let out_id = self.new_value(value_store.clone(), None);
            merges.push(Merge {
                out: out_id,
                per_arm: tails,
            });
            Lowered {
                val: Val::Active(out_id),
                fwd: value_store.to_token_stream(),
            }
        } else if has_value {
            Lowered {
                val: Val::Const,
                fwd: value_store.to_token_stream(),
            }
        } else {
            Lowered {
                val: Val::Const,
                fwd: TokenStream::new(),
            }
        };
        for ((name, _), per_arm) in candidates.iter().zip(ends) {
            // a tuple of scalars: each field merged on its own
            let val = match tuple_width(&per_arm) {
                Some(width) => Val::Tuple(
                    (0..width)
                        .map(|k| {
                            let field: Vec<Val> = per_arm
                                .iter()
                                .map(|v| match v {
                                    Val::Tuple(items) => items[k].clone(),
                                    _ => Val::Const,
                                })
                                .collect();
                            let index = syn::Index::from(k);
                            self.merged(quote!(#name.#index), field, &mut merges, &mut after)
                        })
                        .collect(),
                ),
                None => self.merged(quote!(#name), per_arm, &mut merges, &mut after),
            };
            self.set(name, val);
        }
        self.push_step(Step::Branch(Branch {
            flag,
            arms: record,
            merges,
        }));
        Ok((value, tokens, after))
    }

    /// What a binding (or one of its tuple's fields, `read`) holds after a
    /// branch from what each arm left in it: that value where every arm
    /// left the same, else a merge read from it after the branch.
    fn merged(
        &mut self,
        read: TokenStream,
        per_arm: Vec<Val>,
        merges: &mut Vec<Merge>,
        after: &mut TokenStream,
    ) -> Val {
        if let Some(same) = same_value(&per_arm) {
            return same;
        }
        let store = self.names.fresh("m");
        self.emit_temp(&store, read, after);
        let id = self.new_value(store, None);
        merges.push(Merge { out: id, per_arm });
        Val::Active(id)
    }

    /// The value of a branch whose arms give tuples or arrays: a tuple's
    /// recorded fields are merges of their own, read from the value after
    /// the branch; an array is a new one each arm copies its own into.
    fn compound_merge(
        &mut self,
        value_store: &Ident,
        tails: &[Val],
        record: &mut [(usize, Vec<Step>)],
        merges: &mut Vec<Merge>,
        after: &mut TokenStream,
    ) -> Result<Lowered, &'static str> {
        let fwd = value_store.to_token_stream();
        let arrays: Vec<Option<(ArrayId, &Vec<Operand>)>> = tails
            .iter()
            .map(|v| match v {
                Val::Array { array, prefix } => Some((*array, prefix)),
                _ => None,
            })
            .collect();
        if arrays.iter().any(Option::is_some) {
            let mut rank = None;
            for (tail, array) in tails.iter().zip(&arrays) {
                match (tail, array) {
                    (_, Some((a, prefix))) => {
                        let r = self.arrays[*a].rank - prefix.len();
                        if rank.is_some_and(|k| k != r) {
                            return Err("the arms of a branch give arrays of one shape");
                        }
                        rank = Some(r);
                    }
                    (Val::Const, None) => {}
                    _ => {
                        return Err(
                            "the arms of a branch give arrays, or constants of the same shape",
                        )
                    }
                }
            }
            let to = self.register_array(value_store, rank.unwrap_or(1), None, None, after);
            for ((_, steps), array) in record.iter_mut().zip(&arrays) {
                steps.push(match array {
                    Some((from, prefix)) => Step::Copy {
                        to,
                        from: *from,
                        prefix: (*prefix).clone(),
                    },
                    None => Step::Fill {
                        array: to,
                        value: Operand::Const(quote!(0)),
                    },
                });
            }
            return Ok(Lowered {
                val: Val::Array {
                    array: to,
                    prefix: Vec::new(),
                },
                fwd,
            });
        }
        let width = tails
            .iter()
            .map(|v| match v {
                Val::Tuple(items) => items.len(),
                _ => 0,
            })
            .max()
            .unwrap_or(0);
        // an arm giving a recorded tuple Mica follows as one value (a
        // call's): its fields would be taken for constants
        if width > 0
            && tails
                .iter()
                .any(|v| matches!(v, Val::Active(_) | Val::Array { .. }))
        {
            return Err(super::exprs::ONE_VALUE_TUPLE);
        }
        let mut fields = Vec::new();
        for k in 0..width {
            let per_arm: Vec<Val> = tails
                .iter()
                .map(|v| match v {
                    Val::Tuple(items) => items.get(k).cloned().unwrap_or(Val::Const),
                    _ => Val::Const,
                })
                .collect();
            if per_arm
                .iter()
                .any(|v| matches!(v, Val::Tuple(_) | Val::Array { .. }))
            {
                return Err("the arms of a branch give tuples of scalars, not of arrays or tuples; declare each array before the branch and assign it in every arm: `let mut a = [0.0; 2]; if c { a = [x, y]; } else { a = [y, x]; }`");
            }
            if !per_arm.iter().any(Val::is_active) {
                fields.push(Val::Const);
                continue;
            }
            let store = self.names.fresh("m");
            let index = syn::Index::from(k);
            self.emit_temp(&store, quote!(#value_store.#index), after);
            let id = self.new_value(store, None);
            merges.push(Merge { out: id, per_arm });
            fields.push(Val::Active(id));
        }
        Ok(Lowered {
            val: Val::Tuple(fields),
            fwd,
        })
    }

    /// A local assigned later (in every arm of a branch): declared here, or
    /// at the top of the storage scope when the branch is nested.
    pub(super) fn declare_late(&mut self, name: &Ident, out: &mut TokenStream) {
        let depth = self.depth;
        match self.hoists.last_mut() {
            Some(hoist) if hoist.base != depth || hoist.arms > 0 => {
                hoist.names.push((name.clone(), hoist.arms > 0));
                self.hoisted.insert(name.to_string());
            }
            _ => out.extend([quote!(let #name;)]),
        }
    }
}

/// What a test of an `Option` of recorded values needs.
const OPTION: &str = "an `Option` of recorded values is followed only where the test makes it: `match helper(x) { Some(q) => …, None => … }` (no guard: test inside the arm) or `if let Some(q) = helper(x) { … } else { … }` with `helper` a function of the same `#[tape] mod`, or a block or `if` there whose values are `Some(…)` and `None` and that binds no name the arms read; test there, or compare instead: `if x > 0.0 { … }`";

/// `Some(…)`.
fn some_pattern(p: &syn::Pat) -> bool {
    matches!(p, syn::Pat::TupleStruct(t) if t.qself.is_none() && t.path.is_ident("Some"))
}

/// Whether a binding made before a branch can be merged after it from what
/// each arm leaves in it: scalars, or tuples of scalars of one width (a
/// constant tuple among them), not arrays.
fn mergeable(per_arm: &[Val]) -> bool {
    let width = tuple_width(per_arm);
    per_arm.iter().all(|v| match (v, width) {
        (Val::Array { .. }, _) => false,
        (Val::Tuple(items), Some(n)) => {
            items.len() == n
                && items
                    .iter()
                    .all(|i| matches!(i, Val::Active(_) | Val::Const))
        }
        (Val::Active(_), Some(_)) => false,
        _ => true,
    })
}

/// The width of the first tuple an arm leaves in a binding, if one does.
fn tuple_width(per_arm: &[Val]) -> Option<usize> {
    per_arm.iter().find_map(|v| match v {
        Val::Tuple(items) => Some(items.len()),
        _ => None,
    })
}

/// The value every arm leaves, where it is one: the same recorded value, or
/// a constant in each.
fn same_value(per_arm: &[Val]) -> Option<Val> {
    let first = per_arm.first().cloned().unwrap_or(Val::Const);
    per_arm
        .iter()
        .all(|v| match (v, &first) {
            (Val::Active(a), Val::Active(b)) => a == b,
            (Val::Const, Val::Const) => true,
            _ => false,
        })
        .then_some(first)
}
