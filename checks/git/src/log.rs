//! `git log`, `git rev-list` and `git show`: choosing commits (ranges, history
//! simplification by pathspec, `--diff-filter`, limits) and printing each as git's
//! `log_tree_commit` does: the header (see `pretty.rs`), then its diffs, one per parent
//! with `-m`.

use crate::diff::{self, Abbrev, Side, form};
use crate::pathspec::Pathspec;
use crate::pretty::{DateFormat, Decorate, Decorations, Format, Pretty, format_commit, parse_format};
use crate::repo::{Commit, Repo};
use crate::revs::{self, RevSet, Walk};
use crate::{Args, Error};
use gix::ObjectId;
use std::fmt::Write as _;

/// What `log`, `rev-list` and `show` share: the commits chosen and how they print.
struct LogOptions {
    pretty: Pretty,
    /// `-m`/`--diff-merges`: how a merge's diff is shown.
    merge_diff: MergeDiff,
    /// `-m` or `--diff-merges` given.
    merges_given: bool,
    /// `--diff-merges=X`: merges get a patch when no output form was asked for.
    merges_imply_patch: bool,
    /// git's `simplify_history`, which `-m` and `--diff-merges` turn off for good.
    simplify: bool,
    /// `-r`/`-t`: git's `revs->diff`, every commit diffed even without an output form.
    recursive: bool,
    max_count: Option<usize>,
    skip: usize,
    greps: Vec<String>,
    authors: Vec<String>,
    grep_syntax: GrepSyntax,
    ignore_case: bool,
    invert_grep: bool,
    all_match: bool,
    /// `--merges` and `--no-merges`, each a bound on the number of parents; both
    /// together select nothing, as in git.
    min_parents: usize,
    max_parents: Option<usize>,
    first_parent: bool,
    reverse: bool,
    all: bool,
    count: bool,
    diff: diff::Options,
    revs: Vec<String>,
    paths: Vec<String>,
}

