//! Hostile test validator: each `custom` assertion names one attack in `config.attack`,
//! and this component tries exactly that, from inside the sandbox.
//!
//! The containment attacks report what happened: the verdict passes with
//! `refused: <error>` when the sandbox said no, and fails with `ESCAPED: <what it got>`
//! when the attempt worked, so a test reads a broken guarantee as a failed assertion.
//! The resource attacks never return on their own: the host must end them (deadline,
//! memory limit, output cap, verdict caps). The test suite (`tests/all/hostile.rs`)
//! holds the table of which attack must end how.

use std::fs::{self, OpenOptions};
use std::io::{Read, Write};

use reviewhost_guest::{Evidence, Root, Validator, Verdict};
use serde::Deserialize;

pub struct Hostile;

#[derive(Deserialize)]
pub struct Config {
    attack: String,
    /// An absolute host path outside the root (the sentinel file), for absolute-path attacks.
    #[serde(default)]
    outside: String,
    /// A loopback TCP port the test listens on.
    #[serde(default)]
    port: u16,
}

/// What an attempt got: `Ok` when it worked (an escape), `Err` when it was refused.
type Attempt = Result<String, String>;

fn read(path: &str) -> Attempt {
    fs::read(path).map(|b| format!("read {} bytes of {path}: {:?}", b.len(), preview(&b))).map_err(|e| e.to_string())
}

/// Opens `path` and reads at most 16 bytes: a device can be endless.
fn read_some(path: &str) -> Attempt {
    let mut buffer = [0u8; 16];
    let read = fs::File::open(path).and_then(|mut file| file.read(&mut buffer)).map_err(|e| e.to_string())?;
    Ok(format!("opened {path}, read {read} bytes: {:?}", preview(&buffer[..read])))
}

fn preview(bytes: &[u8]) -> String {
    String::from_utf8_lossy(&bytes[..bytes.len().min(40)]).into_owned()
}

fn list(path: &str) -> Attempt {
    let names: Vec<String> = fs::read_dir(path)
        .map_err(|e| e.to_string())?
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into())
        .collect();
    Ok(format!("listed {path}: {}", names.join(",")))
}

fn done<T>(what: &str, r: std::io::Result<T>) -> Attempt {
    r.map(|_| what.to_string()).map_err(|e| e.to_string())
}

