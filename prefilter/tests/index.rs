//! The pass over a real directory: what it answers, and the cases where it must not.

use reviewhost_prefilter::{DirTree, Index, Limits, Needles, Tree};
use std::fs;
use std::path::Path;
use std::time::Duration;

fn needles(list: &[&str]) -> Needles {
    Needles::from(list.iter().map(|s| s.to_string()).collect::<Vec<_>>())
}

fn write(root: &Path, path: &str, text: &[u8]) {
    let path = root.join(path);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

/// Past the window in which the pass does not trust a file just written.
fn settle() {
    std::thread::sleep(Duration::from_millis(60));
}

fn cannot(index: &Index, tree: &DirTree, set: &[&str], path: &str) -> bool {
    let set = index.needle_set(&set.iter().map(|s| s.to_string()).collect::<Vec<_>>()).expect("a known set");
    index.cannot_match(&set, path, |key| tree.stamp(key))
}

#[test]
fn files_without_any_needle_are_the_only_ones_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "src/a.rs", b"let c = MockConnection::new();\n");
    write(root, "src/b.rs", b"fn main() {}\n");
    // Overlapping needles: a leftmost-first search would see `abc` and miss `bcd`.
    write(root, "src/c.rs", b"xabcdx\n");
    write(root, "lib/d.rs", b"MockConnection\n");
    settle();
    let tree = DirTree(root.to_path_buf());
    let all = [needles(&["MockConnection"]), needles(&["abc", "bcd"]), needles(&["bcd"])];
    let index = Index::build(&tree, &all, ["src"], Limits::default());
    assert_eq!(index.stats().files, 3, "{:?}", index.stats());
    assert!(!cannot(&index, &tree, &["MockConnection"], "src/a.rs"));
    assert!(cannot(&index, &tree, &["MockConnection"], "src/b.rs"));
    assert!(cannot(&index, &tree, &["MockConnection"], "/src/./b.rs"), "the same file by another spelling");
    assert!(!cannot(&index, &tree, &["bcd"], "src/c.rs"), "an overlapping needle is found");
    assert!(!cannot(&index, &tree, &["MockConnection"], "lib/d.rs"), "outside the scopes: not answered");
    assert!(!cannot(&index, &tree, &["MockConnection"], "src/../src/b.rs"), "`..` is not answered");
    assert!(index.needle_set(&["never looked for".to_string()]).is_none());
}

#[test]
fn a_file_changed_after_the_pass_is_read_again() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for name in ["same-size", "appended", "renamed-over", "removed"] {
        write(root, name, b"nothing to see\n");
    }
    settle();
    let tree = DirTree(root.to_path_buf());
    let index = Index::build(&tree, &[needles(&["secret"])], [""], Limits::default());
    for name in ["same-size", "appended", "renamed-over", "removed"] {
        assert!(cannot(&index, &tree, &["secret"], name), "{name} before the change");
    }
    fs::write(root.join("same-size"), b"secret to see!\n").unwrap();
    fs::write(root.join("appended"), b"nothing to see\nsecret\n").unwrap();
    fs::write(root.join("other"), b"a secret here!!\n").unwrap();
    fs::rename(root.join("other"), root.join("renamed-over")).unwrap();
    fs::remove_file(root.join("removed")).unwrap();
    for name in ["same-size", "appended", "renamed-over", "removed"] {
        assert!(!cannot(&index, &tree, &["secret"], name), "{name} after the change");
    }
}

/// A file written less than the racy window (25 ms) before the pass read it is not
/// trusted: a timestamp tick may hide a later write. Only attempts where the pass was
/// certainly that quick count (10 ms, leaving room for a 10 ms filesystem tick).
#[test]
fn a_file_written_just_before_the_pass_is_not_trusted() {
    let mut checked = 0;
    for _ in 0..50 {
        let dir = tempfile::tempdir().unwrap();
        write(dir.path(), "fresh", b"nothing\n");
        let written = std::time::Instant::now();
        let tree = DirTree(dir.path().to_path_buf());
        let index = Index::build(&tree, &[needles(&["secret"])], [""], Limits::default());
        if written.elapsed() < Duration::from_millis(10) {
            assert_eq!(index.stats().files, 0, "a timestamp tick may hide a later write");
            checked += 1;
            if checked == 3 {
                break;
            }
        }
    }
    assert!(checked > 0, "the pass was never quick enough to test the window");
}

