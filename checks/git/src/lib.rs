//! `git`'s read-only subcommands over the repository in the root, for the shell
//! interpreter in `checks/shell`. The commands, their options and their output are
//! written here to be byte-identical to git 2.x for the forms listed below; gix
//! (gitoxide) provides the parsers underneath: pack indexes, pack entries with delta
//! resolution, loose objects, the index file. gix's own repository type is not used:
//! its object store maps packs into memory, which WASI cannot do (see `odb.rs`).
//!
//! Supported (anything else, including any option not listed, is an error naming it,
//! exit status 129 like git's usage errors, never a silent difference):
//!
//! - `rev-parse`: revisions (`HEAD`, `@`, branches, tags, remote branches, full and
//!   abbreviated ids, `~N`, `^`, `^N`, `^{}`, `^{commit}`, `^{tree}`, `REV:path`,
//!   `A..B` printing `B` and `^A`), `--verify`, `-q`/`--quiet`, `--short[=N]`,
//!   `--abbrev-ref`, `--symbolic-full-name`, `--show-toplevel` (the *virtual* path of
//!   the working tree, `/` when it is the root), `--show-prefix`, `--show-cdup`,
//!   `--is-inside-work-tree`, `--is-bare-repository`, `--git-dir`.
//! - `rev-list`: revisions and ranges (`A..B`, `^A`, `A...B`, `--all`), `--count`,
//!   `-N`/`-n N`/`--max-count`, `--skip`, `--reverse`, `--first-parent`,
//!   `--merges`/`--no-merges`, `--grep`/`--author` as for `log`, `-- paths`.
//! - Diff output of `diff`, `log` and `show` (several forms at once, in git's order):
//!   `-p`/`-u`/`--patch`, `--raw`, `--name-only`, `--name-status`, `--stat`,
//!   `--stat=W[,N[,C]]`, `--stat-width=`, `--stat-name-width=`, `--stat-graph-width=`,
//!   `--stat-count=`, `--numstat`, `--shortstat`, `--summary`, `--patch-with-stat`,
//!   `--patch-with-raw`, `-s`/`--no-patch`; `-U[N]`/`--unified[=N]` (implies `-p`),
//!   `--abbrev[=N]`, `--no-abbrev`, `--full-index`, `-z` (`diff` only), `-a`/`--text`,
//!   `--src-prefix=`, `--dst-prefix=`, `--no-prefix`, `--default-prefix`,
//!   `--diff-filter=` (`ADMRT`, lower case to exclude), `-M`, `--no-renames`, `-r`,
//!   `--root`.
//! - `log`: as `rev-list`, plus the diff output above, `--format`/`--pretty`
//!   (`oneline`, `short`, `medium`, `full`, `fuller`, `raw`, `format:`, `tformat:`,
//!   placeholders `%H %h %T %t %P %p %s %f %b %B %d %D %n %% %xNN` and `%a`/`%c` with
//!   `n N e E l L d D i I t s`; unknown placeholders are printed as they are, as git
//!   does), `--oneline`, `--abbrev-commit`, `--no-abbrev-commit`,
//!   `--decorate[=short|full]`, `--no-decorate`,
//!   `--date=default|iso|iso-strict|rfc|short|unix|raw`, `--grep` (basic regular
//!   expressions as git, `-E`, `-F`, `-G`, `-i`, `--invert-grep`, `--all-match`),
//!   merges' diffs: none by default, `-m`, `--diff-merges=off|first-parent|separate`,
//!   `--first-parent` (against the first parent).
//! - `show`: commits (header and diff against the parent; a merge's combined diff
//!   only when it is empty, the common case, with `--stat`/`--summary` against the
//!   first parent as git prints them), annotated tags (their header, then the
//!   object), `REV:path`, blobs, with the options of `log`.
//! - `status --porcelain` / `--short` / `-s` (with `-z`, `-uno`, pathspecs):
//!   `.gitignore` files and `.git/info/exclude` apply.
//! - `ls-files` (the index; `-z`, `-s`/`--stage`, `--cached`, pathspecs;
//!   `-o`/`--others` with `--exclude-standard`).
//! - `grep` over the tracked files of the working tree: `-n -E -F -G -i -l -L -c -w -v
//!   -h -H -q -I -r -e PAT` and their long forms, pathspecs.
//! - Global options `-C DIR`, `--no-pager`, `-P`.
//!
//! Writing subcommands (`commit`, `checkout`, `add`, `reset`, `stash`, `config`, ...)
//! are refused with a message saying the sandbox is read-only, status 129. Options git
//! has and this crate does not are refused the same way, so an unrecognised option
//! gives 129 where git itself would give 128 for some commands. Among them, each
//! refused by name: combined diffs (`-c`, `--cc`, `--diff-merges=combined`,
//! `--remerge-diff`, `diff A B C`, and `show` of a merge whose combined diff is not
//! empty), `-w`/`-b`/`--ignore-*` (whitespace-insensitive matching), `--relative`,
//! `--dirstat*`, `--binary` patches of binary files, `--graph`, `-S`/`-G` (pickaxe),
//! `--since`/`--until` and `%ar`/`%cr` (the clock), `%C`, `%G`, `%<`/`%>`/`%w`,
//! `--pretty=email|mboxrd|reference`, `-z` for `log`/`show`, a `--diff-filter` of
//! exclusions only in `log`/`show` (git then shows no commit at all), `show` of a
//! tree, `-c key=value`, and the plumbing commands (`diff-tree`, `whatchanged`,
//! `format-patch`, ...).
//!
//! Deliberate differences from git:
//! - Renames follow git's diffcore-rename for plain rename detection: identical
//!   content, then unique basenames at 75% similarity, then the best pairs of at least
//!   50% (git's span-hash estimate, four candidates per file), with git's default
//!   limit of 1000 × 1000 candidates. Ties between equally good pairs are broken by
//!   path order, where git's unstable sort may choose another. Copies are never
//!   detected (git's default does not either).
//! - Line differences are imara-diff's port of git's Myers algorithm with its indent
//!   heuristic. Hunk placement agrees with git in the cases tested, but the heuristic
//!   is a re-implementation and a rare ambiguous change (a slider) may be placed
//!   differently.
//! - `log -- paths` simplifies history as git's default does (TREESAME parents), but
//!   without rewriting parents (only visible with `--parents`/`--graph`, refused).
//! - Working-tree files are compared by content, never by stat data; in the component
//!   the execute bit cannot be seen, so a file's mode is taken from the index.
//! - Reflog names (`@{1}`, `main@{yesterday}`), `:/message` searches and `^{/regex}`
//!   name nothing (an "unknown revision" error, 128).
//! - Objects and working-tree files larger than [`MAX_OBJECT_SIZE`] are not read:
//!   `diff` shows such a blob as binary (as git does past `core.bigFileThreshold`);
//!   `show`, `grep` and a `diff` against such a working-tree file report an error.
//!   Packs are read whole (WASI cannot map them), once per process; one larger than
//!   [`MAX_PACK_SIZE`] is an error.
//! - Configuration: only `core.abbrev` is read, from the repository's `.git/config`;
//!   otherwise git's defaults (`diff.renames`, `diff.indentHeuristic`, automatic
//!   abbreviation length from the packed object count, `core.quotePath`). No global or
//!   system config, no environment variables, no `.mailmap` (`%aN` is `%an`).
//! - Submodules are taken as unchanged in the working tree (their HEAD is not read).
//! - Nothing is ever executed: no hooks, filters, textconv, external diff, pager or
//!   fsmonitor. The repository (its `.git` file's or symlink's target, `commondir`,
//!   alternates) must lie inside the root, or it is refused (128).

