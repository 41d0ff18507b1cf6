//! What must hold for any command string given to the shell-subset parser.
//!
//! Analysts' commands are LLM-written and the parser runs inside the check component,
//! where a panic or a stack overflow turns an assertion into an `error` and a loop
//! burns the whole time limit. So: no panic, and (watched by the caller) it returns.
//! What it accepts must also be no deeper than [`MAX_NESTING`], the bound the
//! interpreter's recursion relies on.
//!
//! Shared by the stable test (`checks/shell/tests/fuzz.rs`) and the libFuzzer target
//! (`fuzz/fuzz_targets/shell_parse.rs`), which both include this file with `#[path]`.

use reviewhost_check_shell::parse::{Command, MAX_NESTING, Piece, Redirect, Script, Word, parse};

/// The longest input the parser must handle: far beyond any command an analyst writes.
/// Longer inputs are not checked.
pub const MAX_INPUT: usize = 64 * 1024;

/// Panics when the parser breaks its contract on `bytes` (read as UTF-8, lossily, as
/// the command field of a JSON file always is text).
pub fn check(bytes: &[u8]) {
    if bytes.len() > MAX_INPUT {
        return;
    }
    let source = String::from_utf8_lossy(bytes);
    if let Ok(script) = parse(&source) {
        let depth = script_depth(&script);
        assert!(depth <= MAX_NESTING, "accepted a script nested {depth} levels deep (limit {MAX_NESTING})");
    }
}

/// How deeply subshells, groups, `if` bodies and substitutions nest in `script`.
fn script_depth(script: &Script) -> usize {
    let pipelines =
        script.0.iter().flat_map(|and_or| std::iter::once(&and_or.first).chain(and_or.rest.iter().map(|(_, p)| p)));
    pipelines.flat_map(|p| &p.commands).map(command_depth).max().unwrap_or(0)
}

fn command_depth(command: &Command) -> usize {
    let (bodies, redirects): (Vec<&Script>, _) = match command {
        Command::Simple { words, redirects } => {
            return words.iter().map(word_depth).chain(redirects.iter().map(redirect_depth)).max().unwrap_or(0);
        }
        Command::Subshell { body, redirects } | Command::Group { body, redirects } => (vec![body], redirects),
        Command::If { branches, otherwise, redirects } => {
            (branches.iter().flat_map(|(c, t)| [c, t]).chain(otherwise).collect(), redirects)
        }
    };
    let inner = bodies.into_iter().map(|body| 1 + script_depth(body)).max().unwrap_or(1);
    redirects.iter().map(redirect_depth).fold(inner, usize::max)
}

fn word_depth(word: &Word) -> usize {
    word.0
        .iter()
        .map(|piece| match piece {
            Piece::Substitution { script, .. } => 1 + script_depth(script),
            Piece::Text { .. } | Piece::LastStatus { .. } => 0,
        })
        .max()
        .unwrap_or(0)
}

fn redirect_depth(redirect: &Redirect) -> usize {
    match redirect {
        Redirect::Output { target, .. } | Redirect::Input { target } => word_depth(target),
        Redirect::Duplicate { .. } | Redirect::Close { .. } => 0,
    }
}
