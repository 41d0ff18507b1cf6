//! From a command string to the small AST the interpreter runs.
//!
//! brush-parser does the POSIX/bash grammar; this module keeps the subset analysts write
//! and names everything else, so an unsupported construct is an error that says what it
//! is (`arrays`, `process substitution`, `coproc`), never a silent misreading.
//!
//! Kept: simple commands with variable assignments (`X=1`, `X=1 cmd`), pipelines,
//! `&&`/`||`, `;`/newlines, `!`, subshells `( )`, groups `{ ;}`, `if/elif/else`, `for`
//! (also `for ((;;))`), `while`/`until`, `case`, function definitions, `[[ ]]`, `(( ))`,
//! quoting (single, double, `$'..'`, backslash), parameter expansion (`$X`, `${X:-d}`,
//! `${#X}`, `${X%pat}`, `${X/a/b}`, `$1`, `$@`, `$?`, ...), arithmetic `$(( ))`, command
//! substitution `$(..)`/backquotes (a backslash inside them escapes only `$`, `` ` ``, `\`
//! and, in double quotes, `"`), brace expansion on the text as written (`-{$a,'b'}-`,
//! `\{{a,b}`, zero-padded `{01..10}`; at most `MAX_BRACES` levels and
//! [`MAX_BRACE_WORDS`] words), globs, the redirections `<`, `>`, `>>`, `N>&M` (a
//! descriptor above 2 only as a target of the same command's redirections), `&>`,
//! here-documents and here-strings. Output redirections to files parse; the interpreter
//! refuses them unless the target is `/dev/null`.
//!
//! What bash rejects only when it runs the command is kept as a [`Piece::Fail`], so the
//! script fails where and as bash's does: a bad substitution (`${a&}`, `${#x-d}`)
//! abandons the rest of its line ([`AndOr::line`]), a loop variable or function name
//! that is not a name (`for - in`, `$f-g() {…}`) fails its command. Refused: input
//! redirections of descriptors other than 0, syntax errors (brush-parser reads the whole
//! script first, so bash's output before a syntax error on a later line is not
//! reproduced), here-document bodies whose unescaped substitutions do not balance.

use brush_parser::ast;
use brush_parser::{Parser, ParserOptions};

mod guards;
mod tree;
mod words;

pub(crate) use guards::parenthesis_depth;
use guards::{
    MAX_AMBIGUOUS_ARITHMETIC, MAX_CASE_NESTING, ambiguous_arithmetic, array_subscript, case_nesting, here_documents,
    here_operator_in_parameter, nesting_depth, old_arithmetic, overflowing_number, substitution_after,
};
pub use tree::*;
pub use words::literal;
use words::{arithmetic_word, command_words, here_document, parse_word};

/// Deepest nesting of subshells, groups and substitutions accepted. Deeper input is an
/// error rather than a stack overflow in the interpreter.
pub const MAX_NESTING: usize = 64;

/// Deepest nesting of unquoted parentheses handed to the parser. brush-parser backtracks
/// over `(` versus `((` (a subshell or arithmetic), which costs time exponential in the
/// number of parentheses open at once: found by fuzzing, 29 unclosed `(` took minutes
/// (each level doubles it; 16 take ~2 ms natively). Analysts' commands nest two or three.
pub const MAX_PARENTHESES: usize = 16;

/// Most words the brace expansions (`{1..100}`) of one command string may produce
/// together: argument lists, not loops.
pub const MAX_BRACE_WORDS: usize = 10_000;

