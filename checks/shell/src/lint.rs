//! Diagnostics for checks that are vacuous or can never pass, found from the parsed
//! command (and, for paths, the tree). The seed runner's users hit each of these:
//!
//! - `grep -c` under `grep_not_match`: a count is always printed, so it never passes;
//! - `\|` in an `-E` (or `rg`) pattern, `|` in a basic one: a literal bar, not "or";
//! - a path operand of grep that does not exist under `grep_not_match`: the seed runner
//!   passed it (empty stdout), reviewhost makes it an error;
//! - `grep_match` on a command that ends by echoing unconditionally: always output;
//! - an exit-status check (`shell_exit_zero`, `typescript_compile`) whose status cannot
//!   be non-zero: `… || true`, `…; true`, `…; exit 0`, or a pipeline whose status is that
//!   of a last command that always succeeds (`tsc --noEmit | head -20`) without
//!   `set -o pipefail`. Agents write these: `cd /abs/path && npx tsc --noEmit 2>&1 | head
//!   -20 || true` passed the seed runner whatever the compiler said.
//!
//! The analysis looks at words that contain no substitution; it is a heuristic for
//! authors, never a reason for a verdict by itself.

use reviewhost_tool::{Ctx, NO_LIMIT};

use crate::exec::{self, Trouble};
use crate::parse::{AndOr, Command, Compound, Op, Pipeline, Script, literal};

pub use reviewhost_protocol::Intent;

/// Options of grep that take an argument, so the next word is not the pattern or a path.
const GREP_ARG_OPTIONS: &str = "efmABCdD";

