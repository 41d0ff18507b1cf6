//! What a run prints or writes: the seed-compatible text summary, a JSON document, and
//! the formats CI systems and review bots read natively (JUnit XML, SARIF 2.1.0, GitHub
//! workflow commands, GitLab Code Quality, reviewdog's rdjson).
//!
//! Every machine format points at source lines through [`locations`], which is where
//! untrusted evidence paths are checked: a check cannot make an annotation or a code
//! scanning alert point outside the repository. Every human format (the text report,
//! the annotations' text, Markdown) prints untrusted text through [`inert`], which
//! escapes what would act on a terminal or a CI log.

mod codequality;
mod github;
mod hook;
mod inert;
mod json;
mod junit;
mod rdjson;
mod sarif;
mod text;

use std::collections::HashMap;
use std::io::{self, Write};
use std::path::{Component, Path};

pub use github::{escape_data, escape_property, write_step_summary};
pub use inert::{inert, inert_lines};
pub use json::{MergeError, merge};
pub use text::{Detail, TextStyle};

use crate::assertion::Assertion;
use crate::check::Outcome;
use crate::run::RunReport;

/// The output formats of `reviewhost run`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// One line per assertion and a confidence line, like seed 000's runner.
    Text,
    /// One JSON document with every result, its message, evidence and duration.
    Json,
    /// JUnit XML: a testsuite per assertions file, a testcase per assertion.
    Junit,
    /// SARIF 2.1.0, for GitHub code scanning and other SARIF viewers.
    Sarif,
    /// The text report plus GitHub Actions annotations (`::error file=…`).
    Github,
    /// GitLab Code Quality (`artifacts:reports:codequality`), for the merge request widget.
    Codequality,
    /// reviewdog's Diagnostic Format (`reviewdog -f=rdjson`), for review comments.
    Rdjson,
    /// For an agent's hook (Claude Code): a short digest of what fails, on stderr, and
    /// exit status 2 (the one that blocks the agent) on failures.
    ClaudeHook,
}

impl Format {
    pub fn name(self) -> &'static str {
        match self {
            Format::Text => "text",
            Format::Json => "json",
            Format::Junit => "junit",
            Format::Sarif => "sarif",
            Format::Github => "github",
            Format::Codequality => "codequality",
            Format::Rdjson => "rdjson",
            Format::ClaudeHook => "claude-hook",
        }
    }
}

/// Writes `report` in `format`. `style` only shapes the text parts.
pub fn write(format: Format, report: &RunReport, style: &TextStyle, out: &mut dyn Write) -> io::Result<()> {
    match format {
        Format::Text => text::write_text(report, style, out),
        Format::Json => json::write_json(report, out),
        Format::Junit => junit::write_junit(report, out),
        Format::Sarif => sarif::write_sarif(report, out),
        Format::Github => {
            text::write_text(report, style, out)?;
            github::write_annotations(report, out)
        }
        Format::Codequality => codequality::write_codequality(report, out),
        Format::Rdjson => rdjson::write_rdjson(report, out),
        Format::ClaudeHook => hook::write_digest(report, out),
    }
}

/// Writes the `format` report of `report` to the file `path` atomically: a reader (an
/// upload step) never sees half of it, and a symlink at `path` is refused, never written
/// through.
pub fn write_file(format: Format, report: &RunReport, style: &TextStyle, path: &Path) -> io::Result<()> {
    let (dir, name) = crate::write::open_parent(path)?;
    crate::write::write_atomically(&dir, name, |out| write(format, report, style, out))
}

/// A place in the repository a result points at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// Relative, `/`-separated, never leaving the repository.
    pub path: String,
    pub line: Option<u32>,
}

/// Where the results of one report point. The assertions file is read once and its ids
/// mapped to their lines in one pass, so writing a report is linear in its results
/// (reading the file again per result made SARIF quadratic).
pub struct Places<'r> {
    report: &'r RunReport,
    base: String,
    /// The assertions file as shown (relative to the working directory when inside it).
    file: String,
    /// Each id's line in the assertions file (its first `"id": …`).
    lines: HashMap<String, u32>,
}

