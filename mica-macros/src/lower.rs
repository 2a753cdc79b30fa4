//! Lowering: recorded code → a forward sweep and a compile-time record.
//!
//! Input (a window, or a `#[tape]` function's body):
//!
//! ```text
//! let m = a * 2.0 - c;
//! let loss = m * m;
//! ```
//!
//! Output: the same statements with every recorded operation bound to a
//! fresh immutable temporary, plus the record of those operations:
//!
//! ```text
//! let __mica_t1 = a * 2.0;            // op 1: mul(a, 2.0)
//! let __mica_c2 = c;                  // a constant operand, kept for the reverse sweep
//! let __mica_t3 = __mica_t1 - __mica_c2;  // op 2: sub(t1, c2)
//! let m = __mica_t3;
//! let __mica_t4 = m * m;              // op 3: mul(t3, t3)
//! let loss = __mica_t4;
//! ```
//!
//! The user's own bindings stay as written (so code after a window can read
//! them, and every binding is used exactly as in the primal), the arithmetic
//! is the primal's, operation for operation, so forward values are
//! bit-identical, and the temporaries are never overwritten, so the reverse
//! sweep (`reverse.rs`) can read any value it needs without storing anything
//! at run time. A value that does not depend on a knob is a constant to the
//! record: its code is left exactly as written.

use crate::errors::Errors;
use crate::names::Names;
use crate::rules::{self, Slope};
use proc_macro2::{Ident, TokenStream, TokenTree};
use quote::{quote, quote_spanned, ToTokens};
use std::collections::HashMap;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{Expr, Local, Pat, Stmt};

mod fast;
mod flow;
mod inline;
mod walls;
pub use crate::facts::stability::Stability;
use crate::facts::syntax::is_compound;
use crate::record::*;
pub use flow::fill_placeholders;
use flow::hoisted_decls;
use walls::MUTATING;

/// Iterator adapters and consumers: on recorded values, written as loops.
const ITERATION: &[&str] = &[
    "sum",
    "product",
    "map",
    "fold",
    "reduce",
    "for_each",
    "filter",
    "filter_map",
    "scan",
    "zip",
    "enumerate",
    "rev",
    "chain",
    "skip",
    "take",
    "step_by",
    "windows",
    "chunks",
    "iter",
    "into_iter",
    "copied",
    "cloned",
    "collect",
    "max_by",
    "min_by",
    "count",
];

/// Float methods whose answer is not a float: a constant is what a caller
/// needs from them.
const NOT_A_FLOAT: &[&str] = &[
    "is_nan",
    "is_finite",
    "is_infinite",
    "is_normal",
    "is_subnormal",
    "is_sign_positive",
    "is_sign_negative",
    "classify",
    "to_bits",
    "total_cmp",
    "partial_cmp",
    "to_string",
];

#[derive(Clone, Debug)]
struct Binding {
    val: Val,
    origin: Origin,
}

/// The result of lowering an expression.
pub struct Lowered {
    pub val: Val,
    /// how the forward sweep reads the value: a user's binding, a
    /// temporary, or (for a constant) the expression itself
    pub fwd: TokenStream,
}

/// Temporaries of one storage scope declared at its top, so the reverse
/// sweep (or the loop's tape) can read them after nested blocks end.
#[derive(Default)]
struct Hoist {
    /// `(name, made in a branch arm)`: a branch's temporaries start from
    /// `Default::default()`, the other arm leaves them so
    names: Vec<(Ident, bool)>,
    /// optional references for the reverse sweep, which start from `None`:
    /// a reference has no placeholder
    options: Vec<Ident>,
    /// block depth of the scope's own statements
    base: usize,
    /// branch arms entered within this scope
    arms: usize,
}

/// One recorded region: a window, or a whole `#[tape]` function.
pub struct Sweep<'a> {
    pub names: &'a mut Names,
    pub errors: &'a mut Errors,
    pub values: Vec<Value>,
    pub arrays: Vec<Array>,
    /// the record, one list per open loop body or branch arm
    building: Vec<Vec<Step>>,
    scopes: Vec<HashMap<String, Binding>>,
    hoists: Vec<Hoist>,
    depth: usize,
    region: usize,
    regions: usize,
    scope: usize,
    /// every loop's tape, declared at the sweep's top, with its capacity
    /// when it lives on the stack
    pub tapes: Vec<(Ident, Option<TokenStream>)>,
    /// in the function form, `return` ends the forward story
    pub function_form: bool,
    /// which names the reverse sweep may read again (function form without
    /// `return`; `None`: store every constant a loop's reverse reads)
    pub stability: Option<Stability>,
    /// loops whose tapes hold nothing (everything recomputed): not declared
    pub empty_tapes: std::collections::HashSet<String>,
    /// loop bookkeeping written only if the reverse sweep reads it: a
    /// placeholder, the values whose reading needs it, its code
    lazy: Vec<(Ident, Vec<ValueId>, TokenStream)>,
    /// bookkeeping written anyway (hoisted): what it reads is written too
    written: std::collections::HashSet<ValueId>,
    /// where the value of the expression about to be lowered goes (see
    /// `lower/inline.rs`); taken by the next `lower_expr`
    hint: Option<inline::Hint>,
    /// the top-level statement being lowered may write operations inside
    /// their consumers
    inline_stmt: bool,
    /// elements read so far in the statement being lowered, when nothing in
    /// it can write an array or change a name (see `lower/inline.rs`): the
    /// same element read again is the same value, loaded and kept once
    read_cache: Option<HashMap<String, (ValueId, TokenStream)>>,
    /// the stores of operations written inside their consumers: never
    /// declared, so nothing may be evaluated again from them
    inlined: std::collections::HashSet<ValueId>,
    /// the loops around the code being lowered whose forward reads may go
    /// through slices (see `lower/fast.rs`), innermost last
    fast: Vec<fast::FastLoop>,
    /// the function's `const` generic parameters: named in capitals like a
    /// `const` item, but unusable in the inline capacities
    pub const_generics: std::collections::HashSet<String>,
}

/// The names of `generics`' `const` parameters.
pub fn const_generics(generics: &syn::Generics) -> std::collections::HashSet<String> {
    generics
        .const_params()
        .map(|c| c.ident.to_string())
        .collect()
}

impl<'a> Sweep<'a> {
    pub fn new(names: &'a mut Names, errors: &'a mut Errors, function_form: bool) -> Self {
        Sweep {
            names,
            errors,
            values: Vec::new(),
            arrays: Vec::new(),
            building: vec![Vec::new()],
            scopes: vec![HashMap::new()],
            hoists: vec![Hoist::default()],
            depth: 0,
            region: 0,
            regions: 1,
            scope: 0,
            tapes: Vec::new(),
            function_form,
            stability: None,
            empty_tapes: Default::default(),
            lazy: Vec::new(),
            written: Default::default(),
            hint: None,
            inline_stmt: false,
            read_cache: None,
            inlined: Default::default(),
            fast: Vec::new(),
            const_generics: Default::default(),
        }
    }

