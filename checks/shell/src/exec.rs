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

use reviewhost_tool::{Ctx, Io, NO_LIMIT, Program, io_message};

use crate::parse::{AndOr, Assignment, Command, Compound, Op, Pipeline, Redirect, Script, Unsupported, Word};
use crate::vars::{self, Vars};

mod builtins;
mod compound;
mod expand;
mod read;

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

/// Something that went wrong while running the command, beyond a non-zero status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Trouble {
    /// The program does not exist in the sandbox.
    Unavailable(String),
    /// The program reported an error (not merely "no match").
    Failed { program: String, status: i32, message: String },
    /// A write, a redirection from a file that cannot be read, a construct refused at run
    /// time (an unsupported command in `bash -c`, arrays), or a limit that stopped the
    /// script.
    Refused(String),
}

/// What a sandboxed program's (or builtin's) error means: a refusal when the sandbox
/// lacks what the script asked for (an option, subcommand or construct a tool says "is
/// not supported", a write a tool "refused" because the sandbox is read-only), whatever
/// the script does next; else a failure, with its first line. The one place this is
/// decided.
fn failure(program: &str, status: i32, stderr: &str) -> Trouble {
    let refusal = |line: &&str| {
        line.contains("not supported") || line.contains("is refused") || line.contains("sandbox is read-only")
    };
    match stderr.lines().find(refusal) {
        Some(line) => Trouble::Refused(line.to_string()),
        None => {
            let message = stderr.lines().next().unwrap_or("").to_string();
            Trouble::Failed { program: program.to_string(), status, message }
        }
    }
}

impl std::fmt::Display for Trouble {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Trouble::Unavailable(p) => write!(f, "program '{p}' is not available in the reviewhost sandbox"),
            Trouble::Failed { program, status, message } if message.is_empty() => {
                write!(f, "'{program}' failed with status {status}")
            }
            Trouble::Failed { program, status, message } => {
                write!(f, "'{program}' failed with status {status}: {message}")
            }
            Trouble::Refused(m) => f.write_str(m),
        }
    }
}

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
        state: State::default(),
        loops: 0,
        returnable: 0,
        depth: 0,
        nesting: 0,
        steps: 0,
        conditions: 0,
        substitution_status: None,
        stopped: false,
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

/// The options of `set`.
#[derive(Debug, Clone, Copy, Default)]
struct Options {
    errexit: bool,
    nounset: bool,
    pipefail: bool,
    xtrace: bool,
    noglob: bool,
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

    /// `$-`.
    fn flags(&self) -> String {
        let mut flags = String::from("hB");
        for (on, letter) in [(self.errexit, 'e'), (self.nounset, 'u'), (self.xtrace, 'x'), (self.noglob, 'f')] {
            if on {
                flags.push(letter);
            }
        }
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
    /// [`stack_position`] when the run started ([`STACK_BUDGET`]).
    stack_base: usize,
    /// [`MAX_STEPS`].
    max_steps: u64,
}

/// Where a file descriptor's writes go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dest {
    Out,
    Err,
    Null,
}

