//! `grep` (GNU grep 3.8 compatible, also as `egrep`/`fgrep`) and `rg` (ripgrep
//! compatible) as pure functions over the sandbox's [`Ctx`] and in-memory streams, for
//! the shell interpreter in `checks/shell`.
//!
//! They read files through [`Ctx::real`] and never write any. What is deliberately not
//! reproduced is listed in the module docs of [`grep`](mod@grep) and [`rg`](mod@rg).

pub mod grep;
pub mod rg;
pub mod search;
pub mod translate;
mod walk;

use reviewhost_prefilter::Needles;
use reviewhost_tool::{Ctx, Io, Program};

/// A search a command line makes, as the run's first pass needs it
/// ([`reviewhost_prefilter`]): the literals each of its matches contains one of, and
/// the paths it reads, as written (relative to the current directory).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Search {
    pub needles: Needles,
    pub scopes: Vec<String>,
}

/// The search `name args` makes, when it is a grep or rg with needles.
pub fn search_plan(name: &str, args: &[String]) -> Option<Search> {
    match name {
        "grep" => grep::plan(args, grep::PatternSyntax::Basic),
        "egrep" => grep::plan(args, grep::PatternSyntax::Extended),
        "fgrep" => grep::plan(args, grep::PatternSyntax::Fixed),
        "rg" => rg::plan(args),
        _ => None,
    }
}

/// GNU `grep`: `args` excludes the program name.
pub fn grep(args: &[String], ctx: &Ctx, io: &mut Io) -> i32 {
    grep::run(args, ctx, io, grep::PatternSyntax::Basic)
}

/// `egrep`, which is `grep -E`.
pub fn egrep(args: &[String], ctx: &Ctx, io: &mut Io) -> i32 {
    grep::run(args, ctx, io, grep::PatternSyntax::Extended)
}

/// `fgrep`, which is `grep -F`.
pub fn fgrep(args: &[String], ctx: &Ctx, io: &mut Io) -> i32 {
    grep::run(args, ctx, io, grep::PatternSyntax::Fixed)
}

/// ripgrep's `rg`.
pub fn rg(args: &[String], ctx: &Ctx, io: &mut Io) -> i32 {
    rg::run(args, ctx, io)
}

/// The program for a command name, if this crate provides it.
pub fn lookup(name: &str) -> Option<Program> {
    match name {
        "grep" => Some(grep),
        "egrep" => Some(egrep),
        "fgrep" => Some(fgrep),
        "rg" => Some(rg),
        _ => None,
    }
}
