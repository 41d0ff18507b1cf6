//! Differential test: each program runs through `reviewhost_awk::awk` on a temporary
//! directory and through the installed awk (gawk when there is one, else `awk`) on the
//! same files; stdout and the exit status must agree. Skipped, with a message, when no
//! awk is installed.
//!
//! The reference runs under `LC_ALL=C.UTF-8`, the locale whose character counting the
//! implementation follows. Programs whose output depends on for-in order sort it or
//! use one key.

use std::io::Write as _;
use std::path::Path;
use std::process::{Command, Stdio};

use reviewhost_tool::{Ctx, Io, NO_LIMIT};

const DATA: &str = "alice 30 paris\nbob 25 london\ncarol 35 paris\ndave 40 berlin\n";
const CSV: &str = "name,age,city\nalice,30,paris\nbob,,london\n\"x,y\",1,z\n";
const TSV: &str = "a b\tc d\te\n1\t2 3\t4\n";
const NUMBERS: &str = "10\n9\n100\n2.5\n-3\n1e3\n0x1A\n abc\n010\n";
const FRONT: &str =
    "---\nname: evaluator\nthinking:\n  type: adaptive\n  effort: high\n---\n\n# Body\nthinking: none\n---\nafter\n";
const PARAS: &str = "\n\nname one\nage 1\n\nname two\nage 2\n\n\n\nname three\n";
const LOG: &str = "INFO start\nWARN disk 91%\nERROR failed: x=1\nINFO middle\nERROR again: y=2\nINFO end\n";
const PROG: &str = "{ n++ }\nEND { print \"lines:\", n }\n";

/// A program's arguments, its stdin, and whether the output is gawk's where mawk's
/// differs (those run only when the reference is gawk: see the crate's note for the
/// choices).
type Case = (Vec<&'static str>, &'static str, bool);

