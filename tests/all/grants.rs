//! Granted host programs (`reviewhost run --allow-program NAME`): a real `npx tsc
//! --noEmit` under confinement, hostile programs that are contained while the run goes
//! on, and the refusals (a program nobody granted, a grant an assertions file asks for).
//!
//! The confined tests need bubblewrap and unprivileged user namespaces, and `tsc` the
//! compiler `.ci/run` installs in `tests/typescript`; without them they say why and
//! skip, unless `REVIEWHOST_REQUIRE_CONFINEMENT` is set (CI), which makes that a failure.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{Value, json};

use crate::support::{reviewhost, stderr, stdout};

/// Whether the confined tests can run here; panics when CI requires them and they
/// cannot.
fn confinement_available() -> bool {
    match reviewhost_confine::Confinement::probe() {
        Ok(_) => true,
        Err(e) if std::env::var_os("REVIEWHOST_REQUIRE_CONFINEMENT").is_none() => {
            eprintln!("skipped: {e}");
            false
        }
        Err(e) => panic!("{e}"),
    }
}

/// A directory readable by all, as a checkout is (started as root, a confinement runs as
/// nobody).
fn open_dir() -> tempfile::TempDir {
    tempfile::Builder::new().permissions(std::os::unix::fs::PermissionsExt::from_mode(0o755)).tempdir().unwrap()
}

/// Every file under `dir` with its bytes, and every directory.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Option<Vec<u8>>> {
    let mut found = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            match std::fs::symlink_metadata(&path).unwrap().is_dir() {
                true => {
                    found.insert(path.clone(), None);
                    stack.push(path);
                }
                false => {
                    found.insert(path.clone(), Some(std::fs::read(&path).unwrap_or_default()));
                }
            }
        }
    }
    found
}

/// `reviewhost run` of `assertions` on `root`, from a file outside the root, as JSON,
/// with the system's programs first on PATH (the grants resolve to them).
fn run_granted(root: &Path, assertions: Value, extra: &[&str]) -> (Output, BTreeMap<String, Value>) {
    run_granted_under(None, root, assertions, extra).0
}

/// [`run_granted`] with `[run] confinement = KIND` in the operator's configuration; also
/// the report's `confinement`.
fn run_granted_under(
    kind: Option<&str>,
    root: &Path,
    assertions: Value,
    extra: &[&str],
) -> ((Output, BTreeMap<String, Value>), Value) {
    let dir = tempfile::tempdir().unwrap();
    if let Some(kind) = kind {
        std::fs::write(dir.path().join("reviewhost.toml"), format!("[run]\nconfinement = \"{kind}\"\n")).unwrap();
    }
    let file = dir.path().join("assertions.json");
    std::fs::write(&file, json!({ "assertions": assertions }).to_string()).unwrap();
    let out = reviewhost()
        .arg("run")
        .arg(&file)
        .arg("--root")
        .arg(root)
        .args(["--no-write", "--format", "json", "--fail-on", "never"])
        .args(extra)
        .env("PATH", "/usr/bin:/bin")
        .env("REVIEWHOST_TEST_SECRET", "canary-secret-5581")
        .env("REVIEWHOST_CONFIG_DIR", dir.path())
        .output()
        .unwrap();
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or(Value::Null);
    let results = report["results"]
        .as_array()
        .map(|results| results.iter().map(|r| (r["id"].as_str().unwrap().to_string(), r.clone())).collect())
        .unwrap_or_default();
    let confinement = report["confinement"].clone();
    ((out, results), confinement)
}

fn status(results: &BTreeMap<String, Value>, id: &str) -> String {
    results[id]["status"].as_str().unwrap().to_string()
}

fn message(results: &BTreeMap<String, Value>, id: &str) -> String {
    results[id].to_string()
}

