//! What must hold for any search over any tree: the run's first pass never changes what a
//! search prints or how it exits, even when the tree changes between the pass and the
//! search.
//!
//! The input picks one of a fixed set of generated trees (names that are not UTF-8,
//! spaces and leading dashes, symlinks inside and out of the root and dangling, a FIFO,
//! binary, UTF-16 and CRLF files, `.gitignore`), a search (`grep`, `egrep`, `fgrep` or
//! `rg`, options, a pattern, paths) and a change made after the pass was built: a file
//! appended to, rewritten at the same size, added, renamed over, removed, replaced by a
//! symlink, a new directory, a new file whose name is not UTF-8. The search runs with
//! the pass and without it; stdout, stderr and the exit status must be identical.
//!
//! The trees are made once per process and given time to settle, because the pass does
//! not index what changed in the last few milliseconds; a tree an input changed is made
//! again afterwards.
//!
//! Shared by the stable test (`checks/grep/tests/fuzz_prefilter.rs`) and the libFuzzer
//! target (`fuzz/fuzz_targets/prefilter_diff.rs`), which both include this file with
//! `#[path]` next to the grep tests' in-process pass (`checks/grep/tests/common`).

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

use super::common::{Pass, run};

/// Trees generated: enough variety, few enough to stay settled.
const TREES: usize = 24;

const DIRS: &[&str] = &["", "src", "src/deep", "dir", ".hidden", "sp ace"];
const NAMES: &[&str] = &["a.txt", "b.rs", "c.md", "TOKEN.rs", ".dot", "-dash.txt", "x.pem", "é.txt"];
const PIECES: &[&[u8]] = &[
    b"TOKEN",
    b"token",
    b"ToKeN",
    b"TOKENS",
    b" ",
    b"\n",
    b"\r\n",
    b"\x00",
    b"T\x00O\x00K\x00E\x00N\x00",
    b"\xff\xfe",
    b"\xc3\xa9",
    b"\xff",
    b"-----BEGIN PRIVATE KEY-----",
    b"MockConnection::new()",
    b"foo bar",
    b"a|b",
    b"TOK",
    b"EN",
];
const PATTERNS: &[&str] = &[
    "TOKEN",
    "token",
    "TOK.*N",
    "PRIVATE KEY",
    "MockConnection",
    "\\bTOKEN\\b",
    "TOK(EN|X)",
    "TOK\\(EN\\|X\\)",
    "^TOKEN$",
    "foo bar",
    "é",
    "a|b",
    "TOKEN\\|foo",
    "[T]OKEN",
    "TOKENS?",
    "",
];
const GREP_OPTIONS: &[&str] = &[
    "-r",
    "-R",
    "-n",
    "-c",
    "-l",
    "-L",
    "-i",
    "-w",
    "-x",
    "-v",
    "-o",
    "-q",
    "-s",
    "-a",
    "-I",
    "-h",
    "-H",
    "-F",
    "-E",
    "-z",
    "-m1",
    "-y",
    "--include=*.rs",
    "--exclude=*.txt",
    "--exclude-dir=src",
    "--binary-files=text",
    "--binary-files=without-match",
    "-U",
    "--null",
    "-b",
    "--no-messages",
];
const RG_OPTIONS: &[&str] = &[
    "-n",
    "-c",
    "-l",
    "--files-without-match",
    "-i",
    "-S",
    "-w",
    "-x",
    "-v",
    "-o",
    "-F",
    "--count-matches",
    "--include-zero",
    "--binary",
    "-a",
    "-uu",
    "-u",
    "--hidden",
    "-L",
    "-g*.rs",
    "-g!*.txt",
    "-trust",
    "--no-ignore",
    "-z",
    "-m1",
    "--no-filename",
    "-H",
    "-I",
    "--null",
    "-N",
    "--no-messages",
];
const PATHS: &[&str] = &[".", "src", "in-link", "dir", "a.txt", "nope", "src/deep", "/", "sp ace", "out-link"];

/// Files the searches took as read without a match on the pass's answer, over all
/// inputs: a loop in which it stays 0 compared nothing.
pub static SKIPPED: AtomicUsize = AtomicUsize::new(0);

