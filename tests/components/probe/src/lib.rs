//! Test validator: for each directory in `config.list` and file in `config.read`, reports
//! what it could see, as `list <dir>: a,b` / `read <file>: N bytes` or `...: error`, and
//! every file the SDK's walk finds (`files: a,b`).
//! Passes when `config.pass` is true; used for `paths` narrowing and cache tests.
//! `config.busy_ms` makes it compute for that long first (a slow check, for the tests of
//! what a terminal sees during a long run).
use reviewhost_guest::{Root, Validator, Verdict};
use serde::Deserialize;

pub struct Probe;

#[derive(Deserialize)]
pub struct Config {
    #[serde(default)]
    list: Vec<String>,
    #[serde(default)]
    read: Vec<String>,
    #[serde(default)]
    pass: bool,
    #[serde(default)]
    busy_ms: u64,
}

impl Validator for Probe {
    type Config = Config;

    fn validate(id: &str, config: Config, root: &Root) -> Result<Verdict, String> {
        let started = std::time::Instant::now();
        while started.elapsed().as_millis() < u128::from(config.busy_ms) {
            std::hint::spin_loop();
        }
        let mut lines = vec![format!("id {id}")];
        for dir in &config.list {
            let seen = match std::fs::read_dir(root.path(dir)) {
                Ok(entries) => {
                    let mut names: Vec<String> =
                        entries.filter_map(Result::ok).map(|e| e.file_name().to_string_lossy().into_owned()).collect();
                    names.sort();
                    names.join(",")
                }
                Err(e) => format!("error {e}"),
            };
            lines.push(format!("list {dir}: {seen}"));
        }
        for file in &config.read {
            let seen = match root.read(file, 1 << 20) {
                Ok(bytes) => format!("{} bytes", bytes.len()),
                Err(e) => format!("error {e}"),
            };
            lines.push(format!("read {file}: {seen}"));
        }
        lines.push(format!("files: {}", root.files(".", false).join(",")));
        let verdict = if config.pass { Verdict::pass(lines.join("\n")) } else { Verdict::fail(lines.join("\n")) };
        Ok(verdict.with_evidence("probe", Some(1), "probed"))
    }
}

reviewhost_guest::export_validator!(Probe);
