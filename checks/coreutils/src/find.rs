//! `find`, following findutils 4.9 (`-P`: symlinks are not followed).
//!
//! Implemented: operands, `( ) ! -not -a -and -o -or ,`-free expressions of `-name
//! -iname -path -ipath -wholename -iwholename -lname -ilname -type -empty -newer -size
//! -perm -true -false -print -print0 -printf -prune -quit`, the options `-maxdepth
//! -mindepth -depth -xdev -mount -noleaf -ignore_readdir_race`, and `-printf` directives
//! `%p %P %f %h %s %d %y %l %m %M %%` with GNU's flags, width and precision (`%-10p`,
//! `%.2f`). Permission bits (`-perm`, `%m`, `%M`) come from the host, since WASI has none
//! ([`perm`]).
//!
//! Refused, each by name ("… is not supported in the sandbox", so that the assertion is
//! an error): the actions that run or write things (`-exec`, `-ok`, `-delete`, `-fprint`,
//! `-ls`, …); what WASI does not tell a component (owners, links, inode numbers, access
//! and change times: `-user`, `-links`, `%u`, …) and what depends on the user who runs
//! the real tool (`-readable`, `-writable`, `-executable`); `-regex` (GNU's emacs syntax); the time tests other than `-newer`;
//! every other GNU predicate and `-printf` directive.
//!
//! Different on purpose: the expression is evaluated as written, as GNU's `-O0` does.
//! GNU's default `-O1` may swap the operands of `-o` or `-a` by cost even when the left
//! one is an action (`find x -print -size 1 -o -true` prints nothing there); checks put
//! their actions last, where the two agree.

use std::cell::OnceCell;
use std::fs::{self, Metadata};
use std::path::Path;

use reviewhost_tool::{Ctx, Io, Kind};

use crate::common::{err, io_msg};
use reviewhost_tool::{fnmatch, fnmatch_casefold};

/// fnmatch(3), with `FNM_CASEFOLD` for the `-i` tests.
fn glob(pattern: &[u8], name: &[u8], icase: bool) -> bool {
    if icase { fnmatch_casefold(pattern, name) } else { fnmatch(pattern, name) }
}

mod perm;
use perm::Perm;

/// Deepest `find` recursion: deeper trees are reported instead of overflowing the stack.
const FIND_MAX_DEPTH: usize = 4096;
/// `find -size` default unit: 512-byte blocks.
const FIND_BLOCK: u64 = 512;

#[derive(Debug)]
enum Expr {
    And(Box<Expr>, Box<Expr>),
    Or(Box<Expr>, Box<Expr>),
    Not(Box<Expr>),
    Name(Vec<u8>, bool),
    Path(Vec<u8>, bool),
    /// `-lname`/`-ilname`: a symlink whose target matches.
    LinkName(Vec<u8>, bool),
    Type(Vec<char>),
    Empty,
    Newer(std::time::SystemTime),
    Size(char, u64, u64),
    Perm(Perm),
    True,
    False,
    Print,
    Print0,
    Printf(Vec<u8>),
    Prune,
    Quit,
}

/// What one `find` run needs while walking.
struct Walk {
    ctx: Ctx,
    expr: Expr,
    mindepth: usize,
    maxdepth: usize,
    depth_first: bool,
    quit: bool,
    status: i32,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

/// The file being examined.
struct Visit<'m> {
    shown: &'m str,
    /// The operand this path started from (for `%P`).
    start: &'m str,
    real: &'m Path,
    /// What the directory listing says it is (the operand's own `lstat` for an operand):
    /// enough to walk and for most expressions, so most entries cost no `stat`.
    kind: Kind,
    /// Its `lstat`, taken when an expression needs more than the kind (size, time, mode,
    /// which kind of special file).
    meta: OnceCell<Option<Metadata>>,
    /// Its permission bits (not following a symlink), asked of the host when needed.
    mode: OnceCell<Option<u32>>,
    depth: usize,
}

