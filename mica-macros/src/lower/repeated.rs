//! An element read again is the value read before. `x[0]` in one line
//! and `x[0]` in a later one are one recorded value when nothing can
//! change the element between them: its adjoint is summed in a register
//! and added into `x`'s slot once, where each read would add its own
//! share through memory (a bounds check and a load and store each).
//!
//! A read is taken again only when Rust would give the same value: the
//! whole read is pure (the array and every name in its index are stable:
//! bound once in the function, or an enclosing loop's counter its body
//! does not bind again; see `facts/stability.rs`), so the same tokens name
//! the same bindings and the element holds what it held.
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

/// The reads of one layer: a read's tokens → its value and how the
/// forward sweep reads it.
#[derive(Default, Clone)]
pub struct Layer {
    /// a loop body's layer: the search for a read stops here
    boundary: bool,
    reads: HashMap<String, (ValueId, TokenStream)>,
    /// reads of a block the current statement keeps inside its expression:
    /// known from the next statement on (see [`Sweep::leave_repeated_keeping`])
    held: HashMap<String, (ValueId, TokenStream)>,
}

impl Sweep<'_> {
    /// A layer for a loop body (`boundary`), a branch arm or a nested block.
    pub(super) fn enter_repeated(&mut self, boundary: bool) {
        self.repeated.push(Layer {
            boundary,
            reads: HashMap::new(),
            held: HashMap::new(),
        });
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

    /// The key of a read that may be taken again, if it may: the whole read
    /// is pure (every name in it stable, so the same tokens name the same
    /// bindings wherever this layer reaches).
    pub(super) fn repeatable(&self, i: &syn::ExprIndex) -> Option<String> {
        let stability = self.stability.as_ref()?;
        stability
            .pure(&Expr::Index(i.clone()))
            .then(|| i.to_token_stream().to_string())
    }

    /// The value of an earlier read with these tokens, in this layer or an
    /// enclosing one inside the same loop body.
    pub(super) fn read_before(&self, key: &str) -> Option<(ValueId, TokenStream)> {
        for layer in self.repeated.iter().rev() {
            if let Some(hit) = layer.reads.get(key) {
                return Some(hit.clone());
            }
            if layer.boundary {
                break;
            }
        }
        None
    }

    /// A read to take again later in this layer.
    pub(super) fn keep_read(&mut self, key: String, id: ValueId, fwd: TokenStream) {
        if let Some(layer) = self.repeated.last_mut() {
            layer.reads.insert(key, (id, fwd));
        }
    }
}
