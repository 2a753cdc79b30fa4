//! Lowering: recorded code → a forward sweep and a compile-time record.
//!
//! Input (a window, or a `#[tape]` function's body):
//!
//! ```text
//! let m = a * 2.0 - c;
//! let loss = m * m;
//! ```
//!
//! Output: the same statements, each recorded operation bound to a fresh
//! immutable temporary, and the record of those operations:
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
use std::collections::{HashMap, HashSet};
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::{Expr, Local, Pat, Stmt};

mod activity;
mod array_calls;
mod arrays;
mod branches;
mod calls;
mod exprs;
mod fast;
mod for_loops;
mod inline;
mod loops;
mod nests;
mod placeholders;
mod rebuild;
mod repeated;
mod snapshots;
mod stmts;
mod unroll;
mod walls;
mod whole;
mod writes;
pub use crate::facts::stability::Stability;
use crate::facts::syntax::{is_compound, is_literal};
use crate::record::*;
pub use placeholders::fill_placeholders;
use placeholders::{hoisted_decls, Hoist};

/// Iterator adapters and consumers: on recorded values, written as loops.
const ITERATION: &[&str] = &[
    "sum",
    "product",
    "map",
    "fold",
    "reduce",
    "for_each",
    "filter",
    "take_while",
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
    "position",
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
    /// a constant element of a `for` over `.iter()` (or a zip of such):
    /// possibly a reference, kept for the reverse by value
    by_ref: bool,
}

