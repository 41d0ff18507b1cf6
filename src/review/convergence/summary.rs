//! The Markdown a review prints and keeps in `.reviewhost/reports/`: a pass report with
//! seed 000's convergence table (and its Confidence column), and a final report with the
//! end state, the per-pass table and the Assertion Coverage table.
//!
//! Both are printed as well as kept, and carry text from the assertions file and the
//! agents: every piece of it is [`inert`] (control characters escaped, no workflow
//! command), the fix-agent's answer line by line.

use serde_json::Value;

use super::state::PassRecord;
use crate::assertion::Confidence;
use crate::report::{inert, inert_lines};
use crate::review::core::reply::Usage;

fn percent(score: f64) -> u32 {
    Confidence { passed: 0, total: 0, score }.percent()
}

/// The convergence table over `passes`.
pub fn convergence(passes: &[PassRecord]) -> String {
    let mut out = String::from(
        "| Pass | Analysts | New | Carried | Total | Passing | Failing | Confidence | Trend |\n\
         |------|----------|-----|---------|-------|---------|---------|------------|-------|\n",
    );
    for (i, p) in passes.iter().enumerate() {
        let trend = match i.checked_sub(1).map(|j| passes[j].confidence) {
            None => "—",
            Some(before) if p.confidence > before => "↑",
            Some(before) if p.confidence < before => "↓",
            Some(_) => "→",
        };
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {} | {}% | {trend} |\n",
            p.pass,
            p.analysts.len(),
            p.new,
            p.carried,
            p.total,
            p.passed,
            p.failing,
            percent(p.confidence)
        ));
    }
    out
}

pub fn pass_report(pass: &PassRecord, passes: &[PassRecord], fix_results: Option<&str>) -> String {
    let mut out = format!(
        "## Pass {} — Confidence {}% ({}/{} assertions passing)\n\n{}",
        pass.pass,
        percent(pass.confidence),
        pass.passed,
        pass.total,
        convergence(passes)
    );
    for refusal in &pass.refused {
        out.push_str(&format!(
            "\n⚠️ {} was refused: {} (it tried tools it was not given)\n",
            inert(&refusal.agent),
            inert(&refusal.tools.join(", "))
        ));
    }
    if !pass.regressions.is_empty() {
        let ids: Vec<String> = pass.regressions.iter().map(|id| inert(id).into_owned()).collect();
        out.push_str(&format!("\n⚠️ Regressions (passed in an earlier pass, fail now): {}\n", ids.join(", ")));
    }
    if pass.fix_review_rounds > 0 {
        out.push_str(&format!(
            "\nFix-diff review: {} round(s), {} critical or high finding(s) left\n",
            pass.fix_review_rounds, pass.blocking_findings
        ));
    }
    if let Some(why) = &pass.unreviewed {
        out.push_str(&format!("\n⚠️ Fix-diff review could not review this pass's changes: {}\n", inert(why)));
    }
    out.push_str(&open_findings(&pass.open_findings));
    if let Some(usage) = &pass.usage {
        out.push_str(&format!("\nAgents this pass: {}\n", usage.line()));
    }
    if let Some(results) = fix_results {
        out.push('\n');
        out.push_str(&inert_lines(results.trim(), ""));
        out.push('\n');
    }
    out
}

/// The open critical and high fix-diff findings, one line each (empty when none).
fn open_findings(findings: &[Value]) -> String {
    if findings.is_empty() {
        return String::new();
    }
    let mut out = format!("\n### Open fix-diff findings ({})\n", findings.len());
    for f in findings {
        let text = |key: &str| inert(f.get(key).and_then(Value::as_str).unwrap_or("")).into_owned();
        let location = &f["location"];
        let line = location["lines"].get(0).and_then(Value::as_u64).map(|l| format!(":{l}")).unwrap_or_default();
        let file = inert(location["file"].as_str().unwrap_or("")).into_owned();
        let title = [text("title"), text("description")].into_iter().find(|t| !t.is_empty()).unwrap_or_default();
        let title: String = title.lines().next().unwrap_or("").chars().take(120).collect();
        out.push_str(&format!(
            "- {} [{}] {}{line}: {title} (pass {})\n",
            text("id"),
            text("severity"),
            file,
            f.get("pass").and_then(Value::as_u64).unwrap_or(0)
        ));
    }
    out
}

