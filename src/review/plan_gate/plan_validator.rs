//! The deterministic "conformance" stage of `reviewhost plan-gate`: checks a tugplan
//! (a Markdown implementation plan in the tugtool skeleton format) before any agent
//! reviews it, so a plan that is structurally broken never costs a critic run.
//!
//! It reproduces the codes, messages and `--json` output of tugtool's
//! `tugutil validate --json --level strict`, as far as that tool's own fixtures and
//! golden files show (`tests/fixtures/{valid,invalid,golden}` in tugtool, copied to
//! `shared/corpus/review-loops/tugplug/validator`). Errors:
//!
//! | code | rule |
//! |------|------|
//! | E001 | a required section anchor is missing ([`REQUIRED_SECTIONS`]) |
//! | E002 | Owner, Status or Last updated is missing or empty in the metadata table |
//! | E003 | Status is not draft, active or done (any case) |
//! | E004 | a step has no `**References:**` line |
//! | E005 | an anchor `{#…}` is not kebab-case (`[a-z0-9][a-z0-9-]*`) |
//! | E006 | an anchor is defined twice |
//! | E010 | a `**Depends on:**` names an anchor that does not exist |
//! | E011 | the steps' dependencies form a cycle |
//!
//! Warnings (the structural rules of the conformance agent, where the original has a
//! matching check):
//!
//! | code | rule |
//! |------|------|
//! | W001 | a decision heading is not `#### [DNN] Title (DECIDED) {#dnn-slug}` |
//! | W007 | a step other than the first has no `**Depends on:**` anchor |
//! | W012 | a step's References cite a decision `[DNN]` that is not defined |
//! | W013 | a step's References cite an anchor `#…` that is not defined |
//!
//! The original's other warnings (W003/W004/W009/W010 on missing Tasks, Tests,
//! Checkpoint or Commit lines, W011 on uncited decisions) are not reproduced: its
//! golden files show they did not exist when those files were made (the
//! missing-metadata fixture has no Commit line yet no warning).
//!
//! Everything is hand-parsed line by line (no regex, no Markdown crate): fenced code
//! blocks and inline code spans are skipped, so an example in a plan is never taken for
//! its structure.
//!
//! Where it differs from the original, on purpose:
//! - E005 covers every malformed `{#…}`. The original's parser only collected anchors
//!   already made of `[a-z0-9-]`, so it reported the others as parse diagnostic P005
//!   instead (which the conformance agent escalated just the same).
//! - W007 exempts the first step, not "Step 1": plans also number from Step 0, and the
//!   approved checklist-reconciliation plan (Step 0 first) must come out clean.
//! - Inline code spans and `~~~` fences are code; E011 gives the line and anchor of the
//!   cycle's first step; E001 names "Plan Metadata" (later versions of the original
//!   say "TugPlan Metadata", from a rename).

use std::collections::{HashMap, HashSet};

use serde::Serialize;
use serde_json::{Value, json};

/// The sections every plan must have, as (anchor, name in the message). A section is
/// found by its anchor, or by an anchor ending in `-<anchor>`, as in the original;
/// Execution Steps is also found when the plan has any step at all.
pub const REQUIRED_SECTIONS: [(&str, &str); 5] = [
    ("plan-metadata", "Plan Metadata"),
    ("phase-overview", "Phase Overview"),
    ("design-decisions", "Design Decisions"),
    ("execution-steps", "Execution Steps"),
    ("deliverables", "Deliverables"),
];

/// The metadata fields that must be present and non-empty, in the order reported.
/// Target branch and Tracking issue/PR are optional, as in the original.
pub const REQUIRED_METADATA: [&str; 3] = ["Owner", "Status", "Last updated"];

/// The values Status may take (compared without regard to case, as in the original).
pub const STATUSES: [&str; 3] = ["draft", "active", "done"];

/// One finding, in the shape of the original's `issues[]` entries (field order included).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Issue {
    /// `E001`…`E011` for errors, `W…` for warnings.
    pub code: String,
    pub severity: Severity,
    pub message: String,
    /// The name the plan was validated under.
    pub file: String,
    /// 1-based line, when the finding has one place.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// The anchor the finding is about, with its `#`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub anchor: Option<String>,
}

impl Issue {
    fn new(code: &str, severity: Severity, message: String, file: &str) -> Issue {
        Issue { code: code.to_string(), severity, message, file: file.to_string(), line: None, anchor: None }
    }

    fn at_line(mut self, line: usize) -> Issue {
        self.line = Some(line);
        self
    }

    fn with_anchor(mut self, anchor: &str) -> Issue {
        self.anchor = Some(format!("#{anchor}"));
        self
    }
}

/// How bad a finding is: an error fails the plan; a warning asks for a revision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

/// What [`validate`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// Errors first, by code, then warnings by code; each code's issues in document order.
    pub issues: Vec<Issue>,
    /// Execution steps found (`### Step N: …` to `##### Step N: …`).
    pub steps: usize,
    /// Design decisions found (headings starting `[DNN]`).
    pub decisions: usize,
}

impl Report {
    /// Number of error issues.
    #[must_use]
    pub fn errors(&self) -> usize {
        self.count(Severity::Error)
    }

    /// Number of warning issues.
    #[must_use]
    pub fn warnings(&self) -> usize {
        self.count(Severity::Warning)
    }

