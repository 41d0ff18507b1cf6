//! The builtins: `cd`, `export`/`local`/`declare`, `unset`, `set`, `shift`, `let`,
//! `break`/`continue`/`return`, `eval`, `source`, `command`, `test`/`[` when they ask
//! for a variable (`-v`; otherwise they are the program), and the nested shells
//! `bash`/`sh` (also a `#!/bin/sh` script run by its path), which are this interpreter
//! again. `read` has its own module.

use std::collections::HashMap;

use reviewhost_tool::{Io, NO_LIMIT};

use super::{Flow, Input, NOT_FOUND, Options, Shell, State, failure, read_input};
use crate::parse::Script;
use crate::vars;

/// `eval --help`, as bash 5.2 prints it.
const EVAL_HELP: &str = concat!(
    "eval: eval [arg ...]\n",
    "    Execute arguments as a shell command.\n",
    "    \n",
    "    Combine ARGs into a single string, use the result as input to the shell,\n",
    "    and execute the resulting commands.\n",
    "    \n",
    "    Exit Status:\n",
    "    Returns exit status of command or success if command is null.\n",
);

/// What `command -v` finds besides functions and programs.
const BUILTINS: &[&str] = &[
    ".", ":", "bash", "break", "cd", "command", "continue", "declare", "eval", "exit", "export", "let", "local", "pwd",
    "printenv", "read", "readonly", "return", "set", "sh", "shift", "source", "typeset", "unset", "xargs",
];

impl Shell {
    /// Runs the builtin `name`; `None` when there is no builtin of that name.
    #[inline(never)]
    pub(super) fn builtin(
        &mut self,
        name: &str,
        args: &[String],
        stdin: &Input,
        out: &mut Vec<u8>,
        err: &mut Vec<u8>,
    ) -> Option<Flow> {
        let status = match name {
            "cd" => self.cd(args, err),
            "exit" => {
                let status = match args.first() {
                    None => self.last_status,
                    Some(n) => n.parse::<i64>().map(|n| (n & 0xff) as i32).unwrap_or(2),
                };
                return Some(Flow::Exit(status));
            }
            "pwd" => {
                out.extend_from_slice(format!("{}\n", self.ctx.cwd).as_bytes());
                0
            }
            ":" => 0,
            "export" | "readonly" | "declare" | "typeset" | "local" => self.declare(name, args, out, err),
            "unset" => self.unset(args, err),
            "set" => self.set(args, out, err),
            "shift" => self.shift(args, err),
            "read" => self.read(args, stdin, err),
            "test" | "[" if args.iter().any(|a| a == "-v") => self.test_variables(name, args, out, err),
            "let" => self.let_builtin(args, err),
            "break" | "continue" => return Some(self.loop_control(name, args, err)),
            "return" => return Some(self.return_builtin(args, err)),
            "eval" => return Some(self.eval(args, stdin, out, err)),
            "source" | "." => return Some(self.source(name, args, stdin, out, err)),
            "bash" | "sh" => return Some(self.shell(name, args, stdin, out, err)),
            "command" => return Some(self.command_builtin(args, stdin, out, err)),
            "xargs" => return Some(Flow::Next(self.xargs(args, stdin, out, err))),
            "printf" if args.first().is_some_and(|a| a == "-v") => self.printf_to_variable(&args[1..], stdin, err),
            "printenv" => self.printenv(args, out, err),
            _ => return None,
        };
        Some(Flow::Next(status))
    }

