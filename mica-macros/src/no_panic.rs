//! The macro never panics: property tests drive the expansion functions
//! with arbitrary and mutated token streams.
