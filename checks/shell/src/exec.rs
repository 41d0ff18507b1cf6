//! The interpreter: runs a parsed [`Script`] over in-memory streams.
//!
//! Semantics follow bash for the subset [`crate::parse`] accepts: `$?` after every
//! pipeline, `&&`/`||` left to right, `!` negation, a pipeline's status is its last
//! command's (no pipefail), each stage of a multi-command pipeline and every `( )` runs
//! with its own copy of the current directory, `exit` ends the innermost subshell or the
//! script. Pipelines are buffered: a stage runs to completion before the next starts.
//!
//! What it records beyond bash is [`Trouble`]: a program that does not exist here, a
//! program that failed with an error (grep's status 2; any other program's non-zero
//! status with a message on stderr), a refused write. The judge uses it so that a check
//! that could not run is an `error`, never a vacuous pass, even when the analyst wrote
//! `2>/dev/null`.

use reviewhost_tool::{Ctx, Io, NO_LIMIT, Program, io_message};

use crate::parse::{AndOr, Command, Op, Piece, Pipeline, Redirect, Script, Word};

/// Finds a program by name.
pub type Lookup = fn(&str) -> Option<Program>;

/// Status of a program the sandbox does not have, as in a shell.
pub const NOT_FOUND: i32 = 127;

/// Something that went wrong while running the command, beyond a non-zero status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Trouble {
    /// The program does not exist in the sandbox.
    Unavailable(String),
    /// The program reported an error (not merely "no match").
    Failed { program: String, status: i32, message: String },
    /// A write, or a redirection from a file that cannot be read.
    Refused(String),
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
    /// Every program invoked, by name, in order (for diagnostics).
    pub programs: Vec<String>,
    /// The file whose lines are the script's stdout, when exactly one command wrote to it
    /// and that command printed one file's lines without naming it ([`Io::unnamed_file`]).
    pub unnamed_file: Option<String>,
}

/// Runs `script` with `ctx` as the filesystem view and `lookup` for programs.
/// `stdout_limit` is how much of the script's stdout the caller reads
/// ([`Io::stdout_limit`]); programs whose output goes straight there get it.
pub fn run(script: &Script, ctx: Ctx, lookup: Lookup, stdout_limit: usize) -> Run {
    let mut shell = Shell {
        ctx,
        lookup,
        last_status: 0,
        trouble: Vec::new(),
        programs: Vec::new(),
        stdout_limit,
        to_final: true,
        unnamed_file: None,
        final_writers: Vec::new(),
    };
    let mut stdout = Vec::new();
    let mut stderr = Vec::new();
    let status = match shell.script(script, &[], &mut stdout, &mut stderr) {
        Flow::Next(s) | Flow::Exit(s) => s,
    };
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

/// Whether execution continues after a command or an `exit` unwinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flow {
    Next(i32),
    Exit(i32),
}

impl Flow {
    fn status(self) -> i32 {
        match self {
            Flow::Next(s) | Flow::Exit(s) => s,
        }
    }
}

struct Shell {
    ctx: Ctx,
    lookup: Lookup,
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
}

/// Where a file descriptor's writes go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dest {
    Out,
    Err,
    Null,
}

impl Shell {
    fn script(&mut self, script: &Script, stdin: &[u8], out: &mut Vec<u8>, err: &mut Vec<u8>) -> Flow {
        let mut flow = Flow::Next(self.last_status);
        for item in &script.0 {
            flow = self.and_or(item, stdin, out, err);
            if let Flow::Exit(_) = flow {
                return flow;
            }
        }
        flow
    }

    fn and_or(&mut self, list: &AndOr, stdin: &[u8], out: &mut Vec<u8>, err: &mut Vec<u8>) -> Flow {
        let mut flow = self.pipeline(&list.first, stdin, out, err);
        for (op, next) in &list.rest {
            if let Flow::Exit(_) = flow {
                return flow;
            }
            let status = flow.status();
            if (*op == Op::And && status == 0) || (*op == Op::Or && status != 0) {
                flow = self.pipeline(next, stdin, out, err);
            }
        }
        flow
    }

    fn pipeline(&mut self, pipeline: &Pipeline, stdin: &[u8], out: &mut Vec<u8>, err: &mut Vec<u8>) -> Flow {
        let flow = if pipeline.commands.len() == 1 {
            self.command(&pipeline.commands[0], stdin, out, err)
        } else {
            // Every stage of a real pipeline is a subshell: `cd` and `exit` stay inside it.
            let mut input = stdin.to_vec();
            let mut status = 0;
            let last = pipeline.commands.len() - 1;
            let to_final = self.to_final;
            for (i, command) in pipeline.commands.iter().enumerate() {
                let saved_cwd = self.ctx.cwd.clone();
                let mut output = Vec::new();
                self.to_final = to_final && i == last;
                status = self.command(command, &input, &mut output, err).status();
                self.ctx.cwd = saved_cwd;
                if i == last {
                    append(out, output);
                } else {
                    input = output;
                }
            }
            self.to_final = to_final;
            Flow::Next(status)
        };
        let flow = match flow {
            Flow::Next(s) if pipeline.negated => Flow::Next(i32::from(s == 0)),
            other => other,
        };
        self.last_status = flow.status();
        flow
    }

