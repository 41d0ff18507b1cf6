//! From a command string to the small AST the interpreter runs.
//!
//! brush-parser does the POSIX/bash grammar; this module keeps the subset analysts write
//! and names everything else, so an unsupported construct is an error that says what it
//! is (`for loop`, `variable assignment`, `here-document`), never a silent misreading.
//!
//! Kept: simple commands, pipelines, `&&`/`||`, `;`/newlines, `!`, subshells `( )`,
//! groups `{ ;}`, `if/elif/else`, quoting (single, double, `$'..'`, backslash), `$?`,
//! command substitution `$(..)`/backquotes, globs, and the redirections `<`, `>`, `>>`,
//! `N>&M`, `&>`. Output redirections to files parse; the interpreter refuses them unless
//! the target is `/dev/null`.

use brush_parser::ast;
use brush_parser::word::{self, Parameter, ParameterExpr, SpecialParameter, WordPiece, WordPieceWithSource};
use brush_parser::{Parser, ParserOptions};

/// Commands run one after another (`;` or newline).
#[derive(Debug, Clone, PartialEq)]
pub struct Script(pub Vec<AndOr>);

/// `a && b || c`, evaluated left to right.
#[derive(Debug, Clone, PartialEq)]
pub struct AndOr {
    pub first: Pipeline,
    pub rest: Vec<(Op, Pipeline)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    And,
    Or,
}

/// `[!] a | b | c`.
#[derive(Debug, Clone, PartialEq)]
pub struct Pipeline {
    pub negated: bool,
    pub commands: Vec<Command>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    Simple {
        words: Vec<Word>,
        redirects: Vec<Redirect>,
    },
    /// `( ... )`: `cd` inside does not leak out.
    Subshell {
        body: Script,
        redirects: Vec<Redirect>,
    },
    /// `{ ...; }`.
    Group {
        body: Script,
        redirects: Vec<Redirect>,
    },
    /// `if c; then t; elif c2; then t2; else e; fi`.
    If {
        branches: Vec<(Script, Script)>,
        otherwise: Option<Script>,
        redirects: Vec<Redirect>,
    },
}

/// A word before expansion: pieces that are quoted or not (only unquoted text globs and
/// only unquoted substitutions are split into fields).
#[derive(Debug, Clone, PartialEq)]
pub struct Word(pub Vec<Piece>);

#[derive(Debug, Clone, PartialEq)]
pub enum Piece {
    Text {
        text: String,
        quoted: bool,
    },
    /// `$?`
    LastStatus {
        quoted: bool,
    },
    /// `$(...)` or backquotes.
    Substitution {
        script: Script,
        quoted: bool,
    },
}

/// A redirection, by file descriptor (0 stdin, 1 stdout, 2 stderr).
#[derive(Debug, Clone, PartialEq)]
pub enum Redirect {
    /// `N>&M`: writes to N go where M goes.
    Duplicate { fd: i32, to: i32 },
    /// `N> target` / `N>> target`; `&> target` is fd 1 and 2.
    Output { fds: Vec<i32>, target: Word },
    /// `< file`.
    Input { target: Word },
    /// `N>&-`.
    Close { fd: i32 },
}

/// A command the interpreter cannot run: the message names the construct.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsupported(pub String);

