//! Finding and opening the repository inside the root, and reading its objects.
//!
//! The repository is found the way git finds it, walking up from the current directory
//! to `/` (never above the root). A `.git` *file* (`gitdir: ...`), a `commondir` file and
//! `objects/info/alternates` are checked before gix sees them: each must lead to a
//! directory inside the root, or the repository is refused. In the component WASI
//! refuses anything outside the preopen anyway; natively (tests) the root is a
//! temporary directory and this check is what keeps a hostile repository in it.
//!
//! Objects are read by [`crate::odb`] (gix's pack and loose-object readers, without
//! memory mapping) and commits, tags and trees are parsed here: their formats are small
//! and stable. Every object read is capped at [`MAX_OBJECT_SIZE`].

use crate::Error;
use gix::ObjectId;
use reviewhost_tool::Ctx;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Largest object (blob, tree, commit) read into memory, in bytes: 32 MiB. A bigger one
/// is an error (`show`, `grep`) or shown as binary (`diff`, as git does past
/// `core.bigFileThreshold`), so a giant blob in a reviewed repository cannot exhaust
/// the check's memory.
pub const MAX_OBJECT_SIZE: u64 = 32 * 1024 * 1024;

/// git's default abbreviation length (`core.abbrev` is not read).
const ABBREV: usize = 7;

/// How many `alternates` files deep the containment check follows (git stops at 5).
const MAX_ALTERNATE_DEPTH: usize = 5;

/// An opened repository and where it sits in the virtual filesystem.
pub struct Repo {
    pub odb: crate::odb::Odb,
    pub refs: crate::refs::Refs,
    /// The real git directory and common directory.
    pub git_dir: PathBuf,
    pub common_dir: PathBuf,
    /// The real path of the working tree.
    pub workdir: PathBuf,
    /// The virtual path of the working tree (`/` or `/sub/project`).
    pub workdir_virtual: String,
    /// The current directory relative to the working tree, with a trailing `/` unless
    /// empty (git's "prefix").
    pub prefix: String,
    /// `core.abbrev` from `.git/config`, when it is a number.
    abbrev_config: Option<usize>,
    /// Commits already parsed.
    commits: std::cell::RefCell<HashMap<ObjectId, std::rc::Rc<Commit>>>,
}

/// A parsed commit.
#[derive(Debug, Clone)]
pub struct Commit {
    pub id: ObjectId,
    pub tree: ObjectId,
    pub parents: Vec<ObjectId>,
    pub author: Signature,
    pub committer: Signature,
    /// The message as stored (after the header's blank line).
    pub message: Vec<u8>,
}

/// `Name <email> 1234567890 +0100`.
#[derive(Debug, Clone, Default)]
pub struct Signature {
    pub name: Vec<u8>,
    pub email: Vec<u8>,
    pub time: i64,
    /// The zone as written (`+0100`).
    pub tz: String,
}

impl Signature {
    /// The zone's offset from UTC in seconds.
    pub fn offset_seconds(&self) -> i64 {
        let b = self.tz.as_bytes();
        if b.len() != 5 {
            return 0;
        }
        let sign = if b[0] == b'-' { -1 } else { 1 };
        let hh: i64 = self.tz[1..3].parse().unwrap_or(0);
        let mm: i64 = self.tz[3..5].parse().unwrap_or(0);
        sign * (hh * 3600 + mm * 60)
    }
}

/// One entry of a flattened tree, index or working tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Entry {
    pub mode: u32,
    pub id: ObjectId,
}

pub const MODE_TREE: u32 = 0o040000;
pub const MODE_LINK: u32 = 0o120000;
pub const MODE_GITLINK: u32 = 0o160000;

