//! The parse gate: an agent's answer is parsed before anything in it is used. An
//! unusable answer is re-asked with the exact reason the parser gave, a bounded number
//! of times, and then the call fails closed ([`AbortCause::Unusable`]): nothing from an
//! unusable answer is ever used.
//!
//! The gate knows nothing of what it checks: the parser is the caller's (seed 000's
//! `## Assertions` block is parsed by the convergence loop's `collect`; an output
//! contract is [`super::contract::judge`]). Each failed attempt is a `parse_gate` event
//! with the reason. A parser that cannot judge at all ([`Rejection::Stop`]) ends the
//! call at once.

use super::agent::Agents;
use super::definitions::Definition;
use super::error::AbortCause;
use super::event::Event;
use super::prompt::Prompt;

/// What an answer must hold, and how the agent is asked again.
#[derive(Debug, Clone, Copy)]
pub struct Gate {
    /// What a usable answer holds, as the abort names it ("`## Assertions` block").
    pub wants: &'static str,
    /// Said to the agent after the reason when it is asked again: what to answer with.
    pub again: &'static str,
    /// Times an unusable answer is asked again before the gate fails (seed 000: once).
    pub retries: u32,
}

/// Why the parser did not accept an answer.
#[derive(Debug)]
pub enum Rejection {
    /// The answer is unusable for this reason, told to the agent when it is asked again.
    Again(String),
    /// The answer could not be judged: the call fails with this cause, never re-asked.
    Stop(AbortCause),
}

impl From<String> for Rejection {
    fn from(reason: String) -> Rejection {
        Rejection::Again(reason)
    }
}

/// A usable answer: its text and what the parser made of it.
#[derive(Debug, Clone)]
pub struct Passed<T> {
    pub text: String,
    pub value: T,
}

impl Gate {
    /// Asks agent `d` with `prompt` until `parse` (given the answer and the attempt,
    /// from 1) accepts its answer, re-asking up to [`Gate::retries`] times with the
    /// first prompt and the reason the last answer could not be used.
    pub fn ask<T, E: Into<Rejection>>(
        &self,
        agents: &Agents<'_>,
        d: &Definition,
        pass: u32,
        prompt: Prompt,
        mut parse: impl FnMut(&str, u32) -> Result<T, E>,
    ) -> Result<Passed<T>, AbortCause> {
        let first = prompt.finish(&d.name, agents.budget)?;
        let mut text = first.clone();
        let mut attempt = 1;
        loop {
            let answer = agents.call(d, pass, &text)?;
            let reason = match parse(&answer, attempt).map_err(Into::into) {
                Ok(value) => return Ok(Passed { text: answer, value }),
                Err(Rejection::Again(reason)) => reason,
                Err(Rejection::Stop(cause)) => return Err(cause),
            };
            let event = Event::ParseGate { pass, agent: &d.name, attempt, error: &reason };
            if attempt > self.retries {
                // The pass is aborted either way: the abort, not this event, is what counts.
                let _ = agents.workspace.event(&event);
                return Err(AbortCause::Unusable {
                    agent: d.name.clone(),
                    wants: self.wants,
                    attempts: attempt,
                    reason,
                });
            }
            agents.workspace.event(&event)?;
            let mut again = Prompt::new();
            again.say(&first);
            again.say(&format!("Your previous answer could not be used: {reason}\n{}", self.again));
            text = again.finish(&d.name, agents.budget)?;
            attempt += 1;
        }
    }
}
