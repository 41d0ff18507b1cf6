# jq builtins that jaq's standard library does not define, and jq's own definitions of
# builtins where jaq's differ (compiled after jaq's, so these shadow them). Names that
# start with `_jq_` are internal helpers.

def env: $ENV;
def input_filename: null;
def leaf_paths: paths(scalars);

# jq's numbers print the same in `tojson`/`tostring` as in the output (`1.0` is `1`).
def tojson: _jq_tojson;
def tostring: if type == "string" then . else _jq_tojson end;
def @json: tojson;
# jq 1.6's JSON reader: its literals (`NaN`, `1.`, `Infinity`) and its error messages.
def fromjson: _jq_fromjson;
# `l // r` as jq 1.6 runs it: `l`'s truthy values as they come, `r` (on the same input)
# when there were none, and an error in `l` raised, not swallowed.
def _jq_alt(f; g):
  . as $in
  | foreach ((f | select(. != null and . != false) | [.]), null) as $x
      (false; . or ($x != null); if $x != null then $x[0] elif . then empty else $in | g end);
def add: reduce .[] as $x (null; . + $x);
# jq 1.6: an error whose message is null is no error, it gives no value (`null | error`,
# `error(null)`); `try` has nothing to catch.
def _jq_error_native: error;
def error: if . == null then empty else _jq_error_native end;
def error($msg): $msg | error;
# The formats take any value through `tostring` first, so numbers print as jq prints them.
def _jq_html_native: @html;
def _jq_uri_native: @uri;
def _jq_base64_native: @base64;
def _jq_sh_native: @sh;
def @text: tostring;
def @html: tostring | _jq_html_native;
def @uri: tostring | _jq_uri_native;
def @base64: tostring | _jq_base64_native;
def @sh: if type == "array" then map(if type == "string" then _jq_sh_native elif type == "object" or type == "array" then _jq_sh_native else tostring end) | join(" ")
  elif type == "string" then _jq_sh_native elif type == "object" then _jq_sh_native else tostring end;
# jq 1.6's definitions: a trim leaves anything but two strings as it is; `reverse`,
# `any` and `all` work on whatever `.[]` and indexing take (an object's values, null).
def ltrimstr($x): if type == "string" and ($x | type) == "string" and startswith($x) then .[($x | length):] else . end;
def rtrimstr($x): if type == "string" and ($x | type) == "string" and endswith($x) and ($x | length) > 0 then .[:length - ($x | length)] else . end;
def reverse: [.[length - 1 - range(0; length)]];
def any: reduce .[] as $x (false; . or $x);
def all: reduce .[] as $x (true; . and $x);
def @text: tostring;

# A value as jq shows it in an error message: its JSON, cut to 11 bytes and `...` when
# longer than 14 (jq's jv_dump_string_trunc with a 15-byte buffer).
def _jq_errdump: _jq_tojson | if length > 14 then .[:11] + "..." else . end;

def @csv:
  if type != "array" then error("\(type) (\(tojson)) cannot be csv-formatted, only an array can be")
  else map(
    if type == "string" then "\"" + gsub("\""; "\"\"") + "\""
    elif type == "number" or type == "boolean" then tostring
    elif . == null then ""
    else error("\(type) (\(tojson)) is not valid in a csv row") end
  ) | join(",") end;
def @tsv:
  if type != "array" then error("\(type) (\(tojson)) cannot be tsv-formatted, only an array can be")
  else map(
    if type == "string" then gsub("\\\\"; "\\\\") | gsub("\t"; "\\t") | gsub("\n"; "\\n") | gsub("\r"; "\\r")
    elif type == "number" or type == "boolean" then tostring
    elif . == null then ""
    else error("\(type) (\(tojson)) is not valid in a tsv row") end
  ) | join("\t") end;

# J2: null joins as "", numbers and booleans as their JSON, anything else is jq's error.
def join($x):
  reduce .[] as $i (null;
    (if . == null then "" else . + $x end) as $acc
    | ($i | if . == null then ""
            elif type == "string" then .
            elif type == "number" or type == "boolean" then tojson
            else error("string (\($acc | _jq_errdump)) and \(type) (\(_jq_errdump)) cannot be added") end)
    | $acc + .
  ) // "";

# J5: jq's key and value names.
def from_entries:
  reduce .[] as $x ({};
    . + { ($x | if .key == null then .k // .name // .Name // .K // .Key else .key end
               | if type == "string" then . else tojson end):
          ($x | if has("value") then .value elif has("v") then .v else .Value end) });
def with_entries(f): to_entries | map(f) | from_entries;