mod diff;
mod grep;
mod log;
mod odb;
mod pathspec;
mod pretty;
mod refs;
mod rename;
mod repo;
mod revs;
mod stat;
mod status;

pub use odb::MAX_PACK_SIZE;
pub use repo::MAX_OBJECT_SIZE;
use reviewhost_tool::{Ctx, Io, Program};
use std::fmt::Write as _;

/// git's exit status for usage errors (and here, for what is not supported).
pub const EXIT_USAGE: i32 = 129;
/// git's exit status for fatal errors (`fatal: ...`).
pub const EXIT_FATAL: i32 = 128;

/// Why a command did not produce its result.
#[derive(Debug)]
pub enum Error {
    /// `fatal: MESSAGE`, status 128.
    Fatal(String),
    /// A usage error: the message as git prints it, status 129.
    Usage(String),
    /// A form git has that this implementation does not: status 129.
    Unsupported(String),
    /// An object over [`MAX_OBJECT_SIZE`].
    TooLarge(gix::ObjectId),
    /// Fails with this status and no message (`rev-parse --verify -q`).
    Silent(i32),
}

impl Error {
    fn report(&self, io: &mut Io) -> i32 {
        let mut s = String::new();
        let status = match self {
            Error::Fatal(m) => {
                let _ = writeln!(s, "fatal: {m}");
                EXIT_FATAL
            }
            Error::Usage(m) => {
                let _ = writeln!(s, "{m}");
                EXIT_USAGE
            }
            Error::Unsupported(m) => {
                let _ = writeln!(s, "git: not supported in the sandbox: {m}");
                EXIT_USAGE
            }
            Error::TooLarge(id) => {
                let _ = writeln!(s, "fatal: object {id} is larger than {} bytes, not read", repo::MAX_OBJECT_SIZE);
                EXIT_FATAL
            }
            Error::Silent(status) => *status,
        };
        io.stderr.extend_from_slice(s.as_bytes());
        status
    }
}

