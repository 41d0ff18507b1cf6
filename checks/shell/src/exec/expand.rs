//! Expansion: parameters (`$X`, `${X:-d}`, `$@`, ...), command substitution, arithmetic,
//! field splitting by `IFS`, globbing and quote removal, as bash does them.

use super::{Flow, Input, PROCESS_ID, Shell, Trouble};
use crate::parse::{Expansion, Parameter, ParameterOp, Piece, Script, Word, literal};
use crate::vars;

impl Shell {
    /// Expands and evaluates an arithmetic word. The outer error is a failed expansion;
    /// the inner one an arithmetic error, already reported as `context` (`((`, `let`).
    #[inline(never)]
    pub(super) fn arithmetic(
        &mut self,
        word: &Word,
        context: &str,
        err: &mut Vec<u8>,
    ) -> Result<Result<i64, ()>, Flow> {
        let text = self.expand_text(word, err)?;
        Ok(self.arithmetic_text(&text, context, err))
    }

    pub(super) fn arithmetic_text(&mut self, text: &str, context: &str, err: &mut Vec<u8>) -> Result<i64, ()> {
        let nounset = self.state.options.nounset;
        crate::arith::evaluate(text, &mut self.state.vars, nounset).map_err(|message| {
            let prefix = if context.is_empty() { String::new() } else { format!("{context}: ") };
            let message = format!("{prefix}{}: {message}", text.trim());
            // What the shell lacks (an array element) is a refusal, by the one rule that
            // tells refusals from errors; bash's own errors (division by 0) are not.
            match super::trouble::failure("bash", 1, &message) {
                refusal @ Trouble::Refused(_) => {
                    err.extend_from_slice(format!("reviewhost: {message}\n").as_bytes());
                    self.record(refusal);
                }
                _ => self.error(err, &message),
            }
        })
    }

    /// `IFS`, or its default when unset.
    pub(super) fn ifs(&self) -> String {
        self.state.vars.get("IFS").unwrap_or(" \t\n").to_string()
    }

    /// Expands a command's words. After `export`, `local`, `declare`, `readonly`,
    /// `typeset` a word that looks like an assignment is one, so it is not split.
    #[inline(never)]
    pub(super) fn expand_command(&mut self, words: &[Word], err: &mut Vec<u8>) -> Result<Vec<String>, Flow> {
        let declaration = words
            .first()
            .and_then(literal)
            .is_some_and(|w| matches!(w.as_str(), "export" | "local" | "readonly" | "declare" | "typeset"));
        let mut argv = Vec::new();
        for (i, word) in words.iter().enumerate() {
            if declaration && i > 0 && is_assignment(word) {
                argv.push(self.expand_text(word, err)?);
            } else {
                self.expand_into(word, &mut argv, err)?;
            }
        }
        Ok(argv)
    }

    /// Expands a redirection target: one field, no splitting.
    pub(super) fn expand_one(&mut self, word: &Word, err: &mut Vec<u8>) -> Result<String, Flow> {
        Ok(self.fields(word, true, err)?.into_iter().map(|f| f.text()).collect::<Vec<_>>().join(" "))
    }

    /// Expands words into arguments: substitutions, field splitting, globs, quote removal.
    pub(super) fn expand(&mut self, words: &[Word], err: &mut Vec<u8>) -> Result<Vec<String>, Flow> {
        let mut argv = Vec::new();
        for word in words {
            self.expand_into(word, &mut argv, err)?;
        }
        Ok(argv)
    }

    fn expand_into(&mut self, word: &Word, argv: &mut Vec<String>, err: &mut Vec<u8>) -> Result<(), Flow> {
        for field in self.fields(word, true, err)? {
            if !self.state.options.noglob && field.has_glob() {
                let matches = crate::glob::expand(&self.ctx, &field.segments);
                if !matches.is_empty() {
                    argv.extend(matches);
                    continue;
                }
            }
            argv.push(field.text());
        }
        Ok(())
    }

    /// One string, neither split nor globbed (assignments, `case`, `[[ ]]`,
    /// here-documents).
    pub(super) fn expand_text(&mut self, word: &Word, err: &mut Vec<u8>) -> Result<String, Flow> {
        Ok(self.fields(word, false, err)?.iter().map(Field::text).collect())
    }

    /// A shell pattern: quoted parts match literally.
    pub(super) fn expand_pattern(&mut self, word: &Word, err: &mut Vec<u8>) -> Result<String, Flow> {
        let fields = self.fields(word, false, err)?;
        let segments = fields.iter().flat_map(|f| f.segments.iter());
        Ok(segments.map(|(text, quoted)| if *quoted { vars::escape_pattern(text) } else { text.clone() }).collect())
    }

