//! Special files (devices, sockets, FIFOs) are never opened through WASI.
//!
//! A tree extracted as root (a container image) can hold device nodes: a block device is
//! a disk outside the root, a character device can be the kernel log. wasmtime-wasi opens
//! whatever a path names, so a component could read them through
//! `wasi:filesystem/types` `[method]descriptor.open-at`. The built-in checks refuse them
//! in the `files` interface; this module refuses them to every component, validators
//! included, by shadowing wasmtime-wasi's `open-at` in the linker with one that:
//!
//! 1. stats the path first, with the caller's path flags (so a symlink to a device
//!    inside the root is judged by what it leads to), and refuses a device, socket or
//!    FIFO without opening it: opening a FIFO would wait for a writer, opening a device
//!    can have effects of its own;
//! 2. opens it with wasmtime-wasi's own `open-at` (every other rule unchanged);
//! 3. checks the type on the opened descriptor, and closes and refuses one that became
//!    special between the two (swapped in by a race).
//!
//! Only regular files, directories and (for the stat) symlinks pass. The refusal is the
//! error code `access` (`EACCES`, "Permission denied"): what the kernel itself answers
//! for a device node on a `nodev` mount.
//!
//! What this does not do: a FIFO swapped in between the stat and the open still blocks
//! the open (wasmtime-wasi opens without `O_NONBLOCK`); the watchdog of `supervise`
//! abandons that check. Listing a directory or stat-ing an entry says it is a device,
//! and nothing more (WASI stats carry no device numbers).

use wasmtime::StoreContextMut;
use wasmtime::component::{Linker, Resource};
use wasmtime_wasi::filesystem::WasiFilesystemView;
use wasmtime_wasi::p2::bindings::sync::filesystem::types::{
    Descriptor, DescriptorFlags, DescriptorType, ErrorCode, Host, HostDescriptor, OpenFlags, PathFlags,
};

use super::evaluate::HostState;

/// The WASI interface whose `open-at` is replaced: the version wasmtime-wasi's
/// `add_to_linker_sync` defines (components importing an older 0.2.x link to it too).
const FILESYSTEM_TYPES: &str = "wasi:filesystem/types@0.2.12";
const OPEN_AT: &str = "[method]descriptor.open-at";

/// Replaces `open-at` in `linker`, after `wasmtime_wasi::p2::add_to_linker_sync`.
pub(super) fn refuse_special_files(linker: &mut Linker<HostState>) -> wasmtime::Result<()> {
    linker.allow_shadowing(true);
    let shadowed = linker.instance(FILESYSTEM_TYPES).and_then(|mut types| types.func_wrap(OPEN_AT, open_at));
    linker.allow_shadowing(false);
    shadowed
}

/// The parameters of `open-at`: the directory, path flags, path, open flags, descriptor flags.
type OpenAt = (Resource<Descriptor>, PathFlags, String, OpenFlags, DescriptorFlags);

/// wasmtime-wasi's `open-at`, refusing what is not a regular file or a directory.
fn open_at(
    mut store: StoreContextMut<'_, HostState>,
    (dir, path_flags, path, oflags, flags): OpenAt,
) -> wasmtime::Result<(Result<Resource<Descriptor>, ErrorCode>,)> {
    let mut fs = store.data_mut().filesystem();
    // A stat that fails (no such file, ...) leaves the answer to the open itself.
    let borrowed = Resource::<Descriptor>::new_borrow(dir.rep());
    if let Ok(stat) = HostDescriptor::stat_at(&mut fs, borrowed, path_flags, path.clone())
        && !may_open(stat.type_)
    {
        return Ok((Err(ErrorCode::Access),));
    }
    let opened = match HostDescriptor::open_at(&mut fs, dir, path_flags, path, oflags, flags) {
        Ok(opened) => opened,
        Err(error) => return Ok((Err(Host::convert_error_code(&mut fs, error)?),)),
    };
    match HostDescriptor::get_type(&mut fs, Resource::new_borrow(opened.rep())) {
        Ok(kind) if may_open(kind) => Ok((Ok(opened),)),
        _ => {
            HostDescriptor::drop(&mut fs, opened)?;
            Ok((Err(ErrorCode::Access),))
        }
    }
}

/// Whether a path of this type may be opened. wasmtime-wasi reports FIFOs and sockets as
/// `unknown`; a symlink is only seen by a stat that does not follow it, and the open
/// then fails on it by itself.
fn may_open(kind: DescriptorType) -> bool {
    matches!(kind, DescriptorType::RegularFile | DescriptorType::Directory | DescriptorType::SymbolicLink)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shadowed name is one wasmtime-wasi defines: were its WIT version to move, a
    /// new instance would be added beside the real one and nothing would be replaced.
    #[test]
    fn the_replaced_open_at_is_the_one_wasmtime_wasi_defines() {
        let engine = wasmtime::Engine::default();
        let mut linker = Linker::<HostState>::new(&engine);
        wasmtime_wasi::p2::add_to_linker_sync(&mut linker).unwrap();
        let redefined = linker.instance(FILESYSTEM_TYPES).unwrap().func_wrap(OPEN_AT, open_at);
        assert!(redefined.is_err(), "{FILESYSTEM_TYPES} {OPEN_AT} is not defined by wasmtime-wasi");
        refuse_special_files(&mut linker).unwrap();
    }
}