impl Visit<'_> {
    fn meta(&self) -> Option<&Metadata> {
        self.meta.get_or_init(|| fs::symlink_metadata(self.real).ok()).as_ref()
    }

    /// `-perm`'s and `%m`'s bits: WASI has none, the host answers ([`Ctx::mode`]).
    fn mode(&self, ctx: &Ctx) -> Option<u32> {
        *self.mode.get_or_init(|| ctx.mode(self.real, false).ok())
    }

    /// `-type` and `%y`'s letter.
    fn type_char(&self) -> char {
        match self.kind {
            Kind::File => 'f',
            Kind::Dir => 'd',
            Kind::Symlink => 'l',
            Kind::Other => self.meta().map_or('U', type_char),
        }
    }
}

/// Parser over `find`'s expression arguments.
struct FindParser<'a> {
    args: &'a [String],
    pos: usize,
    ctx: &'a Ctx,
    has_action: bool,
    mindepth: usize,
    maxdepth: usize,
    depth_first: bool,
    /// Warnings findutils prints while reading the expression (`-perm /000`).
    warnings: Vec<String>,
}

impl FindParser<'_> {
    fn peek(&self) -> Option<&str> {
        self.args.get(self.pos).map(String::as_str)
    }

    fn or(&mut self) -> Result<Expr, String> {
        let mut l = self.and()?;
        while matches!(self.peek(), Some("-o" | "-or")) {
            self.pos += 1;
            let r = self.and()?;
            l = Expr::Or(Box::new(l), Box::new(r));
        }
        Ok(l)
    }

    fn and(&mut self) -> Result<Expr, String> {
        let mut l = self.not()?;
        loop {
            match self.peek() {
                Some("-a" | "-and") => {
                    self.pos += 1;
                }
                Some("-o" | "-or" | ")" | ",") | None => return Ok(l),
                _ => {}
            }
            let r = self.not()?;
            l = Expr::And(Box::new(l), Box::new(r));
        }
    }

    fn not(&mut self) -> Result<Expr, String> {
        if matches!(self.peek(), Some("!" | "-not")) {
            self.pos += 1;
            return Ok(Expr::Not(Box::new(self.not()?)));
        }
        self.primary()
    }

    fn value(&mut self, pred: &str) -> Result<String, String> {
        match self.args.get(self.pos) {
            Some(v) => {
                self.pos += 1;
                Ok(v.clone())
            }
            None => Err(format!("missing argument to `{pred}'")),
        }
    }

    fn primary(&mut self) -> Result<Expr, String> {
        let Some(tok) = self.args.get(self.pos).cloned() else {
            return Err("expected an expression".into());
        };
        self.pos += 1;
        Ok(match tok.as_str() {
            "(" => {
                let e = self.or()?;
                if self.peek() != Some(")") {
                    return Err(
                        "invalid expression; I was expecting to find a ')' somewhere but did not see one.".into()
                    );
                }
                self.pos += 1;
                e
            }
            "-name" | "-iname" => {
                let v = self.value(&tok)?;
                Expr::Name(v.into_bytes(), tok == "-iname")
            }
            "-path" | "-ipath" | "-wholename" | "-iwholename" => {
                let v = self.value(&tok)?;
                Expr::Path(v.into_bytes(), tok.starts_with("-i"))
            }
            "-lname" | "-ilname" => {
                let v = self.value(&tok)?;
                Expr::LinkName(v.into_bytes(), tok == "-ilname")
            }
            "-type" => {
                let v = self.value(&tok)?;
                let mut kinds = Vec::new();
                for part in v.split(',') {
                    match part {
                        "f" | "d" | "l" | "p" | "s" | "b" | "c" => kinds.push(part.chars().next().unwrap_or('f')),
                        "" => return Err("Arguments to -type should contain at least one letter".into()),
                        _ => return Err(format!("Unknown argument to -type: {part}")),
                    }
                }
                Expr::Type(kinds)
            }
            "-empty" => Expr::Empty,
            "-true" => Expr::True,
            "-false" => Expr::False,
            "-print" => {
                self.has_action = true;
                Expr::Print
            }
            "-print0" => {
                self.has_action = true;
                Expr::Print0
            }
            "-printf" => {
                self.has_action = true;
                let format = self.value(&tok)?.into_bytes();
                check_printf(&format)?;
                Expr::Printf(format)
            }
            "-prune" => Expr::Prune,
            "-quit" => Expr::Quit,
            "-newer" => {
                let v = self.value(&tok)?;
                let t = fs::metadata(self.ctx.real(&v))
                    .and_then(|m| m.modified())
                    .map_err(|e| format!("‘{v}’: {}", io_msg(&e)))?;
                Expr::Newer(t)
            }
            "-perm" => {
                let v = self.value(&tok)?;
                let perm = Perm::parse(&v)?;
                if let Some(warning) = perm.warning(&v) {
                    self.warnings.push(warning);
                }
                Expr::Perm(perm)
            }
            "-size" => {
                let v = self.value(&tok)?;
                parse_size(&v).ok_or_else(|| format!("invalid -size argument: `{v}'"))?
            }
            "-maxdepth" | "-mindepth" => {
                let v = self.value(&tok)?;
                let n: usize = v
                    .parse()
                    .map_err(|_| format!("Expected a positive decimal integer argument to {tok}, but got ‘{v}’"))?;
                if tok == "-maxdepth" {
                    self.maxdepth = n;
                } else {
                    self.mindepth = n;
                }
                Expr::True
            }
            "-depth" | "-d" => {
                self.depth_first = true;
                Expr::True
            }
            "-xdev" | "-mount" | "-noleaf" | "-ignore_readdir_race" | "-P" => Expr::True,
            "-exec" | "-execdir" | "-ok" | "-okdir" | "-delete" | "-fprint" | "-fprint0" | "-fprintf" | "-fls"
            | "-ls" => return Err(format!("{tok} is not supported in the sandbox")),
            t if GNU_PREDICATES.contains(&t) => return Err(format!("{t} is not supported in the sandbox")),
            ")" => return Err("invalid expression; you have too many ')'".into()),
            t if t.starts_with('-') => return Err(format!("unknown predicate `{t}'")),
            t => return Err(format!("paths must precede expression: `{t}'")),
        })
    }
}

