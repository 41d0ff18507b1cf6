//! Repository files the review loops read on the host, attacked: a plan, an agent
//! definition and an agent configuration that are sparse files of 2 GiB, or FIFOs. Each
//! is refused at once, the bound in the message, instead of being read whole (or
//! waited on forever). Before, a trusted repository's definition or configuration was
//! read whole, and a FIFO there blocked the command.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde_json::json;

use crate::host_reads::run_within;
use crate::support::*;

const PLAN: &str = "plans/04-01-PLAN.md";

/// A sparse file of 2 GiB at `path`: no disk used, and more than any bound.
fn huge(path: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::File::create(path).unwrap().set_len(2 << 30).unwrap();
}

fn fifo(path: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let _ = std::fs::remove_file(path);
    assert!(Command::new("mkfifo").arg(path).status().unwrap().success());
}

/// Runs `command`, which must fail (exit 2) within seconds saying `needle`.
fn refused(command: Command, needle: &str) {
    let (out, took) = run_within(command, Duration::from_secs(30));
    assert_eq!(out.status.code(), Some(2), "{}\n{}", stdout(&out), stderr(&out));
    assert!(stderr(&out).contains(needle), "expected {needle:?} in {}", stderr(&out));
    assert!(took < Duration::from_secs(15), "took {took:?}");
}

#[test]
fn a_huge_plan_is_refused_at_its_bound() {
    let repo = Scripted::new(&json!({}));
    huge(&repo.root.join(PLAN));
    let mut check = repo.command("plan-review");
    check.args(["--check", PLAN, "--root"]).arg(&repo.root);
    refused(check, &format!("{PLAN}: is larger than 1 MiB, the most reviewhost reads of it"));
    let mut review = repo.command("plan-review");
    review.args([PLAN, "--root"]).arg(&repo.root);
    refused(review, "is larger than 1 MiB");
    // The plan gate's own bound.
    let mut gate = repo.command("plan-gate");
    gate.args([PLAN, "--root"]).arg(&repo.root).stdin(std::process::Stdio::null());
    refused(gate, "is larger than 4 MiB");
    fifo(&repo.root.join(PLAN));
    let mut check = repo.command("plan-review");
    check.args(["--check", PLAN, "--root"]).arg(&repo.root);
    refused(check, "is not a regular file (a FIFO)");
}

/// A trusted repository's `.reviewhost/agents/` and `reviewhost.toml`: read, but
/// bounded and never a FIFO.
#[test]
fn a_trusted_repositorys_definitions_and_configuration_are_read_bounded() {
    let repo = Scripted::new(&json!({}));
    let definition = repo.root.join(".reviewhost/agents/plan-reviewer.md");
    let agents = || {
        let mut command = reviewhost();
        command
            .env("REVIEWHOST_CONFIG_DIR", repo.dir.path().join("user-config"))
            .args(["agents", "--trust-repo-config", "--root"])
            .arg(&repo.root);
        command
    };
    huge(&definition);
    refused(agents(), "plan-reviewer.md: is larger than 1 MiB, the most reviewhost reads of it");
    fifo(&definition);
    refused(agents(), "plan-reviewer.md: is not a regular file (a FIFO)");
    std::fs::remove_file(&definition).unwrap();

    repo.write(PLAN, "# plan\n");
    let config = repo.root.join("reviewhost.toml");
    let review = || {
        let mut command = reviewhost();
        command
            .env("REVIEWHOST_CONFIG_DIR", repo.dir.path().join("user-config"))
            .args(["plan-review", PLAN, "--trust-repo-config", "--root"])
            .arg(&repo.root);
        command
    };
    huge(&config);
    refused(review(), "reviewhost.toml: cannot read: is larger than 1 MiB, the most reviewhost reads of it");
    fifo(&config);
    refused(review(), "reviewhost.toml: cannot read: is not a regular file (a FIFO)");
}
