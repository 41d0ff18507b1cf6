//! The object database: loose objects and packs, read without memory mapping.
//!
//! gix's own object store maps pack and index files into memory (memmap2), and memmap2
//! has no implementation for WASI: in the component every packed repository — every
//! clone — would fail. So the files are read whole into memory here and handed to
//! gix-pack's parsers (`index::File::from_data`, `data::File::from_data`), which do the
//! delta resolution. gix-odb's loose store maps files too (since gix-odb 0.87), so loose
//! objects are read here as well ([`read_loose`]) and inflated with gix's zlib.
//! Pack data is read only when an object in it is needed, and once per process: the
//! interpreter runs many `git` commands over the same repository.

use crate::Error;
use crate::repo::MAX_OBJECT_SIZE;
use gix::ObjectId;
use gix::odb::pack;
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// Largest pack file read into memory, in bytes: 1 GiB. A bigger pack is an error
/// rather than an allocation that could exhaust the sandbox's memory.
pub const MAX_PACK_SIZE: u64 = 1024 * 1024 * 1024;

const SHA1: gix::hash::Kind = gix::hash::Kind::Sha1;

type PackData = Rc<pack::data::File<Vec<u8>>>;

/// Which pack file: its path, length and modification time.
type PackKey = (PathBuf, u64, Option<std::time::SystemTime>);

thread_local! {
    /// Pack data already read in this process.
    static PACKS: RefCell<HashMap<PackKey, PackData>> = RefCell::new(HashMap::new());
}

struct Pack {
    index: pack::index::File<Vec<u8>>,
    data_path: PathBuf,
    data: RefCell<Option<PackData>>,
}

/// The objects of a repository and its (checked) alternates.
pub struct Odb {
    /// The object directories, whose `xx/yyyy…` files are the loose objects.
    loose: Vec<PathBuf>,
    packs: Vec<Pack>,
}

impl Odb {
    /// The object directories, the repository's own first.
    pub fn open(dirs: &[PathBuf]) -> Result<Odb, Error> {
        let mut odb = Odb { loose: Vec::new(), packs: Vec::new() };
        for dir in dirs {
            odb.loose.push(dir.clone());
            let Ok(entries) = std::fs::read_dir(dir.join("pack")) else { continue };
            let mut names: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
            names.sort();
            for idx in names.into_iter().filter(|p| p.extension().is_some_and(|e| e == "idx")) {
                let data_path = idx.with_extension("pack");
                if !data_path.exists() {
                    continue;
                }
                let bytes = read_capped(&idx)?;
                let index = pack::index::File::from_data(bytes, idx.clone(), SHA1)
                    .map_err(|e| Error::Fatal(format!("bad pack index {}: {e}", idx.display())))?;
                odb.packs.push(Pack { index, data_path, data: RefCell::new(None) });
            }
        }
        Ok(odb)
    }

    /// The kind and data of object `id`, or None when no store has it.
    pub fn find(&self, id: &gix::oid) -> Result<Option<(gix::object::Kind, Vec<u8>)>, Error> {
        for pack in &self.packs {
            let Some(i) = pack.index.lookup(id) else { continue };
            let data = pack.data()?;
            let offset = pack.index.pack_offset_at_index(i);
            let entry = data.entry(offset).map_err(|e| Error::Fatal(format!("bad pack entry for {id}: {e}")))?;
            let mut out = Vec::new();
            let mut inflate = gix::zlib::Inflate::default();
            let resolve = |base: &gix::oid, _: &mut Vec<u8>| {
                pack.index
                    .lookup(base)
                    .map(|i| {
                        data.entry(pack.index.pack_offset_at_index(i))
                            .map(pack::data::decode::entry::ResolvedBase::InPack)
                    })
                    .transpose()
            };
            let outcome =
                data.decode_entry(entry, &mut out, &mut inflate, &resolve, &mut pack::cache::Never).map_err(|e| {
                    match out.len() as u64 > MAX_OBJECT_SIZE {
                        true => Error::TooLarge(id.to_owned()),
                        false => Error::Fatal(format!("cannot read object {id}: {e}")),
                    }
                })?;
            return Ok(Some((outcome.kind, out)));
        }
        for dir in &self.loose {
            if let Some(object) = read_loose(dir, id)? {
                return Ok(Some(object));
            }
        }
        Ok(None)
    }

    /// How many objects the packs hold (git's approximate object count).
    pub fn packed_count(&self) -> u64 {
        self.packs.iter().map(|p| u64::from(p.index.num_objects())).sum()
    }

    /// Whether object `id` exists.
    pub fn contains(&self, id: &gix::oid) -> bool {
        self.packs.iter().any(|p| p.index.lookup(id).is_some())
            || self.loose.iter().any(|dir| loose_path(dir, id).is_file())
    }

