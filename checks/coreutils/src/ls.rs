//! `ls`, following GNU coreutils 9.x with stdout not a terminal (one name per line, no
//! quoting, byte-order sorting as in C.UTF-8).
//!
//! Names are printed as they are (`-N`, GNU's choice when stdout is not a terminal);
//! `-q` shows control characters as `?` and `-b` escapes them C-style. `-m` joins names
//! with commas in lines of at most 80 columns, `-X` sorts by extension, `-Z` prints `?`
//! for the security context (the sandbox sees none), `-k` changes nothing GNU would print
//! here.
//!
//! Left out on purpose: `ls -l` prints a simplified long format (numeric owner and group,
//! an ISO `YYYY-MM-DD HH:MM` UTC date instead of GNU's locale date, no ACL marker),
//! column output (`-C`, `-x`: never chosen when stdout is not a terminal), colours.

use std::fs::{self, Metadata};
use std::path::Path;
use std::time::UNIX_EPOCH;

use reviewhost_tool::getopt::{HasArg, Long, Spec};
use reviewhost_tool::{Ctx, EXIT_TROUBLE, Io, Kind};

use crate::common::{err, io_msg, parse_opts, usage};

/// `ls` exit status for a minor problem (an unreadable subdirectory during `-R`).
const LS_MINOR: i32 = 1;

/// `dir` joined with `name` the way GNU's file_name_concat does for `ls -R` headers.
fn ls_join(dir: &str, name: &str) -> String {
    let trimmed = dir.trim_end_matches('/');
    if trimmed.is_empty() && dir.starts_with('/') { format!("/{name}") } else { format!("{trimmed}/{name}") }
}

#[derive(Clone, Copy, PartialEq)]
enum LsSort {
    Name,
    None,
    Time,
    Size,
    Extension,
}

/// How a name is shown: `-N` (as is), `-q` (control characters as `?`), `-b` (C escapes).
#[derive(Clone, Copy, PartialEq)]
enum Quoting {
    Literal,
    Hide,
    Escape,
}

struct LsOpts {
    all: bool,
    almost_all: bool,
    long: bool,
    recursive: bool,
    dirs_as_files: bool,
    reverse: bool,
    classify: bool,
    slash: bool,
    sort: LsSort,
    quoting: Quoting,
    /// `-m`: names separated by `, ` instead of one per line.
    commas: bool,
    /// `-Z`: each name preceded by its security context.
    context: bool,
    group_directories_first: bool,
}

/// One entry to print: the name shown, its kind, and metadata (lstat, or stat for
/// followed operands) when the options print or sort by more than names and kinds.
struct Entry {
    name: String,
    kind: Kind,
    meta: Option<Metadata>,
    real: std::path::PathBuf,
}

impl LsOpts {
    /// Whether entries need their metadata: without it a listing costs no `stat` per
    /// entry (the kind comes from the directory).
    fn needs_meta(&self) -> bool {
        self.long || self.classify || matches!(self.sort, LsSort::Time | LsSort::Size)
    }
}

/// Private option code of `--group-directories-first`, which has no letter.
const GROUP_DIRECTORIES_FIRST: char = '\u{1}';