    #[inline(never)]
    fn cd(&mut self, args: &[String], err: &mut Vec<u8>) -> i32 {
        let target = match args {
            [dir] => dir,
            [] => return self.fail(err, "cd", 1, "cd: HOME not set".into()),
            _ => return self.fail(err, "cd", 1, "cd: too many arguments".into()),
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
                self.fail(err, "cd", 1, format!("cd: {target}: {reason}"))
            }
        }
    }

    /// `declare`, `typeset`, `local`, `export`, `readonly`: attributes and values. Inside
    /// a function `local` (and `declare` without `-g`) hides the caller's variable.
    #[inline(never)]
    fn declare(&mut self, builtin: &str, args: &[String], out: &mut Vec<u8>, err: &mut Vec<u8>) -> i32 {
        let (mut exported, mut readonly, mut global, mut print) =
            (builtin == "export", builtin == "readonly", false, false);
        let mut operands = Vec::new();
        let mut options_done = false;
        for arg in args {
            if !options_done && arg == "--" {
                options_done = true;
                continue;
            }
            let on = arg.starts_with('-');
            if options_done || arg.len() < 2 || !(on || arg.starts_with('+')) || !operands.is_empty() {
                operands.push(arg.as_str());
                continue;
            }
            for letter in arg[1..].chars() {
                match letter {
                    'x' => exported = on,
                    'r' => readonly = on,
                    'g' => global = on,
                    'p' => print = true,
                    'a' | 'A' => return self.refuse_status(err, format!("arrays (`{builtin} -{letter}`)")),
                    'i' | 'l' | 'u' | 'n' | 't' | 'f' | 'F' => {
                        return self.refuse_status(err, format!("`{builtin} -{letter}` is not supported"));
                    }
                    _ => return self.fail(err, builtin, 2, format!("{builtin}: -{letter}: invalid option")),
                }
            }
        }
        let in_function = self.state.vars.in_function();
        if builtin == "local" && !in_function {
            return self.fail(err, builtin, 1, "local: can only be used in a function".into());
        }
        let local = builtin == "local" || (matches!(builtin, "declare" | "typeset") && in_function && !global);
        if operands.is_empty() || print {
            return self.print_declared(builtin, &operands, out);
        }
        let mut status = 0;
        for operand in operands {
            let (name, value, append) = match operand.split_once('=') {
                Some((name, value)) => match name.strip_suffix('+') {
                    Some(name) => (name, Some(value), true),
                    None => (name, Some(value), false),
                },
                None => (operand, None, false),
            };
            if !vars::is_name(name) {
                self.error(err, &format!("{builtin}: `{operand}': not a valid identifier"));
                status = 1;
                continue;
            }
            let result = (|| {
                if local {
                    self.state.vars.local(name)?;
                }
                if let Some(value) = value {
                    let value = if append {
                        format!("{}{value}", self.state.vars.get(name).unwrap_or(""))
                    } else {
                        value.into()
                    };
                    self.state.vars.set(name, &value)?;
                }
                if (exported || readonly) && (value.is_some() || self.state.vars.get(name).is_some()) {
                    self.state.vars.mark(name, exported, readonly);
                }
                Ok::<(), String>(())
            })();
            if let Err(message) = result {
                self.error(err, &format!("{builtin}: {message}"));
                status = 1;
            }
        }
        status
    }

    /// `export -p`, `declare -p X`, `readonly`: the variables as bash prints them.
    #[inline(never)]
    fn print_declared(&mut self, builtin: &str, names: &[&str], out: &mut Vec<u8>) -> i32 {
        let mut status = 0;
        let mut text = String::new();
        let listed: Vec<(String, vars::Var)> = if names.is_empty() {
            self.state.vars.sorted().into_iter().map(|(name, var)| (name.to_string(), var.clone())).collect()
        } else {
            names
                .iter()
                .filter_map(|name| match self.state.vars.var(name) {
                    Some(var) => Some((name.to_string(), var.clone())),
                    None => {
                        status = 1;
                        None
                    }
                })
                .collect()
        };
        for (name, var) in listed {
            if (builtin == "export" && !var.exported) || (builtin == "readonly" && !var.readonly) {
                continue;
            }
            let flags = match (var.exported, var.readonly) {
                (true, true) => "-rx",
                (true, false) => "-x",
                (false, true) => "-r",
                (false, false) => "--",
            };
            let value = var.value.replace('\\', r"\\").replace('"', "\\\"").replace('$', "\\$").replace('`', "\\`");
            text.push_str(&format!("declare {flags} {name}=\"{value}\"\n"));
        }
        out.extend_from_slice(text.as_bytes());
        status
    }

    #[inline(never)]
    fn unset(&mut self, args: &[String], err: &mut Vec<u8>) -> i32 {
        let mut functions = None;
        let mut status = 0;
        for arg in args {
            match arg.as_str() {
                "-f" => functions = Some(true),
                "-v" => functions = Some(false),
                name => {
                    let is_function = functions.unwrap_or_else(|| {
                        self.state.vars.var(name).is_none() && self.state.functions.contains_key(name)
                    });
                    if is_function {
                        self.state.functions.remove(name);
                    } else if let Err(message) = self.state.vars.unset(name) {
                        self.error(err, &format!("unset: {message}"));
                        status = 1;
                    }
                }
            }
        }
        status
    }

    /// `set -e`, `set -o pipefail`, `set -- args`, `set` (the variables).
    fn set(&mut self, args: &[String], out: &mut Vec<u8>, err: &mut Vec<u8>) -> i32 {
        if args.is_empty() {
            let text: String = self
                .state
                .vars
                .sorted()
                .into_iter()
                .map(|(name, var)| format!("{name}={}\n", vars::quote(&var.value)))
                .collect();
            out.extend_from_slice(text.as_bytes());
            return 0;
        }
        let mut i = 0;
        while let Some(arg) = args.get(i) {
            let on = arg.starts_with('-');
            if arg == "--" || arg == "-" {
                self.state.vars.positional = args[i + 1..].to_vec();
                return 0;
            }
            if arg.len() < 2 || !(on || arg.starts_with('+')) {
                self.state.vars.positional = args[i..].to_vec();
                return 0;
            }
            let sign = if on { '-' } else { '+' };
            for letter in arg[1..].chars() {
                if letter != 'o' {
                    if !self.state.options.set_letter(letter, on) {
                        return self.refuse_status(err, format!("`set {sign}{letter}` is not supported"));
                    }
                    continue;
                }
                i += 1;
                let Some(name) = args.get(i) else {
                    let options = self.state.options;
                    let text: String = ["errexit", "noglob", "nounset", "pipefail", "xtrace"]
                        .iter()
                        .map(|name| format!("{name:<15}\t{}\n", if options.get(name) { "on" } else { "off" }))
                        .collect();
                    out.extend_from_slice(text.as_bytes());
                    return 0;
                };
                if !self.state.options.set(name, on) {
                    return self.refuse_status(err, format!("`set {sign}o {name}` is not supported"));
                }
            }
            i += 1;
        }
        0
    }

    #[inline(never)]
    fn shift(&mut self, args: &[String], err: &mut Vec<u8>) -> i32 {
        let n = match args.first() {
            None => 1,
            Some(n) => match n.parse::<usize>() {
                Ok(n) => n,
                Err(_) => return self.fail(err, "shift", 1, format!("shift: {n}: numeric argument required")),
            },
        };
        let positional = &mut self.state.vars.positional;
        if n > positional.len() {
            return 1;
        }
        positional.drain(..n);
        0
    }

    /// `test`/`[` with `-v NAME`, which asks for the shell's variables: the program's
    /// grammar and messages, with [`Shell::variable_is_set`] for the answer.
    #[inline(never)]
    fn test_variables(&mut self, name: &str, args: &[String], out: &mut Vec<u8>, err: &mut Vec<u8>) -> i32 {
        let mut own_err = Vec::new();
        let mut io = Io { stdin: &[], stdout: out, stderr: &mut own_err, stdout_limit: NO_LIMIT, unnamed_file: None };
        let variables = |variable: &str| self.variable_is_set(variable);
        let status = reviewhost_coreutils::test_with_variables(name, args, &self.ctx, &mut io, &variables);
        if status != 0 && !own_err.is_empty() {
            self.record(failure(name, status, &String::from_utf8_lossy(&own_err)));
        }
        err.extend_from_slice(&own_err);
        status
    }

    /// `-v NAME` of `test` and `[[ ]]`: whether the variable is set (`$PWD` always is, a
    /// positional parameter when there are that many, `$0` always); an error, refusing,
    /// for an array subscript. Any other word is no variable: not set.
    pub(super) fn variable_is_set(&self, name: &str) -> Result<bool, String> {
        if name.contains('[') && name.ends_with(']') {
            return Err(format!("-v {name}: arrays are not supported in the reviewhost sandbox"));
        }
        if !name.is_empty() && name.bytes().all(|b| b.is_ascii_digit()) {
            let vars = &self.state.vars;
            return Ok(name.parse::<usize>().is_ok_and(|n| n <= vars.positional.len()));
        }
        Ok(self.state.vars.get(name).is_some() || name == "PWD")
    }

    /// `let EXPR...`: 0 when the last expression is not zero.
    #[inline(never)]
    fn let_builtin(&mut self, args: &[String], err: &mut Vec<u8>) -> i32 {
        if args.is_empty() {
            return self.fail(err, "let", 1, "let: expression expected".into());
        }
        let mut last = 0;
        for arg in args {
            match self.arithmetic_text(arg, "let", err) {
                Ok(n) => last = n,
                Err(()) => return 1,
            }
        }
        i32::from(last == 0)
    }

    fn loop_control(&mut self, name: &str, args: &[String], err: &mut Vec<u8>) -> Flow {
        let n = match args.first().map(|a| (a, a.parse::<i64>())) {
            None => 1,
            Some((_, Ok(n))) if n >= 1 => n,
            Some((a, _)) => {
                return Flow::Next(self.fail(err, name, 1, format!("{name}: {a}: loop count out of range")));
            }
        };
        if self.loops == 0 {
            self.error(err, &format!("{name}: only meaningful in a `for', `while', or `until' loop"));
            return Flow::Next(0);
        }
        let n = u32::try_from(n).unwrap_or(u32::MAX).min(self.loops);
        if name == "break" { Flow::Break(n) } else { Flow::Continue(n) }
    }

    fn return_builtin(&mut self, args: &[String], err: &mut Vec<u8>) -> Flow {
        if self.returnable == 0 {
            self.error(err, "return: can only `return' from a function or sourced script");
            return Flow::Next(2);
        }
        match args.first() {
            None => Flow::Return(self.last_status),
            Some(n) => match n.parse::<i64>() {
                Ok(n) => Flow::Return((n & 0xff) as i32),
                Err(_) => Flow::Return(self.fail(err, "return", 2, format!("return: {n}: numeric argument required"))),
            },
        }
    }

    /// `eval [--] ARGS`: the arguments joined by spaces, run here. Like bash, it takes no
    /// option but `--help`: a first word that looks like one is an error (status 2).
    #[inline(never)]
    fn eval(&mut self, args: &[String], stdin: &Input, out: &mut Vec<u8>, err: &mut Vec<u8>) -> Flow {
        let args = match args.first().map(String::as_str) {
            Some("--") => &args[1..],
            Some("--help") => {
                out.extend_from_slice(EVAL_HELP.as_bytes());
                return Flow::Next(2);
            }
            Some(first) if first.len() > 1 && first.starts_with('-') => {
                let letter = first[1..].chars().next().unwrap_or('-');
                let message = format!("eval: -{letter}: invalid option\neval: usage: eval [arg ...]");
                return Flow::Next(self.fail(err, "eval", 2, message));
            }
            _ => args,
        };
        let source = args.join(" ");
        let script = match crate::parse::parse(&source) {
            Ok(script) => script,
            Err(e) => return self.unsupported(err, "eval", &e),
        };
        if let Err(flow) = self.enter("eval", err) {
            return flow;
        }
        let flow = self.script(&script, stdin, out, err);
        self.depth -= 1;
        flow
    }

    /// `source FILE [ARGS]` / `. FILE`: the file runs in this shell; `return` ends it.
    #[inline(never)]
    fn source(&mut self, name: &str, args: &[String], stdin: &Input, out: &mut Vec<u8>, err: &mut Vec<u8>) -> Flow {
        let Some((file, rest)) = args.split_first() else {
            return Flow::Next(self.fail(err, name, 2, format!("{name}: filename argument required")));
        };
        let text = match read_input(&self.ctx, file) {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(message) => return Flow::Next(self.fail(err, name, 1, format!("{name}: {message}"))),
        };
        let script = match crate::parse::parse(&text) {
            Ok(script) => script,
            Err(e) => return self.unsupported(err, &format!("{name} {file}"), &e),
        };
        if let Err(flow) = self.enter(file, err) {
            return flow;
        }
        let positional = (!rest.is_empty()).then(|| std::mem::replace(&mut self.state.vars.positional, rest.to_vec()));
        self.returnable += 1;
        let flow = self.script(&script, stdin, out, err);
        self.returnable -= 1;
        if let Some(positional) = positional {
            self.state.vars.positional = positional;
        }
        self.depth -= 1;
        match flow {
            Flow::Return(status) => Flow::Next(status),
            other => other,
        }
    }

    /// `bash [-euxo pipefail] -c SCRIPT [ARG0 ARGS]`, `sh FILE [ARGS]`, `bash -n FILE`,
    /// `bash` reading the script from stdin: this interpreter again, in a nested shell.
    #[inline(never)]
    fn shell(&mut self, name: &str, args: &[String], stdin: &Input, out: &mut Vec<u8>, err: &mut Vec<u8>) -> Flow {
        let mut options = Options::default();
        let (mut command, mut check_only) = (false, false);
        let mut i = 0;
        while let Some(arg) = args.get(i) {
            if arg == "--" || arg == "-" {
                i += 1;
                break;
            }
            if let Some(long) = arg.strip_prefix("--") {
                if !matches!(long, "norc" | "noprofile" | "login") {
                    return Flow::Next(self.fail(err, name, 2, format!("{name}: --{long}: invalid option")));
                }
                i += 1;
                continue;
            }
            let on = arg.starts_with('-');
            if arg.len() < 2 || !(on || arg.starts_with('+')) {
                break;
            }
            for letter in arg[1..].chars() {
                match letter {
                    'c' => command = true,
                    'n' => check_only = true,
                    // Login, interactive, read stdin: nothing to do without a terminal.
                    'l' | 'i' | 's' => {}
                    'o' => {
                        i += 1;
                        let option = args.get(i).map_or("", String::as_str);
                        if !options.set(option, on) {
                            return Flow::Next(
                                self.refuse_status(err, format!("`{name} -o {option}` is not supported")),
                            );
                        }
                    }
                    letter if options.set_letter(letter, on) => {}
                    letter => {
                        return Flow::Next(self.refuse_status(err, format!("`{name} -{letter}` is not supported")));
                    }
                }
            }
            i += 1;
        }
        let operands = args.get(i..).unwrap_or(&[]);
        let (source, arg0, params, label) = if command {
            let Some((script, rest)) = operands.split_first() else {
                return Flow::Next(self.fail(err, name, 2, format!("{name}: -c: option requires an argument")));
            };
            let arg0 = rest.first().cloned().unwrap_or_else(|| name.to_string());
            (script.clone(), arg0, rest.get(1..).unwrap_or(&[]).to_vec(), format!("{name} -c"))
        } else if let Some((file, rest)) = operands.split_first() {
            match read_input(&self.ctx, file) {
                Ok(bytes) => (
                    String::from_utf8_lossy(&bytes).into_owned(),
                    file.clone(),
                    rest.to_vec(),
                    format!("{name} {file}"),
                ),
                Err(message) => return Flow::Next(self.fail(err, name, NOT_FOUND, format!("{name}: {message}"))),
            }
        } else {
            (String::from_utf8_lossy(stdin.take_all()).into_owned(), name.to_string(), Vec::new(), name.to_string())
        };
        let script = match crate::parse::parse(&source) {
            Ok(script) => script,
            Err(e) => return self.unsupported(err, &label, &e),
        };
        if check_only {
            return Flow::Next(0);
        }
        let mut vars = self.state.vars.exported();
        vars.arg0 = arg0;
        vars.positional = params;
        options.invocation = if command {
            Some('c')
        } else if operands.is_empty() {
            Some('s')
        } else {
            None
        };
        let state = State { vars, functions: HashMap::new(), options };
        Flow::Next(self.nested(&label, &script, state, stdin, out, err))
    }

    /// Runs `script` as a separate shell with `state`; everything of this one is put back.
    fn nested(
        &mut self,
        label: &str,
        script: &Script,
        state: State,
        stdin: &Input,
        out: &mut Vec<u8>,
        err: &mut Vec<u8>,
    ) -> i32 {
        if let Err(flow) = self.enter(label, err) {
            return flow.status();
        }
        let state = std::mem::replace(&mut self.state, state);
        let cwd = self.ctx.cwd.clone();
        let loops = std::mem::replace(&mut self.loops, 0);
        let returnable = std::mem::replace(&mut self.returnable, 0);
        let conditions = std::mem::replace(&mut self.conditions, 0);
        self.last_status = 0;
        let status = self.script(script, stdin, out, err).status();
        self.state = state;
        self.ctx.cwd = cwd;
        self.loops = loops;
        self.returnable = returnable;
        self.conditions = conditions;
        self.depth -= 1;
        status
    }

    /// `./check.sh`, `scripts/x.sh`: a script whose `#!` line names sh or bash runs as
    /// `bash FILE` would. Anything else is left to the program lookup (not available).
    #[inline(never)]
    pub(super) fn script_file(
        &mut self,
        path: &str,
        args: &[String],
        stdin: &Input,
        out: &mut Vec<u8>,
        err: &mut Vec<u8>,
    ) -> Option<Flow> {
        let bytes = read_input(&self.ctx, path).ok()?;
        let first = bytes.split(|b| *b == b'\n').next()?;
        let mut words = std::str::from_utf8(first).ok()?.strip_prefix("#!")?.split_whitespace();
        let mut interpreter = words.next()?.rsplit('/').next()?;
        if interpreter == "env" {
            interpreter = words.next()?;
        }
        if !matches!(interpreter, "sh" | "bash" | "dash") {
            return None;
        }
        let interpreter = interpreter.to_string();
        let shell_args: Vec<String> =
            words.map(str::to_string).chain(std::iter::once(path.to_string())).chain(args.iter().cloned()).collect();
        Some(self.shell(&interpreter, &shell_args, stdin, out, err))
    }

    /// `xargs`, as GNU findutils 4.9's: [`reviewhost_coreutils::xargs`] reads its options
    /// and input into command lines, which run inside this interpreter like any other (a
    /// sandboxed program, a builtin, `bash -c`), with an empty stdin (xargs' own with
    /// `-a FILE`). Exit statuses are GNU's (123, 124, 126, 127).
    #[inline(never)]
    fn xargs(&mut self, args: &[String], stdin: &Input, out: &mut Vec<u8>, err: &mut Vec<u8>) -> i32 {
        let plan = match reviewhost_coreutils::xargs::plan(args, &self.ctx, stdin.rest()) {
            Ok(plan) => plan,
            Err(refusal) => {
                let message = refusal.message.trim_end().to_string();
                return self.fail(err, "xargs", refusal.status, message);
            }
        };
        // With `-a FILE` the commands read what is left of xargs' own stdin.
        let commands_stdin = Input::new(if plan.keep_stdin { stdin.take_all() } else { b"" });
        let mut saved = Vec::new();
        if let Some(name) = &plan.slot_var
            && let Err(message) = self.state.vars.set_scoped(name, "0", &mut saved)
        {
            return self.fail(err, "xargs", 1, format!("xargs: {message}"));
        }
        let status = reviewhost_coreutils::xargs::run(&plan, err, |call, err| {
            let (name, call_args) = call.split_first().expect("a command");
            // A command's `exit` or `return` ends that command, not the script.
            self.dispatch(name, call_args, true, &commands_stdin, out, err).status()
        });
        for (name, old) in saved.into_iter().rev() {
            self.state.vars.restore(&name, old);
        }
        status
    }

    /// `printf -v NAME FORMAT [ARG...]`: the program's output, exactly, becomes the
    /// variable's value (bash's builtin; the sandbox's `printf` formats).
    #[inline(never)]
    fn printf_to_variable(&mut self, args: &[String], stdin: &Input, err: &mut Vec<u8>) -> i32 {
        const USAGE: &str = "printf: usage: printf [-v var] format [arguments]";
        let Some((name, rest)) = args.split_first() else {
            return self.fail(err, "printf", 2, format!("printf: -v: option requires an argument\n{USAGE}"));
        };
        if name.contains('[') && name.ends_with(']') {
            return self
                .refuse_status(err, format!("printf -v {name}: arrays are not supported in the reviewhost sandbox"));
        }
        if !vars::is_name(name) {
            return self.fail(err, "printf", 2, format!("printf: `{name}': not a valid identifier"));
        }
        let mut value = Vec::new();
        let status = self.program("printf", rest, stdin, &mut value, err);
        // bash assigns what was formatted, even when an argument was not a number; not
        // after a usage error (no format, an unknown option).
        if status != 2 {
            let value = String::from_utf8_lossy(&value).into_owned();
            if let Err(message) = self.state.vars.set(name, &value) {
                self.error(err, &message);
                return 1;
            }
        }
        status
    }

    /// `printenv [NAME...]`: the exported variables, which are the environment of the
    /// sandbox's programs (coreutils' program: 1 when a name is not exported).
    #[inline(never)]
    fn printenv(&mut self, args: &[String], out: &mut Vec<u8>, err: &mut Vec<u8>) -> i32 {
        if let Some(option) = args.iter().find(|a| a.starts_with('-') && a.len() > 1) {
            return self
                .refuse_status(err, format!("printenv: option `{option}' is not supported in the reviewhost sandbox"));
        }
        let exported = |name: &str| self.state.vars.var(name).filter(|v| v.exported).map(|v| v.value.to_string());
        if args.is_empty() {
            let mut names: Vec<&String> = self.state.vars.names().filter(|n| exported(n).is_some()).collect();
            names.sort();
            for name in names {
                out.extend_from_slice(format!("{name}={}\n", exported(name).unwrap_or_default()).as_bytes());
            }
            return 0;
        }
        let mut status = 0;
        for name in args {
            match exported(name) {
                Some(value) if !name.contains('=') => out.extend_from_slice(format!("{value}\n").as_bytes()),
                _ => status = 1,
            }
        }
        status
    }

    /// `command -v NAME` (is it there?) and `command NAME ARGS` (not a function).
    #[inline(never)]
    fn command_builtin(&mut self, args: &[String], stdin: &Input, out: &mut Vec<u8>, err: &mut Vec<u8>) -> Flow {
        let mut describe = None;
        let mut i = 0;
        while let Some(arg) = args.get(i) {
            match arg.as_str() {
                "-v" => describe = Some(false),
                "-V" => describe = Some(true),
                "-p" => {}
                "--" => {
                    i += 1;
                    break;
                }
                a if a.starts_with('-') => {
                    return Flow::Next(self.fail(err, "command", 2, format!("command: {a}: invalid option")));
                }
                _ => break,
            }
            i += 1;
        }
        let rest = args.get(i..).unwrap_or(&[]);
        let Some(verbose) = describe else {
            return match rest.split_first() {
                Some((name, args)) => self.dispatch(name, args, false, stdin, out, err),
                None => Flow::Next(0),
            };
        };
        let mut status = 0;
        for name in rest {
            let kind = if self.state.functions.contains_key(name) {
                "a function"
            } else if BUILTINS.contains(&name.as_str()) {
                "a shell builtin"
            } else if (self.lookup)(name).is_some() {
                "a program of the reviewhost sandbox"
            } else {
                status = 1;
                if verbose {
                    self.error(err, &format!("command: {name}: not found"));
                }
                continue;
            };
            let line = if verbose { format!("{name} is {kind}\n") } else { format!("{name}\n") };
            out.extend_from_slice(line.as_bytes());
        }
        Flow::Next(status)
    }
}