    fn count(&self, severity: Severity) -> usize {
        self.issues.iter().filter(|issue| issue.severity == severity).count()
    }

    /// The original's golden JSON shape: `{schema_version:"1", command:"validate",
    /// status:"ok"|"error", data:{files:[{path,valid,error_count,warning_count}]}, issues:[…]}`
    ///
    /// `path` goes in `data.files[0].path`; each issue keeps the `file` it was made with,
    /// so pass [`validate`] the same name. Keys are in the original's order (the build
    /// enables the `preserve_order` feature of `serde_json`).
    #[must_use]
    pub fn to_json(&self, path: &str) -> Value {
        let valid = self.errors() == 0;
        json!({
            "schema_version": "1",
            "command": "validate",
            "status": if valid { "ok" } else { "error" },
            "data": {
                "files": [{
                    "path": path,
                    "valid": valid,
                    "error_count": self.errors(),
                    "warning_count": self.warnings(),
                }],
            },
            "issues": self.issues,
        })
    }
}

/// Validates the plan text; `file` is the name used in issues.
#[must_use]
pub fn validate(text: &str, file: &str) -> Report {
    let plan = Plan::parse(text);
    let mut check = Checks { plan: &plan, file, issues: Vec::new() };
    check.required_sections();
    check.required_metadata();
    check.status_value();
    check.step_references();
    check.anchor_format();
    check.duplicate_anchors();
    check.dependency_targets();
    check.dependency_cycles();
    check.decision_format();
    check.step_dependencies();
    check.cited_decisions();
    check.cited_anchors();
    Report { issues: check.issues, steps: plan.steps.len(), decisions: plan.decisions.len() }
}

// === The parsed plan ===

/// The parts of a plan the checks look at.
#[derive(Debug, Default)]
struct Plan {
    /// Every `{#…}` outside code, in document order, duplicates included.
    anchors: Vec<Anchor>,
    /// Metadata table rows, by lower-cased field name (a later row wins).
    metadata: HashMap<String, String>,
    steps: Vec<Step>,
    decisions: Vec<Decision>,
}

#[derive(Debug)]
struct Anchor {
    name: String,
    line: usize,
}

#[derive(Debug)]
struct Step {
    /// "1", "0", or "2.1".
    number: String,
    /// Its heading's anchor, or `step-N` when the heading has none (as in the original).
    anchor: String,
    line: usize,
    /// The heading level: the step runs until the next heading at this level or above.
    level: usize,
    /// The anchors named on its `**Depends on:**` lines.
    depends_on: Vec<String>,
    /// The text after each `**References:**` (non-empty).
    references: Vec<String>,
}

#[derive(Debug)]
struct Decision {
    /// "D01".
    id: String,
    title: String,
    /// The word in the trailing `(…)`, e.g. "DECIDED".
    status: Option<String>,
    anchor: Option<String>,
    line: usize,
    level: usize,
}

impl Plan {
    /// One pass over the lines. Fenced code is skipped whole; the Plan Metadata section
    /// feeds the metadata table; lines under a step heading feed that step.
    fn parse(text: &str) -> Plan {
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let mut plan = Plan::default();
        let mut fence: Option<Fence> = None;
        let mut in_metadata = false;
        let mut step: Option<usize> = None;
        for (index, line) in text.lines().enumerate() {
            let number = index + 1;
            if let Some(open) = &fence {
                if open.is_closed_by(line) {
                    fence = None;
                }
                continue;
            }
            if let Some(open) = Fence::opened_by(line) {
                fence = Some(open);
                continue;
            }
            plan.anchors.extend(anchors_in(line).into_iter().map(|name| Anchor { name, line: number }));
            if let Some(heading) = Heading::parse(line) {
                in_metadata = heading.is_metadata();
                if step.is_some_and(|at| heading.level <= plan.steps[at].level) {
                    step = None;
                }
                if let Some(new) = Step::from_heading(&heading, number) {
                    plan.steps.push(new);
                    step = Some(plan.steps.len() - 1);
                } else if let Some(decision) = Decision::from_heading(&heading, number) {
                    plan.decisions.push(decision);
                }
                continue;
            }
            if in_metadata && let Some((field, value)) = metadata_row(line) {
                plan.metadata.insert(field, value);
            }
            if let Some(at) = step {
                plan.steps[at].read(line);
            }
        }
        plan
    }

    /// The value of a metadata field, if present and non-empty.
    fn metadata(&self, field: &str) -> Option<&str> {
        self.metadata.get(&field.to_lowercase()).map(String::as_str).filter(|value| !value.is_empty())
    }

    /// The anchor names, each once.
    fn anchor_names(&self) -> HashSet<&str> {
        self.anchors.iter().map(|anchor| anchor.name.as_str()).collect()
    }
}

impl Step {
    /// `### Step N: Title {#step-n}` (levels 3 to 5, capital S, colon optional).
    fn from_heading(heading: &Heading<'_>, line: usize) -> Option<Step> {
        if !(3..=5).contains(&heading.level) {
            return None;
        }
        let rest = heading.text.strip_prefix("Step")?;
        let rest = rest.strip_prefix(char::is_whitespace)?.trim_start();
        let number = step_number(rest)?;
        let after = &rest[number.len()..];
        if !(after.is_empty() || after.starts_with(':') || after.starts_with(char::is_whitespace)) {
            return None;
        }
        let anchor = heading.anchor.map_or_else(|| format!("step-{}", number.replace('.', "-")), str::to_string);
        Some(Step {
            number: number.to_string(),
            anchor,
            line,
            level: heading.level,
            depends_on: Vec::new(),
            references: Vec::new(),
        })
    }