impl<'r> Places<'r> {
    pub fn new(report: &'r RunReport) -> Places<'r> {
        let file = std::path::absolute(&report.file).unwrap_or_else(|_| report.file.clone());
        let shown = relative_to_cwd(&file).unwrap_or_else(|| file.to_string_lossy().into_owned());
        // Read as the run read it (bounded, non-blocking): the file may have been replaced.
        let text = crate::assertion::read(&report.file).ok().and_then(|bytes| String::from_utf8(bytes).ok());
        Places {
            report,
            base: base_dir(&report.root),
            file: shown,
            lines: text.map(|t| id_lines(&t)).unwrap_or_default(),
        }
    }

    /// Where the result of `assertion` points: its evidence (paths under the root, shown
    /// relative to the working directory when the root lies inside it, the way CI systems
    /// resolve them), or, without usable evidence, the assertion itself in the assertions
    /// file, so every alert has a place.
    pub fn locations(&self, assertion: &Assertion, outcome: &Outcome) -> Vec<Location> {
        let found: Vec<Location> = outcome
            .evidence
            .iter()
            .filter_map(|e| contained(&e.path).map(|p| Location { path: join(&self.base, &p), line: e.line }))
            .collect();
        if !found.is_empty() {
            return found;
        }
        vec![self.assertion(assertion)]
    }

    /// The assertion itself: its own line in the assertions file.
    pub fn assertion(&self, assertion: &Assertion) -> Location {
        Location { path: self.file.clone(), line: self.lines.get(&assertion.id).copied() }
    }

    /// The report these places are for.
    pub fn report(&self) -> &'r RunReport {
        self.report
    }
}

/// A failure's identity across runs: the assertion's id and what its check saw (each
/// evidence path and text), hashed (SHA-256, hex). SARIF's `partialFingerprints` and the
/// baseline (`reviewhost run --baseline`) use it: the same failure keeps its identity, a
/// new finding of the same assertion does not.
pub fn fingerprint(assertion: &Assertion, outcome: &Outcome) -> String {
    use sha2::{Digest, Sha256};
    let mut hash = Sha256::new();
    hash.update(assertion.id.as_bytes());
    for e in &outcome.evidence {
        hash.update([0]);
        hash.update(e.path.as_bytes());
        hash.update([0]);
        hash.update(e.text.as_bytes());
    }
    format!("{:x}", hash.finalize())
}

/// The root relative to the working directory (`""` when it is the working directory),
/// or `None` when the root is elsewhere and paths stay root-relative.
fn base_dir(root: &Path) -> String {
    relative_to_cwd(root).unwrap_or_default()
}

