//! Running a compiled script over the input, as GNU sed's `execute.c` does: one cycle
//! per line, the pattern and hold spaces each remembering whether their text ended
//! without a newline, output that adds a missing newline only when more output follows,
//! and input files opened one at a time (so `q` stops before a missing file is noticed,
//! and `$` looks ahead past empty and unreadable files).

use std::collections::HashMap;
use std::rc::Rc;

use reviewhost_tool::{Ctx, Io};

use super::address::Env;
use super::pattern::Pattern;
use super::script::{Cmd, Dest, Op, Subst};
use super::text;
use crate::common::{ReadError, read_path};

/// Backward jumps (`b`, `t`, `T`, `D`) allowed on one input line.
const MAX_JUMPS: usize = 1_000_000;

/// A buffer and whether the line it came from had its delimiter (`chomped`).
#[derive(Debug, Clone, Default)]
struct Space {
    text: Vec<u8>,
    chomped: bool,
}

/// The run's options.
pub(super) struct Options {
    pub quiet: bool,
    pub separate: bool,
    pub delimiter: u8,
    pub line_wrap: usize,
    pub posix: bool,
    /// Whether the script was read from stdin (`-f -`).
    pub stdin_read: bool,
}

/// Something queued by `a`, `r` or `R` for the end of the cycle.
enum Queued {
    Text(Vec<u8>),
    File(String),
}

/// An error that ends the run: the message and the exit status (4 for an I/O error, 1
/// for GNU's runtime script errors such as a missing previous regex).
pub(super) struct Fatal(pub String, pub i32);

struct OpenFile {
    name: String,
    /// `None`: a directory, which fails when read.
    data: Option<Vec<u8>>,
    pos: usize,
}

pub(super) struct Machine<'a, 'io> {
    cmds: Vec<Cmd>,
    opts: Options,
    ctx: &'a Ctx,
    io: &'a mut Io<'io>,
    /// Stdin not yet read.
    stdin: &'io [u8],
    files: Vec<String>,
    next_file: usize,
    current: Option<OpenFile>,
    /// The last file opened (or tried), as `F` prints it.
    file_name: String,
    bad_count: usize,
    line_number: u64,
    reset_at_next_file: bool,
    line: Space,
    hold: Space,
    queue: Vec<Queued>,
    replaced: bool,
    last_regex: Option<Rc<Pattern>>,
    /// Whether the last thing written to stdout, `/dev/stdout` (`w`) and stderr lacked
    /// its newline.
    missing: [bool; 3],
    /// `R` files: contents and read position.
    read_files: HashMap<String, Option<(Vec<u8>, usize)>>,
}

impl<'a, 'io> Machine<'a, 'io> {
    pub(super) fn new(cmds: Vec<Cmd>, opts: Options, files: Vec<String>, ctx: &'a Ctx, io: &'a mut Io<'io>) -> Self {
        let stdin = if opts.stdin_read { &[][..] } else { io.stdin };
        Machine {
            cmds,
            opts,
            ctx,
            io,
            stdin,
            files,
            next_file: 0,
            current: None,
            file_name: "-".to_string(),
            bad_count: 0,
            line_number: 0,
            reset_at_next_file: true,
            line: Space { text: Vec::new(), chomped: true },
            hold: Space { text: Vec::new(), chomped: true },
            queue: Vec::new(),
            replaced: false,
            last_regex: None,
            missing: [false; 3],
            read_files: HashMap::new(),
        }
    }

    /// Runs the script over all the input: GNU's `process_files`.
    pub(super) fn run(&mut self) -> Result<i32, Fatal> {
        let mut status = 0;
        while self.read_pattern_space(false)? {
            if let Some(quit) = self.execute()? {
                status = quit;
                break;
            }
        }
        if self.bad_count > 0 {
            status = 2;
        }
        Ok(status)
    }

