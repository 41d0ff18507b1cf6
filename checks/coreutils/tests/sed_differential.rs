//! Generative differential test of `sed`: hand-written cases, then random command lines
//! from a small grammar of GNU sed's features, each run by the real `/usr/bin/sed` (GNU sed
//! 4.9, `LC_ALL=C.UTF-8`) and by the sandbox's `sed` on the same files; stdout and exit
//! status must be identical. Cases where the real sed runs over 5 seconds (a `D` after `G`
//! may loop forever) are skipped.
//!
//! `REVIEWHOST_SED_SEED` picks the seed (printed), `REVIEWHOST_SED_CASES` the number of
//! generated cases, `REVIEWHOST_SED_SHOW` how many differences to print. Left out of the
//! grammar, each because the sandbox refuses it or cannot match GNU there: `e`, `w` to
//! files and `-i` (refused: they run or write); back-references inside a pattern (refused:
//! the `regex` crate has none); `\`` and `\'` anywhere but at the ends of a pattern (glibc
//! matches `b\n\`` with `M`); `L` (GNU 4.9 accepts it and then fails with an internal
//! error); `w /dev/stdout` with `--posix` (GNU writes it as a file, buffered apart from
//! stdout; the sandbox refuses it); and `:a;b a`-style loops (branches only go forward).

use std::path::Path;
use std::process::{Command, Stdio};

use reviewhost_tool::{Ctx, Io, NO_LIMIT};

#[path = "../../../fuzz/stable/rng.rs"]
mod rng;
use rng::Rng;

const WORDS: &[&str] = &["foo", "bar", "a", "b", "abc", "x y", "Foo", "é", "日本", "", "  ", "a.b", "a/b", "tab\there"];

fn input(rng: &mut Rng) -> Vec<u8> {
    let lines = rng.below(6);
    let mut out = Vec::new();
    for i in 0..lines {
        let words = rng.below(4);
        let line: Vec<&str> = (0..words).map(|_| rng.pick(WORDS)).collect();
        out.extend_from_slice(line.join(" ").as_bytes());
        if i + 1 < lines || rng.chance(70) {
            out.push(b'\n');
        }
    }
    out
}

fn regex(rng: &mut Rng, ere: bool) -> String {
    let atoms = [
        "a",
        "b",
        "foo",
        ".",
        "[ab]",
        "[^a]",
        "[[:alpha:]]",
        "[[:space:]]",
        "x",
        "é",
        "o",
        "\\n",
        "\\t",
        "[/]",
        "\\.",
        "\\w",
        "\\W",
        "\\<",
        "\\>",
        "\\b",
        "[0-9]",
        "F",
        "[^\\n]",
        "\\s",
        "\\S",
        "[[:upper:]]",
        ".*",
        "[]a]",
        "[a-]",
        "\\x61",
        "\\o142",
        "\\d120",
        "\\cI",
    ];
    let mut out = String::new();
    // `\`` and `\'` only at the ends: glibc matches `b\n\`` after a newline with `M`.
    if rng.chance(20) {
        out.push_str(rng.pick(&["^", "^", "\\`"]));
    }
    for _ in 0..1 + rng.below(3) {
        let atom = rng.pick(&atoms);
        out.push_str(atom);
        if rng.chance(30) {
            out.push_str(if ere {
                rng.pick(&["*", "+", "?", "{1,2}"])
            } else {
                rng.pick(&["*", "\\+", "\\?", "\\{1,2\\}"])
            });
        }
    }
    if rng.chance(6) {
        // Alternatives of repeated atoms: POSIX's longest match decides.
        let alts: Vec<String> = (0..2)
            .map(|_| {
                let atom = rng.pick(&["a", "b", ".", "[ab]", "o", "fo"]);
                let op = rng.pick(&["", "*", "?"]);
                let op = if ere || op != "?" { op.to_string() } else { "\\?".to_string() };
                format!("{atom}{op}")
            })
            .collect();
        out.push_str(&if ere { format!("({})", alts.join("|")) } else { format!("\\({}\\)", alts.join("\\|")) });
    }
    if rng.chance(12) {
        // Alternatives that are plain strings, where POSIX's longest match decides.
        let words: Vec<&str> =
            (0..2 + rng.below(2)).map(|_| rng.pick(&["a", "ab", "foo", "fo", "b", "o", ""])).collect();
        out.push_str(&if ere { format!("({})", words.join("|")) } else { format!("\\({}\\)", words.join("\\|")) });
    }
    if rng.chance(15) {
        out = if ere { format!("({out})") } else { format!("\\({out}\\)") };
    }
    if rng.chance(15) {
        out.push_str(rng.pick(&["$", "$", "\\'"]));
    }
    out
}

