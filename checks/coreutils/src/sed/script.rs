//! Reading a sed script into commands, as GNU sed 4.9's `compile.c` reads it: the same
//! character-by-character grammar, so that what is accepted, what is an error, and the
//! `char N` of each error message are GNU's.

use std::rc::Rc;

use super::address::{Addr, Selector};
use super::pattern::{self, Flags, Pattern};
use super::text::{self, Kind, Replacement};

/// Where `w` output may go: the only files the sandbox writes to are its own streams.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Dest {
    Stdout,
    Stderr,
}

#[derive(Debug)]
pub(super) struct Subst {
    pub regex: Option<Rc<Pattern>>,
    pub replacement: Replacement,
    pub global: bool,
    pub nth: usize,
    pub print: bool,
    pub write: Option<Dest>,
}

#[derive(Debug)]
pub(super) enum Op {
    /// `{`: where to go when the address does not match (past the `}`).
    Block(usize),
    /// `}`, `:label`: nothing to do.
    Nop,
    /// `b`, `t`, `T` and where they go.
    Branch(u8, usize),
    Append(Vec<u8>),
    Insert(Vec<u8>),
    Change(Vec<u8>),
    /// `= d D F g G h H n N p P x z`.
    Simple(u8),
    List(Option<usize>),
    Quit {
        print: bool,
        status: i32,
    },
    ReadFile(String),
    ReadLine(String),
    Write {
        dest: Dest,
        first_line: bool,
    },
    Subst(Box<Subst>),
    Translate(Vec<(Vec<u8>, Vec<u8>)>),
}

#[derive(Debug)]
pub(super) struct Cmd {
    pub selector: Selector,
    pub bang: bool,
    pub op: Op,
}

/// Where a piece of script came from, for error messages.
#[derive(Debug, Clone)]
pub(super) enum Origin {
    /// The Nth `-e` (or the script operand).
    Expr(usize),
    /// A `-f` file.
    File(String),
}

/// A script error, already in GNU's words (without the leading `sed: `).
#[derive(Debug)]
pub(super) struct ScriptError {
    pub message: String,
    /// Exit status: 1 for a bad script, 4 for GNU's fatal errors (`panic`).
    pub status: i32,
}

/// The compiler's state, kept across the `-e` and `-f` pieces of one script.
pub(super) struct Compiler {
    pub cmds: Vec<Cmd>,
    pub quiet: bool,
    pub(super) flags: Flags,
    /// `--sandbox`: `e`, `r` and `w` are errors.
    pub(super) sandbox: bool,
    blocks: Vec<(usize, String)>,
    labels: Vec<(String, usize)>,
    jumps: Vec<(usize, String)>,
    /// An `a`, `i` or `c` whose text continues in the next piece (`-e 'a\' -e text`).
    pending: Option<(usize, Vec<u8>)>,
    first_script: bool,
    // The piece being read.
    buf: Vec<u8>,
    pos: usize,
    line: u64,
    origin: Origin,
}

pub(super) type Res<T> = Result<T, ScriptError>;

impl Compiler {
    pub(super) fn new(flags: Flags) -> Compiler {
        Compiler {
            cmds: Vec::new(),
            quiet: false,
            flags,
            sandbox: false,
            blocks: Vec::new(),
            labels: Vec::new(),
            jumps: Vec::new(),
            pending: None,
            first_script: true,
            buf: Vec::new(),
            pos: 0,
            line: 0,
            origin: Origin::Expr(0),
        }
    }

    /// Where the reader is, as GNU's messages say it.
    fn place(&self) -> String {
        match &self.origin {
            Origin::Expr(n) => format!("-e expression #{n}, char {}", self.pos),
            Origin::File(name) => format!("file {name} line {}", self.line),
        }
    }

    pub(super) fn bad(&self, message: &str) -> ScriptError {
        ScriptError { message: format!("{}: {message}", self.place()), status: 1 }
    }

    pub(super) fn inchar(&mut self) -> Option<u8> {
        let c = self.buf.get(self.pos).copied();
        if c.is_some() {
            self.pos += 1;
        }
        if c == Some(b'\n') {
            self.line += 1;
        }
        c
    }

    pub(super) fn savchar(&mut self, c: Option<u8>) {
        if let Some(c) = c {
            self.pos -= 1;
            if c == b'\n' && self.line > 0 {
                self.line -= 1;
            }
        }
    }