#[test]
fn npx_tsc_passes_clean_code_fails_a_type_error_and_changes_nothing() {
    let compiler = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/typescript/node_modules");
    if !compiler.join(".bin/tsc").exists() || !Path::new("/usr/bin/npx").exists() {
        let missing = format!("no {} or /usr/bin/npx (.ci/run installs them)", compiler.join(".bin/tsc").display());
        assert!(std::env::var_os("REVIEWHOST_REQUIRE_CONFINEMENT").is_none(), "{missing}");
        eprintln!("skipped: {missing}");
        return;
    }
    if !confinement_available() {
        return;
    }
    let root = open_dir();
    let web = root.path().join("web");
    std::fs::create_dir_all(web.join("src")).unwrap();
    std::fs::write(web.join("tsconfig.json"), r#"{"compilerOptions": {"strict": true}, "include": ["src"]}"#).unwrap();
    std::fs::write(web.join("src/ok.ts"), "export const n: number = 1;\n").unwrap();
    // The project's node_modules is the pinned compiler, granted read-only as a
    // toolchain directory in the operator's configuration.
    std::os::unix::fs::symlink(&compiler, web.join("node_modules")).unwrap();
    let config = tempfile::tempdir().unwrap();
    let config_file = config.path().join("reviewhost.toml");
    std::fs::write(&config_file, format!("[run]\nallow_programs = [\"npx\"]\ntoolchain_dirs = [{:?}]\n", compiler))
        .unwrap();
    let assertions = json!([
        {"id": "TS-1", "type": "typescript_compile", "command": "cd web && npx tsc --noEmit 2>&1"},
        {"id": "TS-2", "type": "grep_match", "command": "grep -rn 'number' web/src"},
    ]);
    let before = snapshot(root.path());
    let args = ["--config", config_file.to_str().unwrap(), "--timeout", "60s"];
    let (out, results) = run_granted(root.path(), assertions.clone(), &args);
    assert_eq!(status(&results, "TS-1"), "pass", "{}\n{}", message(&results, "TS-1"), stderr(&out));
    assert_eq!(status(&results, "TS-2"), "pass");
    assert_eq!(snapshot(root.path()), before, "tsc left the repository byte-identical");

    std::fs::write(web.join("src/bad.ts"), "export const s: number = \"text\";\n").unwrap();
    let before = snapshot(root.path());
    let (out, results) = run_granted(root.path(), assertions, &args);
    assert_eq!(status(&results, "TS-1"), "fail", "{}", stderr(&out));
    let text = message(&results, "TS-1");
    assert!(text.contains("error TS2322") && text.contains("bad.ts"), "the compiler's message: {text}");
    assert_eq!(snapshot(root.path()), before);
}

#[test]
fn hostile_programs_are_contained_and_the_run_goes_on() {
    if !confinement_available() || !Path::new("/usr/bin/python3").exists() {
        return;
    }
    for kind in ["bwrap", "landlock"] {
        match reviewhost_confine::Confinement::probe_kind(match kind {
            "bwrap" => reviewhost_confine::Kind::Bwrap,
            _ => reviewhost_confine::Kind::Landlock,
        }) {
            Ok(_) => hostile_programs_under(kind),
            Err(e) if std::env::var_os("REVIEWHOST_REQUIRE_CONFINEMENT").is_none() => eprintln!("skipped {kind}: {e}"),
            Err(e) => panic!("{kind}: {e}"),
        }
    }
}

/// The hostile programs of the test above, under the confinement `kind`.
fn hostile_programs_under(kind: &str) {
    let root = open_dir();
    std::fs::create_dir(root.path().join("src")).unwrap();
    std::fs::write(root.path().join("src/a.txt"), "hello\n").unwrap();
    let outside = open_dir();
    let canary = outside.path().join("canary.txt");
    std::fs::write(&canary, "canary-outside-9937\n").unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let marker = "4242.0427";
    let py = |code: &str| format!("python3 -c {}", shell_quote(code));
    let assertions = json!([
        {"id": "H-write", "type": "shell_exit_zero", "command": py("import os\nopen('src/a.txt','w').write('pwned')\nos.makedirs('planted', exist_ok=True)\nopen('planted/x','w').write('x')\nos.remove('src/a.txt')")},
        {"id": "H-canary", "type": "shell_exit_zero", "command": py(&format!("print(open({:?}).read())", canary.display().to_string()))},
        {"id": "H-socket", "type": "shell_exit_zero", "command": py(&format!("import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=2)\nprint('connected')"))},
        {"id": "H-daemon", "type": "shell_exit_zero", "command": py(&format!("import os, time\nif os.fork() == 0:\n    os.setsid()\n    time.sleep({marker})\ntime.sleep({marker})"))},
        {"id": "H-disk", "type": "shell_exit_zero", "command": py("f = open('big', 'wb')\nfor _ in range(600):\n    f.write(b'\\0' * (1 << 20))\nprint('wrote 600 MiB')")},
        {"id": "H-env", "type": "grep_not_match", "command": format!("{} | grep canary-secret", py("import os\nfor k, v in os.environ.items(): print(k, v)"))},
        {"id": "H-env-ran", "type": "grep_match", "command": format!("{} | grep -E '^HOME /'", py("import os\nfor k, v in os.environ.items(): print(k, v)"))},
        {"id": "N-1", "type": "grep_match", "command": "grep -rn hello src"},
    ]);
    let before = snapshot(root.path());
    let ((out, results), confinement) =
        run_granted_under(Some(kind), root.path(), assertions, &["--allow-program", "python3", "--timeout", "5s"]);
    assert!(out.status.success(), "{kind}: {}", stderr(&out));
    assert_eq!(confinement, kind, "the report names the confinement");
    // The checkout's owner writes through the overlay; started as root, the program is
    // nobody and may not write root's files at all. Either way nothing reaches the root.
    let as_root = std::fs::metadata("/proc/self").is_ok_and(|m| std::os::unix::fs::MetadataExt::uid(&m) == 0);
    match as_root {
        true => assert!(message(&results, "H-write").contains("PermissionError"), "{}", message(&results, "H-write")),
        false if kind == "landlock" => {
            assert_eq!(status(&results, "H-write"), "fail", "writes refused: {}", message(&results, "H-write"))
        }
        false => {
            assert_eq!(status(&results, "H-write"), "pass", "writes in the overlay: {}", message(&results, "H-write"))
        }
    }
    assert_eq!(snapshot(root.path()), before, "the repository is unchanged");
    assert_eq!(status(&results, "H-canary"), "fail");
    assert!(!message(&results, "H-canary").contains("canary-outside-9937"), "{}", message(&results, "H-canary"));
    assert_eq!(status(&results, "H-socket"), "fail", "{}", message(&results, "H-socket"));
    assert!(listener.accept().is_err(), "the host's listener got a connection");
    // The program is killed at its deadline, just before the check's own; on a loaded
    // machine the check's may still be the one reported. Either way: an error, and no
    // process left (below).
    assert_eq!(status(&results, "H-daemon"), "error", "{}", message(&results, "H-daemon"));
    let daemon = message(&results, "H-daemon");
    assert!(daemon.contains("deadline") || daemon.contains("timed out after"), "{kind}: {daemon}");
    assert_eq!(status(&results, "H-disk"), "fail", "{}", message(&results, "H-disk"));
    assert!(!message(&results, "H-disk").contains("wrote 600 MiB"));
    assert_eq!(status(&results, "H-env"), "pass", "{}", message(&results, "H-env"));
    assert_eq!(status(&results, "H-env-ran"), "pass", "{}", message(&results, "H-env-ran"));
    assert_eq!(status(&results, "N-1"), "pass", "the sandboxed checks ran too");
    std::thread::sleep(std::time::Duration::from_millis(300));
    let survivors: Vec<String> = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| std::fs::read(e.path().join("cmdline")).is_ok_and(|c| String::from_utf8_lossy(&c).contains(marker)))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert!(survivors.is_empty(), "processes outlived the deadline: {survivors:?}");
}

