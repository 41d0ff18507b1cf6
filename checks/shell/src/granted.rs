//! The `programs` import (`wit/`): a program the operator granted runs on the host,
//! confined, with the arguments, working directory and stdin the shell gives it.

use reviewhost_tool::{Ctx, Io};

wit_bindgen::generate!({ path: "../../wit", world: "program-client" });

use reviewhost::check::programs::{self, Ended, Invocation};

/// [`crate::exec::HostProgram`] over the import.
pub fn run(name: &str, args: &[String], ctx: &Ctx, io: &mut Io) -> Result<i32, String> {
    let invocation = Invocation {
        program: name.to_string(),
        args: args.to_vec(),
        cwd: ctx.cwd.trim_start_matches('/').to_string(),
        stdin: io.stdin.to_vec(),
    };
    let outcome = programs::run(&invocation)?;
    io.stdout.extend_from_slice(&outcome.stdout);
    io.stderr.extend_from_slice(&outcome.stderr);
    Ok(match outcome.ended {
        Ended::Exited(status) => status,
        // As a shell reports a process a signal killed.
        Ended::Signalled(signal) => 128 + signal,
    })
}
