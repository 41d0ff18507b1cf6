//! The interpreter: runs a parsed [`Script`] over in-memory streams.
//!
//! Semantics follow bash for the subset [`crate::parse`] accepts: `$?` after every
//! pipeline, `&&`/`||` left to right, `!` negation, a pipeline's status is its last
//! command's (the rightmost failure with `set -o pipefail`), each stage of a
//! multi-command pipeline, every `( )` and every `$(...)` runs with its own copy of the
//! current directory and variables, `exit` ends the innermost subshell or the script.
//! Pipelines are buffered: a stage runs to completion before the next starts.
//!
//! Variables, functions, loops, `case`, `[[ ]]`, arithmetic, here-documents, `set -e`/
//! `-u`/`-x`/`-o pipefail`, `read`, `eval`, `source` and nested shells (`bash -c`,
//! `sh FILE`, a `#!/bin/sh` script run by its path) are the shell's own: a nested shell
//! is this interpreter again, with its own variables, never a host shell. The
//! environment starts empty ([`crate::vars`]).
//!
//! What it records beyond bash is [`Trouble`]: a program that does not exist here, a
//! program that failed with an error (grep's status 2; any other program's non-zero
//! status with a message on stderr), a refused write, a construct refused at run time,
//! a script stopped at a limit. The judge uses it so that a check that could not run is
//! an `error`, never a vacuous pass, even when the analyst wrote `2>/dev/null`.

use std::cell::Cell;
use std::collections::HashMap;
use std::rc::Rc;

use reviewhost_tool::{Ctx, Io, NO_LIMIT, Program};

use crate::parse::{AndOr, Assignment, Command, Compound, Op, Pipeline, Script, Unsupported, Word};
use crate::vars::{self, Vars};

mod builtins;
mod compound;
mod expand;
mod read;
mod redirect;
mod trouble;

use redirect::{Dest, read_input};
pub use trouble::Trouble;
use trouble::failure;

/// Finds a program by name.
pub type Lookup = fn(&str) -> Option<Program>;

/// A program the operator granted, run by the host outside the sandbox (the
/// `programs` import of `wit/`): its name, arguments, the context and streams as a
/// sandboxed program gets them → its exit status, or why it could not be run.
pub type HostProgram = fn(name: &str, args: &[String], ctx: &Ctx, io: &mut Io) -> Result<i32, String>;

/// Status of a program the sandbox does not have, as in a shell.
pub const NOT_FOUND: i32 = 127;

/// Most loop iterations and function calls one run makes. The host's deadline stops any
/// script eventually; this stops a runaway loop with a message that says why.
pub const MAX_STEPS: u64 = 1_000_000;

/// Deepest nesting of commands running inside one another (a function's body inside
/// its call, a loop's body inside the loop, `$(...)` inside its command) at which a
/// function call, `source`, `eval` or nested shell is still made. The interpreter
/// recurses, about 1 KiB of the component's 1 MiB stack a level (measured in the
/// component: `f() { case x in x) [[ -n $(f) ]];; esac; }`, three commands a call,
/// exhausted it after 330 calls), and the programs at the end of the chain (a regex
/// compilation) need their share. A deeper recursion is stopped with a message rather
/// than a crash.
pub const MAX_NESTED_COMMANDS: usize = 400;

/// Stack the interpreter may use below where [`run`] started before it refuses a call:
/// natively (a debug build's frames are several times larger) the bound that holds
/// first; in the component it measures only the stack in linear memory, and
/// [`MAX_NESTED_COMMANDS`] holds first.
const STACK_BUDGET: usize = 512 * 1024;

/// Most different [`Trouble`]s recorded (besides the first of each kind).
const MAX_TROUBLE: usize = 100;

/// Status of a script the interpreter stopped at a limit.
const STOPPED: i32 = 2;

/// `$$`: there is no process; a fixed number keeps `tmp.$$` names well formed.
const PROCESS_ID: &str = "1000";

