//! `git grep`: the tracked files of the working tree (the index's paths, read from the
//! working tree), searched line by line. Patterns are translated to the `regex` crate
//! by `reviewhost-grep`'s GNU translation (git uses the C library's POSIX regex, the
//! same syntax).

use crate::pathspec::Pathspec;
use crate::repo::{MODE_GITLINK, MODE_LINK, Repo};
use crate::{Args, Error};
use regex::bytes::Regex;

#[derive(Default)]
struct Options {
    line_numbers: bool,
    syntax: Option<char>,
    ignore_case: bool,
    files_with: bool,
    files_without: bool,
    count: bool,
    word: bool,
    invert: bool,
    no_names: bool,
    quiet: bool,
    skip_binary: bool,
    patterns: Vec<String>,
    paths: Vec<String>,
}

pub fn grep(args: &[String], repo: &Repo, out: &mut Vec<u8>) -> Result<i32, Error> {
    let mut o = Options::default();
    let mut operands = Vec::new();
    let mut a = Args::new(args);
    while let Some(arg) = a.next() {
        if a.after_dashdash {
            o.paths.push(arg);
            continue;
        }
        if !arg.starts_with('-') || arg == "-" {
            operands.push(arg);
            continue;
        }
        if let Some(v) = a.value(&arg, "-e", "--regexp")? {
            o.patterns.push(v);
            continue;
        }
        if arg.starts_with("--") {
            match arg.as_str() {
                "--line-number" => o.line_numbers = true,
                "--extended-regexp" => o.syntax = Some('E'),
                "--fixed-strings" => o.syntax = Some('F'),
                "--basic-regexp" => o.syntax = Some('G'),
                "--ignore-case" => o.ignore_case = true,
                "--files-with-matches" | "--name-only" => o.files_with = true,
                "--files-without-match" => o.files_without = true,
                "--count" => o.count = true,
                "--word-regexp" => o.word = true,
                "--invert-match" => o.invert = true,
                "--quiet" => o.quiet = true,
                "--recursive" | "--no-color" | "--color=never" | "--no-textconv" => {}
                _ => return Err(Error::Unsupported(format!("option '{arg}' of git grep"))),
            }
            continue;
        }
        // A cluster of short options (`-rn`, `-nE`).
        for c in arg[1..].chars() {
            match c {
                'n' => o.line_numbers = true,
                'E' | 'F' | 'G' => o.syntax = Some(c),
                'i' => o.ignore_case = true,
                'l' => o.files_with = true,
                'L' => o.files_without = true,
                'c' => o.count = true,
                'w' => o.word = true,
                'v' => o.invert = true,
                'h' => o.no_names = true,
                'H' => o.no_names = false,
                'q' => o.quiet = true,
                'I' => o.skip_binary = true,
                'r' => {}
                _ => return Err(Error::Unsupported(format!("option '-{c}' of git grep"))),
            }
        }
    }
    let mut operands = operands.into_iter();
    if o.patterns.is_empty() {
        match operands.next() {
            Some(p) => o.patterns.push(p),
            None => return Err(Error::Fatal("no pattern given".into())),
        }
    }
    for name in operands {
        // Revisions (`git grep PAT HEAD`) would search a tree: not offered.
        if !repo.may_be_path(&name) {
            if crate::revs::resolve(repo, &name).is_some() {
                return Err(Error::Unsupported("git grep in a revision (only the working tree is searched)".into()));
            }
            return Err(crate::revs::unknown_revision(&name));
        }
        o.paths.push(name);
    }
    let re = compile(&o)?;
    let pathspec = Pathspec::new(&o.paths, &repo.prefix)?;
    let mut any = false;
    for (path, entry) in repo.index_entries()? {
        if entry.mode == MODE_GITLINK || entry.mode == MODE_LINK {
            continue;
        }
        if (o.paths.is_empty() && !path.starts_with(repo.prefix.as_bytes())) || !pathspec.matches(&path) {
            continue;
        }
        let real = repo.work_path(&path);
        let Ok(meta) = std::fs::metadata(&real) else { continue };
        if !meta.is_file() {
            continue;
        }
        if meta.len() > crate::repo::MAX_OBJECT_SIZE {
            return Err(Error::Fatal(format!(
                "{}: larger than {} bytes, not searched",
                String::from_utf8_lossy(&path),
                crate::repo::MAX_OBJECT_SIZE
            )));
        }
        let Ok(data) = std::fs::read(&real) else { continue };
        let shown = relative(&path, &repo.prefix);
        let binary = data[..data.len().min(8000)].contains(&0);
        if binary && o.skip_binary {
            continue;
        }
        let mut count = 0usize;
        let mut lines_out = Vec::new();
        let mut text = &data[..];
        if text.ends_with(b"\n") {
            text = &text[..text.len() - 1];
        }
        for (n, line) in text.split(|b| *b == b'\n').enumerate() {
            if data.is_empty() {
                break;
            }
            if line_matches(&re, line, o.word) == o.invert {
                continue;
            }
            count += 1;
            if o.quiet || o.files_with || o.files_without || o.count || binary {
                continue;
            }
            if !o.no_names {
                lines_out.extend_from_slice(shown.as_bytes());
                lines_out.push(b':');
            }
            if o.line_numbers {
                lines_out.extend_from_slice(format!("{}:", n + 1).as_bytes());
            }
            lines_out.extend_from_slice(line);
            lines_out.push(b'\n');
        }
        if count > 0 {
            any = true;
        }
        if o.quiet {
            if any {
                return Ok(0);
            }
            continue;
        }
        if o.files_without {
            if count == 0 {
                out.extend_from_slice(format!("{shown}\n").as_bytes());
            }
            continue;
        }
        if count == 0 {
            continue;
        }
        if o.files_with {
            out.extend_from_slice(format!("{shown}\n").as_bytes());
        } else if o.count {
            if o.no_names {
                out.extend_from_slice(format!("{count}\n").as_bytes());
            } else {
                out.extend_from_slice(format!("{shown}:{count}\n").as_bytes());
            }
        } else if binary {
            out.extend_from_slice(format!("Binary file {shown} matches\n").as_bytes());
        } else {
            out.extend_from_slice(&lines_out);
        }
    }
    Ok(if any { 0 } else { 1 })
}

