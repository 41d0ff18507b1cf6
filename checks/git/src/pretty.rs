//! How `log` and `show` print a commit: git's formats (`medium`, `oneline`, `short`,
//! `full`, `fuller`, `raw`, `format:`/`tformat:` placeholders), dates, and ref names
//! (`--decorate`, `%d`, `%D`).

use crate::Error;
use crate::diff::Abbrev;
use crate::log::Sink;
use crate::repo::{Commit, Repo, Signature};
use gix::ObjectId;
use std::collections::HashMap;
use std::fmt::Write as _;

/// How commits are printed.
#[derive(Debug, Clone)]
pub enum Format {
    Medium,
    Short,
    Full,
    Fuller,
    Raw,
    Oneline,
    /// A user format; `terminator` is tformat's newline after every entry (format: puts
    /// it between entries).
    User {
        template: String,
        terminator: bool,
    },
}

/// Date formats of `--date`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DateFormat {
    Default,
    Iso,
    IsoStrict,
    Rfc,
    Short,
    Unix,
    Raw,
}

impl DateFormat {
    pub fn parse(s: &str) -> Result<DateFormat, Error> {
        Ok(match s {
            "default" => DateFormat::Default,
            "iso" | "iso8601" => DateFormat::Iso,
            "iso-strict" | "iso8601-strict" => DateFormat::IsoStrict,
            "rfc" | "rfc2822" => DateFormat::Rfc,
            "short" => DateFormat::Short,
            "unix" => DateFormat::Unix,
            "raw" => DateFormat::Raw,
            other => return Err(Error::Unsupported(format!("--date={other}"))),
        })
    }
}

/// A `--format`/`--pretty` value.
pub fn parse_format(v: &str) -> Result<Format, Error> {
    Ok(match v {
        "" | "medium" => Format::Medium,
        "short" => Format::Short,
        "full" => Format::Full,
        "fuller" => Format::Fuller,
        "raw" => Format::Raw,
        "email" | "mboxrd" | "reference" => {
            return Err(Error::Unsupported(format!("--pretty={v}")));
        }
        "oneline" => Format::Oneline,
        _ => {
            if let Some(t) = v.strip_prefix("format:") {
                Format::User { template: t.to_string(), terminator: false }
            } else if let Some(t) = v.strip_prefix("tformat:") {
                Format::User { template: t.to_string(), terminator: true }
            } else if v.contains('%') {
                Format::User { template: v.to_string(), terminator: true }
            } else {
                return Err(Error::Fatal(format!("invalid --pretty format: {v}")));
            }
        }
    })
}
/// Which ref names are printed next to commits (`--decorate`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decorate {
    No,
    Short,
    Full,
}

/// What decides how one commit is printed.
pub struct Pretty {
    pub format: Format,
    pub date: DateFormat,
    pub abbrev_commit: bool,
    /// `--abbrev-commit` itself, not implied by `--oneline`: only it abbreviates `raw`.
    pub abbrev_commit_given: bool,
    /// `--abbrev=N`/`--no-abbrev`: ids in the header and in placeholders.
    pub abbrev: Abbrev,
    pub decorate: Decorate,
    /// The ref names of commits, loaded when `--decorate`, `%d` or `%D` needs them.
    pub names: Option<Decorations>,
}

impl Pretty {
    fn id(&self, repo: &Repo, id: ObjectId) -> String {
        repo.abbrev_as(id, self.abbrev)
    }
}

/// The refs pointing at each object, as git's `load_ref_decorations` gathers them
/// (branches, remote branches, tags, peeled to the commit too; `HEAD`).
pub struct Decorations {
    by_id: HashMap<ObjectId, Vec<String>>,
    head: Option<(ObjectId, Option<String>)>,
}

impl Decorations {
    pub fn load(repo: &Repo) -> Decorations {
        let mut by_id: HashMap<ObjectId, Vec<String>> = HashMap::new();
        for (name, id) in repo.refs.all() {
            if !["refs/heads/", "refs/remotes/", "refs/tags/", "refs/stash"].iter().any(|p| name.starts_with(p)) {
                continue;
            }
            by_id.entry(id).or_default().push(name.clone());
            // An annotated tag decorates the commit it names as well.
            if let Some(peeled) = crate::revs::resolve(repo, &format!("{name}^{{}}")).filter(|p| *p != id) {
                by_id.entry(peeled).or_default().push(name);
            }
        }
        let head = repo.head_id().map(|id| (id, repo.refs.head_name()));
        Decorations { by_id, head }
    }

