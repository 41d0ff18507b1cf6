//! Generative differential test: programs built from a small grammar over what the
//! crate says it implements (patterns and ranges, fields and NF/NR/FNR, `-F`, FS OFS RS
//! ORS with paragraph mode, strnum/string/number comparisons, arithmetic and number
//! formatting, the string functions, arrays with `in` and `delete`, printf, getline from
//! a file), on generated inputs (empty fields, missing final newlines, UTF-8 text), run
//! by `reviewhost_awk::awk` and by gawk in the same temporary directory under
//! `LC_ALL=C.UTF-8`; stdout and exit status must be identical.
//!
//! The generator is deterministic: `REVIEWHOST_AWK_SEED` picks the seed (the default
//! is fixed, and printed), `REVIEWHOST_AWK_CASES` the number of cases. Skipped, with a
//! message, when `/usr/bin/gawk` is absent.
//!
//! Left out on purpose, as documented differences (see the crate's note): the order of
//! `for (k in a)` (only counted here), `rand()`, ENVIRON, and regexes where grep's
//! translation differs (a negated bracket against a newline).

use std::path::Path;
use std::process::{Command, Stdio};

use reviewhost_tool::{Ctx, Io, NO_LIMIT};

const GAWK: &str = "/usr/bin/gawk";
const DEFAULT_SEED: u64 = 0x5eed_a77c;
const DEFAULT_CASES: usize = 1500;

#[path = "../../../fuzz/stable/rng.rs"]
mod rng;
use rng::Rng;

const WORDS: &[&str] = &[
    "a", "foo", "Bar", "baz", "héllo", "ünï", "x=1", "10", "9", "2.5", "-3", "1e3", "0x1A", "007", "+4", " 12 ", ".5",
    "0", "abc123", "", "inf", "-0", "3.0", "1e",
];

/// One input file's text: lines of fields joined by `sep`, sometimes with blank lines
/// (paragraphs) and without a final newline.
fn input(rng: &mut Rng, sep: &str) -> String {
    let lines = 1 + rng.below(6);
    let mut text = String::new();
    for _ in 0..lines {
        if rng.chance(12) {
            text.push('\n');
        }
        let fields = rng.below(5);
        let mut line = Vec::new();
        for _ in 0..fields {
            line.push(rng.pick(WORDS).trim().to_string());
        }
        text.push_str(&line.join(sep));
        text.push('\n');
    }
    if rng.chance(30) {
        text.pop();
    }
    text
}

/// An expression of `depth` levels at most.
fn expr(rng: &mut Rng, depth: usize) -> String {
    if depth == 0 || rng.chance(30) {
        return atom(rng);
    }
    let d = depth - 1;
    match rng.below(20) {
        0 => format!("({} {} {})", expr(rng, d), rng.pick(&["+", "-", "*"]), expr(rng, d)),
        1 => format!("({} / {})", expr(rng, d), rng.pick(&["2", "3", "-4", "0.5"])),
        2 => format!("({} % {})", expr(rng, d), rng.pick(&["2", "3", "7"])),
        3 => format!("({} {} {})", expr(rng, d), rng.pick(&["<", "<=", "==", "!=", ">", ">="]), expr(rng, d)),
        4 => format!("({} {})", expr(rng, d), expr(rng, d)),
        5 => format!("length({})", expr(rng, d)),
        6 => format!(
            "substr({}, {}, {})",
            expr(rng, d),
            rng.pick(&["0", "1", "2", "-1", "1.5", "3"]),
            rng.pick(&["1", "2", "0", "10", "2.7", "-1"])
        ),
        7 => format!("substr({}, {})", expr(rng, d), rng.pick(&["0", "2", "4"])),
        8 => format!("index({}, {})", expr(rng, d), rng.pick(&["\"a\"", "\"o\"", "\"\"", "\"é\"", "1"])),
        9 => format!("{}({})", rng.pick(&["toupper", "tolower", "int"]), expr(rng, d)),
        10 => format!("sprintf(\"{}\", {})", rng.pick(FORMATS), expr(rng, d)),
        11 => format!("({} ~ {})", expr(rng, d), regex(rng)),
        12 => format!("match({}, {})", expr(rng, d), regex(rng)),
        13 => format!("({} ? {} : {})", expr(rng, d), expr(rng, d), expr(rng, d)),
        14 => format!("(({}) in arr)", expr(rng, d)),
        15 => format!("!{}", expr(rng, d)),
        16 => format!("-{}", expr(rng, d)),
        17 => format!("({} && {})", expr(rng, d), expr(rng, d)),
        18 => format!("({} \"\")", expr(rng, d)),
        _ => format!("({} + 0)", expr(rng, d)),
    }
}

const FORMATS: &[&str] = &[
    "%d", "%5.2f", "%s", "%-4s|", "%c", "%x", "%o", "%e", "%g", "%.3g", "%05d", "%+d", "%10.3e", "%i", "%.2s", "%u",
    "%5s", "%X", "%#o", "%G",
];

