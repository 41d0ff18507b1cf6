//! Revisions: naming one object (`HEAD~2`, `main^2`, `abc1234`, `v1^{tree}`), and
//! walking the commits of a range (`A..B`, `B ^A`, `A...B`) in git's default order.
//!
//! Single names follow git's rules: a full id, a ref by git's search order
//! (`HEAD`, `refs/NAME`, tags, branches, remotes), an abbreviated id of at least 4
//! digits, then suffixes `~N`, `^N`, `^{}`, `^{commit}`, `^{tree}`, and `REV:path`.
//! Reflog names (`@{1}`, `main@{yesterday}`) and `:/text` searches name nothing here
//! (an "unknown revision" error). Ranges are split by the commands, because what they
//! mean depends on the command.
//!
//! The walk is git's default (not `--topo-order`): commits come newest committer date
//! first, ties in the order they were reached, and the commits reachable from a
//! negative revision are left out.

use crate::Error;
use crate::repo::Repo;
use gix::ObjectId;
use std::collections::{BinaryHeap, HashSet};

/// Git's words for a name that is neither a revision nor a path.
pub fn unknown_revision(arg: &str) -> Error {
    Error::Fatal(format!(
        "ambiguous argument '{arg}': unknown revision or path not in the working tree.\n\
         Use '--' to separate paths from revisions, like this:\n\
         'git <command> [<revision>...] -- [<file>...]'"
    ))
}

/// The object `spec` names, or None when it names nothing.
pub fn resolve(repo: &Repo, spec: &str) -> Option<ObjectId> {
    if spec.is_empty() || spec.contains("..") || spec.contains("@{") {
        return None;
    }
    if let Some((rev, path)) = spec.split_once(':') {
        let path = path.strip_prefix("./").map(|p| format!("{}{p}", repo.prefix)).unwrap_or_else(|| path.to_string());
        if rev.is_empty() {
            return repo.index_entries().ok()?.into_iter().find(|(p, _)| p == path.as_bytes()).map(|(_, e)| e.id);
        }
        let tree = repo.tree_of(resolve(repo, rev)?).ok()?;
        return repo.tree_entry(tree, path.as_bytes()).ok()?.map(|e| e.id);
    }
    let end = spec.find(['~', '^']).unwrap_or(spec.len());
    let (base, mut rest) = spec.split_at(end);
    let mut id = resolve_base(repo, base)?;
    while !rest.is_empty() {
        let op = rest.as_bytes()[0];
        let r = &rest[1..];
        if op == b'^'
            && let Some(inner) = r.strip_prefix('{')
        {
            let close = inner.find('}')?;
            rest = &inner[close + 1..];
            id = match &inner[..close] {
                "" => peel_tags(repo, id)?,
                "commit" => repo.commit(id).ok()?.id,
                "tree" => repo.tree_of(id).ok()?,
                "object" => id,
                "blob" => Some(peel_tags(repo, id)?)
                    .filter(|i| repo.object(*i).is_ok_and(|(k, _)| k == gix::object::Kind::Blob))?,
                _ => return None,
            };
            continue;
        }
        let digits = r.bytes().take_while(u8::is_ascii_digit).count();
        let n: usize = if digits == 0 { 1 } else { r[..digits].parse().ok()? };
        rest = &r[digits..];
        let mut commit = repo.commit(id).ok()?;
        if op == b'~' {
            for _ in 0..n {
                let parent = *commit.parents.first()?;
                commit = repo.commit(parent).ok()?;
            }
            id = commit.id;
        } else {
            id = if n == 0 { commit.id } else { *commit.parents.get(n - 1)? };
        }
    }
    Some(id)
}

/// The object a name without suffixes names.
fn resolve_base(repo: &Repo, base: &str) -> Option<ObjectId> {
    let base = if base == "@" { "HEAD" } else { base };
    if base.len() == 40
        && let Ok(id) = ObjectId::from_hex(base.as_bytes())
    {
        return Some(id);
    }
    if let Some((_, id)) = repo.refs.dwim(base) {
        return Some(id);
    }
    if (4..40).contains(&base.len()) && base.bytes().all(|b| b.is_ascii_hexdigit()) {
        let found = repo.odb.with_prefix(&base.to_ascii_lowercase(), 2);
        if let [one] = found[..] {
            return Some(one);
        }
    }
    None
}

/// `id` with annotated tags peeled off.
fn peel_tags(repo: &Repo, mut id: ObjectId) -> Option<ObjectId> {
    for _ in 0..16 {
        let (kind, data) = repo.object(id).ok()?;
        if kind != gix::object::Kind::Tag {
            return Some(id);
        }
        id = ObjectId::from_hex(data.strip_prefix(b"object ")?.get(..40)?).ok()?;
    }
    None
}

/// A commit-ish `spec`, peeled to its commit.
pub fn resolve_commit(repo: &Repo, spec: &str) -> Result<ObjectId, Error> {
    let id = resolve(repo, spec).ok_or_else(|| unknown_revision(spec))?;
    Ok(repo.commit(id)?.id)
}

/// The revisions of a command line, as git's `setup_revisions` collects them.
#[derive(Debug, Default, Clone)]
pub struct RevSet {
    pub include: Vec<ObjectId>,
    pub exclude: Vec<ObjectId>,
}

