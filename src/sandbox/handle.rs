//! A directory opened once and afterwards used only as a handle.
//!
//! A path names whatever is at that name *now*; a repository may change during a run
//! (a directory exchanged with a symlink to `/` between the host's check and its use).
//! So a directory the sandbox shows a check is opened once, when it is decided on, and
//! every later use goes through that descriptor: WASI preopens it by its
//! `/proc/self/fd/N` link (the kernel hands back the open directory itself, never a new
//! lookup by name), and the host's whole-file reads resolve relative to it.

use std::fs::File;
use std::hash::{Hash, Hasher};
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

/// An open directory, identified by its device and inode.
#[derive(Debug)]
pub struct DirHandle {
    file: File,
    /// `(st_dev, st_ino)` of the open directory: two handles on one directory are equal.
    id: (u64, u64),
}

impl DirHandle {
    /// Opens the directory `path` on the host (the operator's root: symlinks followed).
    pub fn open_ambient(path: &Path) -> io::Result<DirHandle> {
        DirHandle::from_file(cap_primitives::fs::open_ambient_dir(path, cap_primitives::ambient_authority())?)
    }

    /// Opens `relative` inside this directory with cap-std's resolver: symlinks are
    /// followed only while they stay inside, `..` never climbs out, and `O_DIRECTORY`
    /// refuses anything but a directory before it could block (a FIFO).
    pub fn open_dir(&self, relative: &Path) -> io::Result<DirHandle> {
        DirHandle::from_file(cap_primitives::fs::open_dir(&self.file, relative)?)
    }

    fn from_file(file: File) -> io::Result<DirHandle> {
        let meta = file.metadata()?;
        if !meta.is_dir() {
            return Err(io::Error::new(io::ErrorKind::NotADirectory, "not a directory"));
        }
        Ok(DirHandle { file, id: (meta.dev(), meta.ino()) })
    }

    pub fn file(&self) -> &File {
        &self.file
    }

    /// A path that opens this very directory, whatever has happened to its name since:
    /// the descriptor's link in `/proc/self/fd` (`/dev/fd` where there is no procfs).
    pub fn descriptor_path(&self) -> PathBuf {
        let fd = self.file.as_raw_fd();
        if cfg!(target_os = "linux") {
            PathBuf::from(format!("/proc/self/fd/{fd}"))
        } else {
            PathBuf::from(format!("/dev/fd/{fd}"))
        }
    }
}

impl PartialEq for DirHandle {
    fn eq(&self, other: &DirHandle) -> bool {
        self.id == other.id
    }
}

impl Eq for DirHandle {}

impl Hash for DirHandle {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.id.hash(state);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_descriptor_path_opens_the_directory_even_after_its_name_is_swapped() {
        let dir = tempfile::tempdir().unwrap();
        let (sub, moved, outside) = (dir.path().join("sub"), dir.path().join("moved"), dir.path().join("outside"));
        std::fs::create_dir(&sub).unwrap();
        std::fs::write(sub.join("inside.txt"), "in").unwrap();
        std::fs::create_dir(&outside).unwrap();
        std::fs::write(outside.join("outside.txt"), "out").unwrap();
        let root = DirHandle::open_ambient(dir.path()).unwrap();
        let handle = root.open_dir(Path::new("sub")).unwrap();
        std::fs::rename(&sub, &moved).unwrap();
        std::os::unix::fs::symlink("outside", &sub).unwrap();
        let seen: Vec<_> = std::fs::read_dir(handle.descriptor_path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(seen, ["inside.txt"]);
        assert_eq!(handle, DirHandle::open_ambient(&moved).unwrap());
    }

    #[test]
    fn opening_stays_inside_the_directory() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("root")).unwrap();
        std::os::unix::fs::symlink("..", dir.path().join("root/up")).unwrap();
        std::os::unix::fs::symlink("/", dir.path().join("root/slash")).unwrap();
        let root = DirHandle::open_ambient(&dir.path().join("root")).unwrap();
        for escape in ["..", "up", "slash", "up/root"] {
            assert!(root.open_dir(Path::new(escape)).is_err(), "{escape}");
        }
        assert!(root.open_dir(Path::new(".")).is_ok());
    }
}