/// The result of lowering an expression.
pub struct Lowered {
    pub val: Val,
    /// how the forward sweep reads the value: a user's binding, a
    /// temporary, or (for a constant) the expression itself
    pub fwd: TokenStream,
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
    /// names refused a copy of a recorded array (`lower/stmts.rs`): their
    /// reads say nothing more
    refused_copies: HashSet<String>,
    depth: usize,
    region: usize,
    regions: usize,
    scope: usize,
    /// every loop's tape, declared at the sweep's top, with its capacity
    /// when it lives on the stack
    pub tapes: Vec<(Ident, Option<TokenStream>)>,
    /// in the function form, `return` ends the forward story
    pub function_form: bool,
    /// the function is a directional derivative `hvp` wrote: its calls
    /// `f::hvp(…)` are differentiated through `f::hvp_adjoint`
    pub directional: bool,
    /// the function returns an `Option` or a `Result`: `?` on constants
    /// leaves it as it leaves the function (see `wrapped.rs`)
    pub wrapped: bool,
    /// which names the reverse sweep may read again (function form without
    /// `return`; `None`: store every constant a loop's reverse reads)
    pub stability: Option<Stability>,
    /// values whose stores the forward sweep reads where the lowering did
    /// not write them: they must be written (see [`Self::lazy_fills`])
    forward_reads: std::collections::BTreeSet<ValueId>,
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
    /// elements read so far that a later read of the same element takes
    /// again (`lower/repeated.rs`), in layers: the function body's, then
    /// one per open loop body and branch arm
    repeated: Vec<repeated::Layer>,
    /// what each statement being lowered may change, outermost first, and
    /// the element it wrote last, its value and how the forward reads it
    writing: Vec<repeated::Changes>,
    wrote: Option<(syn::ExprIndex, ValueId, TokenStream)>,
    /// open `for` loops that are nests of short loops over literal ranges:
    /// no loop inside them is written out (`lower/unroll.rs`)
    short_nests: usize,
    /// the stores of operations written inside their consumers: never
    /// declared, so nothing may be evaluated again from them
    inlined: std::collections::HashSet<ValueId>,
    /// the loops around the code being lowered whose forward reads may go
    /// through slices (see `lower/fast.rs`), innermost last
    fast: Vec<fast::FastLoop>,
    /// the function's `const` generic parameters: named in capitals like a
    /// `const` item, but unusable in the inline capacities
    pub const_generics: std::collections::HashSet<String>,
    /// temporaries declared at the top of their storage scope and assigned
    /// in a nested block or arm: a `let` of the same name before a fused
    /// loop would shadow the declaration (see `reverse/fuse.rs`)
    pub hoisted: std::collections::HashSet<String>,
    /// local arrays of constants bound by a literal (`let h = [0.0; 3];`),
    /// by name, with their rank: a copy of one (`let mut v = h;`) that later
    /// lines write recorded values into is recorded from its `let`
    const_arrays: HashMap<String, usize>,
    /// binding a `for`'s elements over something not a range (see
    /// `Binding::by_ref`)
    iterating_by_ref: bool,
    /// the loops around the code being lowered, outermost first, with the
    /// copies of whole arrays taken where each starts (`lower/snapshots.rs`)
    around: Vec<snapshots::Around>,
    /// local arrays made by a literal (`[x; n]`, `[[a, b], [c, d]]`) → their
    /// lengths as written, outermost first, and the scope that binds them
    whole: HashMap<String, (Vec<String>, usize)>,
    /// immutable local arrays of `whole` the reverse can make again → their
    /// literal as it makes it, and the values that reads (`lower/rebuild.rs`)
    rebuilds: HashMap<String, (syn::Expr, Vec<ValueId>)>,
    /// the same for a literal's new array bound to a temporary
    literal_rebuilds: HashMap<ArrayId, (syn::Expr, Vec<ValueId>)>,
    /// the values those literals hold, by their stores: recorded, or read back
    rebuilt_recorded: HashMap<String, (ValueId, bool)>,
    /// names whose last binding holds a value, not a reference (a `let` of a
    /// literal, a cast, arithmetic, an element, a length, another such name,
    /// or a range's counter): what a copy may clone
    owned: std::collections::HashSet<String>,
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
            refused_copies: HashSet::new(),
            depth: 0,
            region: 0,
            regions: 1,
            scope: 0,
            tapes: Vec::new(),
            function_form,
            directional: false,
            wrapped: false,
            stability: None,
            forward_reads: Default::default(),
            lazy: Vec::new(),
            written: Default::default(),
            hint: None,
            inline_stmt: false,
            read_cache: None,
            repeated: vec![repeated::Layer::default()],
            writing: Vec::new(),
            wrote: None,
            short_nests: 0,
            inlined: Default::default(),
            fast: Vec::new(),
            const_generics: Default::default(),
            hoisted: Default::default(),
            const_arrays: HashMap::new(),
            iterating_by_ref: false,
            around: Vec::new(),
            whole: HashMap::new(),
            rebuilds: HashMap::new(),
            literal_rebuilds: HashMap::new(),
            rebuilt_recorded: HashMap::new(),
            owned: Default::default(),
        }
    }

    /// The names, and the record as the later stages read it.
    pub fn parts(&mut self) -> (&mut Names, Record<'_>) {
        (
            &mut *self.names,
            Record {
                values: &self.values,
                arrays: &self.arrays,
                stability: self.stability.as_ref(),
                hoisted: &self.hoisted,
                tapes: &self.tapes,
                forward_reads: &self.forward_reads,
                inlined: &self.inlined,
            },
        )
    }

    /// The record, once lowering is done.
    pub fn take_steps(&mut self) -> Vec<Step> {
        self.building.drain(..).next().unwrap_or_default()
    }

    fn new_value(&mut self, store: Ident, capture: Option<Ident>) -> ValueId {
        self.values.push(Value {
            store,
            capture,
            recompute: None,
            deps: Vec::new(),
            syntax: None,
            region: self.region,
            scope: self.scope,
            optional: false,
            rebuilt: false,
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

    /// An untracked parameter that is an array, a slice or a `Vec` of
    /// floats: a copy of it (`let mut h = x.to_vec();`) may become recorded.
    pub fn add_const_array(&mut self, name: &Ident, origin: Origin, rank: usize) {
        self.bind(name, Val::Const, origin);
        self.const_arrays.insert(name.to_string(), rank);
    }

    fn bind(&mut self, name: &Ident, val: Val, origin: Origin) {
        self.const_arrays.remove(&name.to_string());
        self.whole.remove(&name.to_string());
        self.rebuilds.remove(&name.to_string());
        if let Some(scope) = self.scopes.last_mut() {
            scope.insert(
                name.to_string(),
                Binding {
                    val,
                    origin,
                    by_ref: false,
                },
            );
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
        self.forward_reads.insert(id);
        self.values[id].store.clone()
    }

    /// Code that goes in only if the reverse sweep reads one of `values`
    /// (a placeholder for it now; see [`Self::lazy_fills`]).
    pub(super) fn lazy(
        &mut self,
        values: Vec<ValueId>,
        code: TokenStream,
        out: &mut TokenStream,
    ) -> Ident {
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
    /// placeholders' fills. `made_again`: copies the reverse made from their literals, whose
    /// store it binds itself (`lower/rebuild.rs`).
    pub fn lazy_fills(
        &mut self,
        reads: &std::collections::BTreeSet<ValueId>,
        made_again: &HashSet<ValueId>,
        fills: &mut HashMap<String, TokenStream>,
    ) {
        for (placeholder, values, code) in std::mem::take(&mut self.lazy) {
            if !values.is_empty() && values.iter().all(|v| made_again.contains(v)) {
                continue;
            }
            if values
                .iter()
                .any(|&v| reads.contains(&v) || self.written.contains(&v))
            {
                // several copies may wait at one placeholder (see
                // `lower/snapshots.rs`)
                fills
                    .entry(placeholder.to_string())
                    .or_default()
                    .extend(code);
            }
        }
    }

    /// What goes before the forward code: copies of the inputs the sweep
    /// needs, the declarations of hoisted temporaries, the loops' tapes.
    /// `reads`: the values the reverse reads; `empty_tapes`: the loops whose
    /// tapes it leaves empty.
    pub fn prologue(
        &self,
        reads: &std::collections::BTreeSet<ValueId>,
        empty_tapes: &std::collections::HashSet<String>,
    ) -> TokenStream {
        let captures = reads.iter().map(|&v| &self.values[v]).filter_map(|v| {
            let store = &v.store;
            v.capture
                .as_ref()
                .filter(|name| v.scope == 0 && v.region == 0 && *name != store)
                .map(|name| quote!(let #store = #name;))
        });
        let mut hoisted = self.hoists.first().map(hoisted_decls).unwrap_or_default();
        // copies taken in nested blocks of the top level, if read
        for (store, id) in self.hoists.first().map_or(&[][..], |h| &h.copies[..]) {
            if reads.contains(id) {
                hoisted.extend([quote!(let #store;)]);
            }
        }
        let tapes = self
            .tapes
            .iter()
            .filter(|(tape, _)| !empty_tapes.contains(&tape.to_string()))
            .map(|(tape, capacity)| match capacity {
                Some(capacity) => {
                    quote!(let mut #tape = ::mica::__private::StackTape::<_, #capacity>::new();)
                }
                None => quote!(let mut #tape = ::std::vec::Vec::new();),
            });
        quote!(#(#captures)* #hoisted #(#tapes)*)
    }

    // ------------------------------------------------------------ statements

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
    /// `w.len()`, `w.is_empty()`: the shape of a recorded array is a
    /// constant
    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        let shape = matches!(m.method.to_string().as_str(), "len" | "is_empty")
            && m.args.is_empty()
            && matches!(
                &*m.receiver,
                Expr::Path(_) | Expr::Index(_) | Expr::Field(_)
            );
        if !shape {
            syn::visit::visit_expr_method_call(self, m);
        }
    }
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        if self.sweep.tokens_mention_active(m.tokens.clone()) {
            self.found = true;
        }
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
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

/// The first token of an expression: the smallest span that names it.
pub fn first_token(expr: &Expr) -> TokenStream {
    expr.to_token_stream().into_iter().take(1).collect()
}
