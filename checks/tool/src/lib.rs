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
//! GNU tools, and open them through [`Ctx::real`]. They read their options with the one
//! getopt_long-style parser, [`getopt`].

pub mod getopt;
mod vfs;

pub use vfs::{Ctx, DirEntry, Kind, Prefilter};

/// The streams of one program run.
pub struct Io<'a> {
    pub stdin: &'a [u8],
    pub stdout: &'a mut Vec<u8>,
    pub stderr: &'a mut Vec<u8>,
    /// How many bytes of stdout its reader needs ([`NO_LIMIT`]: all of them). Past this
    /// many, a program may stop appending output once what it kept is not blank and
    /// holds [`KEPT_LINES`] lines; its exit status and stderr stay as if it had printed
    /// everything. The shell sets it for output that goes straight to a verdict that
    /// reads only its start (`grep_match`, `grep_not_match`, exit-status rules): a grep
    /// printing tens of megabytes would otherwise spend its time, and the check's memory,
    /// on lines nobody reads.
    pub stdout_limit: usize,
    /// Set by a program that printed the lines of one file without naming it (`grep -n X
    /// a.txt`, `rg X a.txt`): that file's virtual path. Evidence then points at the file
    /// the lines came from, which the output alone does not say.
    pub unnamed_file: Option<String>,
}

/// [`Io::stdout_limit`] for a reader that needs all of stdout (a pipe, `$(...)`, a
/// count).
pub const NO_LIMIT: usize = usize::MAX;

/// Lines a program keeps before it may drop output past [`Io::stdout_limit`].
pub const KEPT_LINES: usize = 64;

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

/// fnmatch(3) without flags (what `find -name`/`-path` and grep's `--include`/`--exclude`
/// use), in a UTF-8 locale: `*` and `?` match any character (a UTF-8 sequence, else a
/// byte) including `/` and a leading dot, `[...]` sets with ranges, `!`/`^` negation and
/// `[:class:]`, backslash escapes.
pub fn fnmatch(pat: &[u8], s: &[u8]) -> bool {
    fnmatch_with(pat, s, false)
}

/// [`fnmatch`] with glibc's `FNM_CASEFOLD` (`find -iname`, `-ipath`, `-ilname`): letters
/// and ranges match in either case, while a `[:class:]` looks at the character as it is
/// (`[[:upper:]]` matches `R`, not `r`). Case is folded for ASCII letters.
pub fn fnmatch_casefold(pat: &[u8], s: &[u8]) -> bool {
    fnmatch_with(pat, s, true)
}

fn fnmatch_with(pat: &[u8], s: &[u8], fold: bool) -> bool {
    let f = |c: u8| if fold { c.to_ascii_lowercase() } else { c };
    let (mut p, mut i) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    loop {
        if p < pat.len() {
            match pat[p] {
                b'*' => {
                    while p < pat.len() && pat[p] == b'*' {
                        p += 1;
                    }
                    star = Some((p, i));
                    continue;
                }
                b'?' if i < s.len() => {
                    p += 1;
                    i += char_len(s, i);
                    continue;
                }
                b'[' if i < s.len() => {
                    if let Some((matched, next)) = match_bracket(pat, p, s[i], fold) {
                        if matched {
                            p = next;
                            i += 1;
                            continue;
                        }
                    } else if s[i] == b'[' {
                        p += 1;
                        i += 1;
                        continue;
                    }
                }
                b'\\' if p + 1 < pat.len() && i < s.len() && f(pat[p + 1]) == f(s[i]) => {
                    p += 2;
                    i += 1;
                    continue;
                }
                c if c != b'\\' && i < s.len() && f(c) == f(s[i]) && c != b'?' && c != b'[' => {
                    p += 1;
                    i += 1;
                    continue;
                }
                _ => {}
            }
        } else if i == s.len() {
            return true;
        }
        match star {
            Some((sp, si)) if si < s.len() => {
                let next = si + char_len(s, si);
                star = Some((sp, next));
                p = sp;
                i = next;
            }
            _ => return false,
        }
    }
}

