//! The private, per-user cache of compiled components.
//!
//! A Cranelift compile costs about a second per component; a cached artifact loads in a
//! few milliseconds. Deserializing compiled code is as trusted as running native code,
//! so the cache loads only what it wrote itself:
//!
//! - its directory is created `0700` and used only when it is owned by the current user
//!   and writable by nobody else (otherwise the cache is skipped, with a warning); a
//!   cache directory inside the reviewed root is never used (`reviewhost` refuses it
//!   before opening, see `main.rs`), since the repository could ship entries;
//! - the file name is chosen by the host (hash of the component and of the engine's
//!   compilation settings), never by anything an assertions file says;
//! - each entry carries a MAC: BLAKE3 keyed with a per-user secret ([`CacheKey`],
//!   random, kept in the user's data directory, outside the cache and outside any
//!   repository), over the entry's name and payload, checked before deserializing. An
//!   entry anyone else wrote, an entry renamed from another component, a corrupt or
//!   truncated one: all are recompiled, never loaded. A checksum would only have caught
//!   corruption: a checkout is the user's own and may hold an entry with a valid one.
//!   (BLAKE3 rather than HMAC-SHA-256: the shell check's entry is 13 MiB, and hashing it
//!   with SHA-256 was a fifth of a warm run's start-up.) Entries are mapped, not read,
//!   so the payload is not copied before wasmtime copies it into executable memory.
//!
//! Entries are written to a temporary file and renamed into place, so concurrent runs
//! never see half an entry.
//!
//! The cache is bounded: a Python or JavaScript validator's entry is 35-40 MiB, and
//! every rebuild of one is a new component (their builds are not byte-reproducible), so
//! an unbounded cache grows by that much per build. Each use of an entry marks it used
//! (its modification time); after an entry is written, the least recently used ones are
//! removed until the entries take at most [`Cache::max_size`] bytes
//! (`REVIEWHOST_CACHE_SIZE`, default [`DEFAULT_MAX_SIZE`]; `0` turns the cache off). The entry just written is
//! never removed, so one component larger than the cap is still cached until the next.

use std::hash::{Hash, Hasher};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use wasmtime::Engine;
use wasmtime::component::Component;

/// First bytes of every cache entry, versioned with the entry layout.
const MAGIC: &[u8; 8] = b"RVHCWSM3";
const DIGEST_LEN: usize = 32;

/// Where compiled components are kept.
#[derive(Debug, Clone)]
pub struct Cache {
    dir: PathBuf,
    key: CacheKey,
    max_size: u64,
}

/// The default bound of the cache's entries, in bytes: room for a dozen interpreter-based
/// validators (35-40 MiB each) besides Rust ones (1-5 MiB).
pub const DEFAULT_MAX_SIZE: u64 = 512 << 20;

/// The extension of cache entries; nothing else in the directory is ever removed.
const ENTRY_EXTENSION: &str = "cwasm";

/// The secret that authenticates cache entries: 32 random bytes in a file only the
/// user can read, created on first use.
#[derive(Clone)]
pub struct CacheKey([u8; blake3::KEY_LEN]);

impl std::fmt::Debug for CacheKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CacheKey(..)")
    }
}

impl CacheKey {
    /// `$REVIEWHOST_CACHE_KEY` (a file path), else the user's data directory +
    /// `reviewhost/cache.key`.
    pub fn default_path() -> Option<PathBuf> {
        match std::env::var_os("REVIEWHOST_CACHE_KEY") {
            Some(path) if !path.is_empty() => Some(PathBuf::from(path)),
            _ => dirs::data_local_dir().map(|d| d.join("reviewhost").join("cache.key")),
        }
    }

