//! Records and fields: cutting input into records by RS, and records into fields by FS.
//!
//! Every input (a file operand, stdin, a `getline < file`) is read whole through the
//! [`Ctx`](reviewhost_tool::Ctx) and cut one record at a time, so that a change of RS
//! applies from the next record on, as in awk.

use std::rc::Rc;

use crate::pattern::Pattern;

/// How RS separates records.
pub enum RecordSep {
    /// One byte (`"\n"` by default).
    Byte(u8),
    /// `RS = ""`: paragraphs separated by blank lines.
    Paragraph,
    /// A longer RS is a regex (gawk and mawk).
    Regex(Rc<Pattern>),
}

/// One input, read whole, and how far it has been read.
pub struct Source {
    data: Rc<[u8]>,
    pos: usize,
}

impl Source {
    pub fn new(data: Rc<[u8]>) -> Source {
        Source { data, pos: 0 }
    }

    /// The next record, without its terminator; `None` at the end.
    pub fn next_record(&mut self, sep: &RecordSep) -> Option<Vec<u8>> {
        let rest = &self.data[self.pos..];
        match sep {
            RecordSep::Byte(b) => {
                if rest.is_empty() {
                    return None;
                }
                match memchr(*b, rest) {
                    Some(i) => {
                        self.pos += i + 1;
                        Some(rest[..i].to_vec())
                    }
                    None => {
                        self.pos = self.data.len();
                        Some(rest.to_vec())
                    }
                }
            }
            RecordSep::Paragraph => {
                let skip = rest.iter().take_while(|b| **b == b'\n').count();
                let rest = &rest[skip..];
                self.pos += skip;
                if rest.is_empty() {
                    return None;
                }
                let end = rest.windows(2).position(|w| w == b"\n\n");
                match end {
                    Some(i) => {
                        let gap = rest[i..].iter().take_while(|b| **b == b'\n').count();
                        self.pos += i + gap;
                        Some(rest[..i].to_vec())
                    }
                    None => {
                        self.pos = self.data.len();
                        let body = rest.strip_suffix(b"\n").unwrap_or(rest);
                        Some(body.to_vec())
                    }
                }
            }
            RecordSep::Regex(re) => {
                if rest.is_empty() {
                    return None;
                }
                // Searched in the whole input, so that `^` in RS matches only at its
                // start (gawk), not at each record's.
                let start = self.pos;
                let mut at = start;
                while let Some((s, e)) = re.find_at(&self.data, at) {
                    if e > s {
                        let record = self.data[start..s].to_vec();
                        self.pos = e;
                        return Some(record);
                    }
                    at = s + 1;
                    if at > self.data.len() {
                        break;
                    }
                }
                self.pos = self.data.len();
                Some(rest.to_vec())
            }
        }
    }
}

fn memchr(b: u8, s: &[u8]) -> Option<usize> {
    s.iter().position(|c| *c == b)
}

/// How FS separates fields.
#[derive(Clone)]
pub enum FieldSep {
    /// `FS = " "`: runs of blanks, leading and trailing ones ignored.
    Blank,
    /// Any other single character, literally (a tab, `,`, `|`, `.`).
    Byte(u8),
    /// `FS = ""`: each character is a field (gawk and mawk).
    Chars,
    Regex(Rc<Pattern>),
}

/// The fields of `record`. In paragraph mode a newline separates fields too when FS is
/// one character.
pub fn split_fields(record: &[u8], sep: &FieldSep, paragraph: bool) -> Vec<Vec<u8>> {
    // gawk does this for a one-character FS only: a regex FS (and `FS = ""`) sees the
    // newline as any other character.
    if paragraph && matches!(sep, FieldSep::Byte(_)) {
        return record.split(|b| *b == b'\n').flat_map(|line| split_fields(line, sep, false)).collect();
    }
    match sep {
        FieldSep::Blank => {
            record.split(|b| matches!(b, b' ' | b'\t' | b'\n')).filter(|f| !f.is_empty()).map(<[u8]>::to_vec).collect()
        }
        _ if record.is_empty() => Vec::new(),
        FieldSep::Byte(b) => record.split(|c| c == b).map(<[u8]>::to_vec).collect(),
        FieldSep::Chars => {
            let mut out = Vec::new();
            let mut i = 0;
            while i < record.len() {
                let n = crate::text::byte_offset(&record[i..], 1).max(1);
                out.push(record[i..i + n].to_vec());
                i += n;
            }
            out
        }
        FieldSep::Regex(re) => split_regex(record, re),
    }
}

