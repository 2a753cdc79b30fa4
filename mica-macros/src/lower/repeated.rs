//! An element read again is the value read before. `x[0]` in one line
//! and `x[0]` in a later one are one recorded value when nothing can
//! change the element between them: its adjoint is summed in a register
//! and added into `x`'s slot once, where each read would add its own
//! share through memory (a bounds check and a load and store each).
//!
//! A read is taken again only when Rust would give the same value. Either
//! the whole read is pure (the array and every name in its index are
//! stable: bound once in the function, or an enclosing loop's counter its
//! body does not bind again; see `facts/stability.rs`), so the same tokens
//! name the same bindings and the element holds what it held; or every
//! name in it that is not stable is bound once in the function (an array
//! the body writes, `hidden[i]`, or a `let` inside a loop) and no line
//! between the two reads may change any of them. Each statement is looked
//! at before it is lowered ([`Changes`]): a name it assigns, borrows
//! mutably, calls a method on, hands to a call or binds as a whole, or
//! any name at all where it holds `unsafe` or a `ref mut` pattern, makes
//! the reads that name it forgotten, and no read of such a name inside
//! the statement is taken again or kept (in `a[0] + f(&mut a) + a[0]`
//! the call runs between the two reads). Rust's borrows do the rest: a
//! name that holds a mutable borrow of the array cannot be alive across a
//! read of it. A statement that is one element write (`c[i] = v;`,
//! `c[i] *= v;`) leaves that element known as the value written, on the
//! same terms: `c[i].tanh()` in the next line is `v`, its slope added to
//! `v`'s in a register instead of through `c`'s adjoint.
//!
//! The reads are kept in layers: a branch arm's reads are forgotten where
//! it ends (the other arms, and the code after the branch, may run without
//! them), and a loop body's too, whose own layer also hides the reads made
//! before the loop (a value made outside a loop and read inside keeps the
//! loop's reverse from its shortcuts). A block nested in an expression has
//! a layer too: written out in place, its reads stay known after it; kept
//! inside the expression (its value not recorded), it runs after the lines
//! the expression's other operands put before the statement, so its reads
//! are known only from the next statement on.
//! Only the adjoint that takes shortcuts does this (it has a stability
//! analysis); the plain adjoint reads each element where it is written.

use super::*;

/// A read kept for later: its value, how the forward sweep reads it, and
/// the names in it that are not stable (a line changing one forgets it).
#[derive(Clone)]
struct Read {
    id: ValueId,
    fwd: TokenStream,
    deps: Vec<String>,
}

/// The reads of one layer: a read's tokens → its value and how the
/// forward sweep reads it.
#[derive(Default, Clone)]
pub struct Layer {
    /// a loop body's layer: the search for a read stops here
    boundary: bool,
    /// a loop body's layer: how many statements were open around the loop
    /// (their changes do not hold reads inside the body back)
    floor: usize,
    reads: HashMap<String, Read>,
    /// reads of a block the current statement keeps inside its expression:
    /// known from the next statement on (see [`Sweep::leave_repeated_keeping`])
    held: HashMap<String, Read>,
}

impl Layer {
    fn forget(&mut self, changes: &Changes) {
        self.reads.retain(|_, read| !changes.touch(&read.deps));
        self.held.retain(|_, read| !changes.touch(&read.deps));
    }
}

/// The names a statement may change, for the reads that name them.
#[derive(Default, Clone)]
pub struct Changes {
    names: HashSet<String>,
    /// it may change any name (`unsafe`, a `ref mut` pattern)
    all: bool,
}

impl Changes {
    /// What `stmt` may change: every name [`crate::facts::loops`] counts as
    /// changed in it (assigned, borrowed mutably, a method's receiver but
    /// an element a float method reads, a macro's tokens, a pattern's
    /// names), and every name handed on whole (see [`Escapes`]).
    pub fn of(stmt: &Stmt) -> Self {
        let mut names = crate::facts::loops::changed_in_stmt(stmt);
        let mut escapes = Escapes {
            names: &mut names,
            value: true,
            all: false,
        };
        escapes.visit_stmt(stmt);
        let all = escapes.all;
        Changes { names, all }
    }