/// Subcommands that change the repository or talk to other ones.
const WRITING: &[&str] = &[
    "add",
    "am",
    "apply",
    "branch",
    "checkout",
    "cherry-pick",
    "clean",
    "clone",
    "commit",
    "config",
    "fetch",
    "gc",
    "init",
    "merge",
    "mv",
    "notes",
    "pull",
    "push",
    "rebase",
    "remote",
    "reset",
    "restore",
    "revert",
    "rm",
    "stash",
    "switch",
    "tag",
    "update-index",
    "update-ref",
    "worktree",
    "submodule",
    "prune",
    "repack",
    "fsck",
    "bisect",
];

/// `git`: `args` excludes the program name.
pub fn git(args: &[String], ctx: &Ctx, io: &mut Io) -> i32 {
    let mut ctx = ctx.clone();
    let mut i = 0;
    // Global options before the subcommand.
    while let Some(arg) = args.get(i) {
        match arg.as_str() {
            "--no-pager" | "-P" | "--no-replace-objects" | "--literal-pathspecs" => {}
            "-C" => {
                let Some(dir) = args.get(i + 1) else {
                    return Error::Usage("error: no directory given for -C".into()).report(io);
                };
                if !dir.is_empty() {
                    ctx.cwd = ctx.virtual_path(dir);
                }
                i += 1;
            }
            a if a.starts_with('-') => {
                return Error::Unsupported(format!("global option '{a}' of git")).report(io);
            }
            _ => break,
        }
        i += 1;
    }
    let Some(sub) = args.get(i) else {
        return Error::Usage("usage: git [-C <path>] <command> [<args>]".into()).report(io);
    };
    let rest = &args[i + 1..];
    if WRITING.contains(&sub.as_str()) {
        return Error::Unsupported(format!("'git {sub}' changes the repository; the sandbox is read-only")).report(io);
    }
    let known = ["rev-parse", "rev-list", "log", "show", "merge-base", "diff", "ls-files", "grep", "status"];
    if !known.contains(&sub.as_str()) {
        return Error::Unsupported(format!("subcommand '{sub}' of git")).report(io);
    }
    let repo = match repo::Repo::discover(&ctx) {
        Ok(r) => r,
        Err(e) => return e.report(io),
    };
    let result = match sub.as_str() {
        "rev-parse" => rev_parse(rest, &repo, &ctx, io.stdout),
        "rev-list" => log::rev_list(rest, &repo, io.stdout),
        "log" => log::log(rest, &repo, io.stdout),
        "show" => log::show(rest, &repo, io.stdout),
        "merge-base" => merge_base(rest, &repo, io.stdout),
        "diff" => diff_command(rest, &repo, io.stdout),
        "ls-files" => ls_files(rest, &repo, &ctx, io.stdout),
        "grep" => grep::grep(rest, &repo, io.stdout),
        "status" => status::status(rest, &repo, &ctx, io.stdout),
        _ => unreachable!("checked against `known`"),
    };
    match result {
        Ok(status) => status,
        Err(e) => e.report(io),
    }
}

