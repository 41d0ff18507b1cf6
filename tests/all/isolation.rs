//! A check cannot change the root, reach the network, or see the host's environment,
//! arguments or stdin. The vandal component tries each and reports what happened; the
//! test also checks from the outside that nothing changed and nothing connected.

use std::net::TcpListener;

use reviewhost::RunOptions;
use reviewhost::assertion::Status;
use reviewhost::sandbox::Limits;
use serde_json::json;

use crate::components;
use crate::support::*;

#[test]
fn writes_network_environment_and_parent_are_all_refused() {
    let base = tempfile::tempdir().unwrap();
    let root = base.path().join("root");
    std::fs::create_dir_all(root.join("empty-dir")).unwrap();
    std::fs::write(root.join("victim.txt"), "original").unwrap();
    std::fs::write(base.path().join("outside.txt"), "outside").unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let state_dir = tempfile::tempdir().unwrap();
    let file = assertions_file(state_dir.path(), json!([{"id": "V-1", "type": "vandal", "port": port}]));
    let before: Vec<_> = std::fs::read_dir(&root).unwrap().map(|e| e.unwrap().file_name()).collect();

    // The test process has plenty of environment (PATH, CARGO_*): none may be visible.
    assert!(std::env::vars().next().is_some());
    let mut runner = runner(Limits::default(), 1);
    runner.checks_mut().register(&["vandal"], "vandal", &std::fs::read(components::VANDAL).unwrap());
    let report = runner.run(&RunOptions { file, root: root.clone(), write: true, shard: None, only: None }).unwrap();

    let outcome = &report.results[0].1;
    for attempt in [
        "create", "append", "truncate", "remove", "rename", "mkdir", "rmdir", "tcp", "udp", "dns", "env", "args",
        "stdin",
    ]
    .iter()
    .chain(&["parent", "outside"])
    {
        assert!(outcome.message.contains(&format!("{attempt}=refused")), "{attempt}: {}", outcome.message);
    }
    assert_eq!(outcome.status, Status::Pass, "{}", outcome.message);
    let after: Vec<_> = std::fs::read_dir(&root).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(before, after);
    assert_eq!(std::fs::read_to_string(root.join("victim.txt")).unwrap(), "original");
    assert!(listener.accept().is_err(), "the guest connected to the host's loopback listener");
}

/// Each evaluation gets memory as fresh as a new instance's: the hostile validator looks
/// through its whole memory for the marker the evaluation before it left in the same
/// slot (one thread, so the slot is reused), low in the heap and high in grown pages.
#[test]
fn a_check_never_sees_the_memory_of_the_check_before_it() {
    let root = tempfile::tempdir().unwrap();
    let state = tempfile::tempdir().unwrap();
    let residue = |i: usize| {
        json!({"id": format!("R-{i}"), "type": "custom", "component": components::HOSTILE,
               "config": {"attack": "mem.residue"}})
    };
    let file = assertions_file(state.path(), json!((0..6).map(residue).collect::<Vec<_>>()));
    let out = run(&file, root.path(), &["--format", "json", "--jobs", "1", "--no-write"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let results = report["results"].as_array().unwrap();
    assert_eq!(results.len(), 6);
    for r in results {
        assert_eq!(r["status"], "pass", "{r}");
        assert!(r["message"].as_str().unwrap().starts_with("refused: no residue"), "{r}");
    }
}
