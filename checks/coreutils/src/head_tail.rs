//! `head` and `tail`: the first or last lines or bytes of each file, with GNU's `==> NAME <==` headers.
//!
//! GNU coreutils 9.x under `LC_ALL=C.UTF-8`.
//!
//! Left out on purpose: `tail -f` (it waits for input that never ends).

use reviewhost_tool::getopt::{HasArg, Long, Spec};
use reviewhost_tool::{Ctx, Io};

use crate::common::{ReadError, err, parse_opts, read_operand, usage};

/// Default count of `head` and `tail`.
const DEFAULT_LINES: u64 = 10;

/// The name GNU prints in `==> ... <==` headers for stdin.
fn display_name(name: &str) -> &str {
    if name == "-" { "standard input" } else { name }
}

/// A parsed `-n`/`-c` count: the number, and whether it is relative to the other end
/// (`head -n -3`, `tail -n +3`).
#[derive(Clone, Copy)]
struct Count {
    n: u64,
    from_other_end: bool,
}

/// Parse a GNU count with an optional multiplier suffix (`b`, `K`, `KB`, `KiB`, `M`, ...).
fn parse_count(s: &str, other_end_sign: char) -> Option<Count> {
    let (from_other_end, body) = match s.strip_prefix(other_end_sign) {
        Some(rest) => (true, rest),
        None => (false, s.strip_prefix(if other_end_sign == '-' { '+' } else { '-' }).unwrap_or(s)),
    };
    let digits_end = body.find(|c: char| !c.is_ascii_digit()).unwrap_or(body.len());
    if digits_end == 0 {
        return None;
    }
    let n: u64 = body[..digits_end].parse().unwrap_or(u64::MAX);
    let mult: u64 = match &body[digits_end..] {
        "" => 1,
        "b" => 512,
        "K" | "KiB" | "k" => 1024,
        "KB" | "kB" => 1000,
        "M" | "MiB" => 1 << 20,
        "MB" => 1_000_000,
        "G" | "GiB" => 1 << 30,
        "GB" => 1_000_000_000,
        "T" | "TiB" => 1 << 40,
        "TB" => 1_000_000_000_000,
        _ => return None,
    };
    Some(Count { n: n.saturating_mul(mult), from_other_end })
}

/// Options common to `head` and `tail`.
struct HeadTail {
    count: Count,
    bytes: bool,
    headers: Option<bool>,
    delim: u8,
    files: Vec<String>,
}

/// Parse `head`/`tail` arguments, including the obsolete `-5` form. `tool` is the name,
/// `other_end` the sign that counts from the other end (`-` for head, `+` for tail).
fn parse_head_tail(tool: &str, args: &[String], other_end: char, io: &mut Io) -> Result<HeadTail, i32> {
    const SPEC: Spec = Spec::gnu(
        "n:c:qvzf",
        &[
            Long::short("lines", 'n', HasArg::Required),
            Long::short("bytes", 'c', HasArg::Required),
            Long::short("quiet", 'q', HasArg::No),
            Long::short("silent", 'q', HasArg::No),
            Long::short("verbose", 'v', HasArg::No),
            Long::short("zero-terminated", 'z', HasArg::No),
            Long::short("follow", 'f', HasArg::No),
        ],
    );
    let mut args: Vec<String> = args.to_vec();
    // Obsolete `-N` (and tail's `+N`) as the first argument.
    if let Some(first) = args.first() {
        let legacy = first.strip_prefix('-').filter(|r| r.starts_with(|c: char| c.is_ascii_digit()));
        let legacy = legacy.or_else(|| {
            if other_end == '+' {
                first.strip_prefix('+').filter(|r| r.starts_with(|c: char| c.is_ascii_digit()))
            } else {
                None
            }
        });
        if let Some(rest) = legacy {
            let plus = first.starts_with('+');
            let (digits, unit) = rest.split_at(rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len()));
            let opt = if unit.starts_with('c') { "-c" } else { "-n" };
            let value = if plus { format!("+{digits}") } else { digits.to_string() };
            args.splice(0..1, [opt.to_string(), value]);
        }
    }
    let p = match parse_opts(tool, &args, &SPEC) {
        Ok(p) => p,
        Err(m) => return Err(usage(io, &m, 1)),
    };
    let mut ht = HeadTail {
        count: Count { n: DEFAULT_LINES, from_other_end: false },
        bytes: false,
        headers: None,
        delim: b'\n',
        files: p.operands,
    };
    for (c, v) in p.opts {
        match c {
            'n' | 'c' => {
                let v = v.unwrap_or_default();
                let Some(count) = parse_count(&v, other_end) else {
                    let what = if c == 'n' { "lines" } else { "bytes" };
                    err(io, tool, &format!("invalid number of {what}: '{v}'"));
                    return Err(1);
                };
                ht.count = count;
                ht.bytes = c == 'c';
            }
            'q' => ht.headers = Some(false),
            'v' => ht.headers = Some(true),
            'z' => ht.delim = 0,
            'f' => {
                err(io, tool, "following files is not supported in the sandbox");
                return Err(1);
            }
            _ => {}
        }
    }
    if ht.files.is_empty() {
        ht.files.push("-".into());
    }
    Ok(ht)
}

