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

use reviewhost_check_shell::parse::{
    Command, Compound, MAX_NESTING, ParameterOp, Piece, Redirect, Script, TestExpr, Word, parse,
};

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

/// How deeply compound commands, substitutions and the words inside parameter and
/// arithmetic expansions nest in `script`.
fn script_depth(script: &Script) -> usize {
    let pipelines =
        script.0.iter().flat_map(|and_or| std::iter::once(&and_or.first).chain(and_or.rest.iter().map(|(_, p)| p)));
    pipelines.flat_map(|p| &p.commands).map(command_depth).max().unwrap_or(0)
}

fn command_depth(command: &Command) -> usize {
    let (bodies, words, redirects): (Vec<&Script>, Vec<&Word>, _) = match command {
        Command::Simple { words, redirects, assignments } => {
            let words = words.iter().chain(assignments.iter().map(|a| &a.value));
            return words.map(word_depth).chain(redirects.iter().map(redirect_depth)).max().unwrap_or(0);
        }
        Command::Subshell { body, redirects } => (vec![body], Vec::new(), redirects),
        Command::Group { body, redirects, kind } => {
            let (scripts, words) = compound_parts(kind);
            (std::iter::once(body).chain(scripts).collect(), words, redirects)
        }
        Command::If { branches, otherwise, redirects } => {
            (branches.iter().flat_map(|(c, t)| [c, t]).chain(otherwise).collect(), Vec::new(), redirects)
        }
    };
    let inner = bodies.into_iter().map(|body| 1 + script_depth(body)).max().unwrap_or(1);
    words.into_iter().map(word_depth).chain(redirects.iter().map(redirect_depth)).fold(inner, usize::max)
}

/// The scripts (nested one level) and the words (at the command's level) of a compound
/// command besides its body.
fn compound_parts(kind: &Compound) -> (Vec<&Script>, Vec<&Word>) {
    match kind {
        Compound::Braces | Compound::Function { .. } => (Vec::new(), Vec::new()),
        Compound::For { words, .. } => (Vec::new(), words.iter().flatten().collect()),
        Compound::ArithmeticFor { init, condition, step } => {
            (Vec::new(), [init, condition, step].into_iter().flatten().collect())
        }
        Compound::While { condition, .. } => (vec![condition], Vec::new()),
        Compound::Case { subject, arms } => (
            arms.iter().map(|arm| &arm.body).collect(),
            std::iter::once(subject).chain(arms.iter().flat_map(|arm| &arm.patterns)).collect(),
        ),
        Compound::Test(expr) => (Vec::new(), test_words(expr)),
        Compound::Arithmetic(word) => (Vec::new(), vec![word]),
    }
}

fn test_words(expr: &TestExpr) -> Vec<&Word> {
    match expr {
        TestExpr::And(a, b) | TestExpr::Or(a, b) => test_words(a).into_iter().chain(test_words(b)).collect(),
        TestExpr::Not(a) => test_words(a),
        TestExpr::Unary(_, word) => vec![word],
        TestExpr::Binary(_, left, right) => vec![left, right],
    }
}

fn word_depth(word: &Word) -> usize {
    word.0
        .iter()
        .map(|piece| match piece {
            Piece::Substitution { script, .. } => 1 + script_depth(script),
            Piece::Arithmetic { expression, .. } => 1 + word_depth(expression),
            Piece::Parameter { expansion, .. } => {
                let words: Vec<&Word> = match &expansion.op {
                    ParameterOp::Value | ParameterOp::Length | ParameterOp::Case { .. } => Vec::new(),
                    ParameterOp::Default { word, .. }
                    | ParameterOp::Assign { word, .. }
                    | ParameterOp::Alternative { word, .. } => vec![word],
                    ParameterOp::Error { word, .. } => word.iter().collect(),
                    ParameterOp::RemovePrefix { pattern, .. } | ParameterOp::RemoveSuffix { pattern, .. } => {
                        vec![pattern]
                    }
                    ParameterOp::Replace { pattern, replacement, .. } => vec![pattern, replacement],
                    ParameterOp::Substring { offset, length } => std::iter::once(offset).chain(length).collect(),
                };
                words.into_iter().map(|w| 1 + word_depth(w)).max().unwrap_or(0)
            }
            Piece::Text { .. } | Piece::Fail { .. } => 0,
        })
        .max()
        .unwrap_or(0)
}

fn redirect_depth(redirect: &Redirect) -> usize {
    match redirect {
        Redirect::Output { target, .. } | Redirect::Input { target, .. } => word_depth(target),
        Redirect::Here { text, .. } => word_depth(text),
        Redirect::Duplicate { .. } | Redirect::Close { .. } => 0,
    }
}
