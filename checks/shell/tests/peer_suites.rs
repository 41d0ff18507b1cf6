//! The peers' own test suites against the sandboxed tools: cases from GNU grep's,
//! ripgrep's, jq's, busybox's and toybox's suites (`../shared/corpus/peer-suites/`), and a
//! second extraction from bash's, GNU sed's, gawk's, findutils' and jq's
//! (`../shared/corpus/peer-suites-2/`), with the real tools' outputs recorded on Debian 12,
//! run through the interpreter and its programs on the same files, compared on stdout and
//! exit status.
//!
//! In the second set a case may also end in a refusal (the assertion's `error` naming
//! what the sandbox does not have, [`exec::Trouble`]): never a silent difference. Every
//! case that differs silently must be listed, with the reason, in `peer_differences.txt`
//! (first set) or `peer_differences_2.txt` (second) beside this file; a listed case that
//! agrees fails too, so the lists only shrink. The figures (agreeing cases per suite; for
//! the second set, identical answers among the cases the README says the sandbox answers)
//! are printed. Skips with a message when the shared corpus is not beside the repository.
//! `REVIEWHOST_PEER_DUMP=1` prints every second-set answer that is not identical, and every
//! listed case.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use reviewhost_check_shell::{exec, lookup, parse};
use reviewhost_tool::{Ctx, NO_LIMIT};
use serde_json::Value;

const SUITES: [&str; 4] = ["grep", "rg", "jq", "coreutils"];

const SUITES_2: [&str; 7] = ["shell", "sed", "awk", "xargs", "find", "jq", "rg"];

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/peer-suites")
}

fn corpus_2() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus/peer-suites-2")
}

/// `id → reason` from a differences list (`id<space>reason`, `#` comments).
fn known_differences(text: &str) -> BTreeMap<String, String> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| match l.split_once(char::is_whitespace) {
            Some((id, reason)) => (id.to_string(), reason.trim().to_string()),
            None => (l.to_string(), String::new()),
        })
        .collect()
}

/// Writes the case's tree under `root`.
fn materialise(root: &Path, files: &serde_json::Map<String, Value>) {
    for (name, spec) in files {
        let path = root.join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        match spec {
            Value::String(text) => std::fs::write(&path, text).unwrap(),
            Value::Object(o) if o.contains_key("dir") => std::fs::create_dir_all(&path).unwrap(),
            Value::Object(o) if o.contains_key("symlink") => {
                std::os::unix::fs::symlink(o["symlink"].as_str().unwrap(), &path).unwrap()
            }
            Value::Object(o) if o.contains_key("b64") => {
                std::fs::write(&path, base64(o["b64"].as_str().unwrap())).unwrap()
            }
            Value::Object(o) if o.contains_key("fixture") => {
                std::fs::copy(corpus().join(o["fixture"].as_str().unwrap()), &path).unwrap();
            }
            Value::Object(o) if o.contains_key("gen") => {
                // A Python bytes expression (`b'%1024d\nb\n' % 0`), as the corpus wrote it.
                let program = format!("import sys; sys.stdout.buffer.write({})", o["gen"].as_str().unwrap());
                let out = std::process::Command::new("python3").args(["-c", &program]).output().unwrap();
                assert!(out.status.success(), "gen {name}: {}", String::from_utf8_lossy(&out.stderr));
                std::fs::write(&path, out.stdout).unwrap();
            }
            other => panic!("{name}: unknown file spec {other}"),
        }
    }
}

fn base64(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        b'/' => 63,
        _ => panic!("base64: {c}"),
    };
    let digits: Vec<u8> = text.bytes().filter(|&c| c != b'=').map(value).collect();
    let mut out = Vec::new();
    for chunk in digits.chunks(4) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, &d)| n | u32::from(d) << (18 - 6 * i));
        out.extend_from_slice(&n.to_be_bytes()[1..chunk.len()]);
    }
    out
}

/// What the interpreter prints and exits with for `case`, and whether it refused
/// something (the assertion would be an `error` naming it).
fn run(case: &Value) -> (String, i32, bool) {
    // The interpreter's stack budget is the component's; a debug build's frames are
    // larger than a release build's, so a deep case gets room to reach the budget.
    let case = case.clone();
    std::thread::Builder::new().stack_size(256 << 20).spawn(move || run_here(&case)).unwrap().join().unwrap()
}

fn run_here(case: &Value) -> (String, i32, bool) {
    let dir = tempfile::tempdir().unwrap();
    materialise(dir.path(), case["files"].as_object().unwrap());
    let mut command = case["cmd"].as_str().unwrap().to_string();
    // The script's stdin, as the real tools were given it: text, or a fixture file.
    let stdin = match &case["stdin"] {
        Value::String(text) if !text.is_empty() => Some(text.as_bytes().to_vec()),
        Value::Object(o) if o.contains_key("fixture") => {
            Some(std::fs::read(corpus().join(o["fixture"].as_str().unwrap())).unwrap())
        }
        _ => None,
    };
    if let Some(stdin) = stdin {
        std::fs::write(dir.path().join(".stdin"), stdin).unwrap();
        command = format!("{{ {command}\n}} < .stdin");
    }
    match parse::parse(&command) {
        Ok(script) => {
            let run = exec::run(&script, Ctx::new(dir.path()), lookup, NO_LIMIT);
            let refused =
                run.trouble.iter().any(|t| matches!(t, exec::Trouble::Refused(_) | exec::Trouble::Unavailable(_)));
            (String::from_utf8_lossy(&run.stdout).into_owned(), run.status, refused)
        }
        Err(e) => (format!("unsupported: {e}"), -1, true),
    }
}