/// `text` as one single-quoted shell word.
fn shell_quote(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

#[test]
fn a_program_nobody_granted_is_an_error_saying_how_to_grant_it() {
    let root = open_dir();
    let assertions = json!([{"id": "P-1", "type": "shell_exit_zero", "command": "python3 -m pytest -q"}]);
    let (out, results) = run_granted(root.path(), assertions.clone(), &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(status(&results, "P-1"), "error");
    assert!(message(&results, "P-1").contains("program 'python3' is not available in the reviewhost sandbox"));
    if !confinement_available() {
        return;
    }
    let (out, results) = run_granted(root.path(), assertions, &["--allow-program", "node"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(status(&results, "P-1"), "error");
    assert!(
        message(&results, "P-1")
            .contains("'python3' is not a granted program; an operator can grant it with --allow-program python3"),
        "{}",
        message(&results, "P-1")
    );
}

#[test]
fn an_assertions_file_cannot_grant_itself_a_program() {
    let root = open_dir();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("assertions.json");
    let doc = json!({"allow_programs": ["python3"], "assertions": [{"id": "P-1", "type": "shell_exit_zero", "command": "python3 -c 1"}]});
    std::fs::write(&file, doc.to_string()).unwrap();
    let out = reviewhost().arg("run").arg(&file).arg("--root").arg(root.path()).arg("--no-write").output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("field `allow_programs`: an assertions file cannot grant host programs"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_grant_of_a_program_that_is_not_on_path_is_refused() {
    let root = open_dir();
    let (out, _) = run_granted(root.path(), json!([]), &["--allow-program", "no-such-program-31"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("cannot grant 'no-such-program-31'"), "{}", stderr(&out));
    let (out, _) = run_granted(root.path(), json!([]), &["--allow-program", "./x"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("a grant names a program on PATH"), "{}", stderr(&out));
}

/// The programs the figure of [`agent_commands_need_no_missing_program_once_granted`]
/// grants: those of the corpus's host programs an operator is likeliest to grant.
const GRANTED_FOR_CORPUS: [&str; 4] = ["npx", "node", "python3", "bash"];

/// The 214 commands agents wrote (`../shared/corpus/agent-commands/`), run with `npx`,
/// `node`, `python3` and `bash` granted on an empty root: none of them is an error
/// because one of those four is missing (they fail or error for other reasons: no
/// project there, no network, no pytest). Prints the counts.
#[test]
fn agent_commands_need_no_missing_program_once_granted() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus/agent-commands/commands.jsonl");
    let Ok(text) = std::fs::read_to_string(&corpus) else {
        eprintln!("skipped: {} is not there (the shared corpus sits beside the repository)", corpus.display());
        return;
    };
    if !confinement_available() {
        return;
    }
    let granted: Vec<&str> =
        GRANTED_FOR_CORPUS.iter().copied().filter(|p| Path::new("/usr/bin").join(p).exists()).collect();
    let assertions: Vec<Value> = text
        .lines()
        .enumerate()
        .map(|(i, line)| {
            let row: Value = serde_json::from_str(line).unwrap();
            json!({"id": format!("C-{}", i + 1), "type": row["type"], "command": row["command"]})
        })
        .collect();
    let root = open_dir();
    let mut args = vec!["--timeout", "20s"];
    for program in &granted {
        args.extend(["--allow-program", program]);
    }
    let (out, results) = run_granted(root.path(), Value::Array(assertions), &args);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(results.len(), text.lines().count());
    let missing: Vec<String> = results
        .iter()
        .filter(|(_, r)| {
            let text = r["message"].as_str().unwrap_or("");
            granted.iter().any(|p| {
                text.contains(&format!("program '{p}' is not available"))
                    || text.contains(&format!("'{p}' is not a granted program"))
            })
        })
        .map(|(id, r)| format!("{id}: {}", r["message"]))
        .collect();
    let count = |status: &str| results.values().filter(|r| r["status"] == status).count();
    eprintln!(
        "agent commands with {} granted: {} pass, {} fail, {} error; {} errors for a missing granted program",
        granted.join(", "),
        count("pass"),
        count("fail"),
        count("error"),
        missing.len()
    );
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

/// A granted process holds at most `[run] program_memory` (`RLIMIT_DATA`, default
/// 1 GiB): what it really writes, not the ranges a JIT reserves.
#[test]
fn a_granted_program_holds_no_more_memory_than_the_operator_allows() {
    if !confinement_available() || !Path::new("/usr/bin/python3").exists() {
        return;
    }
    let root = open_dir();
    let grab =
        |mib: u64| format!("python3 -c {}", shell_quote(&format!("b = bytearray({mib} << 20)\nprint('held', len(b))")));
    let assertions = json!([
        {"id": "M-small", "type": "shell_exit_zero", "command": grab(64)},
        {"id": "M-large", "type": "shell_exit_zero", "command": grab(1536)},
    ]);
    let (out, results) = run_granted(root.path(), assertions.clone(), &["--allow-program", "python3"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(status(&results, "M-small"), "pass", "{}", message(&results, "M-small"));
    assert_eq!(status(&results, "M-large"), "fail", "over the default 1 GiB: {}", message(&results, "M-large"));
    assert!(message(&results, "M-large").contains("MemoryError"), "{}", message(&results, "M-large"));
}
