//! The line searcher shared by `grep` and `rg`: finds the selected lines of one buffer
//! and prints them with their prefixes, context lines and `--` group separators.
//!
//! The whole file is in memory, so the searcher runs the regex over the buffer rather
//! than line by line: the translated patterns never match a newline, so a match found
//! anywhere lies within one line, and the lines between matches are skipped with
//! `memchr` (only `-v` and context options visit them one by one). This is what makes a
//! few hundred megabytes over thousands of files fast enough.
//!
//! It does not read files, decide about binary files, or print file-level results
//! (`-l`, `-c`): the callers do, because grep and rg differ there.

use memchr::{memchr, memrchr};
use regex::bytes::Regex;
use regex_automata::hybrid::dfa::{Cache, DFA};
use regex_automata::{Anchored, Input, MatchKind};
use std::cell::RefCell;

/// Memory for the compiled regex. Larger patterns are rejected ("too big") rather than
/// allowed to exhaust the sandbox's memory.
pub const REGEX_SIZE_LIMIT: usize = 64 * 1024 * 1024;
/// Memory for the lazy DFA of the regex crate.
pub const DFA_SIZE_LIMIT: usize = 32 * 1024 * 1024;

/// A compiled pattern list. `longest` finds POSIX leftmost-longest match ends for
/// `grep -o` (GNU prints `ab` for `a|ab`, the `regex` crate finds `a`).
pub struct Matcher {
    re: Option<Regex>,
    longest: Option<(DFA, RefCell<Cache>)>,
}

impl Matcher {
    /// `pattern` is in `regex` crate syntax and must not match a newline; `None`
    /// matches nothing (an empty `-f` file). `posix_longest` enables leftmost-longest
    /// match extents (grep); rg uses the crate's leftmost-first semantics.
    pub fn new(pattern: Option<&str>, posix_longest: bool) -> Result<Matcher, regex::Error> {
        let Some(pattern) = pattern else { return Ok(Matcher { re: None, longest: None }) };
        let re = regex::bytes::RegexBuilder::new(pattern)
            .size_limit(REGEX_SIZE_LIMIT)
            .dfa_size_limit(DFA_SIZE_LIMIT)
            .build()?;
        let longest = if posix_longest {
            DFA::builder()
                .configure(DFA::config().match_kind(MatchKind::All).unicode_word_boundary(true))
                .build(pattern)
                .ok()
                .map(|dfa| {
                    let cache = dfa.create_cache();
                    (dfa, RefCell::new(cache))
                })
        } else {
            None
        };
        Ok(Matcher { re: Some(re), longest })
    }

    /// The next line (start, end without the newline) at or after `from` (a line start)
    /// that contains a match.
    pub fn find_line(&self, buf: &[u8], from: usize) -> Option<(usize, usize)> {
        let re = self.re.as_ref()?;
        let m = re.find_at(buf, from)?;
        // An empty match after the final newline is not on a line.
        if m.start() == buf.len() && (buf.is_empty() || buf.ends_with(b"\n")) {
            return None;
        }
        let ls = memrchr(b'\n', &buf[..m.start()]).map_or(0, |i| i + 1);
        let le = memchr(b'\n', &buf[m.start()..]).map_or(buf.len(), |i| m.start() + i);
        Some((ls, le))
    }

    /// Whether `line` (without its newline) contains a match.
    pub fn is_match(&self, line: &[u8]) -> bool {
        self.re.as_ref().is_some_and(|re| re.is_match(line))
    }

    /// The next non-empty match in `line` at or after `at`: empty matches are skipped
    /// the way GNU grep and rg do for `-o`.
    pub fn next_match(&self, line: &[u8], mut at: usize) -> Option<(usize, usize)> {
        let re = self.re.as_ref()?;
        while at <= line.len() {
            let m = re.find_at(line, at)?;
            let end = self.longest_end(line, m.start()).unwrap_or(m.end()).max(m.end());
            if end > m.start() {
                return Some((m.start(), end));
            }
            at = m.start() + 1;
        }
        None
    }

    /// The end of the longest match starting at `start`, when the lazy DFA can tell.
    fn longest_end(&self, line: &[u8], start: usize) -> Option<usize> {
        let (dfa, cache) = self.longest.as_ref()?;
        let mut cache = cache.try_borrow_mut().ok()?;
        let input = Input::new(line).range(start..).anchored(Anchored::Yes);
        dfa.try_search_fwd(&mut cache, &input).ok().flatten().map(|m| m.offset())
    }
}