/// `line` with Python's non-standard JSON numbers (`NaN`, `Infinity`, `-Infinity`, in
/// the suites' own expectations of jq cases) outside strings replaced by `null`.
fn python_json(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let (mut in_string, mut escaped) = (false, false);
    let mut rest = line;
    while let Some(c) = rest.chars().next() {
        if !in_string && let Some(token) = ["-Infinity", "Infinity", "NaN"].iter().find(|t| rest.starts_with(**t)) {
            out.push_str("null");
            rest = &rest[token.len()..];
            continue;
        }
        if c == '"' && !escaped {
            in_string = !in_string;
        }
        escaped = in_string && c == '\\' && !escaped;
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

fn sorted(text: &str) -> String {
    let mut lines: Vec<&str> = text.lines().collect();
    lines.sort_unstable();
    lines.join("\n")
}

#[test]
fn the_peers_suites_agree_except_where_listed() {
    if !corpus().is_dir() {
        eprintln!("skipped: {} is not there (the shared corpus sits beside the repository)", corpus().display());
        return;
    }
    let known = known_differences(include_str!("peer_differences.txt"));
    let mut differing = BTreeSet::new();
    let mut report = Vec::new();
    let mut unlisted = Vec::new();
    for suite in SUITES {
        let text = std::fs::read_to_string(corpus().join(format!("{suite}.jsonl"))).unwrap();
        let (mut agree, mut total) = (0, 0);
        for case in text.lines().map(|l| serde_json::from_str::<Value>(&python_json(l)).unwrap()) {
            if !case["skip"].is_null() || case["real"].is_null() {
                continue;
            }
            total += 1;
            let id = case["id"].as_str().unwrap().to_string();
            let (stdout, status, _) = run(&case);
            let (want_out, want_status) = (case["real"]["stdout"].as_str().unwrap(), case["real"]["exit"].as_i64());
            let same_out = match case["order"].as_str() {
                Some("sorted") => sorted(&stdout) == sorted(want_out),
                _ => stdout == want_out,
            };
            if same_out && want_status == Some(i64::from(status)) {
                agree += 1;
                continue;
            }
            differing.insert(id.clone());
            if !known.contains_key(&id) {
                unlisted.push(format!(
                    "{id}: {}\n  real: {want_out:?} exit {want_status:?}\n  ours: {stdout:?} exit {status}",
                    case["cmd"].as_str().unwrap()
                ));
            }
        }
        report.push(format!("{suite} {agree}/{total}"));
    }
    eprintln!("peer suites, agreeing cases: {}", report.join(", "));
    let stale: Vec<&String> = known.keys().filter(|id| !differing.contains(*id)).collect();
    assert!(
        unlisted.is_empty() && stale.is_empty(),
        "{} disagreement(s) not in peer_differences.txt:\n{}\n\n{} listed case(s) that agree now (remove them): {stale:?}",
        unlisted.len(),
        unlisted.join("\n"),
        stale.len()
    );
}

#[test]
fn the_second_suites_answer_or_refuse_except_where_listed() {
    if !corpus_2().is_dir() {
        eprintln!("skipped: {} is not there (the shared corpus sits beside the repository)", corpus_2().display());
        return;
    }
    let known = known_differences(include_str!("peer_differences_2.txt"));
    let mut differing = BTreeSet::new();
    let mut report = Vec::new();
    let mut unlisted = Vec::new();
    for suite in SUITES_2 {
        let text = std::fs::read_to_string(corpus_2().join(format!("{suite}.jsonl"))).unwrap();
        // Cases the README says the sandbox answers: identical / all; every case: refused.
        let (mut identical, mut answers, mut refused_cases, mut total) = (0, 0, 0, 0);
        for case in text.lines().map(|l| serde_json::from_str::<Value>(&python_json(l)).unwrap()) {
            if !case["skip"].is_null() || case["real"].is_null() {
                continue;
            }
            total += 1;
            let answer = case["kind"] == "answer";
            answers += usize::from(answer);
            let id = case["id"].as_str().unwrap().to_string();
            let (stdout, status, refused) = run(&case);
            let (want_out, want_status) = (case["real"]["stdout"].as_str().unwrap(), case["real"]["exit"].as_i64());
            let same_out = match case["order"].as_str() {
                Some("sorted") => sorted(&stdout) == sorted(want_out),
                _ => stdout == want_out,
            };
            if same_out && want_status == Some(i64::from(status)) && !refused {
                identical += usize::from(answer);
                continue;
            }
            if std::env::var_os("REVIEWHOST_PEER_DUMP").is_some() && (answer || known.contains_key(&id)) {
                eprintln!(
                    "DUMP {id} refused={refused}: {:?}\n  real: {want_out:?} exit {want_status:?}\n  ours: {stdout:?} exit {status}",
                    case["cmd"].as_str().unwrap()
                );
            }
            if refused {
                refused_cases += 1;
                continue;
            }
            differing.insert(id.clone());
            if !known.contains_key(&id) {
                unlisted.push(format!(
                    "{id}: {}\n  real: {want_out:?} exit {want_status:?}\n  ours: {stdout:?} exit {status}",
                    case["cmd"].as_str().unwrap()
                ));
            }
        }
        report.push(format!("{suite} answers {identical}/{answers}, refused {refused_cases}/{total}"));
    }
    eprintln!("peer suites (second set): {}", report.join(", "));
    let stale: Vec<&String> = known.keys().filter(|id| !differing.contains(*id)).collect();
    assert!(
        unlisted.is_empty() && stale.is_empty(),
        "{} silent difference(s) not in peer_differences_2.txt:\n{}\n\n{} listed case(s) that answer or refuse now \
         (remove them): {stale:?}",
        unlisted.len(),
        unlisted.join("\n"),
        stale.len()
    );
}
