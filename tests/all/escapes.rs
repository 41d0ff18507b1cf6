//! Path fields cannot reach outside the root. The host refuses lexical escapes without
//! touching the path; the sandbox refuses symlinks that lead out. Proof that nothing
//! outside was read: the outside files hold the needle (a read would pass), and one of
//! them is a FIFO (an open would hang the test).

use serde_json::json;

use crate::support::*;

const SECRET: &str = "TOP-SECRET-SENTINEL";

#[test]
fn file_checks_never_read_outside_the_root() {
    let base = tempfile::tempdir().unwrap();
    let outside = base.path().join("outside");
    let root = base.path().join("root");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::create_dir_all(root.join("sub")).unwrap();
    std::fs::write(outside.join("secret.txt"), SECRET).unwrap();
    let fifo = outside.join("fifo");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let secret = outside.join("secret.txt");
    std::os::unix::fs::symlink(&secret, root.join("abs-link")).unwrap();
    std::os::unix::fs::symlink("../outside/secret.txt", root.join("rel-link")).unwrap();
    std::os::unix::fs::symlink("../../outside", root.join("sub/dir-link")).unwrap();
    std::os::unix::fs::symlink(&fifo, root.join("fifo-link")).unwrap();
    std::os::unix::fs::symlink("loop-b", root.join("loop-a")).unwrap();
    std::os::unix::fs::symlink("loop-a", root.join("loop-b")).unwrap();
    let before = sha256(&secret);

    let content = |id: &str, path: &str| json!({"id": id, "type": "file_content", "description": path, "path": path, "needle": SECRET});
    let file = assertions_file(
        &root,
        json!([
            content("E-1", "../outside/secret.txt"),
            content("E-2", "/etc/passwd"),
            content("E-3", secret.to_str().unwrap()),
            content("E-4", "abs-link"),
            content("E-5", "rel-link"),
            content("E-6", "sub/dir-link/secret.txt"),
            content("E-7", "fifo-link"),
            content("E-8", "loop-a"),
            {"id": "E-9", "type": "file_exists", "description": "exists, outside", "path": "../outside/secret.txt"},
            {"id": "E-10", "type": "file_exists", "description": "exists via link", "path": "sub/dir-link/secret.txt"},
            {"id": "E-11", "type": "file_exists", "description": "inside, for contrast", "path": "sub"}
        ]),
    );
    let out = run(&file, &root, &["--timeout", "5s"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let results = read_assertions(&file);
    for a in &results[..10] {
        assert_eq!(a["status"], "fail", "{}: {}", a["id"], a["failure_output"]);
        assert!(!a["failure_output"].as_str().unwrap().contains(SECRET));
    }
    for i in [0, 1, 2, 8] {
        let msg = results[i]["failure_output"].as_str().unwrap();
        assert!(msg.starts_with("Outside the sandbox root: "), "{}: {msg}", results[i]["id"]);
    }
    for i in [3, 4, 5, 6, 9] {
        let msg = results[i]["failure_output"].as_str().unwrap();
        assert!(msg.contains("not permitted"), "{}: {msg}", results[i]["id"]);
    }
    assert_eq!(results[10]["status"], "pass");
    assert_eq!(sha256(&secret), before);
}