thread_local! {
    /// The characters of the command string [`parse_nested`] is parsing ([`text`]).
    static SOURCE: std::cell::RefCell<std::rc::Rc<Vec<char>>> = std::cell::RefCell::default();
    /// Words the brace expansions of the command string being parsed produced so far
    /// ([`MAX_BRACE_WORDS`]); [`parse`] starts it at 0.
    static BRACE_WORDS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

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

/// Whether the source of a `for` loop from its start to its body names `in` after the
/// variable (`for x in; do`, `for x\nin\ndo`).
fn explicit_in(whole: &brush_parser::SourceSpan, body: &brush_parser::SourceSpan) -> bool {
    SOURCE.with_borrow(|chars| {
        let head: String = chars.get(whole.start.index..body.start.index).unwrap_or_default().iter().collect();
        head.split(|c: char| c.is_whitespace() || c == ';').filter(|t| !t.is_empty()).nth(2) == Some("in")
    })
}

/// Parses `source` into a [`Script`].
pub fn parse(source: &str) -> Result<Script, Unsupported> {
    BRACE_WORDS.set(0);
    parse_nested(source, 0)
}

fn parse_nested(source: &str, depth: usize) -> Result<Script, Unsupported> {
    /// Puts back the source of the enclosing command string when this one is parsed.
    struct Restore(std::rc::Rc<Vec<char>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            SOURCE.set(std::mem::take(&mut self.0));
        }
    }
    let _restore = Restore(SOURCE.replace(std::rc::Rc::new(source.chars().collect())));
    if depth > MAX_NESTING || nesting_depth(source) > MAX_NESTING {
        return Err(Unsupported(format!("commands nested more than {MAX_NESTING} levels deep")));
    }
    if parenthesis_depth(source) > MAX_PARENTHESES {
        return Err(Unsupported(format!("more than {MAX_PARENTHESES} parentheses open at once")));
    }
    if let Some(number) = overflowing_number(source) {
        return Err(Unsupported(format!("the number {number} is too large")));
    }
    if array_subscript(source) {
        return Err(Unsupported("arrays (`${name[…]}`)".into()));
    }
    if ambiguous_arithmetic(source) > MAX_AMBIGUOUS_ARITHMETIC {
        return Err(Unsupported(format!(
            "more than {MAX_AMBIGUOUS_ARITHMETIC} `$((` that are not arithmetic (write `$( (…) )` for a subshell)"
        )));
    }
    if case_nesting(source) > MAX_CASE_NESTING {
        return Err(Unsupported(format!("more than {MAX_CASE_NESTING} `case` statements nested (or left open)")));
    }
    if here_operator_in_parameter(source) {
        return Err(Unsupported("`<<` inside a parameter expansion `${…}`".into()));
    }
    if old_arithmetic(source) {
        return Err(Unsupported("`$[…]` arithmetic (bash's old form; write `$((…))`)".into()));
    }
    match here_documents(source) {
        Err(at) => {
            return Err(Unsupported(format!(
                "a here-document delimiter that is not a plain word (at byte {at}; write <<EOF, <<'EOF' or <<\"EOF\")"
            )));
        }
        Ok(operators) => {
            let documents: Vec<_> = operators.iter().filter(|d| !d.arithmetic).collect();
            if let Some(delimiter) = documents.iter().find(|d| !d.ended(source)).map(|d| &d.delimiter) {
                return Err(Unsupported(format!("a here-document without its end line `{delimiter}`")));
            }
            if let Some(delimiter) = documents.iter().find(|d| d.unbalanced_body(source)).map(|d| &d.delimiter) {
                return Err(Unsupported(format!(
                    "a here-document `{delimiter}` whose body has unbalanced substitutions (quote its delimiter: <<'{delimiter}')"
                )));
            }
            if operators.iter().any(|d| substitution_after(source, d.at, d.arithmetic)) {
                return Err(Unsupported("a substitution after a here-document operator on the same line".into()));
            }
        }
    }
    let program = Parser::new(std::io::Cursor::new(source.as_bytes()), &options())
        .parse_program()
        .map_err(|e| Unsupported(format!("shell syntax error: {e}")))?;
    let mut items = Vec::new();
    for complete in program.complete_commands {
        let start = items.len();
        items.extend(compound_list(&complete, depth)?);
        if let Some(first) = items.get_mut(start) {
            first.line = true;
        }
    }
    Ok(Script(items))
}