    /// The names of `id` as git lists them: `HEAD` (with `-> branch` when HEAD is
    /// that branch) first, then the rest in reverse name order (git prepends each
    /// ref as it reads them in order).
    pub fn names(&self, id: ObjectId, full: bool) -> Vec<String> {
        let show = |n: &str| -> String {
            let tag = n.starts_with("refs/tags/");
            let n = if full { n } else { crate::refs::shorten(n) };
            if tag { format!("tag: {n}") } else { n.to_string() }
        };
        let mut out = Vec::new();
        let mut current = None;
        if let Some((head, branch)) = &self.head
            && *head == id
        {
            match branch.as_ref().filter(|b| self.by_id.get(&id).is_some_and(|v| v.contains(b))) {
                Some(b) => {
                    out.push(format!("HEAD -> {}", show(b)));
                    current = Some(b.clone());
                }
                None => out.push("HEAD".into()),
            }
        }
        if let Some(refs) = self.by_id.get(&id) {
            for r in refs.iter().rev() {
                if Some(r) != current.as_ref() {
                    out.push(show(r));
                }
            }
        }
        out
    }
}

/// The subject (first paragraph, lines joined by spaces) and the body (the rest, from
/// its first non-blank line).
pub fn subject_body(message: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let lines: Vec<&[u8]> = message.split(|b| *b == b'\n').collect();
    let mut i = 0;
    while i < lines.len() && is_blank(lines[i]) {
        i += 1;
    }
    let mut subject = Vec::new();
    while i < lines.len() && !is_blank(lines[i]) {
        if !subject.is_empty() {
            subject.push(b' ');
        }
        subject.extend_from_slice(trim_end(lines[i]));
        i += 1;
    }
    while i < lines.len() && is_blank(lines[i]) {
        i += 1;
    }
    let body = if i < lines.len() { lines[i..].join(&b'\n') } else { Vec::new() };
    (subject, body)
}

fn is_blank(l: &[u8]) -> bool {
    l.iter().all(|b| b.is_ascii_whitespace())
}

fn trim_end(l: &[u8]) -> &[u8] {
    let mut l = l;
    while let Some((last, rest)) = l.split_last() {
        if last.is_ascii_whitespace() {
            l = rest;
        } else {
            break;
        }
    }
    l
}

pub fn format_commit(repo: &Repo, o: &Pretty, c: &Commit) -> Result<Vec<u8>, Error> {
    let mut s = Vec::new();
    let id = if o.abbrev_commit { o.id(repo, c.id) } else { c.id.to_string() };
    let decoration = match (&o.names, o.decorate) {
        (Some(names), Decorate::Short | Decorate::Full) => {
            let list = names.names(c.id, o.decorate == Decorate::Full);
            if list.is_empty() { String::new() } else { format!(" ({})", list.join(", ")) }
        }
        _ => String::new(),
    };
    let (subject, _) = subject_body(&c.message);
    match &o.format {
        Format::Oneline => {
            s.extend_from_slice(id.as_bytes());
            s.extend_from_slice(decoration.as_bytes());
            s.push(b' ');
            s.extend_from_slice(&subject);
            s.push(b'\n');
        }
        Format::User { template, terminator } => {
            expand(repo, o, c, template, &mut s)?;
            // An empty format prints nothing, not even the newline.
            if *terminator && !template.is_empty() {
                s.push(b'\n');
            }
        }
        Format::Raw => {
            // `raw` abbreviates only for `--abbrev-commit` itself, not `--oneline`'s.
            let id = if o.abbrev_commit && o.abbrev_commit_given { id } else { c.id.to_string() };
            let _ = writeln!(Sink(&mut s), "commit {id}{decoration}");
            let _ = writeln!(Sink(&mut s), "tree {}", c.tree);
            for parent in &c.parents {
                let _ = writeln!(Sink(&mut s), "parent {parent}");
            }
            for (what, sig) in [("author", &c.author), ("committer", &c.committer)] {
                let _ = write!(Sink(&mut s), "{what} ");
                person(sig, &mut s);
                let _ = writeln!(Sink(&mut s), " {}", date(sig, DateFormat::Raw));
            }
            s.push(b'\n');
            message_lines(&c.message, false, &mut s);
        }
        Format::Medium | Format::Short | Format::Full | Format::Fuller => {
            let _ = writeln!(Sink(&mut s), "commit {id}{decoration}");
            if c.parents.len() > 1 {
                let parents: Vec<String> = c.parents.iter().map(|p| o.id(repo, *p)).collect();
                let _ = writeln!(Sink(&mut s), "Merge: {}", parents.join(" "));
            }
            s.extend_from_slice(if matches!(o.format, Format::Fuller) { b"Author:     " } else { b"Author: " });
            person(&c.author, &mut s);
            s.push(b'\n');
            match o.format {
                Format::Fuller => {
                    let _ = writeln!(Sink(&mut s), "AuthorDate: {}", date(&c.author, o.date));
                    s.extend_from_slice(b"Commit:     ");
                    person(&c.committer, &mut s);
                    let _ = writeln!(Sink(&mut s), "\nCommitDate: {}", date(&c.committer, o.date));
                }
                Format::Medium => {
                    let _ = writeln!(Sink(&mut s), "Date:   {}", date(&c.author, o.date));
                }
                Format::Full => {
                    s.extend_from_slice(b"Commit: ");
                    person(&c.committer, &mut s);
                    s.push(b'\n');
                }
                _ => {}
            }
            s.push(b'\n');
            message_lines(&c.message, matches!(o.format, Format::Short), &mut s);
        }
    }
    Ok(s)
}

