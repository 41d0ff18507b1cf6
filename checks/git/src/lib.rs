//! `git`'s read-only subcommands over the root's `.git`, for the shell interpreter in
//! `checks/shell`.

use reviewhost_tool::{Ctx, EXIT_TROUBLE, Io, Program};

/// `git`: `args` excludes the program name.
pub fn git(_args: &[String], _ctx: &Ctx, io: &mut Io) -> i32 {
    io.stderr.extend_from_slice(b"git: not available in the sandbox\n");
    EXIT_TROUBLE
}

/// The program for a command name, if this crate provides it.
pub fn lookup(name: &str) -> Option<Program> {
    match name {
        "git" => Some(git),
        _ => None,
    }
}
