//! The native functions `jq_defs.jq` builds on: `_jq_tojson` (JSON text in jq's number
//! format), `_jq_fromjson` (jq 1.6's reader) and `_jq_match` (jq 1.6's `_match_impl`),
//! with jq's error dumps. Kept apart because each is Rust where jq's definition needs
//! what jaq's filters cannot say.

use jaq_core::native;
use jaq_json::Val;
use jaq_json::write::Pp;

use super::JqData;
use super::input::as_jq_number;
use super::output::write_json;
use super::parse;

/// Native helpers of `jq_defs.jq`: `_jq_tojson` (JSON text in jq's number format),
/// `_jq_fromjson` (jq 1.6's reader, [`parse`]) and
/// `_jq_match(re; flags; test)` (jq 1.6's `_match_impl`).
pub(super) fn jq_funs() -> impl Iterator<Item = native::Fun<JqData>> {
    let natives: Box<[native::Filter<jaq_core::RunPtr<JqData>>]> = Box::new([
        ("_jq_tojson", native::v(0), |cv| {
            let mut out = Vec::new();
            write_json(&cv.1, &Pp { indent: None, sort_keys: false, sep_space: false, ..Pp::default() }, 0, &mut out);
            native::bome(Ok(Val::from(String::from_utf8_lossy(&out).into_owned())))
        }),
        ("_jq_fromjson", native::v(0), |cv| {
            let result = match &cv.1 {
                Val::TStr(s) | Val::BStr(s) => parse::fromjson(s).map(as_jq_number),
                other => Err(format!("{} only strings can be parsed", error_dump(other))),
            };
            native::bome(result.map_err(jaq_core::Error::str))
        }),
        ("_jq_match", native::v(3), |mut cv| {
            let test = cv.0.pop_var();
            let flags = cv.0.pop_var();
            let re = cv.0.pop_var();
            native::bome(jq_match(&cv.1, &re, &flags, matches!(test, Val::Bool(true))).map_err(jaq_core::Error::str))
        }),
    ]);
    natives.into_vec().into_iter().map(native::run::<JqData>)
}

pub(super) fn type_name(v: &Val) -> &'static str {
    match v {
        Val::Null => "null",
        Val::Bool(_) => "boolean",
        Val::Num(_) => "number",
        Val::TStr(_) | Val::BStr(_) => "string",
        Val::Arr(_) => "array",
        Val::Obj(_) => "object",
    }
}

/// `v` as jq shows it in an error: `type (json)`, the JSON cut as jq cuts it.
pub(super) fn error_dump(v: &Val) -> String {
    let mut out = Vec::new();
    write_json(v, &Pp { indent: None, sort_keys: false, sep_space: false, ..Pp::default() }, 0, &mut out);
    let mut json = String::from_utf8_lossy(&out).into_owned();
    if json.len() > 14 {
        let mut cut = 11;
        while !json.is_char_boundary(cut) {
            cut -= 1;
        }
        json.truncate(cut);
        json.push_str("...");
    }
    format!("{} ({json})", type_name(v))
}

pub(super) fn as_str(v: &Val) -> Option<String> {
    match v {
        Val::TStr(s) | Val::BStr(s) => Some(String::from_utf8_lossy(s).into_owned()),
        _ => None,
    }
}

/// jq 1.6's `_match_impl`: the matches of `re` in the input as jq's match objects
/// (offsets and lengths in codepoints, every capture with its `name`, null when the group
/// has none, a group that took no part as offset -1 and string null; a zero-width match
/// has no captures), or whether there is one (`test`).
pub(super) fn jq_match(input: &Val, re: &Val, flags: &Val, test: bool) -> Result<Val, String> {
    let Some(s) = as_str(input) else {
        return Err(format!("{} cannot be matched, as it is not a string", error_dump(input)));
    };
    let Some(re_src) = as_str(re) else { return Err(format!("{} is not a string", error_dump(re))) };
    let flags = match flags {
        Val::Null => String::new(),
        f => as_str(f).ok_or_else(|| format!("{} is not a string", error_dump(f)))?,
    };
    let (mut global, mut skip_empty) = (false, false);
    let mut builder = regex::RegexBuilder::new(&re_src);
    for c in flags.chars() {
        match c {
            'g' => global = true,
            'n' => skip_empty = true,
            'i' => _ = builder.case_insensitive(true),
            'x' => _ = builder.ignore_whitespace(true),
            'p' => _ = builder.dot_matches_new_line(true),
            'l' => _ = builder.swap_greed(true),
            's' => {}
            _ => return Err(format!("{flags} is not a valid modifier string")),
        }
    }
    let regex = builder.build().map_err(|e| format!("{re_src} (at offset 0) is not a valid regex: {e}"))?;
    if test && !skip_empty {
        return Ok(Val::Bool(regex.is_match(&s)));
    }
    let global = global && !test;
    let names: Vec<Option<&str>> = regex.capture_names().collect();
    let cp = |byte: usize| s[..byte].chars().count() as isize;
    let key = |k: &str| Val::from(k.to_string());
    let mut matches = Vec::new();
    let mut start = 0;
    while let Some(caps) = regex.captures_at(&s, start) {
        let whole = caps.get(0).expect("group 0 always takes part");
        if whole.start() == whole.end() {
            if skip_empty {
                // `n` looks for the first match that is not empty.
                if whole.end() >= s.len() {
                    break;
                }
                start = whole.end() + s[whole.end()..].chars().next().map_or(1, char::len_utf8);
                continue;
            }
            {
                let m = [
                    (key("offset"), Val::from(cp(whole.start()))),
                    (key("length"), Val::from(0isize)),
                    (key("string"), Val::from(String::new())),
                    (key("captures"), Val::Arr(Vec::new().into())),
                ];
                matches.push(Val::obj(m.into_iter().collect()));
            }
            // Past the empty match by one character.
            start = whole.end() + s[whole.end()..].chars().next().map_or(1, char::len_utf8);
        } else {
            let captures: Vec<Val> = (1..caps.len())
                .map(|g| {
                    let name = names[g].map_or(Val::Null, key);
                    let fields = match caps.get(g) {
                        Some(m) => [
                            (key("offset"), Val::from(cp(m.start()))),
                            (key("length"), Val::from(m.as_str().chars().count())),
                            (key("string"), Val::from(m.as_str().to_string())),
                            (key("name"), name),
                        ],
                        None => [
                            (key("offset"), Val::from(-1isize)),
                            (key("string"), Val::Null),
                            (key("length"), Val::from(0isize)),
                            (key("name"), name),
                        ],
                    };
                    Val::obj(fields.into_iter().collect())
                })
                .collect();
            let m = [
                (key("offset"), Val::from(cp(whole.start()))),
                (key("length"), Val::from(whole.as_str().chars().count())),
                (key("string"), Val::from(whole.as_str().to_string())),
                (key("captures"), captures.into_iter().collect()),
            ];
            matches.push(Val::obj(m.into_iter().collect()));
            start = whole.end();
        }
        if !global || start >= s.len() {
            break;
        }
    }
    if test {
        return Ok(Val::Bool(!matches.is_empty()));
    }
    Ok(matches.into_iter().collect())
}