    pub(super) fn in_nonblank(&mut self) -> Option<u8> {
        loop {
            let c = self.inchar();
            if !matches!(c, Some(b' ' | b'\t')) {
                return c;
            }
        }
    }

    pub(super) fn in_integer(&mut self, first: u8) -> u64 {
        let mut n: u64 = u64::from(first - b'0');
        loop {
            let c = self.inchar();
            match c {
                Some(d @ b'0'..=b'9') => n = n.saturating_mul(10).saturating_add(u64::from(d - b'0')),
                _ => {
                    self.savchar(c);
                    return n;
                }
            }
        }
    }

    /// Compiles one piece of the script (`-e` text or a `-f` file's contents).
    pub(super) fn compile(&mut self, piece: &[u8], origin: Origin) -> Res<()> {
        self.buf = piece.to_vec();
        self.pos = 0;
        self.line = match origin {
            Origin::Expr(_) => 0,
            Origin::File(_) => 1,
        };
        self.origin = origin;
        if let Some((index, mut text)) = self.pending.take() {
            self.read_text(index, &mut text, None)?;
        }
        let result = self.program();
        self.first_script = false;
        result
    }

    /// The checks that need the whole script: blocks closed, labels defined.
    pub(super) fn finish(&mut self) -> Res<()> {
        if let Some((_, place)) = self.blocks.last() {
            return Err(ScriptError { message: format!("{place}: unmatched `{{'"), status: 1 });
        }
        if let Some((index, text)) = self.pending.take() {
            self.set_text(index, text);
        }
        for (index, name) in std::mem::take(&mut self.jumps) {
            let target = if name.is_empty() {
                self.cmds.len()
            } else {
                match self.labels.iter().rfind(|(label, _)| *label == name) {
                    Some((_, at)) => *at,
                    None => {
                        return Err(ScriptError {
                            message: format!("can't find label for jump to `{name}'"),
                            status: 4,
                        });
                    }
                }
            };
            if let Op::Branch(_, to) = &mut self.cmds[index].op {
                *to = target;
            }
        }
        Ok(())
    }