impl Repo {
    /// Finds the repository containing the current directory and opens it.
    pub fn discover(ctx: &Ctx) -> Result<Repo, Error> {
        let mut dir = ctx.virtual_path(".");
        loop {
            let dot_git = if dir == "/" { "/.git".to_string() } else { format!("{dir}/.git") };
            let real = ctx.real(&dot_git);
            if let Ok(meta) = std::fs::metadata(&real) {
                let git_dir = if meta.is_dir() {
                    Some(real.clone())
                } else if meta.is_file() {
                    Some(gitdir_of_file(&real)?)
                } else {
                    None
                };
                if let Some(git_dir) = git_dir {
                    let prefix = ctx.virtual_path(".")[dir.len()..].trim_start_matches('/').to_string();
                    let prefix = if prefix.is_empty() { prefix } else { format!("{prefix}/") };
                    return Repo::open(ctx, &git_dir, ctx.real(&dir), dir, prefix);
                }
            }
            if dir == "/" {
                return Err(Error::Fatal("not a git repository (or any of the parent directories): .git".into()));
            }
            dir = match dir.rfind('/') {
                Some(0) => "/".into(),
                Some(i) => dir[..i].to_string(),
                None => "/".into(),
            };
        }
    }

    fn open(
        ctx: &Ctx,
        git_dir: &Path,
        workdir: PathBuf,
        workdir_virtual: String,
        prefix: String,
    ) -> Result<Repo, Error> {
        check_inside(ctx, git_dir, "git directory")?;
        let mut common = git_dir.to_path_buf();
        if let Ok(text) = std::fs::read_to_string(git_dir.join("commondir")) {
            common = git_dir.join(text.trim_end_matches(['\n', '\r']));
            check_inside(ctx, &common, "common git directory")?;
        }
        let mut dirs = vec![common.join("objects")];
        alternates(ctx, &common.join("objects"), 0, &mut dirs)?;
        let odb = crate::odb::Odb::open(&dirs)?;
        let refs = crate::refs::Refs::open(git_dir, &common);
        let abbrev_config = core_abbrev(&common.join("config"));
        Ok(Repo {
            odb,
            refs,
            git_dir: git_dir.to_path_buf(),
            common_dir: common,
            workdir,
            workdir_virtual,
            prefix,
            abbrev_config,
            commits: Default::default(),
        })
    }

    /// The raw data of an object and its kind, refusing objects over [`MAX_OBJECT_SIZE`].
    pub fn object(&self, id: ObjectId) -> Result<(gix::object::Kind, Vec<u8>), Error> {
        if id == ObjectId::empty_tree(gix::hash::Kind::Sha1) {
            return Ok((gix::object::Kind::Tree, Vec::new()));
        }
        match self.odb.find(&id)? {
            Some((_, data)) if data.len() as u64 > MAX_OBJECT_SIZE => Err(Error::TooLarge(id)),
            Some(found) => Ok(found),
            None => Err(bad(id)),
        }
    }

    /// The size of an object.
    pub fn object_size(&self, id: ObjectId) -> Result<u64, Error> {
        match self.object(id) {
            Ok((_, data)) => Ok(data.len() as u64),
            Err(Error::TooLarge(_)) => Ok(MAX_OBJECT_SIZE + 1),
            Err(e) => Err(e),
        }
    }

    /// The commit `HEAD` is at, None on an unborn branch.
    pub fn head_id(&self) -> Option<ObjectId> {
        self.refs.resolve_full("HEAD")
    }

    /// The commit `id` names, peeling tags.
    pub fn commit(&self, id: ObjectId) -> Result<std::rc::Rc<Commit>, Error> {
        if let Some(c) = self.commits.borrow().get(&id) {
            return Ok(c.clone());
        }
        let (kind, data) = self.object(id)?;
        match kind {
            gix::object::Kind::Commit => {
                let c = std::rc::Rc::new(parse_commit(id, &data)?);
                self.commits.borrow_mut().insert(id, c.clone());
                Ok(c)
            }
            gix::object::Kind::Tag => self.commit(tag_target(&data).ok_or_else(|| bad(id))?),
            _ => Err(Error::Fatal(format!("object {id} is a {kind}, not a commit"))),
        }
    }

