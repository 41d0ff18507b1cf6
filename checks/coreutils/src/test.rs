//! `test` and `[`, as bash 5.2's builtins.
//!
//! Left out: `test -t` (never a terminal: always false), `-O`/`-G`/`-N`/`-nt`/`-ot`
//! beyond plain metadata. bash's `test -v NAME` asks the shell for its variables: run by
//! the shell ([`test_with_variables`]) it answers, run as a program it is refused.

use reviewhost_tool::{Ctx, Io};

/// Exit status of a `test` syntax error, as in bash.
const TEST_SYNTAX: i32 = 2;

/// `test EXPR`.
pub fn test(args: &[String], ctx: &Ctx, io: &mut Io) -> i32 {
    run_test("test", args, ctx, io)
}

/// `[ EXPR ]`: `test` that insists on the closing bracket.
pub fn bracket(args: &[String], ctx: &Ctx, io: &mut Io) -> i32 {
    match args.split_last() {
        Some((last, rest)) if last == "]" => run_test("[", rest, ctx, io),
        _ => {
            io.stderr.extend_from_slice(b"[: missing `]'\n");
            TEST_SYNTAX
        }
    }
}

/// Whether a shell variable is set, for `-v NAME`; an error for what the shell refuses.
pub type Variables<'a> = &'a dyn Fn(&str) -> Result<bool, String>;

/// `test` or `[` (`name`) run by the shell, which answers `-v NAME` with `variables`.
pub fn test_with_variables(name: &str, args: &[String], ctx: &Ctx, io: &mut Io, variables: Variables) -> i32 {
    if name == "[" {
        return match args.split_last() {
            Some((last, rest)) if last == "]" => evaluate("[", rest, ctx, io, Some(variables)),
            _ => bracket(args, ctx, io),
        };
    }
    evaluate(name, args, ctx, io, Some(variables))
}

fn run_test(name: &str, args: &[String], ctx: &Ctx, io: &mut Io) -> i32 {
    evaluate(name, args, ctx, io, None)
}

fn evaluate(name: &str, args: &[String], ctx: &Ctx, io: &mut Io, variables: Option<Variables>) -> i32 {
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let t = Test { args: &args, ctx, variables };
    match t.eval_top() {
        Ok(true) => 0,
        Ok(false) => 1,
        Err(msg) => {
            io.stderr.extend_from_slice(format!("{name}: {msg}\n").as_bytes());
            TEST_SYNTAX
        }
    }
}

const UNARY_OPS: &[&str] = &[
    "-e", "-f", "-d", "-s", "-r", "-w", "-x", "-L", "-h", "-z", "-n", "-p", "-S", "-b", "-c", "-t", "-g", "-u", "-k",
    "-O", "-G", "-N", "-a", "-v",
];
const BINARY_OPS: &[&str] =
    &["=", "==", "!=", "<", ">", "-eq", "-ne", "-lt", "-le", "-gt", "-ge", "-nt", "-ot", "-ef", "-a", "-o"];

struct Test<'a> {
    args: &'a [&'a str],
    ctx: &'a Ctx,
    variables: Option<Variables<'a>>,
}