    fn touch(&self, deps: &[String]) -> bool {
        !deps.is_empty() && (self.all || deps.iter().any(|d| self.names.contains(d)))
    }
}

/// Names a statement hands on whole, where a mutable borrow can go with
/// them: a call's argument (`f(h)`, `h` a `&mut [f64]`), a `let`'s or an
/// assignment's value, what a `match`, `if let` or `for` takes, an element
/// of a tuple or literal, a block's value. Only arithmetic, indexing,
/// casts, shared borrows and conditions read a name without handing it on.
struct Escapes<'a> {
    names: &'a mut HashSet<String>,
    /// the expression being visited hands its value on
    value: bool,
    all: bool,
}

impl Escapes<'_> {
    fn with(&mut self, value: bool, e: &Expr) {
        let outer = std::mem::replace(&mut self.value, value);
        self.visit_expr(e);
        self.value = outer;
    }
}

impl<'ast> Visit<'ast> for Escapes<'_> {
    fn visit_expr(&mut self, e: &'ast Expr) {
        match e {
            Expr::Path(p) => {
                if let (true, Some(name)) = (self.value, p.path.get_ident()) {
                    self.names.insert(name.to_string());
                }
            }
            Expr::Lit(_) => {}
            Expr::Paren(p) => self.with(self.value, &p.expr),
            Expr::Group(g) => self.with(self.value, &g.expr),
            Expr::Field(f) => self.with(self.value, &f.base),
            Expr::Binary(b) if !is_compound(&b.op) => {
                self.with(false, &b.left);
                self.with(false, &b.right);
            }
            Expr::Unary(u) => self.with(false, &u.expr),
            Expr::Cast(c) => self.with(false, &c.expr),
            Expr::Index(i) => {
                self.with(false, &i.expr);
                self.with(false, &i.index);
            }
            // a mutable borrow's place is counted changed already
            Expr::Reference(r) => self.with(false, &r.expr),
            Expr::MethodCall(m) => {
                self.with(false, &m.receiver);
                for arg in &m.args {
                    self.with(true, arg);
                }
            }
            Expr::If(i) => {
                self.with(false, &i.cond);
                self.visit_block(&i.then_branch);
                if let Some((_, other)) = &i.else_branch {
                    self.with(true, other);
                }
            }
            Expr::Unsafe(_) => self.all = true,
            _ => {
                let outer = std::mem::replace(&mut self.value, true);
                syn::visit::visit_expr(self, e);
                self.value = outer;
            }
        }
    }
    fn visit_stmt(&mut self, s: &'ast Stmt) {
        let outer = std::mem::replace(&mut self.value, true);
        syn::visit::visit_stmt(self, s);
        self.value = outer;
    }
    /// (the names a pattern binds are `changed_in_stmt`'s already)
    fn visit_pat(&mut self, p: &'ast Pat) {
        if crate::facts::loops::binds_by_ref_mut(p) {
            self.all = true;
        }
    }
    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

