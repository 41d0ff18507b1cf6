//! The compound commands: `if`, loops with `break`/`continue`, `case`, function
//! definitions, `[[ ]]` and `(( ))`.

use std::rc::Rc;

use reviewhost_tool::{Io, NO_LIMIT};

use super::{Flow, Input, Shell};
use crate::parse::{AndOr, CaseArm, CaseThen, Command, Compound, Pipeline, Script, TestExpr, TestOp, Word};
use crate::vars;

/// What a loop does after its body ran.
enum Step {
    Again(i32),
    Done(i32),
    Leave(Flow),
}

impl Shell {
    /// Runs a [`Command::Group`]'s body as its kind says.
    pub(super) fn compound(
        &mut self,
        kind: &Compound,
        body: &Script,
        stdin: &Input,
        out: &mut Vec<u8>,
        err: &mut Vec<u8>,
    ) -> Flow {
        match kind {
            Compound::Braces => self.script(body, stdin, out, err),
            Compound::For { name, words } => self.for_loop(name, words.as_deref(), body, stdin, out, err),
            Compound::ArithmeticFor { init, condition, step } => {
                self.arithmetic_for([init, condition, step], body, stdin, out, err)
            }
            Compound::While { condition, until } => self.while_loop(condition, *until, body, stdin, out, err),
            Compound::Case { subject, arms } => self.case(subject, arms, stdin, out, err),
            Compound::Function { name } => {
                self.define(name, body);
                Flow::Next(0)
            }
            Compound::Test(expr) => match self.test(expr, err) {
                Ok(holds) => Flow::Next(i32::from(!holds)),
                Err(flow) => flow,
            },
            Compound::Arithmetic(word) => match self.arithmetic(word, "((", err) {
                Ok(Ok(n)) => Flow::Next(i32::from(n == 0)),
                Ok(Err(())) => Flow::Next(1),
                Err(flow) => flow,
            },
        }
    }

    /// Defines a function. A body `{ ...; }` is kept as its commands: a call then
    /// recurses through one [`Shell::command`] less.
    #[inline(never)]
    fn define(&mut self, name: &str, body: &Script) {
        let commands = match body.0.as_slice() {
            [AndOr { first: Pipeline { negated: false, commands }, rest }] if rest.is_empty() => commands.as_slice(),
            _ => &[],
        };
        let body = match commands {
            [Command::Group { body, redirects, kind: Compound::Braces }] if redirects.is_empty() => body,
            _ => body,
        };
        self.state.functions.insert(name.to_string(), Rc::new(body.clone()));
    }

    pub(super) fn if_clause(
        &mut self,
        branches: &[(Script, Script)],
        otherwise: Option<&Script>,
        stdin: &Input,
        out: &mut Vec<u8>,
        err: &mut Vec<u8>,
    ) -> Flow {
        for (condition, body) in branches {
            self.conditions += 1;
            let flow = self.script(condition, stdin, out, err);
            self.conditions -= 1;
            match flow {
                Flow::Next(0) => return self.script(body, stdin, out, err),
                Flow::Next(_) => {}
                flow => return flow,
            }
        }
        match otherwise {
            Some(body) => self.script(body, stdin, out, err),
            None => Flow::Next(0),
        }
    }

    /// Runs a loop's body (or condition) and says what the loop does next.
    fn loop_step(&mut self, body: &Script, stdin: &Input, out: &mut Vec<u8>, err: &mut Vec<u8>) -> Step {
        match self.script(body, stdin, out, err) {
            Flow::Next(status) => Step::Again(status),
            Flow::Break(n) if n > 1 => Step::Leave(Flow::Break(n - 1)),
            Flow::Break(_) => Step::Done(0),
            Flow::Continue(n) if n > 1 => Step::Leave(Flow::Continue(n - 1)),
            Flow::Continue(_) => Step::Again(0),
            flow => Step::Leave(flow),
        }
    }