fn replacement(rng: &mut Rng) -> String {
    let parts = [
        "X", "&", "[&]", "\\n", "\\t", "\\U&", "\\u&", "\\L&\\E!", "", "\\x41", "\\/", "\\&", "é", "\\l&", "\\cA",
        "\\d065", "\\o101", "\\x5c", "\\1", "\\u\\1x",
    ];
    (0..1 + rng.below(3)).map(|_| rng.pick(&parts)).collect()
}

fn address(rng: &mut Rng, ere: bool) -> String {
    match rng.below(9) {
        0 => format!("{}", 1 + rng.below(5)),
        1 => "$".into(),
        2 => format!("/{}/", regex(rng, ere)),
        3 => format!("{}~{}", rng.below(3), 1 + rng.below(3)),
        4 => format!("\\,{},", regex(rng, ere)),
        5 => format!("/{}/{}", regex(rng, ere), rng.pick(&["I", "M", "IM", " I"])),
        6 => "//".into(),
        _ => String::new(),
    }
}

fn selector(rng: &mut Rng, ere: bool) -> String {
    let mut a = address(rng, ere);
    if !a.is_empty() && rng.chance(35) {
        let second = match rng.below(5) {
            0 => format!("{}", 1 + rng.below(5)),
            1 => format!("+{}", rng.below(3)),
            2 => format!("~{}", rng.below(3)),
            3 => "$".into(),
            _ => format!("/{}/", regex(rng, ere)),
        };
        a = format!("{a},{second}");
    } else if rng.chance(5) {
        a = format!("0,/{}/", regex(rng, ere));
    }
    if rng.chance(15) {
        a.push_str(rng.pick(&["!", "!", " ! ", "! "]));
    } else if !a.is_empty() && rng.chance(10) {
        a.push(' ');
    }
    a
}

