//! SARIF 2.1.0, with what GitHub code scanning requires: `$schema`, `version`, a tool
//! driver with `rules[]`, and per result `ruleId`, `level`, `message.text`, a physical
//! location and `partialFingerprints`.
//!
//! Each assertion with a result is a rule (`id` = the assertion's id, stable across the
//! passes of a review; `shortDescription` = its description), so an alert reads like
//! the assertion and closes when it passes. Only results that did not pass are
//! reported, and only their rules: `fail` is level `error`, `error` (could not be
//! evaluated) is level `warning`. GitHub takes at most 25,000 results (and rules) per
//! run: past that, the rest are counted in a tool notification instead.
//!
//! A location's `uri` is a URI reference, which a viewer percent-decodes: the path (from
//! [`locations`], which refuses one that leaves the root when decoded) is written
//! percent-encoded, so a file named `a%20b` is that file and not `a b`.

use std::collections::BTreeMap;
use std::io::{self, Write};

use serde_sarif::sarif::{
    ArtifactLocation, Invocation, Location as SarifLocation, Message, MultiformatMessageString, Notification,
    PhysicalLocation, PropertyBag, Region, ReportingDescriptor, Result as SarifResult, ResultLevel, Run, Sarif, Tool,
    ToolComponent,
};

use super::{Location, Places, details, headline};
use crate::assertion::Status;
use crate::run::RunReport;

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";
/// Bumped only if the fingerprint recipe changes (it would reopen every alert).
const FINGERPRINT_KEY: &str = "reviewhostAssertion/v1";

/// Results (and rules) GitHub code scanning accepts in one run.
pub const MAX_RESULTS: usize = 25_000;

pub fn write_sarif(report: &RunReport, out: &mut dyn Write) -> io::Result<()> {
    let places = Places::new(report);
    let mut rules = Vec::new();
    let mut results = Vec::new();
    let mut left_out = 0;
    for (assertion, outcome) in &report.results {
        if outcome.status == Status::Pass {
            continue;
        }
        if results.len() == MAX_RESULTS {
            left_out += 1;
            continue;
        }
        let index = rules.len();
        let mut properties = BTreeMap::new();
        properties.insert("type".to_string(), serde_json::Value::String(assertion.type_name.clone()));
        let description = match assertion.description.as_str() {
            "" => format!("{} assertion {}", assertion.type_name, assertion.id),
            d => d.to_string(),
        };
        rules.push(
            ReportingDescriptor::builder()
                .id(assertion.id.as_str())
                .name(assertion.type_name.as_str())
                .short_description(MultiformatMessageString::builder().text(description).build())
                .properties(PropertyBag::builder().additional_properties(properties).build())
                .build(),
        );
        let level = match outcome.status {
            Status::Pass => continue,
            Status::Fail => ResultLevel::Error,
            Status::Error => ResultLevel::Warning,
        };
        let text = headline(assertion, outcome, &details(outcome));
        let at = places.locations(assertion, outcome);
        // The evidence (the code) is where the alert is; the assertion that found it is
        // a related location, so the alert can be traced to its check.
        let own = places.assertion(assertion);
        let related: Vec<SarifLocation> = match at.first() {
            Some(first) if *first != own => vec![SarifLocation {
                id: Some(1),
                message: Some(Message::builder().text(format!("the assertion {}", assertion.id)).build()),
                ..location(&own)
            }],
            _ => Vec::new(),
        };
        let places = at;
        let fingerprints = BTreeMap::from([(FINGERPRINT_KEY.to_string(), super::fingerprint(assertion, outcome))]);
        results.push(
            SarifResult::builder()
                .rule_id(assertion.id.as_str())
                .rule_index(index as i64)
                .level(level)
                .message(Message::builder().text(text).build())
                .locations(places.iter().take(10).map(location).collect::<Vec<_>>())
                .related_locations(related)
                .partial_fingerprints(fingerprints)
                .build(),
        );
    }
    let driver = ToolComponent::builder().name("reviewhost").version(env!("CARGO_PKG_VERSION")).rules(rules).build();
    let mut invocation = Invocation::builder().execution_successful(true).build();
    if left_out > 0 {
        let text = format!(
            "{left_out} more failing assertions are not in this SARIF file: GitHub code scanning accepts at most \
             {MAX_RESULTS} results per run (split the run with --shard, or use the JSON report)"
        );
        invocation.tool_execution_notifications = Some(vec![
            Notification::builder()
                .message(Message::builder().text(text).build())
                .level(serde_json::json!("warning"))
                .build(),
        ]);
    }
    let run = Run::builder()
        .tool(Tool::builder().driver(driver).build())
        .invocations(vec![invocation])
        .results(results)
        .build();
    let sarif = Sarif::builder().schema(SCHEMA).version(serde_json::json!("2.1.0")).runs(vec![run]).build();
    serde_json::to_writer_pretty(&mut *out, &sarif)?;
    writeln!(out)
}

fn location(place: &Location) -> SarifLocation {
    let artifact = ArtifactLocation::builder().uri(uri(&place.path)).build();
    let physical = match place.line {
        Some(line) => PhysicalLocation::builder()
            .artifact_location(artifact)
            .region(Region::builder().start_line(i64::from(line.max(1))).build())
            .build(),
        None => PhysicalLocation::builder().artifact_location(artifact).build(),
    };
    SarifLocation::builder().physical_location(physical).build()
}

/// `path` as a relative URI reference: every byte but the unreserved characters, `/`
/// and the sub-delimiters is percent-encoded (`%` itself, `:` so that no first segment
/// reads as a scheme, `?` and `#` so that nothing reads as a query or fragment, spaces
/// and non-ASCII as UTF-8 bytes).
fn uri(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for byte in path.bytes() {
        match byte {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => out.push(char::from(byte)),
            b'!' | b'$' | b'&' | b'\'' | b'(' | b')' | b'*' | b'+' | b',' | b';' | b'=' | b'@' => {
                out.push(char::from(byte))
            }
            _ => out.push_str(&format!("%{byte:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_written_as_the_uri_that_decodes_to_it() {
        assert_eq!(uri("src/a.rs"), "src/a.rs");
        assert_eq!(uri("src/a b%2e.rs"), "src/a%20b%252e.rs");
        assert_eq!(uri("a:b/c?d#e"), "a%3Ab/c%3Fd%23e");
        assert_eq!(uri("docs/日本.md"), "docs/%E6%97%A5%E6%9C%AC.md");
    }
}