/// The result of running a whole command string.
#[derive(Debug, Default)]
pub struct Run {
    pub status: i32,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub trouble: Vec<Trouble>,
    /// Every program invoked, by name, once, in the order of its first call (for
    /// diagnostics).
    pub programs: Vec<String>,
    /// The file whose lines are the script's stdout, when exactly one command wrote to it
    /// and that command printed one file's lines without naming it ([`Io::unnamed_file`]).
    pub unnamed_file: Option<String>,
}

/// Runs `script` with `ctx` as the filesystem view and `lookup` for programs.
/// `stdout_limit` is how much of the script's stdout the caller reads
/// ([`Io::stdout_limit`]); programs whose output goes straight there get it.
pub fn run(script: &Script, ctx: Ctx, lookup: Lookup, stdout_limit: usize) -> Run {
    run_limited(script, ctx, lookup, None, stdout_limit, MAX_STEPS)
}

/// [`run`] where a program the sandbox does not have is asked of `host` (granted host
/// programs) before it is reported unavailable.
pub fn run_with_host(script: &Script, ctx: Ctx, lookup: Lookup, host: HostProgram, stdout_limit: usize) -> Run {
    run_limited(script, ctx, lookup, Some(host), stdout_limit, MAX_STEPS)
}

/// [`run`] with `max_steps` instead of [`MAX_STEPS`]: a test of the limit need not
/// loop a million times, and a fuzzer spends its time on new paths, not on one loop.
pub fn run_limited(
    script: &Script,
    ctx: Ctx,
    lookup: Lookup,
    host: Option<HostProgram>,
    stdout_limit: usize,
    max_steps: u64,
) -> Run {
    let mut shell = Shell {
        ctx,
        lookup,
        host,
        last_status: 0,
        trouble: Vec::new(),
        programs: Vec::new(),
        stdout_limit,
        to_final: true,
        unnamed_file: None,
        final_writers: Vec::new(),
        state: State { options: Options { invocation: Some('c'), ..Options::default() }, ..State::default() },
        loops: 0,
        returnable: 0,
        depth: 0,
        nesting: 0,
        steps: 0,
        conditions: 0,
        substitution_status: None,
        stopped: false,
        discarding: false,
        inputs: Vec::new(),
        stack_base: stack_position(),
        max_steps,
    };
    let mut stdout = Vec::new();
    let mut stderr = Vec::new();
    let status = shell.script(script, &Input::new(&[]), &mut stdout, &mut stderr).status();
    let status = if shell.stopped { STOPPED } else { status };
    let unnamed_file = match shell.final_writers.as_mut_slice() {
        [only] => only.take(),
        _ => None,
    };
    Run { status, stdout, stderr, trouble: shell.trouble, programs: shell.programs, unnamed_file }
}

/// Appends `bytes` to `to`, moving rather than copying when `to` is still empty (the
/// usual case: one command's output, which may be tens of megabytes).
fn append(to: &mut Vec<u8>, bytes: Vec<u8>) {
    if to.is_empty() {
        *to = bytes;
    } else {
        to.extend_from_slice(&bytes);
    }
}

/// Whether execution continues after a command, or how it unwinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flow {
    Next(i32),
    Exit(i32),
    /// `return` from a function or a sourced file.
    Return(i32),
    /// `break N` / `continue N`: loops left to unwind.
    Break(u32),
    Continue(u32),
}

impl Flow {
    fn status(self) -> i32 {
        match self {
            Flow::Next(s) | Flow::Exit(s) | Flow::Return(s) => s,
            Flow::Break(_) | Flow::Continue(_) => 0,
        }
    }
}

/// A command's stdin: the bytes, and how many of them `read` has taken. Programs see the
/// rest without taking it: a program here is a function over its whole input, and
/// whether the real tool would have read it all is unknown. So `while read -r f; do grep
/// -q x "$f"; done < list` goes through the list line by line, as in bash.
struct Input<'a> {
    data: &'a [u8],
    taken: Cell<usize>,
}