fn command(rng: &mut Rng, ere: bool, posix: bool, depth: usize) -> String {
    let sel = selector(rng, ere);
    let body = match rng.below(34) {
        0..=5 => {
            let flags = rng.pick(&["", "g", "2", "p", "gp", "I", "gI", "M", "3g", "m"]);
            let d = rng.pick(&["/", "/", "|", ",", "#"]);
            let re = regex(rng, ere).replace(d, &format!("\\{d}"));
            let re = if rng.chance(8) { String::new() } else { re };
            format!("s{d}{re}{d}{}{d}{flags}", replacement(rng).replace(d, &format!("\\{d}")))
        }
        6 => "p".into(),
        7 => "d".into(),
        8 => "=".into(),
        9 => format!("q{}", rng.pick(&["", "3", " 1"])),
        10 => format!("Q{}", rng.pick(&["", "2"])),
        11 => rng.pick(&["n", "N", "D", "P"]).into(),
        12 => rng.pick(&["h", "H", "g", "G", "x"]).into(),
        13 => rng.pick(&["l", "l 5", "l 1", "l 0"]).into(),
        14 => format!("a {}", rng.pick(&["text", "t\\tx", "  lead", "é"])),
        15 => format!("i\\\n{}", rng.pick(&["one", "two\\\nlines", "  sp"])),
        16 => format!("c\\\n{}", rng.pick(&["changed", "c2"])),
        17 => rng.pick(&["y/abc/xyz/", "y/aé/éa/", "y/\\n/ /", "y,a\\,b,xyz,"]).into(),
        18 if depth < 2 => {
            let inner: Vec<String> = (0..1 + rng.below(3)).map(|_| command(rng, ere, posix, depth + 1)).collect();
            format!("{{{}}}", inner.join(";"))
        }
        19 => "z".into(),
        20 => "F".into(),
        21 => rng.pick(&["r f2", "R f2", "r nope"]).into(),
        22 => "ba".into(),
        23 => "ta".into(),
        24 => "Tb".into(),
        25 => "b".into(),
        27 => rng
            .pick(&[
                "k",
                "s/a/b",
                "y/ab/a/",
                "/x",
                "1,p",
                "}",
                "{p",
                ":",
                "b nolabel",
                "s/\\(/x/",
                "s/a/b/gg",
                "!!p",
                "s/a/\\1/",
            ])
            .into(),
        29 => rng
            .pick(&["s/a/x\\\ny/", "$!N", "N;P;D", "$!N;y/\\n/|/", "v", "v 4.2", "G;G", "H;x", "x;G", "1h;1!H;$!d;x"])
            .into(),
        28 => rng.pick(&["a\\  lead", "a\\\n  two\\\n   three", "i\\", "c\\", "a", "# comment", "l;l 3", "=;l"]).into(),
        26 if !posix => rng.pick(&["w /dev/stdout", "W /dev/stdout", "s/a/A/w /dev/stdout"]).into(),
        _ => "p".into(),
    };
    // `a`, `i`, `c`, `r`, `R` text runs to the end of the line.
    let needs_newline = matches!(body.as_bytes().first(), Some(b'a' | b'i' | b'c' | b'r' | b'R' | b'w' | b'W'))
        || body.contains("w /dev");
    let body = if needs_newline { format!("{body}\n") } else { body };
    format!("{sel}{body}")
}

/// A script: commands, with the labels `a` and `b` defined when branched to.
fn script(rng: &mut Rng, ere: bool, posix: bool) -> String {
    let n = 1 + rng.below(4);
    let mut parts: Vec<String> = (0..n).map(|_| command(rng, ere, posix, 0)).collect();
    let joined = parts.join(";");
    for label in ["a", "b"] {
        let branch = ["ba", "ta", "Tb"].iter().any(|b| joined.contains(b) && b.ends_with(label));
        if branch {
            // At the end, so that branches go forward and never loop.
            parts.push(format!(":{label}\n"));
        }
    }
    let mut s = String::new();
    for p in parts {
        s.push_str(&p);
        if !p.ends_with('\n') {
            s.push(if rng.chance(50) { ';' } else { '\n' });
        }
    }
    s
}

struct Case {
    args: Vec<String>,
    files: Vec<(String, Vec<u8>)>,
    stdin: Vec<u8>,
}

fn case(rng: &mut Rng) -> Case {
    let ere = rng.chance(30);
    let mut args = Vec::new();
    for opt in ["-n", "-s", "-z", "-u", "--posix", "--sandbox"] {
        if rng.chance(if opt == "-n" { 30 } else { 6 }) {
            args.push(opt.to_string());
        }
    }
    let posix = args.iter().any(|a| a == "--posix");
    let mut files_extra = Vec::new();
    if ere {
        args.push(rng.pick(&["-E", "-r"]).to_string());
    }
    if rng.chance(10) {
        args.push("-l".into());
        args.push(format!("{}", 1 + rng.below(12)));
    }
    if rng.chance(8) {
        // The script from a file, maybe with `#n` first.
        let text = format!("{}{}", if rng.chance(30) { "#n\n" } else { "" }, script(rng, ere, posix));
        files_extra.push(("sc".to_string(), text.into_bytes()));
        args.push("-f".into());
        args.push("sc".into());
    } else if rng.chance(25) {
        for _ in 0..1 + rng.below(2) {
            args.push("-e".into());
            args.push(script(rng, ere, posix));
        }
    } else {
        args.push(script(rng, ere, posix));
    }
    let mut files = vec![("f1".to_string(), input(rng)), ("f2".to_string(), input(rng))];
    files.append(&mut files_extra);
    match rng.below(6) {
        0 => {}
        1 => args.push("f1".into()),
        2 => args.extend(["f1".to_string(), "f2".to_string()]),
        3 => args.extend(["f1".to_string(), rng.pick(&["missing", "missing", "dir"]).to_string(), "f2".to_string()]),
        4 => args.extend(["-".to_string(), "f1".to_string(), "-".to_string()]),
        _ => args.extend(["f2".to_string(), "-".to_string(), "f1".to_string()]),
    }
    Case { args, files, stdin: input(rng) }
}

