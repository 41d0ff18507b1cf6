//! The host's whole-file reads and directory listings (`files.read` and `files.list-dir`
//! in wit/check.wit, `sandbox/files.rs`) against hostile paths: every way out of the
//! root is refused, a FIFO neither blocks nor is read or listed, a file larger than the
//! memory limit is refused, nothing outside is named or changes, and a custom validator
//! that imports the interface gets nothing. `files.mode` answers permission bits only
//! for what is inside the root, opening nothing.

use std::sync::Arc;
use std::time::{Duration, Instant};

use reviewhost::RunOptions;
use reviewhost::assertion::Status;
use reviewhost::sandbox::{Input, Limits, RootDir, Sandbox, View};
use serde_json::json;

use crate::components;
use crate::support::*;

const SECRET: &str = "TOP-SECRET-SENTINEL";

#[test]
fn whole_file_reads_stay_inside_the_root_and_never_block() {
    let base = tempfile::tempdir().unwrap();
    let (outside, root) = (base.path().join("outside"), base.path().join("root"));
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::create_dir_all(root.join("sub")).unwrap();
    let secret = outside.join("secret.txt");
    std::fs::write(&secret, SECRET).unwrap();
    std::fs::write(root.join("a.txt"), "hello\n").unwrap();
    std::fs::write(root.join("sub/inner.txt"), "inner\n").unwrap();
    let mkfifo =
        |path: &std::path::Path| assert!(std::process::Command::new("mkfifo").arg(path).status().unwrap().success());
    mkfifo(&outside.join("fifo"));
    mkfifo(&root.join("fifo"));
    use std::os::unix::fs::symlink;
    symlink(&secret, root.join("abs-link")).unwrap();
    symlink("../outside/secret.txt", root.join("rel-link")).unwrap();
    symlink("../outside", root.join("dir-link")).unwrap();
    symlink(root.join("a.txt"), root.join("abs-inside")).unwrap();
    symlink("sub/../a.txt", root.join("rel-inside")).unwrap();
    symlink(outside.join("fifo"), root.join("fifo-link")).unwrap();
    symlink("loop-b", root.join("loop-a")).unwrap();
    symlink("loop-a", root.join("loop-b")).unwrap();
    // Sparse: larger than the memory limit below, without using the disk.
    std::fs::File::create(root.join("big")).unwrap().set_len(65 << 20).unwrap();
    use std::os::unix::fs::PermissionsExt;
    let chmod = |path: &std::path::Path, mode: u32| {
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    };
    chmod(&secret, 0o4711);
    chmod(&root.join("a.txt"), 0o640);
    chmod(&root.join("fifo"), 0o604);
    chmod(&root.join("sub"), 0o2751);
    let before = (sha256(&secret), std::fs::metadata(&secret).unwrap().modified().unwrap());

    let expected = [
        ("a.txt", "6 bytes"),
        ("/a.txt", "6 bytes"),
        ("sub/../a.txt", "6 bytes"),
        ("rel-inside", "6 bytes"),
        ("../outside/secret.txt", "refused ReadError::NotPermitted"),
        ("/../outside/secret.txt", "refused ReadError::NotPermitted"),
        ("sub/../../outside/secret.txt", "refused ReadError::NotPermitted"),
        ("abs-link", "refused ReadError::NotPermitted"),
        ("rel-link", "refused ReadError::NotPermitted"),
        ("dir-link/secret.txt", "refused ReadError::NotPermitted"),
        ("abs-inside", "refused ReadError::NotPermitted"),
        ("fifo", "refused ReadError::NotRegularFile"),
        ("fifo-link", "refused ReadError::NotPermitted"),
        ("sub", "refused ReadError::IsDirectory"),
        ("/", "refused ReadError::IsDirectory"),
        ("a.txt/x", "refused ReadError::NotDirectory"),
        ("missing", "refused ReadError::NotFound"),
        ("/etc/passwd", "refused ReadError::NotFound"),
        ("/proc/self/environ", "refused ReadError::NotFound"),
        ("big", "refused ReadError::TooLarge"),
    ];
    let paths: Vec<&str> = expected.iter().map(|(p, _)| *p).chain(["loop-a"]).collect();
    // Sorted names with the kind each directory entry records (symlinks not followed);
    // the assertions file itself is in the root too.
    let root_listing = [
        "a.txt/File",
        "abs-inside/Symlink",
        "abs-link/Symlink",
        "big/File",
        "dir-link/Symlink",
        "fifo-link/Symlink",
        "fifo/Other",
        "loop-a/Symlink",
        "loop-b/Symlink",
        "rel-inside/Symlink",
        "rel-link/Symlink",
        "review-assertions.json/File",
        "sub/Directory",
    ]
    .map(|entry| entry.replace('/', "/EntryKind::"))
    .join(" ");
    let root_listing = root_listing.as_str();
    let listings = [
        (".", root_listing),
        ("/", root_listing),
        ("sub", "inner.txt/EntryKind::File"),
        ("/sub/", "inner.txt/EntryKind::File"),
        ("sub/..", root_listing),
        ("..", "refused ReadError::NotPermitted"),
        ("/../outside", "refused ReadError::NotPermitted"),
        ("sub/../../outside", "refused ReadError::NotPermitted"),
        ("dir-link", "refused ReadError::NotPermitted"),
        ("abs-link", "refused ReadError::NotPermitted"),
        ("fifo", "refused ReadError::NotDirectory"),
        ("fifo-link", "refused ReadError::NotPermitted"),
        ("a.txt", "refused ReadError::NotDirectory"),
        ("missing", "refused ReadError::NotFound"),
        ("/proc/self", "refused ReadError::NotFound"),
        ("/etc", "refused ReadError::NotFound"),
    ];
    let dirs: Vec<&str> = listings.iter().map(|(p, _)| *p).chain(["loop-a"]).collect();
    // `files.mode`, following a final symlink and not: nothing outside the root (the
    // secret is 4711, a mode nothing inside has) is ever answered for, and a FIFO is not
    // opened.
    let link = "777";
    let not_permitted = "refused ReadError::NotPermitted";
    let modes = [
        ("a.txt", "640 640".to_string()),
        ("rel-inside", format!("640 {link}")),
        ("sub", "2751 2751".into()),
        ("fifo", "604 604".into()),
        ("abs-link", format!("{not_permitted} {link}")),
        ("rel-link", format!("{not_permitted} {link}")),
        ("fifo-link", format!("{not_permitted} {link}")),
        ("dir-link", format!("{not_permitted} {link}")),
        ("dir-link/secret.txt", format!("{not_permitted} {not_permitted}")),
        ("../outside/secret.txt", format!("{not_permitted} {not_permitted}")),
        ("sub/../../outside/secret.txt", format!("{not_permitted} {not_permitted}")),
        ("missing", "refused ReadError::NotFound refused ReadError::NotFound".into()),
        ("/etc/passwd", "refused ReadError::NotFound refused ReadError::NotFound".into()),
        ("a.txt/x", "refused ReadError::NotDirectory refused ReadError::NotDirectory".into()),
    ];
    let mode_paths: Vec<&str> = modes.iter().map(|(p, _)| *p).collect();
    let file = assertions_file(
        &root,
        json!([
            {"id": "R-1", "type": "reader", "paths": paths, "dirs": dirs, "modes": mode_paths},
            {"id": "OK-1", "type": "file_content", "path": "a.txt", "needle": "hello"}
        ]),
    );
    let limits = Limits { memory: 64 << 20, timeout: Duration::from_secs(5), ..Limits::default() };
    let mut runner = runner(limits, 2);
    runner.checks_mut().register(&["reader"], "reader", &std::fs::read(components::WHOLE_READER).unwrap());
    let started = Instant::now();
    let report = runner.run(&RunOptions { file, root: root.clone(), write: false, shard: None, only: None }).unwrap();
    assert!(started.elapsed() < Duration::from_secs(4), "a read blocked: {:?}", started.elapsed());
    let (reader, ok) = (&report.results[0].1, &report.results[1].1);
    assert_eq!(reader.status, Status::Pass, "{}", reader.message);
    assert_eq!(ok.status, Status::Pass, "{}", ok.message);
    let lines: Vec<&str> = reader.message.lines().collect();
    assert_eq!(lines.len(), expected.len() + listings.len() + modes.len() + 2, "{}", reader.message);
    let (read_lines, rest) = lines.split_at(expected.len() + 1);
    let (list_lines, mode_lines) = rest.split_at(listings.len() + 1);
    for ((path, outcome), line) in modes.iter().zip(mode_lines) {
        assert_eq!(*line, format!("{path}: {outcome}"));
    }
    assert!(!reader.message.contains("4711"), "{}", reader.message);
    for ((path, outcome), line) in expected.iter().zip(read_lines) {
        assert_eq!(*line, format!("{path}: {outcome}"));
    }
    assert!(read_lines.last().unwrap().starts_with("loop-a: refused"), "{}", read_lines.last().unwrap());
    for ((path, outcome), line) in listings.iter().zip(list_lines) {
        assert_eq!(*line, format!("{path}: {outcome}"));
    }
    assert!(list_lines.last().unwrap().starts_with("loop-a: refused"), "{}", list_lines.last().unwrap());
    assert!(!reader.message.contains(SECRET));
    // No listing names anything outside the root.
    assert!(list_lines.iter().all(|line| !line.contains("secret.txt")), "{}", reader.message);
    assert_eq!((sha256(&secret), std::fs::metadata(&secret).unwrap().modified().unwrap()), before);
}

#[test]
fn a_custom_validator_cannot_use_the_whole_file_reads() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.txt"), "hello\n").unwrap();
    let cache = cache_at(&cache_dir());
    let sandbox = Arc::new(Sandbox::new(Limits::default(), 1, Some(cache)).unwrap());
    let wasm = std::fs::read(components::FILES_VALIDATOR).unwrap();
    let validator = sandbox.load_validator("files-validator", &wasm).unwrap();
    let view = View::whole(&RootDir::new(dir.path()).unwrap());
    let input = Input::Validate { id: "V-1".into(), config: "\"a.txt\"".into() };
    let verdict = sandbox.evaluate(&validator, &view, input).unwrap();
    assert_eq!(verdict.message, "refused ReadError::NotPermitted; refused ReadError::NotPermitted");
}
