//! `sed` as GNU sed 4.9 runs it with `LC_ALL=C.UTF-8`, on stdin and the files named.
//!
//! Implemented: the whole script language except what runs or writes: `{ } ! : b t T =
//! a i c d D F g G h H l n N p P q Q r R s x y z #` and `v`, `a`/`i`/`c` in the one-line
//! GNU form and the classic backslash-newline form (text may continue in the next `-e`);
//! the `s` flags `g`, `N`, `p`, `i`/`I`, `m`/`M` and their combinations; `w`, `W` and the
//! `w` flag of `s` to `/dev/stdout` and `/dev/stderr`; addresses `N`, `$`, `/re/`,
//! `\cREc`, the `I` and `M` modifiers, `first~step`, `addr,+N`, `addr,~N`, `0,/re/`, `!`;
//! the empty regex as the last one used; GNU's escapes (`\t`, `\n`, `\dNNN`, `\oNNN`,
//! `\xHH`, `\cX`, ...); `&`, `\1`…`\9` and `\L \U \l \u \E` in replacements; a last line
//! without its newline printed without one; options `-n`, `-e`, `-f`, `-E`/`-r`, `-s`,
//! `-z`, `-l N`, `-u` and `-b` (no-ops), `--posix` (GNU's extensions off), `--sandbox`,
//! `--help`, `--version`. Exit statuses: 0, 1 for a bad script or usage, 2 when an input
//! file could not be read, 4 for an I/O error, or the status given to `q`/`Q`.
//!
//! Refused, by name: `-i` (in-place editing), and `w`/`W`/`s///w` to a file (with
//! `--posix`, to `/dev/stdout` too, which GNU then opens as a file), since the sandbox is
//! read-only; the `e` command and the `e` flag of `s` (they run a shell); `--debug`;
//! back-references inside a pattern (`\(a\)\1`), which the `regex` crate lacks; a script
//! that jumps back a million times without reading a line (`:a;b a`, which GNU runs until
//! a pipe closes).

mod address;
mod arguments;
mod exec;
mod pattern;
mod script;
mod text;

use reviewhost_tool::getopt::{HasArg, Long, Spec};
use reviewhost_tool::{Ctx, Io};

use crate::common::{ReadError, parse_opts, read_path, usage};
use exec::{Machine, Options};
use pattern::Flags;
use script::{Compiler, Origin};

