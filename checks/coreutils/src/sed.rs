//! `sed` in its read-only uses, as GNU sed 4.9 does them: printing lines by number or
//! pattern (`sed -n '45,55p'`, `sed -n '/^## /p'`), deleting lines, substituting to
//! stdout (`sed 's/foo/bar/g'`), `q`, `=`, with `-n`, `-e`, `-E`/`-r`, `-f`.
//!
//! What would write (`-i`, the `w` command and flag) is refused: the sandbox is
//! read-only. Commands outside this subset (`y`, `a`/`i`/`c`, `{…}` blocks, hold space,
//! branches, `N`/`D`/`P`) are an error naming the command (exit 1), never a misreading.
//! Regular expressions are GNU's BRE/ERE, translated as grep's are.

use regex::bytes::{Captures, Regex};
use reviewhost_grep::translate::{Syntax, translate_capturing};
use reviewhost_tool::getopt::{HasArg, Long, Spec};
use reviewhost_tool::{Ctx, Io};

use crate::common::{ReadError, err, parse_opts, read_operand, usage};

/// Where a command applies.
#[derive(Debug)]
enum Address {
    Line(u64),
    Last,
    Pattern(Regex),
}

#[derive(Debug)]
enum Action {
    Print,
    Delete,
    LineNumber,
    Quit { print: bool, status: i32 },
    Substitute { regex: Regex, replacement: Vec<u8>, global: bool, nth: usize, print: bool },
}

#[derive(Debug)]
struct Command {
    from: Option<Address>,
    to: Option<Address>,
    negated: bool,
    action: Action,
    /// For a range: whether it is open (its start matched and its end has not).
    active: bool,
}

/// `sed [-n] [-E] [-e SCRIPT]... [-f FILE] [SCRIPT] [FILE...]`.
pub fn sed(args: &[String], ctx: &Ctx, io: &mut Io) -> i32 {
    const SPEC: Spec = Spec::gnu(
        "nrEe:f:is",
        &[
            Long::short("quiet", 'n', HasArg::No),
            Long::short("silent", 'n', HasArg::No),
            Long::short("regexp-extended", 'E', HasArg::No),
            Long::short("expression", 'e', HasArg::Required),
            Long::short("file", 'f', HasArg::Required),
            Long::short("in-place", 'i', HasArg::Optional),
            Long::short("separate", 's', HasArg::No),
        ],
    );
    let p = match parse_opts("sed", args, &SPEC) {
        Ok(p) => p,
        Err(m) => return usage(io, &m, 1),
    };
    let (mut quiet, mut syntax, mut scripts) = (false, Syntax::Basic, Vec::new());
    for (c, value) in p.opts {
        match c {
            'n' => quiet = true,
            'r' | 'E' => syntax = Syntax::Extended,
            'e' => scripts.extend(value),
            'f' => match value.map(|f| read_operand(&f, ctx, io)) {
                Some(Ok(text)) => scripts.push(String::from_utf8_lossy(&text).into_owned()),
                Some(Err(e)) => {
                    err(io, "sed", &format!("couldn't open file: {}", reason(&e)));
                    return 1;
                }
                None => {}
            },
            'i' => {
                err(io, "sed", "-i (in-place editing) is refused: the reviewhost sandbox is read-only");
                return 1;
            }
            _ => {}
        }
    }
    let mut operands = p.operands.into_iter();
    if scripts.is_empty() {
        match operands.next() {
            Some(script) => scripts.push(script),
            None => return usage(io, "Usage: sed [OPTION]... {script-only-if-no-other-script} [input-file]...\n", 1),
        }
    }
    let mut commands = match parse_script(&scripts.join("\n"), syntax) {
        Ok(commands) => commands,
        Err(message) => {
            err(io, "sed", &format!("-e expression #1: {message}"));
            return 1;
        }
    };
    let files: Vec<String> = operands.collect();
    let files = if files.is_empty() { vec!["-".to_string()] } else { files };
    let mut input = Vec::new();
    let mut status = 0;
    for file in &files {
        match read_operand(file, ctx, io) {
            Ok(data) => input.extend_from_slice(&data),
            Err(e) => {
                err(io, "sed", &format!("can't read {file}: {}", reason(&e)));
                status = 2;
            }
        }
    }
    let lines = crate::common::split_lines(&input, b'\n');
    let last = lines.len() as u64;
    for (index, line) in lines.iter().enumerate() {
        let number = index as u64 + 1;
        let mut space = line.to_vec();
        let mut deleted = false;
        for command in &mut commands {
            if !applies(command, number, last, &space) {
                continue;
            }
            match &command.action {
                Action::Print => print(io, &space),
                Action::Delete => {
                    deleted = true;
                    break;
                }
                Action::LineNumber => io.stdout.extend_from_slice(format!("{number}\n").as_bytes()),
                Action::Quit { print: autoprint, status } => {
                    if *autoprint && !quiet {
                        print(io, &space);
                    }
                    return *status;
                }
                Action::Substitute { regex, replacement, global, nth, print: print_flag } => {
                    if let Some(changed) = substitute(regex, replacement, *global, *nth, &space) {
                        space = changed;
                        if *print_flag {
                            print(io, &space);
                        }
                    }
                }
            }
        }
        if !deleted && !quiet {
            print(io, &space);
        }
    }
    status
}