    /// The ids starting with the hex digits `prefix` (at least 4), up to `limit` of them.
    pub fn with_prefix(&self, prefix: &str, limit: usize) -> Vec<ObjectId> {
        let mut out: Vec<ObjectId> = Vec::new();
        let Ok(p) = gix::hash::Prefix::from_hex(prefix) else { return out };
        for pack in &self.packs {
            let mut range = 0..0;
            if pack.index.lookup_prefix(p, Some(&mut range)).is_some() {
                for i in range {
                    let id = pack.index.oid_at_index(i).to_owned();
                    if !out.contains(&id) {
                        out.push(id);
                    }
                }
            }
            if out.len() >= limit {
                return out;
            }
        }
        for loose in &self.loose {
            let Ok(entries) = std::fs::read_dir(loose.join(&prefix[..2])) else { continue };
            for e in entries.flatten() {
                let name = e.file_name().to_string_lossy().to_string();
                if name.len() == 38
                    && name.starts_with(&prefix[2..])
                    && let Ok(id) = ObjectId::from_hex(format!("{}{name}", &prefix[..2]).as_bytes())
                    && !out.contains(&id)
                {
                    out.push(id);
                }
            }
        }
        out
    }
}

impl Pack {
    fn data(&self) -> Result<PackData, Error> {
        if let Some(d) = self.data.borrow().as_ref() {
            return Ok(d.clone());
        }
        let meta = std::fs::metadata(&self.data_path)
            .map_err(|e| Error::Fatal(format!("cannot read {}: {e}", self.data_path.display())))?;
        let key = (self.data_path.clone(), meta.len(), meta.modified().ok());
        let cached = PACKS.with(|p| p.borrow().get(&key).cloned());
        let data = match cached {
            Some(d) => d,
            None => {
                let bytes = read_capped(&self.data_path)?;
                let file = pack::data::File::from_data(bytes, self.data_path.clone(), SHA1)
                    .map_err(|e| Error::Fatal(format!("bad pack {}: {e}", self.data_path.display())))?
                    .with_alloc_limit_bytes(Some(MAX_OBJECT_SIZE as usize));
                let d = Rc::new(file);
                PACKS.with(|p| p.borrow_mut().insert(key, d.clone()));
                d
            }
        };
        *self.data.borrow_mut() = Some(data.clone());
        Ok(data)
    }
}

/// The loose object `id` in the object directory `dir`: its kind and inflated body, `None`
/// when there is no such file. The size its header claims is checked before the body is
/// inflated (a small compressed file may claim a huge object), and the body must have
/// exactly that size.
fn read_loose(dir: &Path, id: &gix::oid) -> Result<Option<(gix::object::Kind, Vec<u8>)>, Error> {
    let path = loose_path(dir, id);
    let corrupt = |why: &str| Error::Fatal(format!("cannot read object {id}: loose object {}: {why}", path.display()));
    let data = match std::fs::symlink_metadata(&path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Ok(meta) if !meta.is_file() => return Err(corrupt("not a regular file")),
        _ => read_capped(&path)?,
    };
    let mut inflate = gix::zlib::Inflate::default();
    let mut header = [0u8; 64];
    let (status, used, written) = inflate.prefix(&data, &mut header).map_err(|e| corrupt(&e.to_string()))?;
    if status == gix::zlib::Status::BufError {
        return Err(corrupt("truncated"));
    }
    let (kind, size, header_len) =
        gix::objs::decode::loose_header(&header[..written]).map_err(|e| corrupt(&e.to_string()))?;
    if size > MAX_OBJECT_SIZE {
        return Err(Error::TooLarge(id.to_owned()));
    }
    if (written - header_len) as u64 > size {
        return Err(corrupt(&format!("longer than the {size} bytes its header says")));
    }
    let mut body = Vec::new();
    let len = inflate
        .rest(&data[used..], &header[..written], header_len, &mut body, size as usize)
        .map_err(|e| corrupt(&e.to_string()))?;
    if len as u64 != size {
        return Err(corrupt(&format!("{len} bytes where its header says {size}")));
    }
    Ok(Some((kind, body)))
}

fn loose_path(dir: &Path, id: &gix::oid) -> PathBuf {
    let hex = id.to_hex().to_string();
    dir.join(&hex[..2]).join(&hex[2..])
}

/// A whole file, refused past [`MAX_PACK_SIZE`].
fn read_capped(path: &Path) -> Result<Vec<u8>, Error> {
    let meta = std::fs::metadata(path).map_err(|e| Error::Fatal(format!("cannot read {}: {e}", path.display())))?;
    if meta.len() > MAX_PACK_SIZE {
        return Err(Error::Fatal(format!("{}: larger than {MAX_PACK_SIZE} bytes, not read", path.display())));
    }
    std::fs::read(path).map_err(|e| Error::Fatal(format!("cannot read {}: {e}", path.display())))
}
