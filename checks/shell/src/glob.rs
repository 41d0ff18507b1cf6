//! Pathname expansion (`src/*.ts`, `docs/??-*.md`, `[abc]*`) inside the root, as bash
//! does it with default options: hidden names only when the pattern's component starts
//! with a literal `.`, results sorted (byte order, as in the C.UTF-8 locale), and no
//! match leaves the word as written (the caller's job: an empty result means "none").
//!
//! Deliberately not supported: `**` (globstar is off by default in bash), extglob,
//! brace expansion.

use reviewhost_tool::Ctx;

/// Most paths one pattern may expand to: a pattern is an argument list, not a walk.
const MAX_MATCHES: usize = 100_000;

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Lit(char),
    Star,
    One,
    Class { negated: bool, ranges: Vec<(char, char)> },
}

/// Expands a word given as segments `(text, quoted)`; quoted text matches literally.
pub fn expand(ctx: &Ctx, segments: &[(String, bool)]) -> Vec<String> {
    let chars: Vec<(char, bool)> = segments.iter().flat_map(|(t, q)| t.chars().map(move |c| (c, *q))).collect();
    let absolute = chars.first().is_some_and(|(c, _)| *c == '/');
    let components: Vec<&[(char, bool)]> = chars.split(|(c, _)| *c == '/').filter(|c| !c.is_empty()).collect();
    let mut candidates = vec![if absolute { "/".to_string() } else { String::new() }];
    for component in components {
        let tokens = tokenize(component);
        let is_pattern = tokens.iter().any(|t| !matches!(t, Tok::Lit(_)));
        let mut next = Vec::new();
        for candidate in &candidates {
            if !is_pattern {
                let name: String = component.iter().map(|(c, _)| c).collect();
                let path = join(candidate, &name);
                if std::fs::symlink_metadata(ctx.real(&path)).is_ok() {
                    next.push(path);
                }
                continue;
            }
            let dir = if candidate.is_empty() { "." } else { candidate.as_str() };
            // A listing through the host: no `stat` per entry.
            let Ok(entries) = ctx.read_dir(&ctx.real(dir)) else { continue };
            let show_hidden = matches!(tokens.first(), Some(Tok::Lit('.')));
            for entry in entries.into_iter().flatten() {
                let name = entry.name;
                if (name.starts_with('.') && !show_hidden) || !matches(&tokens, &name) {
                    continue;
                }
                next.push(join(candidate, &name));
                if next.len() >= MAX_MATCHES {
                    break;
                }
            }
        }
        candidates = next;
        if candidates.is_empty() {
            return Vec::new();
        }
    }
    // `dir/*/`: only directories (a symlink to one too), printed with the slash.
    if chars.last().is_some_and(|(c, _)| *c == '/') {
        candidates.retain(|c| std::fs::metadata(ctx.real(c)).is_ok_and(|m| m.is_dir()));
        for candidate in &mut candidates {
            candidate.push('/');
        }
    }
    candidates.sort();
    candidates
}

fn join(dir: &str, name: &str) -> String {
    if dir.is_empty() {
        name.to_string()
    } else if dir.ends_with('/') {
        format!("{dir}{name}")
    } else {
        format!("{dir}/{name}")
    }
}

fn tokenize(component: &[(char, bool)]) -> Vec<Tok> {
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < component.len() {
        let (c, quoted) = component[i];
        i += 1;
        if quoted {
            tokens.push(Tok::Lit(c));
            continue;
        }
        match c {
            '*' => {
                if tokens.last() != Some(&Tok::Star) {
                    tokens.push(Tok::Star);
                }
            }
            '?' => tokens.push(Tok::One),
            '[' => match class(&component[i..]) {
                Some((tok, used)) => {
                    tokens.push(tok);
                    i += used;
                }
                None => tokens.push(Tok::Lit('[')),
            },
            c => tokens.push(Tok::Lit(c)),
        }
    }
    tokens
}

