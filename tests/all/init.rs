//! `reviewhost init`: a starting configuration that `reviewhost review` accepts, written
//! without replacing or following anything.

use std::path::Path;

use crate::support::{reviewhost, stderr, stdout};

fn init(dir: &Path, extra: &[&str]) -> std::process::Output {
    reviewhost().arg("init").args(extra).env("REVIEWHOST_CONFIG_DIR", dir).output().unwrap()
}

#[test]
fn each_starter_is_a_configuration_every_agent_resolves_with() {
    for (agent, expect) in [
        ("claude-code", "preset = \"claude-code\""),
        ("codex", "preset = \"codex\""),
        ("command", "command = [\"my-agent\""),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let out = init(dir.path(), &["--agent", agent]);
        assert!(out.status.success(), "{agent}: {}", stderr(&out));
        let file = dir.path().join("reviewhost.toml");
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(text.contains(expect), "{agent}: {text}");
        assert!(stdout(&out).contains(&file.display().to_string()), "{}", stdout(&out));
        // `reviewhost agents` reads it as the user's configuration and review would start:
        // every agent has a command.
        let config = reviewhost::review::agent::Config::load(&file, true).unwrap();
        for d in reviewhost::review::definitions::load(&[]).unwrap() {
            config.resolve(&d.name).unwrap_or_else(|e| panic!("{agent}: {e}"));
        }
    }
}

#[test]
fn an_existing_file_or_a_symlink_is_never_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("reviewhost.toml");
    std::fs::write(&file, "# mine\n").unwrap();
    let out = init(dir.path(), &["--agent", "codex"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("exists"), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "# mine\n");

    // --force replaces a file, but never writes through a symlink planted at the path.
    let target = dir.path().join("elsewhere");
    std::fs::write(&target, "precious\n").unwrap();
    std::fs::remove_file(&file).unwrap();
    std::os::unix::fs::symlink(&target, &file).unwrap();
    let out = init(dir.path(), &["--agent", "codex", "--force"]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(stderr(&out).contains("symbolic link"), "{}", stderr(&out));
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "precious\n");

    std::fs::remove_file(&file).unwrap();
    std::fs::write(&file, "# old\n").unwrap();
    assert!(init(dir.path(), &["--agent", "claude-code", "--force"]).status.success());
    assert!(std::fs::read_to_string(&file).unwrap().contains("claude-code"));
}

#[test]
fn without_agent_the_cli_on_path_is_chosen() {
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let codex = bin.join("codex");
    std::fs::write(&codex, "#!/bin/sh\n").unwrap();
    std::fs::set_permissions(&codex, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let config = dir.path().join("config");
    let out = reviewhost().arg("init").env("REVIEWHOST_CONFIG_DIR", &config).env("PATH", &bin).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(std::fs::read_to_string(config.join("reviewhost.toml")).unwrap().contains("preset = \"codex\""));
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let out = reviewhost().arg("init").env("REVIEWHOST_CONFIG_DIR", &empty).env("PATH", dir.path()).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("a command of your own"), "{}", stdout(&out));
}

#[test]
fn a_review_without_an_agent_refuses_before_any_state_and_names_init() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("repo");
    std::fs::create_dir(&root).unwrap();
    let out = reviewhost()
        .arg("review")
        .arg(&root)
        .env("REVIEWHOST_CONFIG_DIR", dir.path().join("no-config"))
        .env_remove("REVIEWHOST_TRUST_REPO_CONFIG")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(stderr(&out).contains("`reviewhost init`"), "{}", stderr(&out));
    assert!(!root.join(".reviewhost").exists(), "a refused review created state");
}