/// GNU find's tests, actions and options this one does not have (the module note says
/// why): named in a refusal, never "unknown predicate".
const GNU_PREDICATES: &[&str] = &[
    "-amin",
    "-anewer",
    "-atime",
    "-cmin",
    "-cnewer",
    "-ctime",
    "-fstype",
    "-gid",
    "-group",
    "-inum",
    "-iregex",
    "-links",
    "-mmin",
    "-mtime",
    "-newerXY",
    "-nogroup",
    "-nouser",
    "-readable",
    "-regex",
    "-samefile",
    "-uid",
    "-used",
    "-user",
    "-writable",
    "-executable",
    "-xtype",
    "-context",
    "-daystart",
    "-follow",
    "-regextype",
    "-warn",
    "-nowarn",
    "-noignore_readdir_race",
    "-files0-from",
    "-L",
    "-H",
    "-O0",
    "-O1",
    "-O2",
    "-O3",
    "-D",
    "-newermt",
    "-newerat",
    "-newerct",
    "-newermm",
    "-neweraa",
    "-newercc",
    "-newerma",
    "-newerac",
    "-newercm",
    "-newermc",
    "-newerca",
    "-newerBt",
    "-newerBm",
    "-newermB",
];

/// The `-printf` directives implemented (besides `%%`).
const PRINTF_DIRECTIVES: &[u8] = b"pfhPsdylmM";

/// Refuses a `-printf` format using a directive not implemented, by name.
fn check_printf(format: &[u8]) -> Result<(), String> {
    let mut i = 0;
    while i < format.len() {
        if format[i] == b'%' {
            i += 1;
            while i < format.len() && b"-+# 0123456789.".contains(&format[i]) {
                i += 1;
            }
            match format.get(i) {
                Some(b'%') | None => {}
                Some(d) if PRINTF_DIRECTIVES.contains(d) => {}
                Some(d) => {
                    let d = if d.is_ascii() { (*d as char).to_string() } else { format!("\\x{d:02x}") };
                    return Err(format!("-printf %{d} is not supported in the sandbox"));
                }
            }
        } else if format[i] == b'\\' {
            i += 1;
        }
        i += 1;
    }
    Ok(())
}

