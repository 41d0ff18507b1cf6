//! Example validator: no Rust function is longer than `max` lines.
//!
//! Config: `{"files": ["src/**/*.rs"], "max": 50}`. Each matching file (the walk honours
//! `.gitignore`) is parsed with `syn`; every free function, inherent or trait-impl method,
//! trait default method and function nested in another function's body is measured from
//! the line of its signature (`fn`, or `const`/`async`/`unsafe`/`extern` before it) to the
//! line of its closing brace, both included. Each one longer than `max` is a piece of
//! evidence (`fn name: N lines`, at the signature's line). A file that does not parse is
//! evidence too (`does not parse: ...`, at the error's line) and fails the check.
//!
//! It deliberately does not count doc comments and attributes above a signature, does not
//! subtract blank or comment lines inside a body, does not measure closures or code inside
//! macro invocations (`macro_rules!` bodies and the tokens of `quote!`, `tokio::main`-style
//! attribute input are not functions until expanded), and does not expand macros or follow
//! `mod foo;` to files the globs do not name. A config that matches no file is an error.

use proc_macro2::Span;
use reviewhost_guest::{Root, Validator, Verdict};
use serde::Deserialize;
use syn::spanned::Spanned;
use syn::visit::{self, Visit};

pub struct MaxFunctionLines;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Globs of root-relative paths (`*` does not cross `/`).
    files: Vec<String>,
    /// The longest a function may be, in lines.
    max: usize,
}

/// A function found in a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Function {
    pub name: String,
    /// 1-based line of the signature.
    pub line: usize,
    pub lines: usize,
}

/// Every function with a body in `source`, in source order; `Err` with the line when the
/// file does not parse.
pub fn functions(source: &str) -> Result<Vec<Function>, (Option<usize>, String)> {
    let parsed = syn::parse_file(source).map_err(|e| (Some(e.span().start().line).filter(|l| *l > 0), e.to_string()));
    let result = parsed.map(|file| {
        let mut collector = Collector::default();
        collector.visit_file(&file);
        collector.found
    });
    // Span positions live in a thread-local source map that otherwise grows with every
    // file parsed; every line number needed has been read by now.
    proc_macro2::extra::invalidate_current_thread_spans();
    result
}

#[derive(Default)]
struct Collector {
    found: Vec<Function>,
}

impl Collector {
    fn record(&mut self, sig: &syn::Signature, close: Span) {
        let line = sig.span().start().line;
        let end = close.end().line;
        self.found.push(Function { name: sig.ident.to_string(), line, lines: end.saturating_sub(line) + 1 });
    }
}

impl<'ast> Visit<'ast> for Collector {
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        self.record(&f.sig, f.block.brace_token.span.close());
        visit::visit_item_fn(self, f);
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        self.record(&f.sig, f.block.brace_token.span.close());
        visit::visit_impl_item_fn(self, f);
    }

    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        if let Some(block) = &f.default {
            self.record(&f.sig, block.brace_token.span.close());
        }
        visit::visit_trait_item_fn(self, f);
    }
}

impl Validator for MaxFunctionLines {
    type Config = Config;

    fn validate(_id: &str, config: Config, root: &Root) -> Result<Verdict, String> {
        if config.files.is_empty() {
            return Err("config.files is empty: name the Rust files to check with globs".into());
        }
        if config.max == 0 {
            return Err("config.max must be at least 1".into());
        }
        let files = root.files_matching(".", &config.files, true)?;
        if files.is_empty() {
            return Err(format!("no file matches {:?}: nothing to check", config.files));
        }
        let mut evidence = Vec::new();
        let (mut measured, mut unparsable) = (0, 0);
        for file in &files {
            let source = root.read_to_string(file)?;
            match functions(&source) {
                Ok(found) => {
                    measured += found.len();
                    for f in found.into_iter().filter(|f| f.lines > config.max) {
                        evidence.push((file.clone(), Some(f.line), format!("fn {}: {} lines", f.name, f.lines)));
                    }
                }
                Err((line, error)) => {
                    unparsable += 1;
                    evidence.push((file.clone(), line, format!("does not parse: {error}")));
                }
            }
        }
        let long = evidence.len() - unparsable;
        let mut verdict = if evidence.is_empty() {
            Verdict::pass(format!("all {measured} functions in {} files are at most {} lines", files.len(), config.max))
        } else {
            let mut parts = Vec::new();
            if long > 0 {
                let names: Vec<&str> =
                    evidence.iter().filter(|e| !e.2.starts_with("does not parse")).map(|e| e.2.as_str()).collect();
                parts.push(format!(
                    "{long} of {measured} functions longer than {} lines ({})",
                    config.max,
                    names.join(", ")
                ));
            }
            if unparsable > 0 {
                parts.push(format!("{unparsable} of {} files do not parse", files.len()));
            }
            Verdict::fail(parts.join("; "))
        };
        for (path, line, text) in evidence {
            verdict = verdict.with_evidence(path, line.and_then(|l| u32::try_from(l).ok()), text);
        }
        Ok(verdict)
    }
}