impl<'a> Input<'a> {
    fn new(data: &'a [u8]) -> Input<'a> {
        Input { data, taken: Cell::new(0) }
    }

    fn rest(&self) -> &'a [u8] {
        &self.data[self.taken.get()..]
    }

    fn take_all(&self) -> &'a [u8] {
        let rest = self.rest();
        self.taken.set(self.data.len());
        rest
    }
}

/// An input opened on a descriptor above 2 (`while read -u 3 l; do …; done 3<file`):
/// every reader inside the command that opened it shares its position, as readers of
/// one open file do.
struct OpenInput {
    data: Vec<u8>,
    taken: Cell<usize>,
}

/// The options of `set`.
#[derive(Debug, Clone, Copy, Default)]
struct Options {
    errexit: bool,
    nounset: bool,
    pipefail: bool,
    xtrace: bool,
    noglob: bool,
    /// How the shell got its script, as `$-` ends: `c` for `bash -c` (the script of a
    /// run is one), `s` for stdin, nothing for a file.
    invocation: Option<char>,
}

impl Options {
    /// `set -o name`; false for an option this shell does not have.
    #[inline(never)]
    fn set(&mut self, name: &str, on: bool) -> bool {
        match name {
            "errexit" => self.errexit = on,
            "nounset" => self.nounset = on,
            "pipefail" => self.pipefail = on,
            "xtrace" => self.xtrace = on,
            "noglob" => self.noglob = on,
            // Writes are refused anyway; history and brace expansion are not interactive
            // matters here.
            "noclobber" | "histexpand" | "braceexpand" | "hashall" => {}
            _ => return false,
        }
        true
    }

    /// `set -e` and the other one-letter forms.
    fn set_letter(&mut self, letter: char, on: bool) -> bool {
        match letter {
            'e' => self.errexit = on,
            'u' => self.nounset = on,
            'x' => self.xtrace = on,
            'f' => self.noglob = on,
            'C' | 'H' | 'B' | 'h' => {}
            _ => return false,
        }
        true
    }

    fn get(&self, name: &str) -> bool {
        match name {
            "errexit" => self.errexit,
            "nounset" => self.nounset,
            "pipefail" => self.pipefail,
            "xtrace" => self.xtrace,
            "noglob" => self.noglob,
            _ => false,
        }
    }

    /// `$-`, in bash's order (its table of flags: `e`, `f`, `h`, `u`, `x`, `B`), then how
    /// the shell was invoked.
    fn flags(&self) -> String {
        let mut flags = String::new();
        for (on, letter) in
            [(self.errexit, 'e'), (self.noglob, 'f'), (true, 'h'), (self.nounset, 'u'), (self.xtrace, 'x'), (true, 'B')]
        {
            if on {
                flags.push(letter);
            }
        }
        flags.extend(self.invocation);
        flags
    }
}

/// What a subshell copies and a nested shell starts afresh.
#[derive(Debug, Clone, Default)]
struct State {
    vars: Vars,
    functions: HashMap<String, Rc<Script>>,
    options: Options,
}