/// Separators' texts by the index of the field before each.
pub type Separators = Vec<(usize, Vec<u8>)>;

/// gawk's `split(s, a, sep, seps)`: the fields, and each separator's text by the index
/// of the field before it (with blanks, leading ones are 0 and trailing ones `n`).
pub fn split_with_seps(record: &[u8], sep: &FieldSep) -> (Vec<Vec<u8>>, Separators) {
    let mut fields = Vec::new();
    let mut seps = Vec::new();
    match sep {
        FieldSep::Blank => {
            let blank = |b: &u8| matches!(b, b' ' | b'\t' | b'\n');
            let mut i = 0;
            while i < record.len() {
                let run = record[i..].iter().take_while(|b| blank(b)).count();
                if run > 0 {
                    seps.push((fields.len(), record[i..i + run].to_vec()));
                    i += run;
                    continue;
                }
                let len = record[i..].iter().take_while(|b| !blank(b)).count();
                fields.push(record[i..i + len].to_vec());
                i += len;
            }
        }
        _ if record.is_empty() => {}
        FieldSep::Chars => {
            fields = split_fields(record, sep, false);
            seps = (1..fields.len()).map(|i| (i, Vec::new())).collect();
        }
        FieldSep::Byte(b) => {
            fields = split_fields(record, sep, false);
            seps = (1..fields.len()).map(|i| (i, vec![*b])).collect();
        }
        FieldSep::Regex(re) => {
            let mut start = 0;
            for (s, e) in separator_spans(record, re) {
                fields.push(record[start..s].to_vec());
                seps.push((fields.len(), record[s..e].to_vec()));
                start = e;
            }
            fields.push(record[start..].to_vec());
        }
    }
    (fields, seps)
}

/// `record` cut at each non-empty match of `re`.
pub fn split_regex(record: &[u8], re: &Pattern) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let mut start = 0;
    for (s, e) in separator_spans(record, re) {
        out.push(record[start..s].to_vec());
        start = e;
    }
    out.push(record[start..].to_vec());
    out
}

/// The spans of the non-empty matches of `re` in `record`, left to right: where a
/// regex field separator cuts it.
fn separator_spans<'r>(record: &'r [u8], re: &'r Pattern) -> impl Iterator<Item = (usize, usize)> + 'r {
    let mut at = 0;
    std::iter::from_fn(move || {
        while at <= record.len() {
            let (s, e) = re.find_at(record, at)?;
            if e == s {
                at = s + 1;
                continue;
            }
            at = e;
            return Some((s, e));
        }
        None
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn records(data: &[u8], sep: RecordSep) -> Vec<String> {
        let mut s = Source::new(Rc::from(data));
        std::iter::from_fn(|| s.next_record(&sep)).map(|r| String::from_utf8(r).unwrap()).collect()
    }

    #[test]
    fn paragraphs() {
        assert_eq!(records(b"\n\na\nb\n\n\nc\n", RecordSep::Paragraph), ["a\nb", "c"]);
        assert_eq!(records(b"a\nb", RecordSep::Byte(b'\n')), ["a", "b"]);
        assert_eq!(records(b"a\n\n", RecordSep::Byte(b'\n')), ["a", ""]);
    }

    #[test]
    fn fields() {
        assert_eq!(split_fields(b"  a  b\tc ", &FieldSep::Blank, false), [b"a".to_vec(), b"b".to_vec(), b"c".to_vec()]);
        assert_eq!(split_fields(b"a::b", &FieldSep::Byte(b':'), false).len(), 3);
        assert!(split_fields(b"", &FieldSep::Byte(b':'), false).is_empty());
    }
}