/// A small deterministic generator (xorshift), so that tree `i` is the same in every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Reads the input a byte at a time; past its end, zeros.
struct Cursor<'a>(&'a [u8]);

impl Cursor<'_> {
    fn byte(&mut self) -> u8 {
        let (&b, rest) = self.0.split_first().unwrap_or((&0, &[]));
        self.0 = rest;
        b
    }
    fn pick<'t, T>(&mut self, list: &'t [T]) -> &'t T {
        &list[self.byte() as usize % list.len()]
    }
}

fn write(path: &Path, data: &[u8]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, data).unwrap();
}

/// Makes tree `i` at `root` (which must not exist).
fn make_tree(root: &Path, i: usize) {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ (i as u64 + 1).wrapping_mul(0xBF58_476D_1CE4_E5B9));
    std::fs::create_dir_all(root).unwrap();
    for _ in 0..3 + rng.below(8) {
        let dir = DIRS[rng.below(DIRS.len())];
        let name = NAMES[rng.below(NAMES.len())];
        let mut data = Vec::new();
        for _ in 0..rng.below(6) {
            data.extend_from_slice(PIECES[rng.below(PIECES.len())]);
        }
        write(&root.join(dir).join(name), &data);
    }
    let flags = rng.next();
    if flags & 1 != 0 {
        write(&root.join("src").join(OsStr::from_bytes(b"prod\xff.pem")), b"-----BEGIN PRIVATE KEY----- TOKEN\n");
    }
    if flags & 2 != 0 {
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::os::unix::fs::symlink("src", root.join("in-link")).unwrap();
    }
    if flags & 4 != 0 {
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::os::unix::fs::symlink("../a.txt", root.join("src/f-link")).unwrap();
    }
    if flags & 8 != 0 {
        std::os::unix::fs::symlink("/etc/hostname", root.join("out-link")).unwrap();
    }
    if flags & 16 != 0 {
        std::os::unix::fs::symlink("nope", root.join("dangling")).unwrap();
    }
    if flags & 32 != 0 {
        std::fs::create_dir_all(root.join("dir")).unwrap();
        let fifo = std::ffi::CString::new(root.join("dir/fifo").as_os_str().as_bytes()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) };
    }
    if flags & 64 != 0 {
        write(&root.join(".gitignore"), b"*.md\nsrc/deep/\n");
    }
    if flags & 128 != 0 {
        std::fs::create_dir_all(root.join("empty-dir")).unwrap();
    }
}

/// The trees, each at `<base>/<i>`, settled; and which ones an input changed.
struct Trees {
    base: PathBuf,
    dirty: Mutex<Vec<bool>>,
}

fn trees() -> &'static Trees {
    static TREES_MADE: OnceLock<Trees> = OnceLock::new();
    TREES_MADE.get_or_init(|| {
        let shm = Path::new("/dev/shm");
        let parent = if shm.is_dir() { shm.to_path_buf() } else { std::env::temp_dir() };
        let dir = tempfile::Builder::new().prefix("reviewhost-fuzz-prefilter-").tempdir_in(parent).unwrap();
        let base = dir.keep();
        for i in 0..TREES {
            make_tree(&base.join(i.to_string()), i);
        }
        // Older than the pass's racy window (25 ms).
        std::thread::sleep(std::time::Duration::from_millis(60));
        Trees { base, dirty: Mutex::new(vec![false; TREES]) }
    })
}

/// A file of the tree at `root`, picked by `n`, if it has any.
fn some_file(root: &Path, n: u8) -> Option<PathBuf> {
    let mut files = Vec::new();
    for dir in DIRS {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else { continue };
        for e in entries.flatten() {
            if e.file_type().is_ok_and(|t| t.is_file()) {
                files.push(e.path());
            }
        }
    }
    files.sort();
    (!files.is_empty()).then(|| files[n as usize % files.len()].clone())
}