/// `value` formatted as printf's `%s` with `spec` (flags, width, `.precision`): the
/// precision keeps that many bytes, the width pads with spaces, on the left unless `-`.
fn padded(value: &[u8], spec: &str) -> Vec<u8> {
    let left = spec.contains('-');
    let (width, precision) = match spec.trim_start_matches(['-', '+', '#', ' ', '0']).split_once('.') {
        Some((w, p)) => (w.parse::<usize>().unwrap_or(0), Some(p.parse::<usize>().unwrap_or(0))),
        None => (spec.trim_start_matches(['-', '+', '#', ' ', '0']).parse::<usize>().unwrap_or(0), None),
    };
    let value = &value[..precision.map_or(value.len(), |p| p.min(value.len()))];
    let pad = vec![b' '; width.saturating_sub(value.len())];
    if left { [value, &pad].concat() } else { [&pad, value].concat() }
}

/// `-size [+-]N[bcwkMG]`.
fn parse_size(v: &str) -> Option<Expr> {
    let (cmp, rest) = match v.as_bytes().first() {
        Some(b'+') => ('+', &v[1..]),
        Some(b'-') => ('-', &v[1..]),
        _ => ('=', v),
    };
    let end = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
    if end == 0 {
        return None;
    }
    let n: u64 = rest[..end].parse().ok()?;
    let unit = match &rest[end..] {
        "" | "b" => FIND_BLOCK,
        "c" => 1,
        "w" => 2,
        "k" => 1024,
        "M" => 1 << 20,
        "G" => 1 << 30,
        _ => return None,
    };
    Some(Expr::Size(cmp, n, unit))
}

/// The last path component as `find -name` sees it (trailing slashes ignored).
fn find_base(shown: &str) -> &str {
    let t = shown.trim_end_matches('/');
    if t.is_empty() {
        return if shown.is_empty() { "" } else { "/" };
    }
    match t.rfind('/') {
        Some(p) => &t[p + 1..],
        None => t,
    }
}

impl Walk {
    fn error(&mut self, msg: &str) {
        self.stderr.extend_from_slice(format!("find: {msg}\n").as_bytes());
        self.status = 1;
    }

    /// Evaluate; the second value is whether `-prune` asked not to descend.
    fn eval(&mut self, e: &Expr, v: &Visit, prune: &mut bool) -> bool {
        match e {
            Expr::And(a, b) => self.eval(a, v, prune) && !self.quit && self.eval(b, v, prune),
            Expr::Or(a, b) => self.eval(a, v, prune) || (!self.quit && self.eval(b, v, prune)),
            Expr::Not(a) => !self.eval(a, v, prune),
            Expr::Name(p, icase) => glob(p, find_base(v.shown).as_bytes(), *icase),
            Expr::Path(p, icase) => glob(p, v.shown.as_bytes(), *icase),
            Expr::LinkName(p, icase) => {
                v.kind == Kind::Symlink
                    && fs::read_link(v.real).is_ok_and(|target| glob(p, target.to_string_lossy().as_bytes(), *icase))
            }
            Expr::Type(kinds) => kinds.contains(&v.type_char()),
            Expr::Empty => match v.kind {
                Kind::Dir => self.ctx.read_dir(v.real).is_ok_and(|entries| entries.is_empty()),
                Kind::File => v.meta().is_some_and(|m| m.len() == 0),
                _ => false,
            },
            Expr::Newer(t) => v.meta().and_then(|m| m.modified().ok()).is_some_and(|m| m > *t),
            Expr::Size(cmp, n, unit) => v.meta().is_some_and(|m| {
                let units = m.len().div_ceil(*unit);
                match cmp {
                    '+' => units > *n,
                    '-' => units < *n,
                    _ => units == *n,
                }
            }),
            Expr::Perm(perm) => v.mode(&self.ctx).is_some_and(|mode| perm.matches(mode, v.kind == Kind::Dir)),
            Expr::True => true,
            Expr::False => false,
            Expr::Print => {
                self.stdout.extend_from_slice(v.shown.as_bytes());
                self.stdout.push(b'\n');
                true
            }
            Expr::Print0 => {
                self.stdout.extend_from_slice(v.shown.as_bytes());
                self.stdout.push(0);
                true
            }
            Expr::Printf(f) => {
                let out = render_printf(f, v, &self.ctx);
                self.stdout.extend_from_slice(&out);
                true
            }
            Expr::Prune => {
                *prune = true;
                true
            }
            Expr::Quit => {
                self.quit = true;
                true
            }
        }
    }