    /// The key at `path`, made if there is none. The file must be a regular file (not
    /// a symlink) owned by the user and readable by nobody else; its directory is made
    /// `0700`.
    pub fn load_or_create(path: &Path) -> io::Result<CacheKey> {
        if let Some(parent) = path.parent() {
            create_private_dir(parent)?;
        }
        match read_key(path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            other => return other,
        }
        let mut key = [0u8; blake3::KEY_LEN];
        fill_random(&mut key)?;
        let mut tmp = tempfile::Builder::new().prefix(".cache.key.").tempfile_in(crate::write::parent_dir(path))?;
        tmp.write_all(hex(&key).as_bytes())?;
        tmp.as_file().sync_all()?;
        // Another run may have made one meanwhile: theirs stands, and is read back.
        let _ = tmp.persist_noclobber(path);
        read_key(path)
    }

    /// A key for another use of the same secret: BLAKE3's `derive_key` under `context`
    /// (a string naming that use, fixed in the code). The cache keys its MACs with the
    /// secret itself, in BLAKE3's keyed mode, so a MAC made under a derived key can
    /// never stand for a cache entry's, nor one use's for another's.
    pub fn derive(&self, context: &str) -> [u8; blake3::KEY_LEN] {
        blake3::derive_key(context, &self.0)
    }
}

/// The key in `path`: 64 hex digits, in a private regular file that is not a symlink.
fn read_key(path: &Path) -> io::Result<CacheKey> {
    use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)?;
    let meta = file.metadata()?;
    let denied = |why: &str| io::Error::new(io::ErrorKind::PermissionDenied, format!("{}: {why}", path.display()));
    if !meta.is_file() {
        return Err(denied("not a regular file"));
    }
    // SAFETY: geteuid has no preconditions and cannot fail.
    if meta.uid() != unsafe { libc::geteuid() } {
        return Err(denied("owned by another user"));
    }
    if meta.mode() & 0o077 != 0 {
        return Err(denied("readable or writable by group or others"));
    }
    let mut text = String::new();
    io::Read::read_to_string(&mut io::Read::take(&file, 128), &mut text)?;
    let text = text.trim();
    let mut key = [0u8; blake3::KEY_LEN];
    if text.len() != 2 * key.len() {
        return Err(denied("not a reviewhost cache key"));
    }
    for (byte, pair) in key.iter_mut().zip(text.as_bytes().chunks(2)) {
        let pair = std::str::from_utf8(pair).map_err(|_| denied("not a reviewhost cache key"))?;
        *byte = u8::from_str_radix(pair, 16).map_err(|_| denied("not a reviewhost cache key"))?;
    }
    Ok(CacheKey(key))
}

/// Fills `bytes` from the kernel's random source.
fn fill_random(bytes: &mut [u8]) -> io::Result<()> {
    let mut filled = 0;
    while filled < bytes.len() {
        let rest = &mut bytes[filled..];
        // SAFETY: writes at most `rest.len()` bytes into `rest`.
        let n = unsafe { libc::getrandom(rest.as_mut_ptr().cast(), rest.len(), 0) };
        if n < 0 {
            let error = io::Error::last_os_error();
            if error.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(error);
        }
        filled += n as usize;
    }
    Ok(())
}

impl Cache {
    /// The cache at `dir`, created if needed, with entries authenticated by `key`.
    /// `Err` says why it cannot be trusted.
    pub fn open(dir: &Path, key: CacheKey) -> io::Result<Cache> {
        create_private_dir(dir)?;
        check_private(dir)?;
        Ok(Cache { dir: dir.to_path_buf(), key, max_size: DEFAULT_MAX_SIZE })
    }

    /// This cache, keeping at most `bytes` of entries.
    pub fn with_max_size(mut self, bytes: u64) -> Cache {
        self.max_size = bytes;
        self
    }

    /// The most bytes of entries kept.
    pub fn max_size(&self) -> u64 {
        self.max_size
    }

    /// `$REVIEWHOST_CACHE_SIZE` (a size such as `1GiB`, at least 1 MiB, or `0` for no
    /// cache at all), else [`DEFAULT_MAX_SIZE`].
    pub fn default_max_size() -> Result<u64, String> {
        match std::env::var("REVIEWHOST_CACHE_SIZE") {
            Ok(text) if text.trim() == "0" => Ok(0),
            Ok(text) if !text.is_empty() => super::limits::parse_memory(&text).map_err(|e| {
                let e = e.replace("minimum a check needs", "minimum (0 turns the cache off)");
                format!("REVIEWHOST_CACHE_SIZE: {e}")
            }),
            Err(std::env::VarError::NotUnicode(_)) => Err("REVIEWHOST_CACHE_SIZE: not UTF-8".into()),
            _ => Ok(DEFAULT_MAX_SIZE),
        }
    }

