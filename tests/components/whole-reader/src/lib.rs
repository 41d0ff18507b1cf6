//! Hostile test component: a built-in-world check that calls the host's `files.read`
//! (wit/check.wit) for each path in the assertion's `paths` and reports, one line each,
//! `PATH: N bytes` or `PATH: refused <reason>`, and `files.list-dir` for each path in
//! `dirs`: `PATH: name/kind name/kind ...` (sorted) or `PATH: refused <reason>`, and
//! `files.mode` for each path in `modes`, following a final symlink and not:
//! `PATH: OCTAL|refused <reason> OCTAL|refused <reason>`. Never fails: the test reads
//! the lines.
use reviewhost_guest::{Check, Verdict};

pub struct WholeReader;

impl Check for WholeReader {
    fn evaluate(assertion: &str) -> Result<Verdict, String> {
        let value: serde_json::Value = serde_json::from_str(assertion).map_err(|e| e.to_string())?;
        let paths = value["paths"].as_array().ok_or("no paths")?;
        let mut lines: Vec<String> =
            paths.iter().filter_map(|p| p.as_str()).map(|path| format!("{path}: {}", read(path))).collect();
        let dirs = value["dirs"].as_array().map(Vec::as_slice).unwrap_or_default();
        lines.extend(dirs.iter().filter_map(|p| p.as_str()).map(|path| format!("{path}: {}", list(path))));
        let modes = value["modes"].as_array().map(Vec::as_slice).unwrap_or_default();
        lines.extend(
            modes
                .iter()
                .filter_map(|p| p.as_str())
                .map(|path| format!("{path}: {} {}", mode(path, true), mode(path, false))),
        );
        Ok(Verdict::pass(lines.join("\n")))
    }
}

#[cfg(target_arch = "wasm32")]
fn read(path: &str) -> String {
    use reviewhost_guest::bindings::builtin::reviewhost::check::files;
    match files::read(path) {
        Ok(data) => format!("{} bytes", data.len()),
        Err(e) => format!("refused {e:?}"),
    }
}

#[cfg(target_arch = "wasm32")]
fn list(path: &str) -> String {
    use reviewhost_guest::bindings::builtin::reviewhost::check::files;
    match files::list_dir(path) {
        Ok(entries) => {
            let mut names: Vec<String> = entries
                .into_iter()
                .map(|entry| match entry {
                    Ok(entry) => format!("{}/{:?}", entry.name, entry.kind),
                    Err(e) => format!("refused {e:?}"),
                })
                .collect();
            names.sort();
            names.join(" ")
        }
        Err(e) => format!("refused {e:?}"),
    }
}

#[cfg(target_arch = "wasm32")]
fn mode(path: &str, follow: bool) -> String {
    use reviewhost_guest::bindings::builtin::reviewhost::check::files;
    match files::mode(path, follow) {
        Ok(mode) => format!("{mode:o}"),
        Err(e) => format!("refused {e:?}"),
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn mode(_path: &str, _follow: bool) -> String {
    "native".into()
}

#[cfg(not(target_arch = "wasm32"))]
fn read(_path: &str) -> String {
    "native".into()
}

#[cfg(not(target_arch = "wasm32"))]
fn list(_path: &str) -> String {
    "native".into()
}

reviewhost_guest::export_check!(WholeReader);
