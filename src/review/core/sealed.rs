//! The state files reviewhost reads back from `.reviewhost/`, authenticated.
//!
//! `.reviewhost/` lies in the reviewed repository, so whatever is in it may have been
//! written by the repository: a `plan-review-state.json` recording an approval with the
//! plan's real SHA-256, a `plan-gate-state.json` waiting for a decision, a `state.json`
//! to resume. A state file stands for something reviewhost or a person decided only if
//! it carries a MAC that this user's reviewhost made for this file of this repository:
//!
//! - the key ([`StateKey`]) is derived, with BLAKE3's `derive_key` under [`CONTEXT`],
//!   from the per-user secret that authenticates the compiled-component cache
//!   ([`CacheKey`]: random, kept in the user's data directory, never in a repository,
//!   and refused when it lies inside the reviewed root). Only this user's reviewhost
//!   can make a MAC, and a cache entry's MAC (keyed with the secret itself) cannot stand
//!   for a state file's, nor the other way round;
//! - the MAC covers the file's name, the canonical path of the root and the state's
//!   exact bytes: a state file copied from another repository, another user or another
//!   state file's name is foreign;
//! - the file stays the state's JSON, readable as before, with the MAC as its first
//!   member: `{\n  "reviewhost_mac": "<64 hex digits>",\n` followed, byte for byte, by the
//!   state as written (pretty JSON and a newline) from its third byte on. Reading takes
//!   off exactly that first line, puts back the `{\n` it replaced, checks the MAC over
//!   those bytes and parses those same bytes: nothing is re-serialized before it is
//!   checked, so what is checked is what is used.
//!
//! A file without that first line, with another MAC, or written for another root or
//! name is refused ([`Unsealed`]), never read as state, never counted as an approval.

use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use crate::sandbox::{CacheKey, RootDir};

/// The member of a state file that holds its MAC.
pub const MAC_MEMBER: &str = "reviewhost_mac";

/// What the state key is derived under: names this use of the per-user secret, and the
/// layout of the bytes the MAC covers (versioned with it).
pub const CONTEXT: &str = "reviewhost 2026-01 .reviewhost state file MAC v1";

/// The first bytes of a state file up to its MAC's hex digits.
const OPENING: &[u8] = b"{\n  \"reviewhost_mac\": \"";
/// What follows the MAC on its line.
const CLOSING: &[u8] = b"\",\n";
/// The bytes the MAC line stands in for: the start of the state's own pretty JSON.
const REPLACED: &[u8] = b"{\n";
const HEX_LEN: usize = 2 * blake3::OUT_LEN;

/// The key that authenticates state files.
pub struct StateKey([u8; blake3::KEY_LEN]);

impl std::fmt::Debug for StateKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StateKey(..)")
    }
}

/// Why a state file is not read as state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Unsealed {
    /// It does not begin with a MAC line: not written by reviewhost with this format.
    #[error("it carries no reviewhost MAC")]
    NoMac,
    /// Its MAC is not the one this user's key gives its content under its name and root.
    #[error(
        "its MAC does not match (it was changed since, or made with another user's key, for another \
         repository or for another file)"
    )]
    WrongMac,
}

impl StateKey {
    /// The state key derived from the per-user `secret`.
    pub fn new(secret: &CacheKey) -> StateKey {
        StateKey(secret.derive(CONTEXT))
    }

    /// The user's state key: the secret at [`CacheKey::default_path`], made if there is
    /// none. `Err` says why there is none to use, among them a secret inside `root`
    /// (the repository could have shipped it).
    pub fn for_root(root: &Path) -> Result<StateKey, String> {
        let path = CacheKey::default_path().ok_or_else(|| {
            "there is no data directory to keep the per-user key in (set REVIEWHOST_CACHE_KEY to a file \
             outside the repository)"
                .to_string()
        })?;
        let root = RootDir::new(root).map_err(|e| format!("{}: {e}", root.display()))?;
        if root.contains(&path) {
            return Err(format!(
                "the per-user key {} is inside the reviewed root {}, where the repository could have put one",
                path.display(),
                root.path().display()
            ));
        }
        let secret =
            CacheKey::load_or_create(&path).map_err(|e| format!("the per-user key {}: {e}", path.display()))?;
        Ok(StateKey::new(&secret))
    }