    fn program(&mut self) -> Res<()> {
        loop {
            let mut ch = loop {
                let c = self.inchar();
                if !matches!(c, Some(b';' | b' ' | b'\t' | b'\n' | b'\x0b' | b'\x0c' | b'\r')) {
                    break c;
                }
            };
            let Some(first) = ch else { return Ok(()) };
            let mut selector = Selector::default();
            if let Some(a1) = self.address(first)? {
                if matches!(a1, Addr::Plus(_) | Addr::MultipleOf(_)) {
                    return Err(self.bad("invalid usage of +N or ~N as first address"));
                }
                selector.a1 = Some(a1);
                ch = self.in_nonblank();
                if ch == Some(b',') {
                    let c = self.in_nonblank();
                    match c.map(|c| self.address(c)).transpose()?.flatten() {
                        Some(a2) => selector.a2 = Some(a2),
                        None => return Err(self.bad("unexpected `,'")),
                    }
                    ch = self.in_nonblank();
                }
                if matches!(selector.a1, Some(Addr::Line(0)))
                    && (!matches!(selector.a2, Some(Addr::Regex(_))) || self.flags.posix)
                {
                    return Err(self.bad("invalid usage of line address 0"));
                }
            }
            let mut bang = false;
            if ch == Some(b'!') {
                bang = true;
                ch = self.in_nonblank();
                if ch == Some(b'!') {
                    return Err(self.bad("multiple `!'s"));
                }
            }
            let Some(command) = ch else {
                return Err(self.bad("missing command"));
            };
            if self.flags.posix {
                if b"eFvzLQTRW".contains(&command) {
                    return Err(self.bad(&format!("unknown command: `{}'", command as char)));
                }
                if b"ail=r".contains(&command) && selector.a2.is_some() {
                    return Err(self.bad("command only uses one address"));
                }
            }
            if self.sandbox && b"erRwW".contains(&command) {
                return Err(self.bad("e/r/w commands disabled in sandbox mode"));
            }
            let has_address = selector.a1.is_some();
            let op = match command {
                b'#' => {
                    if has_address {
                        return Err(self.bad("comments don't accept any addresses"));
                    }
                    let c = self.inchar();
                    if c == Some(b'n') && self.first_script && self.pos == 2 {
                        self.quiet = true;
                    }
                    let mut c = c;
                    while !matches!(c, None | Some(b'\n')) {
                        c = self.inchar();
                    }
                    continue;
                }
                b'v' => {
                    let version = self.read_label();
                    if version_newer(&version) {
                        return Err(self.bad("expected newer version of sed"));
                    }
                    continue;
                }
                b'{' => {
                    let place = match &self.origin {
                        Origin::Expr(n) => format!("-e expression #{n}, char 0"),
                        Origin::File(name) => format!("file {name} line {}", self.line),
                    };
                    self.blocks.push((self.cmds.len(), place));
                    Op::Block(0)
                }
                b'}' => {
                    let Some((open, _)) = self.blocks.pop() else {
                        return Err(self.bad("unexpected `}'"));
                    };
                    if has_address {
                        return Err(self.bad("`}' doesn't want any addresses"));
                    }
                    self.end_of_command()?;
                    let after = self.cmds.len() + 1;
                    if let Op::Block(to) = &mut self.cmds[open].op {
                        *to = after;
                    }
                    Op::Nop
                }
                b'e' => return Err(self.refused("the `e' command (running a shell command) is not supported")),
                b'a' | b'i' | b'c' => {
                    let mut c = self.in_nonblank();
                    if c.is_none() {
                        return Err(self.bad("expected \\ after `a', `c' or `i'"));
                    }
                    if c == Some(b'\\') {
                        c = self.inchar();
                    } else {
                        if self.flags.posix {
                            return Err(self.bad("expected \\ after `a', `c' or `i'"));
                        }
                        self.savchar(c);
                        c = Some(b'\n');
                    }
                    let index = self.cmds.len();
                    self.push(selector, bang, text_op(command, Vec::new()));
                    self.read_text(index, &mut Vec::new(), Some(c))?;
                    continue;
                }
                b':' => {
                    if has_address {
                        return Err(self.bad(": doesn't want any addresses"));
                    }
                    let label = self.read_label();
                    if label.is_empty() {
                        return Err(self.bad("\":\" lacks a label"));
                    }
                    self.labels.push((label, self.cmds.len()));
                    Op::Nop
                }
                b'b' | b't' | b'T' => {
                    let label = self.read_label();
                    self.jumps.push((self.cmds.len(), label));
                    Op::Branch(command, 0)
                }
                b'q' | b'Q' | b'l' | b'L' => {
                    if command == b'L' {
                        return Err(self.bad("unknown command: `L'"));
                    }
                    if matches!(command, b'q' | b'Q') && selector.a2.is_some() {
                        return Err(self.bad("command only uses one address"));
                    }
                    let mut c = self.in_nonblank();
                    let mut arg = None;
                    if let Some(d @ b'0'..=b'9') = c
                        && !self.flags.posix
                    {
                        arg = Some(self.in_integer(d));
                        c = self.in_nonblank();
                    }
                    self.savchar(c);
                    self.end_of_command()?;
                    match command {
                        b'l' => Op::List(arg.map(|n| usize::try_from(n).unwrap_or(usize::MAX))),
                        _ => Op::Quit { print: command == b'q', status: arg.map_or(0, |n| (n & 0xff) as i32) },
                    }
                }
                b'=' | b'd' | b'D' | b'F' | b'g' | b'G' | b'h' | b'H' | b'n' | b'N' | b'p' | b'P' | b'z' | b'x' => {
                    self.end_of_command()?;
                    Op::Simple(command)
                }
                b'r' | b'R' => {
                    let name = self.read_filename()?;
                    if command == b'r' { Op::ReadFile(name) } else { Op::ReadLine(name) }
                }
                b'w' | b'W' => {
                    let name = self.read_filename()?;
                    Op::Write { dest: self.destination(&name, command)?, first_line: command == b'W' }
                }
                b's' => self.substitute()?,
                b'y' => self.translate()?,
                other => return Err(self.bad(&format!("unknown command: `{}'", other as char))),
            };
            self.push(selector, bang, op);
        }
    }

    fn push(&mut self, mut selector: Selector, bang: bool, op: Op) {
        selector.reset();
        self.cmds.push(Cmd { selector, bang, op });
    }

