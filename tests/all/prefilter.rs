//! The searches' shared first pass, end to end: a run over a hostile repository gives
//! the same outcome for every assertion with and without it, the pass reads nothing
//! outside the root, and `--verbose` reports it.

use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use reviewhost::RunOptions;
use reviewhost::assertion::Status;
use reviewhost::sandbox::Limits;
use serde_json::json;

use crate::support::{assertions_file, run, runner, stderr};

/// A repository that tries to make a skipped file look like a match or a match look
/// like a skipped file: files outside the root behind symlinks, a FIFO, binary and
/// UTF-16 files holding the literal, a `.git` directory, a file larger than a check may
/// read, case variants and words inside longer words.
fn hostile_repository(root: &Path, outside: &Path) {
    let files: [(&str, &[u8]); 11] = [
        ("src/api/client.rs", b"let c = MockConnection::new();\nfn fetch_user() {}\n"),
        ("src/api/server.rs", b"fn serve() { unsafe { run() } }\n"),
        ("src/api/plain.rs", b"fn main() {}\n// nothing to see\n"),
        ("src/db/upper.rs", b"MOCKCONNECTION in capitals\n"),
        ("src/db/pool.rs", b"MockConnectionPool is another word\n"),
        ("src/db/binary.dat", b"\x00\x01MockConnection\x00"),
        ("src/db/binary-miss.dat", b"\x00\x01\x02\x00"),
        ("src/ui/view.ts", b"export const view = () => fetchUser();\n"),
        ("src/ui/deep/nothing.ts", b"export {};\n"),
        (".git/objects/pack/x.pack", b"MockConnection"),
        ("src/ui/empty.ts", b""),
    ];
    for (path, data) in files {
        let path = root.join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, data).unwrap();
    }
    let mut utf16 = vec![0xFF, 0xFE];
    utf16.extend("MockConnection\n".encode_utf16().flat_map(u16::to_le_bytes));
    fs::write(root.join("src/db/utf16.txt"), utf16).unwrap();
    fs::write(root.join("src/db/large.txt"), vec![b'x'; 49 << 20]).unwrap();
    // Smaller than a check's memory, but more than a search holds beside its own work.
    fs::write(root.join("src/db/near-limit.txt"), vec![b'y'; 40 << 20]).unwrap();
    // A name that is not UTF-8, holding the needle: a search fails on it (an error, not
    // a pass), so the pass must not answer for its directory or any above.
    fs::create_dir_all(root.join("src/keys")).unwrap();
    let odd = std::ffi::OsStr::from_bytes(b"prod\xff.pem");
    fs::write(root.join("src/keys").join(odd), b"-----BEGIN PRIVATE KEY----- MockConnection\n").unwrap();
    // A directory named through a symlink inside the root.
    std::os::unix::fs::symlink("api", root.join("src/linked")).unwrap();
    fs::write(outside.join("secret.rs"), b"MockConnection outside the root\n").unwrap();
    std::os::unix::fs::symlink(outside.join("secret.rs"), root.join("src/api/link.rs")).unwrap();
    std::os::unix::fs::symlink(outside, root.join("src/outside")).unwrap();
    assert!(std::process::Command::new("mkfifo").arg(root.join("src/api/fifo")).status().unwrap().success());
    // Past the window in which the pass does not trust a file just written.
    std::thread::sleep(std::time::Duration::from_millis(60));
}