fn attempt(config: &Config) -> Option<Attempt> {
    let outside = config.outside.as_str();
    let port = config.port;
    Some(match config.attack.as_str() {
        // Filesystem: reads that would leave the root.
        "fs.dotdot_read" => read("../outside/sentinel.txt"),
        "fs.dotdot_list" => list(".."),
        "fs.root_parent" => read("/../outside/sentinel.txt"),
        "fs.absolute_outside" => read(outside),
        "fs.etc_passwd" => read("/etc/passwd"),
        "fs.symlink_file_relative" => read("link-out-rel"),
        "fs.symlink_file_absolute" => read("link-out-abs"),
        "fs.symlink_dir" => read("link-dir-out/sentinel.txt"),
        "fs.symlink_dir_list" => list("link-dir-out"),
        "fs.symlink_chain" => read("chain1"),
        "fs.symlink_loop" => read("loop1"),
        "fs.proc_self" => read("/proc/self/environ").or_else(|_| list("/proc/self")),
        "fs.dev_urandom" => read("/dev/urandom"),
        "fs.dev_null_write" => done("wrote /dev/null", fs::write("/dev/null", b"x")),
        // Special files in the root (made by the test): opening one is refused, so not a
        // byte of a device (a disk image, the kernel log) is read and nothing blocks.
        "fs.char_device" => read_some("char-dev"),
        "fs.block_device" => read_some("block-dev"),
        "fs.socket" => read_some("socket"),
        "fs.fifo" => read_some("fifo"),
        "fs.char_device_symlink" => read_some("link-char-dev"),
        "fs.raw_open_char_device" => raw_root().and_then(|root| {
            use wasip2::filesystem::types::{DescriptorFlags, OpenFlags, PathFlags};
            let file = root
                .open_at(PathFlags::empty(), "char-dev", OpenFlags::empty(), DescriptorFlags::READ)
                .map_err(|e| format!("{e:?}"))?;
            let (bytes, _) = file.read(16, 0).map_err(|e| format!("opened char-dev, then {e:?}"))?;
            Ok(format!("opened char-dev without following symlinks, read {} bytes", bytes.len()))
        }),
        "fs.long_path" => read(&"a/".repeat(20_000)),
        "fs.long_name" => read(&"n".repeat(100_000)),
        // Filesystem: any change at all.
        "fs.create" => done("created", fs::write("created-by-guest.txt", b"x")),
        "fs.write" => {
            done("wrote", OpenOptions::new().write(true).open("victim.txt").and_then(|mut f| f.write_all(b"!")))
        }
        "fs.append" => {
            done("appended", OpenOptions::new().append(true).open("victim.txt").and_then(|mut f| f.write_all(b"!")))
        }
        "fs.truncate" => done("truncated", OpenOptions::new().write(true).truncate(true).open("victim.txt")),
        "fs.delete" => done("deleted", fs::remove_file("victim.txt")),
        "fs.rename" => done("renamed", fs::rename("victim.txt", "renamed.txt")),
        "fs.mkdir" => done("made a directory", fs::create_dir("new-dir")),
        "fs.rmdir" => done("removed a directory", fs::remove_dir("empty-dir")),
        "fs.chmod" => done(
            "changed permissions",
            fs::metadata("victim.txt").and_then(|m| {
                let mut p = m.permissions();
                p.set_readonly(!p.readonly());
                fs::set_permissions("victim.txt", p)
            }),
        ),
        "fs.set_times" => done(
            "set times",
            fs::File::open("victim.txt").and_then(|f| f.set_modified(std::time::SystemTime::UNIX_EPOCH)),
        ),
        "fs.open_dir_write" => done("opened a directory for writing", OpenOptions::new().write(true).open("empty-dir")),
        "fs.symlink_create" => raw_root().and_then(|root| {
            root.symlink_at("/etc/passwd", "made-link").map(|()| "made a symlink".into()).map_err(|e| format!("{e:?}"))
        }),
        "fs.raw_open_parent" => raw_root().and_then(|root| {
            use wasip2::filesystem::types::{DescriptorFlags, OpenFlags, PathFlags};
            root.open_at(PathFlags::empty(), "..", OpenFlags::DIRECTORY, DescriptorFlags::READ)
                .map(|_| "opened the root's parent".into())
                .map_err(|e| format!("{e:?}"))
        }),
        "fs.raw_open_write" => raw_root().and_then(|root| {
            use wasip2::filesystem::types::{DescriptorFlags, OpenFlags, PathFlags};
            root.open_at(PathFlags::empty(), "victim.txt", OpenFlags::empty(), DescriptorFlags::WRITE)
                .map(|_| "opened victim.txt for writing".into())
                .map_err(|e| format!("{e:?}"))
        }),
        "fs.raw_mutate_directory" => raw_root().and_then(|root| {
            use wasip2::filesystem::types::{DescriptorFlags, OpenFlags, PathFlags};
            // Asking for a mutable handle on the root is answered; using it must not be.
            let dir = root
                .open_at(PathFlags::empty(), ".", OpenFlags::DIRECTORY, DescriptorFlags::MUTATE_DIRECTORY)
                .map_err(|e| format!("{e:?}"))?;
            let made = dir.create_directory_at("made-through-mutable-handle").map(|()| "made a directory");
            let created = dir
                .open_at(
                    PathFlags::empty(),
                    "created-through-mutable-handle",
                    OpenFlags::CREATE,
                    DescriptorFlags::WRITE,
                )
                .map(|_| "created a file");
            let removed = dir.unlink_file_at("victim.txt").map(|()| "removed a file");
            match (made, created, removed) {
                (Err(a), Err(b), Err(c)) => Err(format!("{a:?} / {b:?} / {c:?}")),
                (a, b, c) => Ok(format!("through a mutable handle: {a:?} {b:?} {c:?}")),
            }
        }),
        "fs.hardlink_create" => done("made a hard link", fs::hard_link("victim.txt", "made-hardlink")),
        "fs.write_outside" => done("wrote outside", fs::write(outside, b"pwned")),
        "fs.hardlink_write" => done(
            "wrote through the hard link",
            OpenOptions::new().append(true).open("hardlink").and_then(|mut f| f.write_all(b"!")),
        ),
        // Network.
        "net.tcp_connect" => done("connected", std::net::TcpStream::connect(("127.0.0.1", port))),
        "net.tcp_listen" => done("listening", std::net::TcpListener::bind("127.0.0.1:0")),
        "net.udp_send" => {
            done("sent", std::net::UdpSocket::bind("127.0.0.1:0").and_then(|s| s.send_to(b"x", ("127.0.0.1", port))))
        }
        "net.dns" => done("resolved", std::net::ToSocketAddrs::to_socket_addrs(&("localhost", 80))),
        // Environment and process.
        "env.vars" => match std::env::vars().collect::<Vec<_>>() {
            vars if vars.is_empty() => Err("no environment".into()),
            vars => Ok(format!("{} variables, e.g. {:?}", vars.len(), vars[0])),
        },
        "env.args" => match std::env::args().collect::<Vec<_>>() {
            args if args.is_empty() => Err("no arguments".into()),
            args => Ok(format!("arguments {args:?}")),
        },
        "env.cwd_outside" => match std::env::current_dir() {
            Ok(dir) if dir.as_os_str() != "/" => list("..").map(|l| format!("cwd {}: {l}", dir.display())),
            Ok(_) => list("..").and_then(|l| if l.contains("outside") { Ok(l) } else { Err("cwd is the root".into()) }),
            Err(e) => Err(e.to_string()),
        },
        "mem.residue" => residue(),
        "env.stdin" => {
            let mut input = String::new();
            match std::io::stdin().read_to_string(&mut input) {
                Ok(_) if !input.is_empty() => Ok(format!("read stdin: {input:?}")),
                Ok(_) => Err("stdin is empty".into()),
                Err(e) => Err(e.to_string()),
            }
        }
        _ => return None,
    })
}

