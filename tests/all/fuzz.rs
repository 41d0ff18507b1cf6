//! Fuzzing on stable Rust, bounded so CI runs it on every build: a deterministic
//! mutation loop over a seed corpus for each parser that reads untrusted text (the
//! assertions-file loader, the shell-subset parser, grep's pattern translation, and the
//! parse gate for agent answers), checking that none panics and that what each accepts
//! is well-formed. Set `REVIEWHOST_FUZZ_ITERATIONS` for a longer local run.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

use reviewhost_grep::translate::{Syntax, translate};
use serde_json::Value;

/// Mutations per target in CI.
const ITERATIONS: usize = 20_000;

fn iterations() -> usize {
    std::env::var("REVIEWHOST_FUZZ_ITERATIONS").ok().and_then(|n| n.parse().ok()).unwrap_or(ITERATIONS)
}

/// xorshift64*: small, fast and reproducible from its seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Tokens that parsers care about, spliced in whole.
const TOKENS: &[&str] = &[
    "\"",
    "'",
    "\\",
    "`",
    "$(",
    ")",
    "(",
    "{",
    "}",
    "[",
    "]",
    "|",
    "||",
    "&&",
    ";",
    "&",
    ">",
    "<",
    "2>&1",
    ">/dev/null",
    "*",
    "?",
    "\\|",
    "\\(",
    "\\)",
    "\\{1,3\\}",
    "[[:alpha:]]",
    "[^",
    "^",
    "$",
    "\n",
    "\0",
    "é",
    "\u{2028}",
    "```",
    "```json",
    "## Assertions",
    "null",
    "true",
    "[]",
    "{}",
    ",",
    ":",
    "\"id\"",
    "\"type\"",
    "1e999",
    "-1",
    "\"grep_match\"",
    "\"custom\"",
    "<<",
    "$'\\x41'",
    "!",
    "\\1",
    "{,",
    "x{99999}",
    "\u{feff}",
];

/// One mutation of `input`, often from `corpus` too.
fn mutate(rng: &mut Rng, input: &str, corpus: &[String]) -> String {
    let mut chars: Vec<char> = input.chars().collect();
    for _ in 0..=rng.below(4) {
        let at = rng.below(chars.len() + 1);
        match rng.below(6) {
            0 if !chars.is_empty() => {
                let end = (at + rng.below(8) + 1).min(chars.len());
                chars.drain(at.min(end)..end);
            }
            1 => chars.splice(at..at, TOKENS[rng.below(TOKENS.len())].chars()).for_each(drop),
            2 if !chars.is_empty() => {
                let from = rng.below(chars.len());
                let end = (from + rng.below(16) + 1).min(chars.len());
                let piece: Vec<char> = chars[from..end].to_vec();
                chars.splice(at..at, piece).for_each(drop);
            }
            3 => {
                let other: Vec<char> = corpus[rng.below(corpus.len())].chars().collect();
                let from = rng.below(other.len());
                chars.splice(at..at, other[from..].iter().copied()).for_each(drop);
            }
            4 if !chars.is_empty() => {
                let i = rng.below(chars.len());
                chars[i] = char::from_u32(rng.below(0x80) as u32).unwrap_or('x');
            }
            _ => chars.insert(at, char::from_u32(rng.below(0x3000) as u32).unwrap_or('?')),
        }
    }
    chars.into_iter().take(64 * 1024).collect()
}

/// Runs `check` on every seed and on `iterations()` mutants; a panic names its input.
fn fuzz(name: &str, seeds: &[&str], check: impl Fn(&str)) {
    let corpus: Vec<String> = seeds.iter().map(|s| s.to_string()).collect();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ name.len() as u64);
    let started = std::time::Instant::now();
    let mut current = corpus[0].clone();
    let n = iterations();
    for i in 0..n + corpus.len() {
        let input = if i < corpus.len() { corpus[i].clone() } else { mutate(&mut rng, &current, &corpus) };
        if catch_unwind(AssertUnwindSafe(|| check(&input))).is_err() {
            panic!("fuzz {name}: panicked on input {input:?}");
        }
        // Walk away from the seeds, and come back now and then.
        current = if rng.below(8) == 0 { corpus[rng.below(corpus.len())].clone() } else { input };
    }
    eprintln!("fuzz {name}: {n} mutants + {} seeds in {:.2?}", corpus.len(), started.elapsed());
}

