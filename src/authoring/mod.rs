//! For check authors: `reviewhost new` (a crate that builds to a validator component on
//! a machine with only Rust and crates.io) and `reviewhost test` (a component against
//! fixture cases, under production limits), and `reviewhost inspect` (what a built
//! component imports, exports and needs, and its pin).

pub mod fixtures;
pub mod inspect;
pub mod scaffold;
