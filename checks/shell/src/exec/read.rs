//! The `read` builtin, as bash 5.2 defines it (`help read`).
//!
//! Implemented: `-r`; `-d DELIM` (its first byte, `-d ''` is NUL); `-n NCHARS` and
//! `-N NCHARS` (characters of UTF-8, the locale the sandbox answers for; `-N` ignores the
//! delimiter and does not split); `-u FD` (stdin, or an input the command or one around
//! it opened: `3<file`, `3<<EOF`; bash's error and 1 for one not open); `-s`, `-e`, `-i TEXT` and `-p PROMPT`, which do
//! nothing here because input is never a terminal (no echo to turn off, no readline, no
//! prompt); `-t TIMEOUT`, where input is all there before `read` starts, so a timeout
//! never expires and `-t 0` (any timeout that rounds to 0 µs) only reports that input is
//! available: 0, reading nothing.
//!
//! Options combine (`-rn1`) and take their value attached or as the next word. bash's
//! errors and statuses: an invalid option or a missing value 2; an invalid number,
//! timeout or descriptor 1; an invalid name or a read-only variable 1, the first name
//! checked before anything is read, the others once the line is read (the names before
//! them set).
//!
//! Without `-r` a backslash makes the next character literal (not a separator, not the
//! delimiter) and a backslash-newline pair disappears; NUL bytes are skipped unless NUL
//! is the delimiter. The line is split over the names as bash's `read` does it, which is
//! not quite word splitting: the last name takes the rest with its inner separators, less
//! trailing IFS white space, or just the one field left when only one is. Status 1 when
//! the input ended first.
//!
//! Refused: `-a` (the sandbox has no arrays) and `--help` (bash's help text is not kept
//! here).

use std::cell::Cell;
use std::rc::Rc;

use super::{Input, Shell};
use crate::vars;

const USAGE: &str = "read: usage: read [-ers] [-a array] [-d delim] [-i text] [-n nchars] [-N nchars] [-p prompt] \
                     [-t timeout] [-u fd] [name ...]";

/// What the options asked for.
#[derive(Debug, Default)]
struct Request {
    raw: bool,
    /// The byte that ends the input; `None` with `-N`.
    delimiter: Option<u8>,
    /// `-n`/`-N`: at most this many characters.
    count: Option<usize>,
    /// `-t` with a timeout of 0: only whether input is available.
    poll: bool,
    fd: Option<i64>,
    array: bool,
    names: Vec<String>,
}

/// One character of the input, and whether a backslash made it literal.
#[derive(Debug, Clone, Copy)]
struct Unit {
    c: char,
    escaped: bool,
}

impl Shell {
    /// `read [-ers] [-a array] [-d delim] [-i text] [-n nchars] [-N nchars] [-p prompt]
    /// [-t timeout] [-u fd] [name ...]`: one line (or `-d`-ended record, or `-n`/`-N`
    /// characters) of stdin, split over the names; `REPLY`, unsplit, without names.
    #[inline(never)]
    pub(super) fn read(&mut self, args: &[String], stdin: &Input, err: &mut Vec<u8>) -> i32 {
        let request = match self.read_options(args, err) {
            Ok(request) => request,
            Err(status) => return status,
        };
        if request.array {
            return self.refuse_status(err, "arrays (`read -a`)".into());
        }
        if request.poll {
            return 0;
        }
        match request.fd.filter(|fd| *fd != 0) {
            None => self.read_from(&request, stdin, err),
            Some(fd) => {
                let open = i32::try_from(fd)
                    .ok()
                    .and_then(|fd| self.inputs.iter().rev().find(|(n, _)| *n == fd))
                    .map(|(_, open)| Rc::clone(open));
                let Some(open) = open else {
                    let message = format!("read: {fd}: invalid file descriptor: Bad file descriptor");
                    return self.fail(err, "read", 1, message);
                };
                let input = Input { data: &open.data, taken: Cell::new(open.taken.get()) };
                let status = self.read_from(&request, &input, err);
                open.taken.set(input.taken.get());
                status
            }
        }
    }

