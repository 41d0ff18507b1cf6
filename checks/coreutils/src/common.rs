//! What the tools share: the GNU option rules (read by `reviewhost_tool::getopt`) with
//! GNU's error lines, reading an input file with the special-file guard, and the wording
//! of I/O errors.
//!
//! Left out: environment-driven behaviour (`POSIXLY_CORRECT` stopping option parsing at the
//! first operand), since the sandbox has no environment to speak of.

use std::path::Path;

use reviewhost_tool::getopt::{Item, Name, Parser, Spec};
use reviewhost_tool::{Ctx, Io};

/// Largest input a tool reads into memory. The sandbox caps memory anyway; this turns a
/// runaway read into a clean error instead of a trap.
pub(crate) const MAX_INPUT_BYTES: u64 = 256 * 1024 * 1024;

/// Parsed command line: options in order, and operands.
pub(crate) struct Parsed {
    pub opts: Vec<(char, Option<String>)>,
    pub operands: Vec<String>,
}

/// Parse `args` by `spec` (GNU rules, [`Spec::gnu`]). Long options are reported by
/// their letter: the specs give each one a short option or a private code
/// ([`Long::short`](reviewhost_tool::getopt::Long::short)). On error, returns the
/// message GNU prints (including the `Try ... --help` line).
pub(crate) fn parse_opts(tool: &str, args: &[String], spec: &Spec) -> Result<Parsed, String> {
    let mut parsed = Parsed { opts: Vec::new(), operands: Vec::new() };
    for item in Parser::new(spec, args) {
        let error =
            |message: &dyn std::fmt::Display| format!("{tool}: {message}\nTry '{tool} --help' for more information.\n");
        match item.map_err(|e| error(&e))? {
            Item::Opt(Name::Short(c), value) => parsed.opts.push((c, value)),
            Item::Opt(Name::Long(name), _) => return Err(error(&format!("option '--{name}' has no letter"))),
            Item::Operand(operand) => parsed.operands.push(operand),
        }
    }
    Ok(parsed)
}

pub(crate) use reviewhost_tool::io_message as io_msg;

/// Why a path that exists must not be opened: GNU's strerror-like wording for the special
/// file types, since opening a FIFO or a device would block or misbehave in the sandbox.
pub(crate) fn special_kind(meta: &std::fs::Metadata) -> Option<&'static str> {
    let ft = meta.file_type();
    if ft.is_file() || ft.is_dir() || ft.is_symlink() {
        return None;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_fifo() {
            return Some("Is a FIFO");
        }
        if ft.is_char_device() {
            return Some("Is a character device");
        }
        if ft.is_block_device() {
            return Some("Is a block device");
        }
        if ft.is_socket() {
            return Some("Is a socket");
        }
    }
    Some("Not a regular file")
}

/// Why reading `path` failed.
pub(crate) enum ReadError {
    /// The path is a directory (tools word this differently).
    IsDir,
    /// Any other reason, already worded.
    Other(String),
}

impl ReadError {
    pub(crate) fn msg(&self) -> String {
        match self {
            ReadError::IsDir => "Is a directory".into(),
            ReadError::Other(s) => s.clone(),
        }
    }
}

/// Read a regular file completely, refusing directories and special files before opening.
pub(crate) fn read_path(real: &Path) -> Result<Vec<u8>, ReadError> {
    let meta = std::fs::metadata(real).map_err(|e| ReadError::Other(io_msg(&e)))?;
    if meta.is_dir() {
        return Err(ReadError::IsDir);
    }
    if let Some(kind) = special_kind(&meta) {
        return Err(ReadError::Other(kind.into()));
    }
    if meta.len() > MAX_INPUT_BYTES {
        return Err(ReadError::Other("File too large".into()));
    }
    std::fs::read(real).map_err(|e| ReadError::Other(io_msg(&e)))
}

/// Read the operand `name`: `-` is stdin, `/dev/null` nothing, anything else a file
/// through `ctx`.
pub(crate) fn read_operand(name: &str, ctx: &Ctx, io: &Io) -> Result<Vec<u8>, ReadError> {
    match name {
        "-" => Ok(io.stdin.to_vec()),
        _ if ctx.is_null_device(name) => Ok(Vec::new()),
        _ => read_path(&ctx.real(name)),
    }
}

/// Split into lines on `\n`, each without its terminator; a final unterminated line counts.
pub(crate) fn split_lines(data: &[u8], delim: u8) -> Vec<&[u8]> {
    if data.is_empty() {
        return Vec::new();
    }
    let body = data.strip_suffix(&[delim]).unwrap_or(data);
    body.split(|&b| b == delim).collect()
}

/// Write a usage error and return `status`.
pub(crate) fn usage(io: &mut Io, msg: &str, status: i32) -> i32 {
    io.stderr.extend_from_slice(msg.as_bytes());
    status
}

/// Write `tool: msg` plus the `Try --help` line, the GNU form of a bad-argument error.
pub(crate) fn usage_try(io: &mut Io, tool: &str, msg: &str, status: i32) -> i32 {
    let text = format!("{tool}: {msg}\nTry '{tool} --help' for more information.\n");
    usage(io, &text, status)
}

/// Write `tool: msg\n` to stderr.
pub(crate) fn err(io: &mut Io, tool: &str, msg: &str) {
    io.stderr.extend_from_slice(format!("{tool}: {msg}\n").as_bytes());
}

/// A blank as `sort -b` and `uniq -f` skip them: space, tab, newline.
pub(crate) fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t' || b == b'\n'
}