/// How lines are printed.
#[derive(Debug, Clone, Default)]
pub struct LineOpts {
    pub invert: bool,
    /// Stop after this many selected lines (then print the trailing context).
    pub max_count: Option<u64>,
    pub before: usize,
    pub after: usize,
    /// The line printed between non-adjacent groups (`--`, or `--group-separator`'s),
    /// when any context option was given.
    pub group_separator: Option<Vec<u8>>,
    /// `-T`: a tab between the prefixes and a non-empty line.
    pub initial_tab: bool,
    /// With `-T`, the width line numbers and byte offsets are right-aligned to (GNU
    /// uses the digits of the file's size, plus one with `-n`); 0 otherwise.
    pub offset_width: usize,
    pub only_matching: bool,
    pub line_number: bool,
    pub byte_offset: bool,
    /// Print nothing per line (`-c`, `-l`, `-L`, `-q`, binary files).
    pub quiet: bool,
    /// Stop at the first selected line (`-l`, `-L`, `-q`, binary files).
    pub stop_at_first: bool,
    /// GNU grep: a line to print that is not valid UTF-8 is skipped and the file is
    /// reported as "binary file matches" at the end.
    pub check_encoding: bool,
    /// The byte after the file name in a prefix: `:` or, with `--null`, NUL.
    pub name_terminator_nul: bool,
}

/// What the search of one buffer found.
#[derive(Debug, Default)]
pub struct Found {
    /// Selected lines (at most `max_count`).
    pub selected: u64,
    /// A line to print was not valid UTF-8 (GNU grep's "binary file matches").
    pub encoding_error: bool,
}

/// State that lives across files: whether anything was printed yet, for the `--`
/// separator before the first group of a later file, and whether output past the
/// reader's limit ([`reviewhost_tool::Io::stdout_limit`]) is being dropped.
#[derive(Debug)]
pub struct Shared {
    pub used: bool,
    /// Output length at which to decide whether to drop: the reader's limit, then
    /// twice the length at each decision not to, so that a blank output is not
    /// rescanned per line.
    check_at: usize,
    /// Sticky: nothing more is appended.
    dropping: bool,
}

impl Shared {
    pub fn new(stdout_limit: usize) -> Shared {
        Shared { used: false, check_at: stdout_limit, dropping: false }
    }

    /// Whether to stop appending to `out`: it is past the reader's limit, and what it
    /// holds is not blank and has the lines the reader keeps. Everything else (the
    /// encoding check, the exit status) goes on as if the lines were printed.
    fn drops(&mut self, out: &[u8]) -> bool {
        if !self.dropping && out.len() >= self.check_at {
            self.dropping = memchr::memchr_iter(b'\n', out).count() >= reviewhost_tool::KEPT_LINES
                && !String::from_utf8_lossy(out).trim().is_empty();
            self.check_at = out.len().saturating_mul(2);
        }
        self.dropping
    }
}

struct Run<'a> {
    buf: &'a [u8],
    matcher: &'a Matcher,
    opts: LineOpts,
    name: Option<&'a [u8]>,
    out: &'a mut Vec<u8>,
    shared: &'a mut Shared,
    /// Start of the line after the last printed one (GNU's `lastout`), `None` before
    /// anything was printed from this buffer.
    lastout: Option<usize>,
    /// Trailing context lines still to print.
    pending: usize,
    /// Line-number cursor: the line number of the line starting at `cursor.0`.
    cursor: (usize, u64),
    encoding_error: bool,
}

/// Searches `buf` and prints what `opts` asks for to `out`.
pub fn search(
    buf: &[u8],
    matcher: &Matcher,
    opts: &LineOpts,
    name: Option<&[u8]>,
    out: &mut Vec<u8>,
    shared: &mut Shared,
) -> Found {
    let mut run = Run {
        buf,
        matcher,
        opts: opts.clone(),
        name,
        out,
        shared,
        lastout: None,
        pending: 0,
        cursor: (0, 1),
        encoding_error: false,
    };
    let selected = run.run();
    Found { selected, encoding_error: run.encoding_error }
}

/// The end of the line starting at `ls` (index of its newline, or the buffer length).
fn line_end(buf: &[u8], ls: usize) -> usize {
    memchr(b'\n', &buf[ls..]).map_or(buf.len(), |i| ls + i)
}

/// The start of the line before the one starting at `ls` (`ls > 0`).
fn prev_line_start(buf: &[u8], ls: usize) -> usize {
    memrchr(b'\n', &buf[..ls.saturating_sub(1)]).map_or(0, |i| i + 1)
}

