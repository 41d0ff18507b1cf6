//! Hostile test component: allocates and touches memory until something stops it.
//! The store's memory limit must end it as an error, not the host.
use reviewhost_guest::{Check, Verdict};

pub struct Balloon;

impl Check for Balloon {
    fn evaluate(_assertion: &str) -> Result<Verdict, String> {
        let mut chunks: Vec<Vec<u8>> = Vec::new();
        loop {
            chunks.push(vec![0xA5; 4 << 20]);
            std::hint::black_box(&chunks);
        }
    }
}

reviewhost_guest::export_check!(Balloon);