impl Test<'_> {
    /// POSIX's rules by argument count (what bash does for up to four arguments), then the
    /// general grammar.
    fn eval_top(&self) -> Result<bool, String> {
        let a = self.args;
        match a.len() {
            0 => Ok(false),
            1 => Ok(!a[0].is_empty()),
            2 => self.two(a[0], a[1]),
            3 => self.three(a),
            4 if a[0] == "!" => self.three(&a[1..]).map(|r| !r),
            4 if a[0] == "(" && a[3] == ")" => self.two(a[1], a[2]),
            _ => self.general(),
        }
    }

    fn two(&self, a: &str, b: &str) -> Result<bool, String> {
        if a == "!" {
            return Ok(b.is_empty());
        }
        if is_unary(a) {
            return self.unary(a, b);
        }
        // bash's `-o OPTION` asks the shell, which this program is not.
        if a == "-o" {
            return Err(format!("{a} is not supported in the reviewhost sandbox"));
        }
        Err(format!("{a}: unary operator expected"))
    }

    fn three(&self, a: &[&str]) -> Result<bool, String> {
        if is_binary(a[1]) {
            return self.binary(a[0], a[1], a[2]);
        }
        if a[0] == "!" {
            return self.two(a[1], a[2]).map(|r| !r);
        }
        if a[0] == "(" && a[2] == ")" {
            return Ok(!a[1].is_empty());
        }
        Err(format!("{}: binary operator expected", a[1]))
    }

    fn general(&self) -> Result<bool, String> {
        let mut pos = 0;
        let v = self.or(&mut pos)?;
        if pos < self.args.len() {
            return Err("too many arguments".into());
        }
        Ok(v)
    }

    fn or(&self, pos: &mut usize) -> Result<bool, String> {
        let mut v = self.and(pos)?;
        while *pos < self.args.len() && self.args[*pos] == "-o" {
            *pos += 1;
            let r = self.and(pos)?;
            v = v || r;
        }
        Ok(v)
    }

    fn and(&self, pos: &mut usize) -> Result<bool, String> {
        let mut v = self.not(pos)?;
        while *pos < self.args.len() && self.args[*pos] == "-a" {
            *pos += 1;
            let r = self.not(pos)?;
            v = v && r;
        }
        Ok(v)
    }

    fn not(&self, pos: &mut usize) -> Result<bool, String> {
        if *pos < self.args.len() && self.args[*pos] == "!" && *pos + 1 < self.args.len() {
            *pos += 1;
            return self.not(pos).map(|v| !v);
        }
        self.primary(pos)
    }

    fn primary(&self, pos: &mut usize) -> Result<bool, String> {
        let a = self.args;
        let Some(&cur) = a.get(*pos) else {
            return Err("argument expected".into());
        };
        if cur == "(" {
            *pos += 1;
            let v = self.or(pos)?;
            if a.get(*pos) != Some(&")") {
                return Err("`)' expected".into());
            }
            *pos += 1;
            return Ok(v);
        }
        if *pos + 2 < a.len() && is_binary(a[*pos + 1]) {
            let op = a[*pos + 1];
            if op != "-a" && op != "-o" {
                let v = self.binary(cur, op, a[*pos + 2])?;
                *pos += 3;
                return Ok(v);
            }
        }
        if is_unary(cur) && cur != "-a" && *pos + 1 < a.len() {
            let v = self.unary(cur, a[*pos + 1])?;
            *pos += 2;
            return Ok(v);
        }
        *pos += 1;
        Ok(!cur.is_empty())
    }

    fn unary(&self, op: &str, arg: &str) -> Result<bool, String> {
        match op {
            "-z" => return Ok(arg.is_empty()),
            "-n" => return Ok(!arg.is_empty()),
            "-t" => return Ok(false),
            "-v" => {
                let variables = self.variables.ok_or("-v is not supported in the reviewhost sandbox")?;
                return variables(arg);
            }
            _ => {}
        }
        let real = self.ctx.real(arg);
        if arg.is_empty() {
            return Ok(false);
        }
        if op == "-L" || op == "-h" {
            return Ok(std::fs::symlink_metadata(&real).is_ok_and(|m| m.file_type().is_symlink()));
        }
        let Ok(meta) = std::fs::metadata(&real) else {
            return Ok(false);
        };
        // WASI has no permission bits: the host's `files` interface answers them.
        let mode = || self.ctx.mode(&real, true).unwrap_or(0);
        Ok(match op {
            "-e" | "-a" => true,
            "-f" => meta.is_file(),
            "-d" => meta.is_dir(),
            "-s" => meta.len() > 0,
            "-r" => mode_allows(&meta, mode(), 0o444, false),
            "-w" => mode_allows(&meta, mode(), 0o222, false),
            "-x" => mode_allows(&meta, mode(), 0o111, true),
            "-p" | "-S" | "-b" | "-c" => special_matches(&meta, op),
            "-u" => mode() & 0o4000 != 0,
            "-g" => mode() & 0o2000 != 0,
            "-k" => mode() & 0o1000 != 0,
            _ => true,
        })
    }

    fn binary(&self, l: &str, op: &str, r: &str) -> Result<bool, String> {
        Ok(match op {
            "=" | "==" => l == r,
            "!=" => l != r,
            "<" => l.as_bytes() < r.as_bytes(),
            ">" => l.as_bytes() > r.as_bytes(),
            "-a" => !l.is_empty() && !r.is_empty(),
            "-o" => !l.is_empty() || !r.is_empty(),
            "-nt" | "-ot" => {
                let m = |p: &str| std::fs::metadata(self.ctx.real(p)).and_then(|m| m.modified()).ok();
                match (m(l), m(r), op) {
                    (Some(a), Some(b), "-nt") => a > b,
                    (Some(a), Some(b), _) => a < b,
                    (Some(_), None, "-nt") | (None, Some(_), "-ot") => true,
                    _ => false,
                }
            }
            "-ef" => {
                let c = |p: &str| std::fs::canonicalize(self.ctx.real(p)).ok();
                matches!((c(l), c(r)), (Some(a), Some(b)) if a == b)
            }
            _ => {
                let a = test_int(l)?;
                let b = test_int(r)?;
                compare_integers(op, a, b)
            }
        })
    }
}

/// `a OP b` for the integer operators of `test` (and of `[[ ]]`): `-eq`, `-ne`, `-lt`,
/// `-le`, `-gt`, and `-ge` for anything else (the callers pass only these six).
pub fn compare_integers(op: &str, a: i64, b: i64) -> bool {
    match op {
        "-eq" => a == b,
        "-ne" => a != b,
        "-lt" => a < b,
        "-le" => a <= b,
        "-gt" => a > b,
        _ => a >= b,
    }
}

fn is_unary(s: &str) -> bool {
    UNARY_OPS.contains(&s)
}

fn is_binary(s: &str) -> bool {
    BINARY_OPS.contains(&s)
}

/// An integer operand of `-eq` and friends: blanks around, optional sign, decimal digits.
fn test_int(s: &str) -> Result<i64, String> {
    let t = s.trim_matches([' ', '\t', '\n']);
    let digits = t.strip_prefix(['-', '+']).unwrap_or(t);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("{s}: integer expression expected"));
    }
    t.parse::<i64>().map_err(|_| format!("{s}: integer expression expected"))
}

#[cfg(unix)]
fn is_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    // The effective user is not available without libc; the owner of `/proc/self` is it.
    std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}

#[cfg(not(unix))]
fn is_root() -> bool {
    false
}

/// Permission by metadata: any of the `mask` bits set (root reads anything and executes
/// anything with an x bit or a directory, as access(2) answers for root).
fn mode_allows(meta: &std::fs::Metadata, mode: u32, mask: u32, exec: bool) -> bool {
    if is_root() {
        return !exec || meta.is_dir() || mode & 0o111 != 0;
    }
    mode & mask != 0
}

fn special_matches(meta: &std::fs::Metadata, op: &str) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let ft = meta.file_type();
        match op {
            "-p" => ft.is_fifo(),
            "-S" => ft.is_socket(),
            "-b" => ft.is_block_device(),
            _ => ft.is_char_device(),
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (meta, op);
        false
    }
}