# J16
def _jq_flatten_native($d): flatten($d);
def flatten($d):
  if $d < 0 then error("flatten depth must not be negative") else _jq_flatten_native($d) end;

# J10: jq 1.6's nth: the last of the first n+1 outputs; a negative index is an error.
def nth($n; f):
  if $n < 0 then error("nth doesn't support negative indices") else last(limit($n + 1; f)) end;

# jq's limit: a negative count yields everything.
def _jq_limit_native($n; f): limit($n; f);
def limit($n; f): if $n < 0 then f else _jq_limit_native($n; f) end;

# J12: `has(nan)` is false.
def _jq_has_native($k): has($k);
def has($k): if ($k | type) == "number" and ($k | isnan) then false else _jq_has_native($k) end;

# J21: unpadded base64 decodes.
def @base64d:
  tostring | if length % 4 == 0 then decode_base64 else . + ("=" * (4 - length % 4)) | decode_base64 end;

# J22: `input` with no input left is jq 1.6's error "break".
def _jq_input_native: input;
def input: [_jq_input_native] | if length == 0 then error("break") else .[0] end;

# Slice bounds as jq computes them: null ends, negative from the end, clamped, the start
# rounded down and the end up.
def _jq_slice_bounds($k; $len):
  def norm: if . < 0 then . + $len else . end | if . < 0 then 0 elif . > $len then $len else . end;
  ($k.start // 0 | floor | norm) as $s
  | ($k.end // $len | ceil | norm) as $e
  | [$s, if $e < $s then $s else $e end];

# J1, J15: delete several paths at once, all resolved against the input (jq's delpaths):
# indices do not shift between deletions; missing paths and out-of-range indices are
# ignored; `del(.)` is null; objects keep their key order.
def _jq_delpaths($ps):
  if ($ps | length) == 0 then .
  elif any($ps[]; length == 0) then null
  elif . == null then null
  elif type == "array" then
    length as $len
    | [ $ps[] | .[0] as $k | .[1:] as $rest
        | if ($k | type) == "number" then
            ($k | floor | if . < 0 then . + $len else . end) as $i
            | if $i < 0 or $i >= $len then empty else [$i, $rest] end
          elif ($k | type) == "object" then
            _jq_slice_bounds($k; $len) as [$s, $e]
            | if ($rest | length) == 0 then range($s; $e) | [., []]
              else error("Cannot delete a path through a slice") end
          else error("Cannot delete field at array index of \($k | type)") end ] as $targets
    | . as $a
    | [ range(0; $len) as $i
        | if any($targets[]; .[0] == $i and .[1] == []) then empty
          else [$targets[] | select(.[0] == $i) | .[1]] as $sub
            | $a[$i] | if $sub == [] then . else _jq_delpaths($sub) end end ]
  elif type == "object" then
    [ $ps[] | .[0] as $k
      | if ($k | type) == "string" then [$k, .[1:]]
        else error("Cannot delete field at object index of \($k | type)") end ] as $targets
    | . as $o
    | reduce keys_unsorted[] as $key ({};
        if any($targets[]; .[0] == $key and .[1] == []) then .
        else [$targets[] | select(.[0] == $key) | .[1]] as $sub
          | . + { ($key): ($o[$key] | if $sub == [] then . else _jq_delpaths($sub) end) } end)
  else error("Cannot delete fields from \(type)") end;
def delpaths($ps):
  if ($ps | type) != "array" then error("Paths must be specified as an array")
  elif any($ps[]; type != "array") then error("Path must be specified as an array")
  else _jq_delpaths($ps) end;
def del(f): _jq_delpaths([path(f)]);

# J9, J13: jq's setpath: creates through null, pads arrays with null, rounds fractional
# indices down, and a key of the wrong type for the value is an error.
def _jq_setpath($p; $v):
  if ($p | length) == 0 then $v
  else $p[0] as $k | $p[1:] as $rest
  | if ($k | type) == "string" then
      if . == null or type == "object" then
        (if . == null then {} else . end) | .[$k] = (.[$k] | _jq_setpath($rest; $v))
      else error("Cannot index \(type) with \"\($k)\"") end
    elif ($k | type) == "number" then
      if . == null or type == "array" then
        (if . == null then [] else . end)
        | (if $k < 0 then ($k | floor) + length else ($k | floor) end) as $i
        | if $i < 0 then error("Out of bounds negative array index")
          else (if $i >= length then . + [range(length; $i + 1) | null] else . end)
            | .[$i] = (.[$i] | _jq_setpath($rest; $v)) end
      else error("Cannot index \(type) with number") end
    elif ($k | type) == "object" then
      if . == null or type == "array" then
        (if . == null then [] else . end)
        | _jq_slice_bounds($k; length) as [$s, $e]
        | (.[$s:$e] | _jq_setpath($rest; $v)) as $new
        | if ($new | type) != "array" then error("A slice of an array can only be assigned another array")
          else .[:$s] + $new + .[$e:] end
      else error("Cannot update field at object index of \(type)") end
    else error("Cannot index \(type) with \($k | type)") end
  end;
def setpath($p; $v):
  if ($p | type) != "array" then error("Path must be specified as an array") else _jq_setpath($p; $v) end;

# J20: jq's match/test/capture/scan, with array arguments, `name` on every capture, and
# groups that did not take part as `{"offset": -1, "string": null}`.
def match($re; $flags): _jq_match($re; $flags; false)[];
def test($re; $flags): _jq_match($re; $flags; true);
def _jq_re_arg($val; f):
  ($val | type) as $vt
  | if $vt == "string" then [$val, null] | f
    elif $vt == "array" and ($val | length) > 1 then [$val[0], $val[1]] | f
    elif $vt == "array" and ($val | length) > 0 then [$val[0], null] | f
    else error($vt + " not a string or array") end;
def match($val): . as $in | _jq_re_arg($val; . as [$r, $f] | $in | match($r; $f));
def test($val): . as $in | _jq_re_arg($val; . as [$r, $f] | $in | test($r; $f));
def capture($re; $flags):
  match($re; $flags)
  | reduce (.captures[] | select(.name != null) | { (.name): .string }) as $pair ({}; . + $pair);
def capture($val): . as $in | _jq_re_arg($val; . as [$r, $f] | $in | capture($r; $f));
def scan($re; $flags):
  match($re; "g" + ($flags // ""))
  | if (.captures | length) > 0 then [.captures[] | .string] else .string end;
def scan($re): scan($re; null);

# J8: jq's SQL-style and streaming builtins.
def IN(s): any(s == .; .);
def IN(src; s): any(src == s; .);
def INDEX(stream; idx_expr): reduce stream as $row ({}; .[$row | idx_expr | tostring] = $row);
def INDEX(idx_expr): INDEX(.[]; idx_expr);
def JOIN($idx; idx_expr): [.[] | [., $idx[idx_expr]]];
def JOIN($idx; stream; idx_expr): stream | [., $idx[idx_expr]];
def JOIN($idx; stream; idx_expr; join_expr): stream | [., $idx[idx_expr]] | join_expr;
def tostream:
  path(def r: (.[]? | r), .; r) as $p
  | getpath($p)
  | reduce path(.[]?) as $q ([$p, .]; [$p + $q]);
def fromstream(f):
  { x: null, e: false } as $init
  | foreach f as $i ($init;
      if .e then $init else . end
      | if $i | length == 2
        then setpath(["e"]; $i[0] | length == 0) | setpath(["x"] + $i[0]; $i[1])
        else setpath(["e"]; $i[0] | length == 1) end;
      if .e then .x else empty end);
def truncate_stream(stream):
  . as $n | null | stream | . as $input
  | if (.[0] | length) > $n then setpath([0]; $input[0][$n:]) else empty end;
def builtins: ["length/0", "utf8bytelength/0", "not/0", "keys/0", "keys_unsorted/0", "values/0", "has/1", "in/1", "map/1", "map_values/1", "path/1", "del/1", "getpath/1", "setpath/2", "delpaths/1", "to_entries/0", "from_entries/0", "with_entries/1", "select/1", "recurse/1", "recurse/2", "recurse/0", "env/0", "builtins/0", "input_filename/0", "empty/0", "error/0", "error/1", "paths/0", "paths/1", "leaf_paths/0", "add/0", "any/0", "any/1", "any/2", "all/0", "all/1", "all/2", "flatten/0", "flatten/1", "range/1", "range/2", "range/3", "floor/0", "sqrt/0", "pow/2", "log/0", "log2/0", "log10/0", "exp/0", "exp2/0", "exp10/0", "tostring/0", "tonumber/0", "type/0", "infinite/0", "nan/0", "isinfinite/0", "isnan/0", "isnormal/0", "isvalid/1", "sort/0", "sort_by/1", "group_by/1", "min/0", "max/0", "min_by/1", "max_by/1", "unique/0", "unique_by/1", "reverse/0", "contains/1", "indices/1", "index/1", "rindex/1", "inside/1", "startswith/1", "endswith/1", "combinations/0", "combinations/1", "ltrimstr/1", "rtrimstr/1", "explode/0", "implode/0", "split/1", "split/2", "join/1", "ascii_downcase/0", "ascii_upcase/0", "while/2", "until/2", "repeat/1", "recurse_down/0", "transpose/0", "first/0", "last/0", "nth/1", "first/1", "last/1", "nth/2", "limit/2", "input/0", "inputs/0", "debug/0", "stderr/0", "input_line_number/0", "truncate_stream/1", "fromstream/1", "tostream/0", "IN/1", "IN/2", "INDEX/1", "INDEX/2", "JOIN/2", "JOIN/3", "JOIN/4", "ascii/0", "todate/0", "fromdate/0", "now/0", "dateadd/2", "datesub/2", "date/0", "mktime/0", "gmtime/0", "localtime/0", "strftime/1", "strflocaltime/1", "strptime/1", "todateiso8601/0", "fromdateiso8601/0", "dateiso8601/0", "test/1", "test/2", "match/1", "match/2", "capture/1", "capture/2", "scan/1", "scan/2", "splits/1", "splits/2", "sub/2", "sub/3", "gsub/2", "gsub/3", "tojson/0", "fromjson/0", "arrays/0", "objects/0", "iterables/0", "booleans/0", "numbers/0", "normals/0", "finites/0", "strings/0", "nulls/0", "scalars/0", "halt/0", "halt_error/0", "halt_error/1", "abs/0", "toarray/0", "walk/1", "significand/0", "gamma/0", "lgamma/0", "tgamma/0", "frexp/0", "modf/0", "ldexp/2", "scalb/2", "nearbyint/0", "trunc/0", "round/0", "ceil/0", "fabs/0", "cbrt/0", "sin/0", "cos/0", "tan/0", "asin/0", "acos/0", "atan/0", "atan2/2", "sinh/0", "cosh/0", "tanh/0", "asinh/0", "acosh/0", "atanh/0"];

# jq's operators (see jq/term.rs, which calls these for `/`, `%`, `*`, `=`, `|=`, `op=`).
def _jq_type_dump: "\(type) (\(_jq_errdump))";
def _jq_div(l; r):
  r as $r | l as $l
  | if ($l | type) == "number" and ($r | type) == "number" and $r == 0 then
      error("\($l | _jq_type_dump) and \($r | _jq_type_dump) cannot be divided because the divisor is zero")
    else $l / $r end;
# jq 1.6's `%` works on the integer parts (C's cast to intmax_t).
def _jq_trunc: if . < 0 then -(-. | floor) else floor end;
def _jq_mod(l; r):
  r as $r | l as $l
  | if ($l | type) == "number" and ($r | type) == "number" and $r < 1 and $r > -1 then
      error("\($l | _jq_type_dump) and \($r | _jq_type_dump) cannot be divided because the divisor is zero")
    elif ($l | type) == "number" and ($r | type) == "number" then ($l | _jq_trunc) % ($r | _jq_trunc)
    else $l % $r end;
def _jq_mul(l; r):
  r as $r | l as $l
  | if ($l | type) == "string" and ($r | type) == "number" and (($r | isnan) or $r <= 0) then null
    elif ($r | type) == "string" and ($l | type) == "number" and (($l | isnan) or $l <= 0) then null
    else $l * $r end;
def _jq_idx: if type == "number" then (if isnan then -9007199254740992 else floor end) else . end;
def _jq_idx_end: if type == "number" then (if isnan then -9007199254740992 else ceil end) else . end;
def getpath($p):
  if ($p | type) != "array" then error("Path must be specified as an array") end
  | reduce $p[] as $k (.;
      if ($k | type) == "object" then
        if . == null then . else _jq_slice_bounds($k; length) as [$s, $e] | .[$s:$e] end
      else .[$k | _jq_idx] end);
# jq's definitions of `=` and `|=`, used where jaq's own (much faster) update fails: a
# path through null or past the end of an array. Otherwise jaq's gives the same result
# (and `|= empty` deletes every matched element, as in jq 1.7).
def _jq_assign_jq(paths; $v): reduce path(paths) as $p (.; setpath($p; $v));
def _jq_modify_jq(paths; update):
  reduce path(paths) as $p (.; label $out | (setpath($p; getpath($p) | update) | ., break $out), delpaths([$p]));
def _jq_assign(paths; $v): . as $in | try (paths = $v) catch ($in | _jq_assign_jq(paths; $v));
def _jq_modify(paths; update): . as $in | try (paths |= update) catch ($in | _jq_modify_jq(paths; update));
# jq 1.6's `tonumber` reads a string as its JSON reader does (`"1."`, `"NaN"`), and only
# a number will do.
def tonumber:
  if type == "number" then .
  elif type == "string" then
    _jq_type_dump as $d | _jq_fromjson | if type == "number" then . else "\($d) cannot be parsed as a number" | error end
  else "\(_jq_type_dump) cannot be parsed as a number" | error end;