    /// Takes in a line of the step's body: its `**Depends on:**` and `**References:**`.
    fn read(&mut self, line: &str) {
        let line = line.trim_start();
        if let Some(rest) = line.strip_prefix("**Depends on:**") {
            self.depends_on.extend(anchor_refs(&without_code_spans(rest)));
        } else if let Some(rest) = line.strip_prefix("**References:**") {
            let rest = rest.trim();
            if !rest.is_empty() {
                self.references.push(rest.to_string());
            }
        }
    }
}

/// The step number at the start of `text`: digits, optionally `.digits` parts ("2.1").
fn step_number(text: &str) -> Option<&str> {
    let digits = |from: usize| text[from..].bytes().take_while(u8::is_ascii_digit).count();
    let mut end = digits(0);
    if end == 0 {
        return None;
    }
    // Each `.` must be followed by more digits to belong to the number.
    while text[end..].starts_with('.') && digits(end + 1) > 0 {
        end += 1 + digits(end + 1);
    }
    Some(&text[..end])
}

impl Decision {
    /// A heading whose text starts `[DNN]`, at any level (the level is checked by W001):
    /// `[DNN] Title (STATUS) {#anchor}`.
    fn from_heading(heading: &Heading<'_>, line: usize) -> Option<Decision> {
        let rest = heading.text.strip_prefix("[D")?;
        let digits = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
        if digits == 0 || !rest[digits..].starts_with(']') {
            return None;
        }
        let id = format!("D{}", &rest[..digits]);
        let (title, status) = split_status(rest[digits + 1..].trim());
        Some(Decision {
            id,
            title: title.to_string(),
            status: status.map(str::to_string),
            anchor: heading.anchor.map(str::to_string),
            line,
            level: heading.level,
        })
    }
}

/// "Title (DECIDED)" → ("Title", Some("DECIDED")); the status is one word.
fn split_status(text: &str) -> (&str, Option<&str>) {
    if let Some(inner) = text.strip_suffix(')')
        && let Some(open) = inner.rfind('(')
    {
        let word = &inner[open + 1..];
        if !word.is_empty() && word.chars().all(|c| c.is_alphanumeric() || c == '_') {
            return (inner[..open].trim_end(), Some(word));
        }
    }
    (text, None)
}

// === Markdown pieces ===

/// An ATX heading: `### Text {#anchor}`.
#[derive(Debug)]
struct Heading<'a> {
    level: usize,
    /// The text without the trailing anchor.
    text: &'a str,
    anchor: Option<&'a str>,
}

impl<'a> Heading<'a> {
    fn parse(line: &'a str) -> Option<Heading<'a>> {
        let level = line.bytes().take_while(|&b| b == b'#').count();
        if !(1..=6).contains(&level) {
            return None;
        }
        let rest = &line[level..];
        if !(rest.is_empty() || rest.starts_with(char::is_whitespace)) {
            return None;
        }
        let text = rest.trim();
        if let Some(inner) = text.strip_suffix('}')
            && let Some(open) = inner.rfind("{#")
        {
            return Some(Heading { level, text: inner[..open].trim_end(), anchor: Some(&inner[open + 2..]) });
        }
        Some(Heading { level, text, anchor: None })
    }

    /// The Plan Metadata section: its anchor, or a heading that says "metadata" (as in
    /// the original). Its table is the only one read as metadata.
    fn is_metadata(&self) -> bool {
        self.anchor == Some("plan-metadata") || self.text.to_lowercase().contains("metadata")
    }
}

/// An open code fence: three or more backticks or tildes. It is closed by a line of only
/// the same character, at least as many (as in `CommonMark`), so a line such as
/// `` ```rust `` inside a longer fence does not end it. (The original toggled on any line
/// starting with three backticks and knew no tildes.)
#[derive(Debug)]
struct Fence {
    marker: u8,
    len: usize,
}

impl Fence {
    fn opened_by(line: &str) -> Option<Fence> {
        let text = line.trim_start();
        let marker = *text.as_bytes().first()?;
        if marker != b'`' && marker != b'~' {
            return None;
        }
        let len = text.bytes().take_while(|&b| b == marker).count();
        // A backtick fence's info string cannot hold a backtick (that is inline code).
        if len < 3 || (marker == b'`' && text[len..].contains('`')) {
            return None;
        }
        Some(Fence { marker, len })
    }

    fn is_closed_by(&self, line: &str) -> bool {
        let text = line.trim();
        text.len() >= self.len && text.bytes().all(|b| b == self.marker)
    }
}

/// The line with its inline code spans (`` `…` ``, ``` ``…`` ```) blanked out, so an
/// anchor or reference written as an example is not taken for a real one.
fn without_code_spans(line: &str) -> String {
    let bytes = line.as_bytes();
    let mut out = String::with_capacity(line.len());
    let mut plain = 0;
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at] != b'`' {
            at += 1;
            continue;
        }
        let run = backtick_run(bytes, at);
        match closing_run(bytes, at + run, run) {
            Some(close) => {
                out.push_str(&line[plain..at]);
                out.push(' ');
                at = close + run;
                plain = at;
            }
            None => at += run,
        }
    }
    out.push_str(&line[plain..]);
    out
}