#[test]
fn symlinks_special_files_git_and_utf16_are_never_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let outside = tempfile::tempdir().unwrap();
    write(outside.path(), "target.txt", b"nothing\n");
    std::os::unix::fs::symlink(outside.path().join("target.txt"), root.join("link.txt")).unwrap();
    std::os::unix::fs::symlink(outside.path(), root.join("linkdir")).unwrap();
    write(root, ".git/objects/pack", b"nothing\n");
    write(root, "plain.txt", b"nothing\n");
    // "secret" in UTF-16LE after a byte order mark: not in the raw bytes.
    let mut utf16 = vec![0xFF, 0xFE];
    utf16.extend("secret".encode_utf16().flat_map(u16::to_le_bytes));
    write(root, "utf16.txt", &utf16);
    let fifo = root.join("fifo");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    settle();
    let tree = DirTree(root.to_path_buf());
    let index = Index::build(&tree, &[needles(&["secret"])], ["", "fifo", "link.txt"], Limits::default());
    assert!(cannot(&index, &tree, &["secret"], "plain.txt"));
    for path in ["link.txt", "linkdir/target.txt", ".git/objects/pack", "fifo", "utf16.txt"] {
        assert!(!cannot(&index, &tree, &["secret"], path), "{path}");
    }
}

/// A needle set that would make the matcher's automaton huge is not looked for: the
/// pass is skipped, with the reason, and every search reads its files.
#[test]
fn a_hostile_needle_set_skips_the_pass_without_an_error() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "a.txt", b"nothing\n");
    settle();
    let tree = DirTree(dir.path().to_path_buf());
    let many: Vec<Needles> = (0..20_000).map(|i| needles(&[&format!("{i:0>64}")])).collect();
    let index = Index::build(&tree, &many, [""], Limits::default());
    assert!(index.stats().skipped.as_deref().is_some_and(|r| r.contains("more than the pass looks for")));
    assert_eq!(index.needle_set(&[format!("{:0>64}", 1)]), None);
    let long = needles(&[&"x".repeat(300 * 1024)]);
    assert!(Index::build(&tree, [&long], [""], Limits::default()).stats().skipped.is_some());
}

#[test]
fn the_index_stays_within_its_memory_bound() {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..200 {
        write(dir.path(), &format!("d/f{i}"), b"nothing\n");
    }
    settle();
    let tree = DirTree(dir.path().to_path_buf());
    let limits = Limits { max_index_bytes: 4096, ..Limits::default() };
    let index = Index::build(&tree, &[needles(&["secret"])], [""], limits);
    assert!(index.stats().files > 0 && index.stats().files < 200, "{:?}", index.stats());
}

#[test]
fn a_directory_is_answered_whole_only_when_all_under_it_was_read_and_is_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "src/a/x.rs", b"nothing\n");
    write(root, "src/a/b/y.rs", b"nothing\n");
    write(root, "src/c/z.rs", b"a secret\n");
    write(root, "src/d/w.rs", b"nothing\n");
    std::os::unix::fs::symlink("w.rs", root.join("src/d/link.rs")).unwrap();
    write(root, "src/e/.git/HEAD", b"nothing\n");
    settle();
    let tree = DirTree(root.to_path_buf());
    let build = || Index::build(&tree, &[needles(&["secret"])], [""], Limits::default());
    let index = build();
    assert!(cannot(&index, &tree, &["secret"], "src/a"));
    assert!(cannot(&index, &tree, &["secret"], "/src/a/b/"));
    assert!(!cannot(&index, &tree, &["secret"], "src"), "src/c holds it");
    assert!(!cannot(&index, &tree, &["secret"], "src/d"), "a symlink under it");
    assert!(!cannot(&index, &tree, &["secret"], "src/e"), "a .git the pass did not read");
    // A change two levels down, and a file added.
    fs::write(root.join("src/a/b/y.rs"), b"secret!\n").unwrap();
    assert!(!cannot(&index, &tree, &["secret"], "src/a"));
    fs::write(root.join("src/a/b/y.rs"), b"nothing\n").unwrap();
    settle();
    let index = build();
    assert!(cannot(&index, &tree, &["secret"], "src/a"));
    write(root, "src/a/b/new.rs", b"secret\n");
    assert!(!cannot(&index, &tree, &["secret"], "src/a"));
}