fn relative_to_cwd(path: &Path) -> Option<String> {
    let cwd = std::env::current_dir().ok()?;
    let relative = path.strip_prefix(&cwd).ok()?;
    Some(relative.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/"))
}

fn join(base: &str, path: &str) -> String {
    if base.is_empty() { path.to_string() } else { format!("{base}/{path}") }
}

/// `path` (written by an untrusted check) as a clean relative path, or `None` when it
/// is empty or would leave the root, as written or once a consumer has percent-decoded
/// it (a SARIF `uri` is a URI reference: `%2e%2e/etc/passwd` is `../etc/passwd` to a
/// viewer). Refused: a `..` component, a backslash, a drive or URI scheme (a `:` in the
/// first component), a control character or anything else [`inert`] would escape, and,
/// after decoding, an absolute path or bytes that are not UTF-8. Every decoding is
/// checked, down to the text with nothing left to decode, so a viewer that decodes
/// twice is no way out either.
fn contained(path: &str) -> Option<String> {
    let mut parts = Vec::new();
    for component in Path::new(path).components() {
        match component {
            Component::Normal(part) => parts.push(part.to_str()?),
            Component::RootDir | Component::CurDir => {}
            Component::ParentDir | Component::Prefix(_) => return None,
        }
    }
    let clean = parts.join("/");
    if clean.is_empty() || !clean_segments(&clean) {
        return None;
    }
    let mut decoded = clean.clone();
    loop {
        let next = percent_decoded(&decoded)?;
        if next == decoded {
            break;
        }
        if next.starts_with('/') || !clean_segments(&next) {
            return None;
        }
        decoded = next;
    }
    Some(clean)
}

/// Whether `path` has no character that could change how it is read, no drive or
/// scheme, and no `..` segment.
fn clean_segments(path: &str) -> bool {
    !path.chars().any(|c| c == '\\' || inert::is_escaped(c))
        && !path.split('/').find(|s| !s.is_empty() && *s != ".").is_some_and(|first| first.contains(':'))
        && !path.split('/').any(|segment| segment == "..")
}

/// `text` with each `%XX` replaced by its byte, or `None` when the bytes are not UTF-8.
fn percent_decoded(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| char::from(b).to_digit(16);
        match (bytes[i], bytes.get(i + 1).copied().and_then(hex), bytes.get(i + 2).copied().and_then(hex)) {
            (b'%', Some(high), Some(low)) => {
                out.push((high * 16 + low) as u8);
                i += 3;
            }
            (byte, _, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8(out).ok()
}

/// The 1-based line of each `"id": "<id>"` in the assertions file's text (the first, for
/// an id written twice), in one pass.
fn id_lines(text: &str) -> HashMap<String, u32> {
    let mut lines = HashMap::new();
    let (mut line, mut counted) = (1u32, 0usize);
    let mut from = 0;
    while let Some(found) = text[from..].find("\"id\"") {
        let at = from + found;
        from = at + 4;
        if text[..at].ends_with('\\') {
            continue;
        }
        let rest = text[from..].trim_start();
        let Some(value) = rest.strip_prefix(':').map(str::trim_start) else { continue };
        let mut stream = serde_json::Deserializer::from_str(value).into_iter::<String>();
        let Some(Ok(id)) = stream.next() else { continue };
        line += u32::try_from(text[counted..at].matches('\n').count()).unwrap_or(u32::MAX);
        counted = at;
        lines.entry(id).or_insert(line);
    }
    lines
}

/// The report's file name for titles: the path as given.
fn file_label(report: &RunReport) -> String {
    report.file.display().to_string()
}

/// A result that did not pass, for the machine formats: the assertion's id, then `text`
/// (its message, or [`details`]), saying so when it could not be evaluated.
fn headline(assertion: &Assertion, outcome: &Outcome, text: &str) -> String {
    match outcome.status {
        crate::assertion::Status::Error => format!("{}: could not be evaluated: {text}", assertion.id),
        _ => format!("{}: {text}", assertion.id),
    }
}

/// Text of a result for the machine formats: the message, then one line per evidence.
fn details(outcome: &Outcome) -> String {
    let mut out = outcome.message.clone();
    for e in &outcome.evidence {
        out.push('\n');
        match e.line {
            Some(line) => out.push_str(&format!("{}:{line}: {}", e.path, e.text)),
            None => out.push_str(&format!("{}: {}", e.path, e.text)),
        }
    }
    out
}

#[cfg(test)]
mod scale_tests;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evidence_paths_cannot_leave_the_root() {
        assert_eq!(contained("src/a.rs").as_deref(), Some("src/a.rs"));
        assert_eq!(contained("./src//a.rs").as_deref(), Some("src/a.rs"));
        assert_eq!(contained("/src/a.rs").as_deref(), Some("src/a.rs"));
        assert_eq!(contained("../etc/passwd"), None);
        assert_eq!(contained("src/../../x"), None);
        assert_eq!(contained(""), None);
        assert_eq!(contained("/"), None);
        assert_eq!(contained("a\nb"), None);
        assert_eq!(contained("a\u{1b}[2Jb"), None);
        assert_eq!(contained("a\u{202e}b"), None);
        assert_eq!(contained("src\\..\\..\\x"), None);
        assert_eq!(contained("C:/Windows/win.ini"), None);
        assert_eq!(contained("file:/etc/passwd"), None);
        assert_eq!(contained("src/a:b.rs").as_deref(), Some("src/a:b.rs"), "a colon after the first segment is a name");
    }

    #[test]
    fn percent_encoded_evidence_paths_cannot_leave_the_root() {
        for hostile in [
            "%2e%2e/%2e%2e/etc/passwd",
            "%2E%2E/x",
            "src/%2e%2e/%2e%2e/x",
            ".%2e/x",
            "%252e%252e/x",
            "%25252e%25252e/x",
            "%2fetc/passwd",
            "src/%2f..%2fx",
            "%5c..%5cx",
            "%43:/x",
            "C%3A/x",
            "a%0Ab",
            "a%1b%5d52%3bc%3bx",
            "a%e2%80%aeb",
            "a%ffb",
        ] {
            assert_eq!(contained(hostile), None, "{hostile}");
        }
        // What decodes to a name inside the root stays, as written.
        assert_eq!(contained("src/a%20b.rs").as_deref(), Some("src/a%20b.rs"));
        assert_eq!(contained("100%.txt").as_deref(), Some("100%.txt"));
        assert_eq!(contained("src/%2e%2erc").as_deref(), Some("src/%2e%2erc"));
    }

    #[test]
    fn finds_the_line_of_an_assertion_id() {
        let text = "{\n  \"assertions\": [\n    {\"description\": \"A-2\", \"id\": \"A-1\"},\n    {\n      \"id\" :  \"A-2\"\n    }\n  ]\n}";
        let lines = id_lines(text);
        assert_eq!(lines.get("A-1"), Some(&3));
        assert_eq!(lines.get("A-2"), Some(&5));
        assert_eq!(lines.get("A-3"), None);
    }
}
