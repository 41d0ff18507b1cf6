//! Fuzzing on stable Rust, bounded so that it runs in every `cargo test`: a deterministic
//! mutation loop over a seed corpus, checking an invariant on every input.
//!
//! It is the poor relation of the libFuzzer targets in `fuzz/fuzz_targets` (no coverage
//! feedback, a few seconds per target) and is there so that CI catches the shallow
//! crashes a change introduces, with no nightly toolchain. Each crate's test includes
//! this file with `#[path]`, next to the invariant it checks (`fuzz/invariants`).
//!
//! A run is reproducible: the generator's seed is fixed (set `REVIEWHOST_FUZZ_SEED` to
//! explore elsewhere) and `REVIEWHOST_FUZZ_ITERATIONS` makes a longer local run.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[path = "rng.rs"]
mod rng;
use rng::Rng;

/// Inputs are cut to this length: the largest input the invariants promise anything for.
pub const MAX_INPUT: usize = 64 * 1024;

/// An input that takes longer than this has not terminated as far as the test is
/// concerned. Generous, as debug builds are slow and CI machines are shared.
pub const INPUT_TIME_LIMIT: Duration = Duration::from_secs(20);

/// Byte strings the parsers give meaning to (shell, POSIX regex, JSON), spliced in whole
/// so that mutants reach past the first syntax error.
const TOKENS: &[&str] = &[
    "\"",
    "'",
    "\\",
    "`",
    "$(",
    "$((",
    "${",
    "$?",
    "$'\\x41'",
    "(",
    ")",
    "{",
    "}",
    "[",
    "]",
    "[[",
    "]]",
    "|",
    "||",
    "&&",
    ";",
    ";;",
    "&",
    ">",
    ">>",
    "<",
    "<<",
    "<<<",
    "<<EOF\nx\nEOF\n",
    "2>&1",
    ">&-",
    "&>",
    "<(",
    "!",
    "#",
    "~",
    "*",
    "?",
    "\n",
    "\t",
    " ",
    "if true; then ",
    "; fi",
    "for f in *; do ",
    "; done",
    "case x in x) ",
    "esac",
    "\\|",
    "\\(",
    "\\)",
    "\\{",
    "\\}",
    "\\{1,3\\}",
    "{2,}",
    "{,",
    "{99999}",
    "[[:alpha:]]",
    "[[:",
    ":]]",
    "[.",
    ".]",
    "[=",
    "=]",
    "[^",
    "^",
    "$",
    ".",
    "+",
    "\\1",
    "\\<",
    "\\>",
    "\\b",
    "\\w",
    "\\s",
    "-",
    "null",
    "true",
    "[]",
    "{}",
    ",",
    ":",
    "\"id\"",
    "\"type\"",
    "\"command\"",
    "\"assertions\"",
    "\"custom\"",
    "\"grep_match\"",
    "\"paths\"",
    "\"sha256\"",
    "\" \"",
    "1e999",
    "-1",
    "\\u0000",
    "\\ud800",
    "\0",
    "\u{feff}",
    "é",
    "\u{2028}",
    "\u{10ffff}",
];

/// Characters that end tokens or change the mode of a lexer, for single-byte changes.
const SPECIAL: &[u8] = b"\"'\\$`(){}[]|&;<>*?!#~^.+-,:=\n\t\0 ";

/// The files of `paths` (a directory stands for the files in it, in name order).
pub fn seeds(paths: &[PathBuf]) -> Vec<Vec<u8>> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            let entries = std::fs::read_dir(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let mut names: Vec<PathBuf> = entries.map(|entry| entry.expect("a directory entry").path()).collect();
            names.sort();
            files.extend(names);
        } else {
            files.push(path.clone());
        }
    }
    let corpus: Vec<Vec<u8>> =
        files.iter().map(|f| std::fs::read(f).unwrap_or_else(|e| panic!("{}: {e}", f.display()))).collect();
    assert!(!corpus.is_empty(), "no seeds in {paths:?}");
    corpus
}

/// The seed directory of `target` in `fuzz/seeds`, from a crate directory `levels` below
/// the workspace root.
pub fn seed_dir(manifest_dir: &str, levels: usize, target: &str) -> PathBuf {
    let root = Path::new(manifest_dir).ancestors().nth(levels).expect("the workspace root");
    root.join("fuzz").join("seeds").join(target)
}