    fn visit(&mut self, v: &Visit) -> bool {
        let mut prune = false;
        if v.depth >= self.mindepth {
            let expr = std::mem::replace(&mut self.expr, Expr::True);
            self.eval(&expr, v, &mut prune);
            self.expr = expr;
        }
        prune
    }

    /// Visits `real` and, for a directory, what is under it. `meta` is the operand's
    /// `lstat`; entries found by listing a directory have none until asked.
    fn walk(&mut self, shown: &str, start: &str, real: &Path, kind: Kind, meta: Option<Metadata>, depth: usize) {
        if self.quit {
            return;
        }
        let v = Visit {
            shown,
            start,
            real,
            kind,
            meta: meta.map(Some).map(OnceCell::from).unwrap_or_default(),
            mode: OnceCell::new(),
            depth,
        };
        let mut prune = false;
        if !self.depth_first {
            prune = self.visit(&v);
        }
        if kind == Kind::Dir && depth < self.maxdepth && !prune && !self.quit {
            if depth >= FIND_MAX_DEPTH {
                self.error(&format!("‘{shown}’: directory nesting too deep"));
            } else {
                match self.ctx.read_dir(real) {
                    Err(e) => {
                        self.error(&format!("‘{shown}’: {}", io_msg(&e)));
                    }
                    Ok(entries) => {
                        for entry in entries {
                            if self.quit {
                                break;
                            }
                            // An entry that cannot be listed (a name that is not UTF-8,
                            // which no path in the sandbox can name) is reported as ls
                            // and grep report it: silently skipping it would let a
                            // `grep_not_match` on find's output pass.
                            let entry = match entry {
                                Ok(entry) => entry,
                                Err(e) => {
                                    self.error(&format!("‘{shown}’: {}", io_msg(&e)));
                                    continue;
                                }
                            };
                            let child = if shown.ends_with('/') {
                                format!("{shown}{}", entry.name)
                            } else {
                                format!("{shown}/{}", entry.name)
                            };
                            self.walk(&child, start, &real.join(&entry.name), entry.kind, None, depth + 1);
                        }
                    }
                }
            }
        }
        if self.depth_first && !self.quit {
            self.visit(&v);
        }
    }
}

fn type_char(m: &Metadata) -> char {
    let ft = m.file_type();
    if ft.is_dir() {
        return 'd';
    }
    if ft.is_symlink() {
        return 'l';
    }
    if ft.is_file() {
        return 'f';
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_fifo() {
            return 'p';
        }
        if ft.is_socket() {
            return 's';
        }
        if ft.is_block_device() {
            return 'b';
        }
        if ft.is_char_device() {
            return 'c';
        }
    }
    'U'
}

/// `%f`: gnulib's `base_name`, the last component with one of the slashes after it
/// (`src/` is `src/`, `a//` is `a/`, `/` is `/`).
fn printf_base(shown: &str) -> &str {
    let trimmed = shown.trim_end_matches('/');
    if trimmed.is_empty() {
        return &shown[..shown.len().min(1)];
    }
    let start = trimmed.rfind('/').map_or(0, |p| p + 1);
    let end = if shown.len() > trimmed.len() { trimmed.len() + 1 } else { trimmed.len() };
    &shown[start..end]
}

/// `%h`: what is before the last slash, after GNU drops the trailing slashes, which it
/// does unless one character would be left (`a/b/` is `a`, `src/` is `.`, but `a//`
/// stays whole and is `a/`); `.` when there is no slash, empty for `/`.
fn printf_dir(shown: &str) -> &str {
    let trimmed = shown.trim_end_matches('/');
    let kept = if trimmed.len() > 1 { trimmed } else { shown };
    match kept.rfind('/') {
        Some(p) => &kept[..p],
        None => ".",
    }
}

