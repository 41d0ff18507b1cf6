//! `git log`, `git rev-list` and `git show`: walking commits and printing them in git's
//! formats (`medium`, `oneline`, `short`, `full`, `format:`/`tformat:` placeholders).

use crate::diff::{self, Side};
use crate::pathspec::Pathspec;
use crate::repo::{Commit, Repo, Signature};
use crate::revs::{self, RevSet, Walk};
use crate::{Args, Error};
use gix::ObjectId;
use std::fmt::Write as _;

/// How commits are printed.
#[derive(Debug, Clone)]
pub enum Format {
    Medium,
    Short,
    Full,
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
    fn parse(s: &str) -> Result<DateFormat, Error> {
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
fn parse_format(v: &str) -> Result<Format, Error> {
    Ok(match v {
        "" | "medium" => Format::Medium,
        "short" => Format::Short,
        "full" => Format::Full,
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

/// What `log`, `rev-list` and `show` share: the commits chosen and how they print.
struct LogOptions {
    format: Format,
    date: DateFormat,
    abbrev_commit: bool,
    max_count: Option<usize>,
    skip: usize,
    greps: Vec<String>,
    authors: Vec<String>,
    grep_syntax: GrepSyntax,
    ignore_case: bool,
    invert_grep: bool,
    all_match: bool,
    merges: Option<bool>,
    first_parent: bool,
    reverse: bool,
    all: bool,
    count: bool,
    diff: diff::Options,
    /// `--name-only`/`--stat`/`-p` given (log prints no diff without one).
    diff_given: bool,
    revs: Vec<String>,
    paths: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum GrepSyntax {
    Basic,
    Extended,
    Fixed,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Command {
    Log,
    RevList,
    Show,
}

fn parse(args: &[String], cmd: Command) -> Result<LogOptions, Error> {
    let mut o = LogOptions {
        format: Format::Medium,
        date: DateFormat::Default,
        abbrev_commit: false,
        max_count: None,
        skip: 0,
        greps: Vec::new(),
        authors: Vec::new(),
        grep_syntax: GrepSyntax::Basic,
        ignore_case: false,
        invert_grep: false,
        all_match: false,
        merges: None,
        first_parent: false,
        reverse: false,
        all: false,
        count: false,
        diff: diff::Options { output: diff::Output::Patch, ..Default::default() },
        diff_given: false,
        revs: Vec::new(),
        paths: Vec::new(),
    };
    let name = match cmd {
        Command::Log => "log",
        Command::RevList => "rev-list",
        Command::Show => "show",
    };
    let mut a = Args::new(args);
    while let Some(arg) = a.next() {
        if a.after_dashdash {
            o.paths.push(arg);
            continue;
        }
        if !arg.starts_with('-') || arg == "-" {
            o.revs.push(arg);
            continue;
        }
        if let Some(n) = arg.strip_prefix('-').filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())) {
            o.max_count = Some(parse_number(n, &arg)?);
            continue;
        }
        if let Some(v) = a.value(&arg, "-n", "--max-count")? {
            o.max_count = Some(parse_number(&v, &arg)?);
        } else if let Some(v) = a.value_only_eq(&arg, "--skip")? {
            o.skip = parse_number(&v, &arg)?;
        } else if let Some(v) = a.value_only_eq(&arg, "--format")? {
            o.format = parse_format(&v)?;
        } else if let Some(v) = a.value_only_eq(&arg, "--pretty")? {
            o.format = parse_format(&v)?;
        } else if arg == "--pretty" {
            o.format = Format::Medium;
        } else if arg == "--oneline" {
            o.format = Format::Oneline;
            o.abbrev_commit = true;
        } else if arg == "--abbrev-commit" {
            o.abbrev_commit = true;
        } else if arg == "--no-abbrev-commit" {
            o.abbrev_commit = false;
        } else if let Some(v) = a.value(&arg, "", "--grep")? {
            o.greps.push(v);
        } else if let Some(v) = a.value(&arg, "", "--author")? {
            o.authors.push(v);
        } else if arg == "-E" || arg == "--extended-regexp" {
            o.grep_syntax = GrepSyntax::Extended;
        } else if arg == "-F" || arg == "--fixed-strings" {
            o.grep_syntax = GrepSyntax::Fixed;
        } else if arg == "-G" || arg == "--basic-regexp" {
            o.grep_syntax = GrepSyntax::Basic;
        } else if arg == "-i" || arg == "--regexp-ignore-case" {
            o.ignore_case = true;
        } else if arg == "--invert-grep" {
            o.invert_grep = true;
        } else if arg == "--all-match" {
            o.all_match = true;
        } else if arg == "--no-merges" {
            o.merges = Some(false);
        } else if arg == "--merges" {
            o.merges = Some(true);
        } else if arg == "--first-parent" {
            o.first_parent = true;
        } else if arg == "--reverse" {
            o.reverse = true;
        } else if arg == "--all" {
            o.all = true;
        } else if arg == "--count" && cmd == Command::RevList {
            o.count = true;
        } else if let Some(v) = a.value_only_eq(&arg, "--date")? {
            o.date = DateFormat::parse(&v)?;
        } else if arg == "--name-only" && cmd != Command::RevList {
            o.diff.output = diff::Output::NameOnly;
            o.diff_given = true;
        } else if arg == "--name-status" && cmd != Command::RevList {
            o.diff.output = diff::Output::NameStatus;
            o.diff_given = true;
        } else if arg == "--stat" && cmd != Command::RevList {
            o.diff.output = diff::Output::Stat;
            o.diff_given = true;
        } else if arg == "--numstat" && cmd != Command::RevList {
            o.diff.output = diff::Output::NumStat;
            o.diff_given = true;
        } else if arg == "--shortstat" && cmd != Command::RevList {
            o.diff.output = diff::Output::ShortStat;
            o.diff_given = true;
        } else if (arg == "-p" || arg == "--patch" || arg == "-u") && cmd != Command::RevList {
            o.diff.output = diff::Output::Patch;
            o.diff_given = true;
        } else if (arg == "-s" || arg == "--no-patch") && cmd != Command::RevList {
            o.diff.output = diff::Output::None;
            o.diff_given = true;
        } else if arg == "--no-renames" {
            o.diff.renames = false;
        } else if matches!(
            arg.as_str(),
            "--no-color"
                | "--color=never"
                | "--no-decorate"
                | "--decorate=no"
                | "--no-ext-diff"
                | "--no-textconv"
                | "--no-mailmap"
        ) {
            // What the sandbox never does anyway: colour, decorations, external tools.
        } else {
            return Err(Error::Unsupported(format!("option '{arg}' of git {name}")));
        }
    }
    Ok(o)
}

fn parse_number(v: &str, arg: &str) -> Result<usize, Error> {
    v.parse().map_err(|_| Error::Fatal(format!("'{v}': not an integer (in '{arg}')")))
}

/// Splits `revs` into revisions and paths the way git does without `--`: a name that is
/// no revision must be an existing path, and then it and the rest are paths.
fn collect_revs(repo: &Repo, o: &mut LogOptions) -> Result<RevSet, Error> {
    let mut set = RevSet::default();
    let names = std::mem::take(&mut o.revs);
    let mut paths = Vec::new();
    for (i, name) in names.iter().enumerate() {
        if !paths.is_empty() {
            paths.push(name.clone());
            continue;
        }
        if set.add(repo, name)? {
            continue;
        }
        if o.paths.is_empty() && repo.may_be_path(name) {
            paths.extend(names[i..].iter().cloned());
            break;
        }
        return Err(revs::unknown_revision(name));
    }
    o.paths.splice(0..0, paths);
    if o.all {
        for (_, id) in repo.refs.all() {
            if let Ok(c) = repo.commit(id) {
                set.include.push(c.id);
            }
        }
        if let Some(id) = repo.head_id() {
            set.include.push(id);
        }
    }
    Ok(set)
}

/// The unborn-branch error git gives for `git log` in an empty repository.
fn no_commits(repo: &Repo) -> Error {
    let branch = repo.refs.head_name().map(|n| crate::refs::shorten(&n).to_string()).unwrap_or_else(|| "HEAD".into());
    Error::Fatal(format!("your current branch '{branch}' does not have any commits yet"))
}

/// Matches the commit message (and author) filters of `--grep` and `--author`.
struct Filter {
    greps: Vec<regex::bytes::Regex>,
    authors: Vec<regex::bytes::Regex>,
    invert: bool,
    all_match: bool,
}

impl Filter {
    fn new(o: &LogOptions) -> Result<Filter, Error> {
        let compile = |p: &String| -> Result<regex::bytes::Regex, Error> {
            let source = match o.grep_syntax {
                GrepSyntax::Fixed => regex::escape(p),
                GrepSyntax::Basic | GrepSyntax::Extended => {
                    let syntax = if o.grep_syntax == GrepSyntax::Basic {
                        reviewhost_grep::translate::Syntax::Basic
                    } else {
                        reviewhost_grep::translate::Syntax::Extended
                    };
                    reviewhost_grep::translate::translate(p, syntax)
                        .map_err(|e| Error::Fatal(format!("command line, '{p}': {}", e.0)))?
                        .regex
                }
            };
            regex::bytes::RegexBuilder::new(&source)
                .case_insensitive(o.ignore_case)
                .size_limit(reviewhost_grep::search::REGEX_SIZE_LIMIT)
                .build()
                .map_err(|e| Error::Fatal(format!("command line, '{p}': {e}")))
        };
        Ok(Filter {
            greps: o.greps.iter().map(compile).collect::<Result<_, _>>()?,
            authors: o.authors.iter().map(compile).collect::<Result<_, _>>()?,
            invert: o.invert_grep,
            all_match: o.all_match,
        })
    }

    fn selects(&self, c: &Commit) -> bool {
        if self.greps.is_empty() && self.authors.is_empty() {
            return true;
        }
        let author = {
            let mut a = c.author.name.clone();
            a.extend_from_slice(b" <");
            a.extend_from_slice(&c.author.email);
            a.push(b'>');
            a
        };
        let line_match = |re: &regex::bytes::Regex| c.message.split(|b| *b == b'\n').any(|l| re.is_match(l));
        let author_ok = self.authors.is_empty() || self.authors.iter().any(|re| re.is_match(&author));
        let grep_ok = if self.greps.is_empty() {
            true
        } else if self.all_match {
            self.greps.iter().all(line_match)
        } else {
            self.greps.iter().any(line_match)
        };
        let grep_ok = if self.invert && !self.greps.is_empty() { !grep_ok } else { grep_ok };
        author_ok && grep_ok
    }
}

/// The commits `o` selects, in output order.
fn select(repo: &Repo, o: &LogOptions, set: &RevSet, pathspec: &Pathspec) -> Result<Vec<std::rc::Rc<Commit>>, Error> {
    let filter = Filter::new(o)?;
    let mut walk = Walk::new(repo, set)?;
    let mut out = Vec::new();
    let mut skipped = 0;
    let first_parent = o.first_parent;
    let mut shown: std::collections::HashMap<ObjectId, bool> = Default::default();
    loop {
        let mut follow = |c: &Commit| -> Result<Vec<ObjectId>, Error> {
            let parents: Vec<ObjectId> =
                if first_parent { c.parents.iter().take(1).copied().collect() } else { c.parents.clone() };
            if pathspec.is_empty() {
                shown.insert(c.id, true);
                return Ok(parents);
            }
            // History simplification: a commit is shown when it changes the paths
            // against every parent; a parent it is the same as (TREESAME) is the only
            // one followed.
            let mine = diff::side_files(repo, Side::Tree(c.tree), pathspec)?;
            if parents.is_empty() {
                shown.insert(c.id, !mine.is_empty());
                return Ok(parents);
            }
            for p in &parents {
                let theirs = diff::side_files(repo, Side::Tree(repo.commit(*p)?.tree), pathspec)?;
                if diff::changes(repo, theirs, mine.clone(), false)?.is_empty() {
                    shown.insert(c.id, false);
                    return Ok(vec![*p]);
                }
            }
            shown.insert(c.id, true);
            Ok(parents)
        };
        let Some(c) = walk.next_with(&mut follow)? else { break };
        if !shown.get(&c.id).copied().unwrap_or(true) {
            continue;
        }
        match o.merges {
            Some(true) if c.parents.len() < 2 => continue,
            Some(false) if c.parents.len() > 1 => continue,
            _ => {}
        }
        if !filter.selects(&c) {
            continue;
        }
        if skipped < o.skip {
            skipped += 1;
            continue;
        }
        if !o.reverse && o.max_count.is_some_and(|n| out.len() >= n) {
            break;
        }
        out.push(c);
    }
    if o.reverse {
        if let Some(n) = o.max_count {
            out.truncate(n);
        }
        out.reverse();
    }
    Ok(out)
}

pub fn log(args: &[String], repo: &Repo, out: &mut Vec<u8>) -> Result<i32, Error> {
    let mut o = parse(args, Command::Log)?;
    if !o.diff_given {
        o.diff.output = diff::Output::None;
    }
    let mut set = collect_revs(repo, &mut o)?;
    if set.include.is_empty() && !o.all {
        set.include.push(repo.head_id().ok_or_else(|| no_commits(repo))?);
    }
    let pathspec = Pathspec::new(&o.paths, &repo.prefix)?;
    let commits = select(repo, &o, &set, &pathspec)?;
    print_commits(repo, &o, &commits, &pathspec, out)?;
    Ok(0)
}

pub fn rev_list(args: &[String], repo: &Repo, out: &mut Vec<u8>) -> Result<i32, Error> {
    let mut o = parse(args, Command::RevList)?;
    if !matches!(o.format, Format::Medium) {
        return Err(Error::Unsupported("--format/--pretty of git rev-list".into()));
    }
    let set = collect_revs(repo, &mut o)?;
    if set.include.is_empty() && !o.all {
        return Err(Error::Usage("usage: git rev-list [<options>] <commit>... [--] [<path>...]".into()));
    }
    let pathspec = Pathspec::new(&o.paths, &repo.prefix)?;
    let commits = select(repo, &o, &set, &pathspec)?;
    if o.count {
        let _ = writeln!(Sink(out), "{}", commits.len());
    } else {
        for c in commits {
            let _ = writeln!(Sink(out), "{}", c.id);
        }
    }
    Ok(0)
}

pub fn show(args: &[String], repo: &Repo, out: &mut Vec<u8>) -> Result<i32, Error> {
    let mut o = parse(args, Command::Show)?;
    let names = if o.revs.is_empty() { vec!["HEAD".to_string()] } else { std::mem::take(&mut o.revs) };
    let mut first = true;
    for name in names {
        if let Some((rev, path)) = name.split_once(':') {
            // `REV:path`: the blob as it is.
            let rev = if rev.is_empty() { "HEAD" } else { rev };
            let commit = revs::resolve(repo, rev).ok_or_else(|| revs::unknown_revision(&name))?;
            let tree = repo.tree_of(commit)?;
            let path =
                path.strip_prefix("./").map(|p| format!("{}{p}", repo.prefix)).unwrap_or_else(|| path.to_string());
            let entry = repo
                .tree_entry(tree, path.as_bytes())?
                .ok_or_else(|| Error::Fatal(format!("path '{path}' does not exist in '{rev}'")))?;
            if entry.mode == crate::repo::MODE_TREE {
                return Err(Error::Unsupported("git show of a tree".into()));
            }
            let (_, data) = repo.object(entry.id)?;
            out.extend_from_slice(&data);
            continue;
        }
        let id = revs::resolve(repo, &name).ok_or_else(|| revs::unknown_revision(&name))?;
        let (kind, _) = repo.object(id)?;
        if kind == gix::object::Kind::Tag {
            return Err(Error::Unsupported("git show of an annotated tag (its tag header); use TAG^{commit}".into()));
        }
        if kind == gix::object::Kind::Blob {
            let (_, data) = repo.object(id)?;
            out.extend_from_slice(&data);
            continue;
        }
        let commit = repo.commit(id)?;
        if commit.parents.len() > 1 && !matches!(o.diff.output, diff::Output::None) {
            return Err(Error::Unsupported("git show of a merge commit (combined diff); add -s".into()));
        }
        if !first && !matches!(o.format, Format::Oneline | Format::User { .. }) {
            out.push(b'\n');
        }
        first = false;
        show_one(repo, &o, &commit, &Pathspec::new(&o.paths, &repo.prefix)?, out)?;
    }
    Ok(0)
}

fn print_commits(
    repo: &Repo,
    o: &LogOptions,
    commits: &[std::rc::Rc<Commit>],
    pathspec: &Pathspec,
    out: &mut Vec<u8>,
) -> Result<(), Error> {
    for (i, c) in commits.iter().enumerate() {
        if i > 0 {
            match &o.format {
                Format::Oneline | Format::User { terminator: true, .. } => {}
                Format::User { terminator: false, .. } => out.push(b'\n'),
                _ => out.push(b'\n'),
            }
        }
        show_one(repo, o, c, pathspec, out)?;
    }
    Ok(())
}

/// One commit: its header in the chosen format, then its diff against its first parent.
fn show_one(repo: &Repo, o: &LogOptions, c: &Commit, pathspec: &Pathspec, out: &mut Vec<u8>) -> Result<(), Error> {
    let header = format_commit(repo, o, c)?;
    out.extend_from_slice(&header);
    // A merge has no diff in `log` (git needs `-m`, `-c` or `--cc` for one).
    if matches!(o.diff.output, diff::Output::None) || c.parents.len() > 1 {
        return Ok(());
    }
    let old = match c.parents.first() {
        Some(p) => diff::side_files(repo, Side::Tree(repo.commit(*p)?.tree), pathspec)?,
        None => Default::default(),
    };
    let new = diff::side_files(repo, Side::Tree(c.tree), pathspec)?;
    let changes = diff::changes(repo, old, new, o.diff.renames)?;
    let mut body = Vec::new();
    diff::print(repo, &changes, &o.diff, &mut body)?;
    if body.is_empty() {
        return Ok(());
    }
    match &o.format {
        Format::Oneline => {}
        Format::User { terminator: false, .. } => out.extend_from_slice(b"\n\n"),
        _ => out.push(b'\n'),
    }
    out.extend_from_slice(&body);
    Ok(())
}

/// The subject (first paragraph, lines joined by spaces) and the body (the rest, from
/// its first non-blank line).
fn subject_body(message: &[u8]) -> (Vec<u8>, Vec<u8>) {
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

fn format_commit(repo: &Repo, o: &LogOptions, c: &Commit) -> Result<Vec<u8>, Error> {
    let mut s = Vec::new();
    let id = if o.abbrev_commit { repo.abbrev(c.id) } else { c.id.to_string() };
    let (subject, _) = subject_body(&c.message);
    match &o.format {
        Format::Oneline => {
            s.extend_from_slice(id.as_bytes());
            s.push(b' ');
            s.extend_from_slice(&subject);
            s.push(b'\n');
        }
        Format::User { template, terminator } => {
            expand(repo, o, c, template, &mut s)?;
            if *terminator {
                s.push(b'\n');
            }
        }
        Format::Medium | Format::Short | Format::Full => {
            let _ = writeln!(Sink(&mut s), "commit {id}");
            if c.parents.len() > 1 {
                let parents: Vec<String> = c.parents.iter().map(|p| repo.abbrev(*p)).collect();
                let _ = writeln!(Sink(&mut s), "Merge: {}", parents.join(" "));
            }
            s.extend_from_slice(b"Author: ");
            person(&c.author, &mut s);
            s.push(b'\n');
            match o.format {
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
            let lines: Vec<&[u8]> = c.message.split(|b| *b == b'\n').collect();
            let start = lines.iter().position(|l| !is_blank(l)).unwrap_or(lines.len());
            let end = lines.iter().rposition(|l| !is_blank(l)).map_or(start, |e| e + 1);
            let shown = if matches!(o.format, Format::Short) {
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
    }
    Ok(s)
}

fn person(sig: &Signature, s: &mut Vec<u8>) {
    s.extend_from_slice(&sig.name);
    s.extend_from_slice(b" <");
    s.extend_from_slice(&sig.email);
    s.push(b'>');
}

/// Expands the placeholders of a user format.
fn expand(repo: &Repo, o: &LogOptions, c: &Commit, template: &str, s: &mut Vec<u8>) -> Result<(), Error> {
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
fn placeholder(repo: &Repo, o: &LogOptions, c: &Commit, p: &[u8], s: &mut Vec<u8>) -> Result<(usize, bool), Error> {
    let Some(&first) = p.first() else { return Ok((0, false)) };
    let (subject, body) = subject_body(&c.message);
    let mut push = |v: &[u8]| s.extend_from_slice(v);
    match first {
        b'H' => push(c.id.to_string().as_bytes()),
        b'h' => push(repo.abbrev(c.id).as_bytes()),
        b'T' => push(c.tree.to_string().as_bytes()),
        b't' => push(repo.abbrev(c.tree).as_bytes()),
        b'P' => push(c.parents.iter().map(|p| p.to_string()).collect::<Vec<_>>().join(" ").as_bytes()),
        b'p' => push(c.parents.iter().map(|p| repo.abbrev(*p)).collect::<Vec<_>>().join(" ").as_bytes()),
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
        b'd' | b'D' => return Err(Error::Unsupported("ref names (%d, %D)".into())),
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

/// Appends UTF-8 text to a byte buffer through `write!`.
pub struct Sink<'a>(pub &'a mut Vec<u8>);

impl std::fmt::Write for Sink<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }
}
