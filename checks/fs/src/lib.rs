//! Built-in check for `file_exists` and `file_content`.
//!
//! Runs inside the sandbox with the repository root as its current directory. The host
//! has already turned the assertion's `path` into a root-relative path and refused
//! anything that is lexically outside the root; what is left to refuse here is what only
//! the filesystem knows: a symlink that leads outside (WASI says "not permitted") and
//! files that are not regular (a FIFO or device must never be opened: opening a FIFO
//! blocks).
//!
//! `file_content` streams the file, so a file larger than the memory limit is searched
//! in constant memory; the deadline bounds the time.

use std::fs::{File, Metadata};
use std::io::{self, ErrorKind, Read};

use reviewhost_guest::{Check, Verdict};
use reviewhost_protocol::FileCheck;

/// Bytes read per chunk while searching for a needle.
const CHUNK: usize = 64 * 1024;
/// Longest evidence line kept, in characters: evidence is for humans, not a copy of the file.
const MAX_EVIDENCE_CHARS: usize = 200;

pub struct FsCheck;

impl Check for FsCheck {
    fn evaluate(input: &str) -> Result<Verdict, String> {
        match serde_json::from_str(input).map_err(|e| format!("invalid input: {e}"))? {
            FileCheck::FileExists { path } => Ok(file_exists(&path)),
            FileCheck::FileContent { path, needle } => Ok(file_content(&path, &needle)),
        }
    }
}

reviewhost_guest::export_check!(FsCheck);

fn file_exists(path: &str) -> Verdict {
    match std::fs::metadata(path) {
        Ok(meta) => Verdict::pass(format!("Exists: {path} ({})", kind_of(&meta))),
        Err(e) if e.kind() == ErrorKind::NotFound => Verdict::fail(format!("Not found: {path}")),
        Err(e) => Verdict::fail(inaccessible(path, &e)),
    }
}

fn file_content(path: &str, needle: &str) -> Verdict {
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == ErrorKind::NotFound => return Verdict::fail(format!("File not found: {path}")),
        Err(e) => return Verdict::fail(inaccessible(path, &e)),
    };
    if !meta.is_file() {
        return Verdict::fail(format!("Not a regular file: {path} ({})", kind_of(&meta)));
    }
    let found = File::open(path).and_then(|file| find(file, needle.as_bytes()));
    match found {
        Ok(Some(hit)) => Verdict::pass(format!("Needle found in {path} at line {}", hit.line)).with_evidence(
            path,
            Some(hit.line),
            hit.text,
        ),
        Ok(None) => Verdict::fail(format!("Needle not found: {needle:?}")),
        Err(e) => Verdict::fail(inaccessible(path, &e)),
    }
}

/// The message for a path the sandbox refused or could not read.
fn inaccessible(path: &str, e: &io::Error) -> String {
    if e.kind() == ErrorKind::PermissionDenied {
        format!(
            "Cannot access {path}: not permitted (it leads outside the sandbox root, through an absolute symlink, or is unreadable)"
        )
    } else {
        format!("Cannot access {path}: {e}")
    }
}

fn kind_of(meta: &Metadata) -> &'static str {
    if meta.is_file() {
        "file"
    } else if meta.is_dir() {
        "directory"
    } else if meta.file_type().is_symlink() {
        "symlink"
    } else {
        "special file"
    }
}

/// Where a needle was first found.
#[derive(Debug, PartialEq, Eq)]
struct Hit {
    /// 1-based line of the first byte of the match.
    line: u32,
    /// The line around the match, as far as it is in the current buffer.
    text: String,
}

