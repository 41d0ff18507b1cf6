//! `find -perm MODE` and the `-printf` directives `%m` and `%M`, as findutils 4.9 defines
//! them: the permission bits come from the host (WASI reports none, [`Ctx::mode`]).
//!
//! `MODE` is octal (`644`, at most `7777`) or symbolic as `chmod` reads it (clauses
//! `[ugoa]*([-+=]([rwxXst]*|[ugo]|octal))+`, comma-separated, applied to a mode of 0 with
//! no umask), and `find` prefixes it: nothing for exactly these bits, `-` for all of
//! them, `/` for any of them (`/000` matches every file). `X` gives execute permission to
//! a directory only, so a mode holds two values: one for directories, one for the rest.
//! findutils refuses `+` followed by octal digits (the old meaning of `/`).
//!
//! [`Ctx::mode`]: reviewhost_tool::Ctx::mode

/// How the file's bits are compared with the argument's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Compare {
    Exact,
    AllOf,
    AnyOf,
}

/// A parsed `-perm` argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Perm {
    compare: Compare,
    /// The bits for anything but a directory, and for a directory (they differ by `X`).
    file: u32,
    dir: u32,
}

/// Every bit `chmod` sets: setuid, setgid, sticky and the nine permission bits.
const ALL: u32 = 0o7777;

impl Perm {
    /// `arg` as `-perm` reads it, or findutils' message (`invalid mode ‘ARG’`).
    pub(super) fn parse(arg: &str) -> Result<Perm, String> {
        let invalid = || format!("invalid mode ‘{arg}’");
        let (compare, mode) = match arg.as_bytes().first() {
            Some(b'-') => (Compare::AllOf, &arg[1..]),
            Some(b'/') => (Compare::AnyOf, &arg[1..]),
            // The old meaning of `+` was `/`: findutils refuses `+` before a digit.
            Some(b'+') if arg.as_bytes().get(1).is_some_and(u8::is_ascii_digit) => return Err(invalid()),
            _ => (Compare::Exact, arg),
        };
        let file = compile(mode, false).ok_or_else(invalid)?;
        let dir = compile(mode, true).ok_or_else(invalid)?;
        Ok(Perm { compare, file, dir })
    }

    /// Whether a file with permission bits `mode` matches.
    pub(super) fn matches(&self, mode: u32, is_dir: bool) -> bool {
        let want = if is_dir { self.dir } else { self.file };
        let mode = mode & ALL;
        match self.compare {
            Compare::Exact => mode == want,
            Compare::AllOf => mode & want == want,
            Compare::AnyOf => want == 0 || mode & want != 0,
        }
    }

    /// The warning findutils prints for `/000`, whose meaning changed.
    pub(super) fn warning(&self, arg: &str) -> Option<String> {
        (self.compare == Compare::AnyOf && self.file == 0 && self.dir == 0).then(|| {
            format!(
                "warning: you have specified a mode pattern {arg} (which is equivalent to /000). The meaning of \
                 -perm /000 has now been changed to be consistent with -perm -000; that is, while it used to \
                 match no files, it now matches all files."
            )
        })
    }
}

/// How one change of a symbolic mode takes its bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Flag {
    Ordinary,
    /// `g=u`: the bits the named class has so far.
    Copy,
    /// `X`: execute bits for a directory, or when some execute bit is already set.
    ExecuteIfAny,
}

/// One `[who]op perms` change, as gnulib's `mode_compile` records it.
#[derive(Debug, Clone, Copy)]
struct Change {
    op: u8,
    flag: Flag,
    /// The bits `who` names; 0 when no `who` was given (then all, with no umask).
    affected: u32,
    value: u32,
    /// Bits the change names explicitly: `=` and `-` on a directory keep its setuid and
    /// setgid bits unless they are named.
    mentioned: u32,
}

/// The bits `mode` gives a file (a directory when `dir`) starting from 0, or `None` when
/// it is not a mode `chmod` accepts. The algorithm is gnulib's `mode_compile` and
/// `mode_adjust`, which findutils calls with a mode of 0 and no umask.
fn compile(mode: &str, dir: bool) -> Option<u32> {
    if mode.is_empty() {
        return None;
    }
    if mode.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
        let value = u32::from_str_radix(mode, 8).ok()?;
        return (value <= ALL).then_some(value);
    }
    let changes = changes(mode)?;
    let mut current = 0u32;
    for change in changes {
        let omit = if dir { 0o6000 & !change.mentioned } else { 0 };
        let mut value = change.value;
        match change.flag {
            Flag::Ordinary => {}
            Flag::Copy => {
                value &= current;
                let spread = |bits: u32| if value & bits != 0 { bits } else { 0 };
                value |= spread(0o444) | spread(0o222) | spread(0o111);
            }
            Flag::ExecuteIfAny => {
                if dir || current & 0o111 != 0 {
                    value |= 0o111;
                }
            }
        }
        value &= if change.affected != 0 { change.affected } else { ALL };
        value &= !omit;
        current = match change.op {
            b'+' => current | value,
            b'-' => current & !value,
            _ => {
                let preserved = (if change.affected != 0 { !change.affected } else { 0 }) | omit;
                (current & preserved) | value
            }
        };
    }
    Some(current & ALL)
}