struct Shell {
    ctx: Ctx,
    lookup: Lookup,
    /// Granted host programs, asked for a name `lookup` does not know.
    host: Option<HostProgram>,
    last_status: i32,
    trouble: Vec<Trouble>,
    programs: Vec<String>,
    /// [`Io::stdout_limit`] of the script's own stdout.
    stdout_limit: usize,
    /// Whether the stdout of the command running now ends in the script's stdout (not in
    /// a pipe, a substitution or a redirection).
    to_final: bool,
    /// [`Io::unnamed_file`] of the program that ran last.
    unnamed_file: Option<String>,
    /// For each command that wrote to the script's stdout, its [`Io::unnamed_file`].
    final_writers: Vec<Option<String>>,
    state: State,
    /// Loops around the running command inside the current function (`break` needs one).
    loops: u32,
    /// Functions and sourced files running (`return` needs one).
    returnable: usize,
    /// Nesting of function calls, `source`, `eval` and nested shells.
    depth: usize,
    /// Commands running inside one another ([`MAX_NESTED_COMMANDS`]).
    nesting: usize,
    /// Loop iterations and calls so far ([`MAX_STEPS`]).
    steps: u64,
    /// Conditions running (`if`, `while`, the left of `&&`/`||`, `!`): `set -e` ignores
    /// their failures.
    conditions: usize,
    /// Status of the last command substitution of the command being expanded (the
    /// status of `X=$(cmd)`).
    substitution_status: Option<i32>,
    /// The script was stopped at a limit: nothing more runs.
    stopped: bool,
    /// The [`Flow::Exit`] unwinding now is a bad substitution's ([`Piece::Fail`]), which
    /// abandons only the rest of the line ([`AndOr::line`]) or the subshell. Cleared
    /// when a pipeline starts and when a subshell ends, so a real `exit` is never one.
    discarding: bool,
    /// Inputs the running commands opened on descriptors above 2 (`3<file`), innermost
    /// last: what `read -u 3` reads.
    inputs: Vec<(i32, Rc<OpenInput>)>,
    /// [`stack_position`] when the run started ([`STACK_BUDGET`]).
    stack_base: usize,
    /// [`MAX_STEPS`].
    max_steps: u64,
}

impl Shell {
    fn script(&mut self, script: &Script, stdin: &Input, out: &mut Vec<u8>, err: &mut Vec<u8>) -> Flow {
        let mut flow = Flow::Next(self.last_status);
        let mut items = script.0.iter().enumerate();
        while let Some((i, item)) = items.next() {
            if self.stopped {
                return Flow::Exit(STOPPED);
            }
            flow = self.and_or(item, stdin, out, err);
            if let Flow::Exit(status) = flow
                && self.discarding
                && !self.state.options.errexit
                && let Some(skip) = script.0[i + 1..].iter().position(|next| next.line)
            {
                // A bad substitution: the script goes on at its next line.
                self.discarding = false;
                self.last_status = status;
                flow = Flow::Next(status);
                if skip > 0 {
                    items.nth(skip - 1);
                }
                continue;
            }
            if !matches!(flow, Flow::Next(_)) {
                return flow;
            }
        }
        flow
    }

    fn and_or(&mut self, list: &AndOr, stdin: &Input, out: &mut Vec<u8>, err: &mut Vec<u8>) -> Flow {
        let last = list.rest.len();
        let mut flow = self.list_item(&list.first, last == 0, stdin, out, err);
        for (i, (op, next)) in list.rest.iter().enumerate() {
            let Flow::Next(status) = flow else { return flow };
            if (*op == Op::And && status == 0) || (*op == Op::Or && status != 0) {
                flow = self.list_item(next, i + 1 == last, stdin, out, err);
            }
        }
        flow
    }

    /// Runs one pipeline of an `&&`/`||` list. `set -e` ends the script when the final
    /// one fails, unless it is negated or the list runs as a condition.
    fn list_item(
        &mut self,
        pipeline: &Pipeline,
        is_final: bool,
        stdin: &Input,
        out: &mut Vec<u8>,
        err: &mut Vec<u8>,
    ) -> Flow {
        if !is_final || pipeline.negated {
            self.conditions += 1;
            let flow = self.pipeline(pipeline, stdin, out, err);
            self.conditions -= 1;
            return flow;
        }
        match self.pipeline(pipeline, stdin, out, err) {
            Flow::Next(status)
                if status != 0 && self.state.options.errexit && self.conditions == 0 && errexit_applies(pipeline) =>
            {
                Flow::Exit(status)
            }
            flow => flow,
        }
    }

    fn pipeline(&mut self, pipeline: &Pipeline, stdin: &Input, out: &mut Vec<u8>, err: &mut Vec<u8>) -> Flow {
        self.discarding = false;
        let flow = match pipeline.commands.as_slice() {
            // `!` alone: bash negates the empty pipeline's 0 (found by fuzzing: the stages
            // below assumed at least one command).
            [] => Flow::Next(0),
            [command] => self.command(command, stdin, out, err),
            commands => Flow::Next(self.stages(commands, stdin, out, err)),
        };
        let flow = match flow {
            Flow::Next(s) if pipeline.negated => Flow::Next(i32::from(s == 0)),
            other => other,
        };
        self.last_status = flow.status();
        flow
    }

