//! The small Unix tools as pure functions for the sandboxed shell interpreter: `true`,
//! `false`, `echo`, `printf`, `test`/`[`, `cat`, `head`, `tail`, `wc`, `sort`, `uniq`,
//! `cut`, `tr`, `ls`, `find`, `basename`, `dirname`, `tee` (to stdout and `/dev/null`),
//! `sed` (its read-only uses) and `jq`; and [`xargs`]'s reading of its options and input,
//! for the interpreter that runs the command lines.
//!
//! Each tool follows GNU coreutils 9.x / findutils 4.9 as observed with `LC_ALL=C.UTF-8`
//! and stdout not a terminal (the bash builtins for `echo`, `printf`, `test`, `true` and
//! `false`), because LLM-written checks are written against those tools. The differences
//! that remain are listed in each module's note.
//!
//! What is deliberately left out everywhere: writing files (`sort -o`, `uniq IN OUT`,
//! `find -delete`, `-exec`), following input that never ends (`tail -f`), and opening
//! special files (a FIFO would block the sandbox forever): those are refused with an error.

mod builtins;
mod cat;
mod common;
mod cut;
mod find;
mod head_tail;
mod jq;
mod ls;
mod paths;
mod printf;
mod sed;
mod sort;
mod tee;
mod test;
mod tr;
mod uniq;
mod wc;
pub mod xargs;

use reviewhost_tool::Program;

pub use builtins::{echo, r#false, r#true};
pub use cat::cat;
pub use cut::cut;
pub use find::find;
pub use head_tail::{head, tail};
pub use jq::jq;
pub use ls::ls;
pub use paths::{basename, dirname};
pub use printf::printf;
pub use sed::sed;
pub use sort::sort;
pub use tee::tee;
pub use test::{Variables, bracket, compare_integers, test, test_with_variables};
pub use tr::tr;
pub use uniq::uniq;
pub use wc::wc;

/// The program called `name`, if this crate provides it.
pub fn lookup(name: &str) -> Option<Program> {
    let program: Program = match name {
        "true" => r#true,
        "false" => r#false,
        "echo" => echo,
        "printf" => printf,
        "test" => test,
        "[" => bracket,
        "cat" => cat,
        "head" => head,
        "tail" => tail,
        "wc" => wc,
        "sort" => sort,
        "uniq" => uniq,
        "cut" => cut,
        "tr" => tr,
        "ls" => ls,
        "find" => find,
        "basename" => basename,
        "dirname" => dirname,
        "tee" => tee,
        "sed" => sed,
        "jq" => jq,
        _ => return None,
    };
    Some(program)
}