/// The preopened root as a raw WASI descriptor: attacks below the standard library.
fn raw_root() -> Result<wasip2::filesystem::types::Descriptor, String> {
    wasip2::filesystem::preopens::get_directories()
        .into_iter()
        .map(|(descriptor, _)| descriptor)
        .next()
        .ok_or_else(|| "no preopened directory".to_string())
}

/// Attacks that never return a verdict of their own.
/// `mem.residue`: looks through its whole linear memory for what an earlier evaluation
/// in the same slot left there, then leaves some for the next one, low in memory (the
/// allocator's heap) and high (pages grown past the initial size). Reports an escape when
/// it finds residue, and also when it cannot find its own marker after writing it (a
/// scanner that sees nothing proves nothing).
#[cfg(target_arch = "wasm32")]
fn residue() -> Attempt {
    use core::arch::wasm32::{memory_grow, memory_size};
    const PAGE: usize = 65536;
    /// Memory the scan covers: grown to this size first, without writing.
    const SCANNED: usize = 48 << 20;
    /// A marker word no compiler puts in memory on its own this many times in a row.
    const WORD: u64 = 0x5ec2_e7a1_d0d0_f00d;
    const RUN: usize = 512;
    let scan = || {
        let end = memory_size(0) * PAGE;
        let (mut found, mut run) = (0usize, 0usize);
        for addr in (8..end).step_by(8) {
            // SAFETY: every address below memory.size is readable wasm memory.
            let word = unsafe { std::ptr::read_volatile(std::ptr::with_exposed_provenance::<u64>(addr)) };
            run = if word == WORD { run + 1 } else { 0 };
            // Bytes in runs of at least RUN words.
            found += match run {
                RUN => RUN * 8,
                r if r > RUN => 8,
                _ => 0,
            };
        }
        found
    };
    let have = memory_size(0) * PAGE;
    if have < SCANNED && memory_grow(0, (SCANNED - have) / PAGE) == usize::MAX {
        return Err("could not grow memory to scan it".into());
    }
    let before = scan();
    if before > 0 {
        return Ok(format!("found {before} bytes left by an earlier check"));
    }
    let heap = std::hint::black_box(vec![WORD; 8 * RUN]);
    for addr in (SCANNED - (4 << 20)..SCANNED).step_by(8) {
        // SAFETY: below SCANNED, which memory was grown to above; not the allocator's.
        unsafe { std::ptr::write_volatile(std::ptr::with_exposed_provenance_mut::<u64>(addr), WORD) };
    }
    let after = scan();
    std::mem::forget(heap);
    if after < (4 << 20) + RUN * 8 {
        return Ok(format!("the scan found only {after} bytes of its own marker: it could not see residue"));
    }
    Err(format!("no residue of an earlier check in {} MiB; left {after} bytes", SCANNED >> 20))
}