    /// The stages of a real pipeline. Each is a subshell: `cd`, variables and `exit` stay
    /// inside it.
    #[inline(never)]
    fn stages(&mut self, commands: &[Command], stdin: &Input, out: &mut Vec<u8>, err: &mut Vec<u8>) -> i32 {
        let mut previous: Option<Vec<u8>> = None;
        let mut statuses = Vec::with_capacity(commands.len());
        let last = commands.len() - 1;
        let to_final = self.to_final;
        for (i, command) in commands.iter().enumerate() {
            let mut output = Vec::new();
            self.to_final = to_final && i == last;
            let piped;
            let input = match &previous {
                Some(bytes) => {
                    piped = Input::new(bytes);
                    &piped
                }
                None => stdin,
            };
            let status = self.subshell(|shell| shell.command(command, input, &mut output, err).status());
            statuses.push(status);
            if i == last {
                append(out, output);
            } else {
                previous = Some(output);
            }
        }
        self.to_final = to_final;
        if self.state.options.pipefail {
            statuses.iter().rev().copied().find(|s| *s != 0).unwrap_or(0)
        } else {
            statuses.last().copied().unwrap_or(0)
        }
    }

    /// Runs `run` as a subshell: the current directory and the variables, functions and
    /// options it changes are put back afterwards. Out of line, like the other large
    /// frames: the interpreter recurses through [`Shell::command`] ([`MAX_NESTED_COMMANDS`]).
    #[inline(never)]
    fn subshell<T>(&mut self, run: impl FnOnce(&mut Shell) -> T) -> T {
        let cwd = self.ctx.cwd.clone();
        let state = self.state.clone();
        let result = run(self);
        self.ctx.cwd = cwd;
        self.state = state;
        self.discarding = false;
        result
    }

    fn command(&mut self, command: &Command, stdin: &Input, out: &mut Vec<u8>, err: &mut Vec<u8>) -> Flow {
        let redirects = match command {
            Command::Simple { redirects, .. }
            | Command::Subshell { redirects, .. }
            | Command::Group { redirects, .. }
            | Command::If { redirects, .. } => redirects,
        };
        let redirect::Routing { dests, input, inputs } = match self.redirections(redirects, err) {
            Ok(routing) => routing,
            Err(flow) => return flow,
        };
        let opened = self.inputs.len();
        self.inputs.extend(inputs.into_iter().map(|(fd, data)| (fd, Rc::new(OpenInput { data, taken: Cell::new(0) }))));
        let own_input = input.as_deref().map(Input::new);
        let stdin = own_input.as_ref().unwrap_or(stdin);
        let mut own_out = Vec::new();
        let mut own_err = Vec::new();
        // Output the command sends elsewhere (a file, stderr, /dev/null) does not reach
        // the script's stdout, whatever it runs.
        let to_final = self.to_final;
        self.to_final = to_final && dests[0] == Dest::Out;
        self.nesting += 1;
        let flow = match command {
            Command::Simple { words, assignments, .. } => {
                self.simple(words, assignments, stdin, &mut own_out, &mut own_err)
            }
            Command::Subshell { body, .. } => {
                // `( )` starts outside any loop, as in bash: `break` in it is an error that
                // ends nothing. A pipeline stage or `$(...)` keeps the loops around it.
                let loops = std::mem::replace(&mut self.loops, 0);
                let status = self.subshell(|shell| shell.script(body, stdin, &mut own_out, &mut own_err).status());
                self.loops = loops;
                Flow::Next(status)
            }
            Command::Group { body, kind, .. } => self.compound(kind, body, stdin, &mut own_out, &mut own_err),
            Command::If { branches, otherwise, .. } => {
                self.if_clause(branches, otherwise.as_ref(), stdin, &mut own_out, &mut own_err)
            }
        };
        self.nesting -= 1;
        self.inputs.truncate(opened);
        self.to_final = to_final;
        self.route(flow, dests, own_out, own_err, out, err)
    }

