//! The inputs of the built-in checks, one type per check.

use serde::{Deserialize, Serialize};

/// The input of the fs check (`checks/fs`): an assertion of a file type, its `path`
/// already made root-relative by the host (a path outside the root never gets here).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FileCheck {
    /// `file_exists`: passes when `path` exists.
    FileExists { path: String },
    /// `file_content`: passes when the regular file at `path` contains `needle`.
    FileContent { path: String, needle: String },
}

/// The input of the shell check (`checks/shell`): an analyst's command and how the host
/// wants its run judged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShellInput {
    /// The command as the analyst wrote it: parsed and interpreted in the sandbox only.
    pub command: String,
    pub rule: Rule,
    pub intent: Intent,
    #[serde(default)]
    pub mode: Mode,
    /// The root's absolute paths on the host (as given, and with symlinks resolved). An
    /// analyst ran its commands in the operator's checkout and may name it
    /// (`cd /home/me/project && …`): such a path means the sandbox root. Any other
    /// absolute path stays inside the sandbox.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub root_paths: Vec<String>,
}

/// How a command's run is judged. The host chooses it from the assertion's `type` and
/// `expected`; the check applies it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "rule", rename_all = "snake_case")]
pub enum Rule {
    /// `grep_match`: stdout is not blank.
    OutputPresent,
    /// `grep_not_match`: stdout is blank and nothing failed with an error.
    OutputAbsent,
    /// `shell_exit_zero`, `typescript_compile`: exit status 0; with `quiet`, also no
    /// output at all (`expected: no_output`).
    ExitZero { quiet: bool },
    /// `expected: count:N` / `count>=N`: stdout is one integer that compares.
    Count { at_least: bool, n: u64 },
    /// `expected: equals:TEXT`: stdout, trimmed, is TEXT, trimmed.
    Equals { text: String },
}

/// What the assertion means to show, which decides the lint diagnostics that apply
/// (a `grep -c` in a `grep_not_match` is vacuous; in a count assertion it is the point).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Intent {
    /// `grep_match` (stdout must be non-empty).
    Match,
    /// `grep_not_match` without a count expectation.
    NoMatch,
    /// `shell_exit_zero`, `typescript_compile` judged by the exit status alone.
    ExitStatus,
    /// Anything else.
    Other,
}

/// Whether the check runs the command or only lints it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    /// Run the command and judge it by the rule.
    #[default]
    Evaluate,
    /// `reviewhost lint`: return the diagnostics as evidence, without running.
    Lint,
    /// `reviewhost mcp`'s `sh`: run the command and return what it printed and its exit
    /// status ([`ShellOutput`], as the verdict's message), judging nothing.
    Output,
    /// Before a run: return the searches the command makes ([`SearchPlan`]s, as the
    /// verdict's message), without running anything, for the run's shared first pass.
    Plan,
}

/// One search a command makes, for [`Mode::Plan`]: the literals each of its matches
/// contains one of, and the paths it reads, absolute in the sandbox (`/` is the root).
/// The host reads those paths once for all the run's searches and notes which files
/// hold which needles; a search then skips the files that hold none of its own.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SearchPlan {
    pub needles: Vec<String>,
    pub scopes: Vec<String>,
}

/// What a command printed, for [`Mode::Output`]: each stream cut to
/// [`ShellOutput::MAX_BYTES`], saying so.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShellOutput {
    pub status: i32,
    pub stdout: String,
    pub stderr: String,
    /// Whether stdout or stderr was cut.
    pub cut: bool,
    /// What kept the command from running as written: a program the sandbox does not
    /// have, a refused write, a program that failed with an error.
    pub trouble: Vec<String>,
}

impl ShellOutput {
    /// Bytes of each stream returned.
    pub const MAX_BYTES: usize = 64 * 1024;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The wire format is JSON text both sides read; these are its exact shapes.
    #[test]
    fn wire_shapes() {
        let input = ShellInput {
            command: "grep -rn x .".into(),
            rule: Rule::Count { at_least: true, n: 2 },
            intent: Intent::NoMatch,
            mode: Mode::Lint,
            root_paths: Vec::new(),
        };
        let json = serde_json::to_string(&input).unwrap();
        assert_eq!(
            json,
            r#"{"command":"grep -rn x .","rule":{"rule":"count","at_least":true,"n":2},"intent":"no_match","mode":"lint"}"#
        );
        assert_eq!(serde_json::from_str::<ShellInput>(&json).unwrap(), input);
        let evaluate: ShellInput =
            serde_json::from_str(r#"{"command":"true","rule":{"rule":"output_present"},"intent":"match"}"#).unwrap();
        assert_eq!(evaluate.mode, Mode::Evaluate);
        assert!(evaluate.root_paths.is_empty());
        let with_root: ShellInput = serde_json::from_str(
            r#"{"command":"true","rule":{"rule":"exit_zero","quiet":false},"intent":"exit_status","root_paths":["/r"]}"#,
        )
        .unwrap();
        assert_eq!((with_root.intent, with_root.root_paths), (Intent::ExitStatus, vec!["/r".to_string()]));
        let file = FileCheck::FileContent { path: "a/b".into(), needle: "x".into() };
        assert_eq!(serde_json::to_string(&file).unwrap(), r#"{"type":"file_content","path":"a/b","needle":"x"}"#);
        assert!(serde_json::from_str::<FileCheck>(r#"{"type":"grep_match","path":"a"}"#).is_err());
    }
}