/// `ls [-aAdlrRFp1tSUXmbqNkZ] [FILE...]`.
pub fn ls(args: &[String], ctx: &Ctx, io: &mut Io) -> i32 {
    const SPEC: Spec = Spec::gnu(
        "aAdlrRFp1tSUhCXmbqNkZ",
        &[
            Long::short("all", 'a', HasArg::No),
            Long::short("almost-all", 'A', HasArg::No),
            Long::short("directory", 'd', HasArg::No),
            Long::short("recursive", 'R', HasArg::No),
            Long::short("reverse", 'r', HasArg::No),
            Long::short("classify", 'F', HasArg::No),
            Long::short("human-readable", 'h', HasArg::No),
            Long::short("escape", 'b', HasArg::No),
            Long::short("hide-control-chars", 'q', HasArg::No),
            Long::short("literal", 'N', HasArg::No),
            Long::short("kibibytes", 'k', HasArg::No),
            Long::short("context", 'Z', HasArg::No),
            Long::short("group-directories-first", GROUP_DIRECTORIES_FIRST, HasArg::No),
        ],
    );
    let p = match parse_opts("ls", args, &SPEC) {
        Ok(p) => p,
        Err(m) => return usage(io, &m, EXIT_TROUBLE),
    };
    let mut o = LsOpts {
        all: false,
        almost_all: false,
        long: false,
        recursive: false,
        dirs_as_files: false,
        reverse: false,
        classify: false,
        slash: false,
        sort: LsSort::Name,
        quoting: Quoting::Literal,
        commas: false,
        context: false,
        group_directories_first: false,
    };
    for (c, _) in &p.opts {
        match *c {
            'a' => (o.all, o.almost_all) = (true, false),
            'A' => (o.almost_all, o.all) = (true, false),
            'd' => o.dirs_as_files = true,
            'l' => o.long = true,
            'r' => o.reverse = true,
            'R' => o.recursive = true,
            'F' => o.classify = true,
            'p' => o.slash = true,
            't' => o.sort = LsSort::Time,
            'S' => o.sort = LsSort::Size,
            'U' => o.sort = LsSort::None,
            'X' => o.sort = LsSort::Extension,
            'm' => o.commas = true,
            '1' => o.commas = false,
            'b' => o.quoting = Quoting::Escape,
            'q' => o.quoting = Quoting::Hide,
            'N' => o.quoting = Quoting::Literal,
            'Z' => o.context = true,
            GROUP_DIRECTORIES_FIRST => o.group_directories_first = true,
            'C' => {
                err(io, "ls", "column output is not supported in the sandbox");
                return EXIT_TROUBLE;
            }
            _ => {}
        }
    }
    let n_operands = p.operands.len();
    let operands = if p.operands.is_empty() { vec![".".to_string()] } else { p.operands };
    // Symlink operands are followed unless -d, -F or -l (GNU's default dereferencing).
    let follow_operands = !(o.dirs_as_files || o.classify || o.long);
    let mut status = 0;
    let mut files = Vec::new();
    let mut dirs = Vec::new();
    for name in &operands {
        let real = ctx.real(name);
        let lmeta = fs::symlink_metadata(&real);
        let meta = match lmeta {
            Ok(m) if m.file_type().is_symlink() && follow_operands => fs::metadata(&real).or(Ok(m)),
            other => other,
        };
        match meta {
            Err(e) => {
                err(io, "ls", &format!("cannot access '{name}': {}", io_msg(&e)));
                status = EXIT_TROUBLE;
            }
            Ok(m) => {
                let e = Entry { name: name.clone(), kind: Kind::from(m.file_type()), meta: Some(m), real };
                if !o.dirs_as_files && e.kind == Kind::Dir {
                    dirs.push(e);
                } else {
                    files.push(e);
                }
            }
        }
    }
    sort_entries(&mut files, &o);
    sort_entries(&mut dirs, &o);
    let mut print_dir_name = true;
    if !files.is_empty() {
        print_entries(&files, &o, false, io.stdout);
        if !dirs.is_empty() {
            io.stdout.push(b'\n');
        }
    } else if n_operands <= 1 && dirs.len() == 1 {
        print_dir_name = false;
    }
    let mut first = true;
    for d in dirs {
        let s = list_dir(ctx, &d.name, &d.real, &o, print_dir_name, &mut first, true, io);
        status = status.max(s);
    }
    status
}

fn sort_entries(v: &mut [Entry], o: &LsOpts) {
    let mtime = |e: &Entry| e.meta.as_ref().and_then(|m| m.modified().ok()).unwrap_or(UNIX_EPOCH);
    let size = |e: &Entry| e.meta.as_ref().map_or(0, Metadata::len);
    match o.sort {
        LsSort::None => return,
        LsSort::Name => v.sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes())),
        LsSort::Time => {
            v.sort_by(|a, b| mtime(b).cmp(&mtime(a)).then_with(|| a.name.as_bytes().cmp(b.name.as_bytes())))
        }
        LsSort::Size => v.sort_by(|a, b| size(b).cmp(&size(a)).then_with(|| a.name.as_bytes().cmp(b.name.as_bytes()))),
        LsSort::Extension => v.sort_by(|a, b| {
            extension(&a.name).cmp(extension(&b.name)).then_with(|| a.name.as_bytes().cmp(b.name.as_bytes()))
        }),
    }
    if o.reverse {
        v.reverse();
    }
    if o.group_directories_first {
        // Stable: each group keeps the order just made.
        v.sort_by_key(|e| e.kind != Kind::Dir);
    }
}

/// What `-X` sorts by: the bytes after the last `.` (none for a name without one).
fn extension(name: &str) -> &[u8] {
    name.rfind('.').map_or(b"", |i| &name.as_bytes()[i + 1..])
}