/// Diagnostics for `script` judged with `intent`.
pub fn diagnose(script: &Script, intent: Intent, ctx: &Ctx) -> Vec<String> {
    let mut notes = Vec::new();
    visit(script, &mut |words: &[String]| grep_notes(words, intent, ctx, &mut notes));
    if intent == Intent::ExitStatus
        && let Some(why) = status_cannot_fail(script)
    {
        notes.push(format!(
            "the exit status of this command cannot be non-zero ({why}), so this exit-status check passes \
             whatever the repository contains"
        ));
    }
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

/// Commands whose status is 0 whatever happened before them.
const ALWAYS_SUCCEED: &[&str] = &["true", ":", "echo", "printf"];

/// Filters whose status is 0 when they only read their standard input: at the end of a
/// pipeline they hide the status of what came before.
const FILTERS: &[&str] = &["head", "tail", "cat", "tee", "sort", "uniq", "wc"];

/// Why `script`'s exit status is always 0, if it is: its last list ends in `|| true`
/// (or another command that always succeeds), or is such a command (`; true`, `exit 0`),
/// or each of its `&&`-joined pipelines ends in a filter of its input without
/// `set -o pipefail` (`tsc | tail -20 && lint | tail -10`).
fn status_cannot_fail(script: &Script) -> Option<String> {
    let pipefail = script.0.iter().any(|item| {
        let Some(Command::Simple { words, .. }) = item.first.commands.first() else { return false };
        let words: Vec<Option<String>> = words.iter().map(literal).collect();
        matches!(words.first(), Some(Some(set)) if set == "set")
            && words.iter().any(|w| w.as_deref() == Some("pipefail"))
    });
    let last = script.0.last()?;
    let mut reason = never_fails(&last.first, pipefail);
    for (op, pipeline) in &last.rest {
        let next = never_fails(pipeline, pipefail);
        reason = match (op, reason, next) {
            (Op::And, Some(_), next) => next,
            (Op::And, None, _) => None,
            (Op::Or, Some(reason), _) => Some(reason),
            (Op::Or, None, Some(_)) => Some(format!("`|| {}` turns every failure into success", shown(pipeline))),
            (Op::Or, None, None) => None,
        };
    }
    reason
}

/// Why `pipeline` always exits 0, if it does.
fn never_fails(pipeline: &crate::parse::Pipeline, pipefail: bool) -> Option<String> {
    if pipeline.negated {
        return None;
    }
    let Some(Command::Simple { words, .. }) = pipeline.commands.last() else { return None };
    let words: Vec<Option<String>> = words.iter().map(literal).collect();
    let program = words.first()?.as_deref()?;
    if pipeline.commands.len() > 1 {
        // `tee` writes its operands; the others only read stdin when given no operand.
        let only_options = words[1..]
            .iter()
            .all(|w| w.as_deref().is_some_and(|w| w.starts_with('-') || w.bytes().all(|b| b.is_ascii_digit())));
        return (FILTERS.contains(&program) && (only_options || program == "tee") && !pipefail).then(|| {
            format!("a pipeline's status is its last command's, `{}`; start with `set -o pipefail;`", shown(pipeline))
        });
    }
    let succeeds =
        ALWAYS_SUCCEED.contains(&program) || (program == "exit" && matches!(words.get(1), Some(Some(n)) if n == "0"));
    succeeds.then(|| format!("it ends with `{}`", shown(pipeline)))
}

/// The last command of `pipeline` as written (`…` for a word with a substitution).
fn shown(pipeline: &crate::parse::Pipeline) -> String {
    match pipeline.commands.last() {
        Some(Command::Simple { words, .. }) => {
            words.iter().map(|w| literal(w).unwrap_or_else(|| "…".into())).collect::<Vec<_>>().join(" ")
        }
        _ => "…".into(),
    }
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
pub(crate) fn visit(script: &Script, f: &mut impl FnMut(&[String])) {
    visit_commands(script, &mut |command| {
        if let Command::Simple { words, .. } = command {
            let words: Option<Vec<String>> = words.iter().map(literal).collect();
            if let Some(words) = words {
                f(&words);
            }
        }
    });
}

/// Calls `f` with every simple command, at any depth: in braces, subshells, `if`,
/// loop and function bodies, `while` conditions and `case` arms.
fn visit_commands(script: &Script, f: &mut impl FnMut(&Command)) {
    for item in &script.0 {
        for pipeline in std::iter::once(&item.first).chain(item.rest.iter().map(|(_, p)| p)) {
            for command in &pipeline.commands {
                match command {
                    Command::Simple { .. } => f(command),
                    Command::Subshell { body, .. } => visit_commands(body, f),
                    Command::Group { body, kind, .. } => {
                        match kind {
                            Compound::While { condition, .. } => visit_commands(condition, f),
                            Compound::Case { arms, .. } => arms.iter().for_each(|arm| visit_commands(&arm.body, f)),
                            _ => {}
                        }
                        visit_commands(body, f)
                    }
                    Command::If { branches, otherwise, .. } => {
                        for (condition, body) in branches {
                            visit_commands(condition, f);
                            visit_commands(body, f);
                        }
                        if let Some(body) = otherwise {
                            visit_commands(body, f);
                        }
                    }
                }
            }
        }
    }
}

/// Where the refusal probe's commands look for files: a directory no repository has
/// (one that makes it changes only what lint says), so that they fail fast on every
/// path and their findings do not depend on the tree.
const PROBE_ROOT: &str = "/\u{1}reviewhost-lint-probe";

/// Steps a probed command may take (a nested `bash -c` runs a script).
const PROBE_STEPS: u64 = 1_000;

/// The commands of `script` that use what the sandbox refuses: an option, subcommand or
/// construct a tool does not support, a write, or (unless the operator may grant it,
/// `granted`) a program the sandbox does not have. Each simple command whose words are
/// all literal is run alone, with empty input, against an empty tree, by the
/// interpreter that runs the check ([`exec`]), and what it refuses is reported: a
/// refusal anywhere makes the assertion an error ([`crate::judge`]) whatever `||`, `;`
/// or a pipeline does after it, so such a command is a check that can never pass or
/// fail. Commands with a substitution or a variable are not probed (their words are
/// known only when the script runs), nor are granted programs ever run.
pub fn refusals(script: &Script, lookup: exec::Lookup, granted: bool) -> Vec<String> {
    let mut notes = Vec::new();
    visit_commands(script, &mut |command| {
        let Command::Simple { words, .. } = command else { return };
        let Some(words) = words.iter().map(literal).collect::<Option<Vec<String>>>() else { return };
        if words.is_empty() {
            return;
        }
        let alone = Script(vec![AndOr {
            first: Pipeline { negated: false, commands: vec![command.clone()] },
            rest: Vec::new(),
            line: true,
        }]);
        let run = exec::run_limited(&alone, Ctx::new(PROBE_ROOT), lookup, None, NO_LIMIT, PROBE_STEPS);
        let shown = words.join(" ");
        for trouble in &run.trouble {
            let note = match trouble {
                Trouble::Refused(why) => format!(
                    "`{shown}` is refused in the sandbox ({why}), so this assertion is an error whatever the rest \
                     of the command does"
                ),
                Trouble::Unavailable(program) if !granted => format!(
                    "`{shown}` runs '{program}', which the sandbox does not have, so this assertion is an error \
                     unless the operator grants it"
                ),
                _ => continue,
            };
            if !notes.contains(&note) {
                notes.push(note);
            }
        }
    });
    notes
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

    fn refused(command: &str, granted: bool) -> Vec<String> {
        refusals(&parse(command).unwrap(), crate::lookup, granted)
    }

    #[test]
    fn points_at_commands_that_depend_on_a_refused_construct() {
        for (command, what) in [
            ("git log --oneline | grep -P 'fix(?=es)' || echo none", "-P is not supported"),
            ("xargs -p echo < list; echo rc=$?", "-p"),
            ("echo pwned | tee src/a.txt", "src/a.txt"),
            ("set +e; echo x > out.txt; cat out.txt", "out.txt"),
            ("f() { sed -i s/a/b/ a.txt; }; f && echo done", "sed"),
            ("for f in a b; do grep -z x list; done", "-z is not supported"),
            ("if true; then bash -c 'grep -P x f'; fi", "-P is not supported"),
            ("while grep -P x f; do :; done", "-P is not supported"),
            ("case x in x) grep -P x f;; esac", "-P is not supported"),
        ] {
            let notes = refused(command, false);
            assert!(
                notes.iter().any(|n| n.contains("is refused in the sandbox") && n.contains(what)),
                "{command}: {notes:?}"
            );
        }
        let unavailable = refused("npx tsc --noEmit || true", false);
        assert!(unavailable[0].contains("does not have") && unavailable[0].contains("npx"), "{unavailable:?}");
        // A granted program is never run by the probe, nor reported.
        assert!(refused("npx tsc --noEmit || true", true).is_empty());
        for command in [
            "grep -rn TODO src || echo none",
            "find . -name '*.pem' | wc -l",
            "cat missing.txt 2>/dev/null; echo $?",
            "git log --oneline -5",
            "echo x > /dev/null",
            "grep -P \"$pattern\" f",
        ] {
            assert!(refused(command, false).is_empty(), "{command}: {:?}", refused(command, false));
        }
    }

    #[test]
    fn finds_exit_status_checks_that_cannot_fail() {
        let vacuous = |command: &str| notes(command, Intent::ExitStatus);
        for command in [
            "cd /abs/path && npx tsc --noEmit 2>&1 | head -20 && echo ok || true",
            "cargo test || true",
            "cargo test || :",
            "grep -q x f; true",
            "grep -q x f; exit 0",
            "npx tsc --noEmit 2>&1 | head -20",
            "pytest -q | tail -5",
            "true",
            "npx tsc | tee /dev/null",
            "pnpm check 2>&1 | tail -20 && pnpm lint 2>&1 | tail -10",
            "grep -c x f | grep -q 4 && echo PASS || echo FAIL",
        ] {
            assert!(vacuous(command).first().is_some_and(|n| n.contains("cannot be non-zero")), "{command}");
        }
        for command in [
            "npx tsc --noEmit",
            "grep -q x f && echo ok",
            "set -o pipefail; npx tsc --noEmit | head -20",
            "test -f f",
            "! grep -q x f | cat",
            "grep -rn x . | cat f",
            "cat f",
            "pnpm check | tail -20 && pnpm lint",
        ] {
            assert!(vacuous(command).is_empty(), "{command}: {:?}", vacuous(command));
        }
        // Only for exit-status checks: a grep_match ending in `| head` is fine.
        assert!(notes("grep -rn x . | head -5", Intent::Match).is_empty());
    }
}
