//! `awk` in its read-only uses, for the shell interpreter in `checks/shell`.

use reviewhost_tool::{Ctx, EXIT_TROUBLE, Io, Program};

/// `awk`: `args` excludes the program name.
pub fn awk(_args: &[String], _ctx: &Ctx, io: &mut Io) -> i32 {
    io.stderr.extend_from_slice(b"awk: not available in the sandbox\n");
    EXIT_TROUBLE
}

/// The program for a command name, if this crate provides it.
pub fn lookup(name: &str) -> Option<Program> {
    match name {
        "awk" => Some(awk),
        _ => None,
    }
}
