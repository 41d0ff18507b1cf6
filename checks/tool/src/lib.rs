//! The interface between the command interpreter (`checks/shell`) and the programs it
//! runs (`checks/grep`, `checks/coreutils`): a program is a function over in-memory
//! streams, with a [`Ctx`] that maps the paths it is given into the root.
//!
//! A program gets its arguments (after the shell removed quotes), the [`Ctx`], and
//! [`Io`]: the whole stdin as bytes, and buffers for stdout and stderr. It returns its
//! exit status, with the real tool's meaning (grep: 0 selected lines, 1 none, 2 error),
//! and writes error messages to stderr in the real tool's words
//! (`grep: x: No such file or directory`).
//!
//! Programs never write to the filesystem: the sandbox would refuse, and a check has no
//! business changing the repository. They print paths as the user wrote them, like the
//! GNU tools, and open them through [`Ctx::real`].

mod vfs;

pub use vfs::Ctx;

/// The streams of one program run.
pub struct Io<'a> {
    pub stdin: &'a [u8],
    pub stdout: &'a mut Vec<u8>,
    pub stderr: &'a mut Vec<u8>,
}

/// A program: arguments (without the program name), context, streams → exit status.
pub type Program = fn(args: &[String], ctx: &Ctx, io: &mut Io) -> i32;

/// Exit status of a program that could not run because of bad usage or an I/O error,
/// for the tools that use 2 for that (grep, ls, ...). Others use 1.
pub const EXIT_TROUBLE: i32 = 2;

/// An `io::Error` in the words of the C library, as the GNU tools print it
/// (`No such file or directory`, without Rust's `(os error 2)`).
pub fn io_message(e: &std::io::Error) -> String {
    use std::io::ErrorKind;
    match e.kind() {
        ErrorKind::NotFound => "No such file or directory".into(),
        ErrorKind::PermissionDenied => "Permission denied".into(),
        ErrorKind::IsADirectory => "Is a directory".into(),
        ErrorKind::NotADirectory => "Not a directory".into(),
        _ => {
            let s = e.to_string();
            match s.find(" (os error") {
                Some(i) => s[..i].to_string(),
                None => s,
            }
        }
    }
}
