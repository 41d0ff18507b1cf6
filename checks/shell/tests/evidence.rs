//! Evidence for the lines a command printed: named by grep's own `path:line:` prefix, or,
//! when one file was searched without naming it, by the file the interpreter knows.

use reviewhost_check_shell::evaluate_at;
use reviewhost_protocol::{Intent, Mode, Rule, ShellInput};

/// The evidence of `command` judged as a `grep_not_match`, as `(path, line, text)`.
fn evidence(command: &str) -> Vec<(String, Option<u32>, String)> {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("src")).unwrap();
    std::fs::write(dir.path().join("a.txt"), "fine\nTODO here\n").unwrap();
    std::fs::write(dir.path().join("src/b.rs"), "// TODO later\nfn main() {}\n").unwrap();
    let input = ShellInput {
        command: command.into(),
        rule: Rule::OutputAbsent,
        intent: Intent::NoMatch,
        mode: Mode::Evaluate,
        root_paths: Vec::new(),
    };
    let verdict = evaluate_at(&serde_json::to_string(&input).unwrap(), dir.path()).unwrap();
    verdict.evidence.into_iter().filter(|e| !e.path.is_empty()).map(|e| (e.path, e.line, e.text)).collect()
}

fn at(path: &str, line: Option<u32>, text: &str) -> (String, Option<u32>, String) {
    (path.into(), line, text.into())
}

#[test]
fn one_searched_file_is_named_by_the_interpreter() {
    assert_eq!(evidence("grep -n TODO a.txt"), [at("a.txt", Some(2), "TODO here")]);
    assert_eq!(evidence("rg -n TODO a.txt"), [at("a.txt", Some(2), "TODO here")]);
    assert_eq!(evidence("grep TODO a.txt"), [at("a.txt", None, "TODO here")], "no -n: the file, no line");
    assert_eq!(evidence("cd src && grep -n TODO ./b.rs"), [at("src/b.rs", Some(1), "// TODO later")]);
    assert_eq!(evidence("grep -n TODO a.txt || true"), [at("a.txt", Some(2), "TODO here")]);
}

#[test]
fn named_output_keeps_its_names_and_mixed_output_gets_none() {
    assert_eq!(
        evidence("grep -n TODO a.txt src/b.rs"),
        [at("a.txt", Some(2), "TODO here"), at("src/b.rs", Some(1), "// TODO later")]
    );
    assert_eq!(evidence("grep -rn TODO src"), [at("src/b.rs", Some(1), "// TODO later")]);
    // Two commands wrote to stdout: which file a line came from is not known.
    assert_eq!(evidence("echo 3:x; grep -n TODO a.txt"), []);
    // The lines went through a pipe: the last command printed them, not grep.
    assert_eq!(evidence("grep -n TODO a.txt | cat"), []);
    assert_eq!(evidence("grep -n TODO - < a.txt"), []);
}