    /// One read of `request` from `stdin` (or the descriptor `-u` named).
    fn read_from(&mut self, request: &Request, stdin: &Input, err: &mut Vec<u8>) -> i32 {
        // bash checks the first name before it reads, the others as it assigns them.
        if let Some(first) = request.names.first().filter(|name| !vars::is_name(name)) {
            return self.fail(err, "read", 1, format!("read: `{first}': not a valid identifier"));
        }
        let (units, ended) = take(stdin, request);
        // `-N` reads the characters as they are, unsplit.
        let ifs = if request.delimiter.is_none() { String::new() } else { self.ifs() };
        let assigned = if request.names.is_empty() {
            let line: String = units.iter().map(|u| u.c).collect();
            self.read_assign("REPLY", &line, err)
        } else {
            let values = fields(&units, &ifs, request.names.len());
            request.names.iter().zip(&values).try_for_each(|(name, value)| self.read_assign(name, value, err))
        };
        match assigned {
            Ok(()) => i32::from(ended),
            Err(status) => status,
        }
    }

    fn read_assign(&mut self, name: &str, value: &str, err: &mut Vec<u8>) -> Result<(), i32> {
        if !vars::is_name(name) {
            return Err(self.fail(err, "read", 1, format!("read: `{name}': not a valid identifier")));
        }
        self.state.vars.set(name, value).map_err(|message| {
            self.error(err, &message);
            1
        })
    }

    /// The options, as bash's getopt reads them: letters grouped after one `-`, a value
    /// attached or in the next word, `--` or the first word that is not an option ending
    /// them. Each value is checked where it stands, so the first error is bash's.
    fn read_options(&mut self, args: &[String], err: &mut Vec<u8>) -> Result<Request, i32> {
        let mut request = Request { delimiter: Some(b'\n'), ..Request::default() };
        let mut ignore_delimiter = false;
        let mut i = 0;
        while let Some(arg) = args.get(i) {
            if arg == "--" {
                i += 1;
                break;
            }
            if arg.len() < 2 || !arg.starts_with('-') {
                break;
            }
            if arg == "--help" {
                return Err(self.refuse_status(err, "`read --help`".into()));
            }
            i += 1;
            for (k, letter) in arg.char_indices().skip(1) {
                if !"adinNptu".contains(letter) {
                    match letter {
                        'r' => request.raw = true,
                        's' | 'e' => {}
                        _ => {
                            return Err(self.fail(err, "read", 2, format!("read: -{letter}: invalid option\n{USAGE}")));
                        }
                    }
                    continue;
                }
                let attached = &arg[k + letter.len_utf8()..];
                let value = if !attached.is_empty() {
                    attached
                } else if let Some(next) = args.get(i) {
                    i += 1;
                    next.as_str()
                } else {
                    let message = format!("read: -{letter}: option requires an argument\n{USAGE}");
                    return Err(self.fail(err, "read", 2, message));
                };
                match letter {
                    'a' => request.array = true,
                    'd' => request.delimiter = Some(value.bytes().next().unwrap_or(0)),
                    'n' | 'N' => {
                        ignore_delimiter |= letter == 'N';
                        match number(value).and_then(|n| usize::try_from(n).ok()).filter(|n| *n <= i32::MAX as usize) {
                            Some(n) => request.count = Some(n),
                            None => {
                                let hex = value.trim_start().starts_with("0x") || value.trim_start().starts_with("0X");
                                let what = if hex { "invalid hex number" } else { "invalid number" };
                                return Err(self.fail(err, "read", 1, format!("read: {value}: {what}")));
                            }
                        }
                    }
                    't' => match microseconds(value) {
                        Some(us) => request.poll = us == 0,
                        None => {
                            let message = format!("read: {value}: invalid timeout specification");
                            return Err(self.fail(err, "read", 1, message));
                        }
                    },
                    'u' => match number(value).filter(|n| (0..=i64::from(i32::MAX)).contains(n)) {
                        Some(fd) => request.fd = Some(fd),
                        None => {
                            let message = format!("read: {value}: invalid file descriptor specification");
                            return Err(self.fail(err, "read", 1, message));
                        }
                    },
                    // `-i TEXT`, `-p PROMPT`: for readline and a terminal, which input never is.
                    _ => {}
                }
                break;
            }
        }
        if ignore_delimiter {
            request.delimiter = None;
        }
        request.names = args[i..].to_vec();
        Ok(request)
    }
}