fn backtick_run(bytes: &[u8], at: usize) -> usize {
    bytes[at..].iter().take_while(|&&b| b == b'`').count()
}

/// Where a run of exactly `len` backticks starts, from `from` on.
fn closing_run(bytes: &[u8], from: usize, len: usize) -> Option<usize> {
    let mut at = from;
    while at < bytes.len() {
        if bytes[at] == b'`' {
            let run = backtick_run(bytes, at);
            if run == len {
                return Some(at);
            }
            at += run;
        } else {
            at += 1;
        }
    }
    None
}

/// The contents of each `{#…}` on the line (outside code spans), whatever they are:
/// a malformed one is still an anchor, reported by E005.
fn anchors_in(line: &str) -> Vec<String> {
    let text = without_code_spans(line);
    let mut found = Vec::new();
    let mut rest = text.as_str();
    while let Some(open) = rest.find("{#") {
        let after = &rest[open + 2..];
        let Some(close) = after.find('}') else { break };
        found.push(after[..close].to_string());
        rest = &after[close + 1..];
    }
    found
}

/// The names in `#name` references (letters, digits, `-`, `_`), in order.
fn anchor_refs(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (at, _) in text.match_indices('#') {
        let name: String =
            text[at + 1..].chars().take_while(|&c| c.is_ascii_alphanumeric() || c == '-' || c == '_').collect();
        if !name.is_empty() {
            found.push(name);
        }
    }
    found
}

/// The decision ids cited as `[DNN]` (two or more digits, as in the original).
fn decision_refs(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (at, _) in text.match_indices("[D") {
        let rest = &text[at + 2..];
        let digits = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
        if digits >= 2 && rest[digits..].starts_with(']') {
            found.push(format!("D{}", &rest[..digits]));
        }
    }
    found
}

/// A `| Field | Value |` row as (lower-cased field, trimmed value). The header row and
/// the `|---|---|` separator are not rows; a missing value cell is an empty value.
fn metadata_row(line: &str) -> Option<(String, String)> {
    let cells = line.trim().strip_prefix('|')?;
    let mut cells = cells.split('|').map(str::trim);
    let field = cells.next()?;
    let value = cells.next().unwrap_or("");
    let separator = field.chars().all(|c| c == '-' || c == ':');
    if field.is_empty() || separator || field.eq_ignore_ascii_case("field") {
        return None;
    }
    Some((field.to_lowercase(), value.to_string()))
}

/// The original's anchor rule: lower-case letters, digits and hyphens, not starting
/// with a hyphen.
fn is_kebab(anchor: &str) -> bool {
    let mut bytes = anchor.bytes();
    bytes.next().is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        && bytes.all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

// === The checks ===

struct Checks<'a> {
    plan: &'a Plan,
    file: &'a str,
    issues: Vec<Issue>,
}