/// List one directory (and, with -R, its subdirectories depth-first). Returns the status.
#[expect(clippy::too_many_arguments, reason = "the listing state of one ls invocation, threaded through its recursion")]
fn list_dir(
    ctx: &Ctx,
    shown: &str,
    real: &Path,
    o: &LsOpts,
    print_name: bool,
    first: &mut bool,
    operand: bool,
    io: &mut Io,
) -> i32 {
    let listing = match ctx.read_dir(real) {
        Ok(listing) => listing,
        Err(e) => {
            err(io, "ls", &format!("cannot open directory '{shown}': {}", io_msg(&e)));
            return if operand { EXIT_TROUBLE } else { LS_MINOR };
        }
    };
    let mut status = 0;
    let mut entries = Vec::new();
    if o.all {
        for dot in [".", ".."] {
            let meta = fs::metadata(real.join(dot)).ok();
            entries.push(Entry { name: dot.into(), kind: Kind::Dir, meta, real: real.join(dot) });
        }
    }
    for entry in listing {
        let entry = match entry {
            Ok(entry) => entry,
            Err(e) => {
                err(io, "ls", &format!("reading directory '{shown}': {}", io_msg(&e)));
                status = LS_MINOR;
                continue;
            }
        };
        if entry.name.starts_with('.') && !(o.all || o.almost_all) {
            continue;
        }
        let path = real.join(&entry.name);
        let meta = if o.needs_meta() { fs::symlink_metadata(&path).ok() } else { None };
        entries.push(Entry { name: entry.name, kind: entry.kind, meta, real: path });
    }
    sort_entries(&mut entries, o);
    if o.recursive || print_name {
        if !*first {
            io.stdout.push(b'\n');
        }
        io.stdout.extend_from_slice(format!("{shown}:\n").as_bytes());
    }
    *first = false;
    print_entries(&entries, o, true, io.stdout);
    if o.recursive {
        for e in &entries {
            if e.name == "." || e.name == ".." {
                continue;
            }
            if e.kind == Kind::Dir {
                let child = if shown == "." { format!("./{}", e.name) } else { ls_join(shown, &e.name) };
                let s = list_dir(ctx, &child, &e.real, o, true, first, false, io);
                status = status.max(s);
            }
        }
    }
    status
}

/// The `-F`/`-p` indicator of an entry.
fn indicator(e: &Entry, o: &LsOpts) -> &'static str {
    if e.kind == Kind::Dir {
        return if o.classify || o.slash { "/" } else { "" };
    }
    // Only `-F` says more than `/`, and it fetches the metadata.
    let (true, Some(m)) = (o.classify, &e.meta) else { return "" };
    let ft = m.file_type();
    if ft.is_symlink() {
        return "@";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::{FileTypeExt, PermissionsExt};
        if ft.is_fifo() {
            return "|";
        }
        if ft.is_socket() {
            return "=";
        }
        if ft.is_file() && m.permissions().mode() & 0o111 != 0 {
            return "*";
        }
    }
    ""
}

fn print_entries(entries: &[Entry], o: &LsOpts, in_dir: bool, out: &mut Vec<u8>) {
    if o.long {
        print_long(entries, o, in_dir, out);
        return;
    }
    let shown: Vec<String> = entries
        .iter()
        .map(|e| {
            let context = if o.context { "? " } else { "" };
            format!("{context}{}{}", quoted(&e.name, o.quoting), indicator(e, o))
        })
        .collect();
    if !o.commas {
        for name in shown {
            out.extend_from_slice(name.as_bytes());
            out.push(b'\n');
        }
        return;
    }
    // GNU's print_with_separator with its default line length of 80 columns.
    const LINE_LENGTH: usize = 80;
    let mut pos = 0;
    for (i, name) in shown.iter().enumerate() {
        let len = name.chars().count();
        if i != 0 {
            out.push(b',');
            if pos + len + 2 < LINE_LENGTH {
                pos += 2;
                out.push(b' ');
            } else {
                pos = 0;
                out.push(b'\n');
            }
        }
        out.extend_from_slice(name.as_bytes());
        pos += len;
    }
    if !shown.is_empty() {
        out.push(b'\n');
    }
}

