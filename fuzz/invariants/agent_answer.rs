//! What must hold for any answer an analyst agent gives the review loop's parse gate.
//!
//! The answer is LLM output: the gate is the only thing between it and the assertions
//! file. It must never panic, and whatever it lets through must be a list that
//! `reviewhost run` accepts, or a pass would merge assertions that break the next run.
//!
//! Shared by the stable test (`tests/all/fuzz.rs`) and the libFuzzer target
//! (`fuzz/fuzz_targets/agent_answer.rs`), which both include this file with `#[path]`.

use std::path::Path;

/// Panics when the parse gate breaks its contract on `bytes` (read as UTF-8, lossily, as
/// the orchestrator reads an agent's stdout).
pub fn check(bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    if let Ok(list) = reviewhost::review::collect::assertions(&text, "A") {
        let doc = serde_json::json!({ "assertions": serde_json::Value::Array(list) });
        if let Err(e) = reviewhost::assertion::parse(Path::new("gate.json"), doc.to_string().as_bytes()) {
            panic!("the gate passed what the loader refuses: {e}");
        }
    }
}