reviewhost_guest::export_validator!(MaxFunctionLines);

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
        run_validator::<MaxFunctionLines>("FN-1", config, &Root::at(dir.path()))
    }

    /// A function `name` of exactly `lines` lines.
    fn function(name: &str, lines: usize) -> String {
        assert!(lines >= 2);
        let body: String = (0..lines - 2).map(|i| format!("    let _x{i} = {i};\n")).collect();
        format!("fn {name}() {{\n{body}}}\n")
    }

    const SOURCE: &str = r#"//! A module.

/// Docs are not counted.
#[inline]
pub async fn free(a: u32) -> u32 {
    a
}

struct S;

impl S {
    pub const unsafe fn method(&self) {
        fn nested() {
            let _ = 1;
        }
    }
}

trait T {
    fn required(&self);
    fn provided(&self) {
        let _ = 2;
    }
}
"#;

    #[test]
    fn finds_free_functions_methods_trait_defaults_and_nested_functions() {
        let found: Vec<(String, usize, usize)> =
            functions(SOURCE).unwrap().into_iter().map(|f| (f.name, f.line, f.lines)).collect();
        assert_eq!(
            found,
            [("free".into(), 5, 3), ("method".into(), 12, 5), ("nested".into(), 13, 3), ("provided".into(), 21, 3)]
        );
        // Line numbers are per file, not cumulative across parses.
        assert_eq!(functions(SOURCE).unwrap()[0].line, 5);
    }

    #[test]
    fn short_functions_pass() {
        let dir = tree(&[("src/lib.rs", SOURCE), ("src/short.rs", &function("ten", 10)), ("target/x.rs", "fn {")]);
        let verdict = run(&dir, r#"{"files": ["src/**/*.rs", "target/*.rs"], "max": 10}"#);
        // target/ is not ignored here (no .gitignore), so the broken file is seen.
        assert!(!verdict.unwrap().passed);
        std::fs::write(dir.path().join(".gitignore"), "target/\n").unwrap();
        let verdict = run(&dir, r#"{"files": ["src/**/*.rs", "target/*.rs"], "max": 10}"#).unwrap();
        assert!(verdict.passed, "{verdict:?}");
        assert_eq!(verdict.message, "all 5 functions in 2 files are at most 10 lines");
    }

    #[test]
    fn long_functions_and_unparsable_files_are_evidence() {
        let long = format!("// header\n{}\n{}", function("short", 3), function("too_long", 12));
        let dir = tree(&[("src/a.rs", &long), ("src/broken.rs", "fn ok() {}\n\nfn broken( {\n")]);
        let verdict = run(&dir, r#"{"files": ["src/*.rs"], "max": 10}"#).unwrap();
        assert!(!verdict.passed);
        assert_eq!(
            verdict.message,
            "1 of 2 functions longer than 10 lines (fn too_long: 12 lines); 1 of 2 files do not parse"
        );
        assert_eq!(verdict.evidence.len(), 2);
        assert_eq!(
            (verdict.evidence[0].path.as_str(), verdict.evidence[0].line, verdict.evidence[0].text.as_str()),
            ("src/a.rs", Some(6), "fn too_long: 12 lines")
        );
        assert_eq!(verdict.evidence[1].path, "src/broken.rs");
        assert!(verdict.evidence[1].text.starts_with("does not parse: "), "{:?}", verdict.evidence[1]);
        assert!(verdict.evidence[1].line.is_some());
    }

    #[test]
    fn unusable_configs_are_errors() {
        let dir = tree(&[("src/lib.rs", SOURCE)]);
        let err = run(&dir, r#"{"files": ["lib/**/*.rs"], "max": 10}"#).unwrap_err();
        assert!(err.contains("no file matches"), "{err}");
        let err = run(&dir, r#"{"files": ["src/**/*.rs"]}"#).unwrap_err();
        assert!(err.contains("missing field `max`"), "{err}");
        let err = run(&dir, r#"{"files": ["src/**/*.rs"], "max": -1}"#).unwrap_err();
        assert!(err.contains("invalid config for 'FN-1'"), "{err}");
        let err = run(&dir, r#"{"files": ["src/**/*.rs"], "max": 0}"#).unwrap_err();
        assert!(err.contains("at least 1"), "{err}");
    }
}