/// The program for a command name, if this crate provides it.
pub fn lookup(name: &str) -> Option<Program> {
    match name {
        "git" => Some(git),
        _ => None,
    }
}

/// The arguments of a subcommand, read one at a time, with `--` noted.
pub(crate) struct Args<'a> {
    args: &'a [String],
    next: usize,
    pub after_dashdash: bool,
}

impl<'a> Args<'a> {
    pub fn new(args: &'a [String]) -> Args<'a> {
        Args { args, next: 0, after_dashdash: false }
    }

    /// The value of `arg` when it is `short` (`-n 3`, `-n3`) or `long` (`--long=3`,
    /// `--long 3`); None when it is neither.
    pub fn value(&mut self, arg: &str, short: &str, long: &str) -> Result<Option<String>, Error> {
        if !short.is_empty() {
            if arg == short {
                return self.take(arg).map(Some);
            }
            if let Some(v) = arg.strip_prefix(short).filter(|v| !v.is_empty() && !short.starts_with("--")) {
                return Ok(Some(v.to_string()));
            }
        }
        if arg == long {
            return self.take(arg).map(Some);
        }
        Ok(arg.strip_prefix(long).and_then(|v| v.strip_prefix('=')).map(str::to_string))
    }

    /// The value of `--long=VALUE` (options whose value must be attached).
    pub fn value_only_eq(&mut self, arg: &str, long: &str) -> Result<Option<String>, Error> {
        Ok(arg.strip_prefix(long).and_then(|v| v.strip_prefix('=')).map(str::to_string))
    }

    fn take(&mut self, arg: &str) -> Result<String, Error> {
        let v = self.args.get(self.next).cloned();
        self.next += 1;
        v.ok_or_else(|| Error::Usage(format!("error: option `{}' requires a value", arg.trim_start_matches('-'))))
    }
}

impl Iterator for Args<'_> {
    type Item = String;

    fn next(&mut self) -> Option<String> {
        let arg = self.args.get(self.next)?.clone();
        self.next += 1;
        if arg == "--" && !self.after_dashdash {
            self.after_dashdash = true;
            return self.next();
        }
        Some(arg)
    }
}

/// `git rev-parse`: options and names are taken in order, as git does: an option such
/// as `--short` or `--abbrev-ref` applies to the names after it, `--show-toplevel`
/// prints where it stands, and `--verify` (or `--short`, which implies it) makes the
/// names after it count towards the one revision printed at the end.
fn rev_parse(args: &[String], repo: &repo::Repo, ctx: &Ctx, out: &mut Vec<u8>) -> Result<i32, Error> {
    let mut verify = false;
    let mut quiet = false;
    let mut flags = RevFlags::default();
    // With verify: how many names resolved, and the last one.
    let mut verified: (usize, Option<(String, gix::ObjectId)>) = (0, None);
    let mut dashdash = false;
    for arg in args {
        if dashdash {
            if !verify {
                let _ = writeln!(log::Sink(out), "{arg}");
            }
            continue;
        }
        match arg.as_str() {
            "--" => {
                dashdash = true;
                if !verify {
                    let _ = writeln!(log::Sink(out), "--");
                }
            }
            "--verify" => verify = true,
            "-q" | "--quiet" => quiet = true,
            "--short" => {
                flags.short = Some(7);
                verify = true;
            }
            "--abbrev-ref" | "--abbrev-ref=strict" | "--abbrev-ref=loose" => flags.abbrev_ref = true,
            "--symbolic-full-name" => flags.full_name = true,
            "--show-toplevel"
            | "--show-prefix"
            | "--show-cdup"
            | "--is-inside-work-tree"
            | "--git-dir"
            | "--is-bare-repository"
            | "--absolute-git-dir" => {
                let line = rev_parse_action(arg, repo, ctx);
                let _ = writeln!(log::Sink(out), "{line}");
            }
            a if a.starts_with("--short=") => {
                let n: usize = a["--short=".len()..].parse().map_err(|_| Error::Fatal(format!("bad argument: {a}")))?;
                flags.short = Some(n.clamp(4, 40));
                verify = true;
            }
            a if a.starts_with('-') => return Err(Error::Unsupported(format!("option '{a}' of git rev-parse"))),
            name if verify => match revs::resolve(repo, name) {
                Some(id) => verified = (verified.0 + 1, Some((name.to_string(), id))),
                None => return Err(no_single_revision(quiet)),
            },
            name => rev_parse_name(name, repo, &flags, out)?,
        }
    }
    if verify {
        match verified {
            (1, Some((name, id))) => print_rev(repo, &name, id, &flags, out)?,
            _ => return Err(no_single_revision(quiet)),
        }
    }
    Ok(0)
}

