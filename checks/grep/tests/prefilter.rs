//! The run's first pass and the options that decide what a file without a match
//! prints: each search runs with a pass over needles of the whole run and without
//! one, and must print the same bytes and exit the same.

mod common;

use common::{Pass, run, settle};
use std::fs;
use std::path::Path;
use std::sync::atomic::Ordering;

fn fixture(root: &Path) {
    let files: [(&str, &[u8]); 7] = [
        ("src/hit.rs", b"let c = MockConnection::new();\nother line\n"),
        ("src/miss.rs", b"fn main() {}\nnothing here\n"),
        ("src/upper.rs", b"MOCKCONNECTION shouted\n"),
        ("src/word.rs", b"MockConnectionPool is not the word\n"),
        ("src/binary.dat", b"\x00\x01MockConnection\x00\n"),
        ("src/binary-miss.dat", b"\x00\x01\x02 nothing\x00\n"),
        ("src/nested/deep.rs", b"nothing\n"),
    ];
    common::write_files(root, &files);
}

/// Another search of the run, which has the pass look for `MockConnection`.
fn planned(name: &str) -> [&'static str; 3] {
    if name == "rg" { ["-n", "MockConnection", "src"] } else { ["-rn", "MockConnection", "src"] }
}

fn args(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

/// Runs `name args` with the pass of `planned` (another search of the run, which
/// decides what the pass looked for) and without, comparing; returns files skipped.
fn compare(root: &Path, name: &str, list: &[&str], planned: &[&str]) -> usize {
    let program = reviewhost_grep::lookup(name).unwrap();
    let pass = Pass::of(root, name, &args(planned)).expect("the planned search has needles");
    let plain = run(program, root, &args(list), b"", None);
    let with = run(program, root, &args(list), b"", Some(pass.clone()));
    assert_eq!(
        (with.status, String::from_utf8_lossy(&with.stdout), String::from_utf8_lossy(&with.stderr)),
        (plain.status, String::from_utf8_lossy(&plain.stdout), String::from_utf8_lossy(&plain.stderr)),
        "{name} {list:?}"
    );
    pass.skipped.load(Ordering::Relaxed)
}

#[test]
fn file_level_options_print_the_same_for_skipped_files() {
    let dir = tempfile::tempdir().unwrap();
    fixture(dir.path());
    settle();
    let root = dir.path();
    for (name, list) in [
        ("grep", &["-rn", "MockConnection", "src"][..]),
        ("grep", &["-rc", "MockConnection", "src"]),
        ("grep", &["-rl", "MockConnection", "src"]),
        ("grep", &["-rL", "MockConnection", "src"]),
        ("grep", &["-rLI", "MockConnection", "src"]),
        ("grep", &["-rw", "MockConnection", "src"]),
        ("grep", &["-rq", "MockConnection", "src"]),
        ("grep", &["-rca", "MockConnection", "src"]),
        ("grep", &["-c", "MockConnection", "src/miss.rs", "src/hit.rs"]),
        ("rg", &["-n", "MockConnection", "src"]),
        ("rg", &["-c", "MockConnection", "src"]),
        ("rg", &["--count-matches", "MockConnection", "src"]),
        ("rg", &["-c", "--include-zero", "MockConnection", "src"]),
        ("rg", &["--files-without-match", "MockConnection", "src"]),
        ("rg", &["-w", "MockConnection", "src"]),
        ("rg", &["--binary", "MockConnection", "src"]),
        ("rg", &["MockConnection", "src/binary-miss.dat", "src/miss.rs"]),
    ] {
        let skipped = compare(root, name, list, list);
        assert!(skipped > 0, "{name} {list:?} skipped nothing");
    }
}

#[test]
fn case_insensitive_searches_skip_only_files_without_any_case_of_the_literal() {
    let dir = tempfile::tempdir().unwrap();
    fixture(dir.path());
    settle();
    for (name, list) in [("grep", &["-rni", "mockconnection", "src"][..]), ("rg", &["-i", "mockconnection", "src"])] {
        let skipped = compare(dir.path(), name, list, list);
        // miss.rs and nested/deep.rs hold no case of it; binary-miss.dat neither, but a
        // file with a NUL is always read.
        assert_eq!(skipped, 2, "{name} {list:?}");
    }
    assert!(compare(dir.path(), "rg", &["-S", "mockconnection", "src"], &["-i", "mockconnection", "src"]) > 0);
}

/// `-v` selects the lines without a match: no file may be skipped, even when the pass
/// looked for its pattern's literals for another search of the run.
#[test]
fn inverted_searches_skip_nothing() {
    let dir = tempfile::tempdir().unwrap();
    fixture(dir.path());
    settle();
    for (name, list) in [("grep", &["-rv", "MockConnection", "src"][..]), ("rg", &["-v", "MockConnection", "src"])] {
        assert!(reviewhost_grep::search_plan(name, &args(list)).is_none(), "{list:?} is not planned");
        assert_eq!(compare(dir.path(), name, list, &planned(name)), 0, "{name} {list:?}");
    }
}

/// A pattern no literal is required by (`Mock.*|x+`) reads every file.
#[test]
fn patterns_without_a_required_literal_read_every_file() {
    let dir = tempfile::tempdir().unwrap();
    fixture(dir.path());
    settle();
    for (name, list) in [("grep", &["-rE", "Mock.*|x+", "src"][..]), ("rg", &["[A-Z]+", "src"])] {
        assert!(reviewhost_grep::search_plan(name, &args(list)).is_none());
        assert_eq!(compare(dir.path(), name, list, &planned(name)), 0);
    }
}

/// A file that gains a match after the pass read it is read by the search.
#[test]
fn a_file_changed_between_the_pass_and_the_search_is_searched() {
    let dir = tempfile::tempdir().unwrap();
    fixture(dir.path());
    settle();
    let root = dir.path();
    let list = args(&["-rl", "MockConnection", "src"]);
    let pass = Pass::of(root, "grep", &list).unwrap();
    // Same size, different bytes; and a new file the pass never saw.
    fs::write(root.join("src/miss.rs"), b"MockConnection\nnothing ho\n").unwrap();
    fs::write(root.join("src/new.rs"), b"MockConnection\n").unwrap();
    let with = run(reviewhost_grep::grep, root, &list, b"", Some(pass));
    let text = String::from_utf8_lossy(&with.stdout);
    assert!(text.contains("src/miss.rs") && text.contains("src/new.rs"), "{text}");
    assert_eq!(with, run(reviewhost_grep::grep, root, &list, b"", None));
}
