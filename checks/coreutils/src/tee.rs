//! `tee`: standard input to standard output, as GNU coreutils 9.x does it, where the
//! only file it may also write is `/dev/null`.
//!
//! Agents write `… | tee /tmp/out.txt | wc -l` to keep a copy: the sandbox is read-only,
//! so a file operand other than `/dev/null` is refused with an error (exit 1) after the
//! copy to stdout, as GNU tee reports a file it cannot open and goes on.

use reviewhost_tool::getopt::{HasArg, Long, Spec};
use reviewhost_tool::{Ctx, Io};

use crate::common::{err, parse_opts, usage};

/// `tee [-a] [-i] [-p] [FILE...]`.
pub fn tee(args: &[String], _ctx: &Ctx, io: &mut Io) -> i32 {
    const SPEC: Spec = Spec::gnu(
        "aip",
        &[
            Long::short("append", 'a', HasArg::No),
            Long::short("ignore-interrupts", 'i', HasArg::No),
            Long::short("output-error", 'p', HasArg::Optional),
        ],
    );
    let p = match parse_opts("tee", args, &SPEC) {
        Ok(p) => p,
        Err(m) => return usage(io, &m, 1),
    };
    io.stdout.extend_from_slice(io.stdin);
    let mut status = 0;
    for file in p.operands.iter().filter(|f| f.as_str() != "/dev/null") {
        err(io, "tee", &format!("{file}: cannot write: the reviewhost sandbox is read-only"));
        status = 1;
    }
    status
}

#[cfg(test)]
mod tests {
    use super::*;
    use reviewhost_tool::NO_LIMIT;

    fn run(args: &[&str], stdin: &[u8]) -> (String, String, i32) {
        let (mut out, mut errs) = (Vec::new(), Vec::new());
        let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
        let mut io = Io { stdin, stdout: &mut out, stderr: &mut errs, stdout_limit: NO_LIMIT, unnamed_file: None };
        let status = tee(&args, &Ctx::new("/nonexistent"), &mut io);
        (String::from_utf8(out).unwrap(), String::from_utf8(errs).unwrap(), status)
    }

    #[test]
    fn copies_stdin_and_refuses_every_file_but_dev_null() {
        assert_eq!(run(&[], b"a\nb\n"), ("a\nb\n".into(), String::new(), 0));
        assert_eq!(run(&["-a", "/dev/null"], b"x"), ("x".into(), String::new(), 0));
        let (out, errs, status) = run(&["/tmp/copy.txt", "/dev/null"], b"x\n");
        assert_eq!((out.as_str(), status), ("x\n", 1));
        assert_eq!(errs, "tee: /tmp/copy.txt: cannot write: the reviewhost sandbox is read-only\n");
    }
}