/// The message indented by four spaces, blank lines around it dropped; only the first
/// paragraph for `short`.
fn message_lines(message: &[u8], first_paragraph: bool, s: &mut Vec<u8>) {
    let lines: Vec<&[u8]> = message.split(|b| *b == b'\n').collect();
    let start = lines.iter().position(|l| !is_blank(l)).unwrap_or(lines.len());
    let end = lines.iter().rposition(|l| !is_blank(l)).map_or(start, |e| e + 1);
    let shown = if first_paragraph {
        let para_end = lines[start..end].iter().position(|l| is_blank(l)).map_or(end, |p| start + p);
        &lines[start..para_end]
    } else {
        &lines[start..end]
    };
    for l in shown {
        s.extend_from_slice(b"    ");
        s.extend_from_slice(l);
        s.push(b'\n');
    }
}

fn person(sig: &Signature, s: &mut Vec<u8>) {
    s.extend_from_slice(&sig.name);
    s.extend_from_slice(b" <");
    s.extend_from_slice(&sig.email);
    s.push(b'>');
}

/// Expands the placeholders of a user format.
fn expand(repo: &Repo, o: &Pretty, c: &Commit, template: &str, s: &mut Vec<u8>) -> Result<(), Error> {
    let t = template.as_bytes();
    let mut i = 0;
    while i < t.len() {
        if t[i] != b'%' {
            s.push(t[i]);
            i += 1;
            continue;
        }
        let rest = &t[i + 1..];
        let (used, done) = placeholder(repo, o, c, rest, s)?;
        if !done {
            // An unknown placeholder is printed as it is, as git does.
            s.push(b'%');
            i += 1;
        } else {
            i += 1 + used;
        }
    }
    Ok(())
}

