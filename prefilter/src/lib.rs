//! A shared first pass for the searches of one run.
//!
//! Analysts write many searches over the same directories (`grep -rn X src/`,
//! `rg Y src/`), and most find nothing. Each would read and scan every file of its
//! scope inside the sandbox. Instead, before the checks run, the literals each search's
//! matches must contain ([`Needles`]) are all looked for together, in one pass over the
//! files of the union of the scopes ([`Index`]), natively in the host. A search then
//! asks, per file, whether the file can hold a match at all; a file that cannot is
//! treated as one read and found without a match.
//!
//! The pass is an optimisation that must never change a verdict, so every answer errs
//! one way: "cannot match" is said only when the file was read by the pass, is still
//! the same file ([`Stamp`]), and contains none of the search's literals. Anything
//! else (a file the pass did not see, changed since, or too recent to be sure of, a
//! literal the pass did not look for) is "read it".

#[cfg(all(feature = "index", unix))]
mod index;
mod needles;

#[cfg(all(feature = "index", unix))]
pub use index::{DirTree, Entry, Index, Limits, NeedleSet, Stamp, Stats, Tree};
pub use needles::Needles;

/// The deepest subtree the pass answers for whole, in levels of directories below it: a
/// search that counts its depth (GNU grep stops at 256) asks only where that limit
/// cannot be reached under the directory it skips.
pub const MAX_SUBTREE_HEIGHT: usize = 64;