/// What a merge's diff is: none (`log`'s default), against each parent (`-m`), against
/// the first parent (`--first-parent`'s default), or git's combined form (`show`'s
/// default; only its empty case is printed here).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MergeDiff {
    Off,
    Separate,
    FirstParent,
    Combined,
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
        pretty: Pretty {
            format: Format::Medium,
            date: DateFormat::Default,
            abbrev_commit: false,
            abbrev_commit_given: false,
            abbrev: Abbrev::Default,
            decorate: Decorate::No,
            names: None,
        },
        merges_given: false,
        merges_imply_patch: false,
        simplify: true,
        recursive: false,
        merge_diff: if cmd == Command::Show { MergeDiff::Combined } else { MergeDiff::Off },
        max_count: None,
        skip: 0,
        greps: Vec::new(),
        authors: Vec::new(),
        grep_syntax: GrepSyntax::Basic,
        ignore_case: false,
        invert_grep: false,
        all_match: false,
        min_parents: 0,
        max_parents: None,
        first_parent: false,
        reverse: false,
        all: false,
        count: false,
        diff: diff::Options::default(),
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
            o.pretty.format =
                if v.is_empty() { Format::User { template: v, terminator: true } } else { parse_format(&v)? };
        } else if let Some(v) = a.value_only_eq(&arg, "--pretty")? {
            o.pretty.format = parse_format(&v)?;
        } else if arg == "--pretty" {
            o.pretty.format = Format::Medium;
        } else if arg == "--oneline" {
            o.pretty.format = Format::Oneline;
            o.pretty.abbrev_commit = true;
        } else if arg == "--abbrev-commit" {
            o.pretty.abbrev_commit = true;
            o.pretty.abbrev_commit_given = true;
        } else if arg == "--no-abbrev-commit" {
            o.pretty.abbrev_commit = false;
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
            o.max_parents = Some(1);
        } else if arg == "--merges" {
            o.min_parents = 2;
        } else if arg == "--first-parent" {
            o.first_parent = true;
        } else if arg == "--reverse" {
            o.reverse = !o.reverse;
        } else if arg == "--all" {
            // Where it stands among the revisions decides the walk's order of ties.
            o.all = true;
            o.revs.push(ALL.into());
        } else if arg == "--count" && cmd == Command::RevList {
            o.count = true;
        } else if let Some(v) = a.value_only_eq(&arg, "--date")? {
            o.pretty.date = DateFormat::parse(&v)?;
        } else if arg == "-m" && cmd != Command::RevList {
            o.merge_diff = MergeDiff::Separate;
            o.merges_given = true;
            o.merges_imply_patch = false;
            o.simplify = false;
        } else if let Some(v) = a.value_only_eq(&arg, "--diff-merges")? {
            o.merges_given = true;
            o.merges_imply_patch = !matches!(v.as_str(), "off" | "none");
            o.simplify &= !o.merges_imply_patch;
            o.merge_diff = match v.as_str() {
                "off" | "none" => MergeDiff::Off,
                "first-parent" | "1" => MergeDiff::FirstParent,
                "separate" | "m" | "on" => MergeDiff::Separate,
                _ => return Err(Error::Unsupported(format!("--diff-merges={v} (combined diffs)"))),
            };
        } else if matches!(arg.as_str(), "-c" | "--cc" | "--combined-all-paths" | "--remerge-diff") {
            return Err(Error::Unsupported(format!("option '{arg}' of git {name} (combined diffs)")));
        } else if arg == "--no-abbrev" {
            o.pretty.abbrev = Abbrev::Full;
            o.diff.abbrev = Abbrev::Full;
        } else if let Some(v) = arg.strip_prefix("--abbrev=") {
            let n: usize = v.parse().map_err(|_| Error::Fatal(format!("bad --abbrev value: {v}")))?;
            let how = if n == 0 { Abbrev::Full } else { Abbrev::Len(n.clamp(4, 40)) };
            o.pretty.abbrev = how;
            o.diff.abbrev = how;
        } else if arg == "--decorate" || arg == "--decorate=short" || arg == "--decorate=auto" {
            o.pretty.decorate = Decorate::Short;
        } else if arg == "--decorate=full" {
            o.pretty.decorate = Decorate::Full;
        } else if arg == "--no-decorate" || arg == "--decorate=no" {
            o.pretty.decorate = Decorate::No;
        } else if (arg == "-r" || arg == "-t") && cmd != Command::RevList {
            o.recursive = true;
        } else if arg == "-z" {
            return Err(Error::Unsupported(format!("option '-z' of git {name}")));
        } else if cmd != Command::RevList && o.diff.parse(&arg, &mut a)? {
        } else if matches!(
            arg.as_str(),
            "--no-color" | "--color=never" | "--no-ext-diff" | "--no-textconv" | "--no-mailmap"
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

/// `--all` among the revisions (no revision can be named so).
const ALL: &str = "\0--all";

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
        if name == ALL {
            for (_, id) in repo.refs.all() {
                if let Ok(c) = repo.commit(id) {
                    set.include.push(c.id);
                }
            }
            if let Some(id) = repo.head_id() {
                set.include.push(id);
            }
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

/// Whether a commit changes nothing under the pathspec against one of `parents`, as
/// git's history simplification asks.
enum Treesame {
    /// A root commit: whether it has nothing under the pathspec.
    Root(bool),
    /// The first parent it is the same as (simplification follows only that one).
    To(ObjectId),
    /// Without simplification: a merge the same as every parent.
    All,
    No,
}

/// `simplify` is git's `simplify_history`, which diffs of merges (`-m`,
/// `--diff-merges`) turn off: then a merge is left out only when it is the same as
/// every parent, and all its parents are followed.
fn treesame(
    repo: &Repo,
    c: &Commit,
    parents: &[ObjectId],
    pathspec: &Pathspec,
    simplify: bool,
) -> Result<Treesame, Error> {
    let mine = diff::side_files(repo, Side::Tree(c.tree), pathspec)?;
    if parents.is_empty() {
        return Ok(Treesame::Root(mine.is_empty()));
    }
    let mut same = 0;
    for p in parents {
        let theirs = diff::side_files(repo, Side::Tree(repo.commit(*p)?.tree), pathspec)?;
        if diff::changes(repo, theirs, mine.clone(), false)?.is_empty() {
            if simplify || parents.len() == 1 {
                return Ok(Treesame::To(*p));
            }
            same += 1;
        }
    }
    Ok(if same == parents.len() { Treesame::All } else { Treesame::No })
}

/// The commits `o` selects, in output order.
fn select(repo: &Repo, o: &LogOptions, set: &RevSet, pathspec: &Pathspec) -> Result<Vec<std::rc::Rc<Commit>>, Error> {
    let filter = Filter::new(o)?;
    let mut walk = Walk::new(repo, set)?;
    let mut out = Vec::new();
    let mut skipped = 0;
    let first_parent = o.first_parent;
    let simplify = o.simplifies();
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
            match treesame(repo, c, &parents, pathspec, simplify)? {
                Treesame::Root(same) => {
                    shown.insert(c.id, !same);
                    Ok(parents)
                }
                Treesame::To(p) => {
                    shown.insert(c.id, false);
                    Ok(vec![p])
                }
                Treesame::All => {
                    shown.insert(c.id, false);
                    Ok(parents)
                }
                Treesame::No => {
                    shown.insert(c.id, true);
                    Ok(parents)
                }
            }
        };
        let Some(c) = walk.next_with(&mut follow)? else { break };
        if !shown.get(&c.id).copied().unwrap_or(true) {
            continue;
        }
        if c.parents.len() < o.min_parents || o.max_parents.is_some_and(|m| c.parents.len() > m) {
            continue;
        }
        if !filter.selects(&c) {
            continue;
        }
        if skipped < o.skip {
            skipped += 1;
            continue;
        }
        if !o.reverse && !diff_filter_keeps(repo, o, &c, pathspec)? {
            // `--diff-filter` leaves no change: not shown, not counted (but skipped).
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
        // With `--reverse`, git counts the commits before `--diff-filter` hides some.
        let mut kept = Vec::new();
        for c in out {
            if diff_filter_keeps(repo, o, &c, pathspec)? {
                kept.push(c);
            }
        }
        out = kept;
    }
    Ok(out)
}

/// Whether `--diff-filter` (when given) leaves a change in one of the commit's diffs.
fn diff_filter_keeps(repo: &Repo, o: &LogOptions, c: &Commit, pathspec: &Pathspec) -> Result<bool, Error> {
    if o.diff.filter.is_none() {
        return Ok(true);
    }
    Ok(commit_diffs(repo, o, c, pathspec)?.is_none_or(|d| d.iter().any(|(_, ch, _)| !ch.is_empty())))
}

pub fn log(args: &[String], repo: &Repo, out: &mut Vec<u8>) -> Result<i32, Error> {
    let mut o = parse(args, Command::Log)?;
    let mut set = collect_revs(repo, &mut o)?;
    if set.include.is_empty() && !o.all {
        set.include.push(repo.head_id().ok_or_else(|| no_commits(repo))?);
    }
    finish(repo, &mut o)?;
    let pathspec = Pathspec::new(&o.paths, &repo.prefix)?;
    let commits = select(repo, &o, &set, &pathspec)?;
    let mut shown = false;
    for c in &commits {
        show_one(repo, &o, c, &pathspec, &mut shown, out)?;
    }
    Ok(0)
}

/// What the options imply once all are read: `--first-parent` shows merges' diffs
/// against their first parent (unless `--diff-merges` said otherwise), and ref names
/// are loaded when something prints them.
fn finish(repo: &Repo, o: &mut LogOptions) -> Result<(), Error> {
    o.diff.finish()?;
    if o.diff.filter.as_ref().is_some_and(|f| !f.chars().any(|c| c.is_ascii_uppercase())) {
        // git's log then selects no commit at all, while `diff` filters as asked.
        return Err(Error::Unsupported("a --diff-filter of exclusions only in git log/show".into()));
    }
    if o.first_parent && matches!(o.merge_diff, MergeDiff::Off | MergeDiff::Separate) && !o.merges_given {
        o.merge_diff = MergeDiff::FirstParent;
    }
    if o.first_parent && o.merge_diff == MergeDiff::Separate {
        o.merge_diff = MergeDiff::FirstParent;
    }
    let placeholder =
        matches!(&o.pretty.format, Format::User { template, .. } if template.contains("%d") || template.contains("%D"));
    if o.pretty.decorate != Decorate::No || placeholder {
        o.pretty.names = Some(Decorations::load(repo));
    }
    Ok(())
}

pub fn rev_list(args: &[String], repo: &Repo, out: &mut Vec<u8>) -> Result<i32, Error> {
    let mut o = parse(args, Command::RevList)?;
    if !matches!(o.pretty.format, Format::Medium) {
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
    if o.diff.forms == 0 {
        o.diff.forms = form::PATCH;
    }
    finish(repo, &mut o)?;
    let names = if o.revs.is_empty() { vec!["HEAD".to_string()] } else { std::mem::take(&mut o.revs) };
    let pathspec = Pathspec::new(&o.paths, &repo.prefix)?;
    let mut shown = false;
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
        let mut id = revs::resolve(repo, &name).ok_or_else(|| revs::unknown_revision(&name))?;
        let (mut kind, mut data) = repo.object(id)?;
        while kind == gix::object::Kind::Tag {
            // The tag's header and message, then what it names.
            let (target, text) = tag_text(&data, &o.pretty)?;
            if shown {
                out.push(b'\n');
            }
            out.extend_from_slice(&text);
            shown = true;
            id = target;
            (kind, data) = repo.object(id)?;
        }
        if kind == gix::object::Kind::Blob {
            out.extend_from_slice(&data);
            continue;
        }
        if kind == gix::object::Kind::Tree {
            return Err(Error::Unsupported("git show of a tree".into()));
        }
        let commit = repo.commit(id)?;
        if !pathspec.is_empty()
            && !matches!(
                treesame(repo, &commit, &commit.parents, &pathspec, o.simplifies())?,
                Treesame::No | Treesame::Root(false)
            )
        {
            // What the pathspec leaves no change in is not shown.
            continue;
        }
        show_one(repo, &o, &commit, &pathspec, &mut shown, out)?;
    }
    Ok(0)
}

/// An annotated tag as `show` prints it: `tag NAME`, the tagger and date, the message;
/// and the object it names.
fn tag_text(data: &[u8], p: &Pretty) -> Result<(ObjectId, Vec<u8>), Error> {
    let text = String::from_utf8_lossy(data);
    let (head, message) = text.split_once("\n\n").unwrap_or((&text, ""));
    let mut target = None;
    let mut out = Vec::new();
    let mut tagger = None;
    let mut name = "";
    for line in head.lines() {
        if let Some(v) = line.strip_prefix("object ") {
            target = ObjectId::from_hex(v.as_bytes()).ok();
        } else if let Some(v) = line.strip_prefix("tag ") {
            name = v;
        } else if let Some(v) = line.strip_prefix("tagger ") {
            tagger = Some(crate::repo::parse_signature(v.as_bytes()));
        }
    }
    let target = target.ok_or_else(|| Error::Fatal("a tag without an object".into()))?;
    let _ = writeln!(Sink(&mut out), "tag {name}");
    // The tagger as the format prints a commit's author: with the date in `medium`
    // and `fuller`, none in `oneline`.
    if let Some(t) = tagger.filter(|_| !matches!(p.format, Format::Oneline)) {
        let fuller = matches!(p.format, Format::Fuller);
        out.extend_from_slice(if fuller { b"Tagger:     " } else { b"Tagger: " });
        out.extend_from_slice(&t.name);
        out.extend_from_slice(b" <");
        out.extend_from_slice(&t.email);
        out.extend_from_slice(b">\n");
        match p.format {
            Format::Medium => {
                let _ = writeln!(Sink(&mut out), "Date:   {}", crate::pretty::date(&t, p.date));
            }
            Format::Fuller => {
                let _ = writeln!(Sink(&mut out), "TaggerDate: {}", crate::pretty::date(&t, p.date));
            }
            _ => {}
        }
    }
    out.push(b'\n');
    out.extend_from_slice(message.as_bytes());
    if !message.is_empty() && !message.ends_with('\n') {
        out.push(b'\n');
    }
    Ok((target, out))
}

impl LogOptions {
    /// git's `simplify_history`: on unless diffs of merges were asked for.
    fn simplifies(&self) -> bool {
        self.simplify
    }
}

/// The changes from `old` (None: the empty tree) to `new` under `pathspec`.
fn tree_changes(
    repo: &Repo,
    old: Option<ObjectId>,
    new: ObjectId,
    pathspec: &Pathspec,
    o: &diff::Options,
) -> Result<Vec<diff::Change>, Error> {
    let old = match old {
        Some(p) => diff::side_files(repo, Side::Tree(repo.commit(p)?.tree), pathspec)?,
        None => Default::default(),
    };
    let new = diff::side_files(repo, Side::Tree(new), pathspec)?;
    Ok(o.filtered(diff::changes(repo, old, new, o.renames)?))
}

/// The diffs a commit is shown with: (the parent named in the header, the changes,
/// how they print); None for a merge's combined diff, which the caller prints.
/// git's `always_show_header` is off with `--diff-filter`: then a commit is shown
/// only when one of these has changes the filter keeps.
#[allow(clippy::type_complexity, reason = "a list of triples, used once")]
fn commit_diffs(
    repo: &Repo,
    o: &LogOptions,
    c: &Commit,
    pathspec: &Pathspec,
) -> Result<Option<Vec<(Option<ObjectId>, Vec<diff::Change>, diff::Options)>>, Error> {
    let mut diffs = Vec::new();
    let mut d = o.diff.clone();
    // `--diff-merges` makes merges' diffs patches when no form was asked for; other
    // commits have a diff then only when `--diff-filter` or `-r` asks for one.
    if d.forms == 0 && o.merges_imply_patch && (c.parents.len() > 1 || o.diff.filter.is_some() || o.recursive) {
        d.forms = form::PATCH;
    }
    let d = &d;
    // git's `revs->diff`: a real output form, `--diff-filter` or `-r`; `-s` alone
    // computes no diff (and shows a merge once, whatever `-m` says), except for the
    // merges `--diff-merges` asks diffs of.
    let merge_patch = o.merges_imply_patch && c.parents.len() > 1;
    if d.forms & !form::NO_OUTPUT == 0 && o.diff.filter.is_none() && !o.recursive && !merge_patch {
        return Ok(Some(diffs));
    }
    match (c.parents.as_slice(), o.merge_diff) {
        ([], _) => diffs.push((None, tree_changes(repo, None, c.tree, pathspec, d)?, d.clone())),
        ([p], _) | ([p, ..], MergeDiff::FirstParent) => {
            diffs.push((None, tree_changes(repo, Some(*p), c.tree, pathspec, d)?, d.clone()))
        }
        (_, MergeDiff::Off) => {}
        (parents, MergeDiff::Separate) => {
            for p in parents {
                diffs.push((Some(*p), tree_changes(repo, Some(*p), c.tree, pathspec, d)?, d.clone()));
            }
        }
        (parents, MergeDiff::Combined) => {
            combined_is_empty(repo, c, parents, pathspec)?;
            return Ok(None);
        }
    }
    Ok(Some(diffs))
}

/// One commit as `log` and `show` print it (git's `log_tree_commit`): for each diff
/// shown (one per parent with `-m`), the header, then the diff; the header alone when
/// no diff has changes.
fn show_one(
    repo: &Repo,
    o: &LogOptions,
    c: &Commit,
    pathspec: &Pathspec,
    shown: &mut bool,
    out: &mut Vec<u8>,
) -> Result<(), Error> {
    let always_header = o.diff.filter.is_none();
    let Some(diffs) = commit_diffs(repo, o, c, pathspec)? else {
        // A merge's combined diff, empty (or refused): git shows the header, a blank
        // line, the statistics and summary against the first parent.
        let d = &o.diff;
        header(repo, o, c, None, shown, out)?;
        let user_empty = matches!(&o.pretty.format, Format::User { template, .. } if template.is_empty());
        if d.forms & form::NO_OUTPUT == 0 && !user_empty {
            out.push(b'\n');
        }
        let mut stat_only = d.clone();
        stat_only.forms &= form::NUMSTAT | form::STAT | form::SHORTSTAT | form::SUMMARY;
        let changes = tree_changes(repo, Some(c.parents[0]), c.tree, pathspec, d)?;
        diff::print(repo, &changes, &stat_only, out)?;
        return Ok(());
    };
    let mut any = false;
    for (from, changes, d) in &diffs {
        if changes.is_empty() {
            continue;
        }
        any = true;
        header(repo, o, c, *from, shown, out)?;
        let user_empty = matches!(&o.pretty.format, Format::User { template, .. } if template.is_empty());
        if !d.silent() && !matches!(o.pretty.format, Format::Oneline) && !user_empty {
            if d.shows(form::STAT) && d.shows(form::PATCH) {
                out.extend_from_slice(b"---");
            }
            out.push(b'\n');
        }
        diff::print(repo, changes, d, out)?;
    }
    if !any && always_header {
        header(repo, o, c, None, shown, out)?;
    }
    Ok(())
}

/// Refuses a merge whose combined diff (`--cc`, `show`'s default) is not empty: a path
/// that differs from every parent.
fn combined_is_empty(repo: &Repo, c: &Commit, parents: &[ObjectId], pathspec: &Pathspec) -> Result<(), Error> {
    let mine = diff::side_files(repo, Side::Tree(c.tree), pathspec)?;
    let mut common: Option<std::collections::BTreeSet<Vec<u8>>> = None;
    for p in parents {
        let theirs = diff::side_files(repo, Side::Tree(repo.commit(*p)?.tree), pathspec)?;
        let changed: std::collections::BTreeSet<Vec<u8>> =
            diff::changes(repo, theirs, mine.clone(), false)?.into_iter().map(|ch| ch.new_path).collect();
        common = Some(match common {
            None => changed,
            Some(prev) => prev.intersection(&changed).cloned().collect(),
        });
    }
    if common.is_some_and(|c| !c.is_empty()) {
        return Err(Error::Unsupported(
            "the combined diff of a merge that changes a file against every parent (--cc); use -m, --first-parent or -s"
                .into(),
        ));
    }
    Ok(())
}

/// A commit's header, after the separator git puts between entries.
fn header(
    repo: &Repo,
    o: &LogOptions,
    c: &Commit,
    from: Option<ObjectId>,
    shown: &mut bool,
    out: &mut Vec<u8>,
) -> Result<(), Error> {
    let terminator = matches!(o.pretty.format, Format::Oneline | Format::User { terminator: true, .. });
    if *shown && !terminator {
        out.push(b'\n');
    }
    *shown = true;
    let mut text = format_commit(repo, &o.pretty, c)?;
    if let Some(p) = from {
        // `-m`: the parent of this diff after the commit's id.
        let id = if o.pretty.abbrev_commit { repo.abbrev_as(c.id, o.pretty.abbrev) } else { c.id.to_string() };
        let from = if o.pretty.abbrev_commit { repo.abbrev_as(p, o.pretty.abbrev) } else { p.to_string() };
        let at = text
            .windows(id.len())
            .position(|w| w == id.as_bytes())
            .filter(|_| !matches!(o.pretty.format, Format::User { .. }));
        if let Some(at) = at {
            let tail = text.split_off(at + id.len());
            text.extend_from_slice(format!(" (from {from})").as_bytes());
            text.extend_from_slice(&tail);
        }
    }
    out.extend_from_slice(&text);
    Ok(())
}

/// Appends UTF-8 text to a byte buffer through `write!`.
pub struct Sink<'a>(pub &'a mut Vec<u8>);

impl std::fmt::Write for Sink<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.0.extend_from_slice(s.as_bytes());
        Ok(())
    }
}
