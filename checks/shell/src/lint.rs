//! Diagnostics for checks that are vacuous or can never pass, found from the parsed
//! command (and, for paths, the tree). The seed runner's users hit each of these:
//!
//! - `grep -c` under `grep_not_match`: a count is always printed, so it never passes;
//! - `\|` in an `-E` (or `rg`) pattern, `|` in a basic one: a literal bar, not "or";
//! - a path operand of grep that does not exist under `grep_not_match`: the seed runner
//!   passed it (empty stdout), reviewhost makes it an error;
//! - `grep_match` on a command that ends by echoing unconditionally: always output.
//!
//! The analysis looks at words that contain no substitution; it is a heuristic for
//! authors, never a reason for a verdict by itself.

use reviewhost_tool::Ctx;

use crate::parse::{AndOr, Command, Script, literal};

pub use reviewhost_protocol::Intent;

/// Options of grep that take an argument, so the next word is not the pattern or a path.
const GREP_ARG_OPTIONS: &str = "efmABCdD";

/// Diagnostics for `script` judged with `intent`.
pub fn diagnose(script: &Script, intent: Intent, ctx: &Ctx) -> Vec<String> {
    let mut notes = Vec::new();
    visit(script, &mut |words: &[String]| grep_notes(words, intent, ctx, &mut notes));
    if intent == Intent::Match
        && let Some(last) = script.0.last()
        && ends_with_unconditional_echo(last)
    {
        notes.push(
            "the command ends with an unconditional echo/printf, so it always prints something \
             and this grep_match passes whatever the repository contains"
                .into(),
        );
    }
    notes
}

fn ends_with_unconditional_echo(item: &AndOr) -> bool {
    if !item.rest.is_empty() || item.first.negated || item.first.commands.len() != 1 {
        return false;
    }
    match &item.first.commands[0] {
        Command::Simple { words, .. } => {
            let words: Vec<Option<String>> = words.iter().map(literal).collect();
            matches!(words.first(), Some(Some(p)) if p == "echo" || p == "printf")
                && words.iter().skip(1).any(|w| w.as_deref().is_some_and(|w| !w.is_empty() && w != "-n"))
        }
        _ => false,
    }
}

/// Calls `f` with the literal words of every simple command, at any depth.
fn visit(script: &Script, f: &mut impl FnMut(&[String])) {
    for item in &script.0 {
        for pipeline in std::iter::once(&item.first).chain(item.rest.iter().map(|(_, p)| p)) {
            for command in &pipeline.commands {
                match command {
                    Command::Simple { words, .. } => {
                        let words: Option<Vec<String>> = words.iter().map(literal).collect();
                        if let Some(words) = words {
                            f(&words);
                        }
                    }
                    Command::Subshell { body, .. } | Command::Group { body, .. } => visit(body, f),
                    Command::If { branches, otherwise, .. } => {
                        for (condition, body) in branches {
                            visit(condition, f);
                            visit(body, f);
                        }
                        if let Some(body) = otherwise {
                            visit(body, f);
                        }
                    }
                }
            }
        }
    }
}