/// Expands the placeholder at the start of `p` (after `%`): how many bytes it used and
/// whether it was known.
fn placeholder(repo: &Repo, o: &Pretty, c: &Commit, p: &[u8], s: &mut Vec<u8>) -> Result<(usize, bool), Error> {
    let Some(&first) = p.first() else { return Ok((0, false)) };
    let (subject, body) = subject_body(&c.message);
    let mut push = |v: &[u8]| s.extend_from_slice(v);
    match first {
        b'H' => push(c.id.to_string().as_bytes()),
        b'h' => push(o.id(repo, c.id).as_bytes()),
        b'T' => push(c.tree.to_string().as_bytes()),
        b't' => push(o.id(repo, c.tree).as_bytes()),
        b'P' => push(c.parents.iter().map(|p| p.to_string()).collect::<Vec<_>>().join(" ").as_bytes()),
        b'p' => push(c.parents.iter().map(|p| o.id(repo, *p)).collect::<Vec<_>>().join(" ").as_bytes()),
        b's' => push(&subject),
        b'f' => push(sanitize(&subject).as_bytes()),
        b'b' => push(&body),
        b'B' => push(&c.message),
        b'n' => push(b"\n"),
        b'%' => push(b"%"),
        b'x' => {
            let hex =
                p.get(1..3).and_then(|h| std::str::from_utf8(h).ok()).and_then(|h| u8::from_str_radix(h, 16).ok());
            match hex {
                Some(b) => {
                    push(&[b]);
                    return Ok((3, true));
                }
                None => return Ok((0, false)),
            }
        }
        b'a' | b'c' => {
            let sig = if first == b'a' { &c.author } else { &c.committer };
            let Some(&what) = p.get(1) else { return Ok((0, false)) };
            let text: Vec<u8> = match what {
                b'n' | b'N' => sig.name.clone(),
                b'e' | b'E' => sig.email.clone(),
                b'l' | b'L' => sig.email.split(|b| *b == b'@').next().unwrap_or_default().to_vec(),
                b'd' => date(sig, o.date).into_bytes(),
                b'D' => date(sig, DateFormat::Rfc).into_bytes(),
                b'i' => date(sig, DateFormat::Iso).into_bytes(),
                b'I' => date(sig, DateFormat::IsoStrict).into_bytes(),
                b't' => sig.time.to_string().into_bytes(),
                b's' => date(sig, DateFormat::Short).into_bytes(),
                b'r' => return Err(Error::Unsupported("relative dates (%ar, %cr): they depend on the clock".into())),
                _ => return Ok((0, false)),
            };
            push(&text);
            return Ok((2, true));
        }
        b'd' | b'D' => {
            let list = o.names.as_ref().map(|n| n.names(c.id, o.decorate == Decorate::Full)).unwrap_or_default();
            if first == b'D' {
                push(list.join(", ").as_bytes());
            } else if !list.is_empty() {
                push(format!(" ({})", list.join(", ")).as_bytes());
            }
        }
        b'C' => return Err(Error::Unsupported("colours (%C)".into())),
        b'G' => return Err(Error::Unsupported("signatures (%G)".into())),
        b'<' | b'>' | b'w' => return Err(Error::Unsupported("column formatting (%<, %>, %w)".into())),
        _ => return Ok((0, false)),
    }
    Ok((1, true))
}

/// `%f`: the subject made a file name.
fn sanitize(subject: &[u8]) -> String {
    let mut out = String::new();
    let mut dash = false;
    for &b in subject {
        if b.is_ascii_alphanumeric() || b == b'.' || b == b'_' {
            if dash && !out.is_empty() {
                out.push('-');
            }
            dash = false;
            out.push(b as char);
        } else {
            dash = true;
        }
    }
    while out.starts_with('.') {
        out.remove(0);
    }
    while out.ends_with('.') {
        out.pop();
    }
    out
}

const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/// A date in the signature's own zone, in one of git's formats.
pub fn date(sig: &Signature, fmt: DateFormat) -> String {
    let local = sig.time + sig.offset_seconds();
    let days = local.div_euclid(86400);
    let secs = local.rem_euclid(86400);
    let (y, m, d) = civil(days);
    let (hh, mm, ss) = (secs / 3600, secs / 60 % 60, secs % 60);
    let weekday = DAYS[days.rem_euclid(7) as usize];
    let month = MONTHS[(m - 1) as usize];
    let tz = &sig.tz;
    match fmt {
        DateFormat::Default => format!("{weekday} {month} {d} {hh:02}:{mm:02}:{ss:02} {y} {tz}"),
        DateFormat::Rfc => format!("{weekday}, {d} {month} {y} {hh:02}:{mm:02}:{ss:02} {tz}"),
        DateFormat::Iso => format!("{y}-{m:02}-{d:02} {hh:02}:{mm:02}:{ss:02} {tz}"),
        DateFormat::IsoStrict => {
            let zone = if sig.offset_seconds() == 0 {
                "Z".to_string()
            } else {
                format!("{}:{}", &tz[..3.min(tz.len())], tz.get(3..).unwrap_or("00"))
            };
            format!("{y}-{m:02}-{d:02}T{hh:02}:{mm:02}:{ss:02}{zone}")
        }
        DateFormat::Short => format!("{y}-{m:02}-{d:02}"),
        DateFormat::Unix => sig.time.to_string(),
        DateFormat::Raw => format!("{} {tz}", sig.time),
    }
}

/// Days since 1970-01-01 to (year, month, day), Howard Hinnant's algorithm.
fn civil(days: i64) -> (i64, i64, i64) {
    let z = days + 719468;
    let era = z.div_euclid(146097);
    let doe = z.rem_euclid(146097);
    let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (if m <= 2 { y + 1 } else { y }, m, d)
}
