//! The bindings a loop body carries from one iteration to the next as
//! recorded values, found before the body is lowered. Which expressions
//! would be recorded is read from syntax alone (`facts/activity.rs`).

use super::*;
use crate::facts::activity::{settle, Assignments};
use std::collections::HashSet;

impl Sweep<'_> {
    /// Bindings the body assigns whose values flow between iterations as
    /// recorded values (found before lowering, so each iteration can start
    /// from a copy).
    pub(super) fn carried(&self, stmts: &[Stmt], elements: &[String]) -> Vec<(Ident, Origin, Val)> {
        let mut finder = Assignments::default();
        for stmt in stmts {
            finder.visit_stmt(stmt);
        }
        // only the names the lines mention can matter (looking through
        // every binding in scope made a long body of loops quadratic)
        let mut mentioned = HashSet::new();
        for stmt in stmts {
            crate::names::idents_in(stmt.to_token_stream(), &mut mentioned);
        }
        let mut active: HashSet<String> = mentioned
            .into_iter()
            .filter(|name| self.is_active_name(name))
            .chain(elements.iter().cloned())
            .collect();
        // a fixed point: a binding becomes recorded when assigned a recorded
        // value, an inner loop's element when it iterates a recorded array
        settle(&finder, &mut active);
        let mut seen = HashSet::new();
        finder
            .assigned
            .iter()
            .filter(|(name, _, _)| {
                active.contains(&name.to_string()) && seen.insert(name.to_string())
            })
            .filter_map(|(name, _, _)| {
                let binding = self.lookup(&name.to_string())?;
                // an array is a place: assigning it is a copy into it
                // (`lower/whole.rs`), not a value carried
                (matches!(binding.origin, Origin::Local | Origin::Param)
                    && !matches!(binding.val, Val::Array { .. }))
                .then(|| (name.clone(), binding.origin, binding.val.clone()))
            })
            .collect()
    }
}