impl Checks<'_> {
    /// An issue about this plan; the code's letter gives the severity (E error, W warning).
    fn issue(&self, code: &str, message: String) -> Issue {
        let severity = if code.starts_with('E') { Severity::Error } else { Severity::Warning };
        Issue::new(code, severity, message, self.file)
    }

    /// An issue about a step: at its heading's line, naming its anchor.
    fn step_issue(&self, code: &str, step: &Step, message: String) -> Issue {
        self.issue(code, message).at_line(step.line).with_anchor(&step.anchor)
    }

    /// E001: each required section is there, found by anchor (the skeleton gives every
    /// section one, and other tools link to them).
    fn required_sections(&mut self) {
        let names = self.plan.anchor_names();
        for (anchor, name) in REQUIRED_SECTIONS {
            let suffix = format!("-{anchor}");
            let found = names.contains(anchor)
                || names.iter().any(|name| name.ends_with(&suffix))
                || (anchor == "execution-steps" && !self.plan.steps.is_empty());
            if !found {
                self.issues.push(self.issue("E001", format!("Missing required section: {name}")));
            }
        }
    }

    /// E002: Owner, Status and Last updated are in the metadata table and not empty.
    fn required_metadata(&mut self) {
        for field in REQUIRED_METADATA {
            if self.plan.metadata(field).is_none() {
                self.issues.push(self.issue("E002", format!("Missing or empty required metadata field: {field}")));
            }
        }
    }

    /// E003: Status is one of [`STATUSES`], in any case.
    fn status_value(&mut self) {
        let Some(status) = self.plan.metadata("Status") else { return };
        if !STATUSES.contains(&status.to_lowercase().as_str()) {
            let message = format!("Invalid metadata Status value: {status} (must be draft/active/done)");
            self.issues.push(self.issue("E003", message));
        }
    }

    /// E004: every step says what it implements, on a non-empty `**References:**` line.
    fn step_references(&mut self) {
        for step in &self.plan.steps {
            if step.references.is_empty() {
                let message = format!("Step {} missing References line", step.number);
                self.issues.push(self.step_issue("E004", step, message));
            }
        }
    }

    /// E005: anchors are kebab-case, so links to them are stable. Reported once per name.
    fn anchor_format(&mut self) {
        let mut seen = HashSet::new();
        for anchor in &self.plan.anchors {
            if seen.insert(anchor.name.as_str()) && !is_kebab(&anchor.name) {
                let message = format!("Invalid anchor format: {{#{}}}", anchor.name);
                self.issues.push(self.issue("E005", message).at_line(anchor.line));
            }
        }
    }

    /// E006: an anchor is defined once; each later definition is reported at its own
    /// line, naming the first.
    fn duplicate_anchors(&mut self) {
        let mut first: HashMap<&str, usize> = HashMap::new();
        for anchor in &self.plan.anchors {
            match first.get(anchor.name.as_str()) {
                Some(line) => {
                    let message = format!("Duplicate anchor: {} (first at line {line})", anchor.name);
                    self.issues.push(self.issue("E006", message).at_line(anchor.line).with_anchor(&anchor.name));
                }
                None => {
                    first.insert(&anchor.name, anchor.line);
                }
            }
        }
    }

    /// E010: every `**Depends on:**` target exists. Like the original, any anchor of the
    /// plan is accepted, and a step without an explicit anchor is `#step-N`.
    fn dependency_targets(&mut self) {
        let mut known = self.plan.anchor_names();
        known.extend(self.plan.steps.iter().map(|step| step.anchor.as_str()));
        for step in &self.plan.steps {
            for dependency in &step.depends_on {
                if !known.contains(dependency.as_str()) {
                    let message = format!("Dependency references non-existent step anchor: {dependency}");
                    self.issues.push(self.step_issue("E010", step, message));
                }
            }
        }
    }

    /// E011: the steps can be ordered. Each cycle is reported once, as the original
    /// writes it ("step-1 -> step-2 -> step-1"), at its first step.
    fn dependency_cycles(&mut self) {
        for cycle in cycles(&self.plan.steps) {
            let steps: Vec<&Step> = cycle.iter().map(|&at| &self.plan.steps[at]).collect();
            let mut names: Vec<&str> = steps.iter().map(|step| step.anchor.as_str()).collect();
            names.push(&steps[0].anchor);
            let message = format!("Circular dependency detected: {}", names.join(" -> "));
            self.issues.push(self.step_issue("E011", steps[0], message));
        }
    }

    /// W001 (the conformance rule `decision-format`): a decision heading is
    /// `#### [DNN] Title (DECIDED) {#dnn-slug}`, so the implementer can cite it and
    /// knows it is settled. Each decision gets one warning listing what is off; a
    /// decision only missing its status reads as the original's "Decision D01 missing
    /// status".
    fn decision_format(&mut self) {
        for decision in &self.plan.decisions {
            let problems = decision_problems(decision);
            if !problems.is_empty() {
                let message = format!("Decision {} {}", decision.id, problems.join(", "));
                self.issues.push(self.issue("W001", message).at_line(decision.line));
            }
        }
    }

    /// W007 (the conformance rule `steps-have-depends-on`): every step but the first
    /// says what it builds on. The original exempts "Step 1"; the first step is exempted
    /// here instead, because plans number from 0 as well (the approved
    /// checklist-reconciliation plan starts at Step 0 and would otherwise be warned).
    fn step_dependencies(&mut self) {
        for step in self.plan.steps.iter().skip(1) {
            if step.depends_on.is_empty() {
                let message = format!("Step {} has no dependencies", step.number);
                self.issues.push(self.step_issue("W007", step, message));
            }
        }
    }

    /// W012: a decision cited in References is defined in the plan.
    fn cited_decisions(&mut self) {
        let defined: HashSet<&str> = self.plan.decisions.iter().map(|decision| decision.id.as_str()).collect();
        for step in &self.plan.steps {
            for id in step.references.iter().flat_map(|references| decision_refs(references)) {
                if !defined.contains(id.as_str()) {
                    let message = format!("Step {} references decision [{id}] which is not defined", step.number);
                    self.issues.push(self.step_issue("W012", step, message));
                }
            }
        }
    }

    /// W013: an anchor cited in References (`(#anchor)`) exists.
    fn cited_anchors(&mut self) {
        let known = self.plan.anchor_names();
        for step in &self.plan.steps {
            let cited = step.references.iter().flat_map(|references| anchor_refs(&without_code_spans(references)));
            for name in cited {
                if !known.contains(name.as_str()) {
                    let message = format!("Reference to non-existent anchor: #{name}");
                    self.issues.push(self.step_issue("W013", step, message));
                }
            }
        }
    }
}

/// What keeps a decision heading from being `#### [DNN] Title (DECIDED) {#dnn-slug}`.
fn decision_problems(decision: &Decision) -> Vec<String> {
    let mut problems = Vec::new();
    if decision.level != 4 {
        problems.push(format!("is a level-{} heading (expected ####)", decision.level));
    }
    if decision.id.len() < 3 {
        problems.push("has a one-digit id (expected [DNN])".to_string());
    }
    if decision.title.is_empty() {
        problems.push("has no title".to_string());
    }
    match decision.status.as_deref() {
        None => problems.push("missing status".to_string()),
        Some("DECIDED") => {}
        Some(other) => problems.push(format!("has status ({other}) (expected (DECIDED))")),
    }
    let prefix = format!("{}-", decision.id.to_lowercase());
    match decision.anchor.as_deref() {
        None => problems.push(format!("missing anchor (expected {{#{prefix}slug}})")),
        Some(anchor) if !(anchor.starts_with(&prefix) && anchor.len() > prefix.len()) => {
            problems.push(format!("anchor {{#{anchor}}} does not match {{#{prefix}slug}}"));
        }
        Some(_) => {}
    }
    problems
}