    /// The right side of `=~`: quoted parts match literally.
    pub(super) fn expand_regex(&mut self, word: &Word, err: &mut Vec<u8>) -> Result<String, Flow> {
        let fields = self.fields(word, false, err)?;
        let segments = fields.iter().flat_map(|f| f.segments.iter());
        Ok(segments.map(|(text, quoted)| if *quoted { vars::escape_regex(text) } else { text.clone() }).collect())
    }

    /// The fields of a word; `split`: unquoted expansions are split by `IFS` (not in
    /// assignments and the other one-string places).
    fn fields(&mut self, word: &Word, split: bool, err: &mut Vec<u8>) -> Result<Vec<Field>, Flow> {
        let mut fields = vec![Field::default()];
        self.pieces(&word.0, split, &mut fields, err)?;
        fields.retain(|f| !f.is_empty());
        Ok(fields)
    }

    fn pieces(
        &mut self,
        pieces: &[Piece],
        split: bool,
        fields: &mut Vec<Field>,
        err: &mut Vec<u8>,
    ) -> Result<(), Flow> {
        for piece in pieces {
            match piece {
                Piece::Text { text, quoted } => last(fields).push(text, *quoted),
                Piece::Parameter { expansion, quoted } => self.parameter(expansion, *quoted, split, fields, err)?,
                Piece::Substitution { script, quoted } => {
                    let text = self.substitute(script, err);
                    self.push_value(&text, *quoted, split, fields);
                }
                Piece::Arithmetic { expression, quoted } => match self.arithmetic(expression, "", err)? {
                    Ok(n) => self.push_value(&n.to_string(), *quoted, split, fields),
                    // An arithmetic error in an expansion ends the (sub)shell, as in bash.
                    Err(()) => return Err(Flow::Exit(1)),
                },
                Piece::Fail { message, discard } => {
                    if !*discard && self.state.options.errexit {
                        // bash ends the script for some of these under `set -e` and not
                        // for others (`for - in`): not told apart here.
                        return Err(Flow::Exit(self.refuse_status(err, format!("{message}, under `set -e`"))));
                    }
                    self.error(err, message);
                    if *discard {
                        self.discarding = true;
                        return Err(Flow::Exit(1));
                    }
                    return Err(Flow::Next(1));
                }
            }
        }
        Ok(())
    }

    /// `$(script)`: its stdout without the final newlines.
    #[inline(never)]
    fn substitute(&mut self, script: &Script, err: &mut Vec<u8>) -> String {
        let mut captured = Vec::new();
        let to_final = std::mem::replace(&mut self.to_final, false);
        let status = self.subshell(|shell| {
            // Command substitutions do not inherit `set -e` (bash without
            // `inherit_errexit`).
            shell.state.options.errexit = false;
            shell.script(script, &Input::new(&[]), &mut captured, err).status()
        });
        self.to_final = to_final;
        // `$?` is the substitution's status from here on, success or not, as in bash.
        self.last_status = status;
        self.substitution_status = Some(status);
        let text = String::from_utf8_lossy(&captured);
        text.trim_end_matches('\n').to_string()
    }

    /// Adds an expansion's value to the fields: quoted, or in a one-string place, as it
    /// is; otherwise split by `IFS`, the parts glob-active.
    fn push_value(&self, text: &str, quoted: bool, split: bool, fields: &mut Vec<Field>) {
        let ifs = self.ifs();
        if quoted || !split || ifs.is_empty() {
            last(fields).push(text, quoted);
            return;
        }
        let parts = vars::split(text, &ifs, None);
        if parts.leading && !last(fields).is_empty() {
            fields.push(Field::default());
        }
        for (i, part) in parts.fields.iter().enumerate() {
            if i > 0 {
                fields.push(Field::default());
            }
            let field = last(fields);
            field.push(part, false);
            // `a::b` with `IFS=:` has an empty field in the middle.
            field.present |= part.is_empty();
        }
        if parts.trailing {
            fields.push(Field::default());
        }
    }