    /// Records `trouble` once: a loop that repeats a failure (a missing file, a million
    /// times) does not grow the list. Past [`MAX_TROUBLE`] different ones, only a kind not
    /// yet recorded is added, since the judge looks for kinds.
    fn record(&mut self, trouble: Trouble) {
        let known_kind = || self.trouble.iter().any(|t| std::mem::discriminant(t) == std::mem::discriminant(&trouble));
        if !self.trouble.contains(&trouble) && (self.trouble.len() < MAX_TROUBLE || !known_kind()) {
            self.trouble.push(trouble);
        }
    }

    fn refuse<T>(&mut self, err: &mut Vec<u8>, message: String) -> Result<T, Flow> {
        err.extend_from_slice(format!("reviewhost: {message}\n").as_bytes());
        self.record(Trouble::Refused(message));
        Err(Flow::Next(1))
    }

    /// A construct this shell refuses at run time: an error naming it, and trouble.
    fn refuse_status(&mut self, err: &mut Vec<u8>, message: String) -> i32 {
        let _ = self.refuse::<()>(err, message);
        2
    }

    /// A builtin's error: its message on stderr, recorded like a failed program's.
    fn fail(&mut self, err: &mut Vec<u8>, program: &str, status: i32, message: String) -> i32 {
        err.extend_from_slice(format!("{message}\n").as_bytes());
        self.record(failure(program, status, &message));
        status
    }

    /// An error of the script itself (a failed expansion, a read-only variable): bash's
    /// message on stderr, no trouble.
    fn error(&mut self, err: &mut Vec<u8>, message: &str) {
        err.extend_from_slice(format!("bash: {message}\n").as_bytes());
    }

    /// A script this shell cannot parse, inside `bash -c`, `source` or `eval`.
    fn unsupported(&mut self, err: &mut Vec<u8>, context: &str, e: &Unsupported) -> Flow {
        Flow::Next(self.refuse_status(err, format!("unsupported command in `{context}`: {e}")))
    }

    /// Stops the whole script at a limit.
    fn stop(&mut self, err: &mut Vec<u8>, message: String) -> Flow {
        if !self.stopped {
            let _ = self.refuse::<()>(err, format!("{message}: the reviewhost shell stopped the script"));
            self.stopped = true;
        }
        Flow::Exit(STOPPED)
    }

    /// Counts a loop iteration or a call against [`MAX_STEPS`].
    fn step(&mut self, err: &mut Vec<u8>) -> Result<(), Flow> {
        if self.stopped {
            return Err(Flow::Exit(STOPPED));
        }
        self.steps += 1;
        if self.steps > self.max_steps {
            let message = format!("more than {} loop iterations and function calls", self.max_steps);
            return Err(self.stop(err, message));
        }
        Ok(())
    }

    /// Enters a function, sourced file, `eval` or nested shell (`what`), within the limits;
    /// the caller leaves with `self.depth -= 1`.
    fn enter(&mut self, what: &str, err: &mut Vec<u8>) -> Result<(), Flow> {
        self.step(err)?;
        if self.nesting > MAX_NESTED_COMMANDS || self.stack_base.abs_diff(stack_position()) > STACK_BUDGET {
            let message = format!("calls nested too deep (`{what}` at depth {})", self.depth + 1);
            return Err(self.stop(err, message));
        }
        self.depth += 1;
        Ok(())
    }

    fn simple(
        &mut self,
        words: &[Word],
        assignments: &[Assignment],
        stdin: &Input,
        out: &mut Vec<u8>,
        err: &mut Vec<u8>,
    ) -> Flow {
        let before = out.len();
        let flow = self.invoke(words, assignments, stdin, out, err);
        let unnamed_file = self.unnamed_file.take();
        if self.to_final && out.len() > before {
            self.final_writers.push(unnamed_file);
        }
        flow
    }