    /// `$REVIEWHOST_CACHE_DIR`, else the user's cache directory + `reviewhost`.
    pub fn default_dir() -> Option<PathBuf> {
        match std::env::var_os("REVIEWHOST_CACHE_DIR") {
            Some(dir) if !dir.is_empty() => Some(PathBuf::from(dir)),
            _ => dirs::cache_dir().map(|d| d.join("reviewhost")),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The compiled form of `wasm` for `engine`: loaded from the cache when a valid entry
    /// exists, else compiled and stored.
    pub fn component(&self, engine: &Engine, wasm: &[u8]) -> wasmtime::Result<Component> {
        let path = self.entry_path(engine, wasm);
        if let Some(payload) = read_entry(&self.key, &path) {
            // SAFETY: `payload` carries a MAC under this user's secret key over its name
            // (the component's hash and the engine configuration's), so this cache wrote
            // it for this component, and it is an artifact `Engine::precompile_component`
            // produced. Deserialize still checks the wasmtime version and configuration
            // and errors on mismatch.
            if let Ok(component) = unsafe { Component::deserialize(engine, &*payload) } {
                payload.mark_used();
                return Ok(component);
            }
        }
        let payload = engine.precompile_component(wasm)?;
        // A cache that cannot be written only costs time on the next run.
        if write_entry(&self.key, &self.dir, &path, &payload).is_ok() {
            let _ = self.evict(&path);
        }
        // SAFETY: produced by `precompile_component` of this engine just above.
        unsafe { Component::deserialize(engine, &payload) }
    }

    /// Removes the least recently used entries but `keep` until the entries take at
    /// most [`Cache::max_size`] bytes. Returns how many were removed. A run that has an
    /// entry mapped keeps its mapping; it only loses the file for the next run.
    pub fn evict(&self, keep: &Path) -> io::Result<usize> {
        use std::os::unix::fs::MetadataExt;
        let mut entries = Vec::new();
        let mut total = 0u64;
        for entry in std::fs::read_dir(&self.dir)? {
            let Ok(entry) = entry else { continue };
            let path = entry.path();
            if path.extension().is_none_or(|e| e != ENTRY_EXTENSION) {
                continue;
            }
            let Ok(meta) = entry.metadata() else { continue };
            if !meta.is_file() {
                continue;
            }
            total = total.saturating_add(meta.len());
            if path != keep {
                entries.push(((meta.mtime(), meta.mtime_nsec()), meta.len(), path));
            }
        }
        entries.sort();
        let mut removed = 0;
        for (_, len, path) in entries {
            if total <= self.max_size {
                break;
            }
            if std::fs::remove_file(&path).is_ok() {
                total = total.saturating_sub(len);
                removed += 1;
            }
        }
        Ok(removed)
    }

    /// `<dir>/<component BLAKE3>-<engine settings hash>.cwasm`.
    pub fn entry_path(&self, engine: &Engine, wasm: &[u8]) -> PathBuf {
        let component = hex(&blake3::hash(wasm).as_bytes()[..16]);
        let mut settings = DigestHasher(blake3::Hasher::new());
        engine.precompile_compatibility_hash().hash(&mut settings);
        let settings = hex(&settings.0.finalize().as_bytes()[..8]);
        self.dir.join(format!("{component}-{settings}.{ENTRY_EXTENSION}"))
    }
}

/// Feeds `Hash` output into BLAKE3: a stable hash across builds, unlike `DefaultHasher`.
struct DigestHasher(blake3::Hasher);

impl Hasher for DigestHasher {
    fn finish(&self) -> u64 {
        unreachable!("only the digest is used")
    }

    fn write(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }
}

/// `bytes` in lowercase hexadecimal.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The MAC of an entry: keyed BLAKE3 over its file name and its payload, so an entry is
/// valid only under the name it was written for.
fn mac(key: &CacheKey, path: &Path, payload: &[u8]) -> blake3::Hash {
    let name = path.file_name().map_or(&[][..], |n| std::os::unix::ffi::OsStrExt::as_bytes(n));
    let mut hasher = blake3::Hasher::new_keyed(&key.0);
    hasher.update(&(name.len() as u64).to_le_bytes()).update(name).update(payload);
    hasher.finalize()
}

/// The payload of a valid entry, mapped; `None` for a missing, foreign or corrupt one.
fn read_entry(key: &CacheKey, path: &Path) -> Option<Entry> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    // SAFETY: entries live in the private cache directory and are only ever replaced by
    // renaming a new file into place (`write_entry`), never modified in place, so the
    // mapped bytes do not change under us; the MAC is checked before they are used.
    let map = unsafe { memmap2::Mmap::map(&file) }.ok()?;
    let file = Some(file);
    if map.len() < MAGIC.len() + DIGEST_LEN || &map[..MAGIC.len()] != MAGIC {
        return None;
    }
    let (digest, payload) = map[MAGIC.len()..].split_at(DIGEST_LEN);
    // Constant-time comparison (blake3::Hash's `PartialEq<[u8; 32]>`).
    let digest: [u8; DIGEST_LEN] = digest.try_into().ok()?;
    if mac(key, path, payload) != digest {
        return None;
    }
    Some(Entry(map, file))
}

/// A checked cache entry, mapped, with its file (to mark it used).
struct Entry(memmap2::Mmap, Option<std::fs::File>);

impl Entry {
    /// Marks the entry used now, for least-recently-used eviction ([`Cache::evict`]).
    fn mark_used(&self) {
        if let Some(file) = &self.1 {
            let _ = file.set_modified(std::time::SystemTime::now());
        }
    }
}

impl std::ops::Deref for Entry {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.0[MAGIC.len() + DIGEST_LEN..]
    }
}