    fn open_next_file(&mut self) {
        let name = self.files[self.next_file].clone();
        self.next_file += 1;
        self.file_name = name.clone();
        let data = if name == "-" {
            // Stdin is read once: a second `-` (or one after `-f -`) finds it at its end.
            Ok(Some(std::mem::take(&mut self.stdin).to_vec()))
        } else if self.ctx.is_null_device(&name) {
            Ok(Some(Vec::new()))
        } else {
            match read_path(&self.ctx.real(&name)) {
                Ok(data) => Ok(Some(data)),
                Err(ReadError::IsDir) => Ok(None),
                Err(ReadError::Other(message)) => Err(message),
            }
        };
        match data {
            Ok(data) => self.current = Some(OpenFile { name, data, pos: 0 }),
            Err(message) => {
                self.io.stderr.extend_from_slice(format!("sed: can't read {name}: {message}\n").as_bytes());
                self.bad_count += 1;
                self.current = None;
            }
        }
    }

    /// One line from the current file, if it has one.
    fn read_line(&mut self) -> Result<Option<(Vec<u8>, bool)>, Fatal> {
        let delimiter = self.opts.delimiter;
        let Some(file) = &mut self.current else { return Ok(None) };
        let Some(data) = &file.data else {
            return Err(Fatal(format!("read error on {}: Is a directory", file.name), 4));
        };
        if file.pos >= data.len() {
            return Ok(None);
        }
        let rest = &data[file.pos..];
        Ok(Some(match rest.iter().position(|&b| b == delimiter) {
            Some(end) => {
                file.pos += end + 1;
                (rest[..end].to_vec(), true)
            }
            None => {
                file.pos = data.len();
                (rest.to_vec(), false)
            }
        }))
    }

    /// GNU's `read_pattern_space`: the append queue flushed, then the next line (appended
    /// after a newline for `N`).
    fn read_pattern_space(&mut self, append: bool) -> Result<bool, Fatal> {
        self.dump_append_queue();
        self.replaced = false;
        if !append {
            self.line.text.clear();
        }
        self.line.chomped = true;
        loop {
            if let Some((text, chomped)) = self.read_line()? {
                self.line.text.extend_from_slice(&text);
                self.line.chomped = chomped;
                break;
            }
            self.current = None;
            if self.next_file >= self.files.len() {
                return Ok(false);
            }
            if self.reset_at_next_file {
                self.line_number = 0;
                self.hold.text.clear();
                for cmd in &mut self.cmds {
                    cmd.selector.reset();
                }
                for file in self.read_files.values_mut().flatten() {
                    file.1 = 0;
                }
                self.reset_at_next_file = self.opts.separate;
            }
            self.open_next_file();
        }
        self.line_number += 1;
        Ok(true)
    }

    /// GNU's `test_eof`: whether no line follows (in this file with `-s`).
    fn test_eof(&mut self) -> bool {
        if let Some(file) = &self.current
            && let Some(data) = &file.data
            && file.pos < data.len()
        {
            return false;
        }
        if self.opts.separate {
            return true;
        }
        loop {
            self.current = None;
            if self.next_file >= self.files.len() {
                return true;
            }
            self.open_next_file();
            if let Some(file) = &self.current
                && file.data.as_ref().is_some_and(|d| !d.is_empty())
            {
                return false;
            }
        }
    }

    fn output(&mut self, which: usize, text: &[u8], newline: bool) {
        let delimiter = self.opts.delimiter;
        let out: &mut Vec<u8> = if which == 2 { self.io.stderr } else { self.io.stdout };
        if self.missing[which] {
            out.push(delimiter);
            self.missing[which] = false;
        }
        out.extend_from_slice(text);
        if newline {
            out.push(delimiter);
        } else {
            self.missing[which] = true;
        }
    }

    fn output_missing_newline(&mut self) {
        if self.missing[0] {
            self.io.stdout.push(self.opts.delimiter);
            self.missing[0] = false;
        }
    }

    fn print_line(&mut self) {
        let (text, chomped) = (std::mem::take(&mut self.line.text), self.line.chomped);
        self.output(0, &text, chomped);
        self.line.text = text;
    }

