//! A file that cannot be run: exit 2, a message naming file, assertion and field, and
//! the file byte-identical afterwards.

use crate::support::*;

/// (case, file contents, what stderr must contain)
const CASES: &[(&str, &str, &[&str])] = &[
    (
        "malformed JSON",
        "{\n  \"assertions\": [\n    {\"id\": \"A\",, }\n  ]\n}",
        &["review-assertions.json:3:16: invalid JSON: key must be a string"],
    ),
    (
        "truncated JSON",
        "{\"assertions\": [{\"id\": \"A\", \"type\": \"file_exists\"",
        &["review-assertions.json:1:", "invalid JSON"],
    ),
    ("not an object", "[1, 2]", &["top level", "expected an object, found an array"]),
    ("no assertions array", "{\"plugin\": \"x\", \"confidence\": {}}", &["top level: field `assertions`: missing"]),
    (
        "assertions not an array",
        "{\"assertions\": \"none\"}",
        &["field `assertions`: expected an array, found a string"],
    ),
    (
        "assertion without id",
        "{\"assertions\": [{\"type\": \"file_exists\", \"path\": \"x\"}]}",
        &["assertions[0]: field `id`: missing"],
    ),
    (
        "assertion with numeric id",
        "{\"assertions\": [{\"id\": 7, \"type\": \"file_exists\", \"path\": \"x\"}]}",
        &["assertions[0]: field `id`: expected a string"],
    ),
    (
        "assertion without type",
        "{\"assertions\": [{\"id\": \"A-1\", \"path\": \"x\"}]}",
        &["assertion 'A-1' (assertions[0]): field `type`: missing"],
    ),
    (
        "duplicate ids",
        "{\"assertions\": [{\"id\": \"A-1\", \"type\": \"file_exists\", \"path\": \"x\"}, {\"id\": \"A-1\", \"type\": \"file_exists\", \"path\": \"y\"}]}",
        &["assertion 'A-1' (assertions[1]): field `id`: duplicate id"],
    ),
    (
        "file_exists with empty path",
        "{\"assertions\": [{\"id\": \"A-2\", \"type\": \"file_exists\", \"path\": \"\"}]}",
        &["assertion 'A-2' (assertions[0]): field `path`: must not be empty"],
    ),
    (
        "file_content without needle",
        "{\"assertions\": [{\"id\": \"A-3\", \"type\": \"file_content\", \"path\": \"x\"}]}",
        &["assertion 'A-3' (assertions[0]): field `needle`: missing"],
    ),
    (
        "command type without command",
        "{\"assertions\": [{\"id\": \"A-4\", \"type\": \"grep_match\"}]}",
        &["assertion 'A-4' (assertions[0]): field `command`: missing"],
    ),
    ("not UTF-8", "{\"assertions\": [{\"id\": \"\u{fffd}\"}]}", &[]),
];

#[test]
fn every_bad_file_exits_two_and_is_left_byte_identical() {
    for (case, contents, expected) in CASES {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("review-assertions.json");
        let mut bytes = contents.as_bytes().to_vec();
        if *case == "not UTF-8" {
            bytes = b"{\"assertions\": [{\"id\": \"\xff\xfe\"}]}".to_vec();
        }
        std::fs::write(&file, &bytes).unwrap();
        let before = sha256(&file);
        let out = run(&file, dir.path(), &[]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{case}: {err}");
        assert!(err.contains(file.to_str().unwrap()), "{case}: the message names the file: {err}");
        for needle in *expected {
            assert!(err.contains(needle), "{case}: expected {needle:?} in {err}");
        }
        assert_eq!(sha256(&file), before, "{case}: file changed");
        assert!(stdout(&out).is_empty(), "{case}: nothing ran");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "{case}: no lock or temp file left behind");
    }
}

#[test]
fn a_missing_file_or_root_exits_two() {
    let dir = tempfile::tempdir().unwrap();
    let out = run(&dir.path().join("absent.json"), dir.path(), &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("absent.json: cannot read the assertions file"), "{}", stderr(&out));

    let file = assertions_file(dir.path(), serde_json::json!([]));
    let before = sha256(&file);
    let out = run(&file, &dir.path().join("no-root"), &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("no-root: the root is not an accessible directory"), "{}", stderr(&out));
    assert_eq!(sha256(&file), before);
}

#[test]
fn bad_flags_exit_two_with_a_hint() {
    let dir = tempfile::tempdir().unwrap();
    let file = assertions_file(dir.path(), serde_json::json!([]));
    for (flag, value, hint) in [
        ("--timeout", "soon", "try 10s"),
        ("--memory", "12 parsecs", "use KiB, MiB or GiB"),
        ("--format", "xml", "possible values"),
    ] {
        let out = run(&file, dir.path(), &[flag, value]);
        assert_eq!(out.status.code(), Some(2), "{flag} {value}");
        assert!(stderr(&out).contains(hint), "{flag}: {}", stderr(&out));
    }
}
