//! `basename` and `dirname`, as GNU coreutils 9.x.

use reviewhost_tool::getopt::{HasArg, Long, Spec};
use reviewhost_tool::{Ctx, Io};

use crate::common::{parse_opts, usage, usage_try};

/// The last component of `name`, trailing slashes ignored, as `basename` prints it.
fn base_of(name: &str) -> String {
    let t = name.trim_end_matches('/');
    if t.is_empty() {
        return if name.is_empty() { String::new() } else { "/".into() };
    }
    match t.rfind('/') {
        Some(p) => t[p + 1..].to_string(),
        None => t.to_string(),
    }
}

/// `basename NAME [SUFFIX]`, `basename -a [-s SUFFIX] NAME...`.
pub fn basename(args: &[String], _ctx: &Ctx, io: &mut Io) -> i32 {
    const SPEC: Spec = Spec::gnu(
        "s:az",
        &[
            Long::short("multiple", 'a', HasArg::No),
            Long::short("suffix", 's', HasArg::Required),
            Long::short("zero", 'z', HasArg::No),
        ],
    );
    let p = match parse_opts("basename", args, &SPEC) {
        Ok(p) => p,
        Err(m) => return usage(io, &m, 1),
    };
    let (mut multiple, mut suffix, mut zero) = (false, None, false);
    for (c, v) in p.opts {
        match c {
            'a' => multiple = true,
            's' => {
                multiple = true;
                suffix = v;
            }
            'z' => zero = true,
            _ => {}
        }
    }
    let ops = p.operands;
    if ops.is_empty() {
        return usage_try(io, "basename", "missing operand", 1);
    }
    let names: Vec<String> = if multiple {
        ops
    } else {
        if ops.len() > 2 {
            return usage_try(io, "basename", &format!("extra operand '{}'", ops[2]), 1);
        }
        suffix = ops.get(1).cloned();
        vec![ops[0].clone()]
    };
    for n in names {
        let mut b = base_of(&n);
        if let Some(s) = &suffix
            && !s.is_empty()
            && b.len() > s.len()
            && b.ends_with(s.as_str())
        {
            b.truncate(b.len() - s.len());
        }
        io.stdout.extend_from_slice(b.as_bytes());
        io.stdout.push(if zero { 0 } else { b'\n' });
    }
    0
}

/// `dirname NAME...`.
pub fn dirname(args: &[String], _ctx: &Ctx, io: &mut Io) -> i32 {
    const SPEC: Spec = Spec::gnu("z", &[Long::short("zero", 'z', HasArg::No)]);
    let p = match parse_opts("dirname", args, &SPEC) {
        Ok(p) => p,
        Err(m) => return usage(io, &m, 1),
    };
    let zero = !p.opts.is_empty();
    if p.operands.is_empty() {
        return usage_try(io, "dirname", "missing operand", 1);
    }
    for n in &p.operands {
        let t = n.trim_end_matches('/');
        let d = if t.is_empty() {
            if n.starts_with('/') { "/" } else { "." }
        } else {
            match t.rfind('/') {
                None => ".",
                Some(p) => {
                    let head = t[..p].trim_end_matches('/');
                    if head.is_empty() { "/" } else { head }
                }
            }
        };
        io.stdout.extend_from_slice(d.as_bytes());
        io.stdout.push(if zero { 0 } else { b'\n' });
    }
    0
}