    fn dump_append_queue(&mut self) {
        if self.queue.is_empty() {
            return;
        }
        self.output_missing_newline();
        for item in std::mem::take(&mut self.queue) {
            match item {
                Queued::Text(text) => self.io.stdout.extend_from_slice(&text),
                Queued::File(name) => {
                    let data = if name == "/dev/stdin" {
                        Some(std::mem::take(&mut self.stdin).to_vec())
                    } else {
                        read_path(&self.ctx.real(&name)).ok()
                    };
                    if let Some(data) = data {
                        self.io.stdout.extend_from_slice(&data);
                    }
                }
            }
        }
    }

    fn read_file_line(&mut self, name: &str) -> Option<Vec<u8>> {
        let delimiter = self.opts.delimiter;
        let entry = self
            .read_files
            .entry(name.to_string())
            .or_insert_with(|| read_path(&self.ctx.real(name)).ok().map(|data| (data, 0)));
        let (data, pos) = entry.as_mut()?;
        if *pos >= data.len() {
            return None;
        }
        let rest = &data[*pos..];
        let end = rest.iter().position(|&b| b == delimiter).map_or(rest.len(), |e| e + 1);
        *pos += end;
        Some(rest[..end].to_vec())
    }

    /// One cycle: GNU's `execute_program`. `Some(status)` when sed must stop.
    fn execute(&mut self) -> Result<Option<i32>, Fatal> {
        let mut pc = 0;
        let mut jumps = 0usize;
        let mut read_at = self.line_number;
        while pc < self.cmds.len() {
            // GNU loops forever on `:a;b a`; behind a pipe it is stopped by SIGPIPE, which
            // the sandbox's buffered pipes never send. A script that jumps back this often
            // without reading a line is stopped instead.
            if read_at != self.line_number {
                (read_at, jumps) = (self.line_number, 0);
            }
            if jumps > MAX_JUMPS {
                return Err(Fatal(
                    format!(
                        "a script looping without reading input ({MAX_JUMPS} jumps on one line) is refused in the sandbox"
                    ),
                    4,
                ));
            }
            let mut selector = std::mem::take(&mut self.cmds[pc].selector);
            let matched = selector.matches(self).map_err(|m| Fatal(m, 1));
            self.cmds[pc].selector = selector;
            if matched? == self.cmds[pc].bang {
                if let Op::Block(end) = self.cmds[pc].op {
                    pc = end;
                    continue;
                }
                pc += 1;
                continue;
            }
            let delimiter = self.opts.delimiter;
            match &self.cmds[pc].op {
                Op::Block(_) | Op::Nop => {}
                Op::Branch(kind, to) => {
                    let jump = match kind {
                        b'b' => true,
                        b't' => std::mem::take(&mut self.replaced),
                        _ => !std::mem::replace(&mut self.replaced, false),
                    };
                    if jump {
                        jumps += usize::from(*to <= pc);
                        pc = *to;
                        continue;
                    }
                }
                Op::Append(text) => {
                    let text = text.clone();
                    self.queue.push(Queued::Text(text));
                }
                Op::Insert(text) => {
                    let text = text.clone();
                    if !text.is_empty() {
                        self.output(0, &text[..text.len() - 1], true);
                    }
                }
                Op::Change(text) => {
                    let text = text.clone();
                    if self.cmds[pc].selector.state != super::address::RangeState::Active && !text.is_empty() {
                        self.output(0, &text[..text.len() - 1], true);
                    }
                    return Ok(None);
                }
                Op::List(width) => {
                    let width = width.unwrap_or(self.opts.line_wrap);
                    self.output_missing_newline();
                    text::list(&self.line.text, width, delimiter, self.io.stdout);
                }
                Op::Quit { print, status } => {
                    let status = *status;
                    if *print {
                        if !self.opts.quiet {
                            self.print_line();
                        }
                        // GNU's `q` flushes the append queue unconditionally, which
                        // first ends a line printed without its newline.
                        self.output_missing_newline();
                        self.dump_append_queue();
                    }
                    return Ok(Some(status));
                }
                Op::ReadFile(name) => {
                    let name = name.clone();
                    self.queue.push(Queued::File(name));
                }
                Op::ReadLine(name) => {
                    let name = name.clone();
                    if let Some(line) = self.read_file_line(&name) {
                        self.queue.push(Queued::Text(line));
                    }
                }
                Op::Write { dest, first_line } => {
                    let which = if *dest == Dest::Stdout { 1 } else { 2 };
                    let (text, chomped) = self.first_line(*first_line);
                    self.output(which, &text, chomped);
                }
                Op::Subst(_) => self.substitute(pc)?,
                Op::Translate(map) => {
                    let mut out = Vec::with_capacity(self.line.text.len());
                    for c in super::script::chars(&self.line.text) {
                        match map.iter().find(|(from, _)| *from == c) {
                            Some((_, to)) => out.extend_from_slice(to),
                            None => out.extend_from_slice(&c),
                        }
                    }
                    self.line.text = out;
                }
                Op::Simple(command) => match command {
                    b'd' => return Ok(None),
                    b'D' => match self.line.text.iter().position(|&b| b == delimiter) {
                        None => return Ok(None),
                        Some(at) => {
                            self.line.text.drain(..=at);
                            jumps += 1;
                            pc = 0;
                            continue;
                        }
                    },
                    b'=' => {
                        self.output_missing_newline();
                        let text = format!("{}", self.line_number);
                        self.io.stdout.extend_from_slice(text.as_bytes());
                        self.io.stdout.push(delimiter);
                    }
                    b'F' => {
                        self.output_missing_newline();
                        let name = self.file_name.clone();
                        self.io.stdout.extend_from_slice(name.as_bytes());
                        self.io.stdout.push(delimiter);
                    }
                    b'g' => self.line = self.hold.clone(),
                    b'G' => {
                        self.line.text.push(delimiter);
                        self.line.text.extend_from_slice(&self.hold.text);
                        self.line.chomped = self.hold.chomped;
                    }
                    b'h' => self.hold = self.line.clone(),
                    b'H' => {
                        self.hold.text.push(delimiter);
                        self.hold.text.extend_from_slice(&self.line.text);
                        self.hold.chomped = self.line.chomped;
                    }
                    b'x' => std::mem::swap(&mut self.line, &mut self.hold),
                    b'z' => self.line.text.clear(),
                    b'p' => self.print_line(),
                    b'P' => {
                        let (text, chomped) = self.first_line(true);
                        self.output(0, &text, chomped);
                    }
                    b'n' => {
                        let eof = self.test_eof();
                        if !self.opts.quiet {
                            self.print_line();
                        }
                        if eof || !self.read_pattern_space(false)? {
                            return Ok(None);
                        }
                    }
                    b'N' => {
                        self.line.text.push(delimiter);
                        if self.test_eof() || !self.read_pattern_space(true)? {
                            self.line.text.pop();
                            if !self.opts.posix && !self.opts.quiet {
                                self.print_line();
                            }
                            return Ok(None);
                        }
                    }
                    _ => {}
                },
            }
            pc += 1;
        }
        if !self.opts.quiet {
            self.print_line();
        }
        Ok(None)
    }