/// `-printf FORMAT` with the common directives.
fn render_printf(f: &[u8], v: &Visit, ctx: &Ctx) -> Vec<u8> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < f.len() {
        let c = f[i];
        i += 1;
        match c {
            b'\\' if i < f.len() => {
                let e = f[i];
                i += 1;
                match e {
                    b'n' => out.push(b'\n'),
                    b't' => out.push(b'\t'),
                    b'0' => out.push(0),
                    b'\\' => out.push(b'\\'),
                    other => {
                        out.push(b'\\');
                        out.push(other);
                    }
                }
            }
            b'%' if i < f.len() => {
                // Flags, width and precision, as GNU find passes them to printf's `%s`.
                let spec_start = i;
                while i < f.len() && b"-+# 0123456789.".contains(&f[i]) {
                    i += 1;
                }
                let spec = String::from_utf8_lossy(&f[spec_start..i]).into_owned();
                let Some(&d) = f.get(i) else {
                    out.push(b'%');
                    out.extend_from_slice(spec.as_bytes());
                    break;
                };
                i += 1;
                let value: Vec<u8> = match d {
                    b'p' => v.shown.as_bytes().to_vec(),
                    b'f' => printf_base(v.shown).as_bytes().to_vec(),
                    b'h' => printf_dir(v.shown).as_bytes().to_vec(),
                    b'P' => {
                        let rel = v.shown.strip_prefix(v.start).unwrap_or(v.shown);
                        rel.trim_start_matches('/').as_bytes().to_vec()
                    }
                    b's' => v.meta().map_or(0, Metadata::len).to_string().into_bytes(),
                    b'd' => v.depth.to_string().into_bytes(),
                    b'y' => vec![v.type_char() as u8],
                    b'm' => format!("{:o}", v.mode(ctx).unwrap_or(0)).into_bytes(),
                    b'M' => perm::symbolic(v.mode(ctx).unwrap_or(0), v.type_char()).into_bytes(),
                    b'l' if v.kind == Kind::Symlink => {
                        fs::read_link(v.real).map(|t| t.to_string_lossy().into_owned().into_bytes()).unwrap_or_default()
                    }
                    b'l' => Vec::new(),
                    b'%' => {
                        out.push(b'%');
                        continue;
                    }
                    // Refused when the expression was parsed ([`check_printf`]).
                    _ => Vec::new(),
                };
                out.extend_from_slice(&padded(&value, &spec));
            }
            other => out.push(other),
        }
    }
    out
}

