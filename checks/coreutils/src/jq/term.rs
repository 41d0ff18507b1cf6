//! The program, parsed by jaq's parser and printed back as jaq source with jq's
//! semantics where jaq's operators differ (the helpers are in `jq_defs.jq`):
//!
//! - `l / r`, `l % r`, `l * r` call `_jq_div`, `_jq_mod`, `_jq_mul` (J4: a zero divisor is
//!   jq's error; J12: a string times NaN or a non-positive number is null), with jq's
//!   order of outputs (the right operand's outer).
//! - `l = r`, `l |= r`, `l op= r`, `l //= r` are jq's own definitions over `path(l)` and
//!   `setpath`/`delpaths` (J9: assigning past the end pads with null; paths are created
//!   through null as in jq).
//! - `l // r` calls `_jq_alt`: an error in `l` is raised, not taken for "no value" (jq
//!   1.6 gives `l`'s values up to the error, then the error; jaq would give `r`).
//! - `.[i]`, `.[a:b]` with computed bounds round them (J11: `.[1.2:3.5]`, `.[1.1] = 5`; a
//!   number a double holds as an integer indexes like one; NaN indexes nothing).
//!
//! Every term is printed in parentheses, so precedence never changes. A program this
//! cannot parse is left to jaq, which reports the error.

use jaq_core::load::lex::StrPart;
use jaq_core::load::parse::{BinaryOp, Def, Pattern, Term};
use jaq_core::ops::Math;
use jaq_core::path::{Opt, Part};

/// `code` with jq's operator semantics, or `None` when jaq does not parse it.
pub fn rewrite(code: &str) -> Option<String> {
    let term = jaq_core::load::parse(code, |p| p.term())?;
    let mut p = Printer { out: String::with_capacity(code.len() * 2), fresh: 0 };
    p.term(&term);
    // What this prints always parses; should it not, the program stays as written.
    jaq_core::load::parse(&p.out, |p| p.term()).map(|_: Term<&str>| ()).map(|()| p.out.clone())
}

struct Printer {
    out: String,
    /// Counter for fresh variable names.
    fresh: usize,
}

impl Printer {
    fn s(&mut self, s: &str) {
        self.out.push_str(s);
    }

    fn paren(&mut self, t: &Term<&str>) {
        self.s("(");
        self.term(t);
        self.s(")");
    }

    fn call(&mut self, name: &str, args: &[&Term<&str>]) {
        self.s(name);
        if !args.is_empty() {
            self.s("(");
            for (i, a) in args.iter().enumerate() {
                if i > 0 {
                    self.s("; ");
                }
                self.term(a);
            }
            self.s(")");
        }
    }

    /// A string; with `bound`, its interpolations are the variables `$__jq_i{bound}_{k}`
    /// (`k` the part's index), bound before it.
    fn string(&mut self, fmt: Option<&str>, parts: &[StrPart<&str, Term<&str>>], bound: Option<usize>) {
        if let Some(f) = fmt {
            self.s(f);
            self.s(" ");
        }
        self.s("\"");
        for (k, part) in parts.iter().enumerate() {
            match part {
                StrPart::Str(s) => s.chars().for_each(|c| self.char(c)),
                StrPart::Char(c) => self.char(*c),
                StrPart::Term(_) if let Some(n) = bound => self.s(&format!("\\($__jq_i{n}_{k})")),
                StrPart::Term(t) => {
                    self.s("\\(");
                    self.term(t);
                    self.s(")");
                }
            }
        }
        self.s("\"");
    }

