//! Analyses of the record: pure functions of it, computed before any
//! reverse code is written, which every shortcut asks for its legality.

pub mod carry;
pub mod dependence;