/// A word as the command string wrote it. brush-parser 0.4's tokenizer rebuilds the text
/// inside `${…}` from its tokens, one space between them, so `"${x%a  b}"` or
/// `"${x:-a  b}"` would lose spaces (and tabs, and newlines) that bash keeps; the word's
/// span in the source has them. The source text is used only when it is the same word
/// but for blanks, else the tokenizer's.
fn text(word: &ast::Word) -> std::borrow::Cow<'_, str> {
    let value = word.value.as_str();
    if !value.contains("${") {
        return value.into();
    }
    let from_source = word.loc.as_ref().and_then(|loc| {
        SOURCE.with_borrow(|chars| chars.get(loc.start.index..loc.end.index).map(|c| c.iter().collect::<String>()))
    });
    let bare = |t: &str| t.chars().filter(|c| !c.is_whitespace()).collect::<String>();
    match from_source {
        Some(original) if original != value && bare(&original) == bare(value) => original.into(),
        _ => value.into(),
    }
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
            Ok(AndOr { first, rest, line: false })
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

fn too_deep() -> Unsupported {
    Unsupported(format!("commands nested more than {MAX_NESTING} levels deep"))
}

fn redirect_list(list: &Option<ast::RedirectList>, depth: usize) -> Result<Vec<Redirect>, Unsupported> {
    match list {
        Some(list) => list.0.iter().map(|r| redirect(r, depth)).collect(),
        None => Ok(Vec::new()),
    }
}

/// A command that fails with bash's `message` and status 1 when it runs.
fn failing(message: String) -> Command {
    let word = Word(vec![Piece::Fail { message, discard: false }]);
    Command::Simple { words: vec![word], redirects: Vec::new(), assignments: Vec::new() }
}

/// A script of one command (a function's body).
fn single(command: Command) -> Script {
    Script(vec![AndOr { first: Pipeline { negated: false, commands: vec![command] }, rest: Vec::new(), line: false }])
}

fn command(c: &ast::Command, depth: usize) -> Result<Command, Unsupported> {
    match c {
        ast::Command::Simple(simple) => simple_command(simple, depth),
        ast::Command::Compound(compound, list) => compound_command(compound, redirect_list(list, depth)?, depth),
        ast::Command::Function(function) => {
            let name = function.fname.value.clone();
            // bash defines no function whose name has quotes or a `$`, at run time.
            if !name.is_empty() && name.contains(['$', '\'', '"', '\\']) && !name.contains(['`', '=']) {
                return Ok(failing(format!("`{name}': not a valid identifier")));
            }
            if name.is_empty() || name.contains(['$', '`', '\'', '"', '\\', '=']) {
                return Err(Unsupported(format!("function name `{name}`")));
            }
            // The definition is a level, and its body another.
            if depth + 1 > MAX_NESTING {
                return Err(too_deep());
            }
            let ast::FunctionBody(body, list) = &function.body;
            let body = compound_command(body, redirect_list(list, depth + 1)?, depth + 1)?;
            Ok(Command::Group { body: single(body), redirects: Vec::new(), kind: Compound::Function { name } })
        }
        ast::Command::ExtendedTest(test, list) => {
            let redirects = redirect_list(list, depth)?;
            let expr = test_expr(&test.expr, depth, 0)?;
            Ok(Command::Group { body: Script(Vec::new()), redirects, kind: Compound::Test(expr) })
        }
    }
}