/// Takes what one `read` reads from `stdin`: the characters, and whether the input ended
/// before the delimiter or the count did. Bytes past the end of what is taken stay for
/// the next reader. A backslash is dropped and marks the next character literal; before
/// a newline both disappear. A NUL byte is skipped, unless it is the delimiter; one a
/// backslash made literal ends the text there, as it ends bash's C string.
fn take(stdin: &Input, request: &Request) -> (Vec<Unit>, bool) {
    let data = stdin.rest();
    let mut units = Vec::new();
    let (mut pos, mut escape, mut ended) = (0, false, false);
    while request.count != Some(units.len()) {
        let Some(&byte) = data.get(pos) else {
            ended = true;
            break;
        };
        pos += 1;
        let escaped = std::mem::take(&mut escape);
        if escaped {
            if byte == b'\n' {
                continue;
            }
        } else if byte == b'\\' && !request.raw {
            escape = true;
            continue;
        } else if Some(byte) == request.delimiter {
            break;
        } else if byte == 0 {
            continue;
        }
        let (c, len) = decode(&data[pos - 1..]);
        pos += len - 1;
        units.push(Unit { c, escaped });
    }
    stdin.taken.set(stdin.taken.get() + pos);
    if let Some(nul) = units.iter().position(|u| u.c == '\0') {
        units.truncate(nul);
    }
    (units, ended)
}

/// The character `bytes` starts with and its length: a UTF-8 sequence, or one byte
/// (U+FFFD) that starts none, as bash reads characters under a UTF-8 locale.
fn decode(bytes: &[u8]) -> (char, usize) {
    let want = match bytes[0] {
        0..=0x7f => return (char::from(bytes[0]), 1),
        0xc2..=0xdf => 2,
        0xe0..=0xef => 3,
        0xf0..=0xf4 => 4,
        _ => 1,
    };
    let len = 1 + bytes.iter().skip(1).take(want - 1).take_while(|b| (0x80..0xc0).contains(*b)).count();
    match std::str::from_utf8(&bytes[..len]) {
        Ok(text) => (text.chars().next().unwrap_or('\u{fffd}'), len),
        Err(_) => ('\u{fffd}', len),
    }
}

/// Space, tab and newline: the IFS characters bash's `read` treats as white space when
/// it trims (`spctabnl`).
fn blank(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n')
}

/// The values of `count` names, as bash's `read` splits the line: leading IFS blanks
/// dropped; each name but the last takes one field (as `get_word_from_string` does, a
/// field ends at an unescaped IFS character, and the separator is it with the IFS
/// blanks around it, a blank one absorbing one other IFS character); the last takes the
/// one field left when only one is (without its separator), else the rest less trailing
/// IFS blanks. `ifs` empty: no splitting.
fn fields(units: &[Unit], ifs: &str, count: usize) -> Vec<String> {
    let separator = |u: &Unit| !u.escaped && ifs.contains(u.c);
    let mut i = units.iter().take_while(|u| separator(u) && blank(u.c)).count();
    let mut values = Vec::with_capacity(count);
    for _ in 1..count {
        let (word, next) = word(units, i, &separator);
        values.push(word.unwrap_or_default());
        i = next;
    }
    let rest = &units[i..];
    let last = match word(units, i, &separator) {
        _ if rest.is_empty() => String::new(),
        (word, next) if next == units.len() => word.unwrap_or_default(),
        _ => {
            // Trailing IFS blanks go, escaped or not, but never the first character.
            let keep = rest.len() - rest[1..].iter().rev().take_while(|u| blank(u.c) && ifs.contains(u.c)).count();
            rest[..keep].iter().map(|u| u.c).collect()
        }
    };
    values.push(last);
    values
}