fn regex(rng: &mut Rng) -> String {
    rng.pick(&[
        "/a/",
        "/^[0-9]+$/",
        "/o+/",
        "/[[:upper:]]/",
        "/x|y/",
        "/(ab|a)b*/",
        "/é/",
        "/^$/",
        "/[.]/",
        "/=/",
        "\"a\"",
        "\"^-\"",
        "/a*/",
    ])
    .to_string()
}

fn atom(rng: &mut Rng) -> String {
    rng.pick(&[
        "$1",
        "$2",
        "$3",
        "$0",
        "$NF",
        "NF",
        "NR",
        "FNR",
        "x",
        "y",
        "arr[$1]",
        "arr[\"k\"]",
        "0",
        "1",
        "\"0\"",
        "\"\"",
        "\"10\"",
        "\"abc\"",
        "3.5",
        "0.1",
        "1e6",
        "123456789012",
        "\"é\"",
        "-2",
        "1/3",
        "$(NF-1)",
        "$5",
        "\" 1 \"",
        "\"1e3\"",
        "100000 * 100000",
        "0.000012345",
        "RSTART",
        "RLENGTH",
        "n",
        "parts[1]",
        "parts[2]",
    ])
    .to_string()
}

fn stmt(rng: &mut Rng, depth: usize) -> String {
    let e = |rng: &mut Rng| expr(rng, 2);
    match rng.below(if depth == 0 { 13 } else { 16 }) {
        0 | 1 => format!("print {}", e(rng)),
        2 => format!("print {}, {}", e(rng), e(rng)),
        3 => format!("printf \"{}\\n\", {}", rng.pick(FORMATS), e(rng)),
        4 => format!("x = {}", e(rng)),
        5 => format!("y {}= {}", rng.pick(&["+", "-", "*"]), e(rng)),
        6 => format!("arr[{}]++", e(rng)),
        7 => format!("${} = {}", rng.pick(&["1", "2", "3", "5", "NF"]), e(rng)),
        8 => format!("NF = {}", rng.pick(&["0", "1", "2", "4"])),
        9 => format!(
            "n = split({}, parts, {}); print n; for (i = 1; i <= n; i++) printf \"[%s]\", parts[i]; print \"\"",
            e(rng),
            rng.pick(&["\" \"", "\",\"", "//", "\"\"", "/[0-9]/", "\"a\"", "\":\""])
        ),
        10 => format!(
            "s = {}; c = {}(/{}/, \"{}\", s); print c, s",
            e(rng),
            rng.pick(&["sub", "gsub"]),
            rng.pick(&["a", "o*", "[0-9]", "é", "^", "$", "x*"]),
            rng.pick(&["<&>", "-", "\\\\&", ""])
        ),
        // A plain subscript: gawk 5.2 fails on `delete arr[arr[$1]]` and on a subscript
        // from an untyped array ("attempt to use array `(null)' in a scalar context").
        11 => format!("delete arr[{}]", rng.pick(&["$1", "NR", "\"k\"", "x", "1e6", "$2 + 0"])),
        12 => "c = 0; for (k in arr) c++; print c, length(arr)".to_string(),
        13 => format!("if ({}) {{ {} }} else {{ {} }}", e(rng), stmt(rng, depth - 1), stmt(rng, depth - 1)),
        // The body never holds another getline loop: an inner `close` would make the
        // outer loop read the file forever.
        14 => format!(
            "while ((getline line < \"f2.txt\") > 0) {{ g++; {} }}; close(\"f2.txt\"); print g, line",
            stmt(rng, 0)
        ),
        _ => format!("{{ {}; {} }}", stmt(rng, depth - 1), stmt(rng, depth - 1)),
    }
}

fn pattern(rng: &mut Rng) -> String {
    match rng.below(9) {
        0..=2 => String::new(),
        3 => regex(rng),
        4 => format!("{} {} {}", atom(rng), rng.pick(&["==", "!=", "<", ">"]), atom(rng)),
        5 => format!("NR == {}, NR == {}", rng.below(4), rng.below(5)),
        6 => format!("{}, {}", regex(rng), regex(rng)),
        7 => format!("!{}", atom(rng)),
        _ => atom(rng),
    }
}

