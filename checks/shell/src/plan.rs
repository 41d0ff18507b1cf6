//! [`Mode::Plan`](reviewhost_protocol::Mode::Plan): the searches a command makes, found
//! without running it, for the run's shared first pass over the files they read.
//!
//! Only what the words say literally: a search whose pattern or paths come from an
//! expansion is not planned, and then reads its files as without a pass. A plan that
//! is wrong costs speed, never a verdict: the pass only answers for files it read and
//! literals it looked for, and a search asks with its own, from its own command line.

use reviewhost_protocol::SearchPlan;
use reviewhost_tool::Ctx;

use crate::lint::visit;
use crate::parse::Script;

/// The searches of `script`, their paths made absolute from the directory each runs in
/// (a literal `cd DIR` before it moves it).
pub fn searches(script: &Script, ctx: &Ctx) -> Vec<SearchPlan> {
    let mut ctx = ctx.clone();
    let mut plans = Vec::new();
    visit(script, &mut |words| {
        let Some((name, args)) = words.split_first() else { return };
        if name == "cd" {
            if let [dir] = args {
                ctx.cwd = ctx.virtual_path(dir);
            }
            return;
        }
        if let Some(search) = reviewhost_grep::search_plan(name, args) {
            let scopes = search.scopes.iter().map(|scope| ctx.virtual_path(scope)).collect();
            plans.push(SearchPlan { needles: search.needles.as_slice().to_vec(), scopes });
        }
    });
    plans
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plans(command: &str) -> Vec<(Vec<String>, Vec<String>)> {
        let script = crate::parse::parse(command).unwrap();
        searches(&script, &Ctx::new("/")).into_iter().map(|p| (p.needles, p.scopes)).collect()
    }

    #[test]
    fn the_searches_of_a_command_and_where_they_look() {
        assert_eq!(
            plans("grep -rn 'MockConnection' src/ | head -5"),
            [(vec!["MockConnection".into()], vec!["/src".into()])]
        );
        assert_eq!(plans("cd web && rg -l 'fetchUser' ."), [(vec!["fetchUser".into()], vec!["/web".into()])]);
        assert_eq!(
            plans("grep -rnE 'todo!\\(|unimplemented!\\(' lib"),
            [(vec!["todo!(".into(), "unimplemented!(".into()], vec!["/lib".into()])]
        );
        assert_eq!(plans("rg -F 'a.b()' x.rs y.rs").len(), 1);
    }

    #[test]
    fn searches_without_needles_or_files_are_not_planned() {
        for command in [
            "grep -rv 'TODO' src/",
            "rg -v TODO",
            "cat a | grep 'needle'",
            "grep -r '.*' src",
            "grep -rf patterns.txt src",
            "rg --files src",
            "grep -r \"$X\" src",
            "ls src",
        ] {
            assert!(plans(command).is_empty(), "{command}");
        }
    }
}