impl Run<'_> {
    /// GNU grep's `grepbuf` loop: each selected line goes through `prtext`, which
    /// prints pending trailing context, leading context, the separator and the line.
    fn run(&mut self) -> u64 {
        let len = self.buf.len();
        let mut outleft = self.opts.max_count.unwrap_or(u64::MAX);
        if outleft == 0 {
            return 0;
        }
        let mut selected = 0u64;
        let mut pos = 0usize;
        while pos < len && outleft > 0 {
            let next = self.matcher.find_line(self.buf, pos);
            if self.opts.invert {
                // Every line before the next match is selected.
                let region_end = next.map_or(len, |(ls, _)| ls);
                while pos < region_end && outleft > 0 {
                    let le = line_end(self.buf, pos);
                    self.prtext(pos, le);
                    selected += 1;
                    outleft -= 1;
                    if self.opts.stop_at_first {
                        return selected;
                    }
                    pos = le + 1;
                }
                if outleft == 0 {
                    break;
                }
            } else if let Some((ls, le)) = next {
                self.prtext(ls, le);
                selected += 1;
                outleft -= 1;
                if self.opts.stop_at_first {
                    return selected;
                }
            }
            match next {
                Some((_, le)) => pos = le + 1,
                None => break,
            }
        }
        if !self.opts.quiet {
            self.prpending(len);
        }
        selected
    }

    /// The line number of the line starting at `p` (0 when numbers are not printed).
    fn lineno(&mut self, p: usize) -> u64 {
        if !self.opts.line_number {
            return 0;
        }
        let (at, n) = self.cursor;
        let n = if p >= at { n + count_newlines(&self.buf[at..p]) } else { n - count_newlines(&self.buf[p..at]) };
        self.cursor = (p, n);
        n
    }

    /// Prints trailing context lines from `lastout` up to `lim` (GNU's `prpending`).
    /// A line that cannot be printed (encoding error) is retried and uses up the count,
    /// as in GNU.
    fn prpending(&mut self, lim: usize) {
        while self.pending > 0 {
            let p = self.lastout.unwrap_or(0);
            if p >= lim || p >= self.buf.len() {
                break;
            }
            let le = line_end(self.buf, p);
            self.print_line(p, le, b'-');
            self.pending -= 1;
        }
    }

    /// One selected line (GNU's `prtext` for a single line).
    fn prtext(&mut self, ls: usize, le: usize) {
        if self.opts.quiet {
            return;
        }
        if self.pending > 0 {
            self.prpending(ls);
        }
        let floor = self.lastout.unwrap_or(0);
        let mut p = ls;
        // Back at most `before` lines, and never past what was printed: a context of
        // `-99999999999999999999` (GNU saturates it) must not count to it (found by fuzzing).
        for _ in 0..self.opts.before {
            if p <= floor {
                break;
            }
            p = prev_line_start(self.buf, p);
        }
        if let Some(separator) = &self.opts.group_separator
            && self.shared.used
            && self.lastout != Some(p)
            && !self.shared.drops(self.out)
        {
            self.out.extend_from_slice(separator);
            self.out.push(b'\n');
        }
        while p < ls {
            let end = line_end(self.buf, p);
            self.print_line(p, end, b'-');
            p = end + 1;
        }
        self.print_line(ls, le, b':');
        self.pending = self.opts.after;
        self.shared.used = true;
    }

    /// Prints one line, `sep` `:` for a selected line and `-` for context. Returns
    /// false when it is not valid UTF-8 (GNU grep then skips it and reports the file
    /// as binary at the end).
    fn print_line(&mut self, ls: usize, le: usize, sep: u8) -> bool {
        let line = &self.buf[ls..le];
        let drop = self.shared.drops(self.out);
        if self.opts.only_matching {
            // GNU's `prline`: with -o, the lines that match print their matches: the
            // selected lines, or with -v the context lines (with `-`); the others print
            // nothing.
            let matching = (sep == b':') != self.opts.invert;
            if matching {
                let sep = if self.opts.invert { b'-' } else { b':' };
                let lineno = if drop { 0 } else { self.lineno(ls) };
                let mut at = 0;
                while let Some((s, e)) = self.matcher.next_match(line, at) {
                    if self.opts.check_encoding && !is_utf8(&line[s..e]) {
                        self.encoding_error = true;
                        return false;
                    }
                    if !drop {
                        self.prefix(lineno, (ls + s) as u64, sep, e > s);
                        self.out.extend_from_slice(&line[s..e]);
                        self.out.push(b'\n');
                    }
                    at = e;
                }
            }
        } else {
            if self.opts.check_encoding && !is_utf8(line) {
                self.encoding_error = true;
                return false;
            }
            if !drop {
                let lineno = self.lineno(ls);
                self.prefix(lineno, ls as u64, sep, !line.is_empty());
                self.out.extend_from_slice(line);
                self.out.push(b'\n');
            }
        }
        self.lastout = Some(le + 1);
        true
    }

    /// GNU's `print_line_head`: the file name, line number and byte offset, each
    /// followed by `sep`, then with `-T` a tab if any of them was printed and the text
    /// that follows is not empty (`nonempty`).
    fn prefix(&mut self, lineno: u64, offset: u64, sep: u8, nonempty: bool) {
        if let Some(name) = self.name {
            self.out.extend_from_slice(name);
            self.out.push(if self.opts.name_terminator_nul { 0 } else { sep });
        }
        if self.opts.line_number {
            push_padded(self.out, lineno, self.opts.offset_width);
            self.out.push(sep);
        }
        if self.opts.byte_offset {
            push_padded(self.out, offset, self.opts.offset_width);
            self.out.push(sep);
        }
        if self.opts.initial_tab && nonempty && (self.name.is_some() || self.opts.line_number || self.opts.byte_offset)
        {
            self.out.push(b'\t');
        }
    }
}

