//! Addresses and ranges, matched as GNU sed's `match_address_p` does: a numbered first
//! address starts its range on any line at or past it (a branch may skip it), a numbered
//! second address at or before the start line makes a one-line range, `addr,+N` and
//! `addr,~N` compute their end when the range starts, `0,/re/` is open before line 1.

use std::rc::Rc;

use super::pattern::Pattern;

/// One address.
#[derive(Debug, Clone)]
pub(super) enum Addr {
    /// Line N (0 only as the start of `0,/re/`).
    Line(u64),
    /// `first~step`.
    Step { first: u64, step: u64 },
    /// `$`.
    Last,
    /// `/re/`; `None` is the empty regex, the last one used.
    Regex(Option<Rc<Pattern>>),
    /// `+N` (second address only).
    Plus(u64),
    /// `~N` (second address only).
    MultipleOf(u64),
}

/// A range's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) enum RangeState {
    #[default]
    Inactive,
    Active,
    Closed,
}

/// What matching an address needs from the running program.
pub(super) trait Env {
    fn line_number(&self) -> u64;
    /// Whether the current line is the last (`$`); may open the next input files.
    fn is_last(&mut self) -> bool;
    /// Whether the pattern space matches (the empty regex: the last one used).
    fn regex_matches(&mut self, regex: &Option<Rc<Pattern>>) -> Result<bool, String>;
}

/// A command's addresses and its range state.
#[derive(Debug, Clone, Default)]
pub(super) struct Selector {
    pub a1: Option<Addr>,
    pub a2: Option<Addr>,
    pub state: RangeState,
    /// Where an `addr,+N` or `addr,~N` range ends, computed when it starts.
    pub end: u64,
}

impl Selector {
    /// The state before the first line of input (or of each file with `-s`).
    pub(super) fn reset(&mut self) {
        self.state = match self.a1 {
            Some(Addr::Line(0)) => RangeState::Active,
            _ => RangeState::Inactive,
        };
    }

    /// Whether the current line is selected (before `!`).
    pub(super) fn matches(&mut self, env: &mut dyn Env) -> Result<bool, String> {
        let Some(a1) = &self.a1 else { return Ok(true) };
        let line = env.line_number();
        if self.state != RangeState::Active {
            let Some(a2) = &self.a2 else { return single(a1, env) };
            if let Addr::Line(n) = a1 {
                if self.state == RangeState::Closed || line < *n {
                    return Ok(false);
                }
            } else if !single(a1, env)? {
                return Ok(false);
            }
            self.state = RangeState::Active;
            match a2 {
                Addr::Regex(_) => return Ok(true),
                Addr::Line(n) => {
                    let n = *n;
                    if line >= n {
                        self.state = RangeState::Closed;
                    }
                    // A one-line range when the end is at or before the start.
                    return Ok(line <= n || single(a1, env)?);
                }
                Addr::Plus(0) | Addr::MultipleOf(0) => {
                    self.state = RangeState::Closed;
                    return Ok(true);
                }
                Addr::Plus(n) => {
                    self.end = line + n;
                    return Ok(true);
                }
                Addr::MultipleOf(n) => {
                    self.end = line + n - line % n;
                    return Ok(true);
                }
                Addr::Last | Addr::Step { .. } => {}
            }
        }
        let a2 = self.a2.as_ref().expect("an active range has a second address");
        match a2 {
            Addr::Line(n) => {
                let n = *n;
                if line >= n {
                    self.state = RangeState::Closed;
                }
                Ok(line <= n)
            }
            Addr::Plus(_) | Addr::MultipleOf(_) => {
                if self.end <= line {
                    self.state = RangeState::Closed;
                }
                Ok(true)
            }
            other => {
                if single(other, env)? {
                    self.state = RangeState::Closed;
                }
                Ok(true)
            }
        }
    }
}

/// Whether one address matches the current line.
fn single(addr: &Addr, env: &mut dyn Env) -> Result<bool, String> {
    let line = env.line_number();
    Ok(match addr {
        Addr::Line(n) => *n == line,
        Addr::Step { first, step } => line >= *first && (line - first).is_multiple_of(*step),
        Addr::Last => env.is_last(),
        Addr::Regex(regex) => env.regex_matches(regex)?,
        Addr::Plus(_) | Addr::MultipleOf(_) => true,
    })
}
