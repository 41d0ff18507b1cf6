//! One file's search and what it prints, as ripgrep does: grep-searcher set up with rg's
//! binary detection, line terminator and context, then grep-printer's standard or
//! summary printer, with ripgrep's separators between files.

use super::Rg;
use grep_matcher::LineTerminator;
use grep_printer::{StandardBuilder, SummaryBuilder, SummaryKind};
use grep_regex::RegexMatcher;
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder};
use std::path::Path;
use termcolor::NoColor;

/// Searches `data` as ripgrep reads the file: `mapped` (a file named on the command
/// line, which rg memory-maps unless `--no-mmap`) as one slice, where rg looks for a NUL
/// only at the start; otherwise through its read buffer, so a NUL anywhere before a match
/// is seen (a walked file is then skipped as binary).
fn search<S: grep_searcher::Sink>(
    searcher: &mut Searcher,
    matcher: &RegexMatcher,
    data: &[u8],
    mapped: bool,
    sink: S,
) -> Result<(), S::Error> {
    if mapped { searcher.search_slice(matcher, data, sink) } else { searcher.search_reader(matcher, data, sink) }
}

impl Rg<'_, '_> {
    fn searcher(&self, explicit: bool) -> Searcher {
        let context = self.o.context.unwrap_or(0);
        let (before, after) = if self.summary_kind().is_some() {
            (0, 0)
        } else {
            (self.o.before.unwrap_or(context), self.o.after.unwrap_or(context))
        };
        let binary = if self.o.text || self.o.null_data {
            BinaryDetection::none()
        } else if explicit || self.o.binary {
            BinaryDetection::convert(b'\0')
        } else {
            BinaryDetection::quit(b'\0')
        };
        let terminator = if self.o.crlf {
            LineTerminator::crlf()
        } else if self.o.null_data {
            LineTerminator::byte(b'\0')
        } else {
            LineTerminator::byte(b'\n')
        };
        SearcherBuilder::new()
            .line_terminator(terminator)
            .line_number(self.line_number())
            .invert_match(self.o.invert)
            .before_context(before)
            .after_context(after)
            .max_matches(self.o.max_count)
            .binary_detection(binary)
            .build()
    }

    /// ripgrep's `line_number`: `-n`/`-N` if given, else implied by `--column` and
    /// `--vimgrep`; never in summaries.
    fn line_number(&self) -> bool {
        self.summary_kind().is_none()
            && self.o.line_number.unwrap_or(self.o.column == Some(true) || self.o.vimgrep || self.o.pretty)
    }

    fn column(&self) -> bool {
        self.o.column.unwrap_or(self.o.vimgrep)
    }

    /// The context separator, `None` after `--no-context-separator`.
    fn context_separator(&self) -> Option<Vec<u8>> {
        if self.o.no_context_separator {
            None
        } else {
            Some(self.o.context_separator.clone().unwrap_or_else(|| b"--".to_vec()))
        }
    }

    fn summary_kind(&self) -> Option<SummaryKind> {
        if self.o.quiet {
            Some(SummaryKind::QuietWithMatch)
        } else if self.o.files_with_matches {
            Some(SummaryKind::PathWithMatch)
        } else if self.o.files_without_match {
            Some(SummaryKind::PathWithoutMatch)
        } else if self.o.count_matches || (self.o.count && self.o.only_matching) {
            Some(SummaryKind::CountMatches)
        } else if self.o.count {
            Some(SummaryKind::Count)
        } else {
            None
        }
    }

    /// Searches one file's `data`; `explicit` (named on the command line, or stdin) and
    /// `mapped` (searched as one slice: see [`search`]) are as ripgrep treats it.
    pub(super) fn search_data(
        &mut self,
        matcher: &RegexMatcher,
        data: &[u8],
        shown: &str,
        with_name: bool,
        explicit: bool,
        mapped: bool,
    ) {
        let mut searcher = self.searcher(explicit);
        let terminator = if self.o.null { Some(0u8) } else { None };
        let result = if let Some(kind) = self.summary_kind() {
            let mut printer = SummaryBuilder::new()
                .kind(kind)
                .path(with_name)
                .exclude_zero(!self.o.include_zero)
                .separator_path(self.o.path_separator)
                .path_terminator(terminator)
                .build(NoColor::new(Vec::new()));
            let r = {
                let mut sink = printer.sink_with_path(matcher, Path::new(shown));
                let r = search(&mut searcher, matcher, data, mapped, &mut sink);
                let found = sink.has_match();
                r.map(|_| found)
            };
            self.io.stdout.extend_from_slice(printer.get_mut().get_ref());
            r
        } else {
            let context = searcher.before_context() > 0 || searcher.after_context() > 0;
            let separator = self.context_separator();
            let heading = self.o.heading.unwrap_or(self.o.pretty) && !self.o.vimgrep;
            let mut printer = StandardBuilder::new()
                .heading(heading)
                .separator_field_match(self.o.field_match_separator.clone().unwrap_or_else(|| b":".to_vec()))
                .separator_field_context(self.o.field_context_separator.clone().unwrap_or_else(|| b"-".to_vec()))
                .path(with_name || self.o.vimgrep)
                .only_matching(self.o.only_matching)
                .per_match(self.o.vimgrep)
                .column(self.column())
                .byte_offset(self.o.byte_offset)
                .trim_ascii(self.o.trim)
                .max_columns(self.o.max_columns)
                .max_columns_preview(self.o.max_columns_preview)
                .path_terminator(terminator)
                .separator_path(self.o.path_separator)
                .separator_context(separator.clone())
                .separator_search(None)
                .build(NoColor::new(Vec::new()));
            let r = {
                let mut sink = printer.sink_with_path(matcher, Path::new(shown));
                let r = search(&mut searcher, matcher, data, mapped, &mut sink);
                let found = sink.has_match();
                r.map(|_| found)
            };
            let out = printer.get_mut().get_ref();
            // ripgrep's file separator: an empty line with `--heading`, else the context
            // separator when there is context; it ends with the line terminator.
            let file_separator = if heading { Some(Vec::new()) } else { separator.filter(|_| context) };
            if let Some(sep) = file_separator.filter(|_| self.printed && !out.is_empty()) {
                self.io.stdout.extend_from_slice(&sep);
                self.io.stdout.extend_from_slice(searcher.line_terminator().as_bytes());
            }
            if !out.is_empty() {
                self.printed = true;
            }
            self.io.stdout.extend_from_slice(out);
            r
        };
        match result {
            Ok(found) => {
                if found {
                    self.matched = true;
                }
            }
            Err(e) => self.message(shown, &e.to_string()),
        }
    }
}