/// Writes the entry at `path` (in `dir`) atomically, so a concurrent run reads the old
/// entry or the new one, never a part.
fn write_entry(key: &CacheKey, dir: &Path, path: &Path, payload: &[u8]) -> io::Result<()> {
    let name = path.file_name().ok_or_else(|| io::Error::other(format!("{}: not an entry", path.display())))?;
    let dir = std::fs::File::open(dir)?;
    crate::write::write_atomically(&dir, name, |out| {
        out.write_all(MAGIC)?;
        out.write_all(mac(key, path, payload).as_bytes())?;
        out.write_all(payload)
    })
}

/// Creates `dir` (and its parents) `0700`.
pub fn create_private_dir(dir: &Path) -> io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)
}

/// The directory must be ours and writable only by us: anyone else who can write to it
/// could plant native code that the next run would execute.
pub fn check_private(dir: &Path) -> io::Result<()> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::symlink_metadata(dir)?;
    let denied = |why: &str| io::Error::new(io::ErrorKind::PermissionDenied, format!("{}: {why}", dir.display()));
    if !meta.is_dir() {
        return Err(denied("not a directory (a symlink is not accepted)"));
    }
    // SAFETY: geteuid has no preconditions and cannot fail.
    let uid = unsafe { libc::geteuid() };
    if meta.uid() != uid {
        return Err(denied("owned by another user"));
    }
    if meta.mode() & 0o022 != 0 {
        return Err(denied("writable by group or others"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(byte: u8) -> CacheKey {
        CacheKey([byte; blake3::KEY_LEN])
    }

    #[test]
    fn entries_round_trip_and_corruption_is_rejected() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("e.cwasm");
        write_entry(&key(1), dir.path(), &path, b"payload").unwrap();
        assert_eq!(&*read_entry(&key(1), &path).unwrap(), b"payload");
        let mut bytes = std::fs::read(&path).unwrap();
        *bytes.last_mut().unwrap() ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        assert!(read_entry(&key(1), &path).is_none());
        std::fs::write(&path, b"RVHC").unwrap();
        assert!(read_entry(&key(1), &path).is_none());
    }

    /// What a checksum let through: an entry with a valid digest that this user's cache
    /// did not write, or wrote for another component.
    #[test]
    fn forged_and_renamed_entries_are_rejected() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.cwasm"), dir.path().join("b.cwasm"));
        write_entry(&key(2), dir.path(), &a, b"someone else's code").unwrap();
        assert!(read_entry(&key(1), &a).is_none(), "written under another key");
        write_entry(&key(1), dir.path(), &a, b"component a").unwrap();
        std::fs::copy(&a, &b).unwrap();
        assert!(read_entry(&key(1), &a).is_some());
        assert!(read_entry(&key(1), &b).is_none(), "a's entry under b's name");
        // An unkeyed digest, as entries had before they were authenticated.
        let mut old = MAGIC.to_vec();
        old.extend_from_slice(blake3::hash(b"payload").as_bytes());
        old.extend_from_slice(b"payload");
        std::fs::write(&b, old).unwrap();
        assert!(read_entry(&key(1), &b).is_none());
        std::os::unix::fs::symlink(&a, dir.path().join("link.cwasm")).unwrap();
        assert!(read_entry(&key(1), &dir.path().join("link.cwasm")).is_none(), "a symlink is not followed");
    }

    #[test]
    fn the_key_is_private_and_made_once() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keys/cache.key");
        let made = CacheKey::load_or_create(&path).unwrap();
        assert_eq!(CacheKey::load_or_create(&path).unwrap().0, made.0);
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert!(CacheKey::load_or_create(&path).unwrap_err().to_string().contains("readable or writable by group"));
        let link = dir.path().join("keys/link.key");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        std::os::unix::fs::symlink(&path, &link).unwrap();
        assert!(CacheKey::load_or_create(&link).is_err(), "a symlinked key is refused");
    }

    #[test]
    fn a_shared_directory_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("c");
        Cache::open(&cache, key(1)).unwrap();
        std::fs::set_permissions(&cache, std::fs::Permissions::from_mode(0o777)).unwrap();
        let err = Cache::open(&cache, key(1)).unwrap_err();
        assert!(err.to_string().contains("writable by group or others"), "{err}");
    }

    /// The least recently used entries go first, the one just written never, and nothing
    /// but entries is touched.
    #[test]
    fn eviction_keeps_the_recently_used_within_the_cap() {
        use std::time::{Duration, SystemTime};
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::open(dir.path(), key(1)).unwrap().with_max_size(250);
        let at = |secs: u64| SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000 + secs);
        let entry = |name: &str, age: u64| {
            let path = dir.path().join(name);
            write_entry(&key(1), dir.path(), &path, &[7u8; 60]).unwrap();
            std::fs::File::options().write(true).open(&path).unwrap().set_modified(at(age)).unwrap();
            path
        };
        let (oldest, old, used, newest) =
            (entry("a.cwasm", 1), entry("b.cwasm", 2), entry("c.cwasm", 3), entry("d.cwasm", 4));
        std::fs::write(dir.path().join("notes.txt"), [0u8; 500]).unwrap();
        // Using `oldest` makes it the most recently used.
        read_entry(&key(1), &oldest).unwrap().mark_used();
        // Four entries of 100 bytes against a cap of 250: two go, `newest` stays as the one kept.
        assert_eq!(cache.evict(&newest).unwrap(), 2);
        for (path, kept) in [(&oldest, true), (&old, false), (&used, false), (&newest, true)] {
            assert_eq!(path.exists(), kept, "{}", path.display());
        }
        assert!(dir.path().join("notes.txt").exists(), "only entries are removed");
        // An entry larger than the cap alone is kept while it is the newest.
        let tiny = Cache::open(dir.path(), key(1)).unwrap().with_max_size(10);
        assert_eq!(tiny.evict(&newest).unwrap(), 1);
        assert!(newest.exists() && !oldest.exists());
    }
}