    /// The pattern space up to its first newline (`P`, `W`), or all of it.
    fn first_line(&self, first: bool) -> (Vec<u8>, bool) {
        let text = &self.line.text;
        match text.iter().position(|&b| b == self.opts.delimiter).filter(|_| first) {
            Some(at) => (text[..at].to_vec(), true),
            None => (text.clone(), self.line.chomped),
        }
    }

    fn regex_for(&mut self, regex: &Option<Rc<Pattern>>) -> Result<Rc<Pattern>, String> {
        match regex {
            Some(r) => {
                self.last_regex = Some(r.clone());
                Ok(r.clone())
            }
            None => self.last_regex.clone().ok_or_else(|| "no previous regular expression".to_string()),
        }
    }

    /// GNU's `do_subst`.
    fn substitute(&mut self, pc: usize) -> Result<(), Fatal> {
        let Op::Subst(sub) = &self.cmds[pc].op else { return Ok(()) };
        let sub: &Subst = sub;
        let regex = match &sub.regex {
            Some(r) => {
                self.last_regex = Some(r.clone());
                r.clone()
            }
            None => match &self.last_regex {
                Some(r) => r.clone(),
                None => return Err(Fatal("-e expression #1, char 0: no previous regular expression".into(), 1)),
            },
        };
        if sub.regex.is_none() && regex.no_sub && sub.replacement.max_group > regex.groups && !self.opts.posix {
            let n = sub.replacement.max_group;
            return Err(Fatal(format!("-e expression #1, char 0: invalid reference \\{n} on `s' command's RHS"), 1));
        }
        let line = &self.line.text;
        let mut locs = regex.regex.capture_locations();
        let mut out = Vec::with_capacity(line.len());
        let (mut start, mut last_end, mut count) = (0usize, 0usize, 0usize);
        let mut replaced = false;
        let mut found = regex.regex.captures_read_at(&mut locs, line, 0).is_some();
        if !found {
            return Ok(());
        }
        loop {
            longest_match(&regex, line, &mut locs);
            let (offset, end) = locs.get(0).expect("group 0");
            let mut matched = end - offset;
            if start < offset {
                out.extend_from_slice(&line[start..offset]);
            }
            let mut again = true;
            if (matched > 0 || count == 0 || offset > last_end) && {
                count += 1;
                count >= sub.nth
            } {
                replaced = true;
                let groups: Vec<Option<(usize, usize)>> = (0..locs.len()).map(|i| locs.get(i)).collect();
                text::expand(&sub.replacement, line, &groups, &mut out);
                again = sub.global;
            } else {
                if matched == 0 {
                    if offset < line.len() {
                        matched = if regex.bytewise { 1 } else { super::pattern::utf8_len(&line[offset..]).max(1) };
                    } else {
                        break;
                    }
                }
                out.extend_from_slice(&line[offset..offset + matched]);
            }
            start = offset + matched;
            last_end = end;
            if !again || start > line.len() {
                break;
            }
            found = regex.regex.captures_read_at(&mut locs, line, start).is_some();
            if !found {
                break;
            }
        }
        if start < line.len() {
            out.extend_from_slice(&line[start..]);
        }
        if !replaced {
            return Ok(());
        }
        let (print, write) = (sub.print, sub.write);
        self.line.text = out;
        self.replaced = true;
        if print {
            self.print_line();
        }
        if let Some(dest) = write {
            let which = if dest == Dest::Stdout { 1 } else { 2 };
            let (text, chomped) = (self.line.text.clone(), self.line.chomped);
            self.output(which, &text, chomped);
        }
        Ok(())
    }
}