/// Parses a bracket expression after `[`; returns it and the characters it used.
fn class(rest: &[(char, bool)]) -> Option<(Tok, usize)> {
    let mut i = 0;
    let negated = matches!(rest.first(), Some(('!' | '^', false)));
    if negated {
        i += 1;
    }
    let mut ranges = Vec::new();
    let start = i;
    while i < rest.len() {
        let (c, _) = rest[i];
        if c == ']' && i > start {
            return Some((Tok::Class { negated, ranges }, i + 1));
        }
        if c == '[' && rest.get(i + 1).map(|p| p.0) == Some(':') {
            let name: String = rest[i + 2..].iter().map(|p| p.0).take_while(|c| *c != ':').collect();
            let named: &[(char, char)] = match name.as_str() {
                "alpha" => &[('a', 'z'), ('A', 'Z')],
                "digit" => &[('0', '9')],
                "alnum" => &[('a', 'z'), ('A', 'Z'), ('0', '9')],
                "upper" => &[('A', 'Z')],
                "lower" => &[('a', 'z')],
                "space" => &[(' ', ' '), ('\t', '\r')],
                _ => &[],
            };
            if !named.is_empty() {
                ranges.extend_from_slice(named);
                i += name.len() + 4;
                continue;
            }
        }
        if rest.get(i + 1).map(|p| p.0) == Some('-') && rest.get(i + 2).is_some_and(|p| p.0 != ']') {
            ranges.push((c, rest[i + 2].0));
            i += 3;
        } else {
            ranges.push((c, c));
            i += 1;
        }
    }
    None
}

/// fnmatch without flags: `*` and `?` match any character, `/` never appears in a name.
fn matches(tokens: &[Tok], name: &str) -> bool {
    let name: Vec<char> = name.chars().collect();
    let (mut t, mut n) = (0, 0);
    let mut backtrack: Option<(usize, usize)> = None;
    while n < name.len() {
        let step = match tokens.get(t) {
            Some(Tok::Star) => {
                backtrack = Some((t, n));
                t += 1;
                continue;
            }
            Some(Tok::One) => true,
            Some(Tok::Lit(c)) => *c == name[n],
            Some(Tok::Class { negated, ranges }) => {
                ranges.iter().any(|(lo, hi)| (*lo..=*hi).contains(&name[n])) != *negated
            }
            None => false,
        };
        if step {
            t += 1;
            n += 1;
        } else if let Some((bt, bn)) = backtrack {
            t = bt + 1;
            n = bn + 1;
            backtrack = Some((bt, bn + 1));
        } else {
            return false;
        }
    }
    tokens[t..].iter().all(|tok| *tok == Tok::Star)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unquoted(p: &str) -> Vec<(String, bool)> {
        vec![(p.to_string(), false)]
    }

    #[test]
    fn fnmatch_basics() {
        let m = |p: &str, n: &str| matches(&tokenize(&p.chars().map(|c| (c, false)).collect::<Vec<_>>()), n);
        assert!(m("*.ts", "a.ts"));
        assert!(!m("*.ts", "a.tsx"));
        assert!(m("a?c", "abc"));
        assert!(m("[ab]*", "beta"));
        assert!(!m("[!ab]*", "beta"));
        assert!(m("[a-c]x", "bx"));
        assert!(m("*a*b*", "xxaxxbxx"));
        assert!(m("[[:digit:]]*", "1x"));
        assert!(m("[", "["));
    }

    #[test]
    fn expands_in_the_tree_sorted_without_hidden_files() {
        let dir = tempfile::tempdir().unwrap();
        for f in ["src/b.ts", "src/a.ts", "src/c.rs", "src/.hidden.ts", "web/x/a.ts"] {
            let p = dir.path().join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "").unwrap();
        }
        let ctx = Ctx::new(dir.path());
        assert_eq!(expand(&ctx, &unquoted("src/*.ts")), ["src/a.ts", "src/b.ts"]);
        assert_eq!(expand(&ctx, &unquoted("src/.*.ts")), ["src/.hidden.ts"]);
        assert_eq!(expand(&ctx, &unquoted("*/x/*.ts")), ["web/x/a.ts"]);
        assert_eq!(expand(&ctx, &unquoted("/src/?.rs")), ["/src/c.rs"]);
        assert!(expand(&ctx, &unquoted("src/*.py")).is_empty());
        // A quoted star is literal.
        assert!(expand(&ctx, &[("src/".into(), false), ("*".into(), true), (".ts".into(), false)]).is_empty());
        // A trailing slash keeps directories only, and keeps the slash.
        assert_eq!(expand(&ctx, &unquoted("*/")), ["src/", "web/"]);
        assert_eq!(expand(&ctx, &unquoted("web/*/")), ["web/x/"]);
        assert!(expand(&ctx, &unquoted("src/*.ts/")).is_empty());
    }
}