    /// The tree `id` names, peeling tags and commits.
    pub fn tree_of(&self, id: ObjectId) -> Result<ObjectId, Error> {
        let (kind, data) = self.object(id)?;
        match kind {
            gix::object::Kind::Tree => Ok(id),
            gix::object::Kind::Commit => Ok(parse_commit(id, &data)?.tree),
            gix::object::Kind::Tag => self.tree_of(tag_target(&data).ok_or_else(|| bad(id))?),
            _ => Err(Error::Fatal(format!("object {id} is a {kind}, not a tree"))),
        }
    }

    /// Every blob, symlink and submodule under tree `id`, by full path, in git's order.
    pub fn flatten_tree(&self, id: ObjectId) -> Result<Vec<(Vec<u8>, Entry)>, Error> {
        let mut out = Vec::new();
        self.flatten_into(id, &mut Vec::new(), &mut out)?;
        Ok(out)
    }

    fn flatten_into(&self, id: ObjectId, base: &mut Vec<u8>, out: &mut Vec<(Vec<u8>, Entry)>) -> Result<(), Error> {
        let (_, data) = self.object(id)?;
        for (name, entry) in parse_tree(id, &data)? {
            let len = base.len();
            base.extend_from_slice(&name);
            if entry.mode == MODE_TREE {
                base.push(b'/');
                self.flatten_into(entry.id, base, out)?;
            } else {
                out.push((base.clone(), entry));
            }
            base.truncate(len);
        }
        Ok(())
    }

    /// The entry at `path` (no leading `/`) in tree `tree`.
    pub fn tree_entry(&self, tree: ObjectId, path: &[u8]) -> Result<Option<Entry>, Error> {
        let mut current = Entry { mode: MODE_TREE, id: tree };
        for part in path.split(|b| *b == b'/').filter(|p| !p.is_empty()) {
            if current.mode != MODE_TREE {
                return Ok(None);
            }
            let (_, data) = self.object(current.id)?;
            match parse_tree(current.id, &data)?.into_iter().find(|(n, _)| n == part) {
                Some((_, e)) => current = e,
                None => return Ok(None),
            }
        }
        Ok(Some(current))
    }

    /// The stage-0 entries of the index, by path, in the index's order.
    pub fn index_entries(&self) -> Result<Vec<(Vec<u8>, Entry)>, Error> {
        let path = self.git_dir.join("index");
        let Ok(data) = std::fs::read(&path) else { return Ok(Vec::new()) };
        let options = gix::index::decode::Options { thread_limit: Some(1), ..Default::default() };
        let (index, _) =
            gix::index::State::from_bytes(&data, filetime::FileTime::zero(), gix::hash::Kind::Sha1, options)
                .map_err(|e| Error::Fatal(format!("index file corrupt: {e}")))?;
        let mut out = Vec::new();
        for e in index.entries() {
            if e.stage_raw() != 0 {
                continue;
            }
            out.push((e.path(&index).to_vec(), Entry { mode: e.mode.bits(), id: e.id }));
        }
        Ok(out)
    }

    /// The abbreviated id git prints for `id` (`%h`, `index` lines): the shortest unique
    /// prefix of at least `core.abbrev` (7) digits; 7 digits for an object not in the
    /// repository (a working-tree file).
    pub fn abbrev(&self, id: ObjectId) -> String {
        if id.is_null() {
            return "0000000".into();
        }
        let hex = id.to_string();
        let min = self.abbrev_len();
        if !self.odb.contains(&id) {
            return hex[..min].to_string();
        }
        let mut len = min;
        while len < hex.len() && self.odb.with_prefix(&hex[..len], 2).len() > 1 {
            len += 1;
        }
        hex[..len].to_string()
    }

    /// An id abbreviated as `--abbrev=N`/`--no-abbrev` ask: at least N digits, unique.
    pub fn abbrev_as(&self, id: ObjectId, how: crate::diff::Abbrev) -> String {
        let n = match how {
            crate::diff::Abbrev::Default => return self.abbrev(id),
            crate::diff::Abbrev::Full => return id.to_string(),
            crate::diff::Abbrev::Len(n) => n,
        };
        let hex = id.to_string();
        let mut len = n.min(hex.len());
        if !id.is_null() && self.odb.contains(&id) {
            while len < hex.len() && self.odb.with_prefix(&hex[..len], 2).len() > 1 {
                len += 1;
            }
        }
        hex[..len].to_string()
    }