    fn invoke(
        &mut self,
        words: &[Word],
        assignments: &[Assignment],
        stdin: &Input,
        out: &mut Vec<u8>,
        err: &mut Vec<u8>,
    ) -> Flow {
        self.substitution_status = None;
        let argv = match self.expand_command(words, err) {
            Ok(argv) => argv,
            Err(flow) => return flow,
        };
        if self.stopped {
            return Flow::Exit(STOPPED);
        }
        if argv.is_empty() {
            return self.assign(assignments, err);
        }
        // `X=1 cmd`: the assignments hold for this command only (programs get no
        // environment; a nested shell sees them as exported).
        let mut saved = Vec::with_capacity(assignments.len());
        let mut failed = None;
        for a in assignments {
            match self.assignment_value(a, err) {
                // A read-only variable keeps its value; the command still runs (bash).
                Ok(value) => {
                    if let Err(message) = self.state.vars.set_scoped(&a.name, &value, &mut saved) {
                        self.error(err, &message);
                    }
                }
                Err(flow) => {
                    failed = Some(flow);
                    break;
                }
            }
        }
        let flow = match failed {
            Some(flow) => flow,
            None => {
                if self.state.options.xtrace {
                    let assigned = saved
                        .iter()
                        .map(|(name, _)| format!("{name}={}", vars::quote(self.state.vars.get(name).unwrap_or(""))));
                    let line: Vec<String> = assigned.chain(argv.iter().map(|a| vars::quote(a))).collect();
                    err.extend_from_slice(format!("+ {}\n", line.join(" ")).as_bytes());
                }
                self.dispatch(&argv[0], &argv[1..], true, stdin, out, err)
            }
        };
        for (name, old) in saved.into_iter().rev() {
            self.state.vars.restore(&name, old);
        }
        flow
    }

    /// `X=1 Y=$(cmd)` without a command: the assignments stay. The status is the last
    /// command substitution's.
    #[inline(never)]
    fn assign(&mut self, assignments: &[Assignment], err: &mut Vec<u8>) -> Flow {
        for a in assignments {
            let value = match self.assignment_value(a, err) {
                Ok(value) => value,
                Err(flow) => return flow,
            };
            if self.state.options.xtrace {
                err.extend_from_slice(format!("+ {}={}\n", a.name, vars::quote(&value)).as_bytes());
            }
            if let Err(message) = self.state.vars.set(&a.name, &value) {
                // An assignment to a read-only variable ends a non-interactive shell.
                self.error(err, &message);
                return Flow::Exit(1);
            }
        }
        Flow::Next(self.substitution_status.unwrap_or(0))
    }

    fn assignment_value(&mut self, a: &Assignment, err: &mut Vec<u8>) -> Result<String, Flow> {
        let value = self.expand_text(&a.value, err)?;
        Ok(if a.append { format!("{}{value}", self.state.vars.get(&a.name).unwrap_or("")) } else { value })
    }

    /// Runs `name`: a function (unless `functions` is false: `command name`), a builtin,
    /// a script by its path, or a program.
    fn dispatch(
        &mut self,
        name: &str,
        args: &[String],
        functions: bool,
        stdin: &Input,
        out: &mut Vec<u8>,
        err: &mut Vec<u8>,
    ) -> Flow {
        if !self.programs.iter().any(|p| p == name) {
            self.programs.push(name.to_string());
        }
        if functions && let Some(body) = self.state.functions.get(name).cloned() {
            return self.call(name, &body, args, stdin, out, err);
        }
        if let Some(flow) = self.builtin(name, args, stdin, out, err) {
            return flow;
        }
        if name.contains('/')
            && let Some(flow) = self.script_file(name, args, stdin, out, err)
        {
            return flow;
        }
        Flow::Next(self.program(name, args, stdin, out, err))
    }