#[cfg(test)]
mod tests {
    use reviewhost_tool::{Ctx, NO_LIMIT};

    use super::super::{Trouble, run};
    use crate::parse::parse;

    /// The script's stdout and whether it was refused.
    fn sh(command: &str) -> (String, bool) {
        let dir = tempfile::tempdir().unwrap();
        let r = run(&parse(command).unwrap(), Ctx::new(dir.path()), crate::lookup, NO_LIMIT);
        let refused = r.trouble.iter().any(|t| matches!(t, Trouble::Refused(_)));
        (String::from_utf8_lossy(&r.stdout).into_owned(), refused)
    }

    fn out(command: &str) -> String {
        let (stdout, refused) = sh(command);
        assert!(!refused, "{command}: refused");
        stdout
    }

    // Every expected output below is bash 5.2's.

    #[test]
    fn test_v_asks_for_the_shell_variables() {
        let script = "test -v nonexistent; echo global=$?
            g=1; test -v g; echo global=$?
            f() { local f_var=0; g; }
            g() { test -v f_var; echo dynamic=$?; [ -v g ]; echo dynamic=$?; test -v nonexistent; echo dynamic=$?; }
            f";
        assert_eq!(out(script), "global=1\nglobal=0\ndynamic=0\ndynamic=0\ndynamic=1\n");
        assert_eq!(out("set -- a; test -v 1; echo $?; test -v 2; echo $?; test -v 0; echo $?"), "0\n1\n0\n");
        assert_eq!(out("f() { test -v 1; echo $?; }; f a; f"), "0\n1\n");
        assert_eq!(out("x=; [ -v x ] && echo set; test -v '#'; echo $?; test -v 'a b'; echo $?"), "set\n1\n1\n");
        assert_eq!(out("test -v; echo $?; [ -v = -v ]; echo $?; test ! -v x; echo $?"), "0\n0\n0\n");
        assert_eq!(out("x=1; test -v x -o -v y; echo $?; test -v x -a -v y; echo $?"), "0\n1\n");
        assert_eq!(out("test -v x y; echo $?"), "2\n");
        assert_eq!(out("set -- a; [[ -v 1 ]] && echo one; [[ -v 2 ]] || echo two"), "one\ntwo\n");
    }

    #[test]
    fn test_v_refuses_array_subscripts() {
        assert!(sh("x=1; test -v 'x[0]'").1);
        assert!(sh("x=1; [ -v 'x[0]' ]").1);
        assert!(sh("x=1; [[ -v x[0] ]]").1);
    }

    #[test]
    fn eval_takes_no_options() {
        assert_eq!(out("eval -- echo hi"), "hi\n");
        assert_eq!(out("eval --; echo $?; eval echo -z"), "0\n-z\n");
        assert_eq!(
            out("eval -z; echo $?; eval -1; echo $?; eval --x; echo $?; eval -zz echo; echo $?"),
            "2\n2\n2\n2\n"
        );
        assert_eq!(out("eval -; echo $?"), "127\n");
        assert!(
            out("eval --help; echo $?").ends_with("Returns exit status of command or success if command is null.\n2\n")
        );
    }
}