/// Hand-written cases for the behaviours this module's brief names, run before the
/// generated ones: (arguments, stdin). `f1` is "one\ntwo\nthree" without its last newline,
/// `f2` is "a\tb\n\nx/y\n".
const FIXED: &[(&[&str], &str)] = &[
    (&["p", "f1"], ""),
    (&["p", "f1", "f2"], ""),
    (&["-s", "-n", "$p", "f1", "f2"], ""),
    (&[r"N;N;s/\n/,/g", "f1"], ""),
    (&["$!N;P;D", "f2"], ""),
    (&["n;d", "f1"], ""),
    (&["$!N", "f1"], ""),
    (&["N", "f1"], ""),
    (&["-n", "N;l;l 4", "f2"], ""),
    (&[r"s/\t/<TAB>/;s/x\/y/[&]/;s|[/]|%|", "f2"], ""),
    (&["s,[,],X,", "-"], "a,b\n"),
    (&[r"s/\(.\)\(.*\)/\U\1\E\2 \u\2 \L\1X\E/", "f1"], ""),
    (&["/t/s//T/g;s//X/", "f1"], ""),
    (&["-n", "/one/,/two/{=;p}", "f1"], ""),
    (&["2q7", "f1"], ""),
    (&["2Q7", "f1"], ""),
    (&["1i\\\n  first\\\nsecond", "f1"], ""),
    (&[r"$a\\tend", "f1"], ""),
    (&["2,3c\\\nCHANGED", "f1"], ""),
    (&["2!c\\\nCHANGED", "f1"], ""),
    (&[r"s/o/\x41\d066\o103\cd/g", "f1"], ""),
    (&[r"y/o\tn/0_N/", "f1", "f2"], ""),
    (&["-z", r"s/\n/|/g", "f2"], ""),
    (&["0,/o/s//0/", "f1"], ""),
    (&["2,1p;0~2d", "f1"], ""),
    (&["/one/,+1d", "f1"], ""),
    (&["1,~2d", "f1"], ""),
    (&["-n", "/ONE/Ip;/^t/Mp", "f1"], ""),
    (&[r"s/a\|ab/X/", "-"], "ab\n"),
    (&["-E", r"s/(cat|category)s/[\1]/g", "-"], "categorys cats\n"),
    (&["k", "f1"], ""),
    (&["s/a/b", "f1"], ""),
    (&["p", "f1", "missing", "f2"], ""),
    (&["p", "f1", "dir", "f2"], ""),
    (&["-n", "$=", "f1", "f2"], ""),
    (&["F", "-", "f1"], "x\n"),
    (&["p", "-", "-"], "x\n"),
    (&["R f2", "f1"], ""),
    (&["1r f2", "f1"], ""),
    (&["w /dev/stdout", "f1"], ""),
    (&["#n\n2p", "f1"], ""),
    (&["-e", "a\\", "-e", "text", "f1"], ""),
    (&["h;G;x;g", "f1"], ""),
    (&[r":a;N;$!ba;s/\n/+/g", "f1"], ""),
];