/// The dependency cycles among the steps, as step indices in dependency order, each
/// cycle once. A depth-first search in document order; every back edge closes a cycle.
fn cycles(steps: &[Step]) -> Vec<Vec<usize>> {
    let mut by_anchor: HashMap<&str, usize> = HashMap::new();
    for (at, step) in steps.iter().enumerate() {
        by_anchor.entry(step.anchor.as_str()).or_insert(at);
    }
    let edges: Vec<Vec<usize>> = steps
        .iter()
        .map(|step| step.depends_on.iter().filter_map(|name| by_anchor.get(name.as_str()).copied()).collect())
        .collect();
    let mut search =
        CycleSearch { edges: &edges, state: vec![Visit::New; steps.len()], path: Vec::new(), found: Vec::new() };
    for start in 0..steps.len() {
        if search.state[start] == Visit::New {
            search.visit(start);
        }
    }
    let mut seen: HashSet<Vec<usize>> = HashSet::new();
    search
        .found
        .into_iter()
        .filter(|cycle| {
            let mut key = cycle.clone();
            key.sort_unstable();
            seen.insert(key)
        })
        .collect()
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Visit {
    New,
    OnPath,
    Done,
}

struct CycleSearch<'a> {
    edges: &'a [Vec<usize>],
    state: Vec<Visit>,
    path: Vec<usize>,
    found: Vec<Vec<usize>>,
}

impl CycleSearch<'_> {
    fn visit(&mut self, node: usize) {
        self.state[node] = Visit::OnPath;
        self.path.push(node);
        for &next in &self.edges[node] {
            match self.state[next] {
                Visit::New => self.visit(next),
                Visit::OnPath => {
                    let start = self.path.iter().position(|&at| at == next).unwrap_or(0);
                    self.found.push(self.path[start..].to_vec());
                }
                Visit::Done => {}
            }
        }
        self.path.pop();
        self.state[node] = Visit::Done;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::{Path, PathBuf};

    // === Fixtures from tugtool (read-only corpus; skipped when absent) ===

    /// The copied tugtool corpus, or None (and a note) when this checkout lacks it.
    fn corpus() -> Option<PathBuf> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/review-loops/tugplug");
        if dir.is_dir() {
            Some(dir)
        } else {
            eprintln!("skipped: {} is not there", dir.display());
            None
        }
    }

    fn read(path: &Path) -> String {
        std::fs::read_to_string(path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
    }

    /// Validates `validator/<dir>/<name>.md` under the name the golden files use.
    fn fixture(corpus: &Path, dir: &str, name: &str) -> (Report, String) {
        let text = read(&corpus.join("validator").join(dir).join(format!("{name}.md")));
        let path = format!("tests/fixtures/{dir}/{name}.md");
        (validate(&text, &path), path)
    }

    fn codes(report: &Report, severity: Severity) -> Vec<&str> {
        report.issues.iter().filter(|issue| issue.severity == severity).map(|issue| issue.code.as_str()).collect()
    }

    #[test]
    fn valid_fixtures_are_clean() {
        let Some(corpus) = corpus() else { return };
        for name in ["minimal", "complete"] {
            let (report, _) = fixture(&corpus, "valid", name);
            assert_eq!(report.issues, Vec::<Issue>::new(), "valid/{name}.md");
            assert_eq!(report.steps, if name == "minimal" { 1 } else { 2 });
        }
    }

    #[test]
    fn invalid_fixtures_give_their_codes() {
        let Some(corpus) = corpus() else { return };
        // (fixture, errors, warnings). bad-anchors and invalid-anchors say they trigger
        // E005 too, but every anchor in them is kebab-case: only the duplicate is wrong.
        let expected: [(&str, &[&str], &[&str]); 6] = [
            ("missing-metadata", &["E002", "E002", "E002"], &[]),
            ("duplicate-anchors", &["E006"], &[]),
            ("bad-anchors", &["E006"], &[]),
            ("invalid-anchors", &["E006"], &[]),
            ("circular-deps", &["E011"], &[]),
            ("missing-references", &["E010"], &["W012", "W013"]),
        ];
        for (name, errors, warnings) in expected {
            let (report, _) = fixture(&corpus, "invalid", name);
            assert_eq!(codes(&report, Severity::Error), errors, "invalid/{name}.md: {:#?}", report.issues);
            assert_eq!(codes(&report, Severity::Warning), warnings, "invalid/{name}.md: {:#?}", report.issues);
        }
    }

    #[test]
    fn invalid_fixture_messages() {
        let Some(corpus) = corpus() else { return };
        let (report, _) = fixture(&corpus, "invalid", "bad-anchors");
        assert_eq!(report.issues[0].message, "Duplicate anchor: section-one (first at line 23)");
        assert_eq!(report.issues[0].line, Some(27));
        let (report, _) = fixture(&corpus, "invalid", "circular-deps");
        assert_eq!(report.issues[0].message, "Circular dependency detected: step-1 -> step-2 -> step-1");
        let (report, _) = fixture(&corpus, "invalid", "missing-references");
        let messages: Vec<&str> = report.issues.iter().map(|issue| issue.message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "Dependency references non-existent step anchor: step-99",
                "Step 1 references decision [D99] which is not defined",
                "Reference to non-existent anchor: #non-existent-anchor",
            ]
        );
    }

    #[test]
    fn golden_files_match_byte_for_byte() {
        let Some(corpus) = corpus() else { return };
        let golden = [
            ("valid", "minimal"),
            ("valid", "complete"),
            ("invalid", "missing-metadata"),
            ("invalid", "duplicate-anchors"),
        ];
        for (dir, name) in golden {
            let (report, path) = fixture(&corpus, dir, name);
            let expected = read(&corpus.join("validator/golden").join(format!("{name}.validated.json")));
            let ours = report.to_json(&path);
            let theirs: Value = serde_json::from_str(&expected).expect("golden JSON");
            assert_eq!(ours, theirs, "{name}");
            // Key order too: serde_json's pretty printer writes the same two-space layout.
            let text = serde_json::to_string_pretty(&ours).expect("serialize");
            assert_eq!(text, expected.trim_end(), "{name}");
        }
    }

    #[test]
    fn approved_real_plan_is_clean() {
        let Some(corpus) = corpus() else { return };
        let text = read(&corpus.join("tugplan-checklist-reconciliation.rev4.md"));
        let report = validate(&text, "tugplan-checklist-reconciliation.md");
        assert_eq!(report.issues, Vec::<Issue>::new());
        assert_eq!((report.steps, report.decisions), (3, 7));
    }

    // === Inline plans ===

    /// A small plan that passes (valid/minimal.md with a second step).
    const PLAN: &str = "\
## Phase 1.0: Test {#phase-1}