fn searches() -> serde_json::Value {
    let commands = [
        "grep -rn 'MockConnection' src/",
        "grep -rni 'mockconnection' src/",
        "grep -rnw 'MockConnection' src",
        "grep -rc 'MockConnection' src | sort",
        "grep -rl 'MockConnection' src",
        "grep -rL 'MockConnection' src | sort",
        "grep -rv 'MockConnection' src/api",
        "grep -Rn 'MockConnection' src",
        "grep -rn 'fetch_user\\|fetchUser' src",
        "grep -rnE 'unsafe \\{|todo!\\(' src/api",
        "grep -rn 'NeverThere' .",
        "grep -rn 'xxxxxxxx' src/db",
        "grep -n 'MockConnection' src/api/client.rs src/api/plain.rs src/api/fifo",
        "rg -n 'MockConnection' src",
        "rg -l -i 'mockconnection'",
        "rg -c 'MockConnection' src",
        "rg --files-without-match 'MockConnection' src",
        "rg -w 'MockConnection' src",
        "rg -v 'MockConnection' src/api",
        "rg 'MockConnection' src/db/utf16.txt src/db/binary.dat",
        "rg -n 'Never[A-Z]here' src",
        "cd src && grep -rn 'fetchUser' ui",
        "grep -r 'PRIVATE KEY' src",
        "grep -rl 'PRIVATE KEY' .",
        "find . -name '*.pem' | wc -l",
        "grep -rn 'MockConnection' src/linked",
        "grep -c 'MockConnection' src/db/near-limit.txt",
    ];
    let mut list = Vec::new();
    for (i, command) in commands.iter().enumerate() {
        for kind in ["grep_match", "grep_not_match"] {
            list.push(json!({ "id": format!("S{i}-{kind}"), "type": kind, "command": command }));
        }
    }
    json!(list)
}

/// The hostile repository at `root` beside a directory outside it, and an assertions
/// file of searches; the temporary directory holds all three.
fn setup() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let (root, outside) = (dir.path().join("root"), dir.path().join("outside"));
    fs::create_dir_all(&root).unwrap();
    fs::create_dir_all(&outside).unwrap();
    hostile_repository(&root, &outside);
    let file = assertions_file(dir.path(), searches());
    (dir, root, file)
}

#[test]
fn a_hostile_repository_gets_the_same_outcomes_with_and_without_the_first_pass() {
    let (_dir, root, file) = setup();
    let options = RunOptions { file, root: root.clone(), write: false, shard: None, only: None };
    // Less than large.txt: the searches cannot read it whole, and neither can the pass.
    let limits = Limits { memory: 48 << 20, ..Limits::default() };
    let mut outcomes = Vec::new();
    for prefilter in [false, true] {
        let mut runner = runner(limits, 2);
        runner.checks_mut().set_prefilter(prefilter);
        let report = runner.run(&options).unwrap();
        let pass = runner.checks_mut().last_pass();
        if prefilter {
            let pass = pass.expect("a pass was made");
            assert!(pass.stats().skipped.is_none() && pass.stats().files >= 10, "{:?}", pass.stats());
            assert!(pass.skipped() >= 10, "the searches skipped only {} files on the pass's answers", pass.skipped());
        } else {
            assert!(pass.is_none());
        }
        outcomes.push(
            report
                .results
                .into_iter()
                .map(|(a, o)| (a.id, o.status, o.message, format!("{:?}", o.evidence)))
                .collect::<Vec<_>>(),
        );
    }
    for (without, with) in outcomes[0].iter().zip(&outcomes[1]) {
        assert_eq!(without, with, "the first pass changed an outcome");
    }
    // Not vacuous: both verdicts occur, and nothing outside the root was found.
    let statuses: Vec<Status> = outcomes[1].iter().map(|o| o.1).collect();
    assert!(statuses.contains(&Status::Pass) && statuses.contains(&Status::Fail));
    assert!(outcomes[1].iter().all(|o| !o.2.contains("outside the root")));
}

#[test]
fn verbose_reports_the_first_pass_and_no_prefilter_turns_it_off() {
    let (_dir, root, file) = setup();
    let with = run(&file, &root, &["--no-write", "--verbose"]);
    let text = stderr(&with);
    let line = text.lines().find(|l| l.contains("first pass of the searches")).expect("reported");
    assert!(
        line.contains(" files, ") && line.contains(" literals, ") && line.contains(" skipped on its answers"),
        "{line}"
    );
    let without = run(&file, &root, &["--no-write", "--verbose", "--no-prefilter"]);
    assert!(!stderr(&without).contains("first pass"));
    assert_eq!(with.status.code(), without.status.code());
}
