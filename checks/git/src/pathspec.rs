//! Pathspecs as git reads them by default: relative to the current directory, matching a
//! path exactly, as a leading directory (`src` and `src/` match `src/a.rs`), or as a
//! glob where `*` and `?` also match `/` (git's fnmatch without `FNM_PATHNAME`).
//! `:(exclude)PAT`, `:!PAT` and `:^PAT` leave paths out; `:/PAT` is from the top.
//! Other magic (`:(glob)`, `:(icase)`, `:(attr)`, `:(literal)`) is refused rather than
//! read as a plain pattern.

use crate::Error;

#[derive(Debug, Clone)]
struct Item {
    /// Relative to the top of the working tree.
    pattern: Vec<u8>,
    /// The length of the part before the first wildcard.
    literal_len: usize,
    exclude: bool,
}

/// The pathspecs of one command; empty matches everything.
#[derive(Debug, Clone, Default)]
pub struct Pathspec {
    items: Vec<Item>,
}

impl Pathspec {
    /// `args` as written, with `prefix` the current directory relative to the top
    /// (`""` or `"sub/"`).
    pub fn new(args: &[String], prefix: &str) -> Result<Pathspec, Error> {
        let mut items = Vec::new();
        for arg in args {
            let (mut body, mut exclude, mut top) = (arg.as_str(), false, false);
            if let Some(rest) = body.strip_prefix(":(") {
                let Some((magic, rest)) = rest.split_once(')') else {
                    return Err(Error::Fatal(format!("Missing ')' at the end of pathspec magic in '{arg}'")));
                };
                for word in magic.split(',') {
                    match word {
                        "exclude" => exclude = true,
                        "top" => top = true,
                        _ => return Err(Error::Unsupported(format!("pathspec magic '{word}' in '{arg}'"))),
                    }
                }
                body = rest;
            } else if let Some(rest) = body.strip_prefix(':') {
                let mut rest = rest;
                loop {
                    match rest.as_bytes().first() {
                        Some(b'!' | b'^') => exclude = true,
                        Some(b'/') => top = true,
                        Some(b':') => {
                            rest = &rest[1..];
                            break;
                        }
                        _ => break,
                    }
                    rest = &rest[1..];
                }
                body = rest;
            }
            let joined = if top { body.to_string() } else { format!("{prefix}{body}") };
            let pattern = normalise(&joined).into_bytes();
            let literal_len =
                pattern.iter().position(|b| matches!(b, b'*' | b'?' | b'[' | b'\\')).unwrap_or(pattern.len());
            items.push(Item { pattern, literal_len, exclude });
        }
        // Only exclusions: they apply to everything (git adds an implicit ".").
        if !items.is_empty() && items.iter().all(|i| i.exclude) {
            items.push(Item {
                pattern: prefix.trim_end_matches('/').as_bytes().to_vec(),
                literal_len: usize::MAX,
                exclude: false,
            });
        }
        Ok(Pathspec { items })
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Whether `path` (from the top of the working tree) is selected.
    pub fn matches(&self, path: &[u8]) -> bool {
        if self.items.is_empty() {
            return true;
        }
        let included = self.items.iter().any(|i| !i.exclude && item_matches(i, path));
        included && !self.items.iter().any(|i| i.exclude && item_matches(i, path))
    }
}

fn item_matches(item: &Item, path: &[u8]) -> bool {
    let p = &item.pattern;
    if p.is_empty() {
        return true;
    }
    let literal = item.literal_len.min(p.len());
    if literal == p.len() {
        let p = p.strip_suffix(b"/").unwrap_or(p);
        return path == p || (path.starts_with(p) && path.get(p.len()) == Some(&b'/'));
    }
    if !path.starts_with(&p[..literal]) {
        return false;
    }
    reviewhost_tool::fnmatch(p, path)
}

/// `a/./b/../c` → `a/c`, without leading `./` or doubled slashes; a trailing `/` kept.
fn normalise(path: &str) -> String {
    let trailing = path.ends_with('/') && path.len() > 1;
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    let mut out = parts.join("/");
    if trailing && !out.is_empty() {
        out.push('/');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(args: &[&str], prefix: &str) -> Pathspec {
        Pathspec::new(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>(), prefix).unwrap()
    }

    #[test]
    fn globs_cross_slashes_and_directories_match_as_prefixes() {
        let s = spec(&[".harness/contracts/sprint-0[1-9]*.md"], "");
        assert!(s.matches(b".harness/contracts/sprint-01.md"));
        assert!(s.matches(b".harness/contracts/sprint-02/x.md"), "* matches /");
        assert!(!s.matches(b".harness/contracts/sprint-10.md"));
        let s = spec(&["src"], "");
        assert!(s.matches(b"src/a.rs") && s.matches(b"src") && !s.matches(b"srcx"));
        let s = spec(&["a.rs"], "sub/");
        assert!(s.matches(b"sub/a.rs") && !s.matches(b"a.rs"));
        let s = spec(&[":!*.lock"], "");
        assert!(s.matches(b"a.rs") && !s.matches(b"Cargo.lock"));
    }
}