    fn command(&mut self, command: &Command, stdin: &[u8], out: &mut Vec<u8>, err: &mut Vec<u8>) -> Flow {
        let redirects = match command {
            Command::Simple { redirects, .. }
            | Command::Subshell { redirects, .. }
            | Command::Group { redirects, .. }
            | Command::If { redirects, .. } => redirects,
        };
        let (dests, input) = match self.redirections(redirects, err) {
            Ok(routing) => routing,
            Err(()) => return Flow::Next(1),
        };
        let stdin = input.as_deref().unwrap_or(stdin);
        let mut own_out = Vec::new();
        let mut own_err = Vec::new();
        // Output the command sends elsewhere (a file, stderr, /dev/null) does not reach
        // the script's stdout, whatever it runs.
        let to_final = self.to_final;
        self.to_final = to_final && dests[0] == Dest::Out;
        let flow = match command {
            Command::Simple { words, .. } => self.simple(words, stdin, &mut own_out, &mut own_err),
            Command::Subshell { body, .. } => {
                let saved_cwd = self.ctx.cwd.clone();
                let status = self.script(body, stdin, &mut own_out, &mut own_err).status();
                self.ctx.cwd = saved_cwd;
                Flow::Next(status)
            }
            Command::Group { body, .. } => self.script(body, stdin, &mut own_out, &mut own_err),
            Command::If { branches, otherwise, .. } => {
                let mut chosen = None;
                for (condition, body) in branches {
                    match self.script(condition, stdin, &mut own_out, &mut own_err) {
                        Flow::Exit(s) => {
                            self.to_final = to_final;
                            return self.route(Flow::Exit(s), dests, own_out, own_err, out, err);
                        }
                        Flow::Next(0) => {
                            chosen = Some(body);
                            break;
                        }
                        Flow::Next(_) => {}
                    }
                }
                match chosen.or(otherwise.as_ref()) {
                    Some(body) => self.script(body, stdin, &mut own_out, &mut own_err),
                    None => Flow::Next(0),
                }
            }
        };
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

    /// Applies redirections in order: where fd 1 and 2 end up, and stdin from a file.
    fn redirections(&mut self, redirects: &[Redirect], err: &mut Vec<u8>) -> Result<([Dest; 2], Option<Vec<u8>>), ()> {
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
                    let target = self.expand_one(target, err);
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
                    let target = self.expand_one(target, err);
                    match read_input(&self.ctx, &target) {
                        Ok(bytes) => input = Some(bytes),
                        Err(message) => return self.refuse(err, message),
                    }
                }
            }
        }
        Ok((dests, input))
    }

    fn refuse<T>(&mut self, err: &mut Vec<u8>, message: String) -> Result<T, ()> {
        err.extend_from_slice(format!("reviewhost: {message}\n").as_bytes());
        self.trouble.push(Trouble::Refused(message));
        Err(())
    }

    fn simple(&mut self, words: &[Word], stdin: &[u8], out: &mut Vec<u8>, err: &mut Vec<u8>) -> Flow {
        let before = out.len();
        let flow = self.invoke(words, stdin, out, err);
        let unnamed_file = self.unnamed_file.take();
        if self.to_final && out.len() > before {
            self.final_writers.push(unnamed_file);
        }
        flow
    }

    fn invoke(&mut self, words: &[Word], stdin: &[u8], out: &mut Vec<u8>, err: &mut Vec<u8>) -> Flow {
        let argv = self.expand(words, err);
        let Some((name, args)) = argv.split_first() else {
            return Flow::Next(0);
        };
        self.programs.push(name.clone());
        match name.as_str() {
            "cd" => return Flow::Next(self.cd(args, err)),
            "exit" => {
                let status = match args.first() {
                    None => self.last_status,
                    Some(n) => n.parse::<i64>().map(|n| (n & 0xff) as i32).unwrap_or(2),
                };
                return Flow::Exit(status);
            }
            "pwd" => {
                out.extend_from_slice(format!("{}\n", self.ctx.cwd).as_bytes());
                return Flow::Next(0);
            }
            ":" => return Flow::Next(0),
            _ => {}
        }
        let Some(program) = (self.lookup)(name) else {
            let trouble = Trouble::Unavailable(name.clone());
            err.extend_from_slice(format!("reviewhost: {trouble}\n").as_bytes());
            self.trouble.push(trouble);
            return Flow::Next(NOT_FOUND);
        };
        let mut own_err = Vec::new();
        let stdout_limit = if self.to_final { self.stdout_limit } else { NO_LIMIT };
        let mut io = Io { stdin, stdout: out, stderr: &mut own_err, stdout_limit, unnamed_file: None };
        let status = program(args, &self.ctx, &mut io);
        self.unnamed_file = io.unnamed_file.take();
        let grep_family = matches!(name.as_str(), "grep" | "egrep" | "fgrep" | "rg");
        let failed = if grep_family { status >= 2 } else { status != 0 && !own_err.is_empty() };
        if failed {
            let message = String::from_utf8_lossy(&own_err).lines().next().unwrap_or("").to_string();
            self.trouble.push(Trouble::Failed { program: name.clone(), status, message });
        }
        err.extend_from_slice(&own_err);
        Flow::Next(status)
    }

    fn cd(&mut self, args: &[String], err: &mut Vec<u8>) -> i32 {
        let target = match args {
            [dir] => dir,
            [] => {
                let message = "cd: HOME not set".to_string();
                err.extend_from_slice(format!("{message}\n").as_bytes());
                self.trouble.push(Trouble::Failed { program: "cd".into(), status: 1, message });
                return 1;
            }
            _ => {
                let message = "cd: too many arguments".to_string();
                err.extend_from_slice(format!("{message}\n").as_bytes());
                self.trouble.push(Trouble::Failed { program: "cd".into(), status: 1, message });
                return 1;
            }
        };
        match std::fs::metadata(self.ctx.real(target)) {
            Ok(meta) if meta.is_dir() => {
                self.ctx.cwd = self.ctx.virtual_path(target);
                0
            }
            result => {
                let reason = match result {
                    Ok(_) => "Not a directory".to_string(),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => "No such file or directory".to_string(),
                    Err(e) => e.to_string(),
                };
                let message = format!("cd: {target}: {reason}");
                err.extend_from_slice(format!("{message}\n").as_bytes());
                self.trouble.push(Trouble::Failed { program: "cd".into(), status: 1, message });
                1
            }
        }
    }

    /// Expands a redirection target: one field, no splitting.
    fn expand_one(&mut self, word: &Word, err: &mut Vec<u8>) -> String {
        self.fields(word, err).into_iter().map(|f| f.text()).collect::<Vec<_>>().join(" ")
    }

    /// Expands words into arguments: substitutions, field splitting, globs, quote removal.
    fn expand(&mut self, words: &[Word], err: &mut Vec<u8>) -> Vec<String> {
        let mut argv = Vec::new();
        for word in words {
            for field in self.fields(word, err) {
                if field.has_glob() {
                    let matches = crate::glob::expand(&self.ctx, &field.segments);
                    if !matches.is_empty() {
                        argv.extend(matches);
                        continue;
                    }
                }
                argv.push(field.text());
            }
        }
        argv
    }

    fn fields(&mut self, word: &Word, err: &mut Vec<u8>) -> Vec<Field> {
        let mut fields = vec![Field::default()];
        for piece in &word.0 {
            match piece {
                Piece::Text { text, quoted } => fields.last_mut().expect("never empty").push(text, *quoted),
                Piece::LastStatus { quoted } => {
                    fields.last_mut().expect("never empty").push(&self.last_status.to_string(), *quoted)
                }
                Piece::Substitution { script, quoted } => {
                    let saved_cwd = self.ctx.cwd.clone();
                    let saved_status = self.last_status;
                    let mut captured = Vec::new();
                    let to_final = std::mem::replace(&mut self.to_final, false);
                    let status = self.script(script, &[], &mut captured, err).status();
                    self.to_final = to_final;
                    self.ctx.cwd = saved_cwd;
                    self.last_status = if status == 0 { saved_status } else { status };
                    let text = String::from_utf8_lossy(&captured);
                    let text = text.trim_end_matches('\n');
                    if *quoted {
                        fields.last_mut().expect("never empty").push(text, true);
                    } else {
                        let mut parts = text.split([' ', '\t', '\n']).filter(|p| !p.is_empty()).peekable();
                        let starts_with_space = text.starts_with([' ', '\t', '\n']);
                        if starts_with_space && !fields.last().expect("never empty").is_empty() {
                            fields.push(Field::default());
                        }
                        while let Some(part) = parts.next() {
                            fields.last_mut().expect("never empty").push(part, false);
                            if parts.peek().is_some() {
                                fields.push(Field::default());
                            }
                        }
                    }
                }
            }
        }
        fields.retain(|f| !f.is_empty());
        fields
    }
}

/// One field being built: text segments, each quoted (literal) or not (glob-active).
#[derive(Debug, Default, Clone)]
struct Field {
    segments: Vec<(String, bool)>,
    /// A quoted piece, even an empty one (`""`), makes the field exist.
    quoted_seen: bool,
}

impl Field {
    fn push(&mut self, text: &str, quoted: bool) {
        self.quoted_seen |= quoted;
        self.segments.push((text.to_string(), quoted));
    }

    fn is_empty(&self) -> bool {
        !self.quoted_seen && self.segments.iter().all(|(t, _)| t.is_empty())
    }

    fn has_glob(&self) -> bool {
        self.segments.iter().any(|(t, quoted)| !quoted && t.contains(['*', '?', '[']))
    }

    fn text(&self) -> String {
        self.segments.iter().map(|(t, _)| t.as_str()).collect()
    }
}

/// The contents of a `< file` input: a regular file inside the root, never a FIFO or
/// device (opening one could block the sandbox forever).
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
}