### Plan Metadata {#plan-metadata}

| Field | Value |
|------|-------|
| Owner | Test Owner |
| Status | draft |
| Last updated | 2026-02-03 |

### Phase Overview {#phase-overview}

Text.

### Design Decisions {#design-decisions}

#### [D01] Example Decision (DECIDED) {#d01-example}

### 1.0.5 Execution Steps {#execution-steps}

#### Step 1: First {#step-1}

**References:** [D01] Example decision, (#phase-overview)

#### Step 2: Second {#step-2}

**Depends on:** #step-1

**References:** [D01] Example decision

### Deliverables {#deliverables}

Done.
";

    fn check(text: &str) -> Report {
        validate(text, "plan.md")
    }

    fn all_codes(report: &Report) -> Vec<&str> {
        report.issues.iter().map(|issue| issue.code.as_str()).collect()
    }

    /// PLAN with `from` replaced by `to` (which must be in it).
    fn edited(from: &str, to: &str) -> String {
        assert!(PLAN.contains(from), "{from}");
        PLAN.replacen(from, to, 1)
    }

    #[test]
    fn inline_plan_is_clean() {
        let report = check(PLAN);
        assert_eq!(report.issues, Vec::<Issue>::new());
        assert_eq!((report.steps, report.decisions), (2, 1));
        assert_eq!(report.to_json("plan.md")["status"], "ok");
    }

    #[test]
    fn e001_missing_section() {
        let report = check(&edited("### Deliverables {#deliverables}", "### Deliverables"));
        assert_eq!(all_codes(&report), ["E001"]);
        assert_eq!(report.issues[0].message, "Missing required section: Deliverables");
        // A suffixed anchor counts, as in the original.
        assert!(check(&edited("{#deliverables}", "{#phase-deliverables}")).issues.is_empty());
    }

    #[test]
    fn e002_missing_metadata() {
        let report = check(&edited("| Owner | Test Owner |", "| Owner |   |"));
        assert_eq!(all_codes(&report), ["E002"]);
        assert_eq!(report.issues[0].message, "Missing or empty required metadata field: Owner");
        let report = check(&edited("| Last updated | 2026-02-03 |\n", ""));
        assert_eq!(report.issues[0].message, "Missing or empty required metadata field: Last updated");
    }

    #[test]
    fn metadata_is_read_only_in_its_section() {
        let text = edited("| Owner | Test Owner |\n", "").replace("Done.", "| Owner | Someone |");
        assert_eq!(all_codes(&check(&text)), ["E002"]);
    }

    #[test]
    fn e003_bad_status() {
        let report = check(&edited("| Status | draft |", "| Status | in progress |"));
        assert_eq!(all_codes(&report), ["E003"]);
        assert_eq!(report.issues[0].message, "Invalid metadata Status value: in progress (must be draft/active/done)");
        assert!(check(&edited("| Status | draft |", "| Status | Active |")).issues.is_empty());
    }

    #[test]
    fn e004_missing_references() {
        let report = check(&edited("**References:** [D01] Example decision\n", "**References:**\n"));
        assert_eq!(all_codes(&report), ["E004"]);
        let issue = &report.issues[0];
        assert_eq!(issue.message, "Step 2 missing References line");
        assert_eq!((issue.line, issue.anchor.as_deref()), (Some(25), Some("#step-2")));
    }

    #[test]
    fn e005_bad_anchor() {
        let report = check(&edited("{#phase-overview}", "{#phase-overview} {#Bad_Anchor}"));
        assert_eq!(all_codes(&report), ["E005"]);
        assert_eq!(report.issues[0].message, "Invalid anchor format: {#Bad_Anchor}");
        assert_eq!(report.issues[0].line, Some(11));
        assert_eq!(all_codes(&check(&edited("{#d01-example}", "{#-d01-example}"))), ["E005", "W001"]);
    }

    #[test]
    fn e006_duplicate_anchor() {
        let report = check(&edited("Text.", "### Again {#phase-1}"));
        assert_eq!(all_codes(&report), ["E006"]);
        let issue = &report.issues[0];
        assert_eq!(issue.message, "Duplicate anchor: phase-1 (first at line 1)");
        assert_eq!((issue.line, issue.anchor.as_deref()), (Some(13), Some("#phase-1")));
    }

    #[test]
    fn code_is_not_structure() {
        let fenced = "```markdown\n### Copy {#phase-1}\n#### Step 9: Example\n```\n";
        let text = edited("Text.", &format!("Text.\n\n{fenced}\nWrite `{{#phase-1}}` after a heading."));
        let report = check(&text);
        assert_eq!(report.issues, Vec::<Issue>::new());
        assert_eq!(report.steps, 2);
        // A ```rust line inside a longer fence does not close it.
        let nested = "````\n```rust\n### Copy {#phase-1}\n```\n````\n";
        assert!(check(&edited("Text.", nested)).issues.is_empty());
    }

    #[test]
    fn e010_bad_dependency() {
        let report = check(&edited("**Depends on:** #step-1", "**Depends on:** #step-1, #step-7"));
        assert_eq!(all_codes(&report), ["E010"]);
        let issue = &report.issues[0];
        assert_eq!(issue.message, "Dependency references non-existent step anchor: step-7");
        assert_eq!(issue.anchor.as_deref(), Some("#step-2"));
    }

    #[test]
    fn e011_cycle_reported_once() {
        let text = edited(
            "**References:** [D01] Example decision, (#phase-overview)",
            "**Depends on:** #step-2\n\n**References:** [D01] x",
        );
        let report = check(&text);
        assert_eq!(all_codes(&report), ["E011"]);
        assert_eq!(report.issues[0].message, "Circular dependency detected: step-1 -> step-2 -> step-1");
        assert_eq!(report.issues[0].line, Some(21));
        let own = edited("**Depends on:** #step-1", "**Depends on:** #step-2");
        assert_eq!(check(&own).issues[0].message, "Circular dependency detected: step-2 -> step-2");
    }

    #[test]
    fn w001_decision_format() {
        let report = check(&edited(" (DECIDED) {#d01-example}", " {#d01-example}"));
        assert_eq!(all_codes(&report), ["W001"]);
        assert_eq!(report.issues[0].message, "Decision D01 missing status");
        let report = check(&edited(
            "#### [D01] Example Decision (DECIDED) {#d01-example}",
            "### [D01] Example (OPEN) {#example}",
        ));
        assert_eq!(
            report.issues[0].message,
            "Decision D01 is a level-3 heading (expected ####), has status (OPEN) (expected (DECIDED)), \
             anchor {#example} does not match {#d01-slug}"
        );
        assert_eq!(report.warnings(), 1);
    }

    #[test]
    fn w007_step_without_dependencies() {
        let report = check(&edited("**Depends on:** #step-1\n", ""));
        assert_eq!(all_codes(&report), ["W007"]);
        assert_eq!(report.issues[0].message, "Step 2 has no dependencies");
        // The first step is the root, whatever its number.
        let text = PLAN.replace("Step 1: First {#step-1}", "Step 0: First {#step-0}").replace("#step-1", "#step-0");
        assert!(check(&text).issues.is_empty());
    }

    #[test]
    fn w012_w013_unknown_citations() {
        let report = check(&edited("(#phase-overview)", "[D09] Later, (#nowhere)"));
        assert_eq!(all_codes(&report), ["W012", "W013"]);
        assert_eq!(report.issues[0].message, "Step 1 references decision [D09] which is not defined");
        assert_eq!(report.issues[1].message, "Reference to non-existent anchor: #nowhere");
    }

    #[test]
    fn json_shape_with_an_error() {
        let report = check(&edited("| Status | draft |", "| Status | wip |"));
        let json = report.to_json("plan.md");
        let expected = json!({
            "schema_version": "1",
            "command": "validate",
            "status": "error",
            "data": {"files": [{"path": "plan.md", "valid": false, "error_count": 1, "warning_count": 0}]},
            "issues": [{
                "code": "E003",
                "severity": "error",
                "message": "Invalid metadata Status value: wip (must be draft/active/done)",
                "file": "plan.md",
            }],
        });
        assert_eq!(json, expected);
        assert_eq!(serde_json::to_string(&json).ok(), serde_json::to_string(&expected).ok());
    }

    #[test]
    fn step_headings() {
        let heading = |line| Heading::parse(line).and_then(|heading| Step::from_heading(&heading, 1));
        let step = heading("#### Step 2.1: Sub {#step-2-1}").expect("step");
        assert_eq!((step.number.as_str(), step.anchor.as_str()), ("2.1", "step-2-1"));
        assert_eq!(heading("### Step 3").map(|step| step.anchor), Some("step-3".to_string()));
        assert!(heading("## Step 1: Too high").is_none());
        assert!(heading("#### Steps 1: Plural").is_none());
        assert!(heading("#### Step 1a: Letter").is_none());
    }
}