fn print(io: &mut Io, line: &[u8]) {
    io.stdout.extend_from_slice(line);
    io.stdout.push(b'\n');
}

/// Whether `command` applies to line `number` (updating its range state).
fn applies(command: &mut Command, number: u64, last: u64, line: &[u8]) -> bool {
    let matches = |address: &Address| match address {
        Address::Line(n) => *n == number,
        Address::Last => number == last,
        Address::Pattern(regex) => regex.is_match(line),
    };
    let hit = match (&command.from, &command.to) {
        (None, _) => true,
        (Some(from), None) => matches(from),
        (Some(from), Some(to)) => {
            if command.active {
                let closes = match to {
                    Address::Line(n) => number >= *n,
                    other => matches(other),
                };
                command.active = !closes;
                true
            } else if matches(from) {
                // A numbered end at or before the start closes the range at once.
                command.active = match to {
                    Address::Line(n) => *n > number,
                    Address::Last => number != last,
                    Address::Pattern(_) => true,
                };
                true
            } else {
                false
            }
        }
    };
    hit != command.negated
}

/// `line` with the `nth` (or, `global`, every from the `nth`) match of `regex` replaced.
fn substitute(regex: &Regex, replacement: &[u8], global: bool, nth: usize, line: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let mut last_end = 0;
    let mut replaced = false;
    for (index, captures) in regex.captures_iter(line).enumerate() {
        if index + 1 < nth {
            continue;
        }
        let whole = captures.get(0).expect("group 0");
        out.extend_from_slice(&line[last_end..whole.start()]);
        expand(replacement, &captures, &mut out);
        last_end = whole.end();
        replaced = true;
        if !global {
            break;
        }
    }
    replaced.then(|| {
        out.extend_from_slice(&line[last_end..]);
        out
    })
}

/// The replacement with `&` and `\1`…`\9` filled in, `\n` a newline, `\X` a literal X.
fn expand(replacement: &[u8], captures: &Captures, out: &mut Vec<u8>) {
    let mut bytes = replacement.iter();
    while let Some(&b) = bytes.next() {
        match b {
            b'&' => out.extend_from_slice(captures.get(0).map_or(&[][..], |m| m.as_bytes())),
            b'\\' => match bytes.next() {
                Some(&d @ b'0'..=b'9') => {
                    out.extend_from_slice(captures.get(usize::from(d - b'0')).map_or(&[][..], |m| m.as_bytes()))
                }
                Some(b'n') => out.push(b'\n'),
                Some(b't') => out.push(b'\t'),
                Some(&other) => out.push(other),
                None => out.push(b'\\'),
            },
            other => out.push(other),
        }
    }
}

