//! Test validator: starts with about 9 MiB of linear memory (a zeroed static area) and
//! writes one byte to every other page of it, `config.pages` pages in all, as an
//! interpreter writes to its snapshot; then passes, or with `config.spin` loops until
//! its deadline. For the tests of which validators' evaluations run one at a time.
use std::sync::atomic::{AtomicU8, Ordering};

use reviewhost_guest::{Root, Validator, Verdict};
use serde::Deserialize;

const PAGE: usize = 64 << 10;
const AREA: usize = 9 << 20;

/// Zeroed, so it costs the component file nothing, but counts in its memory at start.
static MEMORY: [AtomicU8; AREA] = [const { AtomicU8::new(0) }; AREA];

pub struct PageWriter;

#[derive(Deserialize)]
pub struct Config {
    pages: usize,
    #[serde(default)]
    spin: bool,
}

impl Validator for PageWriter {
    type Config = Config;

    fn validate(_id: &str, config: Config, _root: &Root) -> Result<Verdict, String> {
        // Host pages are 4 KiB: every other one, so no two written pages are adjacent.
        let host_page = 4096;
        for page in 0..config.pages.min(AREA / (2 * host_page)) {
            MEMORY[page * 2 * host_page].fetch_add(1, Ordering::Relaxed);
        }
        if config.spin {
            let mut n: u64 = 0;
            loop {
                n = std::hint::black_box(n.wrapping_add(1));
            }
        }
        Ok(Verdict::pass(format!("wrote {} pages of {} wasm pages", config.pages, AREA / PAGE)))
    }
}

reviewhost_guest::export_validator!(PageWriter);