/// `rev-parse --verify`'s failure: git's message, or none with `--quiet`.
fn no_single_revision(quiet: bool) -> Error {
    if quiet { Error::Silent(1) } else { Error::Fatal("Needed a single revision".into()) }
}

/// How `rev-parse` prints the names after these options.
#[derive(Default, Clone, Copy)]
struct RevFlags {
    short: Option<usize>,
    abbrev_ref: bool,
    full_name: bool,
}

/// The line of a `rev-parse` option that prints something about the repository.
fn rev_parse_action(action: &str, repo: &repo::Repo, ctx: &Ctx) -> String {
    match action {
        "--show-toplevel" => repo.workdir_virtual.clone(),
        "--show-prefix" => repo.prefix.clone(),
        "--show-cdup" => "../".repeat(repo.prefix.matches('/').count()),
        "--is-inside-work-tree" => "true".into(),
        "--is-bare-repository" => "false".into(),
        _ => {
            let real = repo.git_dir.as_path();
            let v = ctx.virtual_of_real(real).unwrap_or_else(|| real.display().to_string());
            if action == "--git-dir"
                && repo.prefix.is_empty()
                && v == format!("{}/.git", repo.workdir_virtual.trim_end_matches('/'))
            {
                ".git".into()
            } else {
                v
            }
        }
    }
}

/// One name of `rev-parse` without `--verify`: a revision, a range, `^REV`, or a path.
fn rev_parse_name(name: &str, repo: &repo::Repo, flags: &RevFlags, out: &mut Vec<u8>) -> Result<(), Error> {
    if let Some((a, b)) = name.split_once("..").filter(|_| !name.contains("...")) {
        let (a, b) = (if a.is_empty() { "HEAD" } else { a }, if b.is_empty() { "HEAD" } else { b });
        if let (Some(ia), Some(ib)) = (revs::resolve(repo, a), revs::resolve(repo, b)) {
            print_rev(repo, b, ib, flags, out)?;
            let _ = write!(log::Sink(out), "^");
            return print_rev(repo, a, ia, flags, out);
        }
    }
    if let Some(neg) = name.strip_prefix('^')
        && let Some(id) = revs::resolve(repo, neg)
    {
        let _ = write!(log::Sink(out), "^");
        return print_rev(repo, neg, id, flags, out);
    }
    match revs::resolve(repo, name) {
        Some(id) => print_rev(repo, name, id, flags, out),
        None => {
            // git prints a name it cannot resolve (it may be a path), then insists that
            // it be one.
            let _ = writeln!(log::Sink(out), "{name}");
            if repo.may_be_path(name) { Ok(()) } else { Err(revs::unknown_revision(name)) }
        }
    }
}

fn print_rev(
    repo: &repo::Repo,
    name: &str,
    id: gix::ObjectId,
    flags: &RevFlags,
    out: &mut Vec<u8>,
) -> Result<(), Error> {
    let RevFlags { short, abbrev_ref, full_name } = *flags;
    if abbrev_ref || full_name {
        // The ref the name stands for.
        let reference = if name == "HEAD" || name == "@" {
            match repo.refs.head_name() {
                Some(n) => Some(n),
                None => {
                    let _ = writeln!(log::Sink(out), "HEAD");
                    return Ok(());
                }
            }
        } else {
            repo.refs.dwim(name).map(|(full, _)| full)
        };
        match reference {
            Some(r) if abbrev_ref => {
                let _ = writeln!(log::Sink(out), "{}", refs::shorten(&r));
            }
            Some(r) => {
                let _ = writeln!(log::Sink(out), "{r}");
            }
            // A name that is no ref (an id, `HEAD~1`) prints nothing.
            None => {}
        }
        return Ok(());
    }
    let text = match short {
        Some(n) => {
            let abbrev = repo.abbrev(id);
            if abbrev.len() >= n { abbrev } else { id.to_hex_with_len(n).to_string() }
        }
        None => id.to_string(),
    };
    let _ = writeln!(log::Sink(out), "{text}");
    Ok(())
}

