//! The bindings a loop body carries from one iteration to the next as
//! recorded values, found before the body is lowered. Which expressions
//! would be recorded is read from syntax alone (`facts/activity.rs`).

use super::*;
use crate::facts::activity::{syntactically_active, Assignments};
use crate::facts::places::{names_any, pattern_names, LoopPatterns};
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
        let mut active: HashSet<String> = self
            .scopes
            .iter()
            .flat_map(|s| s.iter())
            .filter(|(name, _)| self.is_active_name(name))
            .map(|(name, _)| name.clone())
            .chain(elements.iter().cloned())
            .collect();
        let mut loops = LoopPatterns::default();
        for stmt in stmts {
            loops.visit_stmt(stmt);
        }
        // a fixed point: a binding becomes recorded when assigned a recorded
        // value, an inner loop's element when it iterates a recorded array
        loop {
            let before = active.len();
            for (pat, iterated) in &loops.0 {
                if names_any(iterated, |i| active.contains(&i.to_string())) {
                    active.extend(pattern_names(pat).iter().map(Ident::to_string));
                }
            }
            for (name, value, compound) in &finder.assigned {
                if syntactically_active(value, &active)
                    || (*compound && active.contains(&name.to_string()))
                {
                    active.insert(name.to_string());
                }
            }
            for (name, init) in &finder.lets {
                if syntactically_active(init, &active) {
                    active.insert(name.to_string());
                }
            }
            // an array given a recorded element holds recorded values
            for (name, value) in &finder.writes {
                if syntactically_active(value, &active) {
                    active.insert(name.to_string());
                }
            }
            if active.len() == before {
                break;
            }
        }
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