fn compound_command(
    compound: &ast::CompoundCommand,
    redirects: Vec<Redirect>,
    depth: usize,
) -> Result<Command, Unsupported> {
    if depth + 1 > MAX_NESTING {
        return Err(too_deep());
    }
    let nested = |list: &ast::CompoundList| compound_list(list, depth + 1).map(Script);
    let arithmetic = |e: &Option<ast::UnexpandedArithmeticExpr>| {
        e.as_ref().map(|e| arithmetic_word(&e.value, depth + 1)).transpose()
    };
    let group = |body: Script, kind: Compound| Ok(Command::Group { body, redirects: redirects.clone(), kind });
    match compound {
        ast::CompoundCommand::Subshell(s) => Ok(Command::Subshell { body: nested(&s.list)?, redirects }),
        ast::CompoundCommand::BraceGroup(g) => group(nested(&g.list)?, Compound::Braces),
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
        ast::CompoundCommand::ForClause(f) => {
            let words = match &f.values {
                Some(values) => {
                    let words = values.iter().map(|w| command_words(&text(w), depth)).collect::<Result<Vec<_>, _>>()?;
                    Some(words.into_iter().flatten().collect())
                }
                // brush-parser gives no list both for `for x; do` (the parameters) and
                // for `for x in; do` (nothing); the source tells them apart.
                None if explicit_in(&f.loc, &f.body.loc) => Some(Vec::new()),
                None => None,
            };
            // bash refuses a loop variable that is not a name (`for - in a`) when it
            // runs the loop: the command fails.
            if !crate::vars::is_name(&f.variable_name) {
                return Ok(failing(format!("`{}': not a valid identifier", f.variable_name)));
            }
            group(nested(&f.body.list)?, Compound::For { name: f.variable_name.clone(), words })
        }
        ast::CompoundCommand::ArithmeticForClause(f) => {
            let kind = Compound::ArithmeticFor {
                init: arithmetic(&f.initializer)?,
                condition: arithmetic(&f.condition)?,
                step: arithmetic(&f.updater)?,
            };
            group(nested(&f.body.list)?, kind)
        }
        ast::CompoundCommand::WhileClause(w) | ast::CompoundCommand::UntilClause(w) => {
            let until = matches!(compound, ast::CompoundCommand::UntilClause(_));
            group(nested(&w.1.list)?, Compound::While { condition: nested(&w.0)?, until })
        }
        ast::CompoundCommand::CaseClause(c) => {
            let arms = c
                .cases
                .iter()
                .map(|item| {
                    Ok(CaseArm {
                        patterns: item
                            .patterns
                            .iter()
                            .map(|w| parse_word(&text(w), depth))
                            .collect::<Result<_, _>>()?,
                        body: item.cmd.as_ref().map(nested).transpose()?.unwrap_or(Script(Vec::new())),
                        then: match item.post_action {
                            ast::CaseItemPostAction::ExitCase => CaseThen::Stop,
                            ast::CaseItemPostAction::UnconditionallyExecuteNextCaseItem => CaseThen::FallThrough,
                            ast::CaseItemPostAction::ContinueEvaluatingCases => CaseThen::TestNext,
                        },
                    })
                })
                .collect::<Result<_, Unsupported>>()?;
            group(Script(Vec::new()), Compound::Case { subject: parse_word(&text(&c.value), depth)?, arms })
        }
        ast::CompoundCommand::Arithmetic(a) => {
            group(Script(Vec::new()), Compound::Arithmetic(arithmetic_word(&a.expr.value, depth + 1)?))
        }
        ast::CompoundCommand::Coprocess(_) => Err(Unsupported("`coproc`".into())),
    }
}

fn test_expr(e: &ast::ExtendedTestExpr, depth: usize, level: usize) -> Result<TestExpr, Unsupported> {
    use ast::ExtendedTestExpr as E;
    if level > MAX_NESTING {
        return Err(Unsupported(format!("`[[ ]]` expressions nested more than {MAX_NESTING} levels deep")));
    }
    let inner = |e: &E| test_expr(e, depth, level + 1).map(Box::new);
    Ok(match e {
        E::And(a, b) => TestExpr::And(inner(a)?, inner(b)?),
        E::Or(a, b) => TestExpr::Or(inner(a)?, inner(b)?),
        E::Not(a) => TestExpr::Not(inner(a)?),
        E::Parenthesized(a) => test_expr(a, depth, level + 1)?,
        E::UnaryTest(predicate, w) => TestExpr::Unary(unary_test(predicate)?, parse_word(&text(w), depth)?),
        E::BinaryTest(_, l, _) if UNARY_OPERATORS.contains(&l.value.as_str()) => {
            // bash's parser takes the word for a unary operator wherever a term starts,
            // and then fails on the binary operator: nothing of the line runs.
            return Err(Unsupported(format!(
                "`[[ {} … ]]`: bash reads an unquoted `{}` there as a unary operator and fails (quote it)",
                l.value, l.value
            )));
        }
        E::BinaryTest(predicate, l, r) => {
            TestExpr::Binary(binary_test(predicate), parse_word(&text(l), depth)?, parse_word(&text(r), depth)?)
        }
    })
}