    /// `$@` and `$*` (and a slice of them, `${@:2}`): `"$@"` is one field per parameter.
    /// Unquoted, they are joined by the first character of `IFS` and split again, so an
    /// empty parameter between others stays a field when that character is not a blank
    /// (bash: `IFS=:; set -- a "" b; echo $@` has three fields).
    fn push_all(&self, items: &[String], joined: bool, quoted: bool, split: bool, fields: &mut Vec<Field>) {
        let ifs = self.ifs();
        if !split || (quoted && joined) {
            let separator = if joined { ifs.chars().next().map(String::from).unwrap_or_default() } else { " ".into() };
            last(fields).push(&items.join(&separator), quoted);
        } else if !quoted && let Some(first) = ifs.chars().next() {
            self.push_value(&items.join(first.encode_utf8(&mut [0; 4])), false, split, fields);
        } else {
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    fields.push(Field::default());
                }
                self.push_value(item, quoted, split, fields);
            }
        }
    }

    /// The value of a parameter; `None` when unset.
    fn value(&self, parameter: &Parameter) -> Option<String> {
        let vars = &self.state.vars;
        match parameter {
            Parameter::Named(name) => {
                vars.get(name).map(str::to_string).or_else(|| (name == "PWD").then(|| self.ctx.cwd.clone()))
            }
            Parameter::Positional(0) => Some(vars.arg0.clone()),
            Parameter::Positional(n) => vars.positional.get(*n as usize - 1).cloned(),
            Parameter::Status => Some(self.last_status.to_string()),
            Parameter::Count => Some(vars.positional.len().to_string()),
            Parameter::All { .. } if vars.positional.is_empty() => None,
            Parameter::All { .. } => Some(vars.positional.join(" ")),
            Parameter::ProcessId => Some(PROCESS_ID.into()),
            Parameter::Options => Some(self.state.options.flags()),
        }
    }

    /// The value of a parameter that must be set: with `set -u`, an unset one ends the
    /// (sub)shell. The environment starts empty here, so that is trouble: the same script
    /// may run on a machine that has `$HOME`. (bash's status then also depends on how it
    /// was started, 127 for `bash -c` and 1 in a subshell, and on `set -e`: the refusal
    /// spares the sandbox from guessing.)
    fn required(&mut self, parameter: &Parameter, err: &mut Vec<u8>) -> Result<String, Flow> {
        match self.value(parameter) {
            Some(value) => Ok(value),
            None if self.state.options.nounset && !matches!(parameter, Parameter::All { .. }) => {
                let name = parameter_name(parameter);
                self.error(err, &format!("{name}: unbound variable"));
                self.record(Trouble::Refused(format!(
                    "{name}: unbound variable (`set -u`; the reviewhost sandbox starts with no environment variables)"
                )));
                Err(Flow::Exit(1))
            }
            None => Ok(String::new()),
        }
    }

    #[inline(never)]
    fn parameter(
        &mut self,
        e: &Expansion,
        quoted: bool,
        split: bool,
        fields: &mut Vec<Field>,
        err: &mut Vec<u8>,
    ) -> Result<(), Flow> {
        if let Parameter::All { joined } = e.parameter {
            match &e.op {
                ParameterOp::Value => {
                    let items = self.state.vars.positional.clone();
                    self.push_all(&items, joined, quoted, split, fields);
                    return Ok(());
                }
                ParameterOp::Substring { offset, length } => {
                    let mut items = vec![self.state.vars.arg0.clone()];
                    items.extend(self.state.vars.positional.iter().cloned());
                    let range = self.slice(items.len(), offset, length.as_ref(), err)?;
                    self.push_all(&items[range], joined, quoted, split, fields);
                    return Ok(());
                }
                ParameterOp::Length => {
                    let count = self.state.vars.positional.len().to_string();
                    self.push_value(&count, quoted, split, fields);
                    return Ok(());
                }
                _ => return self.all_parameters(e, joined, quoted, split, fields, err),
            }
        }
        let value = self.value(&e.parameter);
        let absent = |colon: bool| value.as_deref().is_none_or(|v| colon && v.is_empty());
        let text = match &e.op {
            ParameterOp::Value => self.required(&e.parameter, err)?,
            ParameterOp::Length => self.required(&e.parameter, err)?.chars().count().to_string(),
            ParameterOp::Default { word, colon } if absent(*colon) => return self.operand(word, split, fields, err),
            ParameterOp::Alternative { word, colon } if !absent(*colon) => {
                return self.operand(word, split, fields, err);
            }
            ParameterOp::Alternative { .. } => String::new(),
            ParameterOp::Assign { word, colon } if absent(*colon) => {
                let value = self.expand_text(word, err)?;
                let Parameter::Named(name) = &e.parameter else {
                    self.error(err, &format!("{}: cannot assign in this way", parameter_name(&e.parameter)));
                    return Err(Flow::Exit(1));
                };
                if let Err(message) = self.state.vars.set(name, &value) {
                    self.error(err, &message);
                    return Err(Flow::Exit(1));
                }
                value
            }
            ParameterOp::Error { word, colon } if absent(*colon) => {
                return Err(self.null_or_unset(&e.parameter, word.as_ref(), err));
            }
            ParameterOp::Default { .. } | ParameterOp::Assign { .. } | ParameterOp::Error { .. } => {
                value.unwrap_or_default()
            }
            ParameterOp::RemovePrefix { pattern, longest } => {
                let value = self.required(&e.parameter, err)?;
                let pattern = self.expand_pattern(pattern, err)?;
                vars::remove_prefix(&value, &pattern, *longest).to_string()
            }
            ParameterOp::RemoveSuffix { pattern, longest } => {
                let value = self.required(&e.parameter, err)?;
                let pattern = self.expand_pattern(pattern, err)?;
                vars::remove_suffix(&value, &pattern, *longest).to_string()
            }
            ParameterOp::Replace { pattern, replacement, kind } => {
                let value = self.required(&e.parameter, err)?;
                let pattern = self.expand_pattern(pattern, err)?;
                let replacement = self.expand_text(replacement, err)?;
                vars::replace(&value, &pattern, &replacement, *kind)
            }
            ParameterOp::Substring { offset, length } => {
                let chars: Vec<char> = self.required(&e.parameter, err)?.chars().collect();
                let range = self.slice(chars.len(), offset, length.as_ref(), err)?;
                chars[range].iter().collect()
            }
            ParameterOp::Case { upper, all } => convert_case(&self.required(&e.parameter, err)?, *upper, *all),
        };
        self.push_value(&text, quoted, split, fields);
        Ok(())
    }

    /// `$@` and `$*` with an operator. A pattern or case operator applies to each
    /// parameter. For `-`, `+`, `=` and `?` the parameters are null when joined they are
    /// empty: joined by the first character of `IFS` in `"${*…}"`, by spaces everywhere
    /// else (bash: with `set -- "" ""` and `IFS=`, `"${*:-x}"` is `x`, `${*:-x}` nothing).
    fn all_parameters(
        &mut self,
        e: &Expansion,
        joined: bool,
        quoted: bool,
        split: bool,
        fields: &mut Vec<Field>,
        err: &mut Vec<u8>,
    ) -> Result<(), Flow> {
        let mut items = self.state.vars.positional.clone();
        let separator = if quoted && joined { self.ifs().chars().next().map(String::from) } else { Some(" ".into()) };
        let null = items.join(separator.as_deref().unwrap_or(""));
        let absent = |colon: bool| items.is_empty() || (colon && null.is_empty());
        match &e.op {
            ParameterOp::Default { word, colon } | ParameterOp::Assign { word, colon } if absent(*colon) => {
                if matches!(e.op, ParameterOp::Assign { .. }) {
                    self.error(err, &format!("{}: cannot assign in this way", parameter_name(&e.parameter)));
                    return Err(Flow::Exit(1));
                }
                return self.operand(word, split, fields, err);
            }
            ParameterOp::Alternative { word, colon } if !absent(*colon) => {
                return self.operand(word, split, fields, err);
            }
            ParameterOp::Alternative { .. } => {
                self.push_value("", quoted, split, fields);
                return Ok(());
            }
            ParameterOp::Error { word, colon } if absent(*colon) => {
                return Err(self.null_or_unset(&e.parameter, word.as_ref(), err));
            }
            ParameterOp::RemovePrefix { pattern, longest } => {
                let pattern = self.expand_pattern(pattern, err)?;
                items = items.iter().map(|v| vars::remove_prefix(v, &pattern, *longest).to_string()).collect();
            }
            ParameterOp::RemoveSuffix { pattern, longest } => {
                let pattern = self.expand_pattern(pattern, err)?;
                items = items.iter().map(|v| vars::remove_suffix(v, &pattern, *longest).to_string()).collect();
            }
            ParameterOp::Replace { pattern, replacement, kind } => {
                let pattern = self.expand_pattern(pattern, err)?;
                let replacement = self.expand_text(replacement, err)?;
                items = items.iter().map(|v| vars::replace(v, &pattern, &replacement, *kind)).collect();
            }
            ParameterOp::Case { upper, all } => {
                items = items.iter().map(|v| convert_case(v, *upper, *all)).collect();
            }
            _ => {}
        }
        self.push_all(&items, joined, quoted, split, fields);
        Ok(())
    }

    /// `${X?word}` on a null or unset `X`: bash's message (the word, or "parameter null
    /// or not set"), and the (sub)shell ends.
    fn null_or_unset(&mut self, parameter: &Parameter, word: Option<&Word>, err: &mut Vec<u8>) -> Flow {
        let message = match word {
            Some(word) => match self.expand_text(word, err) {
                Ok(text) => text,
                Err(flow) => return flow,
            },
            None => "parameter null or not set".into(),
        };
        self.error(err, &format!("{}: {message}", parameter_name(parameter)));
        Flow::Exit(1)
    }

    /// The word of `${X:-word}` or `${X:+word}` in place of the value: its unquoted text
    /// is split and globbed like the value would be.
    fn operand(&mut self, word: &Word, split: bool, fields: &mut Vec<Field>, err: &mut Vec<u8>) -> Result<(), Flow> {
        for piece in &word.0 {
            match piece {
                Piece::Text { text, quoted: false } => self.push_value(text, false, split, fields),
                piece => self.pieces(std::slice::from_ref(piece), split, fields, err)?,
            }
        }
        Ok(())
    }

    /// The range `${X:offset:length}` selects of `len` items: a negative offset counts
    /// from the end, a negative length stops that far before the end.
    fn slice(
        &mut self,
        len: usize,
        offset: &Word,
        length: Option<&Word>,
        err: &mut Vec<u8>,
    ) -> Result<std::ops::Range<usize>, Flow> {
        let mut number = |shell: &mut Shell, word: &Word| match shell.arithmetic(word, "", err)? {
            Ok(n) => Ok(n),
            Err(()) => Err(Flow::Exit(1)),
        };
        let n = len as i64;
        let offset = number(self, offset)?;
        let start = if offset < 0 { n + offset } else { offset };
        if start < 0 || start > n {
            return Ok(0..0);
        }
        let end = match length {
            None => n,
            Some(word) => match number(self, word)? {
                l if l < 0 => n + l,
                l => start.saturating_add(l).min(n),
            },
        };
        Ok(start as usize..end.max(start) as usize)
    }
}