impl Sweep<'_> {
    /// A layer for a loop body (`boundary`), a branch arm or a nested block.
    pub(super) fn enter_repeated(&mut self, boundary: bool) {
        self.repeated.push(Layer {
            boundary,
            floor: self.writing.len(),
            reads: HashMap::new(),
            held: HashMap::new(),
        });
    }

    /// A statement is about to be lowered: the reads naming what it may
    /// change are forgotten, and until [`Self::leave_statement`] no read
    /// naming it is taken again or kept.
    pub(super) fn enter_statement(&mut self, stmt: &Stmt) {
        let changes = Changes::of(stmt);
        self.repeated.iter_mut().for_each(|l| l.forget(&changes));
        self.writing.push(changes);
    }

    /// The statement is lowered: what it may have changed is forgotten
    /// again (reads its blocks left known). A statement that is one
    /// element write (`h[i] = v;`, `h[i] *= v;`) leaves the element known:
    /// a later read of it is the value written.
    pub(super) fn leave_statement(&mut self, stmt: &Stmt) {
        let Some(changes) = self.writing.pop() else {
            return;
        };
        self.repeated.iter_mut().for_each(|l| l.forget(&changes));
        let Some((target, id, place)) = self.wrote.take() else {
            return;
        };
        let Stmt::Expr(written, _) = stmt else {
            return;
        };
        let assigned = match written {
            Expr::Assign(a) => &a.left,
            Expr::Binary(b) if is_compound(&b.op) => &b.left,
            _ => return,
        };
        let same = |i: &syn::ExprIndex| {
            i.to_token_stream().to_string() == target.to_token_stream().to_string()
        };
        if !matches!(&**assigned, Expr::Index(i) if same(i)) {
            return;
        }
        // the value ran before the place: the index names what the read
        // after names
        let Some(again) = self.repeatable(&target) else {
            return;
        };
        self.keep_read(again, id, place);
    }
    /// The layer entered last is done: its reads are forgotten.
    pub(super) fn leave_repeated(&mut self) {
        if self.repeated.len() > 1 {
            self.repeated.pop();
        }
    }

    /// The layer of a block is done, and its reads stay known: `now`, where
    /// its lines ran in place; otherwise from the statement after the one
    /// holding it, whose expression keeps the block inside it, to run
    /// after the lines its other operands put before the statement
    /// (`[{ x[1] … }, x[2] * x[1]]`).
    pub(super) fn leave_repeated_keeping(&mut self, now: bool) {
        if self.repeated.len() > 1 {
            if let Some(layer) = self.repeated.pop() {
                if let Some(top) = self.repeated.last_mut() {
                    let to = if now { &mut top.reads } else { &mut top.held };
                    to.extend(layer.reads);
                    to.extend(layer.held);
                }
            }
        }
    }

    /// A statement is done: the reads of the blocks it kept inside its
    /// expression are known from here on.
    pub(super) fn release_held(&mut self) {
        if let Some(top) = self.repeated.last_mut() {
            let held = std::mem::take(&mut top.held);
            top.reads.extend(held);
        }
    }

    /// The key of a read that may be taken again, if it may, and the names
    /// in it that are not stable: none where the whole read is pure (every
    /// name in it stable, so the same tokens name the same bindings
    /// wherever this layer reaches); otherwise each bound once in the
    /// function, and none of them changed by a statement open around the
    /// read inside this loop body.
    pub(super) fn repeatable(&self, i: &syn::ExprIndex) -> Option<(String, Vec<String>)> {
        let stability = self.stability.as_ref()?;
        let mut deps: Vec<String> = stability
            .unstable_names(&Expr::Index(i.clone()))?
            .iter()
            .map(|n| n.to_string())
            .collect();
        deps.sort();
        deps.dedup();
        if !deps.iter().all(|n| stability.bound_once(n)) {
            return None;
        }
        if !deps.is_empty() {
            let floor = self
                .repeated
                .iter()
                .rev()
                .find(|l| l.boundary)
                .map_or(0, |l| l.floor);
            if self.writing[floor.min(self.writing.len())..]
                .iter()
                .any(|c| c.touch(&deps))
            {
                return None;
            }
        }
        Some((i.to_token_stream().to_string(), deps))
    }

    /// The value of an earlier read with these tokens, in this layer or an
    /// enclosing one inside the same loop body.
    pub(super) fn read_before(&self, key: &str) -> Option<(ValueId, TokenStream)> {
        for layer in self.repeated.iter().rev() {
            if let Some(hit) = layer.reads.get(key) {
                return Some((hit.id, hit.fwd.clone()));
            }
            if layer.boundary {
                break;
            }
        }
        None
    }

    /// A read to take again later in this layer.
    pub(super) fn keep_read(
        &mut self,
        (key, deps): (String, Vec<String>),
        id: ValueId,
        fwd: TokenStream,
    ) {
        if let Some(layer) = self.repeated.last_mut() {
            layer.reads.insert(key, Read { id, fwd, deps });
        }
    }
}
