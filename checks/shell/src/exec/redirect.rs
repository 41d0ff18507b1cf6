//! Redirections: where a command's fd 1 and 2 go (the script's streams or nowhere: the
//! sandbox writes no file), and its stdin from a file or a here-document.

use reviewhost_tool::{Ctx, io_message};

use super::{Flow, Shell, append};
use crate::parse::Redirect;

/// Where a file descriptor's writes go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Dest {
    Out,
    Err,
    Null,
}

impl Shell {
    /// Sends a command's captured output where its redirections said.
    pub(super) fn route(
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

    /// Applies redirections in order: where fd 1 and 2 end up, stdin from a file or a
    /// here-document, and the inputs opened on descriptors above 2 (`3<file`, `3<<EOF`,
    /// read by `read -u 3`).
    #[inline(never)]
    pub(super) fn redirections(&mut self, redirects: &[Redirect], err: &mut Vec<u8>) -> Result<Routing, Flow> {
        let mut dests = [Dest::Out, Dest::Err];
        let mut input = None;
        let mut inputs: Vec<(i32, Vec<u8>)> = Vec::new();
        // Descriptors above 2 opened by this command (`9>&1`, `3>/dev/null`): no program
        // here writes to them, so they only matter to a later `2>&3` of the same command.
        let mut extra: Vec<(i32, Dest)> = Vec::new();
        for redirect in redirects {
            match redirect {
                Redirect::Duplicate { fd, to } => {
                    let target = match to {
                        1 => dests[0],
                        2 => dests[1],
                        other => match extra.iter().rev().find(|(n, _)| n == other) {
                            Some((_, dest)) => *dest,
                            None => return self.refuse(err, format!("redirection to file descriptor {other}")),
                        },
                    };
                    match fd {
                        1 => dests[0] = target,
                        2 => dests[1] = target,
                        n if *n > 2 => extra.push((*n, target)),
                        other => return self.refuse(err, format!("redirection of file descriptor {other}")),
                    }
                }
                Redirect::Close { fd } => match fd {
                    1 => dests[0] = Dest::Null,
                    2 => dests[1] = Dest::Null,
                    n => extra.retain(|(m, _)| m != n),
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
                            n if *n > 2 => extra.push((*n, Dest::Null)),
                            other => return self.refuse(err, format!("redirection of file descriptor {other}")),
                        }
                    }
                }
                Redirect::Input { fd, target } => {
                    let target = self.expand_one(target, err)?;
                    let bytes = if target == "/dev/null" {
                        Vec::new()
                    } else {
                        match read_input(&self.ctx, &target) {
                            Ok(bytes) => bytes,
                            Err(message) => return self.refuse(err, message),
                        }
                    };
                    self.open_input(*fd, bytes, &mut input, &mut inputs, err)?;
                }
                Redirect::Here { fd, text, newline } => {
                    let mut bytes = self.expand_text(text, err)?.into_bytes();
                    if *newline {
                        bytes.push(b'\n');
                    }
                    self.open_input(*fd, bytes, &mut input, &mut inputs, err)?;
                }
            }
        }
        Ok(Routing { dests, input, inputs })
    }

    /// Opens `bytes` as the input of `fd`: stdin for 0, a descriptor `read -u` reads for
    /// one above 2. Input on fd 1 or 2 would make the command's output fail: refused.
    fn open_input(
        &mut self,
        fd: i32,
        bytes: Vec<u8>,
        input: &mut Option<Vec<u8>>,
        inputs: &mut Vec<(i32, Vec<u8>)>,
        err: &mut Vec<u8>,
    ) -> Result<(), Flow> {
        match fd {
            0 => *input = Some(bytes),
            n if n > 2 => inputs.push((n, bytes)),
            n => return self.refuse(err, format!("input redirection to file descriptor {n}")),
        }
        Ok(())
    }
}

/// Where a command's redirections send and take its streams.
pub(super) struct Routing {
    /// Where fd 1 and 2 go.
    pub(super) dests: [Dest; 2],
    /// Its stdin, when redirected.
    pub(super) input: Option<Vec<u8>>,
    /// Inputs opened on descriptors above 2, in order (a later one of the same number
    /// wins).
    pub(super) inputs: Vec<(i32, Vec<u8>)>,
}

/// The contents of a `< file` input (or a script to run): a regular file inside the
/// root, never a FIFO or device (opening one could block the sandbox forever).
pub(super) fn read_input(ctx: &Ctx, target: &str) -> Result<Vec<u8>, String> {
    let real = ctx.real(target);
    let meta = std::fs::metadata(&real).map_err(|e| format!("{target}: {}", io_message(&e)))?;
    if !meta.is_file() {
        return Err(format!("{target}: not a regular file"));
    }
    std::fs::read(&real).map_err(|e| format!("{target}: {}", io_message(&e)))
}