fn real(case: &Case, dir: &Path) -> (Vec<u8>, i32) {
    // `D` after `G` may loop forever: such cases time out and are skipped.
    let mut child = Command::new("timeout")
        .arg("5")
        .arg("/usr/bin/sed")
        .args(&case.args)
        .current_dir(dir)
        .env("LC_ALL", "C.UTF-8")
        .env_remove("POSIXLY_CORRECT")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run /usr/bin/sed");
    {
        use std::io::Write as _;
        let mut stdin = child.stdin.take().expect("stdin");
        let _ = stdin.write_all(&case.stdin);
    }
    let out = child.wait_with_output().expect("wait");
    (out.stdout, out.status.code().unwrap_or(-1))
}

fn ours(case: &Case, dir: &Path) -> (Vec<u8>, Vec<u8>, i32) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let status = {
        let mut io =
            Io { stdin: &case.stdin, stdout: &mut out, stderr: &mut err, stdout_limit: NO_LIMIT, unnamed_file: None };
        reviewhost_coreutils::sed(&case.args, &Ctx::new(dir), &mut io)
    };
    (out, err, status)
}

fn gnu_sed() -> bool {
    Command::new("/usr/bin/sed")
        .arg("--version")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("(GNU sed) 4."))
}

#[test]
fn generated_scripts_match_gnu_sed() {
    if !gnu_sed() {
        eprintln!("skipped: /usr/bin/sed is not GNU sed");
        return;
    }
    let seed = std::env::var("REVIEWHOST_SED_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0x0005_ed49_u64);
    let cases = std::env::var("REVIEWHOST_SED_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(1500usize);
    eprintln!("sed differential: seed {seed}, {} hand-written and {cases} generated cases", FIXED.len());
    let mut rng = Rng(seed.max(1));
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(dir.path().join("dir")).expect("mkdir");
    let mut failures = Vec::new();
    let fixed = FIXED.iter().map(|(args, stdin)| Case {
        args: args.iter().map(|a| a.to_string()).collect(),
        files: vec![("f1".into(), b"one\ntwo\nthree".to_vec()), ("f2".into(), b"a\tb\n\nx/y\n".to_vec())],
        stdin: stdin.as_bytes().to_vec(),
    });
    let generated = (0..cases).map(|_| case(&mut rng));
    for (n, case) in fixed.collect::<Vec<_>>().into_iter().chain(generated).enumerate() {
        for (name, data) in &case.files {
            std::fs::write(dir.path().join(name), data).expect("write input");
        }
        let (real_out, real_status) = real(&case, dir.path());
        if real_status == 124 {
            continue;
        }
        if std::env::var_os("REVIEWHOST_SED_TRACE").is_some() {
            eprintln!("case {n}: {:?}", case.args);
        }
        let (our_out, our_err, our_status) = ours(&case, dir.path());
        if (&real_out, real_status) != (&our_out, our_status) {
            failures.push(format!(
                "case {n}: sed {:?}\n  files {:?} stdin {:?}\n  real: {:?} exit {real_status}\n  ours: {:?} exit {our_status} {}",
                case.args,
                case.files.iter().map(|(n, d)| (n, String::from_utf8_lossy(d))).collect::<Vec<_>>(),
                String::from_utf8_lossy(&case.stdin),
                String::from_utf8_lossy(&real_out),
                String::from_utf8_lossy(&our_out),
                String::from_utf8_lossy(&our_err),
            ));
        }
    }
    let total = FIXED.len() + cases;
    eprintln!("sed differential: {} of {total} cases differ", failures.len());
    for f in failures.iter().take(std::env::var("REVIEWHOST_SED_SHOW").ok().and_then(|s| s.parse().ok()).unwrap_or(15))
    {
        eprintln!("{f}");
    }
    assert!(failures.is_empty(), "{} of {total} cases differ from GNU sed (seed {seed})", failures.len());
}