    /// Runs a loop: `break` and `continue` inside apply to it.
    fn in_loop(&mut self, run: impl FnOnce(&mut Shell) -> Flow) -> Flow {
        self.loops += 1;
        let flow = run(self);
        self.loops -= 1;
        flow
    }

    #[inline(never)]
    fn for_loop(
        &mut self,
        name: &str,
        words: Option<&[Word]>,
        body: &Script,
        stdin: &Input,
        out: &mut Vec<u8>,
        err: &mut Vec<u8>,
    ) -> Flow {
        let items = match words {
            Some(words) => match self.expand(words, err) {
                Ok(items) => items,
                Err(flow) => return flow,
            },
            None => self.state.vars.positional.clone(),
        };
        self.in_loop(|shell| {
            let mut status = 0;
            for item in &items {
                if let Err(flow) = shell.step(err) {
                    return flow;
                }
                if let Err(message) = shell.state.vars.set(name, item) {
                    shell.error(err, &message);
                    return Flow::Next(1);
                }
                match shell.loop_step(body, stdin, out, err) {
                    Step::Again(s) => status = s,
                    Step::Done(s) => return Flow::Next(s),
                    Step::Leave(flow) => return flow,
                }
            }
            Flow::Next(status)
        })
    }

    #[inline(never)]
    fn while_loop(
        &mut self,
        condition: &Script,
        until: bool,
        body: &Script,
        stdin: &Input,
        out: &mut Vec<u8>,
        err: &mut Vec<u8>,
    ) -> Flow {
        self.in_loop(|shell| {
            let mut status = 0;
            loop {
                if let Err(flow) = shell.step(err) {
                    return flow;
                }
                shell.conditions += 1;
                let tested = shell.loop_step(condition, stdin, out, err);
                shell.conditions -= 1;
                match tested {
                    Step::Again(s) if (s == 0) == until => return Flow::Next(status),
                    Step::Again(_) => {}
                    Step::Done(s) => return Flow::Next(s),
                    Step::Leave(flow) => return flow,
                }
                match shell.loop_step(body, stdin, out, err) {
                    Step::Again(s) => status = s,
                    Step::Done(s) => return Flow::Next(s),
                    Step::Leave(flow) => return flow,
                }
            }
        })
    }

    /// `for ((init; condition; step))`: an empty condition is true.
    #[inline(never)]
    fn arithmetic_for(
        &mut self,
        [init, condition, step]: [&Option<Word>; 3],
        body: &Script,
        stdin: &Input,
        out: &mut Vec<u8>,
        err: &mut Vec<u8>,
    ) -> Flow {
        self.in_loop(|shell| {
            let mut status = 0;
            if let Err(flow) = shell.loop_arithmetic(init, err) {
                return flow;
            }
            loop {
                if let Err(flow) = shell.step(err) {
                    return flow;
                }
                match shell.loop_arithmetic(condition, err) {
                    Ok(0) => return Flow::Next(status),
                    Ok(_) => {}
                    Err(flow) => return flow,
                }
                match shell.loop_step(body, stdin, out, err) {
                    Step::Again(s) => status = s,
                    Step::Done(s) => return Flow::Next(s),
                    Step::Leave(flow) => return flow,
                }
                if let Err(flow) = shell.loop_arithmetic(step, err) {
                    return flow;
                }
            }
        })
    }

    /// One of the expressions of `for ((;;))`: an error ends the loop with status 1.
    fn loop_arithmetic(&mut self, word: &Option<Word>, err: &mut Vec<u8>) -> Result<i64, Flow> {
        match word {
            None => Ok(1),
            Some(word) => self.arithmetic(word, "((", err)?.map_err(|()| Flow::Next(1)),
        }
    }