/// `path` (from the top) as seen from the current directory `prefix`.
fn relative(path: &[u8], prefix: &str) -> String {
    let path = String::from_utf8_lossy(path);
    if let Some(rest) = path.strip_prefix(prefix) {
        return crate::diff::quote(b"", rest.as_bytes());
    }
    let mut up = prefix.trim_end_matches('/').split('/').collect::<Vec<_>>();
    let mut rest: &str = &path;
    // Climb until the remaining prefix is a leading directory of the path.
    let mut ups = 0;
    while !up.is_empty() {
        let joined = format!("{}/", up.join("/"));
        if let Some(r) = path.strip_prefix(joined.as_str()) {
            rest = r;
            break;
        }
        up.pop();
        ups += 1;
    }
    crate::diff::quote(b"", format!("{}{rest}", "../".repeat(ups)).as_bytes())
}

fn compile(o: &Options) -> Result<Regex, Error> {
    let mut alternatives = Vec::new();
    for p in &o.patterns {
        let source = match o.syntax {
            Some('F') => regex::escape(p),
            Some('E') => translate(p, reviewhost_grep::translate::Syntax::Extended)?,
            _ => translate(p, reviewhost_grep::translate::Syntax::Basic)?,
        };
        alternatives.push(format!("(?:{source})"));
    }
    regex::bytes::RegexBuilder::new(&alternatives.join("|"))
        .case_insensitive(o.ignore_case)
        .size_limit(reviewhost_grep::search::REGEX_SIZE_LIMIT)
        .build()
        .map_err(|e| Error::Fatal(format!("command line: {e}")))
}

fn translate(p: &str, syntax: reviewhost_grep::translate::Syntax) -> Result<String, Error> {
    reviewhost_grep::translate::translate(p, syntax)
        .map(|t| t.regex)
        .map_err(|e| Error::Fatal(format!("command line, '{p}': {}", e.0)))
}

/// Whether `line` matches; with `word`, only a match with no word character right
/// before or after it counts (git and GNU grep's `-w`).
fn line_matches(re: &Regex, line: &[u8], word: bool) -> bool {
    if !word {
        return re.is_match(line);
    }
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut at = 0;
    while at <= line.len() {
        let Some(m) = re.find_at(line, at) else { return false };
        let before_ok = m.start() == 0 || !is_word(line[m.start() - 1]);
        let after_ok = m.end() == line.len() || !is_word(line[m.end()]);
        if before_ok && after_ok && m.start() < m.end() {
            return true;
        }
        at = m.start() + 1;
    }
    false
}