/// The length of the character starting at `s[i]`: its UTF-8 sequence when it is a
/// whole and valid one, else 1 (a byte that is not text is a character of its own).
fn char_len(s: &[u8], i: usize) -> usize {
    let want = match s[i] {
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => return 1,
    };
    match s.get(i..i + want).map(std::str::from_utf8) {
        Some(Ok(_)) => want,
        _ => 1,
    }
}

/// Match byte `c` against the bracket expression at `pat[start]`. Returns whether it
/// matched and the index after the `]`, or None when the bracket is not closed. With
/// `fold`, members and ranges compare in lower case, classes the byte as it is.
fn match_bracket(pat: &[u8], start: usize, c: u8, fold: bool) -> Option<(bool, usize)> {
    let f = |c: u8| if fold { c.to_ascii_lowercase() } else { c };
    let mut k = start + 1;
    let negate = matches!(pat.get(k), Some(b'!' | b'^'));
    if negate {
        k += 1;
    }
    let mut matched = false;
    let mut first = true;
    loop {
        let &b = pat.get(k)?;
        if b == b']' && !first {
            return Some((matched != negate, k + 1));
        }
        first = false;
        if b == b'[' && pat.get(k + 1) == Some(&b':') {
            let rest = &pat[k + 2..];
            if let Some(end) = rest.windows(2).position(|w| w == b":]") {
                let name = String::from_utf8_lossy(&rest[..end]);
                let hit = match name.as_ref() {
                    "alpha" => c.is_ascii_alphabetic(),
                    "digit" => c.is_ascii_digit(),
                    "alnum" => c.is_ascii_alphanumeric(),
                    "upper" => c.is_ascii_uppercase(),
                    "lower" => c.is_ascii_lowercase(),
                    "space" => c.is_ascii_whitespace() || c == 0x0b,
                    "punct" => c.is_ascii_punctuation(),
                    "xdigit" => c.is_ascii_hexdigit(),
                    _ => false,
                };
                matched |= hit;
                k += 2 + end + 2;
                continue;
            }
        }
        let (lo, adv) = if b == b'\\' && k + 1 < pat.len() { (pat[k + 1], 2) } else { (b, 1) };
        k += adv;
        if pat.get(k) == Some(&b'-') && pat.get(k + 1).is_some_and(|n| *n != b']') {
            let (hi, adv2) = if pat[k + 1] == b'\\' && k + 2 < pat.len() { (pat[k + 2], 3) } else { (pat[k + 1], 2) };
            k += adv2;
            matched |= f(lo) <= f(c) && f(c) <= f(hi);
        } else {
            matched |= f(lo) == f(c);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{fnmatch, fnmatch_casefold};

    #[test]
    fn casefold_folds_letters_and_ranges_not_classes() {
        assert!(fnmatch_casefold(b"*.rs", b"lib.RS"));
        assert!(fnmatch_casefold(b"[a-c]*", b"ABC"));
        assert!(fnmatch_casefold(b"[A-C]*", b"abc"));
        assert!(fnmatch_casefold(b"*[[:upper:]]*", b"lib.RS"));
        assert!(!fnmatch_casefold(b"[[:lower:]]*", b"ABC"));
        assert!(!fnmatch_casefold(b"[!a]BC", b"ABC"));
        assert!(fnmatch_casefold(b"\\A*", b"abc"));
        assert!(!fnmatch(b"*.rs", b"lib.RS"));
    }

    #[test]
    fn wildcards_match_characters_not_bytes() {
        assert!(fnmatch(b"?abc?", "μabcμ".as_bytes()));
        assert!(!fnmatch(b"??", "μ".as_bytes()));
        assert!(fnmatch(b"*?", "μ".as_bytes()));
        assert!(fnmatch(b"*c?", "abcé".as_bytes()));
        assert!(fnmatch(b"?", b"\xff"), "a byte that is not text is one character");
        assert!(fnmatch(b"??", b"\xce\xff"), "an invalid sequence is bytes");
        assert!(fnmatch(b"*.rs", b"src/main.rs"));
    }
}