/// Lines longer than this keep the first alternative's match: finding the longest one
/// costs a search per candidate end.
const LONGEST_MATCH_LIMIT: usize = 4096;

/// Replaces the match in `locs` (leftmost, first alternative that matches) by the longest
/// match at the same start, as POSIX chooses, when the pattern has alternatives.
fn longest_match(regex: &Pattern, line: &[u8], locs: &mut regex::bytes::CaptureLocations) {
    let (Some(anchored), Some((start, end))) = (&regex.anchored_end, locs.get(0)) else { return };
    if line.len() > LONGEST_MATCH_LIMIT {
        return;
    }
    let mut candidate = anchored.capture_locations();
    for e in (end + 1..=line.len()).rev() {
        if anchored.captures_read_at(&mut candidate, &line[..e], start).is_some_and(|m| m.start() == start) {
            *locs = candidate;
            return;
        }
    }
}

impl Env for Machine<'_, '_> {
    fn line_number(&self) -> u64 {
        self.line_number
    }

    fn is_last(&mut self) -> bool {
        self.test_eof()
    }

    fn regex_matches(&mut self, regex: &Option<Rc<Pattern>>) -> Result<bool, String> {
        let r = self.regex_for(regex).map_err(|m| format!("-e expression #1, char 0: {m}"))?;
        Ok(r.regex.is_match(&self.line.text))
    }
}
