//! How `reviewhost` exits: one meaning per code, for every subcommand.

use std::process::ExitCode;

/// What a subcommand's exit code says. CI jobs and scripts branch on these, so each
/// subcommand maps its result onto the same three meanings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// 0: everything holds (every assertion passed, no finding, the file is valid, the
    /// review converged).
    Clean,
    /// 1: the run was done and found something (a failing assertion, a lint finding, a
    /// fixture case not as expected, a review that stopped with failures).
    Findings,
    /// 2: the run could not be done (a bad file or flag, an unreadable root, an aborted
    /// review pass); nothing was decided.
    CouldNotRun,
    /// 2 for an agent's hook (`--format claude-hook`): failures block the agent, which is
    /// what exit status 2 means to Claude Code.
    BlockAgent,
    /// A loop's end state with a status of its own (`reviewhost plan`: 3 retries
    /// exhausted, 4 call limit reached, 130 cancelled), never 0 to 2.
    Ended(u8),
}

impl Exit {
    /// [`Exit::Clean`] when `clean`, else [`Exit::Findings`].
    pub fn clean_if(clean: bool) -> Exit {
        if clean { Exit::Clean } else { Exit::Findings }
    }
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> ExitCode {
        match exit {
            Exit::Clean => ExitCode::SUCCESS,
            Exit::Findings => ExitCode::from(1),
            Exit::CouldNotRun => ExitCode::from(2),
            Exit::BlockAgent => ExitCode::from(2),
            Exit::Ended(code) => ExitCode::from(code),
        }
    }
}