/// The changes of a symbolic mode (`u+x,go=r`), or `None` if it is not one.
fn changes(mode: &str) -> Option<Vec<Change>> {
    let mut changes = Vec::new();
    for clause in mode.split(',') {
        let bytes = clause.as_bytes();
        let mut i = 0;
        let mut affected = 0u32;
        while let Some(&who) = bytes.get(i) {
            affected |= match who {
                b'u' => 0o4700,
                b'g' => 0o2070,
                b'o' => 0o1007,
                b'a' => ALL,
                _ => break,
            };
            i += 1;
        }
        let who_given = i > 0;
        let first = changes.len();
        while let Some(&op) = bytes.get(i) {
            if !matches!(op, b'+' | b'-' | b'=') {
                return None;
            }
            i += 1;
            let (mut flag, mut value) = (Flag::Ordinary, 0u32);
            match bytes.get(i) {
                Some(b'0'..=b'7') => {
                    // Octal after an operator: only without a `who`, and it ends the clause.
                    let digits = &clause[i..];
                    if who_given || !digits.bytes().all(|b| (b'0'..=b'7').contains(&b)) {
                        return None;
                    }
                    i = bytes.len();
                    value = u32::from_str_radix(digits, 8).ok().filter(|v| *v <= ALL)?;
                    // An octal value names every bit (gnulib: `affected = mentioned =
                    // CHMOD_MODE_BITS`), so `=2654` clears a directory's setuid bit too.
                    changes.push(Change { op, flag, affected: ALL, value, mentioned: ALL });
                    continue;
                }
                Some(&source @ (b'u' | b'g' | b'o')) => {
                    i += 1;
                    flag = Flag::Copy;
                    value = match source {
                        b'u' => 0o700,
                        b'g' => 0o070,
                        _ => 0o007,
                    };
                }
                _ => {
                    while let Some(&perm) = bytes.get(i) {
                        match perm {
                            b'r' => value |= 0o444,
                            b'w' => value |= 0o222,
                            b'x' => value |= 0o111,
                            b'X' => flag = Flag::ExecuteIfAny,
                            b's' => value |= 0o6000,
                            b't' => value |= 0o1000,
                            _ => break,
                        }
                        i += 1;
                    }
                }
            }
            let mentioned = if affected != 0 { affected & value } else { value };
            changes.push(Change { op, flag, affected, value, mentioned });
        }
        if changes.len() == first || i != bytes.len() {
            return None;
        }
    }
    Some(changes)
}

/// `%M`: the bits as `ls -l` shows them, after the type letter (`-rwsr-x---`).
pub(super) fn symbolic(mode: u32, type_char: char) -> String {
    let kind = match type_char {
        'f' => '-',
        'U' => '?',
        other => other,
    };
    let mut out = String::with_capacity(10);
    out.push(kind);
    for (shift, special, on, off) in [(6, 0o4000, 's', 'S'), (3, 0o2000, 's', 'S'), (0, 0o1000, 't', 'T')] {
        let bits = (mode >> shift) & 7;
        out.push(if bits & 4 != 0 { 'r' } else { '-' });
        out.push(if bits & 2 != 0 { 'w' } else { '-' });
        out.push(match (mode & special != 0, bits & 1 != 0) {
            (true, true) => on,
            (true, false) => off,
            (false, true) => 'x',
            (false, false) => '-',
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each mode as findutils 4.9 compiled it, checked with `find . -perm MODE` over
    /// files with modes 644, 755, 4750 and directories 755 and 700.
    #[test]
    fn modes_compile_as_findutils_reads_them() {
        let bits = |arg: &str| Perm::parse(arg).map(|p| (p.file, p.dir));
        assert_eq!(bits("644"), Ok((0o644, 0o644)));
        assert_eq!(bits("u=rw,go=r"), Ok((0o644, 0o644)));
        assert_eq!(bits("-u+x"), Ok((0o100, 0o100)));
        assert_eq!(bits("-a+X"), Ok((0, 0o111)));
        assert_eq!(bits("u+rwx,g-w"), Ok((0o700, 0o700)));
        assert_eq!(bits("-u=rw=x"), Ok((0o100, 0o100)));
        assert_eq!(bits("-=s=X"), Ok((0, 0o6111)));
        assert_eq!(bits("-=t=X"), Ok((0, 0o111)));
        assert_eq!(bits("=644,u+x"), Ok((0o744, 0o744)));
        assert_eq!(bits("-+644"), Ok((0o644, 0o644)));
        assert_eq!(bits("/u=s"), Ok((0o4000, 0o4000)));
        assert_eq!(bits("/o+t"), Ok((0o1000, 0o1000)));
        assert_eq!(bits("u+t"), Ok((0, 0)));
        assert_eq!(bits("a=r,u+w"), Ok((0o644, 0o644)));
        for invalid in
            ["+644", "+2702,-106", "+0", "99", "u=7", "u=rw,", ",u=r", "-", "/", "", "10000", "-u", "1777777"]
        {
            assert_eq!(bits(invalid), Err(format!("invalid mode ‘{invalid}’")), "{invalid}");
        }
    }

    #[test]
    fn comparisons() {
        let perm = |arg: &str| Perm::parse(arg).unwrap();
        assert!(perm("644").matches(0o100644, false));
        assert!(!perm("644").matches(0o755, false));
        assert!(perm("-0444").matches(0o644, false));
        assert!(!perm("-0222").matches(0o644, false));
        assert!(perm("/000").matches(0o000, false));
        assert!(perm("/u=x,g=w").matches(0o700, true));
        assert!(!perm("-a+X").matches(0o700, true));
        assert!(perm("-a+X").matches(0o644, false));
    }

    #[test]
    fn long_form() {
        assert_eq!(symbolic(0o4750, 'f'), "-rwsr-x---");
        assert_eq!(symbolic(0o755, 'd'), "drwxr-xr-x");
        assert_eq!(symbolic(0o777, 'l'), "lrwxrwxrwx");
        assert_eq!(symbolic(0o1644, 'd'), "drw-r--r-T");
    }
}