/// `find [PATH...] [EXPRESSION]`.
pub fn find(args: &[String], ctx: &Ctx, io: &mut Io) -> i32 {
    let mut i = 0;
    // Leading -P/-H/-L options: only -P (the default) is honoured; -H/-L are accepted but
    // symlinks are still not followed.
    while i < args.len() && matches!(args[i].as_str(), "-P" | "-H" | "-L") {
        i += 1;
    }
    let start_ops = i;
    while i < args.len() {
        let a = args[i].as_str();
        // GNU's `looks_like_expression` for the leading operands: `)` and `,` there are
        // file names.
        if (a.starts_with('-') && a.len() > 1) || a == "(" || a == "!" {
            break;
        }
        i += 1;
    }
    let mut operands: Vec<String> = args[start_ops..i].to_vec();
    if operands.is_empty() {
        operands.push(".".into());
    }
    let expr_args = &args[i..];
    let mut parser = FindParser {
        args: expr_args,
        pos: 0,
        ctx,
        has_action: false,
        mindepth: 0,
        maxdepth: usize::MAX,
        depth_first: false,
        warnings: Vec::new(),
    };
    let expr = if expr_args.is_empty() {
        Ok(Expr::True)
    } else {
        parser.or().and_then(|e| match parser.peek() {
            None => Ok(e),
            Some(")") => Err("invalid expression; you have too many ')'".into()),
            Some(t) => Err(format!("unexpected extra predicate '{t}'")),
        })
    };
    let expr = match expr {
        Ok(e) => e,
        Err(m) => {
            err(io, "find", &m);
            return 1;
        }
    };
    for warning in &parser.warnings {
        err(io, "find", warning);
    }
    let expr = if parser.has_action { expr } else { Expr::And(Box::new(expr), Box::new(Expr::Print)) };
    let (mindepth, maxdepth, depth_first) = (parser.mindepth, parser.maxdepth, parser.depth_first);
    let mut w = Walk {
        ctx: ctx.clone(),
        expr,
        mindepth,
        maxdepth,
        depth_first,
        quit: false,
        status: 0,
        stdout: Vec::new(),
        stderr: Vec::new(),
    };
    for op in &operands {
        if w.quit {
            break;
        }
        if op.is_empty() {
            w.error("‘’: No such file or directory");
            continue;
        }
        let real = ctx.real(op);
        match fs::symlink_metadata(&real) {
            Ok(m) => {
                if op.ends_with('/') && !m.is_dir() {
                    w.error(&format!("‘{op}’: Not a directory"));
                    continue;
                }
                w.walk(op, op, &real, Kind::from(m.file_type()), Some(m), 0);
            }
            Err(e) => w.error(&format!("‘{op}’: {}", io_msg(&e))),
        }
    }
    io.stdout.extend_from_slice(&w.stdout);
    io.stderr.extend_from_slice(&w.stderr);
    w.status
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(dir: &Path, args: &[&str]) -> (String, i32) {
        let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
        let mut io = Io {
            stdin: b"",
            stdout: &mut stdout,
            stderr: &mut stderr,
            stdout_limit: reviewhost_tool::NO_LIMIT,
            unnamed_file: None,
        };
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        let status = find(&args, &Ctx::new(dir), &mut io);
        (String::from_utf8_lossy(&stdout).into_owned(), status)
    }

    /// `%f` and `%h` of an operand with trailing slashes, `-iname` with a class, and a
    /// leading `)` as a file name, as GNU find 4.9 prints them.
    #[test]
    fn operands_and_names_as_gnu() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("a/b")).unwrap();
        std::fs::write(dir.path().join("a/lib.RS"), "").unwrap();
        let (out, _) = run(dir.path(), &["a/", "a//", "./a/b/", "./", "-maxdepth", "0", "-printf", "%f|%h\\n"]);
        assert_eq!(out, "a/|a\na/|a/\nb/|./a\n./|.\n");
        assert_eq!(run(dir.path(), &["a", "-iname", "*[[:upper:]]*"]).0, "a/lib.RS\n");
        assert_eq!(run(dir.path(), &["a", "-iname", "[[:lower:]]*.rs"]).0, "a/lib.RS\n");
        assert_eq!(run(dir.path(), &["a", "-iname", "[[:upper:]]*"]).0, "");
        assert_eq!(run(dir.path(), &["a/b", ")", "-print"]), ("a/b\n".to_string(), 1));
    }

    /// Issue 15 item 8: a name that is not UTF-8 was skipped with exit 1 and nothing on
    /// stderr, so `find . -name '*.pem'` under `grep_not_match` passed while
    /// `keys/prod\xff.pem` existed. It is an error naming the directory, as in ls and grep.
    #[test]
    fn find_reports_a_name_that_is_not_utf8() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("keys")).unwrap();
        let name: &std::ffi::OsStr = std::os::unix::ffi::OsStrExt::from_bytes(b"prod\xff.pem");
        std::fs::write(dir.path().join("keys").join(name), "secret").unwrap();
        std::fs::write(dir.path().join("keys/readme.txt"), "").unwrap();
        let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
        let mut io = Io {
            stdin: b"",
            stdout: &mut stdout,
            stderr: &mut stderr,
            stdout_limit: reviewhost_tool::NO_LIMIT,
            unnamed_file: None,
        };
        let args: Vec<String> = [".", "-name", "*.pem"].map(String::from).to_vec();
        let status = find(&args, &Ctx::new(dir.path()), &mut io);
        let stderr = String::from_utf8_lossy(&stderr);
        assert_eq!(status, 1, "{stderr}");
        assert!(stdout.is_empty());
        assert!(
            stderr.starts_with("find: ‘./keys’: ")
                && stderr.contains("Invalid or incomplete multibyte or wide character"),
            "{stderr}"
        );
    }
}