    fn char(&mut self, c: char) {
        match c {
            '"' => self.s("\\\""),
            '\\' => self.s("\\\\"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => self.s(&format!("\\u{:04x}", c as u32)),
            c => self.out.push(c),
        }
    }

    fn pattern(&mut self, p: &Pattern<&str>) {
        match p {
            Pattern::Var(x) => self.s(x),
            Pattern::Arr(ps) => {
                self.s("[");
                for (i, p) in ps.iter().enumerate() {
                    if i > 0 {
                        self.s(", ");
                    }
                    self.pattern(p);
                }
                self.s("]");
            }
            Pattern::Obj(entries) => {
                self.s("{");
                for (i, (k, p)) in entries.iter().enumerate() {
                    if i > 0 {
                        self.s(", ");
                    }
                    self.paren(k);
                    self.s(": ");
                    self.pattern(p);
                }
                self.s("}");
            }
        }
    }

    fn def(&mut self, d: &Def<&str, Term<&str>>) {
        self.s("def ");
        self.s(d.name);
        if !d.args.is_empty() {
            self.s("(");
            self.s(&d.args.join("; "));
            self.s(")");
        }
        self.s(": ");
        self.term(&d.body);
        self.s("; ");
    }

    /// An index or a slice bound, rounded as jq rounds it (`_jq_idx`, `_jq_idx_end`).
    fn index(&mut self, t: &Term<&str>, helper: &str) {
        match t {
            Term::Str(..) => self.term(t),
            _ => {
                self.s("(");
                self.term(t);
                self.s(" | ");
                self.s(helper);
                self.s(")");
            }
        }
    }

    fn term(&mut self, t: &Term<&str>) {
        match t {
            Term::Id => self.s("."),
            Term::Recurse => self.s(".."),
            Term::Num(n) => self.s(n),
            Term::Str(fmt, parts)
                if parts.iter().filter(|p| matches!(p, StrPart::Term(t) if !single(t))).count() > 1 =>
            {
                // jq's order of outputs: the last interpolation's outer.
                let n = self.fresh;
                self.fresh += 1;
                self.s("(");
                for (k, part) in parts.iter().enumerate().rev() {
                    if let StrPart::Term(t) = part {
                        self.paren(t);
                        self.s(&format!(" as $__jq_i{n}_{k} | "));
                    }
                }
                self.string(fmt.as_deref(), parts, Some(n));
                self.s(")");
            }
            Term::Str(fmt, parts) => {
                self.s("(");
                self.string(fmt.as_deref(), parts, None);
                self.s(")");
            }
            Term::Arr(None) => self.s("[]"),
            Term::Arr(Some(t)) => {
                self.s("[");
                self.term(t);
                self.s("]");
            }
            Term::Obj(entries) => {
                self.s("{");
                for (i, (k, v)) in entries.iter().enumerate() {
                    if i > 0 {
                        self.s(", ");
                    }
                    match (k, v) {
                        (k, Some(v)) => {
                            self.paren(k);
                            self.s(": ");
                            self.paren(v);
                        }
                        // `{$x}`, `{$__loc__}`
                        (Term::Var(x), None) => self.s(x),
                        // `{a}`, `{"a"}`, `{"\(f)"}`: the key and `.[key]`.
                        (k, None) => {
                            self.paren(k);
                            self.s(": .[");
                            self.term(k);
                            self.s("]");
                        }
                    }
                }
                self.s("}");
            }
            Term::Neg(t) => {
                self.s("(-");
                self.paren(t);
                self.s(")");
            }
            Term::BinOp(l, op, r) => self.binop(l, op, r),
            Term::Label(x, t) => {
                self.s("(label ");
                self.s(x);
                self.s(" | ");
                self.term(t);
                self.s(")");
            }
            Term::Break(x) => {
                self.s("break ");
                self.s(x);
            }
            Term::Fold(kw, xs, pat, args) => {
                self.s("(");
                self.s(kw);
                self.s(" ");
                self.paren(xs);
                self.s(" as ");
                self.pattern(pat);
                self.s(" (");
                for (i, a) in args.iter().enumerate() {
                    if i > 0 {
                        self.s("; ");
                    }
                    self.term(a);
                }
                self.s("))");
            }
            Term::TryCatch(t, c) => {
                self.s("(try ");
                self.paren(t);
                if let Some(c) = c {
                    self.s(" catch ");
                    self.paren(c);
                }
                self.s(")");
            }
            Term::IfThenElse(branches, els) => {
                self.s("(");
                for (i, (c, t)) in branches.iter().enumerate() {
                    self.s(if i == 0 { "if " } else { " elif " });
                    self.term(c);
                    self.s(" then ");
                    self.term(t);
                }
                if let Some(e) = els {
                    self.s(" else ");
                    self.term(e);
                }
                self.s(" end)");
            }
            Term::Def(defs, t) => {
                self.s("(");
                for d in defs {
                    self.def(d);
                }
                self.term(t);
                self.s(")");
            }
            Term::Call(name, args) => {
                let args: Vec<&Term<&str>> = args.iter().collect();
                self.call(name, &args);
            }
            Term::Var(x) => self.s(x),
            Term::Path(t, path) => {
                let mut prefix = Printer { out: String::new(), fresh: self.fresh };
                prefix.paren(t);
                self.fresh = prefix.fresh;
                self.path(prefix.out, &path.0);
            }
        }
    }

    /// `prefix` followed by `parts`. A slice with bounds becomes
    /// `(A) as $s | (B) as $e | (PREFIX | if . == null then . else .[$s:$e] end)`, as jq
    /// slices null to null (J11); its bounds are still evaluated on the path's input.
    fn path(&mut self, prefix: String, parts: &[(Part<Term<&str>>, Opt)]) {
        let slice = parts.iter().position(|(p, _)| matches!(p, Part::Range(a, b) if a.is_some() || b.is_some()));
        let Some(k) = slice else {
            self.s(&prefix);
            self.parts(parts);
            return;
        };
        let Part::Range(a, b) = &parts[k].0 else { unreachable!("found above") };
        let n = self.fresh;
        self.fresh += 1;
        let mut inner = Printer { out: String::new(), fresh: self.fresh };
        inner.s("(");
        for (bound, name, helper) in [(a, "s", "_jq_idx"), (b, "e", "_jq_idx_end")] {
            if let Some(bound) = bound {
                inner.s("(");
                inner.term(bound);
                inner.s(&format!(" | {helper}) as $__jq_{name}{n} | "));
            }
        }
        inner.s("(");
        inner.s(&prefix);
        inner.parts(&parts[..k]);
        inner.s(" | if . == null then . else .[");
        if a.is_some() {
            inner.s(&format!("$__jq_s{n}"));
        }
        inner.s(":");
        if b.is_some() {
            inner.s(&format!("$__jq_e{n}"));
        }
        inner.s("]");
        if matches!(parts[k].1, Opt::Optional) {
            inner.s("?");
        }
        inner.s(" end))");
        self.fresh = inner.fresh;
        self.path(inner.out, &parts[k + 1..]);
    }

    fn parts(&mut self, parts: &[(Part<Term<&str>>, Opt)]) {
        for (part, opt) in parts {
            match part {
                Part::Index(i) => {
                    self.s("[");
                    self.index(i, "_jq_idx");
                    self.s("]");
                }
                Part::Range(None, None) => self.s("[]"),
                Part::Range(a, b) => {
                    self.s("[");
                    if let Some(a) = a {
                        self.index(a, "_jq_idx");
                    }
                    self.s(":");
                    if let Some(b) = b {
                        self.index(b, "_jq_idx_end");
                    }
                    self.s("]");
                }
            }
            if matches!(opt, Opt::Optional) {
                self.s("?");
            }
        }
    }

    fn binop(&mut self, l: &Term<&str>, op: &BinaryOp<&str>, r: &Term<&str>) {
        let math_helper = |m: &Math| match m {
            Math::Div => Some("_jq_div"),
            Math::Rem => Some("_jq_mod"),
            Math::Mul => Some("_jq_mul"),
            _ => None,
        };
        match op {
            BinaryOp::Math(m) if math_helper(m).is_some() => {
                self.call(math_helper(m).unwrap_or_default(), &[l, r]);
            }
            BinaryOp::Assign => self.call("_jq_assign", &[l, r]),
            BinaryOp::Alt => self.call("_jq_alt", &[l, r]),
            BinaryOp::Update => self.call("_jq_modify", &[l, r]),
            BinaryOp::UpdateMath(_) | BinaryOp::UpdateAlt => {
                // `l op= r` is `r as $x | l |= . op $x`.
                let x = format!("$__jq_upd{}", self.fresh);
                self.fresh += 1;
                self.s("(");
                self.paren(r);
                self.s(&format!(" as {x} | _jq_modify("));
                self.term(l);
                self.s("; ");
                match op {
                    BinaryOp::UpdateMath(m) => match math_helper(m) {
                        Some(h) => self.s(&format!("{h}(.; {x})")),
                        None => self.s(&format!(". {} {x}", m.as_str())),
                    },
                    _ => self.s(&format!(". // {x}")),
                }
                self.s("))");
            }
            BinaryOp::Math(_) | BinaryOp::Cmp(_) if !single(l) && !single(r) => {
                // jq's order of outputs: the right operand's outer.
                let n = self.fresh;
                self.fresh += 1;
                let sym = match op {
                    BinaryOp::Math(m) => m.as_str(),
                    BinaryOp::Cmp(c) => c.as_str(),
                    _ => unreachable!("matched above"),
                };
                self.s("(");
                self.paren(r);
                self.s(&format!(" as $__jq_r{n} | "));
                self.paren(l);
                self.s(&format!(" as $__jq_l{n} | ($__jq_l{n} {sym} $__jq_r{n}))"));
            }
            _ => {
                self.s("(");
                self.paren(l);
                match op {
                    BinaryOp::Pipe(None) => self.s(" | "),
                    BinaryOp::Pipe(Some(p)) => {
                        self.s(" as ");
                        self.pattern(p);
                        self.s(" | ");
                    }
                    BinaryOp::Comma => self.s(", "),
                    BinaryOp::Or => self.s(" or "),
                    BinaryOp::And => self.s(" and "),
                    BinaryOp::Math(m) => {
                        self.s(" ");
                        self.s(m.as_str());
                        self.s(" ");
                    }
                    BinaryOp::Cmp(c) => {
                        self.s(" ");
                        self.s(c.as_str());
                        self.s(" ");
                    }
                    _ => unreachable!("handled above"),
                }
                self.paren(r);
                self.s(")");
            }
        }
    }
}

/// Whether `t` yields at most one value (so the order of a binary operator's outputs
/// does not depend on it).
fn single(t: &Term<&str>) -> bool {
    match t {
        Term::Id | Term::Num(_) | Term::Var(_) => true,
        Term::Str(_, parts) => parts.iter().all(|p| !matches!(p, StrPart::Term(_))),
        Term::Neg(t) => single(t),
        Term::Path(t, path) => single(t) && path.0.iter().all(|(p, _)| matches!(p, Part::Index(i) if single(i))),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operators_become_jq_definitions() {
        assert_eq!(rewrite("1 / .").unwrap(), "_jq_div(1; .)");
        assert_eq!(rewrite(".a = 1").unwrap(), "_jq_assign((.)[(\"a\")]; 1)");
        assert!(rewrite(".[] += 1").unwrap().contains("_jq_modify((.)[]; . + $__jq_upd0)"));
        assert_eq!(rewrite(".[.i]").unwrap(), "(.)[((.)[(\"i\")] | _jq_idx)]");
        assert!(rewrite(".[1:]").unwrap().contains("if . == null then . else .[$__jq_s0:] end"));
        assert_eq!(rewrite("1 +").as_deref(), None);
        assert_eq!(rewrite(".a + 1").unwrap(), "(((.)[(\"a\")]) + (1))");
        assert!(rewrite("(1,2) < (1,2)").unwrap().contains("as $__jq_r0"));
    }

    #[test]
    fn strings_keep_their_text() {
        assert_eq!(rewrite("\"a\\\"b\\n\\(1)\"").unwrap(), "(\"a\\\"b\\u000a\\(1)\")");
        assert_eq!(rewrite("@base64 \"x\"").unwrap(), "(@base64 \"x\")");
        assert_eq!(
            rewrite("\"\\(.[]) \\(.[])\"").unwrap(),
            "(((.)[]) as $__jq_i0_2 | ((.)[]) as $__jq_i0_0 | \"\\($__jq_i0_0) \\($__jq_i0_2)\")"
        );
    }
}