/// A whole case: arguments (options, program, operands) and the two input files.
fn case(rng: &mut Rng) -> (Vec<String>, String, String) {
    let sep = rng.pick(&[" ", ",", ":", "\t", "  ", ", "]);
    let f1 = input(rng, sep);
    let sep2 = rng.pick(&[" ", ","]);
    let f2 = input(rng, sep2);
    let mut args = Vec::new();
    if rng.chance(40) {
        args.push(format!("-F{}", rng.pick(&[",", ":", "\\t", "t", "[,:]", " ", "[ ]", ", *", "\\x2c", "a"])));
    }
    if rng.chance(20) {
        args.push("-v".into());
        args.push(format!("x={}", rng.pick(&["1", "abc", "3.0", "", " 2 ", "1e2"])));
    }
    // `arr` exists from the start: gawk 5.2 fails on `delete arr[parts[1]]` while both
    // are untyped ("attempt to use array `(null)' in a scalar context"), a gawk bug.
    let mut program = String::from("BEGIN { arr[\"k\"] }\n");
    if rng.chance(50) {
        let settings = [
            "OFS = \"-\"",
            "ORS = \"|\\n\"",
            "RS = \"\"",
            "RS = \"\"; FS = \":\"",
            "RS = \"\"; FS = \"[ ]\"",
            "FS = \",\"",
            "CONVFMT = \"%.2g\"",
            "OFMT = \"%.2f\"",
            "RS = \",\"",
            "SUBSEP = \":\"",
        ];
        program.push_str(&format!("BEGIN {{ {}; {} }}\n", rng.pick(&settings), stmt(rng, 1)));
    }
    for _ in 0..1 + rng.below(3) {
        let p = pattern(rng);
        if !p.is_empty() && rng.chance(25) {
            program.push_str(&format!("{p}\n"));
        } else {
            program.push_str(&format!("{p} {{ {} }}\n", stmt(rng, 2)));
        }
    }
    if rng.chance(50) {
        program.push_str(&format!("END {{ {}; print NR, x, y }}\n", stmt(rng, 1)));
    }
    if program.contains("RS = \"\"") {
        // Left out: in paragraph mode gawk's `split(s, a, /re/)` sometimes drops the
        // empty element after a separator that ends the string (`split("b0", a, /0/)`
        // is 1 in BEGIN, `split("+4", a, /[0-9]/)` 2 in END), a rule not worked out.
        program = program.replace("parts, /[0-9]/)", "parts, \":\")");
    }
    args.push(program);
    args.push("f1.txt".into());
    if rng.chance(25) {
        args.push("f2.txt".into());
    }
    (args, f1, f2)
}

fn run_ours(dir: &Path, args: &[String]) -> (Vec<u8>, i32) {
    let ctx = Ctx::new(dir);
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let status = {
        let mut io = Io { stdin: b"", stdout: &mut out, stderr: &mut err, stdout_limit: NO_LIMIT, unnamed_file: None };
        reviewhost_awk::awk(args, &ctx, &mut io)
    };
    (out, status)
}

fn run_gawk(dir: &Path, args: &[String]) -> (Vec<u8>, i32) {
    let mut child = Command::new(GAWK)
        .args(args)
        .current_dir(dir)
        .env_clear()
        .env("LC_ALL", "C.UTF-8")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    drop(child.stdin.take());
    // A generated program that loops must not hang the test: gawk gets a few seconds.
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > std::time::Duration::from_secs(5) {
            child.kill().unwrap();
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    let output = child.wait_with_output().unwrap();
    (output.stdout, output.status.code().unwrap_or(-1))
}

/// Shell-quoted arguments, to paste a failing case into a terminal.
fn shown(args: &[String]) -> String {
    args.iter().map(|a| format!("'{}'", a.replace('\'', "'\\''"))).collect::<Vec<_>>().join(" ")
}

#[test]
fn generated_programs_agree_with_gawk() {
    if !Path::new(GAWK).exists() {
        eprintln!("SKIPPED: {GAWK} is not installed");
        return;
    }
    let seed = std::env::var("REVIEWHOST_AWK_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(DEFAULT_SEED);
    let cases = std::env::var("REVIEWHOST_AWK_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(DEFAULT_CASES);
    eprintln!("awk differential: seed {seed} (REVIEWHOST_AWK_SEED), {cases} cases (REVIEWHOST_AWK_CASES)");
    let mut rng = Rng(seed.max(1));
    let dir = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    for n in 0..cases {
        let (args, f1, f2) = case(&mut rng);
        std::fs::write(dir.path().join("f1.txt"), &f1).unwrap();
        std::fs::write(dir.path().join("f2.txt"), &f2).unwrap();
        let (ours, our_status) = run_ours(dir.path(), &args);
        let (theirs, their_status) = run_gawk(dir.path(), &args);
        if ours != theirs || our_status != their_status {
            failures.push(format!(
                "case {n}: awk {}\n  f1.txt: {f1:?}\n  f2.txt: {f2:?}\n  ours ({our_status}): {:?}\n  gawk ({their_status}): {:?}",
                shown(&args),
                String::from_utf8_lossy(&ours),
                String::from_utf8_lossy(&theirs)
            ));
        }
    }
    eprintln!("awk differential: {} of {cases} cases agree with gawk", cases - failures.len());
    assert!(
        failures.is_empty(),
        "{} differ:\n{}",
        failures.len(),
        failures.iter().take(20).cloned().collect::<Vec<_>>().join("\n")
    );
}