    /// The record, once lowering is done.
    pub fn take_steps(&mut self) -> Vec<Step> {
        self.building.drain(..).next().unwrap_or_default()
    }

    fn new_value(&mut self, store: Ident, capture: Option<Ident>) -> ValueId {
        self.values.push(Value {
            store,
            capture,
            needed: false,
            recompute: None,
            deps: Vec::new(),
            syntax: None,
            region: self.region,
            scope: self.scope,
        });
        self.values.len() - 1
    }

    fn push_step(&mut self, step: Step) {
        if let Some(list) = self.building.last_mut() {
            list.push(step);
        }
    }

    /// A knob or tracked parameter, read under `name`.
    pub fn add_input(&mut self, name: &Ident, origin: Origin) -> ValueId {
        let store = self.names.fresh("v");
        let id = self.new_value(store, Some(name.clone()));
        self.bind(name, Val::Active(id), origin);
        id
    }

    /// An input whose name holds its value wherever the sweep reads it: read
    /// under that name, not copied.
    pub fn read_input_in_place(&mut self, id: ValueId, stability: &Stability) {
        let value = &mut self.values[id];
        if let Some(name) = &value.capture {
            if stability.same_before(&name.to_string(), 0) {
                value.store = name.clone();
            }
        }
    }

    /// A tracked array (a knob or parameter) whose slopes are added into
    /// `acc`; `declare` makes that buffer when the reverse sweep starts.
    pub fn add_array_input(
        &mut self,
        name: &Ident,
        origin: Origin,
        rank: usize,
        acc: TokenStream,
        declare: Option<TokenStream>,
    ) -> ArrayId {
        self.arrays.push(Array {
            acc,
            declare,
            rank,
            local: None,
            inline: None,
        });
        let id = self.arrays.len() - 1;
        self.bind(
            name,
            Val::Array {
                array: id,
                prefix: Vec::new(),
            },
            origin,
        );
        id
    }

    /// A binding that holds a constant (e.g. an untracked parameter).
    pub fn add_const(&mut self, name: &Ident, origin: Origin) {
        self.bind(name, Val::Const, origin);
    }

    fn bind(&mut self, name: &Ident, val: Val, origin: Origin) {
        if let Some(scope) = self.scopes.last_mut() {
            scope.insert(name.to_string(), Binding { val, origin });
        }
    }

    fn lookup(&self, name: &str) -> Option<&Binding> {
        self.scopes.iter().rev().find_map(|scope| scope.get(name))
    }