/// The field at `i` and where the next starts (bash's `get_word_from_string`): leading
/// IFS white space (any `isspace` character in IFS) skipped, `None` if nothing else is
/// left.
fn word(units: &[Unit], mut i: usize, separator: &dyn Fn(&Unit) -> bool) -> (Option<String>, usize) {
    let n = units.len();
    while i < n && separator(&units[i]) && matches!(units[i].c, ' ' | '\t' | '\n' | '\x0b' | '\x0c' | '\r') {
        i += 1;
    }
    if i == n {
        return (None, n);
    }
    let start = i;
    while i < n && !separator(&units[i]) {
        i += 1;
    }
    let word = units[start..i].iter().map(|u| u.c).collect();
    let after_blank = i < n && blank(units[i].c);
    i = (i + 1).min(n);
    let skip_blanks = |mut i: usize| {
        while i < n && blank(units[i].c) && separator(&units[i]) {
            i += 1;
        }
        i
    };
    i = skip_blanks(i);
    if i < n && after_blank && separator(&units[i]) && !blank(units[i].c) {
        i = skip_blanks(i + 1);
    }
    (Some(word), i)
}

/// A number as bash's `legal_number` reads it: decimal, an optional sign, white space
/// around; `None` when it is not one or does not fit.
fn number(text: &str) -> Option<i64> {
    let text = text.trim_start_matches(|c: char| c.is_ascii_whitespace()).trim_end_matches([' ', '\t']);
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// A `-t` timeout in microseconds (bash's `uconvert`): `[+-]DIGITS[.DIGITS]`, either part
/// may be empty, rounded to the microsecond; `None` when it is not one or is negative.
fn microseconds(text: &str) -> Option<u128> {
    let negative = text.starts_with('-');
    let body = text.strip_prefix(['+', '-']).unwrap_or(text);
    let (whole, fraction) = body.split_once('.').unwrap_or((body, ""));
    if !whole.bytes().chain(fraction.bytes()).all(|b| b.is_ascii_digit()) {
        return None;
    }
    let digit = |k: usize| fraction.as_bytes().get(k).map_or(0, |b| u128::from(b - b'0'));
    let whole = whole.bytes().fold(0u128, |n, b| n.saturating_mul(10).saturating_add(u128::from(b - b'0')));
    let micros = (0..6).fold(whole, |n, k| n.saturating_mul(10).saturating_add(digit(k)));
    let micros = micros.saturating_add(u128::from(digit(6) >= 5));
    (micros == 0 || !negative).then_some(micros)
}

#[cfg(test)]
mod tests {
    use reviewhost_tool::{Ctx, NO_LIMIT};

    use super::super::{Trouble, run};
    use crate::parse::parse;

    /// The script's stdout and whether it was refused.
    fn sh(command: &str) -> (String, bool) {
        let dir = tempfile::tempdir().unwrap();
        let r = run(&parse(command).unwrap(), Ctx::new(dir.path()), crate::lookup, NO_LIMIT);
        let refused = r.trouble.iter().any(|t| matches!(t, Trouble::Refused(_)));
        (String::from_utf8_lossy(&r.stdout).into_owned(), refused)
    }

    fn out(command: &str) -> String {
        let (stdout, refused) = sh(command);
        assert!(!refused, "{command}: refused");
        stdout
    }

    // Every expected output below is bash 5.2's (LC_ALL=C.UTF-8).

    #[test]
    fn options_combine_and_take_values_attached_or_next() {
        assert_eq!(out("echo hi | { read -rn1 var; echo var=$var; }"), "var=h\n");
        assert_eq!(out(r"printf 'a\\b\0c' | { read -rd '' x; echo $? $x; }"), "0 a\\b\n");
        assert_eq!(out("read -n1 -n3 x <<< abcdef; echo $? $x"), "0 abc\n");
        assert_eq!(out("read -p 'P> ' -s -e -i def x <<< hi; echo $? $x"), "0 hi\n");
        assert_eq!(out("read -- x <<< hi; echo $? $x"), "0 hi\n");
        assert_eq!(out("read -z x <<< hi; echo $? $x"), "2\n");
        assert_eq!(out("read -r- x <<< hi; echo $? $x"), "2\n");
        assert_eq!(out("read -n; echo $?"), "2\n");
        assert_eq!(out("read -z -n abc; echo $?"), "2\n");
        assert_eq!(out("read -n abc -z; echo $?"), "1\n");
    }

    #[test]
    fn counts_characters_not_bytes() {
        assert_eq!(out(r"printf 'a\303\251bc\n' | { read -n 2 x; echo $? $x; read x; echo $? $x; }"), "0 aé\n0 bc\n");
        assert_eq!(out(r"echo 'a\b\c\d\e\f' | { read -n 5; echo $REPLY; }"), "abcde\n");
        assert_eq!(out(r"printf 'abc\\\ndefg' | { read -n 4; echo $REPLY; }"), "abcd\n");
        assert_eq!(out(r"printf '\\\\ab' | { read -n 2 x; echo $? $x; }"), "0 \\a\n");
        assert_eq!(out(r"printf '   ab cd\n' | { read -n 4 x; echo [$x]; }"), "[a]\n");
        assert_eq!(out(r#"printf '   ab cd\n' | { read -n 4; echo "[$REPLY]"; }"#), "[   a]\n");
        assert_eq!(out("printf ab | { read -n 5 x; echo $? $x; }"), "1 ab\n");
        assert_eq!(out("printf ab | { read -n 2 x; echo $? $x; }"), "0 ab\n");
        assert_eq!(out("x=X y=Y; read -n 0 x y <<< hi; echo $? [$x][$y]"), "0 [][]\n");
    }

    #[test]
    fn exact_count_ignores_the_delimiter_and_does_not_split() {
        assert_eq!(out(r#"printf '  a  b  \n' | { read -N 3 x y; echo "$? [$x][$y]"; }"#), "0 [  a][]\n");
        assert_eq!(out(r#"printf '  a  b  \n' | { read -N 20 x y; echo "$? [$x][$y]"; }"#), "1 [  a  b  \n][]\n");
        assert_eq!(out("read -d x -N3 x <<< abcdef; echo $? $x"), "0 abc\n");
        assert_eq!(out(r#"read -N3 -n5 x <<< 'a  b  cdef'; echo "$? [$x]""#), "0 [a  b ]\n");
        assert_eq!(out(r"printf 'ab\\\ncd' | { read -N 3 x; echo $? $x; }"), "0 abc\n");
    }

    #[test]
    fn numbers_are_checked_as_bash_does() {
        assert_eq!(out("read -n not_a_number; echo $?"), "1\n");
        assert_eq!(out("read -n -1 x < /dev/null; echo $?"), "1\n");
        assert_eq!(out("read -n 2147483648 x <<< hi; echo $?"), "1\n");
        assert_eq!(out("read -n ' 3' x <<< abcdef; echo $? $x"), "0 abc\n");
        assert_eq!(out("read -n 010 x <<< abcdefghijkl; echo $? $x"), "0 abcdefghij\n");
        assert_eq!(out("read -u x < /dev/null; echo $?"), "1\n");
        assert_eq!(out("read -u 00 x <<< hi; echo $? $x"), "0 hi\n");
    }

    #[test]
    fn a_zero_timeout_reads_nothing() {
        assert_eq!(out("read -t 0 < /dev/null; echo $?; read -t 0.0 < /dev/null; echo $?"), "0\n0\n");
        assert_eq!(out("echo foo | { read -t 0; echo reply=$REPLY; }; echo $?"), "reply=\n0\n");
        assert_eq!(
            out("x=old; echo hi | { read -t 0 x; echo $? $x; read -t '' y; echo $? $y; read; echo $REPLY; }"),
            "0 old\n0\nhi\n"
        );
        assert_eq!(
            out("x=old; read -t 0.0000001 x <<< hi; echo $? $x; read -t -0 x <<< hi; echo $? $x"),
            "0 old\n0 old\n"
        );
        assert_eq!(out("read -t 1 x <<< hi; echo $? $x; read -t .5 x < /dev/null; echo $? [$x]"), "0 hi\n1 []\n");
        assert_eq!(
            out("read -t abc x < /dev/null; echo $?; read -t -1 x; echo $?; read -t 1.5.5; echo $?"),
            "1\n1\n1\n"
        );
        assert_eq!(out("read -t 0 1x < /dev/null; echo $?"), "0\n");
    }

    #[test]
    fn arrays_are_refused() {
        assert!(sh("read -a parts <<< 'a b'").1);
        assert!(!sh("read -u 3 x").1, "bash's error: fd 3 is not open");
        assert!(!sh("read -a").1, "a missing value is bash's error first");
        assert!(sh("read --help").1, "bash prints its help on stdout");
    }

    #[test]
    fn the_last_name_takes_the_rest() {
        assert_eq!(out(r#"IFS=: read x y <<< a:b:; echo "[$x][$y]""#), "[a][b]\n");
        assert_eq!(out(r#"IFS=: read x <<< a:; echo "[$x]""#), "[a]\n");
        assert_eq!(out(r#"IFS=: read x y <<< a:b:c:; echo "[$x][$y]""#), "[a][b:c:]\n");
        assert_eq!(out(r#"IFS=: read x y <<< a:b::; echo "[$x][$y]""#), "[a][b::]\n");
        assert_eq!(out(r#"IFS=' :'; read x y z <<< ' a : : b  c : '; echo "[$x][$y][$z]""#), "[a][][b  c :]\n");
        assert_eq!(out(r#"IFS=' :'; read x y <<< ' a :: '; echo "[$x][$y]""#), "[a][]\n");
        assert_eq!(out(r#"IFS=x; read x y <<< '  xa b x '; echo "[$x][$y]""#), "[  ][a b x ]\n");
        assert_eq!(out(r#"IFS=$'\t'; read x y <<< $' \ta\t\t b  \t'; echo "[$x][$y]""#), "[ ][a\t\t b  ]\n");
        assert_eq!(out(r#"IFS=; read x y <<< '  a b c d'; echo "[$x|$y]""#), "[  a b c d|]\n");
    }

    #[test]
    fn other_white_space_in_ifs_is_trimmed_only_around_fields() {
        // bash 5.2 prints these with `printf %q`: `a $'\rb\r\r'`, `a b ''`, `$'\r\ra\r\rb\r\r'`.
        let script = r#"IFS=$'\r'; s=$'\r\ra\r\rb\r\r'
            read x y <<< "$s"; [ "$x" = a ] && [ "$y" = $'\rb\r\r' ] && echo two
            read x y z <<< "$s"; [ "$x|$y|$z" = 'a|b|' ] && echo three
            read x <<< "$s"; [ "$x" = "$s" ] && echo one"#;
        assert_eq!(out(script), "two\nthree\none\n");
    }

    #[test]
    fn a_backslash_makes_the_next_character_literal() {
        let argv = r#"argv() { for a in "$@"; do printf '[%s]' "$a"; done; echo; }; "#;
        assert_eq!(out(&format!(r"{argv}echo 'Aa b \ a\ b' | (read a b; argv $a $b)")), "[Aa][b][a][b]\n");
        assert_eq!(out(&format!(r#"{argv}echo 'Aa b \ a\ b' | (read a b; argv "$a" "$b")"#)), "[Aa][b  a b]\n");
        assert_eq!(out(&format!(r#"{argv}echo 'Aa b \ a\ b' | (read a b c; argv "$a" "$b" "$c")"#)), "[Aa][b][ a b]\n");
        assert_eq!(
            out(&format!(r#"{argv}IFS='\ '; echo 'hello\ world  test' | (read a b; argv "$a" "$b")"#)),
            "[hello world][test]\n"
        );
        assert_eq!(
            out(&format!(r#"{argv}IFS='\'; echo 'hello\ world  test' | (read a b; argv "$a" "$b")"#)),
            "[hello world  test][]\n"
        );
        assert_eq!(out(&format!(r#"{argv}read x y <<< 'a b c\ '; argv "$x" "$y""#)), "[a][b c]\n");
        assert_eq!(out(&format!(r#"{argv}read x y <<< 'a b\ '; argv "$x" "$y""#)), "[a][b ]\n");
        assert_eq!(out(&format!(r#"{argv}read x y <<< 'a \  '; argv "$x" "$y""#)), "[a][ ]\n");
        assert_eq!(out(&format!(r#"{argv}IFS=:; read x y <<< 'a:b:c\ '; argv "$x" "$y""#)), "[a][b:c ]\n");
        assert_eq!(out(&format!(r#"{argv}read x <<< '\  a b  '; argv "$x""#)), "[  a b]\n");
        assert_eq!(out(r"printf 'a\\:b:c' | { read -d : x; echo $? $x; }"), "0 a:b\n");
        assert_eq!(out(r"printf 'a\\\nb:c' | { read -d : x; echo $? $x; }"), "0 ab\n");
        assert_eq!(out(r"printf 'a\\b\\\\c\n' | { read -d '\' x; echo $? $x; }"), "1 ab\\c\n");
        assert_eq!(out(r"printf 'a\\' | { read x; echo $? $x; }"), "1 a\n");
    }

    #[test]
    fn nul_bytes_are_skipped_unless_they_delimit() {
        assert_eq!(out(r"printf 'a\0b\n' | { read x; echo $? $x; }"), "0 ab\n");
        assert_eq!(out(r"printf 'a\\\0b\n' | { read x; echo $? $x; }"), "0 a\n");
        assert_eq!(out(r"printf 'a\0b\0' | { read -d '' x; echo $? $x; read -d '' x; echo $? $x; }"), "0 a\n0 b\n");
        assert_eq!(out(r"printf 'a\0bcd' | { read -N 3 x; echo $? $x; }"), "0 abc\n");
    }

    #[test]
    fn names_are_checked_as_they_are_assigned() {
        assert_eq!(out("x=X y=Y z=Z; read x 1y z <<< 'a b c'; echo $? [$x][$y][$z]"), "1 [a][Y][Z]\n");
        assert_eq!(out("x=X y=Y z=Z; read x y 1z <<< 'a b c'; echo $? [$x][$y][$z]"), "1 [a][b][Z]\n");
        assert_eq!(out("{ read 1x; echo $?; read y; echo $y; } <<< $'a\\nb'"), "1\na\n");
        assert_eq!(out("{ read x 1y; echo $?; read y; echo $y; } <<< $'a\\nb'"), "1\nb\n");
        assert_eq!(out("x=X z=Z; readonly y=1; read x y z <<< 'a b c'; echo $? [$x][$y][$z]"), "1 [a][1][Z]\n");
        assert_eq!(out("x=X y=Y; read x y < /dev/null; echo $? [$x][$y]"), "1 [][]\n");
    }
}