    /// The least length of abbreviated ids: `core.abbrev` from the repository's config,
    /// or git's automatic length (at least 7, more for repositories with many packed
    /// objects: half the bits of the object count, in hex digits, rounded up).
    fn abbrev_len(&self) -> usize {
        if let Some(n) = self.abbrev_config {
            return n;
        }
        let count = self.odb.packed_count();
        let msb = if count == 0 { 0 } else { 63 - count.leading_zeros() as usize };
        (msb + 1).div_ceil(2).max(ABBREV)
    }

    /// Whether a name given without `--` may be a path, as git decides: it exists in the
    /// working tree (from the current directory), or it looks like a pathspec (a
    /// wildcard, or pathspec magic).
    pub fn may_be_path(&self, name: &str) -> bool {
        name.contains(['*', '?', '['])
            || name.starts_with(':')
            || self.work_path(format!("{}{name}", self.prefix).as_bytes()).exists()
    }

    /// The real path of `rel` (relative to the working tree).
    pub fn work_path(&self, rel: &[u8]) -> PathBuf {
        self.workdir.join(String::from_utf8_lossy(rel).as_ref())
    }
}

/// `core.abbrev` in a config file: a number from 4 to 40 (`auto` and anything else
/// leave git's default).
fn core_abbrev(config: &Path) -> Option<usize> {
    let text = std::fs::read_to_string(config).ok()?;
    let mut in_core = false;
    let mut found = None;
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_core = line.trim_start_matches('[').trim_end_matches(']').trim().eq_ignore_ascii_case("core");
            continue;
        }
        if in_core
            && let Some((key, value)) = line.split_once('=')
            && key.trim().eq_ignore_ascii_case("abbrev")
        {
            found = value.trim().parse::<usize>().ok().map(|n| n.clamp(4, 40));
        }
    }
    found
}

fn bad(id: ObjectId) -> Error {
    Error::Fatal(format!("bad object {id}"))
}

/// The git directory a `.git` file names (`gitdir: PATH`, relative to the file's
/// directory).
fn gitdir_of_file(file: &Path) -> Result<PathBuf, Error> {
    let text = std::fs::read_to_string(file)
        .map_err(|_| Error::Fatal(format!("invalid gitfile format: {}", file.display())))?;
    let Some(target) = text.strip_prefix("gitdir: ") else {
        return Err(Error::Fatal(format!("invalid gitfile format: {}", file.display())));
    };
    let target = target.trim_end_matches(['\n', '\r']);
    let base = file.parent().unwrap_or(Path::new("/"));
    Ok(base.join(target))
}

/// Refuses `path` when it resolves outside the root.
fn check_inside(ctx: &Ctx, path: &Path, what: &str) -> Result<(), Error> {
    if cfg!(target_arch = "wasm32") {
        // The root is `/`: everything WASI lets us open is inside it.
        return Ok(());
    }
    let refuse = || Error::Fatal(format!("refusing {what} outside the root: {}", path.display()));
    let root = std::fs::canonicalize(&ctx.root).map_err(|_| refuse())?;
    match std::fs::canonicalize(path) {
        Ok(real) if real.starts_with(&root) => Ok(()),
        Ok(_) => Err(refuse()),
        // A path that does not exist cannot be read outside either, but a lexical
        // escape still says what the repository tried.
        Err(_) if path.is_absolute() && !path.starts_with(&ctx.root) => Err(refuse()),
        Err(_) => Ok(()),
    }
}