    /// Every name bound at the sweep's top level, with what it holds.
    pub fn top_level_bindings(&self) -> HashMap<String, Val> {
        self.scopes
            .first()
            .map(|s| {
                s.iter()
                    .filter(|(_, b)| b.origin == Origin::Local)
                    .map(|(k, b)| (k.clone(), b.val.clone()))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// The store of a value, marked as read.
    pub fn read_store(&mut self, id: ValueId) -> Ident {
        self.values[id].needed = true;
        self.values[id].store.clone()
    }

    /// Code that goes in only if the reverse sweep reads one of `values`
    /// (a placeholder for it now; see [`Self::lazy_fills`]).
    fn lazy(&mut self, values: Vec<ValueId>, code: TokenStream, out: &mut TokenStream) -> Ident {
        let placeholder = self.names.fresh("fill");
        out.extend([placeholder.to_token_stream()]);
        self.lazy.push((placeholder.clone(), values, code));
        placeholder
    }

    /// A temporary holding `value`, written only if the reverse sweep reads
    /// it: loops' copies of their index, trip count and carried bindings.
    fn lazy_temp(&mut self, value: TokenStream, role: &str, out: &mut TokenStream) -> ValueId {
        let temp = self.names.fresh(role);
        let id = self.new_value(temp.clone(), None);
        let depth = self.depth;
        match self.hoists.last() {
            // hoisted (declared at the top of the scope): written as usual
            Some(hoist) if hoist.base != depth || hoist.arms > 0 => {
                self.emit_temp(&temp, value, out);
                self.written.insert(id);
            }
            _ => {
                self.lazy(vec![id], quote!(let #temp = #value;), out);
            }
        }
        id
    }

    /// Once the reverse sweep is written: the bookkeeping it reads, into the
    /// placeholders' fills.
    pub fn lazy_fills(&mut self, fills: &mut HashMap<String, TokenStream>) {
        for (placeholder, values, code) in std::mem::take(&mut self.lazy) {
            if values
                .iter()
                .any(|&v| self.values[v].needed || self.written.contains(&v))
            {
                fills.insert(placeholder.to_string(), code);
            }
        }
    }

    /// What goes before the forward code: copies of the inputs the sweep
    /// needs, the declarations of hoisted temporaries, the loops' tapes.
    pub fn prologue(&self) -> TokenStream {
        let captures = self.values.iter().filter(|v| v.needed).filter_map(|v| {
            let store = &v.store;
            v.capture
                .as_ref()
                .filter(|name| v.scope == 0 && v.region == 0 && *name != store)
                .map(|name| quote!(let #store = #name;))
        });
        let hoisted = self.hoists.first().map(hoisted_decls).unwrap_or_default();
        let tapes = self
            .tapes
            .iter()
            .filter(|(tape, _)| !self.empty_tapes.contains(&tape.to_string()))
            .map(|(tape, capacity)| match capacity {
                Some(capacity) => {
                    quote!(let mut #tape = ::mica::__private::StackTape::<_, #capacity>::new();)
                }
                None => quote!(let mut #tape = ::std::vec::Vec::new();),
            });
        quote!(#(#captures)* #hoisted #(#tapes)*)
    }

    // ------------------------------------------------------------ statements

    /// Lowers statements into `out`; returns the tail expression's value, if
    /// the last statement is one.
    pub fn lower_block_stmts(&mut self, stmts: &[Stmt], out: &mut TokenStream) -> Option<Lowered> {
        let mut tail = None;
        // the names each statement mentions, made when first needed
        let mut later = flow::LaterNames::new(stmts);
        for (i, stmt) in stmts.iter().enumerate() {
            let last = i + 1 == stmts.len();
            let top = self.depth == 0 && self.region == 0 && self.scopes.len() == 1;
            if top {
                if let Some(stability) = &mut self.stability {
                    stability.at_statement(i);
                }
            }
            let simple = inline::simple_stmt(stmt);
            self.inline_stmt = simple && self.inline_here();
            self.read_cache = simple.then(HashMap::new);
            match stmt {
                Stmt::Expr(expr, None) if last && !flow::is_assignment(expr) => {
                    let lowered = self
                        .check_no_escape(expr)
                        .and_then(|()| self.lower_expr(expr, out));
                    tail = self.errors.ok(lowered);
                }
                Stmt::Expr(Expr::Return(ret), _)
                    if last && self.function_form && self.depth == 0 =>
                {
                    tail = match &ret.expr {
                        Some(expr) => {
                            let lowered = self.lower_expr(expr, out);
                            self.errors.ok(lowered)
                        }
                        None => None,
                    };
                }
                Stmt::Local(local)
                    if self.makes_recorded_array(local, &stmts[i + 1..], &mut later, i + 1) =>
                {
                    if let Err(e) = self.lower_local_array(local, out) {
                        self.errors.push(e);
                        self.recover(stmt, out);
                    }
                }
                _ => {
                    if let Err(e) = self.lower_stmt(stmt, out) {
                        self.errors.push(e);
                        self.recover(stmt, out);
                    }
                }
            }
            self.inline_stmt = false;
            self.read_cache = None;
        }
        tail
    }

    /// After an error in `stmt`: keep the user's code (so later lines still
    /// see its bindings, and the editor keeps working) without cascading
    /// into more errors.
    fn recover(&mut self, stmt: &Stmt, out: &mut TokenStream) {
        match stmt {
            Stmt::Macro(m) if is_tape_macro(&m.mac) => {}
            Stmt::Expr(Expr::Macro(m), _) if is_tape_macro(&m.mac) => {}
            Stmt::Local(local) => {
                let mut names = PatNames::default();
                names.visit_pat(&local.pat);
                for name in names.0 {
                    self.bind(&name, Val::Const, Origin::Local);
                }
                let mut local = local.clone();
                local.attrs.retain(|a| !crate::parse::is_tracked(a));
                out.extend([local.to_token_stream()]);
            }
            _ => out.extend([stmt.to_token_stream()]),
        }
    }

    fn lower_stmt(&mut self, stmt: &Stmt, out: &mut TokenStream) -> syn::Result<()> {
        if !self.function_form {
            self.check_writes(stmt)?;
        }
        match stmt {
            Stmt::Expr(expr, _) => self.check_no_escape(expr)?,
            Stmt::Local(local) => {
                if let Some(init) = &local.init {
                    self.check_no_escape(&init.expr)?;
                }
            }
            _ => {}
        }
        match stmt {
            Stmt::Local(local) => self.lower_local(local, out),
            Stmt::Item(_) => {
                out.extend([stmt.to_token_stream()]);
                Ok(())
            }
            Stmt::Macro(m) => {
                self.check_macro(&m.mac)?;
                out.extend([stmt.to_token_stream()]);
                Ok(())
            }
            Stmt::Expr(expr, semi) => {
                if !self.mentions_active(expr) {
                    self.check_no_escape(expr)?;
                    out.extend([stmt.to_token_stream()]);
                    return Ok(());
                }
                match expr {
                    Expr::Assign(assign) => {
                        self.lower_assign(&assign.left, None, &assign.right, out)
                    }
                    Expr::Binary(b) if is_compound(&b.op) => {
                        self.lower_assign(&b.left, Some(&b.op), &b.right, out)
                    }
                    Expr::Macro(m) => {
                        self.check_macro(&m.mac)?;
                        out.extend([stmt.to_token_stream()]);
                        Ok(())
                    }
                    // in statement position their value (if any) is dropped
                    Expr::ForLoop(_) | Expr::While(_) | Expr::If(_) | Expr::Match(_) => {
                        self.lower_expr(expr, out)?;
                        Ok(())
                    }
                    _ => {
                        let lowered = self.lower_expr(expr, out)?;
                        let fwd = lowered.fwd;
                        if fwd.is_empty() {
                            return Ok(());
                        }
                        match semi {
                            Some(_) => out.extend([quote!(let _ = #fwd;)]),
                            None => out.extend([fwd]),
                        }
                        Ok(())
                    }
                }
            }
        }
    }

    fn lower_local(&mut self, local: &Local, out: &mut TokenStream) -> syn::Result<()> {
        if let Some(attr) = local.attrs.iter().find(|a| crate::parse::is_tracked(a)) {
            let message = if self.function_form {
                "a `#[tape]` function with tracked parameters has no knobs of its own; track a parameter instead"
            } else {
                "`#[tracked]` goes on a `let` before the window, not inside it"
            };
            return Err(syn::Error::new_spanned(attr, message));
        }
        let init = match &local.init {
            Some(init) if self.mentions_active(&init.expr) => init,
            _ => {
                if let Some(init) = &local.init {
                    self.check_no_escape(&init.expr)?;
                }
                out.extend([local.to_token_stream()]);
                self.bind_pattern(&local.pat, Val::Const)?;
                self.top_level_let(local);
                return Ok(());
            }
        };
        if let Some((_, diverge)) = &init.diverge {
            return Err(syn::Error::new_spanned(
                diverge,
                "`let … else` on a recorded value is outside the recorded vocabulary",
            ));
        }
        self.hint_let(&local.pat);
        let lowered = self.lower_expr(&init.expr, out)?;
        let attrs = &local.attrs;
        let pat = &local.pat;
        out.extend([quote!(#(#attrs)* let #pat =)]);
        out.extend([lowered.fwd]);
        out.extend([quote!(;)]);
        self.bind_pattern(&local.pat, lowered.val)?;
        self.top_level_let(local);
        Ok(())
    }

    /// A `let` at the top of the function body may make its name stable.
    fn top_level_let(&mut self, local: &Local) {
        if self.depth == 0 && self.region == 0 && self.scopes.len() == 1 {
            if let Some(stability) = &mut self.stability {
                stability.top_level_let(local);
            }
        }
    }

    fn bind_pattern(&mut self, pat: &Pat, val: Val) -> syn::Result<()> {
        match pat {
            Pat::Ident(p) if p.subpat.is_none() => {
                if p.by_ref.is_some() && val.is_active() {
                    return Err(syn::Error::new_spanned(
                        p.by_ref,
                        "a recorded value is bound by value; remove `ref`",
                    ));
                }
                self.bind(&p.ident, val, Origin::Local);
                Ok(())
            }
            Pat::Type(p) => self.bind_pattern(&p.pat, val),
            Pat::Wild(_) => Ok(()),
            Pat::Paren(p) => self.bind_pattern(&p.pat, val),
            Pat::Reference(p) => self.bind_pattern(&p.pat, val),
            Pat::Tuple(t) => match val {
                Val::Tuple(items) if items.len() == t.elems.len() => {
                    for (p, v) in t.elems.iter().zip(items) {
                        self.bind_pattern(p, v)?;
                    }
                    Ok(())
                }
                Val::Const => {
                    for p in &t.elems {
                        self.bind_pattern(p, Val::Const)?;
                    }
                    Ok(())
                }
                _ => Err(syn::Error::new_spanned(
                    pat,
                    "this pattern does not match the shape of the recorded value",
                )),
            },
            _ if !val.is_active() => {
                // a constant: bind every name the pattern introduces as such
                let mut names = PatNames::default();
                names.visit_pat(pat);
                for name in names.0 {
                    self.bind(&name, Val::Const, Origin::Local);
                }
                Ok(())
            }
            _ => Err(syn::Error::new_spanned(
                pat,
                "a recorded value is bound by a name or a tuple of names; this pattern is outside the recorded vocabulary",
            )),
        }
    }

    /// `x = e`, `x += e`, … on a binding made inside the sweep.
    fn lower_assign(
        &mut self,
        target: &Expr,
        op: Option<&syn::BinOp>,
        value: &Expr,
        out: &mut TokenStream,
    ) -> syn::Result<()> {
        let name = match target {
            Expr::Path(p) if p.qself.is_none() => p.path.get_ident().cloned(),
            _ => None,
        };
        if let Expr::Index(index) = target {
            return self.lower_array_write(index, op, value, out);
        }
        let Some(name) = name else {
            return Err(syn::Error::new_spanned(
                target,
                "a recorded value is assigned only to a name bound inside the window",
            ));
        };
        match self.lookup(&name.to_string()).map(|b| b.origin) {
            Some(Origin::Local) | Some(Origin::Param) => {}
            Some(Origin::Knob) => {
                return Err(syn::Error::new_spanned(
                    target,
                    format!("a window cannot write to the knob `{name}`; change knobs after the window"),
                ))
            }
            None => {
                return Err(syn::Error::new_spanned(
                    target,
                    format!("a window cannot write to `{name}`, which was bound before it; bind a new name inside the window"),
                ))
            }
        }
        let lowered = match op {
            None => self.lower_expr(value, out)?,
            Some(op) => {
                let rule = rules::binary(op).ok_or_else(|| {
                    syn::Error::new_spanned(op, "this operator is outside the recorded vocabulary")
                })?;
                let left = self.lower_operand(target, out)?;
                let prec = inline::precedence(op);
                let left_active = matches!(left.0, Operand::Active(_));
                self.hint_operand(
                    rule,
                    1,
                    2,
                    inline::Ctx::Binary { prec, right: true },
                    |_, _| left_active,
                );
                let right = self.lower_operand(value, out)?;
                let bin = compound_to_binary(op);
                let fwd = {
                    let (l, r) = (&left.1, &right.1);
                    quote!(#l #bin #r)
                };
                self.new_op_or_const(
                    rule,
                    vec![left.0, right.0],
                    fwd,
                    inline::Form::Binary(prec),
                    out,
                )
            }
        };
        let fwd = &lowered.fwd;
        out.extend([quote_spanned!(target.span()=> #name = #fwd;)]);
        if let Some(scope) = self
            .scopes
            .iter_mut()
            .rev()
            .find(|s| s.contains_key(&name.to_string()))
        {
            if let Some(binding) = scope.get_mut(&name.to_string()) {
                binding.val = lowered.val;
            }
        }
        Ok(())
    }

    // ----------------------------------------------------------- expressions

    /// Lowers an expression, emitting the temporaries it needs into `out`.
    pub fn lower_expr(&mut self, expr: &Expr, out: &mut TokenStream) -> syn::Result<Lowered> {
        let hint = self.hint.take();
        if !self.mentions_active(expr) {
            self.check_no_escape(expr)?;
            return Ok(Lowered {
                val: Val::Const,
                fwd: self.fast_constant(expr),
            });
        }
        match expr {
            Expr::Paren(p) => {
                self.hint = hint;
                self.lower_expr(&p.expr, out)
            }
            Expr::Group(g) => {
                self.hint = hint;
                self.lower_expr(&g.expr, out)
            }
            Expr::Path(p) => {
                let ident = p.path.get_ident().ok_or_else(|| {
                    syn::Error::new_spanned(p, "this path is outside the recorded vocabulary")
                })?;
                let val = self.lookup(&ident.to_string()).map(|b| b.val.clone()).unwrap_or(Val::Const);
                Ok(Lowered { val, fwd: ident.to_token_stream() })
            }
            Expr::Binary(b) => {
                if is_compound(&b.op) {
                    return Err(syn::Error::new_spanned(
                        b,
                        "a compound assignment stands as a statement of its own",
                    ));
                }
                match rules::binary(&b.op) {
                    Some(rule) => {
                        let prec = inline::precedence(&b.op);
                        self.hint_operand(rule, 0, 2, inline::Ctx::Binary { prec, right: false }, |s, i| {
                            i == 0 || s.mentions_active(&b.right)
                        });
                        let left = self.lower_operand(&b.left, out)?;
                        let left_active = matches!(left.0, Operand::Active(_));
                        self.hint_operand(rule, 1, 2, inline::Ctx::Binary { prec, right: true }, |_, i| {
                            i == 1 || left_active
                        });
                        let right = self.lower_operand(&b.right, out)?;
                        let (l, op, r) = (&left.1, &b.op, &right.1);
                        let fwd = quote!(#l #op #r);
                        self.hint = hint;
                        Ok(self.new_op_or_const(rule, vec![left.0, right.0], fwd, inline::Form::Binary(prec), out))
                    }
                    // comparisons carry no slope: a constant (bool)
                    None => Ok(Lowered { val: Val::Const, fwd: expr.to_token_stream() }),
                }
            }
            Expr::Unary(u) => match u.op {
                syn::UnOp::Neg(_) => {
                    self.hint_operand("neg", 0, 1, inline::Ctx::Neg, |_, _| true);
                    let inner = self.lower_operand(&u.expr, out)?;
                    let (op, x) = (&u.op, &inner.1);
                    let fwd = quote!(#op #x);
                    self.hint = hint;
                    Ok(self.new_op_or_const("neg", vec![inner.0], fwd, inline::Form::Prefix, out))
                }
                // `*x` of an element bound by reference: the element itself
                syn::UnOp::Deref(_) => {
                    let inner = self.lower_expr(&u.expr, out)?;
                    let (op, x) = (&u.op, &inner.fwd);
                    Ok(Lowered { val: inner.val, fwd: quote!(#op #x) })
                }
                syn::UnOp::Not(_) => Ok(Lowered { val: Val::Const, fwd: expr.to_token_stream() }),
                _ => Err(syn::Error::new_spanned(
                    u.op,
                    format!("`{}` on a recorded value is outside the recorded vocabulary", u.op.to_token_stream()),
                )),
            },
            Expr::MethodCall(m) => {
                self.hint = hint;
                self.lower_method(m, expr, out)
            }
            Expr::Call(c) => {
                self.hint = hint;
                self.lower_call(c, expr, out)
            }
            Expr::Tuple(t) => {
                let mut vals = Vec::new();
                let mut fwds = Vec::new();
                for elem in &t.elems {
                    let lowered = self.lower_expr(elem, out)?;
                    vals.push(lowered.val);
                    fwds.push(lowered.fwd);
                }
                let fwd = if fwds.len() == 1 { quote!((#(#fwds,)*)) } else { quote!((#(#fwds),*)) };
                Ok(Lowered { val: Val::Tuple(vals), fwd })
            }
            Expr::Field(f) => {
                let base = self.lower_expr(&f.base, out)?;
                let index = match &f.member {
                    syn::Member::Unnamed(index) => index.index as usize,
                    syn::Member::Named(name) => {
                        return Err(syn::Error::new_spanned(
                            name,
                            format!("field `{name}` of a recorded value is outside the recorded vocabulary"),
                        ))
                    }
                };
                let val = match base.val {
                    Val::Tuple(items) => items.get(index).cloned().unwrap_or(Val::Const),
                    _ => Val::Const,
                };
                let (b, member) = (&base.fwd, &f.member);
                Ok(Lowered { val, fwd: quote!(#b.#member) })
            }
            Expr::Block(b) if b.label.is_none() => self.lower_nested_block(&b.block, out),
            // an array literal whose elements are all constants (say, of
            // slope-0 methods) is a constant
            Expr::Array(_) | Expr::Repeat(_) => self.constant_array(expr, expr, out),
            Expr::Macro(m) if m.mac.path.is_ident("vec") => match flow::array_literal(expr) {
                Some(literal) => self.constant_array(&literal, expr, out),
                None => Err(syn::Error::new_spanned(&m.mac.path, "this `vec!` of recorded values is outside the recorded vocabulary")),
            },
            Expr::Macro(m) => {
                self.check_macro(&m.mac)?;
                Ok(Lowered { val: Val::Const, fwd: expr.to_token_stream() })
            }
            Expr::Cast(c) => {
                // a cast of a constant (say, of `detach(…)`) is a constant
                let inner = self.lower_expr(&c.expr, out)?;
                if inner.val.is_active() {
                    return Err(syn::Error::new_spanned(
                        c.as_token,
                        "an `as` cast of a recorded value is outside the recorded vocabulary; for an integer (an index, a count) write `mica::detach(x) as usize`: the slope stops there",
                    ));
                }
                                Ok(Lowered { val: Val::Const, fwd: expr.to_token_stream() })
            }
                        Expr::Reference(r) if r.mutability.is_none() && self.is_recorded_array(&r.expr) => {
                let inner = self.lower_expr(&r.expr, out)?;
                let (and, x) = (&r.and_token, &inner.fwd);
                Ok(Lowered { val: inner.val, fwd: quote!(#and #x) })
            }
            Expr::Reference(r) => Err(syn::Error::new_spanned(
                r.and_token,
                "a reference to a recorded value is outside the recorded vocabulary; pass the value itself",
            )),
            Expr::Return(r) if self.function_form => Err(syn::Error::new_spanned(
                r.return_token,
                "`return` before the end of a `#[tape]` function is not supported by this version of Mica; end with the value",
            )),
            Expr::Return(_) | Expr::Try(_) | Expr::Await(_) | Expr::Break(_) | Expr::Continue(_) => {
                self.check_no_escape(expr)?;
                Err(syn::Error::new_spanned(first_token(expr), "this expression leaves the window early"))
            }
            Expr::If(i) => self.lower_if(i, out),
            Expr::Match(m) => self.lower_match(m, out),
            Expr::ForLoop(f) => self.lower_for(f, out),
            Expr::While(w) => self.lower_while(w, out),
            Expr::Loop(l) => Err(syn::Error::new_spanned(
                l.loop_token,
                "`loop` over recorded values is not supported; write a `for` or `while` loop",
            )),
            Expr::Index(i) => self.lower_index(i, out),
            Expr::Closure(c) => Err(syn::Error::new_spanned(
                c.or1_token,
                "a closure over a recorded value is outside the recorded vocabulary; write a `#[tape]` function and call it",
            )),
            _ => Err(syn::Error::new_spanned(
                first_token(expr),
                "this expression on a recorded value is outside the recorded vocabulary; the crate's documentation lists what may be recorded",
            )),
        }
    }

    /// Lowers an input of an operation: a recorded value, a literal, or a
    /// constant bound to a temporary so the reverse sweep can read it again.
    fn lower_operand(
        &mut self,
        expr: &Expr,
        out: &mut TokenStream,
    ) -> syn::Result<(Operand, TokenStream)> {
        // `(e)` is `e`: bound to a temporary, its parentheses would be unused
        let expr = strip_parens(expr);
        let lowered = self.lower_expr(expr, out)?;
        match lowered.val {
            Val::Active(id) => Ok((Operand::Active(id), lowered.fwd)),
            Val::Const => {
                if is_literal(expr) {
                    return Ok((Operand::Const(lowered.fwd.clone()), lowered.fwd));
                }
                // a name that holds the same value wherever the reverse
                // sweep reads it: read there, not copied
                if let Expr::Path(p) = expr {
                    if let Some(name) = p.path.get_ident() {
                        if self.at_top() && self.stability.as_ref().is_some_and(|s| s.pure(expr)) {
                            let id = self.new_value(name.clone(), None);
                            self.values[id].recompute = Some(lowered.fwd.clone());
                            return Ok((Operand::Stored(id), lowered.fwd));
                        }
                    }
                }
                // kept as written; a rule reads it through `val`
                let id = self.stored(lowered.fwd, out);
                if self.stability.as_ref().is_some_and(|s| s.pure(expr)) {
                    self.values[id].recompute = Some(expr.to_token_stream());
                }
                let store = self.values[id].store.to_token_stream();
                Ok((Operand::Stored(id), store))
            }
            Val::Tuple(_) => Err(syn::Error::new_spanned(
                expr,
                "a tuple is not a scalar; take one of its fields",
            )),
            Val::Array { .. } => Err(syn::Error::new_spanned(
                expr,
                "an array is not a scalar; index it",
            )),
        }
    }

    /// `let temp = value;`, or, inside a nested block or branch arm, an
    /// assignment to a temporary declared at the top of the storage scope.
    fn emit_temp(&mut self, temp: &Ident, value: TokenStream, out: &mut TokenStream) {
        let depth = self.depth;
        match self.hoists.last_mut() {
            Some(hoist) if hoist.base != depth || hoist.arms > 0 => {
                hoist.names.push((temp.clone(), hoist.arms > 0));
                out.extend([quote!(#temp = #value;)]);
            }
            _ => crate::names::push_let(out, temp, value),
        }
    }

    /// As [`Self::emit_temp`] for `Some(value)`: hoisted, it starts from
    /// `None` (not a placeholder, which a reference has not).
    fn emit_optional_temp(&mut self, temp: &Ident, value: TokenStream, out: &mut TokenStream) {
        let depth = self.depth;
        match self.hoists.last_mut() {
            Some(hoist) if hoist.base != depth || hoist.arms > 0 => {
                hoist.options.push(temp.clone());
                out.extend([quote!(#temp = ::core::option::Option::Some(#value);)]);
            }
            _ => out.extend([quote!(let #temp = ::core::option::Option::Some(#value);)]),
        }
    }

    /// A constant bound to a temporary the reverse sweep may read.
    fn stored(&mut self, value: TokenStream, out: &mut TokenStream) -> ValueId {
        let temp = self.names.fresh("c");
        self.emit_temp(&temp, value, out);
        self.new_value(temp, None)
    }

    /// Records an operation whose output is `fwd`, bound to a fresh store.
    fn new_op(
        &mut self,
        kind: OpKind,
        inputs: Vec<Operand>,
        fwd: TokenStream,
        out: &mut TokenStream,
    ) -> Lowered {
        self.new_op_at(kind, inputs, Vec::new(), fwd, out)
    }

    fn new_op_at(
        &mut self,
        kind: OpKind,
        inputs: Vec<Operand>,
        spans: Vec<proc_macro2::Span>,
        fwd: TokenStream,
        out: &mut TokenStream,
    ) -> Lowered {
        let store = self.names.fresh("t");
        self.emit_temp(&store, fwd, out);
        let fwd = store.to_token_stream();
        let id = self.record_op(store, kind, inputs, spans);
        Lowered {
            val: Val::Active(id),
            fwd,
        }
    }

    /// Records an operation whose value the forward sweep keeps in `store`.
    fn record_op(
        &mut self,
        store: Ident,
        kind: OpKind,
        inputs: Vec<Operand>,
        spans: Vec<proc_macro2::Span>,
    ) -> ValueId {
        let id = self.new_value(store, None);
        // read again only inside loops (outside, the value stays in scope)
        if self.stability.is_some() && self.scope != 0 {
            self.cheap_again(id, &kind, &inputs);
        }
        self.push_step(Step::Op(Op {
            out: id,
            kind,
            inputs,
            spans,
        }));
        id
    }

    /// `a ± b`, `a * b` and `-a` are cheaper to evaluate again than to
    /// store: their value, from their inputs' stores, the same operation.
    fn cheap_again(&mut self, id: ValueId, kind: &OpKind, inputs: &[Operand]) {
        let OpKind::Rule(rule) = kind else { return };
        let mut deps = Vec::new();
        let mut args = Vec::new();
        for input in inputs {
            match input {
                Operand::Active(v) | Operand::Stored(v) => {
                    if self.inlined.contains(v) {
                        return;
                    }
                    deps.push(*v);
                    args.push(self.values[*v].store.to_token_stream());
                }
                Operand::Const(tokens) => args.push(tokens.clone()),
                Operand::Array { .. } => return,
            }
        }
        // only what costs no more than reading a stored value
        if !matches!(*rule, "add" | "sub" | "mul" | "neg") {
            return;
        }
        let Some(expr) = crate::rules::forward(rule, &args) else {
            return;
        };
        self.values[id].recompute = Some(expr);
        self.values[id].deps = deps;
    }

    /// As [`Self::new_op`], unless no input is recorded after all (e.g. a
    /// binding that only looked recorded): then the expression is a constant.
    fn new_op_or_const(
        &mut self,
        rule: &'static str,
        mut inputs: Vec<Operand>,
        fwd: TokenStream,
        form: inline::Form,
        out: &mut TokenStream,
    ) -> Lowered {
        let hint = self.hint.take();
        if inputs.iter().any(|i| matches!(i, Operand::Active(_))) {
            if let Some((id, fwd)) = self.inline_op(hint, rule, &mut inputs, &fwd, form) {
                return Lowered {
                    val: Val::Active(id),
                    fwd,
                };
            }
            self.new_op(OpKind::Rule(rule), inputs, fwd, out)
        } else {
            Lowered {
                val: Val::Const,
                fwd,
            }
        }
    }

    fn lower_method(
        &mut self,
        m: &syn::ExprMethodCall,
        expr: &Expr,
        out: &mut TokenStream,
    ) -> syn::Result<Lowered> {
        let hint = self.hint.take();
        let name = m.method.to_string();
        let receiver_active = self.mentions_active(&m.receiver);
        if receiver_active && matches!(name.as_str(), "len" | "is_empty") && m.args.is_empty() {
            // the shape of a recorded array is a constant
            return Ok(Lowered {
                val: Val::Const,
                fwd: expr.to_token_stream(),
            });
        }
        if rules::method(&name).is_none()
            && !receiver_active
            && !MUTATING.contains(&name.as_str())
            && m.args.iter().any(|a| self.mentions_active(a))
        {
            return self.lower_tape_method(m, out);
        }
        let Some(method) = rules::method(&name) else {
            let message = if receiver_active && ITERATION.contains(&name.as_str()) {
                format!("`.{name}()` over recorded values is not supported yet; write the loop: `let mut total = 0.0; for x in xs.iter() {{ total += …; }}`")
            } else if receiver_active && NOT_A_FLOAT.contains(&name.as_str()) {
                format!("no derivative rule for the method `{name}`; its answer is not a float, so if you need it, call it on `mica::detach(…)` of the value: the slope stops there, which is right for a test or a count")
            } else if receiver_active {
                format!("no derivative rule for the method `{name}`; write it with the recorded vocabulary, or give it a rule in a `#[tape(custom)]` function")
            } else {
                format!("a recorded value is passed to the method `{name}`, which has no derivative rule; write the computation with the recorded vocabulary, or make the method `#[tape]`")
            };
            return Err(syn::Error::new_spanned(&m.method, message));
        };
        if m.args.len() != method.args {
            // rustc reports the arity; keep the user's tokens
            return Ok(Lowered {
                val: Val::Const,
                fwd: expr.to_token_stream(),
            });
        }
        if method.slope == Slope::Zero {
            return Ok(Lowered {
                val: Val::Const,
                fwd: expr.to_token_stream(),
            });
        }
        let mut inputs = Vec::new();
        let arity = m.args.len() + 1;
        let arg_active = |s: &Self, i: usize| s.mentions_active(&m.args[i - 1]);
        self.hint_operand(method.name, 0, arity, inline::Ctx::Receiver, |s, i| {
            i == 0 || arg_active(s, i)
        });
        let receiver = self.lower_operand(&m.receiver, out)?;
        inputs.push(receiver.0);
        let mut args = Vec::new();
        for (k, arg) in m.args.iter().enumerate() {
            // inputs lowered so far are known; the rest judged by their syntax
            let lowered = &inputs;
            self.hint_operand(
                method.name,
                k + 1,
                arity,
                inline::Ctx::Arg,
                |s, i| match lowered.get(i) {
                    Some(input) => matches!(input, Operand::Active(_)),
                    None => i == k + 1 || arg_active(s, i),
                },
            );
            let (operand, fwd) = self.lower_operand(arg, out)?;
            inputs.push(operand);
            args.push(fwd);
        }
        let (r, method_ident) = (&receiver.1, &m.method);
        // `(*a).sin()`: a receiver that is more than one token keeps parentheses
        let receiver_tokens = if is_literal(&m.receiver) || r.clone().into_iter().count() > 1 {
            quote!((#r))
        } else {
            r.clone()
        };
        let fwd = quote!(#receiver_tokens.#method_ident(#(#args),*));
        self.hint = hint;
        Ok(self.new_op_or_const(method.name, inputs, fwd, inline::Form::Postfix, out))
    }

    /// Whether `expr` names a recorded array (or a row of one), judged
    /// without emitting anything.
    fn is_recorded_array(&mut self, expr: &Expr) -> bool {
        match expr {
            Expr::Path(p) => p
                .path
                .get_ident()
                .and_then(|i| self.lookup(&i.to_string()))
                .is_some_and(|b| matches!(b.val, Val::Array { .. })),
            Expr::Index(i) => {
                self.is_recorded_array(&i.expr) && {
                    // a row, not an element
                    let mut depth = 1;
                    let mut base = &*i.expr;
                    while let Expr::Index(inner) = base {
                        depth += 1;
                        base = &inner.expr;
                    }
                    let rank = match base {
                        Expr::Path(p) => p
                            .path
                            .get_ident()
                            .and_then(|i| self.lookup(&i.to_string()))
                            .and_then(|b| match &b.val {
                                Val::Array { array, prefix } => {
                                    Some(self.arrays[*array].rank - prefix.len())
                                }
                                _ => None,
                            }),
                        _ => None,
                    };
                    rank.is_some_and(|rank| depth < rank)
                }
            }
            Expr::Paren(p) => self.is_recorded_array(&p.expr),
            Expr::Reference(r) => r.mutability.is_none() && self.is_recorded_array(&r.expr),
            _ => false,
        }
    }

    /// The arguments of a call to a tape function, in order, with where
    /// each was written (for errors about it).
    fn lower_call_args(
        &mut self,
        args: &syn::punctuated::Punctuated<Expr, syn::Token![,]>,
        out: &mut TokenStream,
    ) -> syn::Result<(Vec<Operand>, Vec<TokenStream>, Vec<proc_macro2::Span>)> {
        let mut inputs = Vec::new();
        let mut fwds = Vec::new();
        for arg in args {
            let (operand, fwd) = self.lower_call_arg(arg, out)?;
            inputs.push(operand);
            fwds.push(fwd);
        }
        Ok((inputs, fwds, args.iter().map(|a| a.span()).collect()))
    }

    /// An argument of a call to a tape function: as an operand, or, for a
    /// recorded array, the argument kept as written and its buffer.
    fn lower_call_arg(
        &mut self,
        arg: &Expr,
        out: &mut TokenStream,
    ) -> syn::Result<(Operand, TokenStream)> {
        if !self.is_recorded_array(arg) {
            return self.lower_operand(arg, out);
        }
        let lowered = self.lower_expr(arg, out)?;
        let Val::Array { array, prefix } = lowered.val else {
            return Err(syn::Error::new_spanned(
                arg,
                "this argument is not a recorded array",
            ));
        };
        // `&a` of an array the body may change after the call: the
        // callee's adjoint reads the values `a` had at the call, so the
        // sweep keeps a copy of them, not a borrow of `a`
        let owned = match strip_parens(arg) {
            Expr::Reference(r) if r.mutability.is_none() => {
                self.arrays[array].local.is_some()
                    && !self.stability.as_ref().is_some_and(|s| s.pure(&r.expr))
            }
            _ => false,
        };
        let (id, fwd) = if owned {
            let inner = match strip_parens(arg) {
                Expr::Reference(r) => &*r.expr,
                other => other,
            };
            let id = self.stored(quote!(::std::borrow::ToOwned::to_owned(&#inner)), out);
            let store = &self.values[id].store;
            (id, quote!(&#store))
        } else {
            let id = self.stored(lowered.fwd, out);
            (id, self.values[id].store.to_token_stream())
        };
        Ok((
            Operand::Array {
                arg: id,
                array,
                prefix,
                owned,
            },
            fwd,
        ))
    }

    /// `object.method(args…)` where `method` is a `#[tape]` method: the
    /// receiver is a constant, borrowed once, and the call is differentiated
    /// through `object.__mica_adjoint_method(…)`. The borrow is a value of
    /// the record, so a loop's tape keeps it per iteration; it is kept as
    /// `Some(&receiver)` because a branch arm's temporaries start from a
    /// placeholder before the arm runs, and `None` is one for any reference.
    fn lower_tape_method(
        &mut self,
        m: &syn::ExprMethodCall,
        out: &mut TokenStream,
    ) -> syn::Result<Lowered> {
        let receiver = &m.receiver;
        let borrow = self.names.fresh("o");
        out.extend([quote!(let #borrow = &(#receiver);)]);
        let object = self.names.fresh("c");
        self.emit_optional_temp(&object, borrow.to_token_stream(), out);
        let object = self.new_value(object, None);
        let (inputs, args, spans) = self.lower_call_args(&m.args, out)?;
        let method = &m.method;
        let adapter = quote::format_ident!("__mica_adjoint_{}", method, span = method.span());
        let fwd = quote!(#borrow.#method(#(#args),*));
        // every argument a constant (`detach(…)` of a recorded value): so is
        // the result
        if !inputs
            .iter()
            .any(|i| matches!(i, Operand::Active(_) | Operand::Array { .. }))
        {
            return Ok(Lowered {
                val: Val::Const,
                fwd,
            });
        }
        Ok(self.new_op_at(OpKind::Method { object, adapter }, inputs, spans, fwd, out))
    }

    fn lower_call(
        &mut self,
        c: &syn::ExprCall,
        expr: &Expr,
        out: &mut TokenStream,
    ) -> syn::Result<Lowered> {
        let hint = self.hint.take();
        let Expr::Path(func) = &*c.func else {
            return Err(syn::Error::new_spanned(
                &c.func,
                "a recorded value is passed to a call of something other than a function; call a `#[tape]` function by name",
            ));
        };
        let last = func
            .path
            .segments
            .last()
            .map(|s| s.ident.to_string())
            .unwrap_or_default();
        if last == "detach" {
            return Ok(Lowered {
                val: Val::Const,
                fwd: expr.to_token_stream(),
            });
        }
        if let Some(ident) = func.path.get_ident() {
            if self.lookup(&ident.to_string()).is_some() {
                return Err(syn::Error::new_spanned(
                    ident,
                    format!("`{ident}` is a local binding, not a `#[tape]` function; a recorded value is passed only to `#[tape]` functions"),
                ));
            }
        }
        if func.qself.is_some() {
            return Err(syn::Error::new_spanned(
                func,
                "a recorded value is passed only to a `#[tape]` function named by its path",
            ));
        }
        if let (Some(rule), 1) = (rules::function(&func.path), c.args.len()) {
            self.hint_operand(rule, 0, 1, inline::Ctx::Arg, |_, _| true);
            let (operand, arg) = self.lower_operand(&c.args[0], out)?;
            let f = &c.func;
            let fwd = quote!(#f(#arg));
            self.hint = hint;
            return Ok(self.new_op_or_const(rule, vec![operand], fwd, inline::Form::Postfix, out));
        }
        let (inputs, args, spans) = self.lower_call_args(&c.args, out)?;
        // the adapter lives in a module named after the function, so it is in
        // scope wherever the function is: `path::to::f` → `path::to::f::adjoint`
        let mut path = func.path.clone();
        if let Some(last) = path.segments.last_mut() {
            last.arguments = syn::PathArguments::None;
        }
        let span = c.func.span();
        let adapter = quote_spanned!(span=> #path::adjoint);
        let f = &c.func;
        let fwd = quote!(#f(#(#args),*));
        if inputs
            .iter()
            .any(|i| matches!(i, Operand::Active(_) | Operand::Array { .. }))
        {
            Ok(self.new_op_at(OpKind::Call(adapter), inputs, spans, fwd, out))
        } else {
            Ok(Lowered {
                val: Val::Const,
                fwd,
            })
        }
    }

    /// `[a, b]`, `[x; n]`, `vec![…]` outside a `let`: a constant when every
    /// element is one.
    fn constant_array(
        &mut self,
        literal: &Expr,
        written: &Expr,
        out: &mut TokenStream,
    ) -> syn::Result<Lowered> {
        let elements: Vec<&Expr> = match literal {
            Expr::Array(a) => a.elems.iter().collect(),
            Expr::Repeat(r) => vec![&*r.expr],
            _ => Vec::new(),
        };
        // the elements are lowered only to learn whether they are recorded;
        // that code is thrown away, and so is what it declared and recorded
        let hoisted = self.hoists.last().map(|h| (h.names.len(), h.options.len()));
        let (tapes, steps) = (self.tapes.len(), self.building.last().map_or(0, Vec::len));
        let lazy = self.lazy.len();
        let fast = self.fast_mark();
        let mut active = None;
        for element in elements {
            match self.lower_expr(element, &mut TokenStream::new()) {
                Ok(lowered) if lowered.val.is_active() => active = Some(Ok(element)),
                Ok(_) => continue,
                Err(e) => active = Some(Err(e)),
            }
            break;
        }
        if let (Some(hoist), Some((names, options))) = (self.hoists.last_mut(), hoisted) {
            hoist.names.truncate(names);
            hoist.options.truncate(options);
        }
        self.tapes.truncate(tapes);
        self.lazy.truncate(lazy);
        self.fast_rollback(fast);
        if let Some(list) = self.building.last_mut() {
            list.truncate(steps);
        }
        match active {
            Some(Ok(element)) => {
                return Err(syn::Error::new_spanned(
                    element,
                    "an array of recorded values is made by `let`: `let h = [a, b];`",
                ))
            }
            Some(Err(e)) => return Err(e),
            None => {}
        }
        let _ = out;
        Ok(Lowered {
            val: Val::Const,
            fwd: written.to_token_stream(),
        })
    }

    /// A block in value position: lowered in a scope of its own, its
    /// temporaries hoisted, its value read from its store.
    fn lower_nested_block(
        &mut self,
        block: &syn::Block,
        out: &mut TokenStream,
    ) -> syn::Result<Lowered> {
        self.scopes.push(HashMap::new());
        self.depth += 1;
        let mut inner = TokenStream::new();
        let tail = self.lower_block_stmts(&block.stmts, &mut inner);
        self.depth -= 1;
        self.scopes.pop();
        let Some(tail) = tail else {
            // a block standing as a statement: its lines, in a scope of their own
            out.extend([quote!({ #inner })]);
            return Ok(Lowered {
                val: Val::Const,
                fwd: TokenStream::new(),
            });
        };
        match tail.val {
            Val::Active(id) => {
                // temporaries inside are hoisted, so the value is read from
                // its store after the block
                let store = self.read_store(id);
                // reading the tail as written keeps its binding used
                let tail_fwd = tail.fwd;
                out.extend([quote!({ #inner let _ = #tail_fwd; })]);
                Ok(Lowered {
                    val: Val::Active(id),
                    fwd: store.to_token_stream(),
                })
            }
            val => {
                let fwd = tail.fwd;
                Ok(Lowered {
                    val,
                    fwd: quote!({ #inner #fwd }),
                })
            }
        }
    }

    // -------------------------------------------------------------- activity

    pub fn mentions_active(&self, expr: &Expr) -> bool {
        let mut finder = Mentions {
            sweep: self,
            found: false,
        };
        finder.visit_expr(expr);
        finder.found
    }

    fn tokens_mention_active(&self, tokens: TokenStream) -> bool {
        tokens.into_iter().any(|tt| match tt {
            TokenTree::Ident(ident) => self.is_active_name(&ident.to_string()),
            TokenTree::Group(g) => self.tokens_mention_active(g.stream()),
            _ => false,
        })
    }

    fn is_active_name(&self, name: &str) -> bool {
        self.lookup(name).is_some_and(|b| b.val.is_active())
    }
}

struct Mentions<'s, 'a> {
    sweep: &'s Sweep<'a>,
    found: bool,
}

impl<'ast> Visit<'ast> for Mentions<'_, '_> {
    fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
        if let Some(ident) = p.path.get_ident() {
            if self.sweep.is_active_name(&ident.to_string()) {
                self.found = true;
            }
        }
    }
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        if self.sweep.tokens_mention_active(m.tokens.clone()) {
            self.found = true;
        }
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// Whether `expr` has an identifier for which `named` holds (paths,
/// fields, methods: every identifier syn visits).
fn names_any(expr: &Expr, named: impl FnMut(&Ident) -> bool) -> bool {
    struct Finder<F>(F, bool);
    impl<'ast, F: FnMut(&Ident) -> bool> Visit<'ast> for Finder<F> {
        fn visit_ident(&mut self, ident: &'ast Ident) {
            self.1 = self.1 || (self.0)(ident);
        }
    }
    let mut finder = Finder(named, false);
    finder.visit_expr(expr);
    finder.1
}

#[derive(Default)]
struct PatNames(Vec<Ident>);

impl<'ast> Visit<'ast> for PatNames {
    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        self.0.push(p.ident.clone());
        syn::visit::visit_pat_ident(self, p);
    }
}

/// `tape!`, `backward!` or `gradient!`: meaningless once left behind.
fn is_tape_macro(mac: &syn::Macro) -> bool {
    mac.path
        .segments
        .last()
        .is_some_and(|s| s.ident == "tape" || s.ident == "backward" || s.ident == "gradient")
}

fn compound_to_binary(op: &syn::BinOp) -> TokenStream {
    use syn::BinOp::*;
    let span = op.span();
    match op {
        AddAssign(_) => quote_spanned!(span=> +),
        SubAssign(_) => quote_spanned!(span=> -),
        MulAssign(_) => quote_spanned!(span=> *),
        _ => quote_spanned!(span=> /),
    }
}

fn strip_parens(expr: &Expr) -> &Expr {
    match expr {
        Expr::Paren(p) => strip_parens(&p.expr),
        other => other,
    }
}

fn is_literal(expr: &Expr) -> bool {
    match expr {
        Expr::Lit(_) => true,
        Expr::Paren(p) => is_literal(&p.expr),
        Expr::Group(g) => is_literal(&g.expr),
        _ => false,
    }
}

/// The first token of an expression: the smallest span that names it.
pub fn first_token(expr: &Expr) -> TokenStream {
    expr.to_token_stream().into_iter().take(1).collect()
}
