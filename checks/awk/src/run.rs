//! One run of a parsed program: BEGIN, the main loop over the records, END, and the
//! exit status.

use reviewhost_tool::{Ctx, Io};

use crate::ast::{Dest, Program, Stmt, Var, slot};
use crate::error::{Error, Result};
use crate::interp::{Cell, Flow, Interp, Phase};
use crate::value::Value;

/// What the command line gave the program besides its text.
pub struct Invocation {
    /// `-v name=value`, in order, assigned before BEGIN.
    pub assignments: Vec<(String, Vec<u8>)>,
    /// `-F fs`, escapes already processed.
    pub field_sep: Option<Vec<u8>>,
    /// The operands after the program: files and `name=value` assignments.
    pub operands: Vec<String>,
}

/// Runs `program`; returns the exit status, with any error already on stderr.
pub fn run(program: &Program, invocation: &Invocation, ctx: &Ctx, io: &mut Io) -> i32 {
    let mut interp = match Interp::new(program, ctx, io) {
        Ok(interp) => interp,
        Err(e) => {
            io.stderr.extend_from_slice(e.message().as_bytes());
            return e.status();
        }
    };
    match phases(&mut interp, invocation) {
        Ok(()) => interp.exit_status,
        Err(e) => {
            interp.io.stderr.extend_from_slice(e.message().as_bytes());
            e.status()
        }
    }
}

fn setup(interp: &mut Interp, invocation: &Invocation) -> Result<()> {
    if let Some(fs) = &invocation.field_sep {
        interp.globals[slot::FS] = Cell::Val(Value::str(fs));
    }
    for (name, value) in &invocation.assignments {
        interp.assign_operand(name, value)?;
    }
    if let Ok(argv) = interp.array(Var::Global(slot::ARGV)) {
        let mut argv = argv.borrow_mut();
        argv.set(b"0".to_vec(), Value::str(b"awk"));
        for (i, operand) in invocation.operands.iter().enumerate() {
            argv.set((i + 1).to_string().into_bytes(), Value::input(operand.as_bytes()));
        }
    }
    interp.globals[slot::ARGC] = Cell::Val(Value::Num((invocation.operands.len() + 1) as f64));
    Ok(())
}

/// `exit`, `next` and `nextfile` reach a rule either as a flow or, from inside a
/// function, as an unwinding error: one form for the loop below.
fn action(interp: &mut Interp, stmts: &[Stmt]) -> Result<Flow> {
    match interp.exec_block(stmts) {
        Err(Error::Exit) => Ok(Flow::Exit),
        Err(Error::Next) => Ok(Flow::Next),
        Err(Error::NextFile) => Ok(Flow::NextFile),
        other => other,
    }
}

fn phases(interp: &mut Interp, invocation: &Invocation) -> Result<()> {
    setup(interp, invocation)?;
    let program = interp.prog;
    let mut exiting = false;
    interp.phase = Phase::Begin;
    for begin in &program.begin {
        if let Flow::Exit = action(interp, begin)? {
            exiting = true;
            break;
        }
    }
    if !exiting && (!program.rules.is_empty() || !program.end.is_empty()) {
        interp.phase = Phase::Main;
        'records: while let Some(record) = interp.next_main_record()? {
            interp.add_special(slot::NR, 1.0);
            interp.add_special(slot::FNR, 1.0);
            interp.set_record(&record)?;
            for rule in &program.rules {
                if !interp.selects(&rule.pattern)? {
                    continue;
                }
                let flow = match &rule.action {
                    Some(stmts) => action(interp, stmts)?,
                    None => action(interp, &[Stmt::Print(Vec::new(), Dest::Stdout)])?,
                };
                match flow {
                    Flow::Next => continue 'records,
                    Flow::NextFile => {
                        interp.current = None;
                        continue 'records;
                    }
                    Flow::Exit => break 'records,
                    _ => {}
                }
            }
        }
    }
    interp.phase = Phase::End;
    for end in &program.end {
        if let Flow::Exit = action(interp, end)? {
            break;
        }
    }
    Ok(())
}
