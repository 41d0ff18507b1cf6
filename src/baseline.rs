//! Known failures accepted for now: `reviewhost run --baseline FILE`.
//!
//! A baseline maps assertion ids to the [`fingerprint`] of their failure: the id, the
//! status, what the check saw (its evidence) and its failure output (the message,
//! [`normalise`]d so a timestamp or a temporary path does not change it). A failure
//! whose id and fingerprint are in the baseline is reported as baselined and does not
//! fail the run; the same assertion failing differently (other evidence, another
//! message) is a new failure. A baselined assertion that now passes is reported, so its
//! entry can be pruned. `--update-baseline` writes the current failures, replacing the
//! file atomically.
//!
//! Baselines are versioned. Version 1 (before the message counted) fingerprinted the id
//! and the evidence only, so for a check without evidence (`shell_exit_zero`, an
//! `error`) it accepted any failure at all. A version 1 file is still read: its entry
//! accepts a failure whose evidence is not empty and gives the same version 1
//! fingerprint, and nothing else; a failure without evidence under a version 1 entry is
//! reported as needing `--update-baseline` and fails the run like a new one.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::assertion::{Assertion, Status};
use crate::check::Outcome;
use crate::run::RunReport;

/// The version `--update-baseline` writes.
pub const VERSION: u32 = 2;

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Baseline {
    /// 1: `entries` hold [`crate::report::fingerprint`]s (id and evidence); 2:
    /// [`fingerprint`]s (id, status, evidence and the normalised message). A file
    /// without it is version 1.
    #[serde(default = "version_1")]
    pub version: u32,
    /// id → fingerprint.
    pub entries: BTreeMap<String, String>,
}

fn version_1() -> u32 {
    1
}

/// How a run's failures stand against a baseline.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Comparison {
    /// Failing, as baselined.
    pub baselined: Vec<String>,
    /// Failing, and not in the baseline (or failing differently).
    pub new: Vec<String>,
    /// In the baseline, and passing now: the entry can go.
    pub fixed: Vec<String>,
    /// Failing, with an entry of a version 1 baseline that cannot tell this failure
    /// from another (the check gave no evidence): not accepted, until the failure is
    /// looked at and the baseline rewritten with `--update-baseline`.
    pub stale: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
#[error("{}: {reason}", path.display())]
pub struct BaselineError {
    path: std::path::PathBuf,
    reason: String,
}

impl Baseline {
    /// Reads a baseline file (a missing one is an error: name it with `--update-baseline`
    /// first), of version 1 or 2.
    pub fn load(path: &Path) -> Result<Baseline, BaselineError> {
        let error = |reason: String| BaselineError { path: path.to_path_buf(), reason };
        let bytes = crate::assertion::read(path).map_err(|e| error(e.to_string()))?;
        let baseline: Baseline =
            serde_json::from_slice(&bytes).map_err(|e| error(format!("not a reviewhost baseline: {e}")))?;
        if !(1..=VERSION).contains(&baseline.version) {
            return Err(error(format!(
                "a baseline of version {}, which this reviewhost (baselines up to version {VERSION}) cannot read",
                baseline.version
            )));
        }
        Ok(baseline)
    }

    /// The failures of `report`, as a baseline of the current version.
    pub fn of(report: &RunReport) -> Baseline {
        let entries = report
            .results
            .iter()
            .filter(|(_, o)| o.status != Status::Pass)
            .map(|(a, o)| (a.id.clone(), fingerprint(a, o)))
            .collect();
        Baseline { version: VERSION, entries }
    }

    /// Writes it to `path`, atomically, never through a symlink.
    pub fn save(&self, path: &Path) -> Result<(), BaselineError> {
        let error = |reason: String| BaselineError { path: path.to_path_buf(), reason };
        let (dir, name) = crate::write::open_parent(path).map_err(|e| error(e.to_string()))?;
        let value = serde_json::to_value(self).expect("a baseline serializes");
        crate::write::write_json_atomically(&dir, name, &value).map_err(|e| error(e.to_string()))
    }

    /// `report`'s failures against this baseline.
    pub fn compare(&self, report: &RunReport) -> Comparison {
        let mut comparison = Comparison::default();
        for (assertion, outcome) in &report.results {
            let id = assertion.id.clone();
            let Some(print) = self.entries.get(&assertion.id) else {
                if outcome.status != Status::Pass {
                    comparison.new.push(id);
                }
                continue;
            };
            if outcome.status == Status::Pass {
                comparison.fixed.push(id);
            } else if self.version >= 2 {
                match *print == fingerprint(assertion, outcome) {
                    true => comparison.baselined.push(id),
                    false => comparison.new.push(id),
                }
            } else if outcome.evidence.is_empty() {
                // Version 1 fingerprinted the id alone here: any failure would match.
                comparison.stale.push(id);
            } else {
                match *print == crate::report::fingerprint(assertion, outcome) {
                    true => comparison.baselined.push(id),
                    false => comparison.new.push(id),
                }
            }
        }
        comparison
    }
}