/// Makes change `kind` to the tree at `root`; whether anything changed.
fn change(root: &Path, kind: u8, n: u8) -> bool {
    let file = some_file(root, n);
    match (kind, file) {
        (1, Some(f)) => {
            use std::io::Write;
            std::fs::OpenOptions::new().append(true).open(f).unwrap().write_all(b"TOKEN\n").unwrap();
        }
        (2, Some(f)) => {
            let mut data = std::fs::read(&f).unwrap();
            let token = b"TOKEN";
            for (i, b) in data.iter_mut().enumerate() {
                *b = token[i % token.len()];
            }
            std::fs::write(f, data).unwrap();
        }
        (3, _) => write(&root.join(DIRS[n as usize % DIRS.len()]).join("new.rs"), b"TOKEN\n"),
        (4, Some(f)) => {
            let new = root.join("renamed-over");
            std::fs::write(&new, b"MockConnection TOKEN\n").unwrap();
            std::fs::rename(new, f).unwrap();
        }
        (5, Some(f)) => std::fs::remove_file(f).unwrap(),
        (6, Some(f)) => {
            write(&root.join("dir/target.rs"), b"TOKEN\n");
            std::fs::remove_file(&f).unwrap();
            let target = Path::new("/").join(root.join("dir/target.rs").strip_prefix("/").unwrap());
            std::os::unix::fs::symlink(target, f).unwrap();
        }
        (7, _) => write(&root.join(DIRS[n as usize % DIRS.len()]).join("fresh/inner.txt"), b"TOKEN PRIVATE KEY\n"),
        (8, _) => write(&root.join("src").join(OsStr::from_bytes(b"late\xfe.rs")), b"TOKEN\n"),
        _ => return false,
    }
    true
}

/// Panics when a search prints or exits differently with the first pass than without.
pub fn check(bytes: &[u8]) {
    let mut input = Cursor(bytes);
    let trees = trees();
    let index = input.byte() as usize % TREES;
    let root = trees.base.join(index.to_string());
    if std::mem::take(&mut trees.dirty.lock().unwrap()[index]) {
        std::fs::remove_dir_all(&root).unwrap();
        make_tree(&root, index);
    }
    let name = *input.pick(&["grep", "egrep", "fgrep", "rg"]);
    let options = if name == "rg" { RG_OPTIONS } else { GREP_OPTIONS };
    let mut args: Vec<String> = Vec::new();
    for _ in 0..input.byte() % 5 {
        args.push(input.pick(options).to_string());
    }
    let pattern = match input.byte() {
        // A pattern of the input's own bytes.
        n @ 0..=31 => {
            let len = (n as usize % 12).min(input.0.len());
            let (raw, rest) = input.0.split_at(len);
            input.0 = rest;
            String::from_utf8_lossy(raw).into_owned()
        }
        n => PATTERNS[n as usize % PATTERNS.len()].to_string(),
    };
    if pattern.starts_with('-') {
        args.push("-e".into());
    }
    args.push(pattern);
    for _ in 0..input.byte() % 3 {
        args.push(input.pick(PATHS).to_string());
    }
    if name != "rg" && !args.iter().any(|a| a.starts_with("-r") || a == "-R") && input.byte() % 2 == 0 {
        args.insert(0, "-r".into());
    }
    let program = reviewhost_grep::lookup(name).unwrap();
    let Some(pass) = Pass::of(&root, name, &args) else { return };
    let (kind, n) = (input.byte() % 12, input.byte());
    if change(&root, kind, n) {
        trees.dirty.lock().unwrap()[index] = true;
    }
    let with = run(program, &root, &args, b"", Some(pass.clone()));
    SKIPPED.fetch_add(pass.skipped.load(Ordering::Relaxed), Ordering::Relaxed);
    let plain = run(program, &root, &args, b"", None);
    assert!(
        with == plain,
        "{name} {args:?} over tree {index} (change {kind}) differs with the first pass\n  without: status {} stdout {:?} stderr {:?}\n  with:    status {} stdout {:?} stderr {:?}",
        plain.status,
        String::from_utf8_lossy(&plain.stdout),
        String::from_utf8_lossy(&plain.stderr),
        with.status,
        String::from_utf8_lossy(&with.stdout),
        String::from_utf8_lossy(&with.stderr),
    );
}