    #[inline(never)]
    fn case(&mut self, subject: &Word, arms: &[CaseArm], stdin: &Input, out: &mut Vec<u8>, err: &mut Vec<u8>) -> Flow {
        let subject = match self.expand_text(subject, err) {
            Ok(subject) => subject,
            Err(flow) => return flow,
        };
        let mut status = 0;
        let mut fall_through = false;
        for arm in arms {
            let mut selected = fall_through;
            for pattern in &arm.patterns {
                if selected {
                    break;
                }
                match self.expand_pattern(pattern, err) {
                    Ok(pattern) => selected = vars::matches(&pattern, &subject),
                    Err(flow) => return flow,
                }
            }
            if !selected {
                continue;
            }
            status = if arm.body.0.is_empty() {
                0
            } else {
                match self.script(&arm.body, stdin, out, err) {
                    Flow::Next(s) => s,
                    flow => return flow,
                }
            };
            match arm.then {
                CaseThen::Stop => return Flow::Next(status),
                CaseThen::FallThrough => fall_through = true,
                CaseThen::TestNext => fall_through = false,
            }
        }
        Flow::Next(status)
    }

    /// Evaluates `[[ expr ]]`. An error is the flow to return: status 2 for a bad
    /// regular expression, 1 for bad arithmetic, an exit for a failed expansion.
    #[inline(never)]
    fn test(&mut self, expr: &TestExpr, err: &mut Vec<u8>) -> Result<bool, Flow> {
        Ok(match expr {
            TestExpr::And(a, b) => self.test(a, err)? && self.test(b, err)?,
            TestExpr::Or(a, b) => self.test(a, err)? || self.test(b, err)?,
            TestExpr::Not(a) => !self.test(a, err)?,
            TestExpr::Unary(op, word) => {
                let operand = self.expand_text(word, err)?;
                match *op {
                    "-z" => operand.is_empty(),
                    "-n" => !operand.is_empty(),
                    "-v" => self.state.vars.get(&operand).is_some(),
                    "-o" => self.state.options.get(&operand),
                    op => self.file_test(&[op, &operand]),
                }
            }
            TestExpr::Binary(op, left, right) => {
                let left = self.expand_text(left, err)?;
                match op {
                    TestOp::Match | TestOp::NoMatch => {
                        let pattern = self.expand_pattern(right, err)?;
                        vars::matches(&pattern, &left) == (*op == TestOp::Match)
                    }
                    TestOp::Regex => {
                        let regex = self.expand_regex(right, err)?;
                        self.regex_match(&regex, &left, err)?
                    }
                    TestOp::Before => left < self.expand_text(right, err)?,
                    TestOp::After => left > self.expand_text(right, err)?,
                    TestOp::Integer(op) => {
                        let right = self.expand_text(right, err)?;
                        let a = self.arithmetic_text(&left, "[[", err).map_err(|()| Flow::Next(1))?;
                        let b = self.arithmetic_text(&right, "[[", err).map_err(|()| Flow::Next(1))?;
                        reviewhost_coreutils::compare_integers(op, a, b)
                    }
                    TestOp::Files(op) => {
                        let right = self.expand_text(right, err)?;
                        self.file_test(&[&left, op, &right])
                    }
                }
            }
        })
    }

    /// A file test (`-f`, `-nt`, ...) by the `test` builtin's rules.
    fn file_test(&self, args: &[&str]) -> bool {
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
        let mut io =
            Io { stdin: &[], stdout: &mut stdout, stderr: &mut stderr, stdout_limit: NO_LIMIT, unnamed_file: None };
        reviewhost_coreutils::test(&args, &self.ctx, &mut io) == 0
    }

    /// `[[ text =~ regex ]]`, with grep's extended syntax (no `BASH_REMATCH`).
    fn regex_match(&mut self, regex: &str, text: &str, err: &mut Vec<u8>) -> Result<bool, Flow> {
        use reviewhost_grep::translate::{Syntax, translate};
        let compiled = translate(regex, Syntax::Extended)
            .map_err(|e| e.0)
            .and_then(|t| reviewhost_grep::search::Matcher::new(Some(&t.regex), false).map_err(|e| e.to_string()));
        match compiled {
            Ok(matcher) => Ok(matcher.is_match(text.as_bytes())),
            Err(message) => {
                self.error(err, &format!("[[: {regex}: {message}"));
                Err(Flow::Next(2))
            }
        }
    }
}
