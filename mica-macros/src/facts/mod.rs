//! Facts read from the user's syntax before the record is built, each
//! question answered in one place.

pub mod activity;
pub mod loops;
pub mod places;
pub mod stability;
pub mod syntax;
