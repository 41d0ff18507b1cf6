//! For check authors: `reviewhost new` (a crate that builds to a validator component on
//! a machine with only Rust and crates.io) and `reviewhost test` (a component against
//! fixture cases, under production limits).

pub mod fixtures;
pub mod scaffold;