/// Parses a script into commands, or GNU-like reasons for what it refuses.
fn parse_script(script: &str, syntax: Syntax) -> Result<Vec<Command>, String> {
    let mut commands = Vec::new();
    let chars: Vec<char> = script.chars().collect();
    let mut pos = 0;
    loop {
        while pos < chars.len() && (chars[pos].is_whitespace() || chars[pos] == ';') {
            pos += 1;
        }
        if pos >= chars.len() {
            return Ok(commands);
        }
        let from = address(&chars, &mut pos, syntax)?;
        let mut to = None;
        if from.is_some() && chars.get(pos) == Some(&',') {
            pos += 1;
            to = Some(address(&chars, &mut pos, syntax)?.ok_or("unexpected `,'")?);
        }
        while chars.get(pos).is_some_and(|c| *c == ' ') {
            pos += 1;
        }
        let negated = chars.get(pos) == Some(&'!');
        if negated {
            pos += 1;
        }
        let command = *chars.get(pos).ok_or("missing command")?;
        pos += 1;
        let action = match command {
            'p' => Action::Print,
            'd' => Action::Delete,
            '=' => Action::LineNumber,
            'q' | 'Q' => {
                let digits: String =
                    chars[pos..].iter().skip_while(|c| **c == ' ').take_while(|c| c.is_ascii_digit()).collect();
                pos += chars[pos..].iter().take_while(|c| **c == ' ').count() + digits.len();
                Action::Quit { print: command == 'q', status: digits.parse().unwrap_or(0) }
            }
            's' => {
                let delimiter = *chars.get(pos).ok_or("unterminated `s' command")?;
                pos += 1;
                let pattern = delimited(&chars, &mut pos, delimiter).ok_or("unterminated `s' command")?;
                let replacement = delimited(&chars, &mut pos, delimiter).ok_or("unterminated `s' command")?;
                let (mut global, mut nth, mut print, mut insensitive) = (false, 1, false, false);
                while let Some(&flag) = chars.get(pos) {
                    match flag {
                        'g' => global = true,
                        'p' => print = true,
                        'i' | 'I' => insensitive = true,
                        '0'..='9' => nth = flag.to_digit(10).unwrap_or(1) as usize,
                        'w' | 'e' | 'm' | 'M' => {
                            return Err(format!("the `{flag}' flag of `s' is not supported in the reviewhost sandbox"));
                        }
                        _ => break,
                    }
                    pos += 1;
                }
                Action::Substitute {
                    regex: compile(&pattern, syntax, insensitive)?,
                    replacement: replacement.into_bytes(),
                    global,
                    nth,
                    print,
                }
            }
            'w' | 'W' => {
                return Err(format!("`{command}' writes a file: refused, the reviewhost sandbox is read-only"));
            }
            other => {
                return Err(format!(
                    "the `{other}' command is not supported in the reviewhost sandbox (supported: p, d, s, q, Q, =)"
                ));
            }
        };
        commands.push(Command { from, to, negated, action, active: false });
        while chars.get(pos).is_some_and(|c| *c == ' ' || *c == '\t') {
            pos += 1;
        }
        match chars.get(pos) {
            None | Some(';') | Some('\n') => {}
            Some('}') => return Err("unexpected `}'".into()),
            Some(c) => return Err(format!("extra characters after command ({c})")),
        }
    }
}

fn address(chars: &[char], pos: &mut usize, syntax: Syntax) -> Result<Option<Address>, String> {
    match chars.get(*pos) {
        Some(c) if c.is_ascii_digit() => {
            let digits: String = chars[*pos..].iter().take_while(|c| c.is_ascii_digit()).collect();
            *pos += digits.len();
            if chars.get(*pos) == Some(&'~') {
                return Err("`first~step' addresses are not supported in the reviewhost sandbox".into());
            }
            Ok(Some(Address::Line(digits.parse().map_err(|_| "invalid line number")?)))
        }
        Some('$') => {
            *pos += 1;
            Ok(Some(Address::Last))
        }
        Some('/') => {
            *pos += 1;
            let pattern = delimited(chars, pos, '/').ok_or("unterminated address regex")?;
            let insensitive = chars.get(*pos) == Some(&'I');
            if insensitive {
                *pos += 1;
            }
            Ok(Some(Address::Pattern(compile(&pattern, syntax, insensitive)?)))
        }
        _ => Ok(None),
    }
}