/// Runs `check` on every seed, then on `iterations` mutants (`REVIEWHOST_FUZZ_ITERATIONS`
/// overrides), and prints how many ran in how long. A panic in `check`, or an input that
/// runs past [`INPUT_TIME_LIMIT`], fails the test with the input (also written to a file
/// in the temporary directory, to minimise or to add to the seeds).
pub fn run(target: &str, iterations: usize, corpus: Vec<Vec<u8>>, check: fn(&[u8])) {
    let iterations = env_number("REVIEWHOST_FUZZ_ITERATIONS").unwrap_or(iterations as u64) as usize;
    let seed = env_number("REVIEWHOST_FUZZ_SEED").unwrap_or(0x9e37_79b9_7f4a_7c15);
    let executions = corpus.len() + iterations;
    let current: Arc<Mutex<Vec<u8>>> = Arc::default();
    let (tick, ticks) = mpsc::channel::<Result<(), String>>();
    let started = Instant::now();
    {
        let current = Arc::clone(&current);
        // A thread of its own, so that an input that never returns is reported, not waited for.
        std::thread::spawn(move || {
            let outcome = mutate_and_check(seed, iterations, &corpus, check, &current, &tick);
            let _ = tick.send(outcome);
        });
    }
    let last_input = || current.lock().map(|input| input.clone()).unwrap_or_else(|e| e.into_inner().clone());
    loop {
        match ticks.recv_timeout(INPUT_TIME_LIMIT) {
            Ok(Ok(())) => {}
            Ok(Err(message)) => fail(target, &last_input(), &message),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                fail(target, &last_input(), &format!("still running after {INPUT_TIME_LIMIT:?}"))
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
    }
    eprintln!(
        "fuzz {target}: {executions} executions ({} seeds, {iterations} mutants) in {:.1} s",
        executions - iterations,
        started.elapsed().as_secs_f64()
    );
}

/// The loop itself: sends `Ok` after each input that passed, and the panic message of
/// the first that did not (then `current` holds that input).
fn mutate_and_check(
    seed: u64,
    iterations: usize,
    corpus: &[Vec<u8>],
    check: fn(&[u8]),
    current: &Mutex<Vec<u8>>,
    tick: &mpsc::Sender<Result<(), String>>,
) -> Result<(), String> {
    // xorshift never leaves 0.
    let mut rng = Rng(seed.max(1));
    let mut input = Vec::new();
    for i in 0..corpus.len() + iterations {
        input = match corpus.get(i) {
            Some(original) => original.clone(),
            None => mutate(&mut rng, &input, corpus),
        };
        *current.lock().map_err(|_| "poisoned".to_string())? = input.clone();
        catch_unwind(AssertUnwindSafe(|| check(&input))).map_err(|panic| panic_message(&*panic))?;
        if tick.send(Ok(())).is_err() {
            break;
        }
        // Walk away from the seeds, mutant after mutant, and come back now and then.
        if rng.below(8) == 0 {
            input = corpus[rng.below(corpus.len())].clone();
        }
    }
    Ok(())
}

/// One to four mutations of `input`, some taking text from the rest of the corpus.
fn mutate(rng: &mut Rng, input: &[u8], corpus: &[Vec<u8>]) -> Vec<u8> {
    let mut out = input.to_vec();
    for _ in 0..=rng.below(4) {
        let at = rng.below(out.len() + 1);
        match rng.below(8) {
            0 => {
                let gone = rng.chunk(out.len(), 16);
                out.drain(gone);
            }
            1 => insert(&mut out, at, TOKENS[rng.below(TOKENS.len())].as_bytes()),
            2 => {
                let piece = out[rng.chunk(out.len(), 32)].to_vec();
                insert(&mut out, at, &piece);
            }
            3 => {
                // Swap two chunks of equal length that do not overlap.
                let len = 1 + rng.below(8);
                if out.len() >= 2 * len {
                    let a = rng.below(out.len() - 2 * len + 1);
                    let b = a + len + rng.below(out.len() - a - 2 * len + 1);
                    let (left, right) = out.split_at_mut(b);
                    left[a..a + len].swap_with_slice(&mut right[..len]);
                }
            }
            4 => {
                // Splice: this input up to `at`, another from somewhere on.
                let other = &corpus[rng.below(corpus.len())];
                out.truncate(at);
                out.extend_from_slice(&other[rng.below(other.len() + 1)..]);
            }
            5 if !out.is_empty() => {
                let i = rng.below(out.len());
                out[i] = SPECIAL[rng.below(SPECIAL.len())];
            }
            6 => out.insert(at, rng.next() as u8),
            _ => {
                // Many copies of a chunk: deep nesting, long lists, slow paths.
                let piece = out[rng.chunk(out.len(), 8)].to_vec();
                let copies = 2 + rng.below(200);
                insert(&mut out, at, &piece.repeat(copies));
            }
        }
        out.truncate(MAX_INPUT);
    }
    out
}

fn insert(out: &mut Vec<u8>, at: usize, piece: &[u8]) {
    out.splice(at..at, piece.iter().copied());
}

fn env_number(name: &str) -> Option<u64> {
    let value = std::env::var(name).ok()?;
    let value = value.trim();
    match value.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => value.parse().ok(),
    }
}

fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    match (panic.downcast_ref::<&str>(), panic.downcast_ref::<String>()) {
        (Some(message), _) => message.to_string(),
        (_, Some(message)) => message.clone(),
        _ => "panicked".to_string(),
    }
}

/// Fails the test with `input`, saved to a file as it may not print legibly.
fn fail(target: &str, input: &[u8], message: &str) -> ! {
    let saved = std::env::temp_dir().join(format!("reviewhost-fuzz-{target}.input"));
    let saved = match std::fs::write(&saved, input) {
        Ok(()) => saved.display().to_string(),
        Err(e) => format!("not saved: {e}"),
    };
    let shown = String::from_utf8_lossy(&input[..input.len().min(2000)]);
    panic!("fuzz {target}: {message}\ninput ({} bytes, {saved}): {shown:?}", input.len());
}
