//! One input's bytes searched and reported as GNU grep does: a NUL byte makes it binary
//! (its lines are not printed, "binary file matches" is), `-T` aligns to the digits of
//! its size, and `-c`, `-l`, `-L` print one line for the whole file.

use super::{BinaryFiles, Grep, ListFiles};
use crate::search;

impl Grep<'_, '_> {
    pub(super) fn search_buffer(&mut self, data: &[u8], shown: &str) {
        let binary = self.o.binary != BinaryFiles::Text && memchr::memchr(0, data).is_some();
        let out_quiet = self.line_opts.quiet;
        let mut opts = self.line_opts.clone();
        let zapped;
        let buf: &[u8] = if binary {
            if self.o.binary == BinaryFiles::WithoutMatch {
                self.file_result(shown, 0);
                return;
            }
            // GNU treats NUL bytes of a binary file as line ends and prints no lines.
            zapped = data.iter().map(|&b| if b == 0 { b'\n' } else { b }).collect::<Vec<u8>>();
            opts.quiet = true;
            if !self.o.count {
                opts.stop_at_first = true;
            }
            &zapped
        } else {
            data
        };
        if opts.initial_tab {
            // GNU's width for -T: the digits of the file's size, plus one with -n.
            let size = data.len() as u64 + u64::from(opts.line_number);
            opts.offset_width = size.checked_ilog10().unwrap_or(0) as usize + 1;
        }
        let name = if self.out_file { Some(shown.as_bytes()) } else { None };
        let found = search::search(buf, &self.matcher, &opts, name, self.io.stdout, &mut self.shared);
        if (found.encoding_error || binary) && found.selected > 0 && !out_quiet {
            self.io.stderr.extend_from_slice(format!("grep: {shown}: binary file matches\n").as_bytes());
        }
        self.file_result(shown, found.selected);
    }

    /// File-level output (`-c`, `-l`, `-L`) and the exit status bookkeeping.
    fn file_result(&mut self, shown: &str, selected: u64) {
        if selected > 0 {
            self.matched = true;
            if self.o.quiet {
                self.done = true;
                return;
            }
        }
        let end = if self.o.null { b'\0' } else { b'\n' };
        match self.o.list {
            Some(ListFiles::Matching) if selected > 0 => {
                self.io.stdout.extend_from_slice(shown.as_bytes());
                self.io.stdout.push(end);
            }
            Some(ListFiles::NonMatching) if selected == 0 => {
                self.io.stdout.extend_from_slice(shown.as_bytes());
                self.io.stdout.push(end);
            }
            Some(_) => {}
            None if self.o.count && !self.o.quiet => {
                if self.out_file {
                    self.io.stdout.extend_from_slice(shown.as_bytes());
                    self.io.stdout.push(if self.o.null { b'\0' } else { b':' });
                }
                self.io.stdout.extend_from_slice(format!("{selected}\n").as_bytes());
            }
            None => {}
        }
    }
}