/// The object directories `objects/info/alternates` lists, refusing those outside the
/// root.
fn alternates(ctx: &Ctx, objects: &Path, depth: usize, out: &mut Vec<PathBuf>) -> Result<(), Error> {
    let Ok(text) = std::fs::read_to_string(objects.join("info/alternates")) else { return Ok(()) };
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let alt = objects.join(line);
        check_inside(ctx, &alt, "alternate object directory")?;
        if !out.contains(&alt) {
            out.push(alt.clone());
            if depth < MAX_ALTERNATE_DEPTH {
                alternates(ctx, &alt, depth + 1, out)?;
            }
        }
    }
    Ok(())
}

/// The object a tag points at.
fn tag_target(data: &[u8]) -> Option<ObjectId> {
    let rest = data.strip_prefix(b"object ")?;
    ObjectId::from_hex(rest.get(..40)?).ok()
}

pub fn parse_commit(id: ObjectId, data: &[u8]) -> Result<Commit, Error> {
    let mut c = Commit {
        id,
        tree: ObjectId::null(gix::hash::Kind::Sha1),
        parents: Vec::new(),
        author: Signature::default(),
        committer: Signature::default(),
        message: Vec::new(),
    };
    let mut pos = 0;
    while pos < data.len() {
        let end = data[pos..].iter().position(|b| *b == b'\n').map_or(data.len(), |i| pos + i);
        let line = &data[pos..end];
        pos = end + 1;
        if line.is_empty() {
            c.message = data.get(pos..).unwrap_or_default().to_vec();
            break;
        }
        if let Some(h) = line.strip_prefix(b"tree ") {
            c.tree = ObjectId::from_hex(h).map_err(|_| bad(id))?;
        } else if let Some(h) = line.strip_prefix(b"parent ") {
            c.parents.push(ObjectId::from_hex(h).map_err(|_| bad(id))?);
        } else if let Some(s) = line.strip_prefix(b"author ") {
            c.author = parse_signature(s);
        } else if let Some(s) = line.strip_prefix(b"committer ") {
            c.committer = parse_signature(s);
        }
    }
    Ok(c)
}

pub fn parse_signature(s: &[u8]) -> Signature {
    let lt = s.iter().position(|b| *b == b'<');
    let gt = s.iter().rposition(|b| *b == b'>');
    let (Some(lt), Some(gt)) = (lt, gt) else {
        return Signature { name: s.to_vec(), ..Default::default() };
    };
    let name = s[..lt].strip_suffix(b" ").unwrap_or(&s[..lt]).to_vec();
    let email = s.get(lt + 1..gt).unwrap_or_default().to_vec();
    let rest = String::from_utf8_lossy(s.get(gt + 1..).unwrap_or_default()).to_string();
    let mut parts = rest.split_whitespace();
    let time = parts.next().and_then(|t| t.parse().ok()).unwrap_or(0);
    let tz = parts.next().unwrap_or("+0000").to_string();
    Signature { name, email, time, tz }
}

/// A tree's entries as stored: `MODE NAME\0<20-byte id>`.
pub fn parse_tree(id: ObjectId, data: &[u8]) -> Result<Vec<(Vec<u8>, Entry)>, Error> {
    let mut out = Vec::new();
    let mut pos = 0;
    while pos < data.len() {
        let sp = data[pos..].iter().position(|b| *b == b' ').ok_or_else(|| bad(id))? + pos;
        let nul = data[sp..].iter().position(|b| *b == 0).ok_or_else(|| bad(id))? + sp;
        let mode =
            u32::from_str_radix(std::str::from_utf8(&data[pos..sp]).map_err(|_| bad(id))?, 8).map_err(|_| bad(id))?;
        let raw = data.get(nul + 1..nul + 21).ok_or_else(|| bad(id))?;
        let mode = match mode {
            0o040000 => MODE_TREE,
            0o120000 => MODE_LINK,
            0o160000 => MODE_GITLINK,
            m if m & 0o111 != 0 => 0o100755,
            _ => 0o100644,
        };
        out.push((data[sp + 1..nul].to_vec(), Entry { mode, id: ObjectId::from_bytes_or_panic(raw) }));
        pos = nul + 21;
    }
    Ok(out)
}