/// GNU's `--help`, also printed (to stderr) when there is no script.
const USAGE: &str = r#"Usage: sed [OPTION]... {script-only-if-no-other-script} [input-file]...

  -n, --quiet, --silent
                 suppress automatic printing of pattern space
      --debug
                 annotate program execution
  -e script, --expression=script
                 add the script to the commands to be executed
  -f script-file, --file=script-file
                 add the contents of script-file to the commands to be executed
  --follow-symlinks
                 follow symlinks when processing in place
  -i[SUFFIX], --in-place[=SUFFIX]
                 edit files in place (makes backup if SUFFIX supplied)
  -l N, --line-length=N
                 specify the desired line-wrap length for the `l' command
  --posix
                 disable all GNU extensions.
  -E, -r, --regexp-extended
                 use extended regular expressions in the script
                 (for portability use POSIX -E).
  -s, --separate
                 consider files as separate rather than as a single,
                 continuous long stream.
      --sandbox
                 operate in sandbox mode (disable e/r/w commands).
  -u, --unbuffered
                 load minimal amounts of data from the input files and flush
                 the output buffers more often
  -z, --null-data
                 separate lines by NUL characters
      --help     display this help and exit
      --version  output version information and exit

If no -e, --expression, -f, or --file option is given, then the first
non-option argument is taken as the sed script to interpret.  All
remaining arguments are names of input files; if no input files are
specified, then the standard input is read.

GNU sed home page: <https://www.gnu.org/software/sed/>.
General help using GNU software: <https://www.gnu.org/gethelp/>.
E-mail bug reports to: <bug-sed@gnu.org>.
"#;

/// GNU's `--version`, as the Debian build prints it.
const VERSION: &str = r#"sed (GNU sed) 4.9
Packaged by Debian
Copyright (C) 2022 Free Software Foundation, Inc.
License GPLv3+: GNU GPL version 3 or later <https://gnu.org/licenses/gpl.html>.
This is free software: you are free to change and redistribute it.
There is NO WARRANTY, to the extent permitted by law.

Written by Jay Fenlason, Tom Lord, Ken Pizzini,
Paolo Bonzini, Jim Meyering, and Assaf Gordon.

This sed program was built with SELinux support.
SELinux is disabled on this system.

GNU sed home page: <https://www.gnu.org/software/sed/>.
General help using GNU software: <https://www.gnu.org/gethelp/>.
E-mail bug reports to: <bug-sed@gnu.org>.
"#;

/// One piece of the script, as given.
enum Piece {
    Expr(String),
    File(String),
}

/// `sed [OPTION]... {SCRIPT | -e SCRIPT... | -f FILE...} [FILE]...`.
pub fn sed(args: &[String], ctx: &Ctx, io: &mut Io) -> i32 {
    const SPEC: Spec = Spec::gnu(
        "nrEe:f:szul:b",
        &[
            Long::short("quiet", 'n', HasArg::No),
            Long::short("silent", 'n', HasArg::No),
            Long::short("regexp-extended", 'E', HasArg::No),
            Long::short("expression", 'e', HasArg::Required),
            Long::short("file", 'f', HasArg::Required),
            Long::short("separate", 's', HasArg::No),
            Long::short("null-data", 'z', HasArg::No),
            Long::short("zero-terminated", 'z', HasArg::No),
            Long::short("unbuffered", 'u', HasArg::No),
            Long::short("line-length", 'l', HasArg::Required),
            Long::short("binary", 'b', HasArg::No),
            Long::short("posix", 'P', HasArg::No),
            Long::short("follow-symlinks", 'F', HasArg::No),
            Long::short("debug", 'D', HasArg::No),
            Long::short("sandbox", 'X', HasArg::No),
            Long::short("in-place", 'i', HasArg::Optional),
            Long::short("help", 'H', HasArg::No),
            Long::short("version", 'V', HasArg::No),
        ],
    );
    if in_place(args) {
        crate::common::err(io, "sed", "-i (in-place editing) is refused: the sandbox is read-only");
        return 1;
    }
    let p = match parse_opts("sed", args, &SPEC) {
        Ok(p) => p,
        Err(m) => return usage(io, &m, 1),
    };
    let mut flags = Flags::default();
    let (mut quiet, mut separate, mut line_wrap, mut sandbox) = (false, false, 70usize, false);
    let mut pieces = Vec::new();
    for (c, value) in p.opts {
        match c {
            'n' => quiet = true,
            'r' | 'E' => flags.extended = true,
            'e' => pieces.extend(value.map(Piece::Expr)),
            'f' => pieces.extend(value.map(Piece::File)),
            's' => separate = true,
            'z' => flags.null_data = true,
            'P' => flags.posix = true,
            'X' => sandbox = true,
            // GNU reads the length with atoi: leading digits, anything else is 0.
            'l' => {
                let text = value.unwrap_or_default();
                let digits: String = text.trim_start().chars().take_while(char::is_ascii_digit).collect();
                line_wrap = digits.parse().unwrap_or(if digits.is_empty() { 0 } else { usize::MAX });
            }
            'D' => {
                crate::common::err(io, "sed", "--debug is not supported in the sandbox");
                return 1;
            }
            'i' => {
                crate::common::err(io, "sed", "-i (in-place editing) is refused: the sandbox is read-only");
                return 1;
            }
            'H' => {
                io.stdout.extend_from_slice(USAGE.as_bytes());
                return 0;
            }
            'V' => {
                io.stdout.extend_from_slice(VERSION.as_bytes());
                return 0;
            }
            _ => {}
        }
    }
    let mut operands = p.operands.into_iter();
    if pieces.is_empty() {
        match operands.next() {
            Some(script) => pieces.push(Piece::Expr(script)),
            None => return usage(io, USAGE, 1),
        }
    }
    let mut compiler = Compiler::new(flags);
    compiler.sandbox = sandbox;
    let (mut expressions, mut stdin_read) = (0, false);
    for piece in pieces {
        let (text, origin) = match piece {
            Piece::Expr(text) => {
                expressions += 1;
                (text.into_bytes(), Origin::Expr(expressions))
            }
            Piece::File(name) => {
                stdin_read |= name == "-";
                let read = if name == "-" { Ok(io.stdin.to_vec()) } else { read_path(&ctx.real(&name)) };
                match read {
                    Ok(text) => (text, Origin::File(name)),
                    Err(e) => {
                        let reason = match e {
                            ReadError::IsDir => "Is a directory".to_string(),
                            ReadError::Other(m) => m,
                        };
                        crate::common::err(io, "sed", &format!("couldn't open file {name}: {reason}"));
                        return 4;
                    }
                }
            }
        };
        if let Err(e) = compiler.compile(&text, origin) {
            crate::common::err(io, "sed", &e.message);
            return e.status;
        }
    }
    if let Err(e) = compiler.finish() {
        crate::common::err(io, "sed", &e.message);
        return e.status;
    }
    let files: Vec<String> = operands.collect();
    let files = if files.is_empty() { vec!["-".to_string()] } else { files };
    let opts = Options {
        quiet: quiet || compiler.quiet,
        separate,
        delimiter: if flags.null_data { 0 } else { b'\n' },
        line_wrap,
        posix: flags.posix,
        stdin_read,
    };
    let mut machine = Machine::new(std::mem::take(&mut compiler.cmds), opts, files, ctx, io);
    match machine.run() {
        Ok(status) => status,
        Err(exec::Fatal(message, status)) => {
            drop(machine);
            crate::common::err(io, "sed", &message);
            status
        }
    }
}

/// Whether the command line asks for in-place editing (`-i`, `-i.bak`, `-ni`,
/// `--in-place`), found before parsing so that `-i.bak` is refused rather than
/// misread as options.
fn in_place(args: &[String]) -> bool {
    let mut skip = false;
    for arg in args {
        if skip {
            skip = false;
            continue;
        }
        if arg == "--" {
            return false;
        }
        if let Some(long) = arg.strip_prefix("--") {
            let name = long.split('=').next().unwrap_or("");
            if name.len() >= 3 && "in-place".starts_with(name) {
                return true;
            }
            if ["expression", "file", "line-length"].contains(&name) && !long.contains('=') {
                skip = true;
            }
            continue;
        }
        if let Some(cluster) = arg.strip_prefix('-') {
            for (k, c) in cluster.char_indices() {
                match c {
                    'i' => return true,
                    'e' | 'f' | 'l' => {
                        skip = k + 1 == cluster.len();
                        break;
                    }
                    _ => {}
                }
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use reviewhost_tool::NO_LIMIT;

    fn sed_on(args: &[&str], stdin: &str) -> (String, String, i32) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("f.md"), "a\n## One\nb foo foo\n## Two\nc\n").unwrap();
        let (mut out, mut errs) = (Vec::new(), Vec::new());
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        let mut io = Io {
            stdin: stdin.as_bytes(),
            stdout: &mut out,
            stderr: &mut errs,
            stdout_limit: NO_LIMIT,
            unnamed_file: None,
        };
        let status = sed(&args, &Ctx::new(dir.path()), &mut io);
        (String::from_utf8(out).unwrap(), String::from_utf8(errs).unwrap(), status)
    }

    #[test]
    fn runs_gnu_scripts() {
        assert_eq!(sed_on(&["-n", "/One/,/Two/p", "f.md"], "").0, "## One\nb foo foo\n## Two\n");
        assert_eq!(sed_on(&["s/$/x/"], "a\nb").0, "ax\nbx");
        assert_eq!(sed_on(&["$!N;s/\\n/-/"], "a\nb\nc\n").0, "a-b\nc\n");
        assert_eq!(sed_on(&["-E", "s/(\\w+)/\\u\\1/g"], "hello world\n").0, "Hello World\n");
        assert_eq!(sed_on(&["1i\\\nfirst", "f.md"], "").0.lines().next(), Some("first"));
        assert_eq!(sed_on(&["-n", "l 5"], "abcdefgh\n").0, "abcd\\\nefgh$\n");
        assert_eq!(sed_on(&["y/ab/ba/"], "abc\n").0, "bac\n");
        assert_eq!(sed_on(&["2q5"], "a\nb\nc\n"), ("a\nb\n".into(), String::new(), 5));
    }

    #[test]
    fn refuses_what_writes_or_runs_by_name() {
        for args in
            [&["-i", "s/a/b/", "f.md"][..], &["-i.bak", "p", "f.md"], &["w out.txt", "f.md"], &["s/a/b/w x", "f.md"]]
        {
            let (_, errs, status) = sed_on(args, "");
            assert_ne!(status, 0);
            assert!(errs.contains("read-only"), "{errs}");
        }
        let (_, errs, _) = sed_on(&["e date", "f.md"], "");
        assert!(errs.contains("not supported"), "{errs}");
        let (out, errs, status) = sed_on(&[":a;=;ba"], "x\n");
        assert!(out.starts_with("1\n1\n") && errs.contains("is refused") && status == 4, "{errs}");
        let (_, errs, status) = sed_on(&["-n", "p", "missing"], "");
        assert_eq!((errs.as_str(), status), ("sed: can't read missing: No such file or directory\n", 2));
        let (_, errs, status) = sed_on(&["k"], "");
        assert_eq!((errs.as_str(), status), ("sed: -e expression #1, char 1: unknown command: `k'\n", 1));
    }
}