fn cases() -> Vec<Case> {
    let p = |args: &[&'static str]| (args.to_vec(), "", false);
    let s = |args: &[&'static str], stdin: &'static str| (args.to_vec(), stdin, false);
    let g = |args: &[&'static str]| (args.to_vec(), "", true);
    let gs = |args: &[&'static str], stdin: &'static str| (args.to_vec(), stdin, true);
    vec![
        // Fields and separators.
        p(&["{print $1}", "data.txt"]),
        p(&["{print $NF, NF}", "data.txt"]),
        p(&["{print $(NF-1)}", "data.txt"]),
        p(&["-F,", "{print $2}", "data.csv"]),
        p(&["-F", ",", "NR>1{print $3 \"|\" $1}", "data.csv"]),
        p(&["-F\\t", "{print $2}", "data.tsv"]),
        p(&["-F", "\t", "{print NF \":\" $3}", "data.tsv"]),
        p(&["-F[ \\t]+", "{print $2}", "data.tsv"]),
        p(&["-F", "[0-9]", "{print $1 \"-\" $2}", "data.txt"]),
        p(&["-F:", "{print NF}", "data.txt"]),
        p(&["BEGIN{FS=\",\"} {print $1}", "data.csv"]),
        p(&["{FS=\",\"} {print $1}", "data.csv"]),
        p(&["-v", "FS=,", "{print $2}", "data.csv"]),
        s(&["{print $2}"], "  lead  spaces  here \n"),
        s(&["-F", "", "{print $3, NF}"], "abcdef\n"),
        s(&["BEGIN{FS=\"|\"} {print $2}"], "a|b|c\n"),
        s(&["BEGIN{FS=\".\"} {print $2}"], "a.b.c\n"),
        // Assignment to fields, $0 and NF.
        p(&["{$2=\"X\"; print}", "data.txt"]),
        p(&["BEGIN{OFS=\"-\"} {$1=$1; print}", "data.txt"]),
        p(&["{$5=\"E\"; print; print NF}", "data.txt"]),
        p(&["{NF=2; print}", "data.txt"]),
        p(&["{$0=\"x y\"; print NF, $2}", "data.txt"]),
        p(&["BEGIN{OFS=\":\"} {$3=\"\"; print}", "data.txt"]),
        // Patterns.
        p(&["/paris/", "data.txt"]),
        p(&["!/paris/", "data.txt"]),
        p(&["$2 > 28", "data.txt"]),
        p(&["$3 == \"paris\" {print $1}", "data.txt"]),
        p(&["NR==2, NR==3", "data.txt"]),
        p(&["/^WARN/,/^ERROR/", "log.txt"]),
        p(&["/ERROR/,/ERROR/ {print NR}", "log.txt"]),
        p(&["NR%2", "data.txt"]),
        p(&["length > 13", "data.txt"]),
        p(&["$1 ~ /^[a-c]/ && $2 !~ /5$/", "data.txt"]),
        p(&["END{print NR, $0}", "data.txt"]),
        p(&["BEGIN{print \"start\"} END{print \"end\"}", "data.txt"]),
        // print and printf.
        p(&["{printf \"%-6s|%4d|%s\\n\", $1, $2, toupper($3)}", "data.txt"]),
        p(&["BEGIN{printf \"%5.2f|%e|%g|%G\\n\", 3.14159, 1234.5, 0.0001234, 1e20}"]),
        p(&["BEGIN{printf \"%x %X %o %c %c %%\\n\", 255, 255, 8, 65, \"hello\"}"]),
        p(&["BEGIN{printf \"%05d|%+d|% d|%-5d|%.3d\\n\", 42, 42, 42, 42, 7}"]),
        p(&["BEGIN{printf \"%*d|%-*s|%.*f\\n\", 5, 1, 4, \"a\", 2, 3.14159}"]),
        g(&["BEGIN{printf \"%s %s\\n\", \"only\"}"]),
        p(&["BEGIN{printf \"%d %i\\n\", \"3abc\", -2.9}"]),
        p(&["BEGIN{printf \"%.3s|%10.4f|%-10e|\\n\", \"abcdef\", 2.5, 12345}"]),
        p(&["BEGIN{x = sprintf(\"%03d-%s\", 7, \"z\"); print x, length(x)}"]),
        p(&["BEGIN{print 1,2; print 1 2; print (1)(2)}"]),
        p(&["BEGIN{OFS=\"-\"; ORS=\"|\\n\"; print \"a\", \"b\"}"]),
        p(&["BEGIN{print (1,2)}"]),
        // Number formatting.
        g(&["BEGIN{print 1/3, 100/2, 1e6, 1e16, 123456789, 0.1+0.2, -0, 2^53}"]),
        g(&["BEGIN{print 3.0, \"3.0\"+0, 017, 1e-5, 100000 * 100000}"]),
        p(&["BEGIN{OFMT=\"%.2f\"; print 3.14159, 10; x = 3.14159 \"\"; print x}"]),
        p(&["BEGIN{CONVFMT=\"%.2f\"; a = 3.14159; b = a \"\"; print b; print a}"]),
        g(&["BEGIN{print 7%3, -7%3, 2**10, 2^0.5, int(-3.7), int(\"4x\")}"]),
        p(&["BEGIN{print length(12345), length(1/4), substr(123456, 2, 3)}"]),
        // Uninitialized values and comparisons.
        p(&["BEGIN{print x+0, \"[\" x \"]\", length(x), (x == 0), (x == \"\")}"]),
        p(&["{print ($2 > 9), ($2 > \"9\")}", "data.txt"]),
        p(&["{print ($1 < 50)}", "numbers.txt"]),
        p(&["{print ($1 == 10)}", "numbers.txt"]),
        g(&["{s += $1} END {print s}", "numbers.txt"]),
        p(&["BEGIN{print (\"10\" < \"9\"), (10 < 9), (\"abc\" < \"abd\"), (2 < \"10\")}"]),
        p(&["{a[NR] = $1} END {print (a[1] < a[2]), (a[2] < a[3])}", "numbers.txt"]),
        p(&["BEGIN{x = \"3.0\"; y = 3; print (x == y)}"]),
        gs(&["{print ($1 == $2)}"], "1.0 1\n+1 1\n0x10 16\nabc abc\n"),
        // Arrays.
        p(&["{c[$3]++} END {for (k in c) print k, c[k] | \"sort\"}", "data.txt"]),
        p(&[
            "{c[$3]++} END {n = 0; for (k in c) n++; print n, length(c), (\"paris\" in c), (\"rome\" in c)}",
            "data.txt",
        ]),
        p(&["{c[$3]++} END {delete c[\"paris\"]; print length(c); delete c; print length(c)}", "data.txt"]),
        p(&["BEGIN{a[1,2] = 3; for (k in a) {split(k, p, SUBSEP); print p[1], p[2]}; print ((1,2) in a)}"]),
        p(&["BEGIN{n = split(\"a:b:c\", arr, \":\"); print n, arr[1], arr[3]}"]),
        p(&["BEGIN{n = split(\"a1b22c\", arr, /[0-9]+/); print n, arr[2], arr[3]}"]),
        p(&["BEGIN{n = split(\"  x  y \", arr); print n, arr[1] arr[2]}"]),
        p(&["BEGIN{n = split(\"\", arr); print n, length(arr)}"]),
        p(&["BEGIN{if (x[1] == \"\") print length(x)}"]),
        p(&["{line[NR] = $0} END {for (i = NR; i > 0; i--) print line[i]}", "data.txt"]),
        // Control flow.
        p(&["BEGIN{for (i = 0; i < 5; i++) {if (i == 1) continue; if (i == 4) break; print i}}"]),
        p(&["BEGIN{i = 0; while (i < 3) print i++; do print \"d\" i--; while (i > 1)}"]),
        p(&["NR==2{next} {print NR}", "data.txt"]),
        p(&["FNR==2{nextfile} {print FILENAME, FNR, NR}", "data.txt", "log.txt"]),
        p(&["NR==2{exit 3} {print} END{print \"end\"}", "data.txt"]),
        p(&["BEGIN{exit 1} END{print \"end runs\"}"]),
        p(&["BEGIN{exit} END{exit 4}"]),
        p(&["{print; exit}", "data.txt"]),
        p(&["BEGIN{x = 5; print (x > 3 ? \"big\" : \"small\"), (x ? x-- : 0), x}"]),
        p(&["BEGIN{print !0, !1, !\"\", !\"a\", 1 && 0, 1 || 0, -\"3\"}"]),
        p(&["BEGIN{x = 1; x += 2; x -= 1; x *= 10; x /= 4; x %= 3; x ^= 2; print x}"]),
        p(&["BEGIN{i = 5; print i++ + ++i, i--, --i, i}"]),
        // getline.
        p(&["NR==1{getline; print \"after getline:\", $1, NR}", "data.txt"]),
        p(&["NR==1{getline line; print \"var:\", line, $1, NR}", "data.txt"]),
        p(&["BEGIN{while ((getline l < \"data.txt\") > 0) n++; print n, NR}"]),
        p(&["BEGIN{getline < \"data.txt\"; print $2, NF}"]),
        p(&["BEGIN{print (getline l < \"missing.txt\")}"]),
        p(&[
            "BEGIN{while ((getline l < \"log.txt\") > 0) if (l ~ /ERROR/) e++; close(\"log.txt\"); getline l < \"log.txt\"; print e, l}",
        ]),
        // Functions.
        p(&["function f(x) {return x * 2} BEGIN{print f(3), f(\"4\")}"]),
        p(&["function fib(n) {return n < 2 ? n : fib(n-1) + fib(n-2)} BEGIN{print fib(15)}"]),
        p(&[
            "function fill(a, n,   i) {for (i = 1; i <= n; i++) a[i] = i * i} BEGIN{fill(sq, 4); print sq[3], length(sq), i}",
        ]),
        p(&["function g(s,  t) {t = s; sub(/a/, \"b\", t); return t} BEGIN{x = \"aa\"; print g(x), x}"]),
        p(&["function max(a, b) {return a > b ? a : b} {m = max(m, $2)} END{print m}", "data.txt"]),
        p(&["function noret() {x = 1} BEGIN{v = noret(); print \"[\" v \"]\", x}"]),
        p(&["function inner(a) {a[\"k\"] = 1} function outer(b) {inner(b)} BEGIN{outer(z); print z[\"k\"]}"]),
        // String functions.
        g(&[
            "BEGIN{print substr(\"hello\", 2), substr(\"hello\", 0, 2), substr(\"hello\", -1, 3), substr(\"hello\", 2, 100), \"[\" substr(\"hello\", 9) \"]\"}",
        ]),
        g(&[
            "BEGIN{print index(\"foobar\", \"bar\"), index(\"foo\", \"z\"), length(\"héllo\"), toupper(\"abc\"), tolower(\"ÀB\")}",
        ]),
        p(&["BEGIN{print match(\"foobar\", /o+/), RSTART, RLENGTH; print match(\"x\", /z/), RSTART, RLENGTH}"]),
        p(&["BEGIN{match(\"ab\", /a|ab/); print RLENGTH; match(\"xaaay\", \"a*y\"); print RSTART, RLENGTH}"]),
        p(&["{gsub(/a/, \"A\"); print}", "data.txt"]),
        p(&["{n = gsub(/[aeiou]/, \"<&>\", $1); print n, $0}", "data.txt"]),
        p(&["BEGIN{s = \"hello\"; gsub(/l/, \"\\\\&\", s); print s}"]),
        p(&["BEGIN{s = \"hello\"; gsub(/l/, \"[\\\\\\\\&]\", s); print s}"]),
        p(&["BEGIN{s = \"abc\"; gsub(/x*/, \"-\", s); print s}"]),
        p(&["BEGIN{s = \"baaac\"; gsub(/a*/, \"-\", s); print s}"]),
        p(&["BEGIN{s = \"aaa\"; print sub(/a/, \"b\", s), s; t = \"aaa\"; print gsub(/^a/, \"b\", t), t}"]),
        p(&["BEGIN{s = \"a.b.c\"; gsub(\".\", \"-\", s); print s; t = \"a.b.c\"; gsub(/\\./, \"-\", t); print t}"]),
        p(&["{sub(/[0-9]+/, \"N\"); print}", "data.txt"]),
        p(&["BEGIN{s = \"path/to/file\"; n = gsub(\"/\", \"\\\\\", s); print n, s}"]),
        p(&["BEGIN{print length()}"]),
        p(&["{print length}", "data.txt"]),
        p(&["BEGIN{x = \"A\"; y = x x x; print y, length(y)}"]),
        // Regexes.
        p(&["/[[:digit:]]+%/", "log.txt"]),
        p(&["$0 ~ \"ERR\" \"OR\"", "log.txt"]),
        p(&["/a|b/ {print NR}", "data.txt"]),
        g(&["/^(alice|bob) [0-9]{2}/", "data.txt"]),
        p(&["/x=1|y=2$/", "log.txt"]),
        p(&[
            "BEGIN{if (\"a+b\" ~ /a\\+b/) print \"lit\"; if (\"a/b\" ~ /a\\/b/) print \"slash\"; if (\"]\" ~ /[]]/) print \"br\"}",
        ]),
        p(&["BEGIN{re = \"^[a-z]+$\"; print (\"abc\" ~ re), (\"ab1\" ~ re)}"]),
        // Paragraph mode and RS.
        p(&["BEGIN{RS=\"\"} {print NR\": \"$2\" \"NF}", "paras.txt"]),
        p(&["BEGIN{RS=\"\"; FS=\"\\n\"} {print $1 \"|\" $2}", "paras.txt"]),
        s(&["BEGIN{RS=\";\"} {print NR, $0}"], "a;b;c"),
        // Variables on the command line.
        p(&["-v", "n=5", "BEGIN{print n + 1}"]),
        p(&["-v", "s=a\\tb", "BEGIN{print s}"]),
        p(&["{print x, $1}", "x=1", "data.txt"]),
        p(&["BEGIN{print ARGC, ARGV[1]}", "data.txt"]),
        p(&["-f", "prog.awk", "data.txt"]),
        p(&["--", "{print $1}", "data.txt"]),
        // The corpus program: the YAML front matter's lines.
        p(&["BEGIN{c=0} /^---$/{c++; if (c==2) exit; next} c==1", "front.md"]),
        // stdin, explicit and implicit.
        s(&["{print NR\": \"$0}"], "x\ny\n"),
        s(&["{print FILENAME \"|\" $0}", "-"], "in\n"),
        s(&["{print}"], "no newline at end"),
        // Common one-liners.
        p(&["{sum += $2} END {print sum, sum / NR}", "data.txt"]),
        p(&["NR > 1", "data.csv"]),
        p(&["!seen[$3]++", "data.txt"]),
        p(&["/WARN/{f = 1} f", "log.txt"]),
        p(&["NF{print $NF}", "paras.txt"]),
        p(&["-F[:,]", "{print $1}", "data.csv"]),
        p(&["BEGIN{FS = OFS = \"\\t\"} {$2 = \"X\"} 1", "data.tsv"]),
        p(&["-v", "OFS=,", "{$1 = $1} 1", "data.txt"]),
        p(&["{$1 = \"\"; print substr($0, 2)}", "data.txt"]),
        p(&["{a[$3] = a[$3] ? a[$3] \",\" $1 : $1} END {print a[\"paris\"]}", "data.txt"]),
        p(&["{print substr($0, index($0, \"=\") + 1)}", "log.txt"]),
        p(&["/a/ && /o/", "data.txt"]),
        p(&["{printf(\"%s-%s\\n\", $1, NR)}", "data.txt"]),
        p(&["{printf \"%5s%%|%-3c|\\n\", $2, $1}", "data.txt"]),
        p(&["END {print NR}", "data.txt", "log.txt"]),
        p(&["{n = split($0, w, \" \"); print n, w[n]}", "log.txt"]),
        p(&["$1 == \"007\"", "numbers.txt"]),
        s(&["$1 == \"007\" {print \"str\"} $1 == 7 {print \"num\"}"], "007\n7\n7.0\n"),
        p(&[
            "{if (!($3 in seen)) {seen[$3]; order[++n] = $3}} END {for (i = 1; i <= n; i++) print order[i]}",
            "data.txt",
        ]),
        g(&["function skip() {next} NR == 2 {skip()} {print NR}", "data.txt"]),
        p(&["function quit(s) {exit s} NR == 3 {quit(5)} {print} END {print \"end\"}", "data.txt"]),
        p(&["BEGIN{x = 3; y = x > 2 ? \"yes\" : \"no\"; print y}"]),
        g(&["BEGIN{print 2^31, 2^63, -2^63; printf \"%d %d\\n\", 2^63, -2^64}"]),
        g(&["BEGIN{x = -log(0); print x, -x; printf \"[%d][%5.1f][%10d]\\n\", x, x, -x}"]),
        g(&["BEGIN{printf \"%c%c|\\n\", 256, 9786}"]),
        g(&["BEGIN{print length(\"a\\tb\"), \"a\\\\b\", \"q\\\"q\", \"\\101\\x\"}"]),
        // `/=` after a variable that begins an expression divides; inside a
        // concatenation it starts a regex.
        s(
            &["{ print $/= b/ c /= d/; x = 6; print x /= 2; $3 /= 2; print; a[1] = 8; a[1] /= 4; print a[1] }"],
            "a = b\n",
        ),
        // An octal or hex escape in a regex is the character itself, active as if written.
        g(&[
            "BEGIN{s = \"axb a.b a]b\"; print gsub(/a\\056b/, \"<&>\", s), s; t = \"an]n\"; print match(t, \"[an\\135]n\"), RLENGTH}",
        ]),
        g(&["BEGIN{print (\"ab\" ~ /a\\x62/), (\"a+\" ~ /a\\053/), (\"aa\" ~ /a\\053/)}"]),
        p(&["BEGIN{s = \"foo.bar.baz\"; n = split(s, a, \".\"); print n, a[2]; m = split(s, b, /\\./); print m}"]),
        p(&["BEGIN{s = \"a1b2\"; print gsub(/[0-9]/, \"(&)\", s), s; print toupper(substr(s, 1, 1)) substr(s, 2)}"]),
        p(&["{print NR, NF, length($0)}", "paras.txt"]),
        p(&["BEGIN{while ((getline line < \"data.txt\") > 0) {split(line, f); total += f[2]} print total}"]),
        p(&["NR == FNR {a[$1]; next} $1 in a {print \"both:\", $1}", "data.txt", "data.txt"]),
        p(&["BEGIN{print index(\"abc\", \"\"), substr(\"abc\", 2, 0) \"|\", length(\"\")}"]),
        p(&["BEGIN{a = \"x\"; a = a a; a = a a; print a; b[1]; print length(b)}"]),
        p(&["BEGIN{print 1 == 1.0, \"a\" < \"b\", \"B\" < \"a\", 10 < 9, \"10\" < \"9\"}"]),
        p(&["{print $1 > \"/dev/stdout\"}", "data.txt"]),
        p(&["BEGIN{printf \"%s\"}"]),
        g(&["BEGIN{printf \"%i|%5.3s|%-+5d|%x\\n\", 3.99, \"abcdef\", 3, -1}"]),
        p(&["BEGIN{OFS = \"-\"; $0 = \"a b c\"; $1 = $1; print; print NF}"]),
        p(&["BEGIN{$0 = \"a b c\"; NF = 5; print; $7 = \"g\"; print; print NF}"]),
        g(&["BEGIN{CONVFMT = \"%d\"; a[12.7] = 1; for (k in a) print k}"]),
        p(&["BEGIN{x[\"a\"] = 1; delete x[\"a\"]; print length(x), (\"a\" in x)}"]),
        g(&["BEGIN{print substr(\"héllo\", 2, 3), index(\"héllo\", \"l\"), match(\"héllo\", /l+/), RSTART, RLENGTH}"]),
        g(&["BEGIN{printf \"%-4s|%3s|\\n\", \"é\", \"ü\"}"]),
        p(&["/^#/ {next} NF == 0 {next} {print $1}", "front.md"]),
        p(&["BEGIN{RS = \"\"} END {print NR}", "paras.txt"]),
        p(&["BEGIN{while (\"x\" ~ /x/ && i < 3) i++; print i}"]),
        p(&["BEGIN{n = 0; do n++; while (n < 5); print n}"]),
        p(&["BEGIN{for (;;) {if (++i > 4) break}; print i}"]),
        p(&["BEGIN{s = sprintf(\"%s\", 0.1 + 0.2); print s, s + 0, 0.1 + 0.2 == 0.3}"]),
        g(&["BEGIN{print 1e308 * 10, -1e308 * 10, int(\"inf\"), \"+inf\" + 0}"]),
        s(&["-F", "\\\\", "{print $2}"], "a\\b\\c\n"),
        s(&["-F", "|", "{print $2}"], "a|b\n"),
        s(&["-F", "\\|", "{print $2}"], "a|b\n"),
        s(&["-F", "a+", "{print $2 \"|\" NF}"], "xaaybz\n"),
        s(&["{print $1; getline; print \"got\", $0}"], "1\n2\n3\n"),
        s(&["BEGIN{getline; print \"begin:\", $0} {print \"main:\", $0}"], "1\n2\n"),
        // Layout: newlines, comments, continuations, semicolons.
        p(&[
            "BEGIN {\n  # a comment\n  x = 1; y = 2\n  if (x)\n    print \"yes\"\n  else\n    print \"no\"\n  for (i = 0;\n       i < 2;\n       i++) print i\n}\n",
        ]),
        p(&["function f(a,\n   b) {\n  return a +\\\n b\n}\nBEGIN { print f(1,\n 2) }"]),
        p(&["BEGIN { if (1) { print \"a\" } else { print \"b\" }; if (0) print \"c\"; else print \"d\" }"]),
        p(&["BEGIN { a = b = c = 4; print a b c; x += y -= 2; print x, y }"]),
        p(&["$0 ~ /=/ {n++} END {print n + 0}", "log.txt"]),
        p(&["{a[$3]++} END {print a[\"paris\"]++ == 2, a[\"paris\"]}", "data.txt"]),
        p(&["BEGIN { print -1, - 1, 1 - -1, !!3, 2 - - 2 }"]),
        p(&["BEGIN { print 1 \" \" -1, 1 \" \" (-1), 10 % 3 \"x\" }"]),
        p(&["BEGIN { print length \"x\" }"]),
        p(&["BEGIN { x[1]; if (1 in x) print \"in\"; if (!(2 in x)) print \"not in\" }"]),
        p(&[
            "BEGIN { n = split(\"c b a\", arr); for (i = n; i >= 1; i--) printf \"%s%s\", arr[i], (i > 1 ? \",\" : \"\\n\") }",
        ]),
        p(&["{ $3 = toupper($3) } 1", "data.txt"]),
        p(&["BEGIN { printf \"a\" \"b\" \"\\n\" }"]),
        p(&["BEGIN { print substr(\"abc\", 2) substr(\"def\", 1, 1) }"]),
        p(&["NR == 1, /bob/ { print NR \": \" $1 }", "data.txt"]),
        p(&["BEGIN { x = \"A\"; x = x \"B\" x; print x; print x ~ \"^AB\" }"]),
        p(&["BEGIN { print (1 < 2) (2 < 1), 1 < 2 }"]),
        p(&["BEGIN { print 1==1 ? \"t\" : \"f\" }"]),
        p(&["BEGIN { $3 = \"c\"; print NF \":\" $0 \":\" }"]),
        p(&["END { print $0, NF }", "data.txt"]),
        // Error cases: the exit status must agree.
        g(&["BEGIN{x = }"]),
        g(&["{print $1", "data.txt"]),
        p(&["{print}", "missing.txt"]),
        g(&["BEGIN{x = 0; print 1/x}"]),
        p(&["BEGIN{a[1]=1; a = 2}"]),
        g(&["function f(a) {return a} BEGIN{f(1, 2)}"]),
        p(&["BEGIN { getline x < \"nonexistent\"; print \"ok\" }"]),
    ]
}

/// gawk, else `awk`; `AWK_REFERENCE=mawk` compares with another.
fn reference_awk() -> Option<String> {
    if let Ok(name) = std::env::var("AWK_REFERENCE") {
        return Some(name);
    }
    ["gawk", "awk"]
        .into_iter()
        .find(|name| Command::new(name).arg("BEGIN{}").stdin(Stdio::null()).status().is_ok_and(|s| s.success()))
        .map(str::to_string)
}

fn write_files(dir: &Path) {
    for (name, text) in [
        ("data.txt", DATA),
        ("data.csv", CSV),
        ("data.tsv", TSV),
        ("numbers.txt", NUMBERS),
        ("front.md", FRONT),
        ("paras.txt", PARAS),
        ("log.txt", LOG),
        ("prog.awk", PROG),
    ] {
        std::fs::write(dir.join(name), text).unwrap();
    }
}

fn run_ours(dir: &Path, args: &[&str], stdin: &str) -> (String, i32) {
    let ctx = Ctx::new(dir);
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    let status = {
        let mut io = Io {
            stdin: stdin.as_bytes(),
            stdout: &mut out,
            stderr: &mut err,
            stdout_limit: NO_LIMIT,
            unnamed_file: None,
        };
        reviewhost_awk::awk(&args, &ctx, &mut io)
    };
    (String::from_utf8_lossy(&out).into_owned(), status)
}

fn run_reference(awk: &str, dir: &Path, args: &[&str], stdin: &str) -> (String, i32) {
    // `| "sort"` in a case sorts for-in output: ours refuses pipes, so both sides run
    // the program without it and the test sorts.
    let mut child = Command::new(awk)
        .args(args)
        .current_dir(dir)
        .env_clear()
        .env("LC_ALL", "C.UTF-8")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin.as_bytes()).unwrap();
    let output = child.wait_with_output().unwrap();
    (String::from_utf8_lossy(&output.stdout).into_owned(), output.status.code().unwrap_or(-1))
}

/// A case's arguments with `| "sort"` taken out, and whether to sort the output.
fn unpiped(args: &[&'static str]) -> (Vec<String>, bool) {
    let mut sorted = false;
    let args = args
        .iter()
        .map(|a| {
            if a.contains(" | \"sort\"") {
                sorted = true;
                a.replace(" | \"sort\"", "")
            } else {
                a.to_string()
            }
        })
        .collect();
    (args, sorted)
}

fn sort_lines(s: &str) -> String {
    let mut lines: Vec<&str> = s.lines().collect();
    lines.sort_unstable();
    lines.iter().map(|l| format!("{l}\n")).collect()
}

#[test]
fn programs_agree_with_the_reference_awk() {
    let Some(awk) = reference_awk() else {
        println!("SKIPPED: no awk installed to compare with");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    write_files(dir.path());
    let cases = cases();
    assert!(cases.len() >= 80, "at least 80 programs");
    let is_gawk = Command::new(&awk)
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("GNU Awk"));
    let mut failures = Vec::new();
    let mut skipped = 0;
    for (args, stdin, gawk_only) in &cases {
        if *gawk_only && !is_gawk {
            skipped += 1;
            continue;
        }
        let (args, sort) = unpiped(args);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (mut ours, our_status) = run_ours(dir.path(), &args, stdin);
        let (mut theirs, their_status) = run_reference(&awk, dir.path(), &args, stdin);
        if sort {
            ours = sort_lines(&ours);
            theirs = sort_lines(&theirs);
        }
        if ours != theirs || our_status != their_status {
            failures
                .push(format!("awk {args:?}\n  ours ({our_status}): {ours:?}\n  {awk} ({their_status}): {theirs:?}"));
        }
    }
    let ran = cases.len() - skipped;
    println!("{} of {ran} programs agree with {awk} ({skipped} gawk-only cases skipped)", ran - failures.len());
    assert!(failures.is_empty(), "{} differ:\n{}", failures.len(), failures.join("\n"));
}