    /// The MAC of `body`, the state file `name` of the root `root` (canonical).
    fn mac(&self, name: &str, root: &Path, body: &[u8]) -> blake3::Hash {
        let mut hasher = blake3::Hasher::new_keyed(&self.0);
        for part in [name.as_bytes(), root.as_os_str().as_bytes()] {
            hasher.update(&(part.len() as u64).to_le_bytes()).update(part);
        }
        hasher.update(body);
        hasher.finalize()
    }

    /// The file to write for the state `body` (pretty JSON of an object with at least
    /// one member, as `serde_json::to_vec_pretty` writes a state struct); `None` for
    /// anything else.
    pub fn seal(&self, name: &str, root: &Path, body: &[u8]) -> Option<Vec<u8>> {
        let rest = body.strip_prefix(REPLACED)?;
        let mac = self.mac(name, root, body).to_hex();
        let mut file = Vec::with_capacity(OPENING.len() + HEX_LEN + CLOSING.len() + rest.len());
        file.extend_from_slice(OPENING);
        file.extend_from_slice(mac.as_bytes());
        file.extend_from_slice(CLOSING);
        file.extend_from_slice(rest);
        Some(file)
    }

    /// The state bytes of `file`, the state file `name` of the root `root` (canonical),
    /// when its MAC is this key's over them.
    pub fn open(&self, name: &str, root: &Path, file: &[u8]) -> Result<Vec<u8>, Unsealed> {
        let rest = file.strip_prefix(OPENING).ok_or(Unsealed::NoMac)?;
        let (hex, rest) = rest.split_at_checked(HEX_LEN).ok_or(Unsealed::NoMac)?;
        let rest = rest.strip_prefix(CLOSING).ok_or(Unsealed::NoMac)?;
        let claimed = blake3::Hash::from_hex(hex).map_err(|_| Unsealed::NoMac)?;
        let mut body = Vec::with_capacity(REPLACED.len() + rest.len());
        body.extend_from_slice(REPLACED);
        body.extend_from_slice(rest);
        // blake3::Hash's equality is constant-time.
        if self.mac(name, root, &body) != claimed {
            return Err(Unsealed::WrongMac);
        }
        Ok(body)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(path: &Path) -> StateKey {
        StateKey::new(&CacheKey::load_or_create(path).unwrap())
    }

    #[test]
    fn a_sealed_state_opens_only_under_its_key_name_and_root() {
        let dir = tempfile::tempdir().unwrap();
        let (mine, theirs) = (key(&dir.path().join("a.key")), key(&dir.path().join("b.key")));
        let body = serde_json::to_vec_pretty(&serde_json::json!({"version": 1, "cost": 0.1 + 0.2})).unwrap();
        let body = [body, b"\n".to_vec()].concat();
        let root = Path::new("/home/u/repo");
        let file = mine.seal("s.json", root, &body).unwrap();
        // Still the state's JSON, with the MAC as one more member.
        let value: serde_json::Value = serde_json::from_slice(&file).unwrap();
        assert_eq!(value["version"], 1);
        assert_eq!(value[MAC_MEMBER].as_str().unwrap().len(), HEX_LEN);
        assert_eq!(mine.open("s.json", root, &file).unwrap(), body);
        assert_eq!(theirs.open("s.json", root, &file), Err(Unsealed::WrongMac), "another user's key");
        assert_eq!(mine.open("t.json", root, &file), Err(Unsealed::WrongMac), "another file's name");
        assert_eq!(mine.open("s.json", Path::new("/home/u/other"), &file), Err(Unsealed::WrongMac));
        let mut changed = file.clone();
        *changed.iter_mut().rev().find(|b| **b == b'1').unwrap() = b'2';
        assert_eq!(mine.open("s.json", root, &changed), Err(Unsealed::WrongMac));
        assert_eq!(mine.open("s.json", root, &body), Err(Unsealed::NoMac), "a state without a MAC");
        assert_eq!(mine.open("s.json", root, &file[..OPENING.len() + 10]), Err(Unsealed::NoMac));
        assert!(mine.seal("s.json", root, b"{}").is_none());
    }

    /// The state key is not the cache's: the same secret, another BLAKE3 mode.
    #[test]
    fn the_state_key_is_derived_not_the_secret() {
        let dir = tempfile::tempdir().unwrap();
        let secret = CacheKey::load_or_create(&dir.path().join("k")).unwrap();
        let key = StateKey::new(&secret);
        assert_ne!(key.0, secret.derive("another use"));
        assert_eq!(key.0, StateKey::new(&secret).0);
    }
}