    #[inline(never)]
    fn program(&mut self, name: &str, args: &[String], stdin: &Input, out: &mut Vec<u8>, err: &mut Vec<u8>) -> i32 {
        let Some(program) = (self.lookup)(name) else {
            if let Some(host) = self.host {
                return self.host_program(host, name, args, stdin, out, err);
            }
            let trouble = Trouble::Unavailable(name.to_string());
            err.extend_from_slice(format!("reviewhost: {trouble}\n").as_bytes());
            self.record(trouble);
            return NOT_FOUND;
        };
        let mut own_err = Vec::new();
        let stdout_limit = if self.to_final { self.stdout_limit } else { NO_LIMIT };
        let mut io = Io { stdin: stdin.rest(), stdout: out, stderr: &mut own_err, stdout_limit, unnamed_file: None };
        let status = program(args, &self.ctx, &mut io);
        self.unnamed_file = io.unnamed_file.take();
        let grep_family = matches!(name, "grep" | "egrep" | "fgrep" | "rg");
        let failed = if grep_family { status >= 2 } else { status != 0 && !own_err.is_empty() };
        if failed {
            let trouble = failure(name, status, &String::from_utf8_lossy(&own_err));
            self.record(trouble);
        }
        err.extend_from_slice(&own_err);
        status
    }

    /// A granted program, run by the host. Its failure is judged as a sandboxed
    /// program's; a program the host could not run (not granted, past the deadline or
    /// the output cap) leaves the assertion unjudged.
    fn host_program(
        &mut self,
        host: HostProgram,
        name: &str,
        args: &[String],
        stdin: &Input,
        out: &mut Vec<u8>,
        err: &mut Vec<u8>,
    ) -> i32 {
        let mut own_err = Vec::new();
        let mut io =
            Io { stdin: stdin.rest(), stdout: out, stderr: &mut own_err, stdout_limit: NO_LIMIT, unnamed_file: None };
        let status = match host(name, args, &self.ctx, &mut io) {
            Ok(status) => status,
            Err(message) => {
                let trouble = Trouble::Refused(format!("{name}: {message}"));
                err.extend_from_slice(format!("reviewhost: {trouble}\n").as_bytes());
                self.record(trouble);
                return NOT_FOUND;
            }
        };
        self.unnamed_file = None;
        if status != 0 && !own_err.is_empty() {
            let message = String::from_utf8_lossy(&own_err).lines().next().unwrap_or("").to_string();
            self.record(Trouble::Failed { program: name.to_string(), status, message });
        }
        err.extend_from_slice(&own_err);
        status
    }

    fn call(
        &mut self,
        name: &str,
        body: &Script,
        args: &[String],
        stdin: &Input,
        out: &mut Vec<u8>,
        err: &mut Vec<u8>,
    ) -> Flow {
        if let Err(flow) = self.enter(name, err) {
            return flow;
        }
        let loops = std::mem::replace(&mut self.loops, 0);
        self.returnable += 1;
        self.state.vars.push_frame(args.to_vec());
        let flow = self.script(body, stdin, out, err);
        self.state.vars.pop_frame();
        self.returnable -= 1;
        self.loops = loops;
        self.depth -= 1;
        match flow {
            Flow::Return(status) => Flow::Next(status),
            other => other,
        }
    }
}

/// An address in the caller's stack frame: how far apart two of them are is the stack
/// used between them.
#[inline(never)]
fn stack_position() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}

/// Whether `set -e` ends the script when `pipeline` fails: a simple command (a function
/// call too), a subshell, `[[ ]]`, `(( ))` or a real pipeline. A loop, group, `if` or
/// `case` fails only because of a command inside it, which `set -e` already judged.
fn errexit_applies(pipeline: &Pipeline) -> bool {
    match pipeline.commands.as_slice() {
        [command] => matches!(
            command,
            Command::Simple { .. }
                | Command::Subshell { .. }
                | Command::Group { kind: Compound::Test(_) | Compound::Arithmetic(_), .. }
        ),
        _ => true,
    }
}

#[cfg(test)]
mod tests;