/// `name` as `-N`, `-q` or `-b` show it.
fn quoted(name: &str, quoting: Quoting) -> std::borrow::Cow<'_, str> {
    match quoting {
        Quoting::Literal => name.into(),
        Quoting::Hide => name.chars().map(|c| if c.is_control() { '?' } else { c }).collect::<String>().into(),
        Quoting::Escape => {
            let mut s = String::with_capacity(name.len());
            for c in name.chars() {
                match c {
                    ' ' => s.push_str("\\ "),
                    '\\' => s.push_str("\\\\"),
                    '\n' => s.push_str("\\n"),
                    '\t' => s.push_str("\\t"),
                    '\r' => s.push_str("\\r"),
                    '\x07' => s.push_str("\\a"),
                    '\x08' => s.push_str("\\b"),
                    '\x0b' => s.push_str("\\v"),
                    '\x0c' => s.push_str("\\f"),
                    c if c.is_control() => {
                        for b in c.to_string().bytes() {
                            s.push_str(&format!("\\{b:03o}"));
                        }
                    }
                    c => s.push(c),
                }
            }
            s.into()
        }
    }
}

/// The simplified long format (see the module note for how it differs from GNU).
fn print_long(entries: &[Entry], o: &LsOpts, in_dir: bool, out: &mut Vec<u8>) {
    let rows: Vec<(String, u64, String, u64, String)> = entries
        .iter()
        .map(|e| {
            let (mode, nlink, owner) = match &e.meta {
                Some(m) => (mode_string(m), nlink(m), owner(m)),
                None => ("?????????? ".into(), 0, "? ?".into()),
            };
            let size = e.meta.as_ref().map_or(0, Metadata::len);
            let date = e.meta.as_ref().and_then(|m| m.modified().ok()).map_or_else(|| "?".into(), format_time);
            (mode, nlink, owner, size, date)
        })
        .collect();
    if in_dir {
        let blocks: u64 = entries.iter().filter_map(|e| e.meta.as_ref()).map(blocks_1k).sum();
        out.extend_from_slice(format!("total {blocks}\n").as_bytes());
    }
    let wl = rows.iter().map(|r| r.1.to_string().len()).max().unwrap_or(1);
    let ws = rows.iter().map(|r| r.3.to_string().len()).max().unwrap_or(1);
    for (e, (mode, nl, owner, size, date)) in entries.iter().zip(rows) {
        let mut line = format!("{mode} {nl:>wl$} {owner} {size:>ws$} {date} {}", quoted(&e.name, o.quoting));
        if e.meta.as_ref().is_some_and(|m| m.file_type().is_symlink()) {
            if let Ok(t) = fs::read_link(&e.real) {
                line.push_str(&format!(" -> {}", t.to_string_lossy()));
            }
        } else {
            line.push_str(indicator(e, o));
        }
        line.push('\n');
        out.extend_from_slice(line.as_bytes());
    }
}

fn mode_string(m: &Metadata) -> String {
    let ft = m.file_type();
    let kind = if ft.is_dir() {
        'd'
    } else if ft.is_symlink() {
        'l'
    } else if ft.is_file() {
        '-'
    } else {
        '?'
    };
    #[cfg(unix)]
    let bits = {
        use std::os::unix::fs::PermissionsExt;
        m.permissions().mode()
    };
    #[cfg(not(unix))]
    let bits: u32 = if m.permissions().readonly() { 0o555 } else { 0o755 };
    let mut s = String::from(kind);
    for shift in [6, 3, 0] {
        let b = (bits >> shift) & 7;
        s.push(if b & 4 != 0 { 'r' } else { '-' });
        s.push(if b & 2 != 0 { 'w' } else { '-' });
        s.push(if b & 1 != 0 { 'x' } else { '-' });
    }
    s
}

#[cfg(unix)]
fn nlink(m: &Metadata) -> u64 {
    use std::os::unix::fs::MetadataExt;
    m.nlink()
}

#[cfg(not(unix))]
fn nlink(_m: &Metadata) -> u64 {
    1
}

#[cfg(unix)]
fn owner(m: &Metadata) -> String {
    use std::os::unix::fs::MetadataExt;
    format!("{} {}", m.uid(), m.gid())
}

#[cfg(not(unix))]
fn owner(_m: &Metadata) -> String {
    "- -".into()
}

#[cfg(unix)]
fn blocks_1k(m: &Metadata) -> u64 {
    use std::os::unix::fs::MetadataExt;
    m.blocks() / 2
}

#[cfg(not(unix))]
fn blocks_1k(m: &Metadata) -> u64 {
    m.len().div_ceil(1024)
}

/// `YYYY-MM-DD HH:MM` in UTC (civil-from-days, Howard Hinnant's algorithm).
fn format_time(t: std::time::SystemTime) -> String {
    let secs = t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs()) as i64;
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02} {:02}:{:02}", rem / 3600, rem % 3600 / 60)
}
