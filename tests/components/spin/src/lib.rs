//! Hostile test component: never returns. The epoch deadline must stop it.
use reviewhost_guest::{Check, Verdict};

pub struct Spin;

impl Check for Spin {
    fn evaluate(_assertion: &str) -> Result<Verdict, String> {
        let mut n: u64 = 0;
        loop {
            n = std::hint::black_box(n.wrapping_add(1));
        }
    }
}

reviewhost_guest::export_check!(Spin);