/// Finds the first occurrence of `needle` in `reader`, reading in chunks and keeping the
/// last `needle.len() - 1` bytes of each chunk so a match across chunks is not missed.
fn find(mut reader: impl Read, needle: &[u8]) -> io::Result<Option<Hit>> {
    let finder = memchr::memmem::Finder::new(needle);
    let keep = needle.len().saturating_sub(1);
    let mut buf: Vec<u8> = Vec::with_capacity(CHUNK + keep);
    // Newlines in the bytes already dropped from the front of `buf`.
    let mut lines_before = 0u32;
    loop {
        // Fill a whole chunk (or reach the end) before searching, so a reader that
        // returns a few bytes at a time costs no more searches than one that fills it.
        let start = buf.len();
        buf.resize(start + CHUNK, 0);
        let mut filled = start;
        while filled < buf.len() {
            match reader.read(&mut buf[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        let at_end = filled < buf.len();
        buf.truncate(filled);
        if let Some(pos) = finder.find(&buf) {
            let line = lines_before + memchr::memchr_iter(b'\n', &buf[..pos]).count() as u32 + 1;
            return Ok(Some(Hit { line, text: line_around(&buf, pos) }));
        }
        if at_end {
            return Ok(None);
        }
        let drop = buf.len().saturating_sub(keep);
        lines_before += memchr::memchr_iter(b'\n', &buf[..drop]).count() as u32;
        buf.drain(..drop);
    }
}

/// The line of `buf` that contains `pos`, cut to [`MAX_EVIDENCE_CHARS`].
fn line_around(buf: &[u8], pos: usize) -> String {
    let start = memchr::memrchr(b'\n', &buf[..pos]).map_or(0, |i| i + 1);
    let end = memchr::memchr(b'\n', &buf[pos..]).map_or(buf.len(), |i| pos + i);
    let line = String::from_utf8_lossy(&buf[start..end]);
    line.trim_end_matches('\r').chars().take(MAX_EVIDENCE_CHARS).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that returns at most `step` bytes per read, to force chunk boundaries.
    struct Trickle<'a> {
        data: &'a [u8],
        step: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            let n = self.step.min(out.len()).min(self.data.len());
            out[..n].copy_from_slice(&self.data[..n]);
            self.data = &self.data[n..];
            Ok(n)
        }
    }

    #[test]
    fn finds_needle_and_its_line() {
        let hit = find(&b"one\ntwo\nthree needle here\nfour"[..], b"needle").unwrap().unwrap();
        assert_eq!(hit, Hit { line: 3, text: "three needle here".into() });
    }

    #[test]
    fn finds_needle_across_chunk_boundaries() {
        let mut data = vec![b'a'; CHUNK - 3];
        data.extend_from_slice(b"\n\nxyzzy\n");
        data.extend(std::iter::repeat_n(b'b', CHUNK * 2));
        data.extend_from_slice(b"\nlast-needle");
        let hit = find(&data[..], b"xyzzy").unwrap().unwrap();
        assert_eq!(hit.line, 3);
        // Lines: a..., "", "xyzzy", b..., "last-needle".
        let hit = find(&data[..], b"last-needle").unwrap().unwrap();
        assert_eq!(hit, Hit { line: 5, text: "last-needle".into() });
        let hit = find(Trickle { data: &data, step: 7 }, b"last-needle").unwrap().unwrap();
        assert_eq!(hit.line, 5);
    }

    #[test]
    fn absent_needle_is_none() {
        assert_eq!(find(&b"abc\n"[..], b"abd").unwrap(), None);
        assert_eq!(find(&b""[..], b"x").unwrap(), None);
    }

    #[test]
    fn verdicts_on_a_fixture_tree() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("f.txt"), "alpha\n\"plugin\": \"test\"\n").unwrap();
        let f = dir.path().join("f.txt");
        let f = f.to_str().unwrap();
        assert!(file_exists(f).passed);
        assert!(!file_exists(&format!("{f}.missing")).passed);
        let v = file_content(f, "\"plugin\": \"test\"");
        assert!(v.passed);
        assert_eq!(v.evidence[0].line, Some(2));
        assert!(!file_content(f, "beta").passed);
        let dir_path = dir.path().to_str().unwrap();
        let v = file_content(dir_path, "x");
        assert!(!v.passed && v.message.starts_with("Not a regular file"), "{}", v.message);
    }
}
