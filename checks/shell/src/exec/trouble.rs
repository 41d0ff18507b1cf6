//! [`Trouble`]: what went wrong in a run beyond a non-zero status, and the one rule that
//! tells a refusal from a failure ([`failure`]).

/// Something that went wrong while running the command, beyond a non-zero status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Trouble {
    /// The program does not exist in the sandbox.
    Unavailable(String),
    /// The program reported an error (not merely "no match").
    Failed { program: String, status: i32, message: String },
    /// A write, a redirection from a file that cannot be read, a construct refused at run
    /// time (an unsupported command in `bash -c`, arrays), or a limit that stopped the
    /// script.
    Refused(String),
}

/// What a sandboxed program's (or builtin's) error means: a refusal when the sandbox
/// lacks what the script asked for (an option, subcommand or construct a tool says "is
/// not supported", a write a tool "refused" because the sandbox is read-only), whatever
/// the script does next; else a failure, with its first line. The one place this is
/// decided.
pub(super) fn failure(program: &str, status: i32, stderr: &str) -> Trouble {
    let refusal = |line: &&str| {
        line.contains("not supported") || line.contains("is refused") || line.contains("sandbox is read-only")
    };
    match stderr.lines().find(refusal) {
        Some(line) => Trouble::Refused(line.to_string()),
        None => {
            let message = stderr.lines().next().unwrap_or("").to_string();
            Trouble::Failed { program: program.to_string(), status, message }
        }
    }
}

impl std::fmt::Display for Trouble {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Trouble::Unavailable(p) => write!(f, "program '{p}' is not available in the reviewhost sandbox"),
            Trouble::Failed { program, status, message } if message.is_empty() => {
                write!(f, "'{program}' failed with status {status}")
            }
            Trouble::Failed { program, status, message } => {
                write!(f, "'{program}' failed with status {status}: {message}")
            }
            Trouble::Refused(m) => f.write_str(m),
        }
    }
}