impl std::fmt::Display for Unsupported {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Deepest nesting of subshells, groups and substitutions accepted. Deeper input is an
/// error rather than a stack overflow in the interpreter.
pub const MAX_NESTING: usize = 64;

/// Deepest nesting of unquoted parentheses handed to the parser. brush-parser backtracks
/// over `(` versus `((` (a subshell or arithmetic), which costs time exponential in the
/// number of parentheses open at once: found by fuzzing, 29 unclosed `(` took minutes
/// (each level doubles it; 16 take ~2 ms natively). Analysts' commands nest two or three.
pub const MAX_PARENTHESES: usize = 16;

fn options() -> ParserOptions {
    ParserOptions {
        enable_extended_globbing: false,
        posix_mode: false,
        sh_mode: false,
        tilde_expansion_at_word_start: true,
        tilde_expansion_after_colon: false,
        ..ParserOptions::default()
    }
}

/// Parses `source` into a [`Script`].
pub fn parse(source: &str) -> Result<Script, Unsupported> {
    parse_nested(source, 0)
}

fn parse_nested(source: &str, depth: usize) -> Result<Script, Unsupported> {
    if depth > MAX_NESTING || nesting_depth(source) > MAX_NESTING {
        return Err(Unsupported(format!("commands nested more than {MAX_NESTING} levels deep")));
    }
    if parenthesis_depth(source) > MAX_PARENTHESES {
        return Err(Unsupported(format!("more than {MAX_PARENTHESES} parentheses open at once")));
    }
    let program = Parser::new(std::io::Cursor::new(source.as_bytes()), &options())
        .parse_program()
        .map_err(|e| Unsupported(format!("shell syntax error: {e}")))?;
    let mut items = Vec::new();
    for complete in program.complete_commands {
        items.extend(compound_list(&complete, depth)?);
    }
    Ok(Script(items))
}

/// A cheap upper bound of the parenthesis/brace nesting, checked before brush-parser
/// (which recurses) sees a pathological input.
fn nesting_depth(source: &str) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    for c in source.bytes() {
        match c {
            b'(' | b'{' => {
                depth += 1;
                max = max.max(depth);
            }
            b')' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

/// The most unquoted `(` open at once in `source`: single-quoted text and escaped
/// characters do not count (a regex in quotes may have any number).
fn parenthesis_depth(source: &str) -> usize {
    let (mut depth, mut max) = (0usize, 0usize);
    let mut bytes = source.bytes();
    while let Some(c) = bytes.next() {
        match c {
            b'\\' => {
                bytes.next();
            }
            b'\'' => {
                for q in bytes.by_ref() {
                    if q == b'\'' {
                        break;
                    }
                }
            }
            b'(' => {
                depth += 1;
                max = max.max(depth);
            }
            b')' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    max
}

fn compound_list(list: &ast::CompoundList, depth: usize) -> Result<Vec<AndOr>, Unsupported> {
    list.0
        .iter()
        .map(|ast::CompoundListItem(and_or, separator)| {
            if matches!(separator, ast::SeparatorOperator::Async) {
                return Err(Unsupported("background jobs (`&`)".into()));
            }
            let first = pipeline(&and_or.first, depth)?;
            let rest = and_or
                .additional
                .iter()
                .map(|next| match next {
                    ast::AndOr::And(p) => Ok((Op::And, pipeline(p, depth)?)),
                    ast::AndOr::Or(p) => Ok((Op::Or, pipeline(p, depth)?)),
                })
                .collect::<Result<_, _>>()?;
            Ok(AndOr { first, rest })
        })
        .collect()
}

fn pipeline(p: &ast::Pipeline, depth: usize) -> Result<Pipeline, Unsupported> {
    if p.timed.is_some() {
        return Err(Unsupported("`time`".into()));
    }
    let commands = p.seq.iter().map(|c| command(c, depth)).collect::<Result<_, _>>()?;
    Ok(Pipeline { negated: p.bang, commands })
}

fn command(c: &ast::Command, depth: usize) -> Result<Command, Unsupported> {
    match c {
        ast::Command::Simple(simple) => simple_command(simple, depth),
        ast::Command::Compound(compound, redirect_list) => {
            let redirects = match redirect_list {
                Some(list) => list.0.iter().map(|r| redirect(r, depth)).collect::<Result<_, _>>()?,
                None => Vec::new(),
            };
            let nested = |list: &ast::CompoundList| compound_list(list, depth + 1).map(Script);
            if depth + 1 > MAX_NESTING {
                return Err(Unsupported(format!("commands nested more than {MAX_NESTING} levels deep")));
            }
            match compound {
                ast::CompoundCommand::Subshell(s) => Ok(Command::Subshell { body: nested(&s.list)?, redirects }),
                ast::CompoundCommand::BraceGroup(g) => Ok(Command::Group { body: nested(&g.list)?, redirects }),
                ast::CompoundCommand::IfClause(clause) => {
                    let mut branches = vec![(nested(&clause.condition)?, nested(&clause.then)?)];
                    let mut otherwise = None;
                    for e in clause.elses.iter().flatten() {
                        match &e.condition {
                            Some(condition) => branches.push((nested(condition)?, nested(&e.body)?)),
                            None => otherwise = Some(nested(&e.body)?),
                        }
                    }
                    Ok(Command::If { branches, otherwise, redirects })
                }
                ast::CompoundCommand::ForClause(_) | ast::CompoundCommand::ArithmeticForClause(_) => {
                    Err(Unsupported("`for` loops".into()))
                }
                ast::CompoundCommand::WhileClause(_) => Err(Unsupported("`while` loops".into())),
                ast::CompoundCommand::UntilClause(_) => Err(Unsupported("`until` loops".into())),
                ast::CompoundCommand::CaseClause(_) => Err(Unsupported("`case` statements".into())),
                ast::CompoundCommand::Arithmetic(_) => Err(Unsupported("arithmetic commands `(( ))`".into())),
                ast::CompoundCommand::Coprocess(_) => Err(Unsupported("`coproc`".into())),
            }
        }
        ast::Command::Function(_) => Err(Unsupported("function definitions".into())),
        ast::Command::ExtendedTest(..) => Err(Unsupported("`[[ ... ]]` tests (use `[ ... ]` or `test`)".into())),
    }
}

fn simple_command(simple: &ast::SimpleCommand, depth: usize) -> Result<Command, Unsupported> {
    let mut words = Vec::new();
    let mut redirects = Vec::new();
    let mut item = |item: &ast::CommandPrefixOrSuffixItem, is_suffix: bool| -> Result<(), Unsupported> {
        match item {
            ast::CommandPrefixOrSuffixItem::Word(w) => words.push(parse_word(&w.value, depth)?),
            ast::CommandPrefixOrSuffixItem::IoRedirect(r) => redirects.push(redirect(r, depth)?),
            // After the command name `a=b` is an ordinary argument (`echo status=$?`).
            ast::CommandPrefixOrSuffixItem::AssignmentWord(_, w) if is_suffix => {
                words.push(parse_word(&w.value, depth)?)
            }
            ast::CommandPrefixOrSuffixItem::AssignmentWord(..) => {
                return Err(Unsupported("variable assignments".into()));
            }
            ast::CommandPrefixOrSuffixItem::ProcessSubstitution(..) => {
                return Err(Unsupported("process substitution `<( )`".into()));
            }
        }
        Ok(())
    };
    for i in simple.prefix.iter().flat_map(|p| p.0.iter()) {
        item(i, false)?;
    }
    if let Some(name) = &simple.word_or_name {
        item(&ast::CommandPrefixOrSuffixItem::Word(name.clone()), true)?;
    }
    for i in simple.suffix.iter().flat_map(|s| s.0.iter()) {
        item(i, true)?;
    }
    Ok(Command::Simple { words, redirects })
}

fn redirect(r: &ast::IoRedirect, depth: usize) -> Result<Redirect, Unsupported> {
    match r {
        ast::IoRedirect::File(fd, kind, target) => {
            let target_word = |target: &ast::IoFileRedirectTarget| match target {
                ast::IoFileRedirectTarget::Filename(w) => parse_word(&w.value, depth),
                ast::IoFileRedirectTarget::Fd(n) => Ok(Word(vec![Piece::Text { text: n.to_string(), quoted: true }])),
                ast::IoFileRedirectTarget::Duplicate(w) => parse_word(&w.value, depth),
                ast::IoFileRedirectTarget::ProcessSubstitution(..) => {
                    Err(Unsupported("process substitution `<( )`".into()))
                }
            };
            match kind {
                ast::IoFileRedirectKind::Read => Ok(Redirect::Input { target: target_word(target)? }),
                ast::IoFileRedirectKind::Write | ast::IoFileRedirectKind::Clobber | ast::IoFileRedirectKind::Append => {
                    Ok(Redirect::Output { fds: vec![fd.unwrap_or(1)], target: target_word(target)? })
                }
                ast::IoFileRedirectKind::DuplicateOutput | ast::IoFileRedirectKind::DuplicateInput => {
                    let from =
                        fd.unwrap_or(if matches!(kind, ast::IoFileRedirectKind::DuplicateOutput) { 1 } else { 0 });
                    let to = literal(&target_word(target)?).unwrap_or_default();
                    match to.as_str() {
                        "-" => Ok(Redirect::Close { fd: from }),
                        n => n
                            .parse()
                            .map(|to| Redirect::Duplicate { fd: from, to })
                            .map_err(|_| Unsupported(format!("redirection `{from}>&{n}`"))),
                    }
                }
                ast::IoFileRedirectKind::ReadAndWrite => Err(Unsupported("`<>` redirections".into())),
            }
        }
        ast::IoRedirect::OutputAndError(target, _append) => {
            Ok(Redirect::Output { fds: vec![1, 2], target: parse_word(&target.value, depth)? })
        }
        ast::IoRedirect::HereDocument(..) => Err(Unsupported("here-documents (`<<`)".into())),
        ast::IoRedirect::HereString(..) => Err(Unsupported("here-strings (`<<<`)".into())),
    }
}

/// The text of a word that has no substitutions, if it is one.
pub fn literal(word: &Word) -> Option<String> {
    word.0
        .iter()
        .map(|p| match p {
            Piece::Text { text, .. } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

fn parse_word(raw: &str, depth: usize) -> Result<Word, Unsupported> {
    let pieces = word::parse(raw, &options()).map_err(|e| Unsupported(format!("cannot parse word `{raw}`: {e}")))?;
    let mut out = Vec::new();
    pieces_into(raw, &pieces, false, depth, &mut out)?;
    Ok(Word(out))
}

fn pieces_into(
    raw: &str,
    pieces: &[WordPieceWithSource],
    quoted: bool,
    depth: usize,
    out: &mut Vec<Piece>,
) -> Result<(), Unsupported> {
    for p in pieces {
        match &p.piece {
            WordPiece::Text(text) => out.push(Piece::Text { text: text.clone(), quoted }),
            WordPiece::SingleQuotedText(text) => out.push(Piece::Text { text: text.clone(), quoted: true }),
            WordPiece::AnsiCQuotedText(text) => out.push(Piece::Text { text: ansi_c(text), quoted: true }),
            WordPiece::DoubleQuotedSequence(inner) | WordPiece::GettextDoubleQuotedSequence(inner) => {
                // `""` must still produce an (empty) argument.
                out.push(Piece::Text { text: String::new(), quoted: true });
                pieces_into(raw, inner, true, depth, out)?;
            }
            WordPiece::EscapeSequence(seq) => {
                let escaped = seq.strip_prefix('\\').unwrap_or(seq);
                // Inside double quotes a backslash only escapes $ ` " \ and newline.
                let text = if quoted && !matches!(escaped, "$" | "`" | "\"" | "\\" | "\n") {
                    seq.clone()
                } else if escaped == "\n" {
                    String::new()
                } else {
                    escaped.to_string()
                };
                out.push(Piece::Text { text, quoted: true });
            }
            WordPiece::ParameterExpansion(ParameterExpr::Parameter {
                parameter: Parameter::Special(SpecialParameter::LastExitStatus),
                indirect: false,
            }) => out.push(Piece::LastStatus { quoted }),
            WordPiece::ParameterExpansion(_) => {
                let text = raw.get(p.start_index..p.end_index).unwrap_or("$...");
                return Err(Unsupported(format!(
                    "parameter expansion `{text}` (the sandbox has no variables; only `$?` is supported)"
                )));
            }
            WordPiece::CommandSubstitution(source) | WordPiece::BackquotedCommandSubstitution(source) => {
                let script = parse_nested(source, depth + 1)?;
                out.push(Piece::Substitution { script, quoted });
            }
            WordPiece::TildeExpansion(_) => {
                return Err(Unsupported("tilde expansion `~` (the sandbox has no home directory)".into()));
            }
            WordPiece::ArithmeticExpression(_) => return Err(Unsupported("arithmetic expansion `$(( ))`".into())),
        }
    }
    Ok(())
}

/// `$'...'` escapes: the common ones.
fn ansi_c(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('0') => out.push('\0'),
            Some('\\') => out.push('\\'),
            Some('\'') => out.push('\''),
            Some('"') => out.push('"'),
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parentheses_open_at_once_are_bounded_before_parsing() {
        // Found by fuzzing: the parser's backtracking is exponential in unclosed `(`.
        let deep = format!("{}~((| sort | uniq -c > /dev/null", "(".repeat(29));
        let started = std::time::Instant::now();
        let error = parse(&deep).unwrap_err();
        assert!(error.0.contains("parentheses open at once"), "{error:?}");
        assert!(started.elapsed() < std::time::Duration::from_secs(1));
        // Quoted and escaped parentheses are text, not nesting.
        let quoted = format!("grep -E '{}x' f && echo \\( \\(", "(".repeat(40));
        assert!(parse(&quoted).is_ok());
        assert!(parse("(cd web && (grep -q x f || true))").is_ok());
    }

    fn words(source: &str) -> Vec<Vec<Piece>> {
        let script = parse(source).unwrap();
        match &script.0[0].first.commands[0] {
            Command::Simple { words, .. } => words.iter().map(|w| w.0.clone()).collect(),
            other => panic!("not simple: {other:?}"),
        }
    }

    fn text(source: &str) -> Vec<String> {
        words(source)
            .iter()
            .map(|w| {
                w.iter()
                    .map(|p| match p {
                        Piece::Text { text, .. } => text.clone(),
                        other => format!("{other:?}"),
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn quoting_keeps_backslashes_where_bash_does() {
        assert_eq!(text(r"grep '\bTug\b' f"), ["grep", r"\bTug\b", "f"]);
        assert_eq!(text(r#"grep "a\|b" f"#), ["grep", r"a\|b", "f"]);
        assert_eq!(text(r#"echo "say \"hi\" \$x""#), ["echo", r#"say "hi" $x"#]);
        assert_eq!(text(r"echo a\ b \| c"), ["echo", "a b", "|", "c"]);
        assert_eq!(text(r#"echo '' """#), ["echo", "", ""]);
        assert_eq!(text(r"echo $'a\tb'"), ["echo", "a\tb"]);
        assert_eq!(text("echo status=ok"), ["echo", "status=ok"]);
    }

    #[test]
    fn lists_pipelines_and_subshells() {
        let script = parse("(cd web && grep -rl TODO .) | wc -l; ! true || false").unwrap();
        assert_eq!(script.0.len(), 2);
        assert_eq!(script.0[0].first.commands.len(), 2);
        assert!(matches!(script.0[0].first.commands[0], Command::Subshell { .. }));
        assert!(script.0[1].first.negated);
        assert_eq!(script.0[1].rest[0].0, Op::Or);
    }

    #[test]
    fn redirections() {
        let script = parse("grep x f 2>&1 >/dev/null 2>/dev/null < in &>/dev/null").unwrap();
        let Command::Simple { redirects, .. } = &script.0[0].first.commands[0] else { panic!() };
        assert_eq!(redirects[0], Redirect::Duplicate { fd: 2, to: 1 });
        assert!(matches!(&redirects[1], Redirect::Output { fds, .. } if fds == &[1]));
        assert!(matches!(&redirects[2], Redirect::Output { fds, .. } if fds == &[2]));
        assert!(matches!(&redirects[3], Redirect::Input { .. }));
        assert!(matches!(&redirects[4], Redirect::Output { fds, .. } if fds == &[1, 2]));
    }

    #[test]
    fn unsupported_constructs_are_named() {
        for (source, construct) in [
            ("for f in *; do cat $f; done", "`for` loops"),
            ("while true; do :; done", "`while` loops"),
            ("X=1 grep x f", "variable assignments"),
            ("echo $HOME", "parameter expansion"),
            ("cat <<EOF\nx\nEOF", "here-documents"),
            ("sleep 1 &", "background jobs"),
            ("[[ -f x ]]", "`[[ ... ]]`"),
            ("f() { true; }", "function definitions"),
            ("echo ~", "tilde expansion"),
        ] {
            let err = parse(source).unwrap_err();
            assert!(err.0.contains(construct), "{source}: {err}");
        }
        assert!(parse("echo 'unterminated").unwrap_err().0.contains("syntax error"));
    }

    #[test]
    fn deep_nesting_is_refused_not_overflowed() {
        let deep = format!("{}true{}", "(".repeat(500), ")".repeat(500));
        assert!(parse(&deep).unwrap_err().0.contains("nested more than"));
    }
}