/// The words bash's `[[ ]]` parser reads as a unary operator where a term starts.
const UNARY_OPERATORS: &[&str] = &[
    "-a", "-b", "-c", "-d", "-e", "-f", "-g", "-h", "-k", "-n", "-o", "-p", "-r", "-s", "-t", "-u", "-v", "-w", "-x",
    "-z", "-G", "-L", "-N", "-O", "-R", "-S",
];

/// The `test` operator of a `[[ ]]` unary predicate.
fn unary_test(p: &ast::UnaryPredicate) -> Result<&'static str, Unsupported> {
    use ast::UnaryPredicate as U;
    Ok(match p {
        U::FileExists => "-e",
        U::FileExistsAndIsBlockSpecialFile => "-b",
        U::FileExistsAndIsCharSpecialFile => "-c",
        U::FileExistsAndIsDir => "-d",
        U::FileExistsAndIsRegularFile => "-f",
        U::FileExistsAndIsSetgid => "-g",
        U::FileExistsAndIsSymlink => "-h",
        U::FileExistsAndHasStickyBit => "-k",
        U::FileExistsAndIsFifo => "-p",
        U::FileExistsAndIsReadable => "-r",
        U::FileExistsAndIsNotZeroLength => "-s",
        U::FdIsOpenTerminal => "-t",
        U::FileExistsAndIsSetuid => "-u",
        U::FileExistsAndIsWritable => "-w",
        U::FileExistsAndIsExecutable => "-x",
        U::FileExistsAndOwnedByEffectiveGroupId => "-G",
        U::FileExistsAndModifiedSinceLastRead => "-N",
        U::FileExistsAndOwnedByEffectiveUserId => "-O",
        U::FileExistsAndIsSocket => "-S",
        U::ShellOptionEnabled => "-o",
        U::ShellVariableIsSetAndAssigned => "-v",
        U::StringHasZeroLength => "-z",
        U::StringHasNonZeroLength => "-n",
        U::ShellVariableIsSetAndNameRef => return Err(Unsupported("`[[ -R ]]` (name references)".into())),
    })
}

fn binary_test(p: &ast::BinaryPredicate) -> TestOp {
    use ast::BinaryPredicate as B;
    match p {
        B::FilesReferToSameDeviceAndInodeNumbers => TestOp::Files("-ef"),
        B::LeftFileIsNewerOrExistsWhenRightDoesNot => TestOp::Files("-nt"),
        B::LeftFileIsOlderOrDoesNotExistWhenRightDoes => TestOp::Files("-ot"),
        B::StringExactlyMatchesPattern | B::StringExactlyMatchesString => TestOp::Match,
        B::StringDoesNotExactlyMatchPattern | B::StringDoesNotExactlyMatchString => TestOp::NoMatch,
        // brush-parser calls a quoted right side a substring test: quoted text in a regex
        // matches literally, which the interpreter does for any quoted part.
        B::StringMatchesRegex | B::StringContainsSubstring => TestOp::Regex,
        B::LeftSortsBeforeRight => TestOp::Before,
        B::LeftSortsAfterRight => TestOp::After,
        B::ArithmeticEqualTo => TestOp::Integer("-eq"),
        B::ArithmeticNotEqualTo => TestOp::Integer("-ne"),
        B::ArithmeticLessThan => TestOp::Integer("-lt"),
        B::ArithmeticLessThanOrEqualTo => TestOp::Integer("-le"),
        B::ArithmeticGreaterThan => TestOp::Integer("-gt"),
        B::ArithmeticGreaterThanOrEqualTo => TestOp::Integer("-ge"),
    }
}