fn merge_base(args: &[String], repo: &repo::Repo, out: &mut Vec<u8>) -> Result<i32, Error> {
    let mut is_ancestor = false;
    let mut names = Vec::new();
    for arg in args {
        match arg.as_str() {
            "--is-ancestor" => is_ancestor = true,
            a if a.starts_with('-') => return Err(Error::Unsupported(format!("option '{a}' of git merge-base"))),
            _ => names.push(arg.as_str()),
        }
    }
    let resolve = |n: &str| {
        revs::resolve(repo, n)
            .ok_or_else(|| Error::Fatal(format!("Not a valid object name {n}")))
            .and_then(|id| Ok(repo.commit(id)?.id))
    };
    if is_ancestor {
        let [a, b] = names[..] else {
            return Err(Error::Usage("usage: git merge-base --is-ancestor <commit> <commit>".into()));
        };
        let (a, b) = (resolve(a)?, resolve(b)?);
        let bases = revs::merge_bases(repo, a, b)?;
        return Ok(if bases.contains(&a) || a == b { 0 } else { 1 });
    }
    if names.len() != 2 {
        return Err(Error::Unsupported("git merge-base with other than two commits".into()));
    }
    let (a, b) = (resolve(names[0])?, resolve(names[1])?);
    match revs::merge_bases(repo, a, b)?.first() {
        Some(base) => {
            let _ = writeln!(log::Sink(out), "{base}");
            Ok(0)
        }
        None => Ok(1),
    }
}

fn diff_command(args: &[String], repo: &repo::Repo, out: &mut Vec<u8>) -> Result<i32, Error> {
    let mut opts = diff::Options::default();
    let mut cached = false;
    let mut exit_code = false;
    let mut quiet = false;
    let mut reverse = false;
    let mut names = Vec::new();
    let mut paths = Vec::new();
    let mut a = Args::new(args);
    while let Some(arg) = a.next() {
        if a.after_dashdash {
            paths.push(arg);
            continue;
        }
        if !arg.starts_with('-') || arg == "-" {
            names.push(arg);
            continue;
        }
        match arg.as_str() {
            "--cached" | "--staged" => cached = true,
            "--exit-code" => exit_code = true,
            "--quiet" => quiet = true,
            "-R" => reverse = true,
            _ if opts.parse(&arg, &mut a)? => {}
            _ => return Err(Error::Unsupported(format!("option '{arg}' of git diff"))),
        }
    }
    // Names before `--`: revisions, or (without `--`) existing paths from the first
    // name that is no revision on.
    let mut sides: Vec<diff::Side> = Vec::new();
    for (i, name) in names.iter().enumerate() {
        if let Some((l, r)) = name.split_once("...") {
            let l = revs::resolve_commit(repo, if l.is_empty() { "HEAD" } else { l })?;
            let r = revs::resolve_commit(repo, if r.is_empty() { "HEAD" } else { r })?;
            let base = *revs::merge_bases(repo, l, r)?
                .first()
                .ok_or_else(|| Error::Fatal(format!("{name}: no merge base")))?;
            sides.push(diff::Side::Tree(repo.commit(base)?.tree));
            sides.push(diff::Side::Tree(repo.commit(r)?.tree));
            continue;
        }
        if let Some((l, r)) = name.split_once("..") {
            let l = revs::resolve(repo, if l.is_empty() { "HEAD" } else { l })
                .ok_or_else(|| revs::unknown_revision(name))?;
            let r = revs::resolve(repo, if r.is_empty() { "HEAD" } else { r })
                .ok_or_else(|| revs::unknown_revision(name))?;
            sides.push(diff::Side::Tree(repo.tree_of(l)?));
            sides.push(diff::Side::Tree(repo.tree_of(r)?));
            continue;
        }
        match revs::resolve(repo, name) {
            Some(id) => sides.push(diff::Side::Tree(repo.tree_of(id)?)),
            None if paths.is_empty() && !a.after_dashdash && repo.may_be_path(name) => {
                paths.extend(names[i..].iter().cloned());
                break;
            }
            None => return Err(revs::unknown_revision(name)),
        }
    }
    if sides.len() > 2 {
        return Err(Error::Unsupported("git diff of more than two revisions (combined diff)".into()));
    }
    let (old, new) = match (sides.as_slice(), cached) {
        ([], false) => (diff::Side::Index, diff::Side::Worktree),
        ([], true) => {
            let head = revs::resolve(repo, "HEAD").map(|id| repo.tree_of(id)).transpose()?;
            (
                head.map_or(diff::Side::Tree(gix::ObjectId::empty_tree(gix::hash::Kind::Sha1)), diff::Side::Tree),
                diff::Side::Index,
            )
        }
        ([one], false) => (*one, diff::Side::Worktree),
        ([one], true) => (*one, diff::Side::Index),
        ([a, b], false) => (*a, *b),
        ([_, _], true) => {
            return Err(Error::Usage("usage: git diff --cached [<options>] [<commit>] [--] [<path>...]".into()));
        }
        _ => unreachable!("at most two sides"),
    };
    let (old, new) = if reverse { (new, old) } else { (old, new) };
    if reverse {
        std::mem::swap(&mut opts.src_prefix, &mut opts.dst_prefix);
    }
    opts.finish()?;
    let pathspec = pathspec::Pathspec::new(&paths, &repo.prefix)?;
    let changes = opts.filtered(diff::changes(
        repo,
        diff::side_files(repo, old, &pathspec)?,
        diff::side_files(repo, new, &pathspec)?,
        opts.renames,
    )?);
    if opts.forms == 0 {
        opts.forms = diff::form::PATCH;
    }
    if quiet {
        opts.forms = diff::form::NO_OUTPUT;
    }
    diff::print(repo, &changes, &opts, out)?;
    // git finds no changes to report when it printed only `--summary`.
    let found = !changes.is_empty() && opts.forms != diff::form::SUMMARY;
    Ok(if (exit_code || quiet) && found { 1 } else { 0 })
}

