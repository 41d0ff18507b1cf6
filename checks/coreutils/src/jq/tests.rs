//! The jq behaviours the sandbox matches where jaq differs, one test per finding
//! (`J1`–`J22` of the peer-suite findings), run through [`jq`](super::jq).

use super::*;
use reviewhost_tool::NO_LIMIT;

/// `jq -c PROGRAM` on `input` (stdin): stdout, stderr, status.
fn jq_c(program: &str, input: &str) -> (String, String, i32) {
    let (mut out, mut errs) = (Vec::new(), Vec::new());
    let args: Vec<String> = ["-c", program].iter().map(|a| a.to_string()).collect();
    let mut io =
        Io { stdin: input.as_bytes(), stdout: &mut out, stderr: &mut errs, stdout_limit: NO_LIMIT, unnamed_file: None };
    let status = jq(&args, &Ctx::new("/nonexistent"), &mut io);
    (String::from_utf8(out).unwrap(), String::from_utf8(errs).unwrap(), status)
}

fn out(program: &str, input: &str) -> String {
    let (out, errs, status) = jq_c(program, input);
    assert_eq!(status, 0, "{program}: {errs}");
    out
}

#[test]
fn del_deletes_several_paths_at_once() {
    // J1, J15
    assert_eq!(out("del(.[0], .[1])", r#"["a","b","c"]"#), "[\"c\"]\n");
    assert_eq!(out("del(.[1], .[-6], .[2], .[-3:9])", "[0,1,2,3,4,5,6,7,8,9]"), "[0,3,5,6,9]\n");
    assert_eq!(out("del(.)", "[1]"), "null\n");
    assert_eq!(out("delpaths([[-200]])", "[1,2,3]"), "[1,2,3]\n");
    assert_eq!(out("del(.a)", r#"{"a":1,"b":2,"c":3}"#), "{\"b\":2,\"c\":3}\n");
    assert_eq!(out("try delpaths(0) catch .", "null"), "\"Paths must be specified as an array\"\n");
}

#[test]
fn join_as_jq() {
    // J2
    assert_eq!(out("join(\",\")", r#"["a",null,1,true]"#), "\"a,,1,true\"\n");
    assert_eq!(
        out("try join(\",\") catch .", r#"["1",[3,4,5]]"#),
        "\"string (\\\"1,\\\") and array ([3,4,5]) cannot be added\"\n"
    );
}

#[test]
fn leading_dot_number() {
    // J3
    assert_eq!(out("[.[] | select(. > .5)]", "[0.25,1]"), "[1]\n");
}

#[test]
fn division_by_zero_is_an_error() {
    // J4
    assert_eq!(
        out("try (1 / .) catch .", "0"),
        "\"number (1) and number (0) cannot be divided because the divisor is zero\"\n"
    );
    assert_eq!(out("[.[] | (1 / .)?]", "[1,0,-1]"), "[1,-1]\n");
    assert_eq!(jq_c("1/0", "null").2, EXIT_COMPILE);
    assert_eq!(out("[(1,2) / (1,2)]", "null"), "[1,2,0.5,1]\n");
    // jq's order of outputs for every binary operator: the right operand's outer.
    assert_eq!(out("[(1,2) - (10,20)]", "null"), "[-9,-8,-19,-18]\n");
    assert_eq!(out("[(1,2) < (1,2)]", "null"), "[false,false,true,false]\n");
}

#[test]
fn from_entries_takes_jq_names() {
    // J5 (`k`/`v` as in jq 1.7)
    let input = r#"[{"key":"a","value":1},{"Key":"b","Value":2},{"name":"c","value":3},{"Name":"d","Value":4},{"k":"e","v":5}]"#;
    assert_eq!(out("from_entries", input), "{\"a\":1,\"b\":2,\"c\":3,\"d\":4,\"e\":5}\n");
}

#[test]
fn destructuring_alternatives() {
    // J6
    assert_eq!(out(".[] as [$a] ?// $a | $a", "[[1],2]"), "1\n2\n");
    assert_eq!(
        out(".[] as [$a] ?// [$b] | if $a != null then error(\"x\") else {$a,$b} end", "[[3]]"),
        "{\"a\":null,\"b\":3}\n"
    );
    let (_, errs, status) = jq_c("reduce .[] as [$a] ?// $a (0; . + $a)", "[[1],2]");
    assert_eq!((errs.contains("?//"), status), (true, EXIT_COMPILE));
}

#[test]
fn object_pattern_binds_a_destructured_key() {
    // J7
    assert_eq!(out(". as {$a, $b:[$c]} | [$a, $b, $c]", r#"{"a":1,"b":[2]}"#), "[1,[2],2]\n");
}

#[test]
fn sql_and_stream_builtins() {
    // J8
    assert_eq!(out("[range(5;8) | IN(range(6))]", "null"), "[true,false,false]\n");
    assert_eq!(out("INDEX(.[]; .id)", r#"[{"id":1},{"id":"x"}]"#), "{\"1\":{\"id\":1},\"x\":{\"id\":\"x\"}}\n");
    assert_eq!(out("[tostream]", r#"{"a":[1]}"#), "[[[\"a\",0],1],[[\"a\",0]],[[\"a\"]]]\n");
    assert_eq!(out("fromstream(tostream)", r#"{"a":[1,{"b":2}]}"#), "{\"a\":[1,{\"b\":2}]}\n");
    assert_eq!(out("[1 | truncate_stream([[0],1],[[1,0],2],[[1,0]],[[1]])]", "null"), "[[[0],2],[[0]]]\n");
    assert_eq!(out("builtins | map(select(. == \"map/1\")) | length", "null"), "1\n");
}

#[test]
fn assignment_pads_and_creates_through_null() {
    // J9
    assert_eq!(out(".[5] = 1", "[1,2,3]"), "[1,2,3,null,null,1]\n");
    assert_eq!(out(".a.b += 1", "{}"), "{\"a\":{\"b\":1}}\n");
    assert_eq!(out(".[] |= . + 1", "[1,2]"), "[2,3]\n");
}

#[test]
fn nth_as_jq() {
    // J10
    assert_eq!(out("[nth(1,2; .[])]", r#"["a","b","c"]"#), "[\"b\",\"c\"]\n");
    assert_eq!(out("try nth(-1; .[]) catch .", "[1]"), "\"nth doesn't support negative indices\"\n");
}

#[test]
fn slices_of_null_and_fractional_indices() {
    // J11
    assert_eq!(out(".[1:3]", "null"), "null\n");
    assert_eq!(out(".[1.2:3.5]", "[0,1,2,3,4,5]"), "[1,2,3]\n");
    assert_eq!(out(".[1.1] = 5", "[0,1,2]"), "[0,5,2]\n");
    assert_eq!(out(".[1.5:3.5] = [\"x\"]", "[0,1,2,3,4]"), "[0,\"x\",4]\n");
}

#[test]
fn nan_as_an_index_or_a_multiplier() {
    // J12
    assert_eq!(out("[has(nan), .[nan]]", "[0,1,2]"), "[false,null]\n");
    assert_eq!(out("[. * (nan, 0, 2)]", "\"ab\""), "[null,null,\"abab\"]\n");
}

#[test]
fn setpath_type_errors() {
    // J13
    assert_eq!(out("try setpath([1]; 1) catch .", r#"{"a":1}"#), "\"Cannot index object with number\"\n");
    assert_eq!(out("setpath([\"a\", 1]; 1)", "null"), "{\"a\":[null,1]}\n");
}

#[test]
fn constant_number_key_is_a_compile_error() {
    // J14
    assert_eq!(jq_c("{(0):1}", "null").2, EXIT_COMPILE);
    assert_eq!(out("{(\"a\"):1}", "null"), "{\"a\":1}\n");
}

#[test]
fn negative_flatten_depth() {
    // J16
    assert_eq!(out("try flatten(-1) catch .", "[[1]]"), "\"flatten depth must not be negative\"\n");
    assert_eq!(out("flatten(1)", "[[[1]]]"), "[[1]]\n");
}

#[test]
fn numbers_are_doubles() {
    // J17
    assert_eq!(out(". - 10", "13911860366432393"), "13911860366432382\n");
    assert_eq!(out("[., tostring]", "9007199254740993"), "[9007199254740992,\"9007199254740992\"]\n");
    assert_eq!(out("[1.0, (1.0 | tostring), 100000000000000000000]", "null"), "[1,\"1\",1e+20]\n");
    assert_eq!(out(".[.[1]]", "[5, 1000000000000000000]"), "null\n");
}

/// `fromjson` reads as jq 1.6's parser: any run of characters between blanks, quotes
/// and brackets is one literal, taken when `strtod` takes all of it, and the first
/// error is reported with its line and column (what `try ... catch .` shows).
#[test]
fn fromjson_reads_as_jq_1_6() {
    let caught = |text: &str| out(".[] | try fromjson catch .", &format!("[{}]", text));
    assert_eq!(
        caught(r#""NaN", "-NaN", "NaN1", "Infinity", "-inf", "1e1000", "1.", ".5", "+1", "01""#),
        "null\nnull\n\"Invalid numeric literal at EOF at line 1, column 4 (while parsing 'NaN1')\"\n\
         1.7976931348623157e+308\n-1.7976931348623157e+308\n1.7976931348623157e+308\n1\n0.5\n1\n1\n"
    );
    assert_eq!(
        caught(r#""nan", "tru", "[1,]", "1 2", "{\"a\" 1}", "NaN1\n", "", "[1:2]", "1]""#),
        "\"Invalid literal at EOF at line 1, column 3 (while parsing 'nan')\"\n\
         \"Invalid literal at EOF at line 1, column 3 (while parsing 'tru')\"\n\
         \"Expected another array element at line 1, column 4 (while parsing '[1,]')\"\n\
         \"Unexpected extra JSON values (while parsing '1 2')\"\n\
         \"Expected separator between values at line 1, column 7 (while parsing '{\\\"a\\\" 1}')\"\n\
         \"Invalid numeric literal at line 2, column 0 (while parsing 'NaN1\\n')\"\n\
         \"Expected JSON value (while parsing '')\"\n\
         \"':' not as part of an object at line 1, column 3 (while parsing '[1:2]')\"\n\
         \"Unmatched ']' at line 1, column 2 (while parsing '1]')\"\n"
    );
    assert_eq!(
        out("fromjson", r#""{\"a\":1,\"a\":[2],\"b\":\"\\u00e9\\ud83d\\ude00\"}""#),
        "{\"a\":[2],\"b\":\"é😀\"}\n"
    );
    assert_eq!(out("try fromjson catch .", "1"), "\"number (1) only strings can be parsed\"\n");
}

#[test]
fn byte_order_mark_and_negative_nan_in_input() {
    // J18, J19
    assert_eq!(out(".", "\u{feff}\"bom\""), "\"bom\"\n");
    assert_eq!(out("map(. == null)", "[1,-NaN]"), "[false,false]\n");
    assert_eq!(out(".", "\"-NaN\""), "\"-NaN\"\n");
}

#[test]
fn match_as_jq() {
    // J20
    assert_eq!(
        out("[match([\"(o)(x)?\", \"g\"])]", "\"fo\""),
        "[{\"offset\":1,\"length\":1,\"string\":\"o\",\"captures\":[{\"offset\":1,\"length\":1,\"string\":\"o\",\"name\":null},{\"offset\":-1,\"string\":null,\"length\":0,\"name\":null}]}]\n"
    );
    assert_eq!(out("[match(\"\"; \"g\") | .offset]", "\"ab\""), "[0,1]\n");
    assert_eq!(out("[test(\"( )*\"; \"gn\"), test([\"A\", \"i\"])]", "\"a\""), "[false,true]\n");
    assert_eq!(out("capture(\"(?<x>b)\")", "\"ab\""), "{\"x\":\"b\"}\n");
    assert_eq!(out("try test(\"a\"; \"q\") catch .", "\"a\""), "\"q is not a valid modifier string\"\n");
}

#[test]
fn unpadded_base64() {
    // J21
    assert_eq!(out("@base64d", "\"cWl4YmF6Cg\""), "\"qixbaz\\n\"\n");
}

#[test]
fn input_past_the_end() {
    // J22
    assert_eq!(out("try input catch .", "1"), "\"break\"\n");
    assert_eq!(out("[., input]", "1 2"), "[1,2]\n");
}

/// `jq ARGS` on `input`: stdout and status.
fn jq_args(args: &[&str], input: &str) -> (String, i32) {
    let (mut out, mut errs) = (Vec::new(), Vec::new());
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    let mut io =
        Io { stdin: input.as_bytes(), stdout: &mut out, stderr: &mut errs, stdout_limit: NO_LIMIT, unnamed_file: None };
    let status = jq(&args, &Ctx::new("/nonexistent"), &mut io);
    (String::from_utf8(out).unwrap(), status)
}

/// jq 1.6's exit status is the last input's: an error in an earlier one does not count,
/// `-e` looks at the last output of the last input, and no input at all is 0.
#[test]
fn exit_status_of_the_last_input() {
    assert_eq!(jq_args(&[".[0]"], "\"a\" [1]"), ("1\n".into(), 0));
    assert_eq!(jq_args(&[".[0]"], "[1] \"a\""), ("1\n".into(), 5));
    assert_eq!(jq_args(&["-e", "."], "1 null"), ("1\nnull\n".into(), 1));
    assert_eq!(jq_args(&["-e", "empty"], "1"), ("".into(), 4));
    assert_eq!(jq_args(&["-e", ".a"], ""), ("".into(), 0));
    assert_eq!(jq_args(&["-r", "-e", "null, \"x\""], "1"), ("null\nx\n".into(), 0));
    assert_eq!(jq_args(&["-c", ".[0]"], "[1] [2"), ("1\n".into(), 4));
    assert_eq!(
        jq_args(&["-c", "."], "[1., .5, Infinity, -NaN, -0]"),
        ("[1,0.5,1.7976931348623157e+308,null,-0]\n".into(), 0)
    );
}

/// jq 1.6's `//` raises an error of its left side; `error(null)` gives no value; `add`,
/// `reverse`, `any`, `all`, the trims, `tonumber` and the formats as jq 1.6 defines them;
/// the last of `-c`, `--tab` and `--indent` sets the layout.
#[test]
fn jq_1_6_definitions() {
    assert_eq!(jq_args(&["-c", "(1, error(\"x\")) // 2"], "null"), ("1\n".into(), 5));
    assert_eq!(
        jq_args(&["-c", "[(error) // 2, (null | error), try error(null) catch 3]"], "null"),
        ("[2]\n".into(), 0)
    );
    assert_eq!(jq_args(&["-c", "[add, reverse, any, all]"], "{}"), ("[null,[],false,true]\n".into(), 0));
    assert_eq!(jq_args(&["-c", "[add, any, all]"], "{\"a\": true}"), ("[true,true,true]\n".into(), 0));
    assert_eq!(
        jq_args(&["-c", "[ltrimstr(1), rtrimstr(\"b\"), ({} | add)]"], "\"ab\""),
        ("[\"ab\",\"a\",null]\n".into(), 0)
    );
    assert_eq!(jq_args(&["-c", "[.[] | tonumber]"], "[\"1.\", \"NaN\", 2]"), ("[1,null,2]\n".into(), 0));
    assert_eq!(jq_args(&["-c", "[@text, @html, @base64]"], "1e3"), ("[\"1000\",\"1000\",\"MTAwMA==\"]\n".into(), 0));
    assert_eq!(jq_args(&["-c", "--indent", "1", "."], "[1]").0, "[\n 1\n]\n");
    assert_eq!(jq_args(&["--tab", "-c", "."], "[1]").0, "[1]\n");
    assert_eq!(jq_args(&["--tab", "--indent", "0", "."], "[1]").0, "[1]\n");
}
