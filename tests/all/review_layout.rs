//! The shape of `src/review/`: the building blocks in `core/` import no loop, and no
//! module imports one that imports it back, however indirectly. Read from the sources'
//! paths (`self::…`, `super::…`, `crate::review::…`), test modules and comments left
//! out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir`.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The module a file is: `core::agent`, `plan_gate`, `plan_gate::event`.
fn module_of(review: &Path, file: &Path) -> String {
    let relative = file.strip_prefix(review).unwrap().with_extension("");
    let parts: Vec<String> = relative.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    match parts.as_slice() {
        [.., last] if last == "mod" => parts[..parts.len() - 1].join("::"),
        _ => parts.join("::"),
    }
}

/// The modules of `src/review` that `text` (the file of module `module`) refers to,
/// outside its `#[cfg(test)]` module.
fn references(module: &str, text: &str, known: &BTreeSet<String>) -> BTreeSet<String> {
    // Code only: not the test module, not comments (a doc link is no import).
    let code: String = text
        .split("#[cfg(test)]")
        .next()
        .unwrap_or(text)
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let code = code.as_str();
    let parent: Vec<&str> = module.split("::").collect();
    // A `mod.rs` is its folder's module: its `super` is the folder's parent.
    let mut found = BTreeSet::new();
    let starts = code.match_indices("super::").chain(code.match_indices("crate::review::"));
    for (at, _) in starts.chain(code.match_indices("self::")) {
        // A whole path only (`self::` inside `super::self::` or `my_self::` is not one).
        if code[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let rest = &code[at..];
        let path: String = rest.chars().take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':').collect();
        let mut segments: Vec<String> = Vec::new();
        let mut words = path.split("::").filter(|s| !s.is_empty()).peekable();
        if path.starts_with("crate::review::") {
            words.next();
            words.next();
        } else if path.starts_with("self::") {
            words.next();
            segments.extend(parent.iter().map(|s| s.to_string()));
        } else {
            let mut base: Vec<&str> = parent.clone();
            while words.peek() == Some(&"super") {
                words.next();
                base.pop();
            }
            segments.extend(base.iter().map(|s| s.to_string()));
        }
        segments.extend(words.map(String::from));
        // The longest prefix that names a module of src/review.
        while !segments.is_empty() && !known.contains(&segments.join("::")) {
            segments.pop();
        }
        let target = segments.join("::");
        if !target.is_empty() && target != module {
            found.insert(target);
        }
    }
    found
}

#[test]
fn core_imports_no_loop_and_no_module_imports_itself_back() {
    let review = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/review");
    let mut files = Vec::new();
    sources(&review, &mut files);
    let modules: BTreeMap<String, String> =
        files.iter().map(|f| (module_of(&review, f), std::fs::read_to_string(f).unwrap())).collect();
    let known: BTreeSet<String> = modules.keys().cloned().collect();
    let graph: BTreeMap<&str, BTreeSet<String>> =
        modules.iter().map(|(m, text)| (m.as_str(), references(m, text, &known))).collect();
    assert!(graph.contains_key("core::agent") && graph.contains_key("plan_gate::event"), "{:?}", graph.keys());
    for (module, uses) in &graph {
        if module.starts_with("core") {
            let loops: Vec<&String> = uses.iter().filter(|u| !u.starts_with("core") && !u.is_empty()).collect();
            assert!(loops.is_empty(), "{module}, a building block, imports {loops:?}");
        }
    }
    // A module that reaches itself through the modules it uses is a circle.
    for start in graph.keys() {
        let mut stack: Vec<(&str, Vec<&str>)> = vec![(start, vec![start])];
        let mut seen = BTreeSet::new();
        while let Some((at, path)) = stack.pop() {
            for next in graph.get(at).into_iter().flatten() {
                if next == start {
                    panic!("import circle: {} -> {start}", path.join(" -> "));
                }
                if seen.insert(next.as_str()) {
                    let mut longer = path.clone();
                    longer.push(next);
                    stack.push((next, longer));
                }
            }
        }
    }
}