fn ls_files(args: &[String], repo: &repo::Repo, ctx: &Ctx, out: &mut Vec<u8>) -> Result<i32, Error> {
    let mut zero = false;
    let mut stage = false;
    let mut others = false;
    let mut exclude_standard = false;
    let mut cached = false;
    let mut paths = Vec::new();
    let mut a = Args::new(args);
    while let Some(arg) = a.next() {
        if a.after_dashdash || !arg.starts_with('-') {
            paths.push(arg);
            continue;
        }
        match arg.as_str() {
            "-z" => zero = true,
            "-s" | "--stage" => stage = true,
            "-c" | "--cached" => cached = true,
            "-o" | "--others" => others = true,
            "--exclude-standard" => exclude_standard = true,
            _ => return Err(Error::Unsupported(format!("option '{arg}' of git ls-files"))),
        }
    }
    let pathspec = pathspec::Pathspec::new(&paths, &repo.prefix)?;
    let show = |path: &[u8], out: &mut Vec<u8>| {
        let shown = &path[repo.prefix.len()..];
        if zero {
            out.extend_from_slice(shown);
            out.push(0);
        } else {
            out.extend_from_slice(diff::quote(b"", shown).as_bytes());
            out.push(b'\n');
        }
    };
    if others {
        if !exclude_standard {
            return Err(Error::Unsupported("git ls-files --others without --exclude-standard (ignored files)".into()));
        }
        if stage {
            return Err(Error::Unsupported("git ls-files --others with --stage".into()));
        }
        // git lists the index's files first only when both are asked for.
        if cached {
            return Err(Error::Unsupported("git ls-files --others with --cached".into()));
        }
        for path in status::untracked_paths(ctx, repo, false)? {
            if path.starts_with(repo.prefix.as_bytes()) && pathspec.matches(&path) {
                show(&path, out);
            }
        }
        return Ok(0);
    }
    for (path, entry) in repo.index_entries()? {
        if !path.starts_with(repo.prefix.as_bytes()) || !pathspec.matches(&path) {
            continue;
        }
        if stage {
            let _ = write!(log::Sink(out), "{:o} {} 0\t", entry.mode, entry.id);
        }
        show(&path, out);
    }
    Ok(0)
}