/// The final report: end state, the passes, and every assertion's last status.
pub fn final_report(end: &str, passes: &[PassRecord], assertions: &[Value], usage: Option<&Usage>) -> String {
    let mut out = format!("# Review finished: {end}\n\n{}\n", convergence(passes));
    if let Some(last) = passes.last() {
        if let Some(why) = &last.unreviewed {
            out.push_str(&format!("⚠️ Changes not reviewed: {}\n", inert(why)));
        }
        out.push_str(&open_findings(&last.open_findings));
    }
    if let Some(usage) = usage {
        out.push_str(&format!("Agents in all: {}\n\n", usage.line()));
    }
    out.push_str("### Assertion Coverage\n");
    if assertions.is_empty() {
        out.push_str("No machine-verifiable assertions generated.\n");
        return out;
    }
    let passed = assertions.iter().filter(|a| a["status"] == "pass").count();
    let c = Confidence::new(passed, assertions.len());
    out.push_str(&format!("Confidence: {}% ({}/{} assertions passing)\n\n", c.percent(), c.passed, c.total));
    out.push_str("| ID | Track | Type | Status | Description |\n|----|-------|------|--------|-------------|\n");
    for a in assertions {
        let text = |key: &str| inert(a.get(key).and_then(Value::as_str).unwrap_or("")).replace('|', "\\|");
        let status = match a.get("status").and_then(Value::as_str) {
            Some("pass") => "✅",
            Some("fail") => "❌",
            Some("error") => "⚠️",
            _ => "—",
        };
        let mut description = text("description");
        if a["status"] != "pass"
            && let Some(why) = a.get("failure_output").and_then(Value::as_str)
        {
            let why: String = why.lines().next().unwrap_or("").chars().take(80).collect();
            description.push_str(&format!(" — {}", inert(&why).replace('|', "\\|")));
        }
        out.push_str(&format!(
            "| {} | {} | {} | {status} | {description} |\n",
            text("id"),
            text("track"),
            text("type")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(pass: u32, confidence: f64) -> PassRecord {
        PassRecord {
            pass,
            total: 4,
            new: 1,
            carried: 3,
            passed: (confidence * 4.0) as usize,
            failing: 4 - (confidence * 4.0) as usize,
            confidence,
            analysts: vec!["a".into()],
            snapshot: None,
            usage: None,
            refused: Vec::new(),
            regressions: Vec::new(),
            fix_review_rounds: 0,
            blocking_findings: 0,
            unreviewed: None,
            open_findings: Vec::new(),
        }
    }

    #[test]
    fn the_table_shows_confidence_and_trend() {
        let table = convergence(&[record(1, 0.5), record(2, 0.75), record(3, 0.75)]);
        assert!(table.contains("| 1 | 1 | 1 | 3 | 4 | 2 | 2 | 50% | — |"), "{table}");
        assert!(table.contains("| 2 | 1 | 1 | 3 | 4 | 3 | 1 | 75% | ↑ |"), "{table}");
        assert!(table.contains("| 3 | 1 | 1 | 3 | 4 | 3 | 1 | 75% | → |"), "{table}");
    }

    #[test]
    fn coverage_lists_every_assertion() {
        let a = serde_json::json!([
            {"id": "A-A-1", "track": "A", "type": "file_exists", "status": "pass", "description": "x"},
            {"id": "A-B-1", "track": "B", "type": "grep_match", "status": "fail", "description": "y|z",
             "failure_output": "no match\nmore"}
        ]);
        let report = final_report("Budget reached", &[record(1, 0.5)], a.as_array().unwrap(), None);
        assert!(report.contains("| A-B-1 | B | grep_match | ❌ | y\\|z — no match |"), "{report}");
        assert!(final_report("Zero findings", &[], &[], None).contains("No machine-verifiable assertions generated."));
    }

    #[test]
    fn agent_text_in_the_reports_is_inert() {
        let a = serde_json::json!([
            {"id": "X\n::error file=x::forged", "track": "\u{1b}]52;c;eA==\u{7}", "type": "t\u{1b}[2J",
             "status": "fail", "description": "d\u{202e}", "failure_output": "::stop-commands::tok"}
        ]);
        let report = final_report("Budget reached", &[record(1, 0.5)], a.as_array().unwrap(), None);
        let row = "| X\\n::error file=x::forged | \\x1b]52;c;eA==\\x07 | t\\x1b[2J | ❌ | d\\u{202e} — \\x3a:stop-commands::tok |";
        assert!(report.contains(row), "{report}");
        let answer = "## Fix-Agent Results\n::error file=a::forged\n##[warning]x \u{1b}[2J\rend";
        let pass = pass_report(&record(1, 0.5), &[record(1, 0.5)], Some(answer));
        assert!(
            pass.ends_with("## Fix-Agent Results\n\\x3a:error file=a::forged\n##\\x5bwarning]x \\x1b[2J\\rend\n"),
            "{pass}"
        );
        for report in [&report, &pass] {
            assert!(!report.chars().any(|c| c.is_control() && c != '\n'), "{report:?}");
            assert!(!report.lines().any(|l| l.trim_start().starts_with("::") || l.contains("##[")), "{report}");
        }
    }
}