/// `head [-n N] [-c N] [-qvz] [FILE...]`.
pub fn head(args: &[String], ctx: &Ctx, io: &mut Io) -> i32 {
    let ht = match parse_head_tail("head", args, '-', io) {
        Ok(h) => h,
        Err(s) => return s,
    };
    head_tail("head", &ht, ctx, io, |data, ht| {
        let n = usize::try_from(ht.count.n).unwrap_or(usize::MAX);
        if ht.bytes {
            if ht.count.from_other_end { &data[..data.len().saturating_sub(n)] } else { &data[..n.min(data.len())] }
        } else {
            let ends: Vec<usize> =
                data.iter().enumerate().filter(|(_, b)| **b == ht.delim).map(|(i, _)| i + 1).collect();
            let total_lines = ends.len() + usize::from(!data.is_empty() && data.last() != Some(&ht.delim));
            let keep = if ht.count.from_other_end { total_lines.saturating_sub(n) } else { n.min(total_lines) };
            let end = if keep == 0 { 0 } else { ends.get(keep - 1).copied().unwrap_or(data.len()) };
            &data[..end]
        }
    })
}

/// `tail [-n [+]N] [-c [+]N] [-qvz] [FILE...]`.
pub fn tail(args: &[String], ctx: &Ctx, io: &mut Io) -> i32 {
    let ht = match parse_head_tail("tail", args, '+', io) {
        Ok(h) => h,
        Err(s) => return s,
    };
    if ht.count.n == 0 && !ht.count.from_other_end {
        // GNU tail outputs nothing then, so it opens nothing: no header, no error.
        return 0;
    }
    head_tail("tail", &ht, ctx, io, |data, ht| {
        let n = usize::try_from(ht.count.n).unwrap_or(usize::MAX);
        if ht.bytes {
            if ht.count.from_other_end {
                &data[n.saturating_sub(1).min(data.len())..]
            } else {
                &data[data.len().saturating_sub(n)..]
            }
        } else {
            // Line start offsets.
            let mut starts = vec![0usize];
            for (i, b) in data.iter().enumerate() {
                if *b == ht.delim && i + 1 < data.len() {
                    starts.push(i + 1);
                }
            }
            if data.is_empty() {
                starts.clear();
            }
            let total = starts.len();
            let first = if ht.count.from_other_end { n.saturating_sub(1) } else { total.saturating_sub(n) };
            match starts.get(first) {
                Some(&s) => &data[s..],
                None => &data[data.len()..],
            }
        }
    })
}

/// The shared file loop of `head` and `tail`: headers, errors, the selection per file.
fn head_tail(
    tool: &str,
    ht: &HeadTail,
    ctx: &Ctx,
    io: &mut Io,
    select: impl for<'a> Fn(&'a [u8], &HeadTail) -> &'a [u8],
) -> i32 {
    let headers = ht.headers.unwrap_or(ht.files.len() > 1);
    let mut status = 0;
    let mut first = true;
    for f in &ht.files {
        let data = match read_operand(f, ctx, io) {
            Ok(d) => Ok(d),
            Err(ReadError::IsDir) => Err(None),
            Err(ReadError::Other(m)) => Err(Some(m)),
        };
        if let Err(Some(m)) = &data {
            err(io, tool, &format!("cannot open '{f}' for reading: {m}"));
            status = 1;
            continue;
        }
        if headers {
            let sep = if first { "" } else { "\n" };
            io.stdout.extend_from_slice(format!("{sep}==> {} <==\n", display_name(f)).as_bytes());
        }
        first = false;
        match data {
            Ok(d) => {
                let out = select(&d, ht);
                io.stdout.extend_from_slice(out);
            }
            Err(_) => {
                err(io, tool, &format!("error reading '{f}': Is a directory"));
                status = 1;
            }
        }
    }
    status
}
