//! Example validator: every file matching `files` starts with a license header.
//!
//! Config: `{"files": ["**/*.rs"], "header": "// SPDX-License-Identifier: MIT", "lines": 3}`.
//! The header must begin on one of the first `lines` lines (default 1), so a shebang or a
//! `// @generated` marker may come before it. A multi-line header is matched line by line,
//! each header line a prefix of the file's line (trailing whitespace, a `\r` and a UTF-8
//! byte-order mark are ignored). The walk honours `.gitignore` and skips hidden entries.
//!
//! Each file without the header is one piece of evidence (`missing header`). A config that
//! matches no file at all is an error, not a pass: a check that looked at nothing proves
//! nothing.
//!
//! It deliberately does not check that the header is the *right* license for the file,
//! does not understand comment syntax (the header is literal text), and does not look
//! past the first `lines` lines.

use reviewhost_guest::{DEFAULT_READ_LIMIT, Root, Validator, Verdict};
use serde::Deserialize;

pub struct LicenseHeader;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Globs of root-relative paths (`*` does not cross `/`).
    files: Vec<String>,
    /// The header text; several lines are separated by `\n`.
    header: String,
    /// The header must begin within this many lines of the top.
    #[serde(default = "default_lines")]
    lines: usize,
}

fn default_lines() -> usize {
    1
}

impl Validator for LicenseHeader {
    type Config = Config;

    fn validate(_id: &str, config: Config, root: &Root) -> Result<Verdict, String> {
        if config.files.is_empty() {
            return Err("config.files is empty: name the files to check with globs".into());
        }
        let header: Vec<&str> = config.header.trim_end_matches(['\n', '\r']).lines().map(str::trim_end).collect();
        if header.iter().all(|line| line.is_empty()) {
            return Err("config.header is empty".into());
        }
        if config.lines == 0 {
            return Err("config.lines must be at least 1".into());
        }
        let files = root.files_matching(".", &config.files, true)?;
        if files.is_empty() {
            return Err(format!("no file matches {:?}: nothing to check", config.files));
        }
        let mut missing = Vec::new();
        for file in &files {
            let bytes = root.read(file, DEFAULT_READ_LIMIT)?;
            let text = String::from_utf8_lossy(&bytes);
            if !has_header(&text, &header, config.lines) {
                missing.push(file.clone());
            }
        }
        let where_ = if config.lines == 1 {
            "on the first line".to_string()
        } else {
            format!("within the first {} lines", config.lines)
        };
        if missing.is_empty() {
            return Ok(Verdict::pass(format!("all {} files start with the header {where_}", files.len())));
        }
        let mut verdict = Verdict::fail(format!(
            "{} of {} files lack the header {where_}: {}",
            missing.len(),
            files.len(),
            missing.join(", ")
        ));
        for file in missing {
            verdict = verdict.with_evidence(file, None, "missing header");
        }
        Ok(verdict)
    }
}

/// Whether `header` (its lines, right-trimmed) begins on one of the first `within` lines.
fn has_header(text: &str, header: &[&str], within: usize) -> bool {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let lines: Vec<&str> = text.lines().take(within + header.len()).map(str::trim_end).collect();
    (0..within.min(lines.len())).any(|start| {
        header.iter().enumerate().all(|(i, want)| lines.get(start + i).is_some_and(|line| line.starts_with(want)))
    })
}

reviewhost_guest::export_validator!(LicenseHeader);

#[cfg(test)]
mod tests {
    use super::*;
    use reviewhost_guest::run_validator;

    fn tree(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let p = dir.path().join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        dir
    }

    fn run(dir: &tempfile::TempDir, config: &str) -> Result<Verdict, String> {
        run_validator::<LicenseHeader>("LIC-1", config, &Root::at(dir.path()))
    }

    const SPDX: &str = "// SPDX-License-Identifier: MIT\n";

