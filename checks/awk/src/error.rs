//! What stops an awk run, and the words and exit status each reason has.

/// Why a run stopped before its end.
#[derive(Debug, Clone, PartialEq)]
pub enum Error {
    /// The program does not parse (gawk: exit status 1).
    Syntax {
        line: usize,
        message: String,
    },
    /// A construct that would write or run a command: refused before anything runs.
    Refused(String),
    /// A runtime error (a file that cannot be read, a bad regex, a limit reached).
    Fatal(String),
    /// Not errors: `exit`, `next` and `nextfile` run inside a function, unwinding the
    /// calls to the rule that called it.
    Exit,
    Next,
    NextFile,
}

impl Error {
    /// The exit status the reference awk (gawk) gives this kind of error; refusals use
    /// the status of a usage error.
    pub fn status(&self) -> i32 {
        match self {
            Error::Syntax { .. } => 1,
            Error::Refused(_) | Error::Fatal(_) => 2,
            Error::Exit | Error::Next | Error::NextFile => 0,
        }
    }

    /// The line printed to stderr.
    pub fn message(&self) -> String {
        match self {
            Error::Syntax { line, message } => format!("awk: line {line}: syntax error: {message}\n"),
            Error::Refused(what) => {
                format!("awk: {what} is not supported in the reviewhost sandbox (read-only)\n")
            }
            Error::Fatal(message) => format!("awk: fatal: {message}\n"),
            Error::Exit | Error::Next | Error::NextFile => String::new(),
        }
    }
}

pub type Result<T> = std::result::Result<T, Error>;
