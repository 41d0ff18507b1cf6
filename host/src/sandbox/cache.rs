//! The private, per-user cache of compiled components.
//!
//! A Cranelift compile costs about a second per component; a cached artifact loads in a
//! few milliseconds. Deserializing compiled code is as trusted as running native code,
//! so the cache loads only what it wrote itself:
//!
//! - its directory is created `0700` and used only when it is owned by the current user
//!   and writable by nobody else (otherwise the cache is skipped, with a warning);
//! - the file name is chosen by the host (hash of the component and of the engine's
//!   compilation settings), never by anything an assertions file says;
//! - each entry carries a BLAKE3 digest of its payload, checked before deserializing,
//!   so a corrupt or truncated entry is recompiled rather than loaded. (BLAKE3 rather
//!   than SHA-256: the shell check's entry is 13 MiB, and hashing it with SHA-256 was a
//!   fifth of a warm run's start-up.) Entries are mapped, not read, so the payload is
//!   not copied before wasmtime copies it into executable memory.
//!
//! Entries are written to a temporary file and renamed into place, so concurrent runs
//! never see half an entry.

use std::hash::{Hash, Hasher};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use wasmtime::Engine;
use wasmtime::component::Component;

/// First bytes of every cache entry, versioned with the entry layout.
const MAGIC: &[u8; 8] = b"RVHCWSM2";
const DIGEST_LEN: usize = 32;

/// Where compiled components are kept.
#[derive(Debug, Clone)]
pub struct Cache {
    dir: PathBuf,
}

impl Cache {
    /// The cache at `dir`, created if needed. `Err` says why it cannot be trusted.
    pub fn open(dir: &Path) -> io::Result<Cache> {
        create_private_dir(dir)?;
        check_private(dir)?;
        Ok(Cache { dir: dir.to_path_buf() })
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
        if let Some(payload) = read_entry(&path) {
            // SAFETY: `payload` was written by this cache (private directory, host-chosen
            // name) for this engine configuration and its digest matched, so it is an
            // artifact `Engine::precompile_component` produced. Deserialize still checks
            // the wasmtime version and configuration and errors on mismatch.
            if let Ok(component) = unsafe { Component::deserialize(engine, &*payload) } {
                return Ok(component);
            }
        }
        let payload = engine.precompile_component(wasm)?;
        // A cache that cannot be written only costs time on the next run.
        let _ = write_entry(&self.dir, &path, &payload);
        // SAFETY: produced by `precompile_component` of this engine just above.
        unsafe { Component::deserialize(engine, &payload) }
    }

    /// `<dir>/<component BLAKE3>-<engine settings hash>.cwasm`.
    pub fn entry_path(&self, engine: &Engine, wasm: &[u8]) -> PathBuf {
        let component = hex(&blake3::hash(wasm).as_bytes()[..16]);
        let mut settings = DigestHasher(blake3::Hasher::new());
        engine.precompile_compatibility_hash().hash(&mut settings);
        let settings = hex(&settings.0.finalize().as_bytes()[..8]);
        self.dir.join(format!("{component}-{settings}.cwasm"))
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

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The payload of a valid entry, mapped; `None` for a missing, foreign or corrupt one.
fn read_entry(path: &Path) -> Option<Entry> {
    let file = std::fs::File::open(path).ok()?;
    // SAFETY: entries live in the private cache directory and are only ever replaced by
    // renaming a new file into place (`write_entry`), never modified in place, so the
    // mapped bytes do not change under us; the digest is checked before they are used.
    let map = unsafe { memmap2::Mmap::map(&file) }.ok()?;
    if map.len() < MAGIC.len() + DIGEST_LEN || &map[..MAGIC.len()] != MAGIC {
        return None;
    }
    let (digest, payload) = map[MAGIC.len()..].split_at(DIGEST_LEN);
    if blake3::hash(payload).as_bytes() != digest {
        return None;
    }
    Some(Entry(map))
}

/// A checked cache entry, mapped.
struct Entry(memmap2::Mmap);

impl std::ops::Deref for Entry {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.0[MAGIC.len() + DIGEST_LEN..]
    }
}

fn write_entry(dir: &Path, path: &Path, payload: &[u8]) -> io::Result<()> {
    let mut tmp = tempfile::Builder::new().prefix(".entry.").tempfile_in(dir)?;
    tmp.write_all(MAGIC)?;
    tmp.write_all(blake3::hash(payload).as_bytes())?;
    tmp.write_all(payload)?;
    tmp.as_file().sync_all()?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

#[cfg(unix)]
fn create_private_dir(dir: &Path) -> io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir)
}

#[cfg(not(unix))]
fn create_private_dir(dir: &Path) -> io::Result<()> {
    std::fs::create_dir_all(dir)
}

/// The directory must be ours and writable only by us: anyone else who can write to it
/// could plant native code that the next run would execute.
#[cfg(unix)]
fn check_private(dir: &Path) -> io::Result<()> {
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

#[cfg(not(unix))]
fn check_private(_dir: &Path) -> io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_round_trip_and_corruption_is_rejected() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("e.cwasm");
        write_entry(dir.path(), &path, b"payload").unwrap();
        assert_eq!(&*read_entry(&path).unwrap(), b"payload");
        let mut bytes = std::fs::read(&path).unwrap();
        *bytes.last_mut().unwrap() ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        assert!(read_entry(&path).is_none());
        std::fs::write(&path, b"RVHC").unwrap();
        assert!(read_entry(&path).is_none());
    }

    #[cfg(unix)]
    #[test]
    fn a_shared_directory_is_refused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let cache = dir.path().join("c");
        Cache::open(&cache).unwrap();
        std::fs::set_permissions(&cache, std::fs::Permissions::from_mode(0o777)).unwrap();
        let err = Cache::open(&cache).unwrap_err();
        assert!(err.to_string().contains("writable by group or others"), "{err}");
    }
}