fn simple_command(simple: &ast::SimpleCommand, depth: usize) -> Result<Command, Unsupported> {
    let mut words = Vec::new();
    let mut redirects = Vec::new();
    let mut assignments = Vec::new();
    let mut item = |item: &ast::CommandPrefixOrSuffixItem, is_suffix: bool| -> Result<(), Unsupported> {
        match item {
            ast::CommandPrefixOrSuffixItem::Word(w) => words.extend(command_words(&text(w), depth)?),
            ast::CommandPrefixOrSuffixItem::IoRedirect(r) => redirects.push(redirect(r, depth)?),
            // After the command name `a=b` is an ordinary argument (`echo status=$?`);
            // `export`/`local` read it as an assignment themselves.
            ast::CommandPrefixOrSuffixItem::AssignmentWord(_, w) if is_suffix => {
                words.push(parse_word(&text(w), depth)?)
            }
            ast::CommandPrefixOrSuffixItem::AssignmentWord(a, w) => assignments.push(assignment(a, w, depth)?),
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
    Ok(Command::Simple { words, redirects, assignments })
}

/// `a`, written as the word `word` (`X=value`): the value is taken from the word's
/// [`text`], which keeps blanks inside `${…}`.
fn assignment(a: &ast::Assignment, word: &ast::Word, depth: usize) -> Result<Assignment, Unsupported> {
    let name = match &a.name {
        ast::AssignmentName::VariableName(name) => name.clone(),
        ast::AssignmentName::ArrayElementName(name, _) => {
            return Err(Unsupported(format!("arrays (`{name}[...]=`)")));
        }
    };
    match &a.value {
        ast::AssignmentValue::Scalar(w) => {
            let written = text(word);
            let value = match written.split_once('=') {
                Some((_, value)) if written != word.value => value.to_string(),
                _ => w.value.clone(),
            };
            Ok(Assignment { name, value: parse_word(&value, depth)?, append: a.append })
        }
        ast::AssignmentValue::Array(_) => Err(Unsupported(format!("arrays (`{name}=(...)`)"))),
    }
}

fn redirect(r: &ast::IoRedirect, depth: usize) -> Result<Redirect, Unsupported> {
    match r {
        ast::IoRedirect::File(fd, kind, target) => {
            let target_word = |target: &ast::IoFileRedirectTarget| match target {
                ast::IoFileRedirectTarget::Filename(w) => parse_word(&text(w), depth),
                ast::IoFileRedirectTarget::Fd(n) => Ok(Word(vec![Piece::Text { text: n.to_string(), quoted: true }])),
                ast::IoFileRedirectTarget::Duplicate(w) => parse_word(&text(w), depth),
                ast::IoFileRedirectTarget::ProcessSubstitution(..) => {
                    Err(Unsupported("process substitution `<( )`".into()))
                }
            };
            match kind {
                ast::IoFileRedirectKind::Read => {
                    Ok(Redirect::Input { fd: fd.unwrap_or(0), target: target_word(target)? })
                }
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
            Ok(Redirect::Output { fds: vec![1, 2], target: parse_word(&text(target), depth)? })
        }
        ast::IoRedirect::HereDocument(fd, doc) => {
            let text = if doc.requires_expansion {
                here_document(&doc.doc.value, depth)?
            } else {
                Word(vec![Piece::Text { text: doc.doc.value.clone(), quoted: true }])
            };
            Ok(Redirect::Here { fd: fd.unwrap_or(0), text, newline: false })
        }
        ast::IoRedirect::HereString(fd, w) => {
            Ok(Redirect::Here { fd: fd.unwrap_or(0), text: parse_word(&text(w), depth)?, newline: true })
        }
    }
}

#[cfg(test)]
mod tests;