/// Outside wasm there is no linear memory to look through.
#[cfg(not(target_arch = "wasm32"))]
fn residue() -> Attempt {
    Err("no linear memory outside the sandbox".into())
}

fn runaway(config: &Config) -> Option<Verdict> {
    match config.attack.as_str() {
        "proc.exit_0" => std::process::exit(0),
        "proc.exit_1" => std::process::exit(1),
        "proc.exit_odd" => std::process::exit(-17),
        "proc.abort" => std::process::abort(),
        "proc.panic" => panic!("hostile panic"),
        "res.spin" => loop {
            std::hint::spin_loop();
        },
        "res.recursion" => {
            #[expect(unconditional_recursion, reason = "the attack: recurse until the stack runs out")]
            fn deeper(n: u64) -> u64 {
                std::hint::black_box(deeper(std::hint::black_box(n + 1))) + 1
            }
            Some(Verdict::pass(deeper(0).to_string()))
        }
        "res.memory_growth" => {
            let mut hoard: Vec<Vec<u8>> = Vec::new();
            loop {
                hoard.push(vec![1u8; 1 << 20]);
                std::hint::black_box(&hoard);
            }
        }
        "res.huge_alloc" => {
            let v = std::hint::black_box(vec![1u8; 1536 << 20]);
            Some(Verdict::pass(v.len().to_string()))
        }
        "res.stdout_flood" => {
            let line = "x".repeat(1 << 16);
            loop {
                if std::io::stdout().write_all(line.as_bytes()).is_err() {
                    // The cap refused more: keep trying, as a flood would.
                    std::hint::spin_loop();
                }
            }
        }
        "res.stderr_flood" => {
            let line = "y".repeat(1 << 16);
            loop {
                if std::io::stderr().write_all(line.as_bytes()).is_err() {
                    std::hint::spin_loop();
                }
            }
        }
        "res.random_hot" => loop {
            let mut buf = [0u8; 4096];
            let _ = getrandom::fill(&mut buf);
            std::hint::black_box(&buf);
        },
        // Sleeping is a wait inside a WASI host call (`wasi:io/poll`), where no epoch
        // deadline can fire: only the host's watchdog ends it.
        "res.sleep" => loop {
            std::thread::sleep(std::time::Duration::from_secs(3600));
        },
        "res.clock_hot" => loop {
            std::hint::black_box(std::time::SystemTime::now());
            std::hint::black_box(std::time::Instant::now());
        },
        "res.verdict_100mb" => Some(Verdict::fail("v".repeat(100 << 20))),
        "res.evidence_millions" => {
            let evidence = (0..2_000_000).map(|_| Evidence { path: String::new(), line: Some(1), text: String::new() });
            Some(Verdict { passed: false, message: "many".into(), evidence: evidence.collect() })
        }
        "res.evidence_aliased" => Some(aliased_evidence()),
        _ => None,
    }
}

/// 200,000 evidence entries whose texts all point at the same 1 MiB buffer: 1.2 MiB of
/// guest memory that a host lifting every entry would turn into 200 GB of strings.
fn aliased_evidence() -> Verdict {
    let mut buffer = std::mem::ManuallyDrop::new("z".repeat(1 << 20));
    let (ptr, len) = (buffer.as_mut_ptr(), buffer.len());
    let evidence = (0..200_000)
        .map(|_| Evidence {
            path: String::new(),
            line: None,
            // SAFETY: deliberately unsound aliasing; the component is hostile and the
            // strings are never freed by this side (the host's post-return may trap).
            text: unsafe { String::from_raw_parts(ptr, len, len) },
        })
        .collect();
    Verdict { passed: false, message: "aliased".into(), evidence }
}

impl Validator for Hostile {
    type Config = Config;

    fn validate(_id: &str, config: Config, _root: &Root) -> Result<Verdict, String> {
        if let Some(verdict) = runaway(&config) {
            return Ok(verdict);
        }
        match attempt(&config) {
            Some(Ok(got)) => Ok(Verdict::fail(format!("ESCAPED: {got}"))),
            Some(Err(error)) => Ok(Verdict::pass(format!("refused: {error}"))),
            None => Err(format!("unknown attack '{}'", config.attack)),
        }
    }
}

reviewhost_guest::export_validator!(Hostile);
