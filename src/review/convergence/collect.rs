//! The parse gate for analyst responses: the `## Assertions` section's fenced JSON array,
//! checked against the assertions-file schema before anything from it is merged.
//! Fail-closed: anything but a well-formed array of valid assertions is an error whose
//! text is exact enough to be handed back to the analyst as the reason for a re-ask.

use std::path::Path;

use serde_json::Value;

use crate::assertion::schema;

/// The assertions an analyst's `response` declares, validated, or why not.
pub fn assertions(response: &str, track: &str) -> Result<Vec<Value>, String> {
    let lines: Vec<&str> = response.lines().collect();
    let heading = lines
        .iter()
        .rposition(|l| l.trim() == "## Assertions")
        .ok_or("the response has no `## Assertions` section (a line that is exactly `## Assertions`)")?;
    let open = lines[heading + 1..]
        .iter()
        .position(|l| l.trim_start().starts_with("```"))
        .map(|i| heading + 1 + i)
        .ok_or("the `## Assertions` section has no fenced ```json block")?;
    let close = lines[open + 1..]
        .iter()
        .position(|l| l.trim() == "```")
        .map(|i| open + 1 + i)
        .ok_or("the ```json block in `## Assertions` is not closed with a ``` line")?;
    let block = lines[open + 1..close].join("\n");
    let value: Value = serde_json::from_str(&block).map_err(|e| {
        format!("the `## Assertions` block is not valid JSON: line {} column {}: {e}", e.line(), e.column())
    })?;
    let Value::Array(list) = value else {
        return Err(format!("the `## Assertions` block must be a JSON array, found {}", kind(&value)));
    };
    let doc = serde_json::json!({ "assertions": list });
    let problems: Vec<String> = schema::violations(&doc)
        .into_iter()
        .take(8)
        .map(|v| format!("{}: {}", v.pointer.replacen("/assertions/", "assertion #", 1), v.message))
        .collect();
    if !problems.is_empty() {
        return Err(format!(
            "the `## Assertions` block does not match the assertions format:\n{}",
            problems.join("\n")
        ));
    }
    // Unique ids, and everything else `reviewhost run` checks.
    crate::assertion::parse(Path::new("## Assertions"), doc.to_string().as_bytes()).map_err(|e| e.to_string())?;
    let list = doc["assertions"].as_array().cloned().unwrap_or_default();
    for a in &list {
        if let Some(t) = a.get("track").and_then(Value::as_str)
            && t != track
        {
            return Err(format!("assertion '{}' has track '{t}'; this analyst's track is '{track}'", a["id"]));
        }
    }
    Ok(list)
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Object(_) => "an object",
        Value::String(_) => "a string",
        Value::Number(_) => "a number",
        Value::Bool(_) => "a boolean",
        Value::Null => "null",
        Value::Array(_) => "an array",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = "Findings: P1 is open.\n\n## Assertions\n\n```json\n[{\"id\": \"A-A-1\", \"track\": \"A\", \"type\": \"file_exists\", \"path\": \"LICENSE\"}]\n```\n";

    #[test]
    fn a_well_formed_block_is_read() {
        let list = assertions(GOOD, "A").unwrap();
        assert_eq!(list[0]["id"], "A-A-1");
        assert_eq!(assertions("## Assertions\n```json\n[]\n```", "A").unwrap(), Vec::<Value>::new());
    }

    #[test]
    fn the_gate_is_fail_closed_with_exact_reasons() {
        let cases = [
            ("no block at all", "no `## Assertions` section"),
            ("## Assertions\nnone", "no fenced ```json block"),
            ("## Assertions\n```json\n[", "not closed"),
            ("## Assertions\n```json\n[{,]\n```", "not valid JSON: line 1 column 3"),
            ("## Assertions\n```json\n{}\n```", "must be a JSON array, found an object"),
            ("## Assertions\n```json\n[{\"id\": \"X\", \"type\": \"grep_match\"}]\n```", "assertion #0"),
            (
                "## Assertions\n```json\n[{\"id\": \"X\", \"type\": \"file_exists\", \"path\": \"a\"}, {\"id\": \"X\", \"type\": \"file_exists\", \"path\": \"b\"}]\n```",
                "duplicate id",
            ),
            (&GOOD.replace("\"track\": \"A\"", "\"track\": \"B\""), "this analyst's track is 'A'"),
        ];
        for (response, says) in cases {
            let e = assertions(response, "A").unwrap_err();
            assert!(e.contains(says), "{response:?}: {e}");
        }
    }
}