fn grep_notes(words: &[String], intent: Intent, ctx: &Ctx, notes: &mut Vec<String>) {
    let Some((program, args)) = words.split_first() else { return };
    let is_rg = program == "rg";
    if !matches!(program.as_str(), "grep" | "egrep" | "fgrep" | "rg") {
        return;
    }
    let mut count = false;
    let mut extended = program == "egrep" || is_rg;
    let mut fixed = program == "fgrep";
    let mut patterns = Vec::new();
    let mut operands = Vec::new();
    let mut iter = args.iter();
    let mut options_done = false;
    while let Some(arg) = iter.next() {
        if options_done || !arg.starts_with('-') || arg == "-" {
            operands.push(arg.clone());
            continue;
        }
        if arg == "--" {
            options_done = true;
            continue;
        }
        if let Some(long) = arg.strip_prefix("--") {
            match long.split('=').next().unwrap_or("") {
                "count" => count = true,
                "extended-regexp" => extended = true,
                "fixed-strings" => fixed = true,
                "regexp" => {
                    patterns.extend(long.split_once('=').map(|(_, v)| v.to_string()).or_else(|| iter.next().cloned()))
                }
                _ => {}
            }
            continue;
        }
        for (i, letter) in arg.char_indices().skip(1) {
            match letter {
                'c' => count = true,
                'E' => extended = true,
                'F' => fixed = true,
                'G' => extended = false,
                _ => {}
            }
            if GREP_ARG_OPTIONS.contains(letter) && !(is_rg && letter != 'e' && letter != 'm') {
                let attached = &arg[i + letter.len_utf8()..];
                let value = if attached.is_empty() { iter.next().cloned() } else { Some(attached.to_string()) };
                if letter == 'e' {
                    patterns.extend(value);
                }
                break;
            }
        }
    }
    if patterns.is_empty() && !operands.is_empty() {
        patterns.push(operands.remove(0));
    }
    if count && intent == Intent::NoMatch {
        notes.push(format!(
            "`{program} -c` always prints a count (even 0), so this grep_not_match can never pass; \
             drop -c, or use grep_match with `expected: count:0`"
        ));
    }
    if !fixed {
        for pattern in &patterns {
            if extended && pattern.contains("\\|") {
                notes.push(format!(
                    "pattern '{pattern}': in an extended regex `\\|` is a literal bar, not alternation (write `|`)"
                ));
            } else if !extended && !is_rg && contains_unescaped_bar(pattern) {
                notes.push(format!(
                    "pattern '{pattern}': in a basic regex `|` is a literal bar, not alternation (write `\\|` or use -E)"
                ));
            }
        }
    }
    if intent == Intent::NoMatch {
        for operand in &operands {
            let has_glob = operand.contains(['*', '?', '[']);
            if !has_glob && std::fs::symlink_metadata(ctx.real(operand)).is_err() {
                notes.push(format!(
                    "path '{operand}' does not exist: a grep_not_match on it would pass without searching anything"
                ));
            }
        }
    }
}

fn contains_unescaped_bar(pattern: &str) -> bool {
    let mut escaped = false;
    for c in pattern.chars() {
        match c {
            '\\' if !escaped => escaped = true,
            '|' if !escaped => return true,
            _ => escaped = false,
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse;

    fn notes(command: &str, intent: Intent) -> Vec<String> {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("f"), "x").unwrap();
        diagnose(&parse(command).unwrap(), intent, &Ctx::new(dir.path()))
    }

    #[test]
    fn finds_each_vacuous_pattern() {
        assert!(notes("grep -c TODO f", Intent::NoMatch)[0].contains("can never pass"));
        assert!(notes("grep -rcE 'a' f", Intent::NoMatch)[0].contains("can never pass"));
        assert!(notes("grep -c TODO f", Intent::Match).is_empty());
        assert!(notes(r#"grep -cE "a\|b" f"#, Intent::Other)[0].contains("literal bar"));
        assert!(notes("grep 'a|b' f", Intent::Other)[0].contains("basic regex"));
        assert!(notes(r"grep 'a\|b' f", Intent::Other).is_empty());
        assert!(notes("grep -E 'a|b' f", Intent::Other).is_empty());
        assert!(notes("grep -F 'a|b' f", Intent::Other).is_empty());
        assert!(notes("grep -rn Mock src/", Intent::NoMatch)[0].contains("'src/' does not exist"));
        assert!(notes("grep -rn Mock f", Intent::NoMatch).is_empty());
        assert!(notes("grep -e 'a|b' -- f", Intent::Other)[0].contains("basic regex"));
        assert!(notes("grep x f; echo done", Intent::Match)[0].contains("unconditional echo"));
        assert!(notes("grep -q x f && echo found", Intent::Match).is_empty());
        assert!(notes("echo ''", Intent::NoMatch).is_empty());
    }
}
