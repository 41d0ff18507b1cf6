//! GitHub Actions: workflow-command annotations on stdout and a Markdown summary for
//! `$GITHUB_STEP_SUMMARY`.
//!
//! A `fail` is an `::error`, an `error` (could not be evaluated) a `::warning`, each on
//! the first location of its result. Messages and properties are escaped the way the
//! runner unescapes them: `%`, `\r`, `\n` everywhere, and `:` and `,` in properties,
//! so an untrusted message cannot end its annotation early or forge another one. The
//! untrusted text in them is made [`inert`] first (each line of a message, so it keeps
//! its line breaks as `%0A`): no escape sequence reaches the log or the annotation.
//!
//! GitHub's limits are kept: it shows 10 error and 10 warning annotations per step, so
//! the annotations stop there and one `::notice` counts the rest; a step summary may
//! hold 1 MiB, so the table stops below it with a line that counts what was left out.

use std::io::{self, Write};
use std::path::Path;

use super::{Places, details, file_label, inert, inert_lines};
use crate::assertion::Status;
use crate::run::RunReport;

/// Escapes the message part of a workflow command.
pub fn escape_data(text: &str) -> String {
    text.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// Escapes a property value (`file=`, `title=`) of a workflow command.
pub fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

/// Annotations of each kind GitHub shows per step.
pub const ANNOTATIONS_PER_KIND: usize = 10;
/// Bytes a step summary may hold (GitHub's cap is 1 MiB); the table stops below it.
pub const SUMMARY_BYTES: usize = 1000 * 1000;

pub(super) fn write_annotations(report: &RunReport, out: &mut dyn Write) -> io::Result<()> {
    let places = Places::new(report);
    let (mut errors, mut warnings, mut unshown) = (0, 0, 0);
    for (assertion, outcome) in &report.results {
        let (command, what, shown) = match outcome.status {
            Status::Pass => continue,
            Status::Fail => ("error", "failed", &mut errors),
            Status::Error => ("warning", "could not be evaluated", &mut warnings),
        };
        if *shown == ANNOTATIONS_PER_KIND {
            unshown += 1;
            continue;
        }
        *shown += 1;
        let place = places.locations(assertion, outcome).into_iter().next();
        let mut properties = Vec::new();
        if let Some(place) = place {
            properties.push(format!("file={}", escape_property(&place.path)));
            if let Some(line) = place.line {
                properties.push(format!("line={line}"));
            }
        }
        let title = format!("{} {what} ({})", inert(&assertion.id), inert(&assertion.type_name));
        properties.push(format!("title={}", escape_property(&title)));
        let message = inert_lines(&details(outcome), "");
        writeln!(out, "::{command} {}::{}", properties.join(","), escape_data(&message))?;
    }
    if unshown > 0 {
        writeln!(
            out,
            "::notice title=reviewhost::{unshown} more failing assertions are not annotated (GitHub shows \
             {ANNOTATIONS_PER_KIND} errors and {ANNOTATIONS_PER_KIND} warnings per step); the step summary and the \
             JSON or SARIF report list them"
        )?;
    }
    Ok(())
}

/// Appends a Markdown summary of `report` to the file at `path` (`$GITHUB_STEP_SUMMARY`).
pub fn write_step_summary(report: &RunReport, path: &Path) -> io::Result<()> {
    let mut out = std::fs::OpenOptions::new().create(true).append(true).open(path)?;
    let c = report.confidence;
    let mut text = format!(
        "### reviewhost: {}\n\n**{}%** ({}/{} assertions passing)\n\n",
        markdown(&file_label(report)),
        c.percent(),
        c.passed,
        c.total
    );
    let failing: Vec<_> = report.results.iter().filter(|(_, o)| o.status != Status::Pass).collect();
    if !failing.is_empty() {
        text.push_str("| | Assertion | Type | Description | Why |\n|---|---|---|---|---|\n");
        let total = failing.len();
        for (shown, (assertion, outcome)) in failing.into_iter().enumerate() {
            if text.len() > SUMMARY_BYTES - 2000 {
                text.push_str(&format!(
                    "\n… {} more failing assertions not listed: a step summary holds at most 1 MiB.\n",
                    total - shown
                ));
                break;
            }
            let icon = if outcome.status == Status::Fail { "❌" } else { "⚠️" };
            let why: String = outcome.message.lines().next().unwrap_or("").chars().take(200).collect();
            text.push_str(&format!(
                "| {icon} | {} | {} | {} | {} |\n",
                markdown(&assertion.id),
                markdown(&assertion.type_name),
                markdown(&assertion.description),
                markdown(&why)
            ));
        }
        text.push('\n');
    }
    out.write_all(text.as_bytes())
}

/// Text safe inside a Markdown table cell: [`inert`] (no control character, line breaks
/// shown as `\n`), then no cell breaks, no HTML, no emphasis or links.
fn markdown(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in inert(text).chars() {
        match c {
            '|' => out.push_str("\\|"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '`' | '*' | '_' | '[' | ']' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the Actions runner does with a command's message and properties.
    fn unescape_data(text: &str) -> String {
        text.replace("%0D", "\r").replace("%0A", "\n").replace("%25", "%")
    }

    fn unescape_property(text: &str) -> String {
        unescape_data(&text.replace("%3A", ":").replace("%2C", ","))
    }

    #[test]
    fn escaping_round_trips() {
        let samples = [
            "plain",
            "100% sure",
            "%0A is not a newline",
            "%25",
            "a\r\nb\nc\rd",
            "file:line,col",
            "::error::forged",
            "%3A%2C literally",
            "é ü 日本 %",
            "",
        ];
        for sample in samples {
            let data = escape_data(sample);
            assert!(!data.contains(['\n', '\r']), "{data:?}");
            assert_eq!(unescape_data(&data), sample);
            let property = escape_property(sample);
            assert!(!property.contains([':', ',', '\n', '\r']), "{property:?}");
            assert_eq!(unescape_property(&property), sample);
        }
    }

    #[test]
    fn markdown_cells_cannot_break_the_table() {
        assert_eq!(markdown("a|b <script>"), "a\\|b &lt;script&gt;");
        assert_eq!(markdown("a\nb\x1b[2J"), "a\\\\nb\\\\x1b\\[2J", "line breaks and escapes are shown, escaped");
    }

    #[test]
    fn an_annotation_is_one_line_whatever_its_text() {
        let hostile = "x\n::error file=y::forged\r\x1b]52;c;eA==\x07 ##[error]z";
        let title = escape_property(&inert(hostile));
        let data = escape_data(&inert_lines(hostile, ""));
        for part in [&title, &data] {
            assert!(!part.chars().any(super::super::inert::is_escaped), "{part:?}");
            assert!(!part.contains("##["), "{part:?}");
        }
        assert!(!title.contains(':'), "{title}");
        assert_eq!(unescape_data(&data), "x\n\\x3a:error file=y::forged\\r\\x1b]52;c;eA==\\x07 ##\\x5berror]z");
    }
}