impl RevSet {
    /// Adds one argument: `A..B`, `A...B`, `^A` or `A`. Returns false when the argument
    /// is not a revision (it may then be a path).
    pub fn add(&mut self, repo: &Repo, arg: &str) -> Result<bool, Error> {
        if let Some(neg) = arg.strip_prefix('^') {
            return match resolve(repo, neg) {
                Some(id) => {
                    self.exclude.push(repo.commit(id)?.id);
                    Ok(true)
                }
                None => Ok(false),
            };
        }
        if let Some((a, b)) = arg.split_once("...") {
            let a = if a.is_empty() { "HEAD" } else { a };
            let b = if b.is_empty() { "HEAD" } else { b };
            let (Some(a), Some(b)) = (resolve(repo, a), resolve(repo, b)) else { return Ok(false) };
            let (a, b) = (repo.commit(a)?.id, repo.commit(b)?.id);
            self.include.push(a);
            self.include.push(b);
            self.exclude.extend(merge_bases(repo, a, b)?);
            return Ok(true);
        }
        if let Some((a, b)) = arg.split_once("..") {
            let a = if a.is_empty() { "HEAD" } else { a };
            let b = if b.is_empty() { "HEAD" } else { b };
            let (Some(a), Some(b)) = (resolve(repo, a), resolve(repo, b)) else { return Ok(false) };
            self.exclude.push(repo.commit(a)?.id);
            self.include.push(repo.commit(b)?.id);
            return Ok(true);
        }
        match resolve(repo, arg) {
            Some(id) => {
                self.include.push(repo.commit(id)?.id);
                Ok(true)
            }
            None => Ok(false),
        }
    }
}

/// The best common ancestors of `a` and `b` (none of them an ancestor of another),
/// newest committer date first.
pub fn merge_bases(repo: &Repo, a: ObjectId, b: ObjectId) -> Result<Vec<ObjectId>, Error> {
    let of_a = ancestors(repo, &[a])?;
    let of_b = ancestors(repo, &[b])?;
    let common: Vec<ObjectId> = of_a.iter().filter(|c| of_b.contains(*c)).copied().collect();
    let mut parents = Vec::new();
    for c in &common {
        parents.extend(repo.commit(*c)?.parents.iter().copied());
    }
    let below = ancestors(repo, &parents)?;
    let mut best: Vec<ObjectId> = common.into_iter().filter(|c| !below.contains(c)).collect();
    let mut dated = Vec::new();
    for id in best.drain(..) {
        dated.push((repo.commit(id)?.committer.time, id));
    }
    dated.sort_by(|x, y| y.cmp(x));
    Ok(dated.into_iter().map(|(_, id)| id).collect())
}

/// Every commit reachable from `tips`, themselves included.
fn ancestors(repo: &Repo, tips: &[ObjectId]) -> Result<HashSet<ObjectId>, Error> {
    let mut seen = HashSet::new();
    let mut stack = tips.to_vec();
    while let Some(id) = stack.pop() {
        if seen.insert(id) {
            stack.extend(repo.commit(id)?.parents.iter().copied());
        }
    }
    Ok(seen)
}

/// Commits in git's default log order: from the included tips, without those
/// reachable from an excluded one. `parents_of` chooses which parents are followed
/// (history simplification for `log -- paths`).
pub struct Walk<'r> {
    repo: &'r Repo,
    queue: BinaryHeap<(i64, std::cmp::Reverse<u64>, ObjectId)>,
    seen: HashSet<ObjectId>,
    hidden: HashSet<ObjectId>,
    counter: u64,
}

impl<'r> Walk<'r> {
    pub fn new(repo: &'r Repo, revs: &RevSet) -> Result<Walk<'r>, Error> {
        let mut hidden = HashSet::new();
        let mut stack: Vec<ObjectId> = revs.exclude.clone();
        while let Some(id) = stack.pop() {
            if hidden.insert(id) {
                stack.extend(repo.commit(id)?.parents.iter().copied());
            }
        }
        let mut walk = Walk { repo, queue: BinaryHeap::new(), seen: HashSet::new(), hidden, counter: 0 };
        for &id in &revs.include {
            walk.push(id)?;
        }
        Ok(walk)
    }

    fn push(&mut self, id: ObjectId) -> Result<(), Error> {
        if self.hidden.contains(&id) || !self.seen.insert(id) {
            return Ok(());
        }
        let time = self.repo.commit(id)?.committer.time;
        self.counter += 1;
        self.queue.push((time, std::cmp::Reverse(self.counter), id));
        Ok(())
    }

    /// The next commit; `follow` gives the parents to continue with (all of them, or the
    /// one a simplified merge is the same as).
    pub fn next_with(
        &mut self,
        follow: &mut dyn FnMut(&crate::repo::Commit) -> Result<Vec<ObjectId>, Error>,
    ) -> Result<Option<std::rc::Rc<crate::repo::Commit>>, Error> {
        let Some((_, _, id)) = self.queue.pop() else { return Ok(None) };
        let commit = self.repo.commit(id)?;
        for parent in follow(&commit)? {
            self.push(parent)?;
        }
        Ok(Some(commit))
    }
}