/// A failure's fingerprint in a baseline of version 2: SHA-256 over the id, the status,
/// each piece of evidence as the `path:line:text` line it was taken from, and the
/// message, each [`normalise`]d (which drops the line numbers of `path:line:` lines, so
/// code moving above a match does not change it).
pub fn fingerprint(assertion: &Assertion, outcome: &Outcome) -> String {
    let mut hash = Sha256::new();
    hash.update(b"reviewhost baseline 2\0");
    hash.update(assertion.id.as_bytes());
    hash.update([0]);
    hash.update(outcome.status.as_str().as_bytes());
    for e in &outcome.evidence {
        // The line it was read from (`path:line:text`), so a timestamp the split cut in
        // two is whole again, and normalised as a line of output is.
        let line = match e.line {
            Some(number) => format!("{}:{number}:{}", e.path, e.text),
            None => format!("{}:{}", e.path, e.text),
        };
        hash.update([1]);
        hash.update(normalise(&line).as_bytes());
    }
    hash.update([2]);
    hash.update(normalise(&outcome.message).as_bytes());
    format!("{:x}", hash.finalize())
}

/// A failure message with what changes from run to run for the same failure taken out,
/// in this order:
///
/// 1. terminal escape sequences (ANSI CSI and OSC) removed, and other control
///    characters but tab and newline;
/// 2. absolute temporary paths (`/tmp/…`, `/var/tmp/…`, `/dev/shm/…`,
///    `/var/folders/…`, `/private/…` of those, and under `$TMPDIR` when it is an
///    absolute path below `/`), starting the text or after a space, quote, `=`, `:`
///    or bracket, replaced by `<tmp>` to the end of the path;
/// 3. ISO 8601 dates and times (`2024-05-01T12:30:00.123Z`, `2024-05-01 12:30`), and
///    clock times (`12:30:00`, `12:30:00.5`; `12:3:00` too, as a time at the start of
///    a line comes back from evidence) by `<time>`;
/// 4. UUIDs, and hexadecimal words of 8 digits or more holding a letter a–f, or of 16
///    or more (commit ids, hashes, addresses, object ids) by `<hex>`;
/// 5. durations, a number with `ns`, `us`, `µs`, `ms`, `s`, `m` or `h` right after it
///    (`0.12s`, `350ms`) or `sec(s)`, `second(s)`, `minute(s)`, `millisecond(s)` after an
///    optional space, by `<duration>`;
/// 6. the line number of a line of grep-style output (`src/a.rs:12:text`) by `<line>`;
/// 7. each run of whitespace by one space, and none at either end.
///
/// Everything else (the words, the other numbers, relative paths) stays, so another
/// failure of the same check gives another fingerprint.
pub fn normalise(message: &str) -> String {
    static ESCAPE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-_]?").expect("valid")
    });
    static TEMP: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(&format!(r"{PATH_START}(?:/private)?/(?:tmp|var/tmp|dev/shm|var/folders)\b{PATH_REST}"))
            .expect("valid")
    });
    static TIME: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{1,2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?\b|\b\d{1,2}:\d{1,2}:\d{2}(?:[.,]\d+)?\b",
        )
        .expect("valid")
    });
    static HEX: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"\b(?:[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}|(?:0x)?[0-9a-fA-F]{8,})\b",
        )
        .expect("valid")
    });
    static DURATION: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"\b\d+(?:\.\d+)?(?:(?:ns|us|µs|ms|s|m|h)\b|\s?(?:milliseconds?|millis|secs?|seconds?|minutes?|mins?)\b)",
        )
        .expect("valid")
    });
    static LINE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?m)^(?P<path>[^:\n]+):\d+:").expect("valid"));
    let text = ESCAPE.replace_all(message, "");
    let text: String = text.chars().filter(|c| !c.is_control() || matches!(c, '\t' | '\n')).collect();
    let text = replace_temp_dir(&text);
    let text = TEMP.replace_all(&text, "${start}<tmp>");
    let text = TIME.replace_all(&text, "<time>");
    let text = HEX.replace_all(&text, |found: &regex::Captures| {
        let word = found[0].trim_start_matches("0x");
        let uuid = word.contains('-');
        let lettered = word.bytes().any(|b| b.is_ascii_alphabetic());
        if uuid || lettered || word.len() >= 16 { "<hex>".to_string() } else { found[0].to_string() }
    });
    let text = DURATION.replace_all(&text, "<duration>");
    let text = LINE.replace_all(&text, "${path}:<line>:");
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Where an absolute path starts: the text's start or a character that cannot end a
/// path's previous component (so `src/tmp/x` is no temporary path).
const PATH_START: &str = r#"(?P<start>^|[\s'"`=,;:(\[{<])"#;
/// The rest of a path: its components, to a character that ends it.
const PATH_REST: &str = r#"(?:/[^\s'"`,;:()\[\]{}<>]*)?"#;

/// `text` with paths under `$TMPDIR` (when it is an absolute directory below `/`)
/// replaced by `<tmp>`.
fn replace_temp_dir(text: &str) -> Cow<'_, str> {
    let Some(dir) = std::env::var_os("TMPDIR") else { return Cow::Borrowed(text) };
    let dir = dir.to_string_lossy();
    let dir = dir.trim_end_matches('/');
    if !dir.starts_with('/') || dir.len() < 2 || !text.contains(dir) {
        return Cow::Borrowed(text);
    }
    let pattern = format!(r"{PATH_START}{}(?:\b|$){PATH_REST}", regex::escape(dir));
    match Regex::new(&pattern) {
        Ok(re) => Cow::Owned(re.replace_all(text, "${start}<tmp>").into_owned()),
        Err(_) => Cow::Borrowed(text),
    }
}