impl Shell {
    fn script(&mut self, script: &Script, stdin: &Input, out: &mut Vec<u8>, err: &mut Vec<u8>) -> Flow {
        let mut flow = Flow::Next(self.last_status);
        for item in &script.0 {
            if self.stopped {
                return Flow::Exit(STOPPED);
            }
            flow = self.and_or(item, stdin, out, err);
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
        result
    }

    fn command(&mut self, command: &Command, stdin: &Input, out: &mut Vec<u8>, err: &mut Vec<u8>) -> Flow {
        let redirects = match command {
            Command::Simple { redirects, .. }
            | Command::Subshell { redirects, .. }
            | Command::Group { redirects, .. }
            | Command::If { redirects, .. } => redirects,
        };
        let (dests, input) = match self.redirections(redirects, err) {
            Ok(routing) => routing,
            Err(flow) => return flow,
        };
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
                Flow::Next(self.subshell(|shell| shell.script(body, stdin, &mut own_out, &mut own_err).status()))
            }
            Command::Group { body, kind, .. } => self.compound(kind, body, stdin, &mut own_out, &mut own_err),
            Command::If { branches, otherwise, .. } => {
                self.if_clause(branches, otherwise.as_ref(), stdin, &mut own_out, &mut own_err)
            }
        };
        self.nesting -= 1;
        self.to_final = to_final;
        self.route(flow, dests, own_out, own_err, out, err)
    }

    /// Sends a command's captured output where its redirections said.
    fn route(
        &mut self,
        flow: Flow,
        dests: [Dest; 2],
        own_out: Vec<u8>,
        own_err: Vec<u8>,
        out: &mut Vec<u8>,
        err: &mut Vec<u8>,
    ) -> Flow {
        for (bytes, dest) in [(own_out, dests[0]), (own_err, dests[1])] {
            match dest {
                Dest::Out => append(out, bytes),
                Dest::Err => append(err, bytes),
                Dest::Null => {}
            }
        }
        flow
    }

    /// Applies redirections in order: where fd 1 and 2 end up, and stdin from a file or
    /// a here-document.
    #[inline(never)]
    fn redirections(
        &mut self,
        redirects: &[Redirect],
        err: &mut Vec<u8>,
    ) -> Result<([Dest; 2], Option<Vec<u8>>), Flow> {
        let mut dests = [Dest::Out, Dest::Err];
        let mut input = None;
        for redirect in redirects {
            match redirect {
                Redirect::Duplicate { fd, to } => {
                    let target = match to {
                        1 => dests[0],
                        2 => dests[1],
                        other => return self.refuse(err, format!("redirection to file descriptor {other}")),
                    };
                    match fd {
                        1 => dests[0] = target,
                        2 => dests[1] = target,
                        other => return self.refuse(err, format!("redirection of file descriptor {other}")),
                    }
                }
                Redirect::Close { fd } => match fd {
                    1 => dests[0] = Dest::Null,
                    2 => dests[1] = Dest::Null,
                    _ => {}
                },
                Redirect::Output { fds, target } => {
                    let target = self.expand_one(target, err)?;
                    if target != "/dev/null" {
                        return self
                            .refuse(err, format!("cannot write to '{target}': the reviewhost sandbox is read-only"));
                    }
                    for fd in fds {
                        match fd {
                            1 => dests[0] = Dest::Null,
                            2 => dests[1] = Dest::Null,
                            other => return self.refuse(err, format!("redirection of file descriptor {other}")),
                        }
                    }
                }
                Redirect::Input { target } => {
                    let target = self.expand_one(target, err)?;
                    if target == "/dev/null" {
                        input = Some(Vec::new());
                        continue;
                    }
                    match read_input(&self.ctx, &target) {
                        Ok(bytes) => input = Some(bytes),
                        Err(message) => return self.refuse(err, message),
                    }
                }
                Redirect::Here { text, newline } => {
                    let mut bytes = self.expand_text(text, err)?.into_bytes();
                    if *newline {
                        bytes.push(b'\n');
                    }
                    input = Some(bytes);
                }
            }
        }
        Ok((dests, input))
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

/// The contents of a `< file` input (or a script to run): a regular file inside the
/// root, never a FIFO or device (opening one could block the sandbox forever).
fn read_input(ctx: &Ctx, target: &str) -> Result<Vec<u8>, String> {
    let real = ctx.real(target);
    let meta = std::fs::metadata(&real).map_err(|e| format!("{target}: {}", io_message(&e)))?;
    if !meta.is_file() {
        return Err(format!("{target}: not a regular file"));
    }
    std::fs::read(&real).map_err(|e| format!("{target}: {}", io_message(&e)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse;

    /// Programs for interpreter tests, independent of the real tool crates.
    fn programs(name: &str) -> Option<Program> {
        fn echo(args: &[String], _: &Ctx, io: &mut Io) -> i32 {
            io.stdout.extend_from_slice(format!("{}\n", args.join(" ")).as_bytes());
            0
        }
        fn cat(_: &[String], _: &Ctx, io: &mut Io) -> i32 {
            io.stdout.extend_from_slice(io.stdin);
            0
        }
        fn status(args: &[String], _: &Ctx, _: &mut Io) -> i32 {
            args.first().and_then(|a| a.parse().ok()).unwrap_or(0)
        }
        fn oops(_: &[String], _: &Ctx, io: &mut Io) -> i32 {
            io.stderr.extend_from_slice(b"oops: broken\n");
            io.stdout.extend_from_slice(b"partial\n");
            1
        }
        fn grep(args: &[String], _: &Ctx, io: &mut Io) -> i32 {
            if args.first().map(String::as_str) == Some("missing") {
                io.stderr.extend_from_slice(b"grep: missing: No such file or directory\n");
                return 2;
            }
            1
        }
        fn limit(_: &[String], _: &Ctx, io: &mut Io) -> i32 {
            let limit = if io.stdout_limit == NO_LIMIT { "none".to_string() } else { io.stdout_limit.to_string() };
            io.stdout.extend_from_slice(format!("{limit}\n").as_bytes());
            0
        }
        match name {
            "limit" => Some(limit),
            "echo" => Some(echo),
            "cat" => Some(cat),
            "status" => Some(status),
            "oops" => Some(oops),
            "grep" => Some(grep),
            _ => None,
        }
    }

    fn sh(command: &str) -> Run {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("web/src")).unwrap();
        std::fs::write(dir.path().join("web/src/a.ts"), "").unwrap();
        std::fs::write(dir.path().join("input.txt"), "from file\n").unwrap();
        run(&parse(command).unwrap(), Ctx::new(dir.path()), programs, NO_LIMIT)
    }

    fn out(run: &Run) -> String {
        String::from_utf8_lossy(&run.stdout).into_owned()
    }

    #[test]
    fn lists_and_status() {
        assert_eq!(out(&sh("status 1 && echo no || echo yes")), "yes\n");
        assert_eq!(out(&sh("status 0 && echo a; echo b")), "a\nb\n");
        assert_eq!(out(&sh("status 3; echo $?")), "3\n");
        assert_eq!(out(&sh("! status 0; echo $?")), "1\n");
        assert_eq!(sh("status 0 | status 4").status, 4);
        assert_eq!(sh("exit 7; echo never").status, 7);
        assert_eq!(out(&sh("(exit 5); echo $?")), "5\n");
        assert_eq!(out(&sh("status 2 | echo piped")), "piped\n");
        assert_eq!(out(&sh("if status 1; then echo a; elif status 0; then echo b; else echo c; fi")), "b\n");
    }

    #[test]
    fn pipes_redirections_and_substitution() {
        assert_eq!(out(&sh("echo hi | cat | cat")), "hi\n");
        assert_eq!(out(&sh("cat < input.txt")), "from file\n");
        let r = sh("oops 2>&1");
        assert_eq!(out(&r), "partial\noops: broken\n");
        let r = sh("oops 2>/dev/null");
        assert!(r.stderr.is_empty());
        assert_eq!(r.trouble.len(), 1, "a hidden error is still an error");
        assert_eq!(out(&sh("oops >/dev/null 2>&1")), "");
        assert_eq!(out(&sh("echo $(echo 'a  b') \"$(echo 'c  d')\"")), "a b c  d\n");
        assert_eq!(out(&sh("echo web/*/*.ts")), "web/src/a.ts\n");
        assert_eq!(out(&sh("echo '*.nothing' *.nothing")), "*.nothing *.nothing\n");
    }

    #[test]
    fn cd_stays_inside_the_root_and_subshells_restore_it() {
        assert_eq!(out(&sh("cd web && pwd")), "/web\n");
        assert_eq!(out(&sh("(cd web/src && pwd); pwd")), "/web/src\n/\n");
        assert_eq!(out(&sh("cd .. && pwd")), "/\n");
        assert_eq!(out(&sh("cd ../../.. && pwd")), "/\n");
        let r = sh("cd nowhere && echo unreachable");
        assert_eq!(out(&r), "");
        assert!(matches!(&r.trouble[0], Trouble::Failed { program, .. } if program == "cd"));
    }

    #[test]
    fn troubles_are_recorded() {
        let r = sh("npx tsc --noEmit");
        assert_eq!(r.status, NOT_FOUND);
        assert_eq!(r.trouble, [Trouble::Unavailable("npx".into())]);
        assert_eq!(
            String::from_utf8_lossy(&r.stderr),
            "reviewhost: program 'npx' is not available in the reviewhost sandbox\n"
        );
        let r = sh("echo x > newfile");
        assert_eq!(r.status, 1);
        assert!(matches!(&r.trouble[0], Trouble::Refused(m) if m.contains("read-only")));
        assert!(sh("grep nothing").trouble.is_empty(), "no match is not an error");
        assert_eq!(sh("grep missing 2>/dev/null").trouble.len(), 1);
        assert_eq!(sh("cat < absent").trouble.len(), 1);
    }

    #[test]
    fn long_pipelines_run() {
        let command = std::iter::repeat_n("cat", 1000).collect::<Vec<_>>().join(" | ");
        assert_eq!(out(&sh(&format!("echo deep | {command}"))), "deep\n");
    }

    /// Only a program whose stdout goes straight to the script's stdout is told that its
    /// reader needs only the start; pipes, substitutions and redirections read all of it.
    #[test]
    fn only_output_that_reaches_the_verdict_is_limited() {
        let dir = tempfile::tempdir().unwrap();
        let limited = |command: &str| {
            let run = run(&parse(command).unwrap(), Ctx::new(dir.path()), programs, 100);
            String::from_utf8(run.stdout).unwrap()
        };
        assert_eq!(limited("limit"), "100\n");
        assert_eq!(limited("limit; limit && limit"), "100\n100\n100\n");
        assert_eq!(limited("limit | cat"), "none\n");
        assert_eq!(limited("cat | limit"), "100\n");
        assert_eq!(limited("echo $(limit)"), "none\n");
        assert_eq!(limited("(limit) && { limit; }"), "100\n100\n");
        assert_eq!(limited("if limit; then limit; fi"), "100\n100\n");
        assert_eq!(limited("limit 1>&2; limit >/dev/null; limit"), "100\n");
        assert_eq!(limited("{ limit; limit; } | cat; limit"), "none\nnone\n100\n");
        let unlimited = run(&parse("limit").unwrap(), Ctx::new(dir.path()), programs, NO_LIMIT);
        assert_eq!(unlimited.stdout, b"none\n");
    }

    /// Runs `command` with the sandbox's real programs over a small tree.
    fn real(command: &str) -> Run {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in [
            ("src/a.ts", "// Copyright 2024\nfoo\nbar foo\n"),
            ("src/b.ts", "foo\n"),
            ("src/sub/c.ts", "nothing\n"),
            ("list.txt", "src/a.ts\nsrc/b.ts\nsrc/gone.ts\n"),
            ("scripts/check.sh", "#!/usr/bin/env bash\nset -e\ncd src && grep -c foo a.ts\necho \"args: $# $1\"\n"),
            ("scripts/lib.sh", "greet() { echo \"hello $1\"; }\nLOADED=yes\n"),
            ("scripts/bad.sh", "echo start\nls <(true)\n"),
        ] {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        run(&parse(command).unwrap(), Ctx::new(dir.path()), crate::lookup, NO_LIMIT)
    }

    fn refused(run: &Run) -> Vec<String> {
        run.trouble
            .iter()
            .filter_map(|t| match t {
                Trouble::Refused(m) => Some(m.clone()),
                _ => None,
            })
            .collect()
    }

    /// A sandboxed tool's "not supported" is a refusal, whatever the script does next.
    #[test]
    fn a_tool_that_says_not_supported_refuses_whatever_follows() {
        fn unsupported(_: &[String], _: &Ctx, io: &mut Io<'_>) -> i32 {
            io.stderr.extend_from_slice(b"tool: option -Z is not supported in the reviewhost sandbox\n");
            1
        }
        fn lookup(name: &str) -> Option<Program> {
            match name {
                "tool" => Some(unsupported as Program),
                _ => crate::lookup(name),
            }
        }
        let dir = tempfile::tempdir().unwrap();
        for script in ["tool -Z || echo none", "tool -Z; echo rc=$?", "echo x | tool -Z | cat", "x=$(tool -Z); echo ok"]
        {
            let r = run(&parse(script).unwrap(), Ctx::new(dir.path()), lookup, NO_LIMIT);
            assert!(refused(&r).iter().any(|m| m.contains("is not supported")), "{script}: {:?}", r.trouble);
        }
    }

    #[test]
    fn variables_and_assignments() {
        assert_eq!(out(&sh("X=1; echo $X ${X} \"$X\"")), "1 1 1\n");
        assert_eq!(out(&sh("X=1 Y=$X; echo $Y")), "1\n", "assigned left to right");
        assert_eq!(out(&sh("X=a; X+=b; echo $X")), "ab\n");
        // A prefix assignment holds for that command only.
        assert_eq!(out(&sh("f() { echo \"in $X\"; }; X=1 f; echo \"out [$X]\"")), "in 1\nout []\n");
        // The status of `X=$(cmd)` is the command's.
        assert_eq!(out(&sh("X=$(status 3); echo $?; X=$(status 0); echo $?")), "3\n0\n");
        assert_eq!(sh("X=$(status 1) && echo no").stdout, b"");
        // The environment starts empty.
        assert_eq!(out(&sh("echo \"[$HOME][$PATH][$USER]\"")), "[][][]\n");
        assert_eq!(out(&sh("cd web; echo $PWD")), "/web\n");
        assert_eq!(out(&sh("export A=1 B; echo $A; unset A; echo \"[$A]\"")), "1\n[]\n");
        // `export X=$(...)` is an assignment: not split.
        assert_eq!(out(&sh("export X=$(echo 'a  b'); echo \"$X\"")), "a  b\n");
        let r = sh("readonly R=1; R=2; echo never");
        assert_eq!((r.status, out(&r)), (1, String::new()));
        assert!(String::from_utf8_lossy(&r.stderr).contains("R: readonly variable"));
        assert_eq!(out(&sh("readonly R=1; R=2 echo runs; unset R; echo $? $R")), "runs\n1 1\n");
        assert_eq!(out(&sh("echo $$")), "1000\n");
    }

    #[test]
    fn parameter_expansion_operators() {
        assert_eq!(
            out(&sh("echo ${U:-d} ${U-d} [${U:+a}]; E=; echo [${E:-d}] [${E-d}] [${E:+a}]")),
            "d d []\n[d] [] []\n"
        );
        assert_eq!(out(&sh("echo ${U:=set} $U")), "set set\n");
        assert_eq!(
            out(&sh("set -- ${U:-a b}; echo $#; set -- \"${U:-a b}\"; echo $#; set -- ${U:-\"a b\"}; echo $#")),
            "2\n1\n1\n"
        );
        assert_eq!(out(&sh("X=hello; echo ${#X} ${X#h} ${X%l*} ${X%%l*} ${X##*l}")), "5 ello hel he o\n");
        assert_eq!(
            out(&sh("X=hello; echo ${X/l/L} ${X//l/L} ${X/#h/H} ${X/%o/O} ${X//[aeiou]/}")),
            "heLlo heLLo Hello hellO hll\n"
        );
        assert_eq!(out(&sh("f=src/sub/c.ts; echo ${f##*/} ${f%/*} ${f%.ts}.js")), "c.ts src/sub src/sub/c.js\n");
        assert_eq!(out(&sh("X=abcdef; echo ${X:2} ${X:1:2} ${X: -2} ${X:1:-1} [${X:9}]")), "cdef bc ef bcde []\n");
        assert_eq!(out(&sh("X=hello; echo ${X^^} ${X^} ${X,,}; Y=ABC; echo ${Y,}")), "HELLO Hello hello\naBC\n");
        // A quoted part of a pattern is literal.
        assert_eq!(out(&sh("X='a*b'; echo ${X#\"a*\"} \"${X#a*}\"")), "b *b\n");
        let r = sh("echo ${U:?is required}; echo never");
        assert_eq!((r.status, out(&r)), (1, String::new()));
        assert!(String::from_utf8_lossy(&r.stderr).contains("U: is required"));
        // Only the subshell ends.
        assert_eq!(out(&sh("(echo ${U:?x}); echo after $?")), "after 1\n");
    }

    #[test]
    fn positional_parameters_and_functions() {
        assert_eq!(out(&sh("echo $# [$1] [$@]")), "0 [] []\n", "empty at top level");
        assert_eq!(
            out(&sh("set -- a 'b c' d; echo $#; for x in \"$@\"; do echo \"<$x>\"; done; echo \"$*\"")),
            "3\n<a>\n<b c>\n<d>\na b c d\n"
        );
        assert_eq!(out(&sh("set -- 'b c'; for x in $@; do echo \"<$x>\"; done")), "<b>\n<c>\n");
        assert_eq!(out(&sh("f() { echo \"$# $1 $2\"; shift; echo \"$@\"; }; f 1 2 3; echo $#")), "3 1 2\n2 3\n0\n");
        assert_eq!(out(&sh("set -- a b c; echo ${@:2} ${#@}; f() { echo \"$@\"; }; f \"$@\"")), "b c 3\na b c\n");
        assert_eq!(out(&sh("f() { for a; do echo $a; done; }; f x y")), "x\ny\n");
        assert_eq!(sh("f() { :; }; set -- \"$@\"; echo $#").stdout, b"0\n", "\"$@\" without parameters is nothing");
        // `local` hides a variable until the function returns (bash's dynamic scoping).
        let r = sh("f() { local x=in; g; }; g() { echo $x; }; x=out; f; echo $x");
        assert_eq!(out(&r), "in\nout\n");
        assert_eq!(out(&sh("f() { x=set; }; f; echo $x")), "set\n");
        assert_eq!(out(&sh("f() { return 7; echo no; }; f; echo $?")), "7\n");
        assert_eq!(out(&sh("g() { status 3; return; }; g; echo $?")), "3\n");
        assert_eq!(out(&sh("function h { echo h $1; }; function i() { echo i; }; h 1; i")), "h 1\ni\n");
        assert_eq!(out(&sh("f() { echo x; }; f | cat; unset -f f; f; echo $?")), "x\n127\n");
        let r = sh("return 3; echo after $?");
        assert_eq!(out(&r), "after 2\n");
        assert!(String::from_utf8_lossy(&r.stderr).contains("can only `return'"));
        let fib =
            "fib() { if [[ $1 -le 1 ]]; then echo $1; else echo $(( $(fib $(($1-1))) + $(fib $(($1-2))) )); fi; }";
        assert_eq!(out(&sh(&format!("{fib}; fib 10"))), "55\n");
    }

    #[test]
    fn field_splitting_and_globbing_of_expansions() {
        assert_eq!(out(&sh("x='a  b'; for w in $x \"$x\"; do echo \"[$w]\"; done")), "[a]\n[b]\n[a  b]\n");
        assert_eq!(out(&sh("x=' a '; echo \"[$x]\" [$x]")), "[ a ] [ a ]\n");
        assert_eq!(out(&sh("e=; set -- $e; echo $#; set -- \"$e\"; echo $#")), "0\n1\n");
        assert_eq!(out(&sh("IFS=:; x='a::b'; for w in $x; do echo \"[$w]\"; done")), "[a]\n[]\n[b]\n");
        assert_eq!(out(&sh("echo $(echo 'a ')b")), "a b\n");
        assert_eq!(out(&sh("p='web/*/*.ts'; echo $p \"$p\"")), "web/src/a.ts web/*/*.ts\n");
        assert_eq!(out(&sh("set -f; echo web/*; set +f; echo web/*")), "web/*\nweb/src\n");
        assert_eq!(out(&sh("cmd='echo hi'; $cmd there")), "hi there\n");
    }

    #[test]
    fn arithmetic() {
        assert_eq!(
            out(&sh("echo $((1 + 2 * 3)) $(( (1+2)*3 )) $((7/2)) $((-7%3)) $((2**10)) $((~0)) $((1<2 && 3>2))")),
            "7 9 3 -1 1024 -1 1\n"
        );
        assert_eq!(out(&sh("x=5; echo $((x+=2)) $x $((x++)) $x; X='1+2'; echo $((X*2)) $(($x-1))")), "7 7 7 8\n6 7\n");
        assert_eq!(out(&sh("i=0; (( i++ )); echo $? $i; (( i-- )); echo $? $i")), "1 1\n0 0\n");
        assert_eq!(out(&sh("let 'y = 2 * 3' z=1; echo $? $y $z")), "0 6 1\n");
        let r = sh("echo $((1/0)); echo never");
        assert_eq!((r.status, out(&r)), (1, String::new()));
        assert!(String::from_utf8_lossy(&r.stderr).contains("1/0: division by 0"));
        // In `(( ))` an error is a status.
        assert_eq!(out(&sh("(( 1/0 )); echo after $?")), "after 1\n");
    }

    #[test]
    fn loops_with_break_and_continue() {
        assert_eq!(out(&sh("for i in 1 2 3; do echo $i; done; echo end $i")), "1\n2\n3\nend 3\n");
        assert_eq!(out(&sh("for f in web/*/*.ts; do echo \"[$f]\"; done")), "[web/src/a.ts]\n");
        assert_eq!(out(&sh("i=0; while [[ $i -lt 3 ]]; do echo $i; i=$((i+1)); done")), "0\n1\n2\n");
        assert_eq!(out(&sh("i=0; until (( i >= 2 )); do echo $i; ((i++)); done")), "0\n1\n");
        assert_eq!(out(&sh("for ((i=0; i<3; i++)); do echo i=$i; done")), "i=0\ni=1\ni=2\n");
        assert_eq!(out(&sh("for i in 1 2 3 4; do [[ $i == 3 ]] && break; echo $i; done")), "1\n2\n");
        let nested = "for i in 1 2 3; do for j in a b; do [[ $j == b ]] && continue 2; echo $i$j; done; done";
        assert_eq!(out(&sh(nested)), "1a\n2a\n3a\n");
        assert_eq!(out(&sh("for i in 1 2; do for j in a b; do break 2; done; done; echo $i$j")), "1a\n");
        assert_eq!(out(&sh("while status 1; do echo no; done; echo $?")), "0\n");
        // `break` outside a loop (a function's caller's loop is not its own) is an error.
        let r = sh("f() { break; }; for i in 1 2; do f; echo $i; done");
        assert_eq!(out(&r), "1\n2\n");
        assert!(String::from_utf8_lossy(&r.stderr).contains("only meaningful in a `for'"));
        // A loop's output goes where its redirections say.
        assert_eq!(out(&sh("for i in 1 2; do echo $i; done | cat; for i in 3; do echo $i; done >/dev/null")), "1\n2\n");
    }

    #[test]
    fn case_statements() {
        let case = |x: &str| {
            out(&sh(&format!("case {x} in a|b) echo ab;; *.ts) echo ts;; [0-9]) echo digit;; *) echo other;; esac")))
        };
        assert_eq!(case("b"), "ab\n");
        assert_eq!(case("x.ts"), "ts\n");
        assert_eq!(case("7"), "digit\n");
        assert_eq!(case("'a b'"), "other\n");
        assert_eq!(out(&sh("case x.ts in *.ts) echo ts;& *.md) echo fall;; *) echo no;; esac")), "ts\nfall\n");
        assert_eq!(out(&sh("case ab in a*) echo a;;& *b) echo b;; *) echo no;; esac")), "a\nb\n");
        assert_eq!(
            out(&sh(
                "p='*.ts'; case x.ts in $p) echo pattern;; esac; case x.ts in \"$p\") echo no;; *) echo literal;; esac"
            )),
            "pattern\nliteral\n"
        );
        assert_eq!(out(&sh("case z in a) echo a;; esac; echo $?")), "0\n");
    }

    #[test]
    fn extended_tests() {
        let holds = |expr: &str| sh(&format!("[[ {expr} ]]")).status == 0;
        assert!(holds("-f web/src/a.ts && -d web && ! -e nowhere"));
        assert!(holds("x.ts == *.ts && x.ts != *.js"));
        assert!(!holds("x.ts == \"*.ts\""), "a quoted pattern is literal");
        assert!(holds("-z '' && -n x"));
        assert!(holds("10 -gt 9 && 1+1 -eq 2"));
        assert!(holds("( 1 -eq 2 || 3 -ne 4 ) && a < b"));
        assert!(holds("v1.20 =~ ^v([0-9]+)\\.[0-9]+$"));
        assert!(!holds("abc =~ \"a.c\""), "a quoted regex is literal");
        assert!(holds("\"a b\""));
        assert!(!holds("$unset"));
        assert_eq!(out(&sh("x=; [[ -v x ]] && echo set; [[ -v y ]] || echo unset")), "set\nunset\n");
        let r = sh("[[ a =~ x[ ]]; echo $?");
        assert_eq!(out(&r), "2\n");
    }

    #[test]
    fn read_here_documents_and_here_strings() {
        assert_eq!(out(&sh("while read -r line; do echo \"[$line]\"; done < input.txt")), "[from file]\n");
        assert_eq!(out(&sh("while read a b; do echo \"$b-$a\"; done <<< '1 2 3'")), "2 3-1\n");
        assert_eq!(out(&sh("IFS=: read -r a b c <<< '1:2:3:4'; echo \"$a|$b|$c\"")), "1|2|3:4\n");
        assert_eq!(
            out(&sh("read -r x <<< '  pad  '; echo \"[$x]\"; IFS= read -r y <<< '  pad  '; echo \"[$y]\"")),
            "[pad]\n[  pad  ]\n"
        );
        assert_eq!(out(&sh("echo 'a\\b' | { read x; read -r y; echo \"$x\"; }")), "ab\n");
        assert_eq!(
            out(&sh("read x < input.txt; echo \"$? $x\"; read x <<< ''; echo $?; read y < /dev/null; echo $?")),
            "0 from file\n0\n1\n"
        );
        assert_eq!(out(&sh("{ read -r first; cat; } <<< \"$(echo 1; echo 2)\"")), "2\n");
        // A pipeline stage is a subshell.
        assert_eq!(out(&sh("echo x | read y; echo \"[$y]\"")), "[]\n");
        assert_eq!(out(&sh("X=v; cat <<EOF\nsay \"$X\" \\$X $(echo sub) $((1+1))\nEOF")), "say \"v\" $X sub 2\n");
        assert_eq!(out(&sh("cat <<'EOF'\n$X `x` \"q\"\nEOF")), "$X `x` \"q\"\n");
        assert_eq!(out(&sh("cat <<-EOF\n\tindented\n\tEOF")), "indented\n");
        assert_eq!(out(&sh("t='a b'; cat <<< \"$t\"; cat <<< $t")), "a b\na b\n");
    }

    #[test]
    fn set_options() {
        let r = sh("set -e; echo a; status 3; echo never");
        assert_eq!((r.status, out(&r)), (3, "a\n".into()));
        for (command, expected) in [
            ("set -e; status 1 || echo handled; echo after", "handled\nafter\n"),
            ("set -e; if status 1; then :; fi; ! status 0; echo after", "after\n"),
            ("set -e; { status 1 && :; }; echo after", "after\n"),
            ("set -e; f() { status 1; echo in; }; f || echo caught", "in\n"),
            ("set -e; while status 1; do :; done; echo after", "after\n"),
            ("set -e; (status 1); echo never", ""),
            ("set -e; x=$(status 1); echo never", ""),
            ("set -e; (( 0 )); echo never", ""),
            ("set -e; echo $(status 1; echo in-substitution)", "in-substitution\n"),
            ("status 1 | status 0; echo $?; set -o pipefail; status 1 | status 0; echo $?", "0\n1\n"),
            ("set -eo pipefail; status 1 | cat; echo never", ""),
            ("set -e; set +e; status 1; echo after", "after\n"),
        ] {
            assert_eq!(out(&sh(command)), expected, "{command}");
        }
        let r = sh("set -u; echo ${U:-ok} \"$@\"; echo $U; echo never");
        assert_eq!((r.status, out(&r)), (1, "ok\n".into()));
        assert!(refused(&r)[0].contains("U: unbound variable"));
        let r = sh("set -x; X=1 echo hi");
        assert_eq!(String::from_utf8_lossy(&r.stderr), "+ X=1 echo hi\n");
        assert_eq!(out(&sh("set -eu; echo $-")), "hBeu\n");
        let r = sh("set -v; echo $?");
        assert_eq!(out(&r), "2\n");
        assert!(refused(&r)[0].contains("`set -v` is not supported"));
    }

    #[test]
    fn nested_shells_source_and_eval() {
        assert_eq!(out(&sh("bash -c 'echo $0 $1 $#' zero one two")), "zero one 2\n");
        assert_eq!(out(&sh("sh -c 'cd web && pwd'; pwd")), "/web\n/\n");
        assert_eq!(sh("bash -c 'exit 3'; echo $?").stdout, b"3\n");
        assert_eq!(out(&sh("bash -e -c 'status 1; echo never'; echo $?")), "1\n");
        assert_eq!(out(&sh("bash -euo pipefail -c 'status 1 | cat'; echo $?")), "1\n");
        // Its own variables and functions; exported variables and prefix assignments pass.
        assert_eq!(out(&sh("X=1; export Y=2; f() { :; }; bash -c 'echo \"[$X][$Y]\"; f'")), "[][2]\n");
        assert_eq!(out(&sh("Z=3 bash -c 'echo $Z'; bash -c 'Q=1'; echo \"[$Q]\"")), "3\n[]\n");
        assert_eq!(out(&sh("echo 'echo from stdin' | bash")), "from stdin\n");
        assert_eq!(out(&sh("eval 'x=$((3+4))'; echo $x; eval echo '$x'")), "7\n7\n");
        let r = sh("bash -c 'cat <(true)'");
        assert_eq!(r.status, 2);
        assert!(refused(&r)[0].contains("unsupported command in `bash -c`: process substitution"));
    }

    #[test]
    fn scripts_run_in_this_interpreter() {
        let r = real("bash scripts/check.sh one two");
        assert_eq!((r.status, out(&r)), (0, "2\nargs: 2 one\n".into()));
        assert_eq!(out(&real("./scripts/check.sh x; echo $?")), "2\nargs: 1 x\n0\n");
        assert_eq!(out(&real("bash -n scripts/check.sh && echo syntax ok")), "syntax ok\n");
        assert_eq!(
            out(&real("source scripts/lib.sh; greet world; echo $LOADED; . scripts/lib.sh && greet you")),
            "hello world\nyes\nhello you\n"
        );
        let r = real("bash scripts/bad.sh");
        assert!(refused(&r)[0].contains("unsupported command in `bash scripts/bad.sh`"), "{:?}", r.trouble);
        let r = real("bash scripts/none.sh");
        assert_eq!(r.status, NOT_FOUND);
        assert!(matches!(&r.trouble[0], Trouble::Failed { program, .. } if program == "bash"));
    }

    /// The commands analysts write, with the real programs.
    #[test]
    fn xargs_runs_sandboxed_commands() {
        assert_eq!(out(&real("printf 'a b\\nc' | xargs echo")), "a b c\n");
        assert_eq!(out(&real("printf 'a b c' | xargs -n 2 echo x")), "x a b\nx c\n");
        assert_eq!(out(&real("printf 'a b\\n\\nc\\nd e f\\n' | xargs -L 2 echo x")), "x a b c\nx d e f\n");
        assert_eq!(out(&real("printf 'a\\0b c\\0' | xargs -0 -n 1 echo")), "a\nb c\n");
        assert_eq!(out(&real("printf 'src/a.ts\\nsrc/b.ts\\n' | xargs -I{} grep -c foo {}")), "2\n1\n");
        assert_eq!(out(&real("printf '\"a b\" c' | xargs -n 1 echo")), "a b\nc\n");
        assert_eq!(out(&real("printf '' | xargs echo ran")), "ran\n");
        assert_eq!(out(&real("printf '' | xargs -r echo ran")), "");
        assert_eq!(out(&real("echo 3 | xargs -I{} test {} -eq 3 && echo ok")), "ok\n");
        assert_eq!(out(&real("echo 3 | xargs -I{} bash -c 'if [ {} = 3 ]; then echo three; fi'")), "three\n");
        assert_eq!(real("echo 1 2 | xargs -n 1 test 2 -eq").status, 123);
        let r = real("echo x | xargs npx tsc");
        assert_eq!(r.status, 127);
        assert!(matches!(&r.trouble[..], [Trouble::Unavailable(p)] if p == "npx"), "{:?}", r.trouble);
        assert!(real("echo x | xargs -P 4 echo").trouble.iter().any(|t| t.to_string().contains("-P")));
    }

    #[test]
    fn analysts_commands() {
        assert_eq!(out(&real("X=$(grep -c foo src/a.ts) && test \"$X\" = 2 && echo ok")), "ok\n");
        assert_eq!(out(&real("for f in src/*.ts; do grep -q Copyright \"$f\" || echo \"$f\"; done")), "src/b.ts\n");
        assert_eq!(out(&real("x=foo; [[ -f src/a.ts && \"$x\" == fo* ]] && echo yes")), "yes\n");
        assert_eq!(out(&real("text='a foo b'; grep -c foo <<< \"$text\"")), "1\n");
        assert_eq!(
            out(&real("while IFS= read -r f; do [ -f \"$f\" ] || echo \"missing $f\"; done < list.txt")),
            "missing src/gone.ts\n"
        );
        assert_eq!(out(&real("f() { grep -rln \"$1\" src | sort; }; f foo")), "src/a.ts\nsrc/b.ts\n");
        assert_eq!(out(&real("bash -c 'cd src && grep -rn Copyright .'")), "./a.ts:1:// Copyright 2024\n");
        assert_eq!(out(&real("cat <<EOF | grep -c x\nx\ny\nx\nEOF")), "2\n");
        assert_eq!(out(&real("n=$(ls src | wc -l); if [ \"$n\" -ge 2 ]; then echo many; fi")), "many\n");
        assert_eq!(
            out(&real("case \"$(head -1 src/a.ts)\" in *Copyright*) echo licensed;; *) echo missing;; esac")),
            "licensed\n"
        );
        assert_eq!(
            out(&real("command -v grep >/dev/null && echo has-grep; command -v npx || echo no-npx")),
            "has-grep\nno-npx\n"
        );
    }

    #[test]
    fn unsupported_at_run_time_is_refused() {
        for (command, message) in [
            ("declare -a list", "arrays (`declare -a`)"),
            ("read -a parts <<< 'a b'", "arrays (`read -a`)"),
            ("bash -O extglob -c true", "`bash -O` is not supported"),
            ("set -o posix", "`set -o posix` is not supported"),
        ] {
            let r = sh(command);
            assert_eq!(refused(&r), [message.to_string()], "{command}");
        }
    }

    #[test]
    fn repeated_trouble_is_recorded_once() {
        let r = sh("for i in 1 2 3; do grep missing; npx x; done; for i in $(seq 1 2>/dev/null); do :; done");
        assert_eq!(
            r.trouble.iter().map(ToString::to_string).collect::<Vec<_>>(),
            [
                "'grep' failed with status 2: grep: missing: No such file or directory",
                "program 'npx' is not available in the reviewhost sandbox",
                "program 'seq' is not available in the reviewhost sandbox",
            ]
        );
        assert_eq!(r.programs, ["grep", "npx", "seq"]);
    }

    /// A runaway loop or recursion ends with a message, not a hang or a stack overflow.
    /// A stand-in for the host's granted programs: `npx` echoes its arguments, its stdin
    /// and its working directory, exits 2 when asked to; anything else is not granted.
    fn fake_host(name: &str, args: &[String], ctx: &Ctx, io: &mut Io) -> Result<i32, String> {
        if name != "npx" {
            return Err(format!("'{name}' is not granted"));
        }
        io.stdout.extend_from_slice(
            format!("npx {} in {} <{}>\n", args.join(" "), ctx.cwd, String::from_utf8_lossy(io.stdin)).as_bytes(),
        );
        if args.first().is_some_and(|a| a == "fail") {
            io.stderr.extend_from_slice(b"error TS2322\n");
            return Ok(2);
        }
        Ok(0)
    }

    #[test]
    fn granted_programs_run_on_the_host_inside_the_shells_pipes() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("web")).unwrap();
        let sh = |command: &str| {
            run_with_host(&parse(command).unwrap(), Ctx::new(dir.path()), crate::lookup, fake_host, NO_LIMIT)
        };
        let r = sh("cd web && echo in | npx tsc --noEmit 2>&1 | head -1 && echo after");
        assert_eq!((r.status, out(&r).as_str()), (0, "npx tsc --noEmit in /web <in\nafter\n"), "{:?}", r.trouble);
        assert!(r.trouble.is_empty());
        let r = sh("npx fail 2>&1 | tr a-z A-Z");
        assert!(out(&r).starts_with("NPX FAIL IN / <>\nERROR TS2322\n"), "{}", out(&r));
        let r = sh("npx fail");
        assert_eq!(r.status, 2);
        assert!(matches!(&r.trouble[..], [Trouble::Failed { program, status: 2, .. }] if program == "npx"));
        let r = sh("python3 -m pytest || true");
        assert_eq!(r.status, 0);
        assert_eq!(refused(&r), ["python3: 'python3' is not granted"]);
        let plain = run(&parse("npx tsc").unwrap(), Ctx::new(dir.path()), programs, NO_LIMIT);
        assert!(matches!(&plain.trouble[..], [Trouble::Unavailable(p)] if p == "npx"), "no host: unavailable");
    }

    #[test]
    fn a_lone_negation_negates_the_empty_pipeline() {
        // Found by fuzzing: `!` alone underflowed the stage count.
        let r = sh("!; echo $?");
        assert_eq!((r.status, out(&r)), (0, "1\n".to_string()));
    }

    #[test]
    fn limits_stop_runaway_scripts() {
        let r = sh("f() { f; }; f; echo never");
        assert_eq!((r.status, out(&r)), (STOPPED, String::new()));
        assert!(refused(&r)[0].starts_with("calls nested too deep (`f` at depth"), "{:?}", r.trouble);
        let r = sh("f() { echo $(f); }; f");
        assert!(refused(&r)[0].contains("calls nested too deep"));
        let r = sh("export S='bash -c \"$S\"'; bash -c \"$S\"");
        assert!(refused(&r)[0].contains("calls nested too deep"), "{:?}", r.trouble);
        let limited = |command: &str| {
            let dir = tempfile::tempdir().unwrap();
            run_limited(&parse(command).unwrap(), Ctx::new(dir.path()), programs, None, NO_LIMIT, 10_000)
        };
        let r = limited("while :; do :; done; echo never");
        assert_eq!((r.status, out(&r)), (STOPPED, String::new()));
        assert_eq!(
            refused(&r),
            ["more than 10000 loop iterations and function calls: the reviewhost shell stopped the script"]
        );
        let r = limited("(while :; do :; done); echo never | cat");
        assert_eq!((r.status, out(&r)), (STOPPED, String::new()), "a subshell does not hide the stop");
        let r = limited("f() { (( $1 > 0 )) && { f $(($1 - 1)); f $(($1 - 1)); }; }; f 20");
        assert!(refused(&r)[0].starts_with("more than 10000"), "{:?}", r.trouble);
    }
}