/// The text up to the next unescaped `delimiter` (an escaped delimiter loses its
/// backslash), leaving `pos` after it.
fn delimited(chars: &[char], pos: &mut usize, delimiter: char) -> Option<String> {
    let mut out = String::new();
    while let Some(&c) = chars.get(*pos) {
        *pos += 1;
        if c == delimiter {
            return Some(out);
        }
        if c == '\\'
            && let Some(&next) = chars.get(*pos)
        {
            *pos += 1;
            if next == delimiter {
                out.push(next);
            } else if next == 'n' {
                out.push('\n');
            } else {
                out.push('\\');
                out.push(next);
            }
            continue;
        }
        out.push(c);
    }
    None
}

fn compile(pattern: &str, syntax: Syntax, insensitive: bool) -> Result<Regex, String> {
    if pattern.is_empty() {
        return Err("an empty regular expression (the last one used) is not supported in the reviewhost sandbox".into());
    }
    let translated = translate_capturing(pattern, syntax).map_err(|e| e.0)?;
    let regex = if insensitive { format!("(?i){}", translated.regex) } else { translated.regex };
    Regex::new(&regex).map_err(|e| e.to_string())
}

/// Why a file could not be read, in sed's words.
fn reason(e: &ReadError) -> String {
    match e {
        ReadError::IsDir => "read error: Is a directory".into(),
        ReadError::Other(message) => message.clone(),
    }
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

    fn out(args: &[&str]) -> String {
        let (out, errs, status) = sed_on(args, "");
        assert_eq!((errs.as_str(), status), ("", 0), "{args:?}");
        out
    }

    #[test]
    fn prints_deletes_and_substitutes_as_gnu_sed() {
        assert_eq!(out(&["-n", "2,3p", "f.md"]), "## One\nb foo foo\n");
        assert_eq!(out(&["-n", "/^## /p", "f.md"]), "## One\n## Two\n");
        assert_eq!(out(&["-n", "/One/,/Two/p", "f.md"]), "## One\nb foo foo\n## Two\n");
        assert_eq!(out(&["-n", "$p", "f.md"]), "c\n");
        assert_eq!(out(&["/^## /d", "f.md"]), "a\nb foo foo\nc\n");
        assert_eq!(out(&["s/foo/bar/", "f.md"]), "a\n## One\nb bar foo\n## Two\nc\n");
        assert_eq!(out(&["-n", "s/foo/[&]/gp", "f.md"]), "b [foo] [foo]\n");
        assert_eq!(out(&["-E", "-n", "s/(b) (foo)/\\2 \\1/p", "f.md"]), "foo b foo\n");
        assert_eq!(out(&["-n", "s/\\(b\\) foo/\\1/p", "f.md"]), "b foo\n");
        assert_eq!(out(&["s/foo/X/2", "f.md"]).lines().nth(2), Some("b foo X"));
        assert_eq!(out(&["2q", "f.md"]), "a\n## One\n");
        assert_eq!(out(&["-n", "/Two/=", "f.md"]), "4\n");
        assert_eq!(out(&["-e", "1d", "-e", "3,$d", "f.md"]), "## One\n");
        assert_eq!(out(&["-n", "2!p;3p", "f.md"]), "a\nb foo foo\nb foo foo\n## Two\nc\n");
        assert_eq!(out(&["s|/|_|g"]), "");
        assert_eq!(sed_on(&["s/x/y/"], "x\n").0, "y\n");
    }

    #[test]
    fn refuses_writes_and_unsupported_commands_by_name() {
        let (_, errs, status) = sed_on(&["-i", "s/a/b/", "f.md"], "");
        assert_eq!(status, 1);
        assert!(errs.contains("read-only"), "{errs}");
        let (_, errs, status) = sed_on(&["y/ab/xy/", "f.md"], "");
        assert_eq!(status, 1);
        assert!(errs.contains("`y' command is not supported"), "{errs}");
        let (_, errs, _) = sed_on(&["w out.txt", "f.md"], "");
        assert!(errs.contains("read-only"), "{errs}");
        let (_, errs, status) = sed_on(&["-n", "p", "missing"], "");
        assert_eq!(status, 2);
        assert!(errs.starts_with("sed: can't read missing: "), "{errs}");
    }
}