#[test]
fn the_assertions_file_loader() {
    let basic = include_str!("../../examples/basic/assertions.json");
    let custom = include_str!("../../examples/custom/assertions.json");
    let seeds = [
        basic,
        custom,
        r#"{"assertions": [{"id": "A", "type": "grep_match", "command": "grep -rn x ."}]}"#,
        r#"{"plugin": "p", "max_passes": 5, "assertions": [{"id": "C", "type": "custom", "component": "c.wasm", "sha256": "00", "paths": ["src"], "config": {"a": [1, 2]}}], "confidence": {}}"#,
        r#"{"assertions": [{"id": "", "type": 3}, {"id": "A", "type": "file_exists"}]}"#,
    ];
    fuzz("loader", &seeds, |text| match reviewhost::assertion::parse(Path::new("fuzz.json"), text.as_bytes()) {
        Ok(file) => {
            let ids: Vec<&str> = file.assertions().iter().map(|a| a.id.as_str()).collect();
            assert!(ids.iter().all(|id| !id.trim().is_empty()), "blank id accepted: {text:?}");
            let mut unique = ids.clone();
            unique.sort();
            unique.dedup();
            assert_eq!(unique.len(), ids.len(), "duplicate ids accepted: {text:?}");
        }
        Err(e) => assert!(e.to_string().starts_with("fuzz.json"), "error does not name the file: {e}"),
    });
}

#[test]
fn the_shell_subset_parser() {
    let seeds = [
        r#"grep -rn "MockConnection" src/"#,
        "(cd web && grep -rl TODO .)",
        r#"rg -n 'Foo\b' src --glob '!**/_archive/**'"#,
        "jq '.review_max_cycles' config.json",
        "grep -cE \"a\\|b\" f | wc -l && echo ok || echo no; exit 3",
        "if [ -f x ]; then cat x; else echo $(ls) `pwd`; fi 2>&1 >/dev/null",
        "for f in *.ts; do echo $f; done",
        "cat <<EOF\nx\nEOF",
        "! { echo a; echo b; } | sort | uniq -c > out",
        "echo $'\\x41' \"$HOME\" '${x}' a\\ b",
    ];
    fuzz("shell", &seeds, |text| {
        let _ = reviewhost_check_shell::parse::parse(text);
    });
}

#[test]
fn grep_pattern_translation() {
    let seeds = [
        "a\\|b",
        "\\(ab\\)\\{1,3\\}",
        "[[:alpha:]_][[:alnum:]_]*",
        "^\\s*//\\s*TODO",
        "a{1,2}|b+?",
        "[]a-]",
        "[^]]*",
        "\\<word\\>",
        "x\\{2,\\}\\?",
        "(a|b)*c\\1",
        "*star",
        "[[:foo:]]",
    ];
    fuzz("grep-translate", &seeds, |text| {
        for syntax in [Syntax::Basic, Syntax::Extended] {
            if let Ok(translated) = translate(text, syntax)
                && let Err(e) = regex_syntax::Parser::new().parse(&translated.regex)
            {
                panic!("{syntax:?} {text:?} became {:?}, which is not a regex: {e}", translated.regex);
            }
        }
    });
}

#[test]
fn the_parse_gate_for_agent_answers() {
    let seeds = [
        "Findings: P1.\n\n## Assertions\n\n```json\n[{\"id\": \"A-A-1\", \"track\": \"A\", \"type\": \"grep_not_match\", \"command\": \"grep -rn TODO src\"}]\n```\n",
        "## Assertions\n```json\n[]\n```",
        "## Assertions\n```\n[{\"id\": \"A-A-2\", \"type\": \"file_content\", \"path\": \"README.md\", \"needle\": \"x\"}]\n```\n## Assertions\n```json\n[{\"id\": 1}]\n```",
        "no block",
        "## Assertions\n```json\n[{\"id\": \"X\", \"type\": \"custom\", \"component\": \"c.wasm\", \"paths\": []}]\n```",
    ];
    fuzz("agent-answer", &seeds, |text| {
        if let Ok(list) = reviewhost::review::collect::assertions(text, "A") {
            // What the gate lets through is always a file `reviewhost run` accepts.
            let doc = serde_json::json!({ "assertions": Value::Array(list) });
            reviewhost::assertion::parse(Path::new("gate.json"), doc.to_string().as_bytes())
                .unwrap_or_else(|e| panic!("the gate passed what the loader refuses: {e}\n{text:?}"));
        }
    });
}