    pub(super) fn refused(&self, what: &str) -> ScriptError {
        ScriptError { message: format!("{}: {what} in the sandbox", self.place()), status: 1 }
    }

    /// After a command: blanks, then the end, `;`, a newline, `}` or `#`.
    pub(super) fn end_of_command(&mut self) -> Res<()> {
        let c = self.in_nonblank();
        match c {
            Some(b'}' | b'#') => {
                self.savchar(c);
                Ok(())
            }
            None | Some(b'\n' | b';') => Ok(()),
            Some(_) => Err(self.bad("extra characters after command")),
        }
    }

    fn read_label(&mut self) -> String {
        let mut label = Vec::new();
        let mut c = self.in_nonblank();
        while let Some(b) = c {
            if matches!(b, b'\n' | b' ' | b'\t' | b';' | b'}' | b'#') {
                break;
            }
            label.push(b);
            c = self.inchar();
        }
        self.savchar(c);
        String::from_utf8_lossy(&label).into_owned()
    }

    pub(super) fn read_filename(&mut self) -> Res<String> {
        let mut name = Vec::new();
        let mut c = self.in_nonblank();
        while let Some(b) = c {
            if b == b'\n' {
                break;
            }
            name.push(b);
            c = self.inchar();
        }
        if name.is_empty() {
            return Err(self.bad("missing filename in r/R/w/W commands"));
        }
        Ok(String::from_utf8_lossy(&name).into_owned())
    }

    /// `w FILE`: the sandbox's own streams only; a real file would be written.
    ///
    /// With `--posix` GNU opens `/dev/stdout` as a file, whose buffered output lands at
    /// another time than stdout's: that is a file write too.
    pub(super) fn destination(&self, name: &str, command: u8) -> Res<Dest> {
        match name {
            "/dev/stdout" if !self.flags.posix => Ok(Dest::Stdout),
            "/dev/stderr" if !self.flags.posix => Ok(Dest::Stderr),
            _ => Err(ScriptError {
                message: format!(
                    "couldn't open file {name}: writing files (`{}') is refused: the sandbox is read-only",
                    command as char
                ),
                status: 4,
            }),
        }
    }

    /// The text of `a`, `i`, `c` up to an unescaped newline; `lead` is the character
    /// after `a\` (`None` at the end of the piece, where the text continues in the next).
    fn read_text(&mut self, index: usize, text: &mut Vec<u8>, lead: Option<Option<u8>>) -> Res<()> {
        match lead {
            Some(None) => {
                self.pending = Some((index, std::mem::take(text)));
                return Ok(());
            }
            Some(Some(b'\n')) | None => {}
            Some(Some(c)) => text.push(c),
        }
        let mut c = self.inchar();
        while let Some(b) = c {
            if b == b'\n' {
                break;
            }
            let mut b = b;
            if b == b'\\' {
                match self.inchar() {
                    Some(next) => {
                        text.push(b'\\');
                        b = next;
                    }
                    None => {
                        text.push(b'\n');
                        self.pending = Some((index, std::mem::take(text)));
                        return Ok(());
                    }
                }
            }
            text.push(b);
            c = self.inchar();
        }
        text.push(b'\n');
        let normalized = text::normalize(text, Kind::Buffer).map_err(|m| self.bad(&m))?;
        self.set_text(index, normalized);
        Ok(())
    }

    fn set_text(&mut self, index: usize, text: Vec<u8>) {
        match &mut self.cmds[index].op {
            Op::Append(t) | Op::Insert(t) | Op::Change(t) => *t = text,
            _ => {}
        }
    }
}

/// The text of a command that has one.
fn text_op(command: u8, text: Vec<u8>) -> Op {
    match command {
        b'a' => Op::Append(text),
        b'i' => Op::Insert(text),
        _ => Op::Change(text),
    }
}

/// Splits into characters (an invalid byte is one character), as `y` counts them.
pub(super) fn chars(s: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < s.len() {
        let len = pattern::utf8_len(&s[i..]).max(1);
        out.push(s[i..i + len].to_vec());
        i += len;
    }
    out
}

/// Whether `v VERSION` asks for a sed newer than 4.9.
fn version_newer(version: &str) -> bool {
    let wanted: Vec<u64> =
        if version.is_empty() { vec![4, 0] } else { version.split('.').map(|p| p.parse().unwrap_or(0)).collect() };
    wanted > vec![4, 9]
}