/// `${X^}`, `${X^^}`, `${X,}`, `${X,,}`: the first character or all of `value` in
/// upper or lower case.
fn convert_case(value: &str, upper: bool, all: bool) -> String {
    let convert = |s: &str| if upper { s.to_uppercase() } else { s.to_lowercase() };
    match (all, value.chars().next()) {
        (true, _) => convert(value),
        (false, Some(first)) => format!("{}{}", convert(&first.to_string()), &value[first.len_utf8()..]),
        (false, None) => String::new(),
    }
}

/// The name bash prints for a parameter in an error.
fn parameter_name(parameter: &Parameter) -> String {
    match parameter {
        Parameter::Named(name) => name.clone(),
        Parameter::Positional(n) => n.to_string(),
        Parameter::Status => "?".into(),
        Parameter::Count => "#".into(),
        Parameter::All { joined: false } => "@".into(),
        Parameter::All { joined: true } => "*".into(),
        Parameter::ProcessId => "$".into(),
        Parameter::Options => "-".into(),
    }
}

/// Whether `word` is written `NAME=...` or `NAME+=...` (an argument of `export`).
fn is_assignment(word: &Word) -> bool {
    match word.0.first() {
        Some(Piece::Text { text, quoted: false }) => {
            text.split_once('=').is_some_and(|(name, _)| vars::is_name(name.strip_suffix('+').unwrap_or(name)))
        }
        _ => false,
    }
}

fn last(fields: &mut [Field]) -> &mut Field {
    fields.last_mut().expect("never empty")
}

/// One field being built: text segments, each quoted (literal) or not (glob-active).
#[derive(Debug, Default, Clone)]
struct Field {
    segments: Vec<(String, bool)>,
    /// The field exists even if empty: it has a quoted piece (`""`), or it is an empty
    /// field between two `IFS` delimiters.
    present: bool,
}

impl Field {
    fn push(&mut self, text: &str, quoted: bool) {
        self.present |= quoted;
        self.segments.push((text.to_string(), quoted));
    }

    fn is_empty(&self) -> bool {
        !self.present && self.segments.iter().all(|(t, _)| t.is_empty())
    }

    fn has_glob(&self) -> bool {
        self.segments.iter().any(|(t, quoted)| !quoted && t.contains(['*', '?', '[']))
    }

    fn text(&self) -> String {
        self.segments.iter().map(|(t, _)| t.as_str()).collect()
    }
}