/// Appends `n` in decimal, right-aligned with spaces to `width` columns (`-T`).
fn push_padded(out: &mut Vec<u8>, n: u64, width: usize) {
    if width > 0 {
        let digits = n.checked_ilog10().unwrap_or(0) as usize + 1;
        out.resize(out.len() + width.saturating_sub(digits), b' ');
    }
    push_decimal(out, n);
}

/// Appends `n` in decimal: once per printed line, so without the allocation of
/// `to_string`.
fn push_decimal(out: &mut Vec<u8>, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}

/// The newlines in `bytes`. `grep -n` counts every line before each match, so with many
/// matches this is a pass over most of the input: in the component it compares 16
/// bytes at a time and sums the hits in byte counters, about twice as fast as
/// `memchr_iter(..).count()`, which turns each block into a bit mask first.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
fn count_newlines(bytes: &[u8]) -> u64 {
    use core::arch::wasm32::{
        u8x16_eq, u8x16_splat, u8x16_sub, u16x8_extadd_pairwise_u8x16, u32x4_extadd_pairwise_u16x8, u32x4_extract_lane,
        v128, v128_load,
    };
    let newline = u8x16_splat(b'\n');
    let mut total = 0u64;
    // A byte counter takes at most 255 hits: one block of 255 vectors per sum.
    let mut blocks = bytes.chunks(16 * 255);
    for block in &mut blocks {
        let mut vectors = block.chunks_exact(16);
        let mut counts = u8x16_splat(0);
        for vector in &mut vectors {
            // SAFETY: `vector` is 16 bytes in bounds; `v128_load` needs no alignment.
            let v = unsafe { v128_load(vector.as_ptr().cast::<v128>()) };
            // A lane that holds a newline compares to 0xFF, that is -1: subtracting adds 1.
            counts = u8x16_sub(counts, u8x16_eq(v, newline));
        }
        let sums = u32x4_extadd_pairwise_u16x8(u16x8_extadd_pairwise_u8x16(counts));
        total += (u32x4_extract_lane::<0>(sums)
            + u32x4_extract_lane::<1>(sums)
            + u32x4_extract_lane::<2>(sums)
            + u32x4_extract_lane::<3>(sums)) as u64;
        total += vectors.remainder().iter().filter(|&&b| b == b'\n').count() as u64;
    }
    total
}

#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
fn count_newlines(bytes: &[u8]) -> u64 {
    memchr::memchr_iter(b'\n', bytes).count() as u64
}

/// Whether `line` is valid UTF-8, checked once per printed line (GNU grep's encoding
/// check): in the component an ASCII line, the usual case, is recognised 16 bytes at a
/// time, where `str::from_utf8`'s ASCII path takes 4 (`usize` is 32 bits there).
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
fn is_utf8(line: &[u8]) -> bool {
    use core::arch::wasm32::{u8x16_bitmask, u8x16_splat, v128, v128_load, v128_or};
    let mut vectors = line.chunks_exact(16);
    let mut any = u8x16_splat(0);
    for vector in &mut vectors {
        // SAFETY: `vector` is 16 bytes in bounds; `v128_load` needs no alignment.
        any = v128_or(any, unsafe { v128_load(vector.as_ptr().cast::<v128>()) });
    }
    let ascii = u8x16_bitmask(any) == 0 && vectors.remainder().is_ascii();
    ascii || std::str::from_utf8(line).is_ok()
}

#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
fn is_utf8(line: &[u8]) -> bool {
    std::str::from_utf8(line).is_ok()
}