    #[test]
    fn every_file_with_the_header_passes() {
        let dir = tree(&[
            ("src/lib.rs", &format!("{SPDX}pub fn f() {{}}\n")),
            ("src/main.rs", &format!("#!/usr/bin/env run-cargo-script\r\n{SPDX}fn main() {{}}\n")),
            ("target/gen.rs", "fn generated() {}\n"),
            (".gitignore", "target/\n"),
            ("README.md", "# no header needed\n"),
        ]);
        let verdict =
            run(&dir, r#"{"files": ["**/*.rs"], "header": "// SPDX-License-Identifier: MIT", "lines": 2}"#).unwrap();
        assert!(verdict.passed, "{verdict:?}");
        assert_eq!(verdict.message, "all 2 files start with the header within the first 2 lines");
        assert!(verdict.evidence.is_empty());
    }

    #[test]
    fn files_without_the_header_are_evidence() {
        let dir = tree(&[
            ("src/lib.rs", &format!("{SPDX}pub fn f() {{}}\n")),
            ("src/late.rs", &format!("//! docs\n\n{SPDX}")),
            ("src/none.rs", "fn g() {}\n"),
            ("src/empty.rs", ""),
        ]);
        let verdict = run(&dir, r#"{"files": ["src/*.rs"], "header": "// SPDX-License-Identifier: MIT"}"#).unwrap();
        assert!(!verdict.passed);
        assert!(verdict.message.starts_with("3 of 4 files lack the header"), "{}", verdict.message);
        let paths: Vec<_> = verdict.evidence.iter().map(|e| (e.path.as_str(), e.line, e.text.as_str())).collect();
        assert_eq!(
            paths,
            [
                ("src/empty.rs", None, "missing header"),
                ("src/late.rs", None, "missing header"),
                ("src/none.rs", None, "missing header")
            ]
        );
        // Within three lines, the late header counts.
        let verdict =
            run(&dir, r#"{"files": ["src/*.rs"], "header": "// SPDX-License-Identifier: MIT", "lines": 3}"#).unwrap();
        assert_eq!(verdict.evidence.len(), 2, "{verdict:?}");
    }

    #[test]
    fn a_multi_line_header_is_matched_line_by_line() {
        let dir = tree(&[
            ("a.py", "# Copyright Example Ltd\n# SPDX-License-Identifier: MIT OR Apache-2.0\nx = 1\n"),
            ("b.py", "# Copyright Example Ltd\nx = 1\n# SPDX-License-Identifier: MIT\n"),
        ]);
        let verdict =
            run(&dir, r##"{"files": ["*.py"], "header": "# Copyright Example Ltd\n# SPDX-License-Identifier: MIT"}"##)
                .unwrap();
        assert_eq!(verdict.evidence.len(), 1);
        assert_eq!(verdict.evidence[0].path, "b.py");
    }

    #[test]
    fn unusable_configs_are_errors() {
        let dir = tree(&[("src/lib.rs", SPDX)]);
        let err = run(&dir, r#"{"files": ["**/*.go"], "header": "// x"}"#).unwrap_err();
        assert!(err.contains("no file matches"), "{err}");
        let err = run(&dir, r#"{"files": ["**/*.rs"]}"#).unwrap_err();
        assert!(err.contains("missing field `header`"), "{err}");
        let err = run(&dir, r#"{"files": ["**/*.rs"], "header": "\n"}"#).unwrap_err();
        assert!(err.contains("config.header is empty"), "{err}");
        let err = run(&dir, r#"{"files": ["**/*.rs"], "header": "// x", "lines": 0}"#).unwrap_err();
        assert!(err.contains("at least 1"), "{err}");
        let err = run(&dir, r#"{"files": ["["], "header": "// x"}"#).unwrap_err();
        assert!(err.contains("invalid glob '['"), "{err}");
        let err = run(&dir, "null").unwrap_err();
        assert!(err.contains("invalid config for 'LIC-1'"), "{err}");
    }
}
